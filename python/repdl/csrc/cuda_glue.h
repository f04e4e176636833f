/* SPDX-License-Identifier: MIT */
/* python/repdl/csrc/cuda_glue.h: the device work of repdl._C's CUDA build
   that is not one of repdl's launchers (include/repdl/cuda.h), in the
   launchers' conventions: device pointers, a cudaStream_t passed as
   void * (NULL: the legacy default stream), a repdl_status returned,
   nothing printed.  Defined in cuda_glue.cu (nvcc); declared here with no
   CUDA and no torch header, so that cuda_ops.cpp, compiled by the host
   compiler against torch, can call it whether or not torch has CUDA. */
#ifndef REPDL_PY_CUDA_GLUE_H
#define REPDL_PY_CUDA_GLUE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Unary ops whose backward the library has no launcher for (backward.h). */
enum { REPDL_PY_LOG, REPDL_PY_TANH, REPDL_PY_SQRT };
/* Reductions of reduce_rows (repdl_ext.cpp). */
enum { REPDL_PY_SUM, REPDL_PY_MEAN, REPDL_PY_VAR, REPDL_PY_NORM };

/* dx[i] = repdl_py__<op>_backward of x[i] (log) or y[i] (tanh, sqrt, y the
   forward output) and dy[i], i < n. */
int repdl_py_cuda_unary_backward_f32(int op, size_t n, const float *x, const float *y,
                                     const float *dy, float *dx, void *stream);

/* out[r] = the reduction of row r of x [rows x n], the bits of the host's
   repdl_sum_rows_f32, repdl_mean_rows_f32, repdl_var_rows_f32 (ddof),
   repdl_norm2_rows_f32:
     sum   repdl_cuda_sum_rows_f32
     mean  RN(s / n) of that sum (NaN for n = 0)
     norm  RN(sqrt(d)), d = repdl_cuda_dot_rows_f32 of the row with itself
     var   m = the mean, e_i = RN(x_i - m), RN(D / (n - ddof)) with D the dot
           of e with itself: the canonical sum of RN(e_i e_i), which is
           reduce.h's REPDL__TERM_SQDEV sum (NaN for n <= ddof)
   work: var only, rows * n + rows floats of device memory (e and m). */
int repdl_py_cuda_reduce_rows_f32(int kind, size_t rows, size_t n, size_t ddof, const float *x,
                                  float *out, float *work, void *stream);

/* dx [rows x n] = the backward of that reduction (backward.h) given x, the
   forward output y [rows] and dy [rows]; work: var only, rows floats (the
   row means). */
int repdl_py_cuda_reduce_rows_backward_f32(int kind, size_t rows, size_t n, size_t ddof,
                                           const float *x, const float *y, const float *dy,
                                           float *dx, float *work, void *stream);

/* y[i] = RN(x[i] / count), i < n: repdl_div_count_f32 (reduce.h) on the
   device, count 0 NaN; y may be x.  The loss of a shard of a global batch
   (repdl_ext.cpp's loss with a divisor). */
int repdl_py_cuda_div_count_f32(size_t n, size_t count, const float *x, float *y, void *stream);

/* Makes `device` the current device of this thread and stores the one
   that was current in *previous: REPDL_OK, or REPDL_ERR_CUDA. */
int repdl_py_cuda_set_device(int device, int *previous);

/* cudaGetErrorString of a cudaError_t given as int (e.g.
   repdl_cuda_last_cuda_error()). */
const char *repdl_py_cuda_error_string(int err);

#ifdef __cplusplus
}
#endif

#endif /* REPDL_PY_CUDA_GLUE_H */
