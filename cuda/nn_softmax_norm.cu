/* SPDX-License-Identifier: MIT */
/* cuda/nn_softmax_norm.cu: softmax, log_softmax, cross-entropy, NLL, layer
   norm, RMS norm and batch norm with their backward passes on the GPU, bit
   for bit equal to include/repdl/softmax.h and norm.h on the host, for any
   grid and any batch size.

   The numeric steps are the host's own REPDL_FN pieces (repdl_exp_f32,
   repdl_log_f32, repdl__div_count_f32, repdl__norm_rstd, repdl__fmaf) and
   the canonical sums of cuda/leaf_sum.cuh; what is written here is where
   each value lives:
     a row (a channel of batch norm), by one warp: the max by integer
       order keys and a shuffle reduction (max is associative on bit
       patterns: reduce_minmax.h); every canonical sum by warp_sum (each
       leaf's terms computed on the fly and staged in the warp's 4 KiB of
       shared memory);
     a column sum over rows (dgamma, dbeta of layer and RMS norm), by one
       thread, in the batch order (thread_mb_sum: micro-batches of 16 rows,
       each one padded leaf, then the buddy tree over micro-batches); the
       threads of a warp take adjacent columns, so every load of the warp
       is contiguous;
     batch norm's per-channel sums (the statistics of training, sdy and sdx
       of backward), by one warp, in the batch order (warp_mb_sum: per
       micro-batch of 16 images the canonical sum of its terms in (img, hw)
       order by warp_sum, then the buddy tree over micro-batches);
     the batch loss of cross-entropy and NLL: the row losses in a
       workspace, then repdl_cuda_sum_f32 (cuda/reduce.cu), then one
       correctly rounded division by rows for the mean.
   Element i of a row is always handled by thread i mod 32 of its warp, in
   every pass, so in-place calls (y == x, ...) need no extra barrier.
   Every float operation is a config.h primitive (__fadd_rn, __fmul_rn,
   __fdiv_rn, __fsqrt_rn, __fmaf_rn where the definition has an fma): the
   PTX is the same under --fmad=true and --fmad=false
   (tests/cuda/check_ptx.sh). */
#include <repdl/norm.h>
#include <repdl/softmax.h>

#include "common.cuh"
#include "leaf_sum.cuh"

