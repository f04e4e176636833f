/* cuda/reduce.cu: the canonical reduction (docs/canonical-order.md) in one
   coalesced pass: sum, dot and their row-wise forms, bit for bit equal to
   repdl_sum_f32 / repdl_dot_f32 on the host for any grid and block size.

   The canonical tree is a pure function of n: leaves of LANES x VECS
   consecutive elements, an aligned buddy tree over the leaves.  Every
   power-of-two-aligned run of leaves is an independent subtree, so:

     warp    walks an aligned run of `lpw` leaves (lpw a power of two), one
             leaf at a time: 32 threads read the leaf's 256-byte vectors,
             combine them in the leaf's order (vertical pairwise tree, then
             the lanes fold by halving with shuffles), and push the leaf
             value onto a binary-counter stack, which is the buddy tree of
             its run evaluated left to right;
     block   W warps (W a power of two) own an aligned run of W * lpw
             leaves; warp 0 combines the W warp values by the buddy tree;
     row     bpr blocks share a row; each writes its value to a workspace,
             and the last block to arrive (a ticket, atomicAdd) combines the
             bpr values, again by the buddy tree, in index order.  The
             ticket picks which block combines, never the order.
     small   rows of few leaves: one warp walks the whole row.

   A missing right sibling passes its left sibling up; here an absent value
   is -0.0, which leaves every x unchanged (x + -0 == x, -0 included; a NaN
   stays a NaN and every NaN result is canonicalised at the end).

   The numeric steps are the primitives of include/repdl/config.h
   (repdl__fadd, repdl__fmul: __fadd_rn, __fmul_rn on the device, never
   contracted), so the PTX is the same under --fmad=true and --fmad=false
   (tests/cuda/check_ptx.sh). */
#include <repdl/reduce.h>

#include "common.cuh"
#include "reduce_tree.cuh"

