/* SPDX-License-Identifier: MIT */
/* cuda/linalg.cu: repdl's matrix products on the GPU (gemm, linear, conv2d),
   bit for bit equal to include/repdl/gemm.h, linear.h and conv2d.h on the
   host, for any grid, batch or workspace size (docs/cuda-linalg.md).

   One FFMA kernel does every product: the tile of cuda/gemm_tile.cuh
   (128 x 128 block tile, 8 x 8 register tile a thread, k panels of 8 in
   double-buffered shared memory, float4 loads where aligned), whose every
   element is the pinned chain acc = __fmaf_rn(a_ik, b_kj, acc), k
   ascending, from bias / -0 / the existing C.  No split-K, no tensor
   cores, no TF32: every float operation is a config.h primitive, and the
   PTX is the same under --fmad=true and --fmad=false
   (tests/cuda/check_ptx.sh).

   Linear: forward = gemm(0, 1), dx = gemm(0, 0), dW = gemm(1, 0), db a
   column fadd chain (one thread a column).
   Conv2d (explicit im2col into a stream-ordered workspace, a batch of
   images at a time):
     forward  col_b = im2col(x_b); y_b = w col_b from bias[o] (batched gemm);
     dw       for each image in order: dw = dy_n col_n^T, the chain of
              image n > 0 going on from dw (GEMM_INIT_C): the chain over
              (n, p, q), n-major, of conv2d.h;
     dx       dcol_b = w^T dy_b (batched gemm), then col2im: one thread an
              input element, fadd chain from -0 over kidx ascending;
     db       one warp a channel: fadd chain over (n, p, q), values fetched
              32 at a time and broadcast by shuffles. */
#include "common.cuh"
#include "gemm_conv.cuh"
#include "gemm_tile.cuh"