namespace repdl_cuda {
namespace nnsn {

constexpr int WARPS = 8;                /* a block */
constexpr int THREADS = WARPS * 32;
constexpr unsigned MAX_GRID = 8192;     /* grid-stride beyond */

/* repdl_max_f32 of v(0) .. v(n-1) by one warp (element i read by thread
   i mod 32): the largest order key, NaN if any magnitude exceeds inf. */
template <class F>
__device__ float warp_max(size_t n, F v, int t)
{
    uint32_t hi = REPDL__KEY_NEG_INF, a = 0;
    for (size_t i = t; i < n; i += 32) {
        uint32_t u = repdl__asuint(v(i)), k = repdl__order_key(u), m = u & 0x7fffffffu;
        hi = k > hi ? k : hi;
        a = m > a ? m : a;
    }
#pragma unroll
    for (int o = 16; o >= 1; o /= 2) {
        uint32_t h2 = __shfl_xor_sync(FULL_MASK, hi, o), a2 = __shfl_xor_sync(FULL_MASK, a, o);
        hi = h2 > hi ? h2 : hi;
        a = a2 > a ? a2 : a;
    }
    return a > 0x7f800000u ? repdl__nanf() : repdl__asfloat(repdl__order_unkey(hi));
}

/* The affine map of norm.h (repdl__norm_affine), one element. */
__device__ __forceinline__ float affine(float xh, const float *g, const float *b, size_t j)
{
    if (g && b) return repdl__canon(repdl__fmaf(xh, g[j], b[j]));
    if (g) return repdl__canon(repdl__fmul(xh, g[j]));
    if (b) return repdl__canon(repdl__fadd(xh, b[j]));
    return repdl__canon(xh);
}

#define NNSN_WARP_SETUP                                      \
    __shared__ float shm[WARPS][REPDL_SUM_LEAF];             \
    int t = threadIdx.x % 32, w = threadIdx.x / 32;          \
    float *buf = shm[w];                                     \
    (void)buf;
#define NNSN_ROWS(r, rows) \
    for (size_t r = (size_t)blockIdx.x * WARPS + w; r < (rows); r += (size_t)gridDim.x * WARPS)

/* ---- softmax family ---- */

template <bool LOG>
__global__ void __launch_bounds__(THREADS)
k_softmax(size_t rows, size_t cols, const float *x, float *y)
{
    NNSN_WARP_SETUP
    NNSN_ROWS(r, rows) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        float m = warp_max(cols, [&](size_t i) { return xr[i]; }, t);
        if (!repdl__sm_finite(m)) {
            for (size_t i = t; i < cols; i += 32) yr[i] = repdl__nanf();
            continue;
        }
        if (!LOG) {
            float s = warp_sum(cols, [&](size_t i) {
                float e = repdl_exp_f32(repdl__fsub(xr[i], m));
                yr[i] = e;
                return e;
            }, buf, t);
            for (size_t i = t; i < cols; i += 32) yr[i] = repdl__fdiv(yr[i], s);
        } else {
            float s = warp_sum(cols, [&](size_t i) {
                float d = repdl__fsub(xr[i], m);
                yr[i] = d;
                return repdl_exp_f32(d);
            }, buf, t);
            float ls = repdl_log_f32(s);
            for (size_t i = t; i < cols; i += 32) yr[i] = repdl__fsub(yr[i], ls);
        }
    }
}

template <bool LOG>
__global__ void __launch_bounds__(THREADS)
k_softmax_backward(size_t rows, size_t cols, const float *y, const float *dy, float *dx)
{
    NNSN_WARP_SETUP
    NNSN_ROWS(r, rows) {
        const float *yr = y + r * cols, *gr = dy + r * cols;
        float *o = dx + r * cols;
        if (!LOG) {
            float dot = warp_sum(cols, [&](size_t i) { return repdl__fmul(yr[i], gr[i]); }, buf, t);
            dot = repdl__canon(dot);
            for (size_t i = t; i < cols; i += 32)
                o[i] = repdl__canon(repdl__fmul(yr[i], repdl__fsub(gr[i], dot)));
        } else {
            float s = warp_sum(cols, [&](size_t i) { return gr[i]; }, buf, t);
            s = repdl__canon(s);
            for (size_t i = t; i < cols; i += 32)
                o[i] = repdl__canon(repdl__fsub(gr[i], repdl__fmul(repdl_exp_f32(yr[i]), s)));
        }
    }
}

/* ---- losses: row losses to ws[r], gradients ---- */

__global__ void __launch_bounds__(THREADS)
k_cross_entropy(size_t rows, size_t cols, const float *x, const size_t *target, int reduction,
                float *ws, float *dx)
{
    NNSN_WARP_SETUP
    NNSN_ROWS(r, rows) {
        const float *xr = x + r * cols;
        float *g = dx ? dx + r * cols : NULL;
        size_t tg = target[r];
        float m = cols ? warp_max(cols, [&](size_t i) { return xr[i]; }, t) : repdl__nanf();
        if (tg >= cols || !repdl__sm_finite(m)) {
            if (t == 0) ws[r] = repdl__nanf();
            if (g)
                for (size_t i = t; i < cols; i += 32) g[i] = repdl__nanf();
            continue;
        }
        float dt = repdl__fsub(xr[tg], m);
        __syncwarp(); /* x[tg] is read before g (maybe x) is written */
        float s = warp_sum(cols, [&](size_t i) {
            float e = repdl_exp_f32(repdl__fsub(xr[i], m));
            if (g) g[i] = e;
            return e;
        }, buf, t);
        if (t == 0) ws[r] = repdl__fneg(repdl__fsub(dt, repdl_log_f32(s)));
        if (g)
            for (size_t i = t; i < cols; i += 32) {
                float v = repdl__fdiv(g[i], s);
                if (i == tg) v = repdl__fsub(v, 1.0f);
                if (reduction == REPDL_REDUCTION_MEAN) v = repdl__div_count_f32(v, rows);
                g[i] = v;
            }
    }
}

__global__ void __launch_bounds__(THREADS)
k_nll(size_t rows, size_t cols, const float *lp, const size_t *target, int reduction,
      float *ws, float *dx)
{
    int t = threadIdx.x % 32, w = threadIdx.x / 32;
    float gt = reduction == REPDL_REDUCTION_MEAN ? repdl__fneg(repdl__div_count_f32(1.0f, rows)) : -1.0f;
    NNSN_ROWS(r, rows) {
        size_t tg = target[r];
        float *g = dx ? dx + r * cols : NULL;
        int bad = tg >= cols;
        float l = bad ? repdl__nanf() : repdl__canon(repdl__fneg(lp[r * cols + tg]));
        __syncwarp(); /* read before g (maybe lp) is written */
        if (t == 0) ws[r] = l;
        if (g)
            for (size_t i = t; i < cols; i += 32)
                g[i] = bad ? repdl__nanf() : i == tg ? gt : 0.0f;
    }
}

/* *out = repdl__loss_finish(*out, rows, reduction); empty: from -0.0. */
__global__ void k_loss_finish(float *out, size_t rows, int reduction, int empty)
{
    float total = empty ? -0.0f : *out;
    *out = repdl__loss_finish(total, rows, reduction);
}

/* ---- layer norm, RMS norm ---- */

__global__ void __launch_bounds__(THREADS)
k_layer_norm(size_t rows, size_t cols, const float *x, const float *gamma, const float *beta,
             float eps, float *y, float *mean, float *rstd)
{
    NNSN_WARP_SETUP
    NNSN_ROWS(r, rows) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        float mu = repdl__nanf(), var = repdl__nanf();
        if (cols) {
            float s = warp_sum(cols, [&](size_t i) { return xr[i]; }, buf, t);
            mu = repdl__canon(repdl__div_count_f32(repdl__canon(s), cols));
            float s2 = warp_sum(cols, [&](size_t i) {
                float d = repdl__fsub(xr[i], mu);
                return repdl__fmul(d, d);
            }, buf, t);
            var = repdl__canon(repdl__div_count_f32(s2, cols));
        }
        float rs = repdl__norm_rstd(var, eps);
        if (t == 0) {
            if (mean) mean[r] = mu;
            if (rstd) rstd[r] = rs;
        }
        for (size_t i = t; i < cols; i += 32)
            yr[i] = affine(repdl__fmul(repdl__fsub(xr[i], mu), rs), gamma, beta, i);
    }
}