namespace repdl_cuda {

constexpr unsigned FULL_MASK = 0xffffffffu;
/* Lanes held by one thread of a warp. */
constexpr int P = LEAF_LANES / 32;
static_assert(LEAF_LANES % 32 == 0, "a leaf vector must span whole warps");
static_assert((LEAF_VECS & (LEAF_VECS - 1)) == 0, "vectors per leaf: a power of two");

/* P consecutive floats, loaded as one vector when aligned. */
struct alignas(4 * P) lanes_t {
    float v[P];
};

/* Element i of the summed sequence: x[i], or the rounded product
   x[i] * y[i] for a dot.  VEC: (x, y) + i is aligned for lanes_t. */
template <bool DOT, bool VEC>
__device__ __forceinline__ void load_lanes(const float *x, const float *y,
                                           size_t i, float *v)
{
    if (VEC) {
        lanes_t a = *(const lanes_t *)(x + i);
        if (DOT) {
            lanes_t b = *(const lanes_t *)(y + i);
#pragma unroll
            for (int p = 0; p < P; p++) v[p] = repdl__fmul(a.v[p], b.v[p]);
        } else {
#pragma unroll
            for (int p = 0; p < P; p++) v[p] = a.v[p];
        }
    } else {
#pragma unroll
        for (int p = 0; p < P; p++)
            v[p] = DOT ? repdl__fmul(x[i + p], y[i + p]) : x[i + p];
    }
}

/* The value of one leaf (elements base .. base + LEAF - 1 of a row of n),
   computed by a whole warp and returned to every lane.  Thread `lane`
   holds lanes lane*P .. lane*P + P - 1 of each vector.  FULL: the leaf
   lies inside the row; otherwise elements >= n are -0.0 (padding). */
template <bool DOT, bool VEC, bool FULL>
__device__ __forceinline__ float warp_leaf(const float *x, const float *y,
                                           size_t base, size_t n, int lane)
{
    float t[LEAF_VECS][P];
#pragma unroll
    for (int j = 0; j < LEAF_VECS; j++) {
        size_t i = base + (size_t)j * LEAF_LANES + (size_t)lane * P;
        if (FULL || i + P <= n) {
            load_lanes<DOT, VEC>(x, y, i, t[j]);
        } else {
#pragma unroll
            for (int p = 0; p < P; p++)
                t[j][p] = i + p < n ? (DOT ? repdl__fmul(x[i + p], y[i + p]) : x[i + p])
                                    : -0.0f;
        }
    }
    /* Vectors: adjacent pairwise tree, t[j] = t[j] + t[j + s]. */
#pragma unroll
    for (int s = 1; s < LEAF_VECS; s *= 2)
#pragma unroll
        for (int j = 0; j < LEAF_VECS; j += 2 * s)
#pragma unroll
            for (int p = 0; p < P; p++) t[j][p] = repdl__fadd(t[j][p], t[j + s][p]);
    /* Lanes: fold by halving, a[v] = a[v] + a[v + h], h = LANES/2 .. 1.
       For h >= P lane v + h sits in thread lane + h/P, same slot p. */
#pragma unroll
    for (int h = LEAF_LANES / 2; h >= P; h /= 2)
#pragma unroll
        for (int p = 0; p < P; p++)
            t[0][p] = repdl__fadd(t[0][p], __shfl_down_sync(FULL_MASK, t[0][p], h / P));
#pragma unroll
    for (int h = P / 2; h >= 1; h /= 2)
#pragma unroll
        for (int p = 0; p < h; p++) t[0][p] = repdl__fadd(t[0][p], t[0][p + h]);
    return __shfl_sync(FULL_MASK, t[0][0], 0);
}

/* The buddy tree of leaves first .. first + count - 1 of a row (first a
   multiple of a power of two >= count, so the run is an aligned subtree),
   on every lane of the warp.  count == 0 gives -0.0 (absent). */
template <bool DOT, bool VEC>
__device__ float warp_walk(const float *x, const float *y, size_t n,
                           size_t first, size_t count, int lane)
{
    tree_stack st;
    size_t full = n / LEAF_SIZE;
    for (size_t j = 0; j < count; j++) {
        size_t leaf = first + j;
        float v = leaf < full
            ? warp_leaf<DOT, VEC, true>(x, y, leaf * LEAF_SIZE, n, lane)
            : warp_leaf<DOT, VEC, false>(x, y, leaf * LEAF_SIZE, n, lane);
        st.push(j, v);
    }
    return st.flush(count);
}

struct reduce_args {
    const float *x, *y;
    size_t ldx, ldy, rows, n;
    float *out;
    size_t nleaf;   /* leaves per row */
    size_t lpw;     /* leaves per warp (block mode) */
    size_t bpr;     /* blocks per row (block mode) */
    float *partial; /* rows * bpr block values (bpr > 1) */
    unsigned long long *ticket; /* rows counters, zero at launch (bpr > 1) */
};

/* Whole rows: warp w of block b walks rows (b * W + w) + k * gridDim.x * W. */
template <bool DOT, bool VEC>
__global__ void reduce_rows_per_warp(reduce_args a)
{
    int lane = threadIdx.x % 32;
    size_t W = blockDim.x / 32;
    size_t warp = (size_t)blockIdx.x * W + threadIdx.x / 32;
    for (size_t r = warp; r < a.rows; r += (size_t)gridDim.x * W) {
        const float *y = DOT ? a.y + r * a.ldy : NULL;
        float s = warp_walk<DOT, VEC>(a.x + r * a.ldx, y, a.n, 0, a.nleaf, lane);
        if (lane == 0) a.out[r] = repdl__canon(s);
    }
}

/* Buddy tree of the m <= blockDim.x values buf[0..m) (absent ones -0.0),
   blockDim.x a power of two; the result in buf[0].  At step s the threads
   tid = 0 mod 2s write buf[tid] and read buf[tid + s], which no thread
   writes at that step. */
__device__ void block_tree(float *buf)
{
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        __syncthreads();
        unsigned t = threadIdx.x;
        if (t % (2 * s) == 0) buf[t] = repdl__fadd(buf[t], buf[t + s]);
    }
    __syncthreads();
}

/* Block mode: work unit u = (row r, chunk c), r = u / bpr, c = u % bpr;
   chunk c is leaves [c * W * lpw, (c + 1) * W * lpw) of row r. */