namespace repdl_cuda {

/* The executor of gemm_tile.cuh on the device: a call plays one thread. */
struct gemm_dev_exec {
    enum { LANES = 1 };
    __device__ __forceinline__ int tid(int) const { return (int)threadIdx.x; }
    __device__ __forceinline__ void sync() const { __syncthreads(); }
    __device__ __forceinline__ void store(float *p, float v) const { *p = v; }
};

__global__ void __launch_bounds__(GEMM_NT) gemm_kernel(gemm_args a)
{
    __shared__ __align__(16) gemm_smem sm;
    gemm_dev_exec x;
    gemm_block(a, blockIdx.x, blockIdx.y, blockIdx.z, gridDim.x, gridDim.y, gridDim.z, &sm, x);
}

/* The default configuration. */
static const repdl_cuda_gemm_config default_cfg = {0, 0, 0, 0, 0};

/* Launches the product a (sizes, pointers, strides set; tiles, vector
   flags and grid filled here).  M, N, batch > 0. */
static int launch_gemm(gemm_args a, cudaStream_t s, const repdl_cuda_gemm_config *cfg)
{
    a.mt = gemm_tiles(a.M, GEMM_BM);
    a.nt = gemm_tiles(a.N, GEMM_BN);
    a.vecA = !cfg->scalar_loads && a.K > 0 && gemm_vec_ok(a.A, a.lda, a.sA, a.batch);
    a.vecB = !cfg->scalar_loads && a.K > 0 && gemm_vec_ok(a.B, a.ldb, a.sB, a.batch);
    gemm_grid g = gemm_plan_grid(a, cfg->grid_x, cfg->grid_y, cfg->grid_z);
    gemm_kernel<<<dim3(g.x, g.y, g.z), GEMM_NT, 0, s>>>(a);
    return check_launch();
}

/* *cp: NULL becomes the default configuration; REPDL_ERR_INVALID when out
   of range. */
static int check_gemm_cfg(const repdl_cuda_gemm_config **cp)
{
    if (!*cp) *cp = &default_cfg;
    const repdl_cuda_gemm_config *c = *cp;
    if (c->scalar_loads > 1) return REPDL_ERR_INVALID;
    if (c->grid_x > 0x7fffffffu || c->grid_y > 65535u || c->grid_z > 65535u)
        return REPDL_ERR_INVALID;
    return REPDL_OK;
}

/* Bytes of a rows x cols matrix at stride ld (0 when empty or on overflow:
   *ok is cleared on overflow). */
static size_t mat_bytes(size_t rows, size_t cols, size_t ld, int *ok)
{
    if (rows == 0 || cols == 0) return 0;
    size_t b = span_bytes(ld, rows, cols);
    if (b == 0) *ok = 0;
    return b;
}

static int gemm_checked(int transA, int transB, size_t M, size_t N, size_t K, float alpha,
                        const float *A, size_t lda, const float *B, size_t ldb,
                        const float *bias, float beta, float *C, size_t ldc, void *stream,
                        const repdl_cuda_gemm_config *cfg)
{
    REPDL_CUDA_TRY(check_gemm_cfg(&cfg));
    if (M == 0 || N == 0) return REPDL_OK;
    if (!C || ldc < N) return REPDL_ERR_INVALID;
    int ok = 1;
    size_t cb = mat_bytes(M, N, ldc, &ok), ab = 0, bb = 0, biasb = 0;
    if (K > 0) {
        if (!A || !B) return REPDL_ERR_INVALID;
        if (lda < (transA ? M : K) || ldb < (transB ? K : N)) return REPDL_ERR_INVALID;
        ab = mat_bytes(transA ? K : M, transA ? M : K, lda, &ok);
        bb = mat_bytes(transB ? N : K, transB ? K : N, ldb, &ok);
    }
    if (bias) biasb = mat_bytes(1, N, N, &ok);
    if (!ok) return REPDL_ERR_OVERFLOW;
    if (overlap(C, cb, A, ab) || overlap(C, cb, B, bb) || overlap(C, cb, bias, biasb))
        return REPDL_ERR_INVALID;
    REPDL_CUDA_TRY(device_ready());
    gemm_args a;
    memset(&a, 0, sizeof a);
    a.M = M; a.N = N; a.K = K; a.batch = 1;
    a.A = A; a.lda = lda; a.B = B; a.ldb = ldb;
    a.bias = bias; a.C = C; a.ldc = ldc;
    a.alpha = alpha; a.beta = beta;
    a.transA = transA != 0; a.transB = transB != 0;
    a.init = bias ? GEMM_INIT_BIAS_COL : GEMM_INIT_ZERO;
    return launch_gemm(a, as_stream(stream), cfg);
}

/* ---- Column sums (linear db): db[n] = fadd chain over m of dy[m][n] ---- */
__global__ void __launch_bounds__(256) colsum_kernel(const float *dy, size_t M, size_t N,
                                                     float *db)
{
    for (size_t n = (size_t)blockIdx.x * blockDim.x + threadIdx.x; n < N;
         n += (size_t)gridDim.x * blockDim.x) {
        float acc = -0.0f;
        for (size_t m = 0; m < M; m++) acc = repdl__fadd(acc, dy[m * N + n]);
        db[n] = repdl__canon(acc);
    }
}

static unsigned blocks_for(size_t work, unsigned threads)
{
    return grid_blocks(work, threads, 65535u * 16u); /* the rest by grid-stride */
}

/* ---- Conv2d pieces ---- */

/* col[b][kidx][pq] = x_tap of image img0 + b, b < nb (gemm_conv.cuh). */
template <class I>
__global__ void __launch_bounds__(256) im2col_kernel(conv_geom g, const float *x, size_t img0,
                                                     size_t nb, float *col)
{
    I total = (I)(nb * g.CK * g.P);
    for (I e = (I)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (I)gridDim.x * blockDim.x)
        col[e] = conv_im2col_at<I>(g, x, img0, e);
}

/* dx of images img0 + b, b < nb, from dcol[b] [CK][P] (gemm_conv.cuh). */
template <class I>
__global__ void __launch_bounds__(256) col2im_kernel(conv_geom g, const float *dcol, size_t img0,
                                                     size_t nb, float *dx)
{
    I total = (I)(nb * g.in_sz);
    for (I e = (I)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (I)gridDim.x * blockDim.x)
        dx[img0 * g.in_sz + (size_t)e] = conv_col2im_at<I>(g, dcol, e);
}

/* db[o] = fadd chain over (n, p, q) of dy[n][o][pq], from -0: one warp a
   channel; each step reads 32 values (coalesced) and every lane runs the
   same chain over them, in order, through shuffles. */
__global__ void __launch_bounds__(256) conv_db_kernel(conv_geom g, const float *dy, float *db)
{
    unsigned lane = threadIdx.x % 32;
    size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    size_t warps = (size_t)gridDim.x * blockDim.x / 32;
    for (size_t o = warp; o < g.oc; o += warps) {
        float acc = -0.0f;
        for (size_t img = 0; img < g.n; img++) {
            const float *row = dy + (img * g.oc + o) * g.P;
            for (size_t i = 0; i < g.P; i += 32) {
                float v = i + lane < g.P ? row[i + lane] : 0.0f;
                unsigned cnt = g.P - i < 32 ? (unsigned)(g.P - i) : 32u;
                for (unsigned u = 0; u < cnt; u++)
                    acc = repdl__fadd(acc, __shfl_sync(0xffffffffu, v, (int)u));
            }
        }
        if (lane == 0) db[o] = repdl__canon(acc);
    }
}

static const size_t DEFAULT_WORKSPACE = (size_t)256 << 20;

static int conv_geometry(const repdl_conv2d_shape *s, conv_geom *g)
{
    repdl_status st = repdl__conv2d_check(s); /* the host's check: same statuses */
    if (st != REPDL_OK) return st;
    /* every size below must fit size_t, in bytes too */
    size_t t, u, b;
    if (!mul_ok(2, s->pad_h, &t) || s->h > (size_t)-1 - t) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(2, s->pad_w, &t) || s->w > (size_t)-1 - t) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(s->dil_h, s->kh, &t) || !mul_ok(s->dil_w, s->kw, &t))
        return REPDL_ERR_OVERFLOW;
    size_t oh = repdl_conv2d_out_h(s), ow = repdl_conv2d_out_w(s), P, CK, in_sz, out_sz;
    if (!mul_ok(oh, ow, &P)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(s->c, s->kh, &t) || !mul_ok(t, s->kw, &CK)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(s->c, s->h, &t) || !mul_ok(t, s->w, &in_sz)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(s->oc, P, &out_sz)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(s->n, in_sz, &t) || !mul_ok(t, sizeof(float), &b)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(s->n, out_sz, &t) || !mul_ok(t, sizeof(float), &b)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(s->oc, CK, &t) || !mul_ok(t, sizeof(float), &b)) return REPDL_ERR_OVERFLOW;
    if (!mul_ok(CK, P, &t) || !mul_ok(t, sizeof(float), &b)) return REPDL_ERR_OVERFLOW;
    /* tap coordinates p sh + r dh stay far from overflow */
    if (!mul_ok(oh, s->stride_h, &t) || !mul_ok(s->kh, s->dil_h, &u) || t > (size_t)-1 / 4 ||
        u > (size_t)-1 / 4)
        return REPDL_ERR_OVERFLOW;
    if (!mul_ok(ow, s->stride_w, &t) || !mul_ok(s->kw, s->dil_w, &u) || t > (size_t)-1 / 4 ||
        u > (size_t)-1 / 4)
        return REPDL_ERR_OVERFLOW;
    *g = conv_geom_of(s);
    return REPDL_OK;
}