__global__ void __launch_bounds__(THREADS)
k_layer_norm_backward(size_t rows, size_t cols, const float *x, const float *gamma,
                      const float *mean, const float *rstd, const float *dy, float *dx)
{
    NNSN_WARP_SETUP
    NNSN_ROWS(r, rows) {
        const float *xr = x + r * cols, *gr = dy + r * cols;
        float *o = dx + r * cols;
        float mu = mean[r], rs = rstd[r];
        auto gi = [&](size_t i) { return gamma ? repdl__fmul(gr[i], gamma[i]) : gr[i]; };
        auto xh = [&](size_t i) { return repdl__fmul(repdl__fsub(xr[i], mu), rs); };
        float c1 = repdl__div_count_f32(warp_sum(cols, gi, buf, t), cols);
        float c2 = repdl__div_count_f32(
            warp_sum(cols, [&](size_t i) { return repdl__fmul(gi(i), xh(i)); }, buf, t), cols);
        for (size_t i = t; i < cols; i += 32)
            o[i] = repdl__canon(repdl__fmul(
                rs, repdl__fsub(repdl__fsub(gi(i), c1), repdl__fmul(xh(i), c2))));
    }
}

__global__ void __launch_bounds__(THREADS)
k_rms_norm(size_t rows, size_t cols, const float *x, const float *gamma, float eps, float *y,
           float *rstd)
{
    NNSN_WARP_SETUP
    NNSN_ROWS(r, rows) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        float ms = repdl__nanf();
        if (cols) {
            float ss = warp_sum(cols, [&](size_t i) { return repdl__fmul(xr[i], xr[i]); }, buf, t);
            ms = repdl__div_count_f32(repdl__canon(ss), cols);
        }
        float rs = repdl__norm_rstd(ms, eps);
        if (t == 0 && rstd) rstd[r] = rs;
        for (size_t i = t; i < cols; i += 32)
            yr[i] = affine(repdl__fmul(xr[i], rs), gamma, NULL, i);
    }
}