template <bool DOT, bool VEC>
__global__ void reduce_blocks(reduce_args a)
{
    extern __shared__ float buf[]; /* blockDim.x floats */
    __shared__ int is_last;
    int lane = threadIdx.x % 32;
    unsigned W = blockDim.x / 32, w = threadIdx.x / 32;
    size_t units = a.rows * a.bpr;
    for (size_t u = blockIdx.x; u < units; u += gridDim.x) {
        size_t r = u / a.bpr, c = u % a.bpr;
        const float *x = a.x + r * a.ldx;
        const float *y = DOT ? a.y + r * a.ldy : NULL;
        size_t first = (c * W + w) * a.lpw;
        size_t count = first < a.nleaf ? a.nleaf - first : 0;
        if (count > a.lpw) count = a.lpw;
        float s = warp_walk<DOT, VEC>(x, y, a.n, first, count, lane);
        __syncthreads(); /* buf is free (previous unit done) */
        if (lane == 0) buf[w] = s;
        __syncthreads();
        if (w == 0) {
            /* Buddy tree over the W warp values, W <= 32 a power of two:
               after step d, lanes = 0 mod 2d hold their subtree. */
            float v = lane < (int)W ? buf[lane] : -0.0f;
            for (unsigned d = 1; d < W; d *= 2)
                v = repdl__fadd(v, __shfl_down_sync(FULL_MASK, v, d));
            if (lane == 0) {
                if (a.bpr == 1) {
                    a.out[r] = repdl__canon(v);
                    is_last = 0;
                } else {
                    __stcg(&a.partial[u], v);
                    __threadfence(); /* the value before the ticket */
                    unsigned long long t = atomicAdd(&a.ticket[r], 1ull);
                    is_last = t == a.bpr - 1;
                }
            }
        }
        __syncthreads();
        if (is_last) {
            /* Every block of row r has written its value: combine them in
               index order, blockDim.x at a time (aligned subtrees), the
               chunk values through a stack (thread 0). */
            __threadfence();
            const float *pr = a.partial + r * a.bpr;
            tree_stack st;
            size_t nchunk = (a.bpr + blockDim.x - 1) / blockDim.x;
            for (size_t k = 0; k < nchunk; k++) {
                size_t i = k * blockDim.x + threadIdx.x;
                __syncthreads();
                buf[threadIdx.x] = i < a.bpr ? __ldcg(&pr[i]) : -0.0f;
                block_tree(buf);
                if (threadIdx.x == 0) st.push(k, buf[0]);
            }
            if (threadIdx.x == 0) a.out[r] = repdl__canon(st.flush(nchunk));
        }
    }
}

/* ---- Host side: the plan, the launch ---- */

static int is_pow2(size_t v) { return v != 0 && (v & (v - 1)) == 0; }

