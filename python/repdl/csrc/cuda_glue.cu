/* SPDX-License-Identifier: MIT */
/* python/repdl/csrc/cuda_glue.cu: what repdl._C's CUDA build runs on the
   device besides repdl's launchers (cuda_glue.h): the backward formulas
   of backward.h, the reductions that are a launcher plus one rounding a
   row, the device switch.  Compiled by nvcc with the launchers' flags
   (python/setup.py), no torch header.

   Every kernel is elementwise: element i is backward.h's function of its
   inputs, computed by REPDL_FN code with repdl's device primitives
   (explicitly rounded PTX, never contracted), so the grid and the thread
   that computes it do not matter.  The sums are the launchers' own
   (repdl_cuda_sum_rows_f32, repdl_cuda_dot_rows_f32): the canonical order
   on the GPU (docs/cuda.md). */
#include <repdl/cuda.h>
#include <repdl/reduce.h>

#include "backward.h"
#include "common.cuh"
#include "cuda_glue.h"

using namespace repdl_cuda;

namespace {

enum { GLUE_THREADS = 256 };

/* Grid-stride index i < n. */
#define GLUE_FOR(i, n)                                                                    \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);             \
         i += (size_t)gridDim.x * blockDim.x)

template <int OP>
__global__ void __launch_bounds__(GLUE_THREADS)
unary_backward_kernel(size_t n, const float *x, const float *y, const float *dy, float *dx)
{
    GLUE_FOR(i, n) {
        if (OP == REPDL_PY_LOG) dx[i] = repdl_py__log_backward(x[i], dy[i]);
        else if (OP == REPDL_PY_TANH) dx[i] = repdl_py__tanh_backward(y[i], dy[i]);
        else dx[i] = repdl_py__sqrt_backward(y[i], dy[i]);
    }
}

/* out[r] from the row's sum (dot) s = out[r]: the last rounding of a
   reduction (reduce.h).  VAR: n > ddof here; NAN: every row NaN. */
enum { FINISH_MEAN, FINISH_NORM, FINISH_VAR, FINISH_NAN };

template <int F>
__global__ void __launch_bounds__(GLUE_THREADS)
finish_kernel(size_t rows, size_t n, size_t ddof, float *out)
{
    GLUE_FOR(r, rows) {
        if (F == FINISH_MEAN) out[r] = n ? repdl__canon(repdl__div_count_f32(out[r], n)) : repdl__nanf();
        else if (F == FINISH_NORM) out[r] = repdl__canon(repdl__fsqrt(out[r]));
        else if (F == FINISH_VAR) out[r] = repdl__canon(repdl__div_count_f32(out[r], n - ddof));
        else out[r] = repdl__nanf();
    }
}

/* e[r n + i] = RN(x[r n + i] - m[r]): reduce.h's deviation, stored. */
__global__ void __launch_bounds__(GLUE_THREADS)
deviation_kernel(size_t rows, size_t n, const float *x, const float *m, float *e)
{
    GLUE_FOR(i, rows * n) e[i] = repdl__fsub(x[i], m[i / n]);
}

template <int KIND>
__global__ void __launch_bounds__(GLUE_THREADS)
reduce_backward_kernel(size_t rows, size_t n, size_t ddof, const float *x, const float *y,
                       const float *dy, const float *m, float *dx)
{
    GLUE_FOR(i, rows * n) {
        size_t r = i / n;
        if (KIND == REPDL_PY_SUM) dx[i] = repdl_py__sum_backward(dy[r]);
        else if (KIND == REPDL_PY_MEAN) dx[i] = repdl_py__mean_backward(dy[r], n);
        else if (KIND == REPDL_PY_VAR)
            dx[i] = repdl_py__var_backward(x[i], m[r], repdl_py__var_backward_k(dy[r], n, ddof));
        else dx[i] = repdl_py__norm_backward(x[i], y[r], repdl_py__norm_backward_k(y[r], dy[r]));
    }
}

/* y[i] = repdl_div_count_f32's element i (count 0: NaN). */
__global__ void __launch_bounds__(GLUE_THREADS)
div_count_kernel(size_t n, size_t count, const float *x, float *y)
{
    GLUE_FOR(i, n) y[i] = count ? repdl__canon(repdl__div_count_f32(x[i], count)) : repdl__nanf();
}

/* The row means of x [rows x n] into m: the sum launcher, then RN(s / n). */
int row_means(size_t rows, size_t n, const float *x, float *m, void *stream)
{
    REPDL_CUDA_TRY(repdl_cuda_sum_rows_f32(rows, n, x, n, m, stream));
    return launch_fill(finish_kernel<FINISH_MEAN>, rows, GLUE_THREADS, stream, rows, n, (size_t)0, m);
}

/* rows * n floats fit in size_t bytes. */
int sizes_ok(size_t rows, size_t n)
{
    size_t e, b;
    return mul_ok(rows, n, &e) && mul_ok(e, sizeof(float), &b);
}

} // namespace

