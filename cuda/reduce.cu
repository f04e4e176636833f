/* SPDX-License-Identifier: MIT */
/* cuda/reduce.cu: the canonical reduction (docs/canonical-order.md) in one
   coalesced pass: sum, dot and their row-wise forms, bit for bit equal to
   repdl_sum_f32 / repdl_dot_f32 on the host for any grid and block size.

   The leaves, the walks over runs of leaves and the block's pairwise
   loop are cuda/leaf_sum.cuh's (the host's building blocks of
   include/repdl/detail/accum.h, run on the device); what is written here
   is the device-level schedule (see reduce_plan.cuh for the split into
   warps, blocks and grid):
     a run of leaves, by one warp: warp_walk (full leaves in registers).
     a chunk, by one block: its warps' values into a repdl__tree.
     a row's chunks: each block stores its value; the last block to arrive
       (a ticket, atomicAdd) combines them in index order.  The ticket
       picks which block combines, never the order.
     small rows: a row a warp, no chunks.

   Every float operation is a primitive of config.h (__fadd_rn, __fmul_rn
   on the device, never contracted): the PTX is the same under
   --fmad=true and --fmad=false (tests/cuda/check_ptx.sh). */
#include <atomic>

#include <repdl/reduce.h>

#include "common.cuh"
#include "leaf_sum.cuh"
#include "reduce_plan.cuh"

namespace repdl_cuda {

struct reduce_args {
    const float *x, *y;
    size_t ldx, ldy, rows, n;
    float *out;
    size_t nleaf, lpw, bpr;
    float *partial;             /* rows * bpr chunk values (bpr > 1) */
    unsigned long long *ticket; /* rows counters, zero at launch (bpr > 1) */
};

/* A row a warp: warp (b W + w) + k gridDim.x W walks row of that index. */
template <bool DOT>
__global__ void __launch_bounds__(MAX_THREADS) reduce_row_per_warp(reduce_args a)
{
    extern __shared__ float shm[];
    int t = threadIdx.x % 32;
    unsigned w = threadIdx.x / 32, W = blockDim.x / 32;
    float *buf = shm + (size_t)w * LEAF;
    for (size_t r = (size_t)blockIdx.x * W + w; r < a.rows; r += (size_t)gridDim.x * W) {
        float s = warp_walk<DOT>(a.x + r * a.ldx, DOT ? a.y + r * a.ldy : NULL, a.n, 0,
                                 a.nleaf, buf, t);
        if (t == 0) a.out[r] = repdl__canon(s);
    }
}

/* Chunks: unit u = (row u / bpr, chunk u % bpr), grid-stride over units. */
template <bool DOT>
__global__ void __launch_bounds__(MAX_THREADS) reduce_chunks(reduce_args a)
{
    extern __shared__ float shm[];         /* W leaf buffers */
    __shared__ float vals[MAX_THREADS];    /* warp values, then chunk values */
    __shared__ int last;
    int t = threadIdx.x % 32;
    unsigned w = threadIdx.x / 32, W = blockDim.x / 32;
    float *buf = shm + (size_t)w * LEAF;
    size_t units = a.rows * a.bpr;
    for (size_t u = blockIdx.x; u < units; u += gridDim.x) {
        size_t r = u / a.bpr, c = u % a.bpr, first;
        size_t count = warp_run(c, w, W, a.lpw, a.nleaf, &first);
        float s = warp_walk<DOT>(a.x + r * a.ldx, DOT ? a.y + r * a.ldy : NULL, a.n, first,
                                 count, buf, t);
        __syncthreads(); /* vals free: the previous unit is done with it */
        if (t == 0) vals[w] = s;
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned nw = warps_in_chunk(c, W, a.lpw, a.nleaf);
            float v = combine_in_order(vals, nw);
            last = 0;
            if (a.bpr == 1) {
                a.out[r] = repdl__canon(v);
            } else {
                __stcg(&a.partial[u], v);
                __threadfence(); /* the value is visible before the ticket */
                unsigned long long k = atomicAdd(&a.ticket[r], 1ull);
                last = k == a.bpr - 1;
            }
        }
        __syncthreads();
        if (last) {
            /* All bpr chunk values of row r are stored: combine them in
               index order (reduce_plan.cuh, group_size).  __ldcg reads
               them from L2, where the other blocks' stores went. */
            __threadfence();
            const float *pr = a.partial + r * a.bpr;
            size_t G = group_size(a.bpr, blockDim.x), b = (size_t)threadIdx.x * G;
            unsigned m = (unsigned)(a.bpr / G + (a.bpr % G != 0));
            __syncthreads(); /* vals: thread 0 has read its values */
            if (threadIdx.x < m)
                vals[threadIdx.x] = group_value(pr + b, a.bpr - b < G ? a.bpr - b : G,
                                                [](const float *q) { return __ldcg(q); });
            block_pairwise(vals, m);
            if (threadIdx.x == 0) a.out[r] = repdl__canon(vals[0]);
        }
    }
}