__global__ void __launch_bounds__(THREADS)
k_rms_norm_backward(size_t rows, size_t cols, const float *x, const float *gamma,
                    const float *rstd, const float *dy, float *dx)
{
    NNSN_WARP_SETUP
    NNSN_ROWS(r, rows) {
        const float *xr = x + r * cols, *gr = dy + r * cols;
        float *o = dx + r * cols;
        float rs = rstd[r];
        auto gi = [&](size_t i) { return gamma ? repdl__fmul(gr[i], gamma[i]) : gr[i]; };
        float c2 = repdl__div_count_f32(warp_sum(cols, [&](size_t i) {
            return repdl__fmul(gi(i), repdl__fmul(xr[i], rs));
        }, buf, t), cols);
        for (size_t i = t; i < cols; i += 32)
            o[i] = repdl__canon(repdl__fmul(
                rs, repdl__fsub(gi(i), repdl__fmul(repdl__fmul(xr[i], rs), c2))));
    }
}

/* ---- The batch order (docs/canonical-order.md, "The batch order") ----
   A sum over the rows (samples) of a backward pass cuts them into
   micro-batches of REPDL_MICROBATCH = 16: each micro-batch's canonical sum
   (repdl_sum_f32 of its <= 16 terms), then the buddy tree over the
   micro-batch values (repdl__tree, accum.h).  A canonical sum of at most
   16 terms is one leaf whose terms sit in lanes 0 .. 15 of vector 0, every
   other element the padding -0.0.  x + -0.0 == x for every x (NaN stays
   NaN, and every NaN result is canonicalised at the end), so the vertical
   tree of lane l is term l (or -0.0) and the fold's steps h = 32 and
   h = 16 add only -0.0: the leaf's value is repdl__sum_fold16_f32 of the
   16 lanes, the host's last four halving steps, which is what is computed
   here (15 additions a micro-batch, not 1023 of -0.0). */
#if REPDL_MICROBATCH != 16 || REPDL_SUM_LANES != 64 || REPDL_SUM_VECS != 16
#error "thread_mb_sum maps a micro-batch of 16 terms onto lanes 0..15 of a leaf"
#endif

/* The batch-order sum of v(0) .. v(rows-1) by ONE thread: rows <= 16 is
   repdl_sum_f32 of the v(r) (thread_sum's value, one leaf). */
template <class F>
__device__ float thread_mb_sum(size_t rows, F v)
{
    repdl__tree tr;
    repdl__tree_init(&tr);
    for (size_t r0 = 0; r0 < rows; r0 += REPDL_MICROBATCH) {
        float b[16];
#pragma unroll
        for (int i = 0; i < 16; i++) b[i] = r0 + i < rows ? v(r0 + i) : -0.0f;
        repdl__tree_push(&tr, 0, repdl__sum_fold16_f32(b));
    }
    return repdl__tree_root(&tr);
}

/* The batch-order sum of batch norm's per-channel terms v(e), e = img hw +
   s (img < n, s < hw), by one warp, on every thread: per micro-batch of 16
   images the canonical sum of its (<= 16) hw terms in (img, s) order
   (warp_sum), then the buddy tree over the micro-batches.  n <= 16:
   warp_sum of all n hw terms. */
template <class F>
__device__ float warp_mb_sum(size_t n, size_t hw, F v, float *buf, int t)
{
    if (n <= REPDL_MICROBATCH) return warp_sum(n * hw, v, buf, t);
    repdl__tree tr;
    repdl__tree_init(&tr);
    for (size_t i0 = 0; i0 < n; i0 += REPDL_MICROBATCH) {
        size_t cnt = (repdl__mb_end(n, i0) - i0) * hw;
        size_t base = i0 * hw;
        repdl__tree_push(&tr, 0, warp_sum(cnt, [&](size_t e) { return v(base + e); }, buf, t));
    }
    return repdl__tree_root(&tr);
}