extern "C" int repdl_py_cuda_unary_backward_f32(int op, size_t n, const float *x, const float *y,
                                                const float *dy, float *dx, void *stream)
{
    if (n == 0) return REPDL_OK;
    if (!sizes_ok(n, 1)) return REPDL_ERR_OVERFLOW;
    if (!dy || !dx || (op == REPDL_PY_LOG ? !x : !y)) return REPDL_ERR_INVALID;
    switch (op) {
    case REPDL_PY_LOG:
        return launch_fill(unary_backward_kernel<REPDL_PY_LOG>, n, GLUE_THREADS, stream, n, x, y, dy, dx);
    case REPDL_PY_TANH:
        return launch_fill(unary_backward_kernel<REPDL_PY_TANH>, n, GLUE_THREADS, stream, n, x, y, dy, dx);
    case REPDL_PY_SQRT:
        return launch_fill(unary_backward_kernel<REPDL_PY_SQRT>, n, GLUE_THREADS, stream, n, x, y, dy, dx);
    default:
        return REPDL_ERR_INVALID;
    }
}

extern "C" int repdl_py_cuda_div_count_f32(size_t n, size_t count, const float *x, float *y,
                                           void *stream)
{
    if (n == 0) return REPDL_OK;
    if (!sizes_ok(n, 1)) return REPDL_ERR_OVERFLOW;
    if (!x || !y) return REPDL_ERR_INVALID;
    return launch_fill(div_count_kernel, n, GLUE_THREADS, stream, n, count, x, y);
}

extern "C" int repdl_py_cuda_reduce_rows_f32(int kind, size_t rows, size_t n, size_t ddof,
                                             const float *x, float *out, float *work, void *stream)
{
    if (rows == 0) return REPDL_OK;
    if (!sizes_ok(rows, n) || !sizes_ok(rows * n + rows, 1)) return REPDL_ERR_OVERFLOW;
    if (!out || (n && !x)) return REPDL_ERR_INVALID;
    switch (kind) {
    case REPDL_PY_SUM:
        return repdl_cuda_sum_rows_f32(rows, n, x, n, out, stream);
    case REPDL_PY_MEAN:
        return row_means(rows, n, x, out, stream);
    case REPDL_PY_NORM:
        REPDL_CUDA_TRY(repdl_cuda_dot_rows_f32(rows, n, x, n, x, n, out, stream));
        return launch_fill(finish_kernel<FINISH_NORM>, rows, GLUE_THREADS, stream, rows, n, ddof, out);
    case REPDL_PY_VAR: {
        if (n <= ddof)
            return launch_fill(finish_kernel<FINISH_NAN>, rows, GLUE_THREADS, stream, rows, n, ddof, out);
        if (!work) return REPDL_ERR_INVALID;
        float *e = work, *m = work + rows * n;
        REPDL_CUDA_TRY(row_means(rows, n, x, m, stream));
        REPDL_CUDA_TRY(launch_fill(deviation_kernel, rows * n, GLUE_THREADS, stream, rows, n, x, m, e));
        REPDL_CUDA_TRY(repdl_cuda_dot_rows_f32(rows, n, e, n, e, n, out, stream));
        return launch_fill(finish_kernel<FINISH_VAR>, rows, GLUE_THREADS, stream, rows, n, ddof, out);
    }
    default:
        return REPDL_ERR_INVALID;
    }
}

extern "C" int repdl_py_cuda_reduce_rows_backward_f32(int kind, size_t rows, size_t n, size_t ddof,
                                                      const float *x, const float *y, const float *dy,
                                                      float *dx, float *work, void *stream)
{
    if (rows == 0 || n == 0) return REPDL_OK;
    if (!sizes_ok(rows, n)) return REPDL_ERR_OVERFLOW;
    if (!x || !y || !dy || !dx) return REPDL_ERR_INVALID;
    size_t total = rows * n;
    switch (kind) {
    case REPDL_PY_SUM:
        return launch_fill(reduce_backward_kernel<REPDL_PY_SUM>, total, GLUE_THREADS, stream, rows, n,
                           ddof, x, y, dy, (const float *)NULL, dx);
    case REPDL_PY_MEAN:
        return launch_fill(reduce_backward_kernel<REPDL_PY_MEAN>, total, GLUE_THREADS, stream, rows, n,
                           ddof, x, y, dy, (const float *)NULL, dx);
    case REPDL_PY_VAR:
        if (!work) return REPDL_ERR_INVALID;
        REPDL_CUDA_TRY(row_means(rows, n, x, work, stream));
        return launch_fill(reduce_backward_kernel<REPDL_PY_VAR>, total, GLUE_THREADS, stream, rows, n,
                           ddof, x, y, dy, (const float *)work, dx);
    case REPDL_PY_NORM:
        return launch_fill(reduce_backward_kernel<REPDL_PY_NORM>, total, GLUE_THREADS, stream, rows, n,
                           ddof, x, y, dy, (const float *)NULL, dx);
    default:
        return REPDL_ERR_INVALID;
    }
}

extern "C" int repdl_py_cuda_set_device(int device, int *previous)
{
    cudaError_t e = cudaGetDevice(previous);
    if (e == cudaSuccess && *previous != device) e = cudaSetDevice(device);
    return e == cudaSuccess ? REPDL_OK : fail_cuda(e);
}

extern "C" const char *repdl_py_cuda_error_string(int err)
{
    return cudaGetErrorString((cudaError_t)err);
}