/* Images a workspace chunk holds: at least 1, at most n. */
static size_t chunk_images(const conv_geom &g, const repdl_cuda_gemm_config *cfg)
{
    size_t cap = cfg->workspace_bytes ? cfg->workspace_bytes : DEFAULT_WORKSPACE;
    size_t per = g.CK * g.P * sizeof(float); /* no overflow: conv_geometry */
    size_t nb = per ? cap / per : g.n;
    if (nb < 1) nb = 1;
    if (nb > g.n) nb = g.n;
    return nb;
}

static int launch_im2col(const conv_geom &g, const float *x, size_t img0, size_t nb, float *col,
                         cudaStream_t s)
{
    size_t total = nb * g.CK * g.P;
    if (total == 0) return REPDL_OK;
    bool narrow = total < 0xffffffffu && g.CK * g.P < 0xffffffffu;
    return launch(narrow ? im2col_kernel<uint32_t> : im2col_kernel<size_t>,
                  blocks_for(total, 256), 256, s, g, x, img0, nb, col);
}

static int launch_col2im(const conv_geom &g, const float *dcol, size_t img0, size_t nb,
                         float *dx, cudaStream_t s)
{
    size_t total = nb * g.in_sz;
    if (total == 0) return REPDL_OK;
    return launch(total < 0xffffffffu ? col2im_kernel<uint32_t> : col2im_kernel<size_t>,
                  blocks_for(total, 256), 256, s, g, dcol, img0, nb, dx);
}