/* out[j] = repdl__norm_colsum's column sums, in the batch order over the
   rows: mode 0 dy, 1 layer, 2 rms. */
__global__ void __launch_bounds__(THREADS)
k_colsum(size_t rows, size_t cols, const float *x, const float *mean, const float *rstd,
         const float *dy, int mode, float *out)
{
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < cols;
         j += (size_t)gridDim.x * blockDim.x) {
        float s = thread_mb_sum(rows, [&](size_t r) {
            float g = dy[r * cols + j];
            if (mode == 0) return g;
            float xv = x[r * cols + j], rs = rstd[r];
            float xh = mode == 1 ? repdl__fmul(repdl__fsub(xv, mean[r]), rs) : repdl__fmul(xv, rs);
            return repdl__fmul(g, xh);
        });
        out[j] = repdl__canon(s);
    }
}

/* ---- batch norm: a warp a channel ---- */

__device__ __forceinline__ size_t bn_index(size_t e, size_t c, size_t hw, size_t ch)
{
    return (e / hw * c + ch) * hw + e % hw;
}

__global__ void __launch_bounds__(THREADS)
k_bn_train(size_t n, size_t c, size_t hw, const float *x, const float *gamma, const float *beta,
           float eps, float momentum, float *rmean, float *rvar, float *y, float *smean,
           float *srstd)
{
    NNSN_WARP_SETUP
    size_t N = n * hw;
    float om = repdl__fsub(1.0f, momentum);
    NNSN_ROWS(ch, c) {
        if (N == 0) {
            if (t == 0) {
                if (smean) smean[ch] = repdl__nanf();
                if (srstd) srstd[ch] = repdl__nanf();
            }
            continue;
        }
        auto xe = [&](size_t e) { return x[bn_index(e, c, hw, ch)]; };
        float mu = repdl__canon(repdl__div_count_f32(warp_mb_sum(n, hw, xe, buf, t), N));
        float s2 = warp_mb_sum(n, hw, [&](size_t e) {
            float d = repdl__fsub(xe(e), mu);
            return repdl__fmul(d, d);
        }, buf, t);
        float var = repdl__canon(repdl__div_count_f32(s2, N));
        float rs = repdl__norm_rstd(var, eps);
        float uvar = N > 1 ? repdl__canon(repdl__div_count_f32(s2, N - 1)) : repdl__nanf();
        for (size_t e = t; e < N; e += 32) {
            size_t q = bn_index(e, c, hw, ch);
            y[q] = affine(repdl__fmul(repdl__fsub(x[q], mu), rs), gamma, beta, ch);
        }
        if (t == 0) {
            if (smean) smean[ch] = mu;
            if (srstd) srstd[ch] = rs;
            if (rmean)
                rmean[ch] = repdl__canon(repdl__fadd(repdl__fmul(momentum, mu),
                                                     repdl__fmul(om, rmean[ch])));
            if (rvar)
                rvar[ch] = repdl__canon(repdl__fadd(repdl__fmul(momentum, uvar),
                                                    repdl__fmul(om, rvar[ch])));
        }
    }
}

__global__ void __launch_bounds__(THREADS)
k_bn_infer(size_t total, size_t c, size_t hw, const float *x, const float *gamma,
           const float *beta, float eps, const float *rmean, const float *rvar, float *y)
{
    for (size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x; q < total;
         q += (size_t)gridDim.x * blockDim.x) {
        size_t ch = q / hw % c;
        float rs = repdl__norm_rstd(rvar[ch], eps);
        y[q] = affine(repdl__fmul(repdl__fsub(x[q], rmean[ch]), rs), gamma, beta, ch);
    }
}