/* Blocks of reduce_chunks<DOT> resident on one SM with `threads` threads,
   cached per device (the occupancy query costs microseconds a call). */
template <bool DOT>
static int blocks_per_sm(int device, unsigned threads, size_t shmem, int *per_sm)
{
    static std::atomic<int> cache[256][4]; /* [device][log2(threads) - 5], 0: unknown */
    int slot = threads == 32 ? 0 : threads == 64 ? 1 : threads == 128 ? 2 : 3;
    int v = device >= 0 && device < 256 ? cache[device][slot].load() : 0;
    if (v == 0) {
        cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v, reduce_chunks<DOT>,
                                                                      (int)threads, shmem);
        if (e != cudaSuccess) return fail_cuda(e);
        if (v < 1) v = 1;
        if (device >= 0 && device < 256) cache[device][slot].store(v);
    }
    *per_sm = v;
    return REPDL_OK;
}

template <bool DOT>
static int launch_reduce(const float *x, size_t ldx, const float *y, size_t ldy,
                         size_t rows, size_t n, float *out, void *stream,
                         const repdl_cuda_config *cfg)
{
    REPDL_CUDA_TRY(check_config(cfg));
    if (rows == 0) return REPDL_OK;
    size_t out_bytes;
    if (!mul_ok(rows, sizeof(float), &out_bytes)) return REPDL_ERR_OVERFLOW;
    if (out == NULL) return REPDL_ERR_INVALID;
    if (n > 0) {
        size_t xb = span_bytes(ldx, rows, n), yb = DOT ? span_bytes(ldy, rows, n) : 1;
        if (xb == 0 || yb == 0) return REPDL_ERR_OVERFLOW;
        if (x == NULL || (DOT && y == NULL)) return REPDL_ERR_INVALID;
        if (overlap(out, out_bytes, x, xb)) return REPDL_ERR_INVALID;
        if (DOT && overlap(out, out_bytes, y, yb)) return REPDL_ERR_INVALID;
    }
    device_facts dev;
    REPDL_CUDA_TRY(current_device(&dev));
    unsigned threads = plan_threads(cfg);
    size_t shmem = (size_t)(threads / 32) * LEAF * sizeof(float);
    int per_sm = 1;
    REPDL_CUDA_TRY(blocks_per_sm<DOT>(dev.device, threads, shmem, &per_sm));
    plan p;
    REPDL_CUDA_TRY(make_plan(rows, n, (size_t)per_sm * dev.sms, cfg, &p));

    reduce_args a;
    a.x = x; a.y = DOT ? y : NULL;
    a.ldx = ldx; a.ldy = DOT ? ldy : 0;
    a.rows = rows; a.n = n; a.out = out;
    a.nleaf = p.nleaf; a.lpw = p.lpw; a.bpr = p.bpr;
    a.partial = NULL; a.ticket = NULL;
    cudaStream_t s = as_stream(stream);
    unsigned grid = (unsigned)p.grid;

    if (p.per_warp) {
        reduce_row_per_warp<DOT><<<grid, p.threads, shmem, s>>>(a);
        return check_launch();
    }
    void *ws = NULL;
    cudaError_t e;
    if (p.bpr > 1) {
        size_t pbytes = rows * p.bpr * sizeof(float); /* no overflow: make_plan */
        size_t toff = (pbytes + 15) / 16 * 16;
        size_t tbytes = rows * sizeof(unsigned long long);
        e = workspace_alloc(&ws, toff + tbytes, s);
        if (e != cudaSuccess) return fail_alloc(e);
        a.partial = (float *)ws;
        a.ticket = (unsigned long long *)((char *)ws + toff);
        e = cudaMemsetAsync(a.ticket, 0, tbytes, s);
        if (e != cudaSuccess) {
            workspace_free(ws, s);
            return fail_cuda(e);
        }
    }
    reduce_chunks<DOT><<<grid, p.threads, shmem, s>>>(a);
    int rc = check_launch();
    if (ws) {
        e = workspace_free(ws, s);
        if (e != cudaSuccess && rc == REPDL_OK) rc = fail_cuda(e);
    }
    return rc;
}

} // namespace repdl_cuda