static int conv_forward(const repdl_conv2d_shape *sh, const float *x, const float *w,
                        const float *b, float *y, void *stream,
                        const repdl_cuda_gemm_config *cfg)
{
    conv_geom g;
    REPDL_CUDA_TRY(check_gemm_cfg(&cfg));
    REPDL_CUDA_TRY(conv_geometry(sh, &g));
    if (g.n == 0 || g.oc == 0 || g.P == 0) return REPDL_OK;
    if (!y || (g.CK && !w) || (g.CK && g.in_sz && !x)) return REPDL_ERR_INVALID;
    size_t yb = g.n * g.out_sz * sizeof(float);
    if (overlap(y, yb, x, g.n * g.in_sz * sizeof(float)) ||
        overlap(y, yb, w, g.oc * g.CK * sizeof(float)) ||
        overlap(y, yb, b, b ? g.oc * sizeof(float) : 0))
        return REPDL_ERR_INVALID;
    REPDL_CUDA_TRY(device_ready());
    cudaStream_t s = as_stream(stream);

    gemm_args a;
    memset(&a, 0, sizeof a);
    a.M = g.oc; a.N = g.P; a.K = g.CK;
    a.A = w; a.lda = g.CK; a.sA = 0;
    a.ldb = g.P; a.sB = g.CK * g.P;
    a.bias = b; a.sBias = 0;
    a.ldc = g.P; a.sC = g.out_sz;
    a.alpha = 1.0f; a.beta = 0.0f;
    a.init = b ? GEMM_INIT_BIAS_ROW : GEMM_INIT_ZERO;
    if (g.CK == 0) { /* no taps: y = b or -0 */
        a.batch = g.n; a.C = y;
        return launch_gemm(a, s, cfg);
    }
    size_t nb = chunk_images(g, cfg);
    float *ws = NULL;
    int rc = REPDL_OK;
    cudaError_t e = workspace_alloc((void **)&ws, nb * g.CK * g.P * sizeof(float), s);
    if (e != cudaSuccess) return fail_alloc(e);
    for (size_t img0 = 0; img0 < g.n && rc == REPDL_OK; img0 += nb) {
        size_t cnt = g.n - img0 < nb ? g.n - img0 : nb;
        rc = launch_im2col(g, x, img0, cnt, ws, s);
        if (rc != REPDL_OK) break;
        a.B = ws; a.batch = cnt; a.C = y + img0 * g.out_sz;
        rc = launch_gemm(a, s, cfg);
    }
    e = workspace_free(ws, s);
    if (e != cudaSuccess && rc == REPDL_OK) rc = fail_cuda(e);
    return rc;
}