__global__ void __launch_bounds__(THREADS)
k_bn_backward(size_t n, size_t c, size_t hw, const float *x, const float *gamma,
              const float *smean, const float *srstd, const float *dy, float *dx,
              float *dgamma, float *dbeta)
{
    NNSN_WARP_SETUP
    size_t N = n * hw;
    NNSN_ROWS(ch, c) {
        float mu = smean[ch], rs = srstd[ch];
        auto xh = [&](size_t q) { return repdl__fmul(repdl__fsub(x[q], mu), rs); };
        float sdy = repdl__canon(warp_mb_sum(n, hw, [&](size_t e) {
            return dy[bn_index(e, c, hw, ch)];
        }, buf, t));
        float sdx = repdl__canon(warp_mb_sum(n, hw, [&](size_t e) {
            size_t q = bn_index(e, c, hw, ch);
            return repdl__fmul(dy[q], xh(q));
        }, buf, t));
        if (t == 0) {
            if (dbeta) dbeta[ch] = sdy;
            if (dgamma) dgamma[ch] = sdx;
        }
        if (!dx || N == 0) continue;
        float c1 = repdl__div_count_f32(sdy, N), c2 = repdl__div_count_f32(sdx, N);
        float kk = gamma ? repdl__fmul(gamma[ch], rs) : rs;
        for (size_t e = t; e < N; e += 32) {
            size_t q = bn_index(e, c, hw, ch);
            dx[q] = repdl__canon(repdl__fmul(
                kk, repdl__fsub(repdl__fsub(dy[q], c1), repdl__fmul(xh(q), c2))));
        }
    }
}

/* ---- launch helpers ---- */

static unsigned grid_for_warps(size_t units) { return grid_blocks(units, WARPS, MAX_GRID); }
static unsigned grid_for_threads(size_t units) { return grid_blocks(units, THREADS, MAX_GRID); }

/* rows * cols without overflow of the byte count. */
static int size_ok(size_t rows, size_t cols)
{
    size_t e, b;
    return mul_ok(rows, cols, &e) && mul_ok(e, sizeof(float), &b);
}

template <bool LOG>
static int launch_softmax(size_t rows, size_t cols, const float *x, float *y, void *stream)
{
    if (rows == 0 || cols == 0) return REPDL_OK;
    if (!size_ok(rows, cols)) return REPDL_ERR_OVERFLOW;
    if (!x || !y) return REPDL_ERR_INVALID;
    REPDL_CUDA_TRY(device_ready());
    return launch(k_softmax<LOG>, grid_for_warps(rows), THREADS, stream, rows, cols, x, y);
}

template <bool LOG>
static int launch_softmax_bw(size_t rows, size_t cols, const float *y, const float *dy,
                             float *dx, void *stream)
{
    if (rows == 0 || cols == 0) return REPDL_OK;
    if (!size_ok(rows, cols)) return REPDL_ERR_OVERFLOW;
    if (!y || !dy || !dx) return REPDL_ERR_INVALID;
    REPDL_CUDA_TRY(device_ready());
    return launch(k_softmax_backward<LOG>, grid_for_warps(rows), THREADS, stream, rows, cols, y,
                  dy, dx);
}

/* The losses: row losses into a workspace, then the canonical sum. */
template <bool CE>
static int launch_loss(size_t rows, size_t cols, const float *x, const size_t *target,
                       int reduction, float *loss, float *dx, void *stream)
{
    if (!size_ok(rows, cols)) return REPDL_ERR_OVERFLOW;
    if (!loss || (reduction != REPDL_REDUCTION_SUM && reduction != REPDL_REDUCTION_MEAN))
        return REPDL_ERR_INVALID;
    if (rows > 0 && (!target || (cols > 0 && !x))) return REPDL_ERR_INVALID;
    REPDL_CUDA_TRY(device_ready());
    if (rows == 0) return launch(k_loss_finish, 1, 1, stream, loss, 0, reduction, 1);
    cudaStream_t s = as_stream(stream);
    void *ws = NULL;
    cudaError_t e = workspace_alloc(&ws, rows * sizeof(float), s);
    if (e != cudaSuccess) return fail_alloc(e);
    float *w = (float *)ws;
    int rc = launch(CE ? k_cross_entropy : k_nll, grid_for_warps(rows), THREADS, stream, rows,
                    cols, x, target, reduction, w, dx);
    if (rc == REPDL_OK) rc = repdl_cuda_sum_f32(rows, w, loss, stream);
    if (rc == REPDL_OK) rc = launch(k_loss_finish, 1, 1, stream, loss, rows, reduction, 0);
    e = workspace_free(ws, s);
    if (e != cudaSuccess && rc == REPDL_OK) rc = fail_cuda(e);
    return rc;
}