using repdl_cuda::launch_reduce;

extern "C" int repdl_cuda_sum_f32(size_t n, const float *x, float *out, void *stream)
{
    return launch_reduce<false>(x, n, NULL, 0, 1, n, out, stream, NULL);
}

extern "C" int repdl_cuda_dot_f32(size_t n, const float *x, const float *y, float *out,
                                  void *stream)
{
    return launch_reduce<true>(x, n, y, n, 1, n, out, stream, NULL);
}

extern "C" int repdl_cuda_sum_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                       float *out, void *stream)
{
    return launch_reduce<false>(x, ldx, NULL, 0, rows, n, out, stream, NULL);
}

extern "C" int repdl_cuda_dot_rows_f32(size_t rows, size_t n, const float *x,
                                       size_t ldx, const float *y, size_t ldy, float *out,
                                       void *stream)
{
    return launch_reduce<true>(x, ldx, y, ldy, rows, n, out, stream, NULL);
}

extern "C" int repdl_cuda_sum_rows_config_f32(size_t rows, size_t n, const repdl_cuda_config *config,
                                              const float *x, size_t ldx, float *out,
                                              void *stream)
{
    return launch_reduce<false>(x, ldx, NULL, 0, rows, n, out, stream, config);
}

extern "C" int repdl_cuda_dot_rows_config_f32(size_t rows, size_t n, const repdl_cuda_config *config,
                                              const float *x, size_t ldx, const float *y,
                                              size_t ldy, float *out,
                                              void *stream)
{
    return launch_reduce<true>(x, ldx, y, ldy, rows, n, out, stream, config);
}

/* ---- Mean, 2-norm, variance by rows; division by a count; the row
   backward passes of backward.h ----
   Each is the sum or dot launcher above, then elementwise kernels whose
   element is the host's own last rounding (reduce.h) or backward.h's
   per-row factor and per-element step: one thread per element (or row),
   so the grid does not matter. */
#include <repdl/backward.h>