static int conv_backward(const repdl_conv2d_shape *sh, const float *x, const float *w,
                         const float *dy, float *dx, float *dw, float *db, void *stream,
                         const repdl_cuda_gemm_config *cfg)
{
    conv_geom g;
    REPDL_CUDA_TRY(check_gemm_cfg(&cfg));
    REPDL_CUDA_TRY(conv_geometry(sh, &g));
    /* the host's argument rules (conv2d.h) */
    if (g.n && g.oc && g.P && !dy) return REPDL_ERR_INVALID;
    if (dx && g.n && g.in_sz && g.oc && g.P && !w) return REPDL_ERR_INVALID;
    if (dw && g.n && g.CK && g.P && g.oc && !x && g.in_sz) return REPDL_ERR_INVALID;
    size_t xb = g.n * g.in_sz * sizeof(float), dyb = g.n * g.out_sz * sizeof(float);
    size_t wb = g.oc * g.CK * sizeof(float), bb = g.oc * sizeof(float);
    const void *ins[3] = {x, w, dy};
    size_t inb[3] = {xb, wb, dyb};
    for (int i = 0; i < 3; i++) {
        if (dx && overlap(dx, xb, ins[i], inb[i])) return REPDL_ERR_INVALID;
        if (dw && overlap(dw, wb, ins[i], inb[i])) return REPDL_ERR_INVALID;
        if (db && overlap(db, bb, ins[i], inb[i])) return REPDL_ERR_INVALID;
    }
    int need_db = db && g.oc;
    int need_dw = dw && g.oc && g.CK;
    int need_dx = dx && g.n && g.in_sz;
    if (!need_db && !need_dw && !need_dx) return REPDL_OK;
    REPDL_CUDA_TRY(device_ready());
    cudaStream_t s = as_stream(stream);

    if (need_db)
        REPDL_CUDA_TRY(launch(conv_db_kernel, blocks_for(g.oc * 32, 256), 256, s, g, dy, db));

    /* dw [OC x CK]: image after image, each continuing the chains. */
    gemm_args a;
    memset(&a, 0, sizeof a);
    a.alpha = 1.0f; a.beta = 0.0f; a.batch = 1;
    a.M = g.oc; a.N = g.CK; a.K = g.P;
    a.lda = g.P; a.transB = 1; a.ldb = g.P; a.C = dw; a.ldc = g.CK;
    if (need_dw && (g.n == 0 || g.P == 0)) { /* empty chains: -0 */
        a.K = 0; a.init = GEMM_INIT_ZERO;
        REPDL_CUDA_TRY(launch_gemm(a, s, cfg));
        need_dw = 0;
    }
    if (need_dx && (g.P == 0 || g.CK == 0)) { /* no taps: -0 everywhere */
        REPDL_CUDA_TRY(launch_col2im(g, NULL, 0, g.n, dx, s));
        need_dx = 0;
    }
    if (!need_dw && !need_dx) return REPDL_OK;

    size_t nb = chunk_images(g, cfg);
    float *ws = NULL;
    int rc = REPDL_OK;
    cudaError_t e = workspace_alloc((void **)&ws, nb * g.CK * g.P * sizeof(float), s);
    if (e != cudaSuccess) return fail_alloc(e);
    for (size_t img0 = 0; need_dw && img0 < g.n && rc == REPDL_OK; img0 += nb) {
        size_t cnt = g.n - img0 < nb ? g.n - img0 : nb;
        rc = launch_im2col(g, x, img0, cnt, ws, s);
        for (size_t i = 0; i < cnt && rc == REPDL_OK; i++) {
            size_t img = img0 + i;
            a.A = dy + img * g.out_sz;
            a.B = ws + i * g.CK * g.P;
            a.init = img == 0 ? GEMM_INIT_ZERO : GEMM_INIT_C;
            rc = launch_gemm(a, s, cfg);
        }
    }
    /* dx: dcol_b [CK x P] = w^T [CK x OC] dy_b [OC x P], then col2im. */
    memset(&a, 0, sizeof a);
    a.alpha = 1.0f; a.beta = 0.0f; a.init = GEMM_INIT_ZERO;
    a.M = g.CK; a.N = g.P; a.K = g.oc;
    a.transA = 1; a.A = w; a.lda = g.CK; a.sA = 0;
    a.ldb = g.P; a.sB = g.out_sz;
    a.ldc = g.P; a.sC = g.CK * g.P; a.C = ws;
    for (size_t img0 = 0; need_dx && img0 < g.n && rc == REPDL_OK; img0 += nb) {
        size_t cnt = g.n - img0 < nb ? g.n - img0 : nb;
        a.B = g.oc ? dy + img0 * g.out_sz : NULL;
        a.batch = cnt;
        rc = launch_gemm(a, s, cfg);
        if (rc == REPDL_OK) rc = launch_col2im(g, ws, img0, cnt, dx, s);
    }
    e = workspace_free(ws, s);
    if (e != cudaSuccess && rc == REPDL_OK) rc = fail_cuda(e);
    return rc;
}

} // namespace repdl_cuda