/* The column sums of the norms' backward passes: mode 0 dy, 1 layer, 2 rms
   (k_colsum), into out when it is not NULL. */
static int launch_colsum(size_t rows, size_t cols, const float *x, const float *mean,
                         const float *rstd, const float *dy, int mode, float *out, void *stream)
{
    if (!out) return REPDL_OK;
    return launch(k_colsum, grid_for_threads(cols), THREADS, stream, rows, cols, x, mean, rstd,
                  dy, mode, out);
}

} // namespace nnsn
} // namespace repdl_cuda

using namespace repdl_cuda;
using namespace repdl_cuda::nnsn;

extern "C" int repdl_cuda_softmax_f32(size_t rows, size_t cols, const float *x, float *y,
                                      void *stream)
{
    return launch_softmax<false>(rows, cols, x, y, stream);
}

extern "C" int repdl_cuda_log_softmax_f32(size_t rows, size_t cols, const float *x, float *y,
                                          void *stream)
{
    return launch_softmax<true>(rows, cols, x, y, stream);
}

extern "C" int repdl_cuda_softmax_backward_f32(size_t rows, size_t cols, const float *y,
                                               const float *dy, float *dx, void *stream)
{
    return launch_softmax_bw<false>(rows, cols, y, dy, dx, stream);
}

extern "C" int repdl_cuda_log_softmax_backward_f32(size_t rows, size_t cols, const float *y,
                                                   const float *dy, float *dx, void *stream)
{
    return launch_softmax_bw<true>(rows, cols, y, dy, dx, stream);
}

extern "C" int repdl_cuda_cross_entropy_f32(size_t rows, size_t cols, int reduction,
                                            const float *logits, const size_t *target, float *loss,
                                            float *dlogits, void *stream)
{
    return launch_loss<true>(rows, cols, logits, target, reduction, loss, dlogits, stream);
}

extern "C" int repdl_cuda_nll_loss_f32(size_t rows, size_t cols, int reduction,
                                       const float *logp, const size_t *target, float *loss,
                                       float *dlogp, void *stream)
{
    return launch_loss<false>(rows, cols, logp, target, reduction, loss, dlogp, stream);
}

extern "C" int repdl_cuda_layer_norm_forward_f32(size_t rows, size_t cols, float eps,
                                                 const float *x, const float *gamma,
                                                 const float *beta, float *y, float *mean, float *rstd,
                                                 void *stream)
{
    if (rows == 0) return REPDL_OK;
    if (!size_ok(rows, cols)) return REPDL_ERR_OVERFLOW;
    if (rows && cols && (!x || !y)) return REPDL_ERR_INVALID;
    REPDL_CUDA_TRY(device_ready());
    return launch(k_layer_norm, grid_for_warps(rows), THREADS, stream, rows, cols, x, gamma, beta,
                  eps, y, mean, rstd);
}

extern "C" int repdl_cuda_layer_norm_backward_f32(size_t rows, size_t cols, const float *x,
                                                  const float *gamma, const float *mean,
                                                  const float *rstd, const float *dy,
                                                  float *dx, float *dgamma, float *dbeta,
                                                  void *stream)
{
    if (cols == 0) return REPDL_OK;
    if (!size_ok(rows, cols)) return REPDL_ERR_OVERFLOW;
    if (rows && (!x || !dy || !mean || !rstd)) return REPDL_ERR_INVALID;
    REPDL_CUDA_TRY(device_ready());
    if (dx && rows)
        REPDL_CUDA_TRY(launch(k_layer_norm_backward, grid_for_warps(rows), THREADS, stream, rows,
                              cols, x, gamma, mean, rstd, dy, dx));
    REPDL_CUDA_TRY(launch_colsum(rows, cols, x, mean, rstd, dy, 1, dgamma, stream));
    return launch_colsum(rows, cols, x, mean, rstd, dy, 0, dbeta, stream);
}