namespace repdl_cuda {
namespace rows {

constexpr int THREADS = 256;

#define ROWS_FOR(i, n)                                                                    \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);             \
         i += (size_t)gridDim.x * blockDim.x)

/* out[r] from the row's sum or dot s = out[r]: repdl_mean_f32's,
   repdl_norm2_f32's and repdl_var_f32's last rounding (VAR: n > ddof);
   NAN: every row NaN (var with n <= ddof). */
enum { FINISH_MEAN, FINISH_NORM2, FINISH_VAR, FINISH_NAN };

template <int F>
__global__ void __launch_bounds__(THREADS) finish_kernel(size_t rows, size_t n, size_t ddof,
                                                         float *out)
{
    ROWS_FOR(r, rows) {
        if (F == FINISH_MEAN)
            out[r] = n ? repdl__canon(repdl__div_count_f32(out[r], n)) : repdl__nanf();
        else if (F == FINISH_NORM2) out[r] = repdl__canon(repdl__fsqrt(out[r]));
        else if (F == FINISH_VAR) out[r] = repdl__canon(repdl__div_count_f32(out[r], n - ddof));
        else out[r] = repdl__nanf();
    }
}

/* e[r n + i] = RN(x[r ldx + i] - m[r]): the deviations of repdl_var_f32,
   whose squares' canonical sum is the dot of e with itself. */
__global__ void __launch_bounds__(THREADS) deviation_kernel(size_t rows, size_t n, const float *x,
                                                            size_t ldx, const float *m, float *e)
{
    ROWS_FOR(i, rows * n) e[i] = repdl__fsub(x[(i / n) * ldx + i % n], m[i / n]);
}

/* repdl_div_count_f32's element i. */
__global__ void __launch_bounds__(THREADS) div_count_kernel(size_t n, size_t count, const float *x,
                                                            float *y)
{
    ROWS_FOR(i, n) y[i] = count ? repdl__canon(repdl__div_count_f32(x[i], count)) : repdl__nanf();
}

enum { BWD_SUM, BWD_MEAN, BWD_VAR, BWD_NORM2 };

/* dx[r n + i] of backward.h's row backward pass; m: var's row means. */
template <int K>
__global__ void __launch_bounds__(THREADS)
backward_kernel(size_t rows, size_t n, size_t ddof, const float *x, const float *y,
                const float *dy, const float *m, float *dx)
{
    ROWS_FOR(i, rows * n) {
        size_t r = i / n;
        if (K == BWD_SUM) dx[i] = repdl__sum_backward_elem(dy[r]);
        else if (K == BWD_MEAN) dx[i] = repdl__mean_backward_elem(dy[r], n);
        else if (K == BWD_VAR)
            dx[i] = repdl__var_backward_elem(x[i], m[r], repdl__var_backward_k(dy[r], n, ddof));
        else dx[i] = repdl__norm2_backward_elem(x[i], y[r], repdl__norm2_backward_k(y[r], dy[r]));
    }
}

/* The row means of x [rows x n] (stride ldx) into m. */
static int row_means(size_t rows, size_t n, const float *x, size_t ldx, float *m, void *stream)
{
    REPDL_CUDA_TRY(launch_reduce<false>(x, ldx, NULL, 0, rows, n, m, stream, NULL));
    if (rows == 0) return REPDL_OK;
    return launch_fill(finish_kernel<FINISH_MEAN>, rows, THREADS, stream, rows, n, (size_t)0, m);
}

/* A stream-ordered workspace of `floats` floats, run through f, freed. */
template <class F>
static int with_workspace(size_t floats, void *stream, F f)
{
    void *ws = NULL;
    cudaStream_t s = as_stream(stream);
    cudaError_t e = workspace_alloc(&ws, floats * sizeof(float), s);
    if (e != cudaSuccess) return fail_alloc(e);
    int rc = f((float *)ws);
    e = workspace_free(ws, s);
    if (e != cudaSuccess && rc == REPDL_OK) rc = fail_cuda(e);
    return rc;
}

static int backward(int kind, size_t rows, size_t n, size_t ddof, const float *x, const float *y,
                    const float *dy, float *dx, void *stream)
{
    size_t total, bytes, rbytes;
    if (rows == 0 || n == 0) return REPDL_OK;
    if (!mul_ok(rows, n, &total) || !mul_ok(total, sizeof(float), &bytes)) return REPDL_ERR_OVERFLOW;
    rbytes = rows * sizeof(float);
    int needs_x = kind == BWD_VAR || kind == BWD_NORM2;
    if (!dy || !dx || (needs_x && !x) || (kind == BWD_NORM2 && !y)) return REPDL_ERR_INVALID;
    if (overlap(dx, bytes, dy, rbytes) || (kind == BWD_NORM2 && overlap(dx, bytes, y, rbytes)) ||
        (needs_x && partial_overlap(dx, x, bytes)))
        return REPDL_ERR_INVALID;
    switch (kind) {
    case BWD_SUM:
        return launch_fill(backward_kernel<BWD_SUM>, total, THREADS, stream, rows, n, ddof, x, y, dy,
                           (const float *)NULL, dx);
    case BWD_MEAN:
        return launch_fill(backward_kernel<BWD_MEAN>, total, THREADS, stream, rows, n, ddof, x, y,
                           dy, (const float *)NULL, dx);
    case BWD_NORM2:
        return launch_fill(backward_kernel<BWD_NORM2>, total, THREADS, stream, rows, n, ddof, x, y,
                           dy, (const float *)NULL, dx);
    default:
        return with_workspace(rows, stream, [&](float *m) {
            REPDL_CUDA_TRY(row_means(rows, n, x, n, m, stream));
            return launch_fill(backward_kernel<BWD_VAR>, total, THREADS, stream, rows, n, ddof, x,
                               y, dy, (const float *)m, dx);
        });
    }
}

} // namespace rows
} // namespace repdl_cuda