using namespace repdl_cuda;

extern "C" int repdl_cuda_gemm_f32(int transA, int transB, size_t M, size_t N, size_t K,
                                   float alpha, float beta, const float *A, size_t lda,
                                   const float *B, size_t ldb, const float *bias, float *C,
                                   size_t ldc, void *stream)
{
    return gemm_checked(transA, transB, M, N, K, alpha, A, lda, B, ldb, bias, beta, C, ldc,
                        stream, NULL);
}

extern "C" int repdl_cuda_gemm_config_f32(int transA, int transB, size_t M, size_t N, size_t K,
                                          const repdl_cuda_gemm_config *config, float alpha, float beta,
                                          const float *A, size_t lda, const float *B,
                                          size_t ldb, const float *bias, float *C, size_t ldc,
                                          void *stream)
{
    return gemm_checked(transA, transB, M, N, K, alpha, A, lda, B, ldb, bias, beta, C, ldc,
                        stream, config);
}

extern "C" int repdl_cuda_linear_forward_f32(size_t M, size_t K, size_t N, const float *x,
                                             const float *W, const float *b, float *y,
                                             void *stream)
{
    return gemm_checked(0, 1, M, N, K, 1.0f, x, K, W, K, b, 0.0f, y, N, stream, NULL);
}

extern "C" int repdl_cuda_linear_backward_f32(size_t M, size_t K, size_t N, const float *x,
                                              const float *W, const float *dy, float *dx,
                                              float *dW, float *db, void *stream)
{
    int rc = REPDL_OK;
    /* dx [M x K] = dy [M x N] W [N x K] */
    if (dx) rc = gemm_checked(0, 0, M, K, N, 1.0f, dy, N, W, K, NULL, 0.0f, dx, K, stream, NULL);
    /* dW [N x K] = dy^T [N x M] x [M x K] */
    if (rc == REPDL_OK && dW)
        rc = gemm_checked(1, 0, N, K, M, 1.0f, dy, N, x, K, NULL, 0.0f, dW, K, stream, NULL);
    if (rc == REPDL_OK && db && N > 0) {
        size_t dyb = 0, t;
        if (M > 0) {
            if (!mul_ok(M, N, &t) || !mul_ok(t, sizeof(float), &dyb)) return REPDL_ERR_OVERFLOW;
            if (!dy) return REPDL_ERR_INVALID;
        }
        if (overlap(db, N * sizeof(float), dy, dyb)) return REPDL_ERR_INVALID;
        REPDL_CUDA_TRY(device_ready());
        rc = launch(colsum_kernel, blocks_for(N, 256), 256, stream, dy, M, N, db);
    }
    return rc;
}

extern "C" int repdl_cuda_conv2d_forward_f32(const struct repdl_conv2d_shape *s, const float *x,
                                             const float *w, const float *b, float *y,
                                             void *stream)
{
    return conv_forward(s, x, w, b, y, stream, NULL);
}

extern "C" int repdl_cuda_conv2d_forward_config_f32(const struct repdl_conv2d_shape *s,
                                                    const repdl_cuda_gemm_config *config, const float *x,
                                                    const float *w, const float *b, float *y,
                                                    void *stream)
{
    return conv_forward(s, x, w, b, y, stream, config);
}

extern "C" int repdl_cuda_conv2d_backward_f32(const struct repdl_conv2d_shape *s,
                                              const float *x, const float *w, const float *dy,
                                              float *dx, float *dw, float *db, void *stream)
{
    return conv_backward(s, x, w, dy, dx, dw, db, stream, NULL);
}

extern "C" int repdl_cuda_conv2d_backward_config_f32(const struct repdl_conv2d_shape *s,
                                                     const repdl_cuda_gemm_config *config, const float *x,
                                                     const float *w, const float *dy, float *dx,
                                                     float *dw, float *db,
                                                     void *stream)
{
    return conv_backward(s, x, w, dy, dx, dw, db, stream, config);
}