template <bool DOT>
static int launch_reduce(const float *x, size_t ldx, const float *y, size_t ldy,
                         size_t rows, size_t n, float *out, void *stream,
                         const repdl_cuda_config *cfg)
{
    repdl_cuda_config c = {0, 0, 0, 0};
    if (cfg) c = *cfg;
    if (c.threads != 0 && (c.threads < 32 || c.threads > 1024 || !is_pow2(c.threads)))
        return REPDL_CUDA_ERR_ARGUMENT;
    if (c.leaves_per_warp != 0 && (!is_pow2(c.leaves_per_warp) || c.leaves_per_warp > (1u << 30)))
        return REPDL_CUDA_ERR_ARGUMENT;
    if (c.grid > 0x7fffffffu || c.row_per_warp > 1) return REPDL_CUDA_ERR_ARGUMENT;
    if (rows == 0) return REPDL_CUDA_OK;
    size_t out_bytes;
    if (out == NULL || !mul_ok(rows, sizeof(float), &out_bytes)) return REPDL_CUDA_ERR_ARGUMENT;
    if (n > 0) {
        if (x == NULL || (DOT && y == NULL)) return REPDL_CUDA_ERR_ARGUMENT;
        size_t xb = span_bytes(ldx, rows, n);
        if (xb == 0 || overlap(out, out_bytes, x, xb)) return REPDL_CUDA_ERR_ARGUMENT;
        if (DOT) {
            size_t yb = span_bytes(ldy, rows, n);
            if (yb == 0 || overlap(out, out_bytes, y, yb)) return REPDL_CUDA_ERR_ARGUMENT;
        }
    }
    device_facts dev;
    int rc = current_device(&dev);
    if (rc != REPDL_CUDA_OK) return rc;

    unsigned threads = c.threads ? c.threads : 256;
    size_t W = threads / 32;
    reduce_args a;
    a.x = x; a.y = DOT ? y : NULL;
    a.ldx = ldx; a.ldy = DOT ? ldy : 0;
    a.rows = rows; a.n = n; a.out = out;
    a.nleaf = n / LEAF_SIZE + (n % LEAF_SIZE != 0);
    a.partial = NULL; a.ticket = NULL;
    /* Resident blocks per SM, about: 2048 threads per SM. */
    size_t resident = (size_t)dev.sms * (2048 / threads);

    bool vec = P > 1 && (uintptr_t)x % sizeof(lanes_t) == 0 && ldx % P == 0;
    if (DOT) vec = vec && (uintptr_t)y % sizeof(lanes_t) == 0 && ldy % P == 0;

    bool per_warp = c.row_per_warp == 1;
    if (c.row_per_warp == 0 && c.leaves_per_warp == 0)
        per_warp = a.nleaf <= 1 || rows >= resident * W;
    cudaStream_t s = as_stream(stream);

    if (per_warp) {
        size_t want = (rows + W - 1) / W;
        size_t grid = c.grid ? c.grid : (want < resident * 4 ? want : resident * 4);
        a.lpw = 0; a.bpr = 0;
        if (vec) reduce_rows_per_warp<DOT, true><<<(unsigned)grid, threads, 0, s>>>(a);
        else reduce_rows_per_warp<DOT, false><<<(unsigned)grid, threads, 0, s>>>(a);
        return check_launch();
    }

    /* Block mode: the smallest lpw that gives about two waves of units. */
    size_t lpw = c.leaves_per_warp;
    if (lpw == 0) {
        lpw = 1;
        while (lpw < a.nleaf && rows * ((a.nleaf + W * lpw - 1) / (W * lpw)) > 2 * resident)
            lpw *= 2;
    }
    size_t chunk = W * lpw;
    size_t bpr = a.nleaf / chunk + (a.nleaf % chunk != 0);
    if (bpr == 0) bpr = 1;
    size_t units, pbytes, tbytes;
    if (!mul_ok(rows, bpr, &units) || !mul_ok(units, sizeof(float), &pbytes) ||
        !mul_ok(rows, sizeof(unsigned long long), &tbytes) || pbytes > (size_t)-1 - tbytes - 16)
        return REPDL_CUDA_ERR_ARGUMENT;
    a.lpw = lpw; a.bpr = bpr;
    size_t grid = c.grid ? c.grid : (units < resident ? units : resident);

    void *ws = NULL;
    cudaError_t e;
    if (bpr > 1) {
        size_t toff = (pbytes + 15) / 16 * 16;
        e = cudaMallocAsync(&ws, toff + tbytes, s);
        if (e != cudaSuccess) return fail_cuda(e);
        a.partial = (float *)ws;
        a.ticket = (unsigned long long *)((char *)ws + toff);
        e = cudaMemsetAsync(a.ticket, 0, tbytes, s);
        if (e != cudaSuccess) {
            cudaFreeAsync(ws, s);
            return fail_cuda(e);
        }
    }
    size_t shmem = threads * sizeof(float);
    if (vec) reduce_blocks<DOT, true><<<(unsigned)grid, threads, shmem, s>>>(a);
    else reduce_blocks<DOT, false><<<(unsigned)grid, threads, shmem, s>>>(a);
    rc = check_launch();
    if (ws) {
        e = cudaFreeAsync(ws, s);
        if (e != cudaSuccess && rc == REPDL_CUDA_OK) rc = fail_cuda(e);
    }
    return rc;
}

} // namespace repdl_cuda

using repdl_cuda::launch_reduce;

extern "C" int repdl_cuda_sum_f32(const float *x, size_t n, float *out, void *stream)
{
    return launch_reduce<false>(x, n, NULL, 0, 1, n, out, stream, NULL);
}

extern "C" int repdl_cuda_dot_f32(const float *x, const float *y, size_t n,
                                  float *out, void *stream)
{
    return launch_reduce<true>(x, n, y, n, 1, n, out, stream, NULL);
}

extern "C" int repdl_cuda_sum_rows_f32(const float *x, size_t ldx, size_t rows,
                                       size_t n, float *out, void *stream)
{
    return launch_reduce<false>(x, ldx, NULL, 0, rows, n, out, stream, NULL);
}

extern "C" int repdl_cuda_dot_rows_f32(const float *x, size_t ldx, const float *y,
                                       size_t ldy, size_t rows, size_t n,
                                       float *out, void *stream)
{
    return launch_reduce<true>(x, ldx, y, ldy, rows, n, out, stream, NULL);
}

extern "C" int repdl_cuda_sum_rows_f32_config(const float *x, size_t ldx, size_t rows,
                                              size_t n, float *out, void *stream,
                                              const repdl_cuda_config *config)
{
    return launch_reduce<false>(x, ldx, NULL, 0, rows, n, out, stream, config);
}

extern "C" int repdl_cuda_dot_rows_f32_config(const float *x, size_t ldx,
                                              const float *y, size_t ldy,
                                              size_t rows, size_t n, float *out,
                                              void *stream,
                                              const repdl_cuda_config *config)
{
    return launch_reduce<true>(x, ldx, y, ldy, rows, n, out, stream, config);
}