extern "C" int repdl_cuda_mean_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                        float *out, void *stream)
{
    return repdl_cuda::rows::row_means(rows, n, x, ldx, out, stream);
}

extern "C" int repdl_cuda_norm2_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                         float *out, void *stream)
{
    using namespace repdl_cuda::rows;
    REPDL_CUDA_TRY(launch_reduce<true>(x, ldx, x, ldx, rows, n, out, stream, NULL));
    if (rows == 0) return REPDL_OK;
    return repdl_cuda::launch_fill(finish_kernel<FINISH_NORM2>, rows, THREADS, stream, rows, n,
                                   (size_t)0, out);
}

extern "C" int repdl_cuda_var_rows_f32(size_t rows, size_t n, size_t ddof, const float *x,
                                       size_t ldx, float *out, void *stream)
{
    using namespace repdl_cuda;
    using namespace repdl_cuda::rows;
    size_t total, floats, b;
    if (rows == 0) return REPDL_OK;
    if (!mul_ok(rows, sizeof(float), &b)) return REPDL_ERR_OVERFLOW;
    if (!out) return REPDL_ERR_INVALID;
    if (n <= ddof)
        return launch_fill(finish_kernel<FINISH_NAN>, rows, THREADS, stream, rows, n, ddof, out);
    if (span_bytes(ldx, rows, n) == 0 || !mul_ok(rows, n, &total) || total > (size_t)-1 - rows ||
        !mul_ok(total + rows, sizeof(float), &b))
        return REPDL_ERR_OVERFLOW;
    if (!x) return REPDL_ERR_INVALID;
    if (overlap(out, rows * sizeof(float), x, span_bytes(ldx, rows, n))) return REPDL_ERR_INVALID;
    floats = total + rows;
    return with_workspace(floats, stream, [&](float *ws) {
        float *e = ws, *m = ws + total;
        REPDL_CUDA_TRY(row_means(rows, n, x, ldx, m, stream));
        REPDL_CUDA_TRY(launch_fill(deviation_kernel, total, THREADS, stream, rows, n, x, ldx,
                                   (const float *)m, e));
        REPDL_CUDA_TRY(launch_reduce<true>(e, n, e, n, rows, n, out, stream, NULL));
        return launch_fill(finish_kernel<FINISH_VAR>, rows, THREADS, stream, rows, n, ddof, out);
    });
}

extern "C" int repdl_cuda_div_count_f32(size_t n, size_t count, const float *x, float *y,
                                        void *stream)
{
    using namespace repdl_cuda;
    size_t b;
    if (n == 0) return REPDL_OK;
    if (!mul_ok(n, sizeof(float), &b)) return REPDL_ERR_OVERFLOW;
    if (!x || !y) return REPDL_ERR_INVALID;
    if (partial_overlap(y, x, b)) return REPDL_ERR_INVALID;
    return launch_fill(rows::div_count_kernel, n, rows::THREADS, stream, n, count, x, y);
}

extern "C" int repdl_cuda_sum_rows_backward_f32(size_t rows, size_t n, const float *dy, float *dx,
                                                void *stream)
{
    return repdl_cuda::rows::backward(repdl_cuda::rows::BWD_SUM, rows, n, 0, NULL, NULL, dy, dx,
                                      stream);
}

extern "C" int repdl_cuda_mean_rows_backward_f32(size_t rows, size_t n, const float *dy, float *dx,
                                                 void *stream)
{
    return repdl_cuda::rows::backward(repdl_cuda::rows::BWD_MEAN, rows, n, 0, NULL, NULL, dy, dx,
                                      stream);
}

extern "C" int repdl_cuda_var_rows_backward_f32(size_t rows, size_t n, size_t ddof, const float *x,
                                                const float *dy, float *dx, void *stream)
{
    return repdl_cuda::rows::backward(repdl_cuda::rows::BWD_VAR, rows, n, ddof, x, NULL, dy, dx,
                                      stream);
}

extern "C" int repdl_cuda_norm2_rows_backward_f32(size_t rows, size_t n, const float *x,
                                                  const float *y, const float *dy, float *dx,
                                                  void *stream)
{
    return repdl_cuda::rows::backward(repdl_cuda::rows::BWD_NORM2, rows, n, 0, x, y, dy, dx,
                                      stream);
}