extern "C" int repdl_cuda_rms_norm_forward_f32(size_t rows, size_t cols, float eps,
                                               const float *x, const float *gamma, float *y,
                                               float *rstd, void *stream)
{
    if (rows == 0) return REPDL_OK;
    if (!size_ok(rows, cols)) return REPDL_ERR_OVERFLOW;
    if (rows && cols && (!x || !y)) return REPDL_ERR_INVALID;
    REPDL_CUDA_TRY(device_ready());
    return launch(k_rms_norm, grid_for_warps(rows), THREADS, stream, rows, cols, x, gamma, eps, y,
                  rstd);
}

extern "C" int repdl_cuda_rms_norm_backward_f32(size_t rows, size_t cols, const float *x,
                                                const float *gamma, const float *rstd,
                                                const float *dy, float *dx, float *dgamma,
                                                void *stream)
{
    if (cols == 0) return REPDL_OK;
    if (!size_ok(rows, cols)) return REPDL_ERR_OVERFLOW;
    if (rows && (!x || !dy || !rstd)) return REPDL_ERR_INVALID;
    REPDL_CUDA_TRY(device_ready());
    if (dx && rows)
        REPDL_CUDA_TRY(launch(k_rms_norm_backward, grid_for_warps(rows), THREADS, stream, rows,
                              cols, x, gamma, rstd, dy, dx));
    return launch_colsum(rows, cols, x, NULL, rstd, dy, 2, dgamma, stream);
}

extern "C" int repdl_cuda_batch_norm_forward_train_f32(size_t n, size_t c, size_t hw,
                                                       float eps, float momentum,
                                                       const float *x, const float *gamma,
                                                       const float *beta, float *running_mean,
                                                       float *running_var, float *y,
                                                       float *save_mean, float *save_rstd,
                                                       void *stream)
{
    size_t N;
    if (c == 0) return REPDL_OK;
    if (!mul_ok(n, hw, &N) || !size_ok(N, c)) return REPDL_ERR_OVERFLOW;
    if (N && (!x || !y)) return REPDL_ERR_INVALID;
    REPDL_CUDA_TRY(device_ready());
    return launch(k_bn_train, grid_for_warps(c), THREADS, stream, n, c, hw, x, gamma, beta, eps,
                  momentum, running_mean, running_var, y, save_mean, save_rstd);
}

extern "C" int repdl_cuda_batch_norm_forward_infer_f32(size_t n, size_t c, size_t hw,
                                                       float eps, const float *x,
                                                       const float *gamma, const float *beta,
                                                       const float *running_mean,
                                                       const float *running_var, float *y,
                                                       void *stream)
{
    size_t N, total;
    if (!mul_ok(n, hw, &N) || !size_ok(N, c)) return REPDL_ERR_OVERFLOW;
    total = N * c;
    if (total == 0) return REPDL_OK;
    if (!x || !y || !running_mean || !running_var) return REPDL_ERR_INVALID;
    REPDL_CUDA_TRY(device_ready());
    return launch(k_bn_infer, grid_for_threads(total), THREADS, stream, total, c, hw, x, gamma,
                  beta, eps, running_mean, running_var, y);
}

extern "C" int repdl_cuda_batch_norm_backward_f32(size_t n, size_t c, size_t hw, const float *x,
                                                  const float *gamma, const float *save_mean,
                                                  const float *save_rstd, const float *dy,
                                                  float *dx, float *dgamma, float *dbeta,
                                                  void *stream)
{
    size_t N;
    if (c == 0) return REPDL_OK;
    if (!mul_ok(n, hw, &N) || !size_ok(N, c) || !save_mean || !save_rstd ||
        (N && (!x || !dy)))
        return REPDL_ERR_INVALID;
    REPDL_CUDA_TRY(device_ready());
    return launch(k_bn_backward, grid_for_warps(c), THREADS, stream, n, c, hw, x, gamma,
                  save_mean, save_rstd, dy, dx, dgamma, dbeta);
}
