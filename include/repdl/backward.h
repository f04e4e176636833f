/* SPDX-License-Identifier: MIT */
/* repdl/backward.h: the backward passes of the elementwise math functions
   exp, log, tanh, sqrt and of the row reductions sum, mean, var, norm2
   (float32), reproducible: the same bits on every machine, compiler, flag
   set, vector width and on the GPU (cuda.h's repdl_cuda_*_backward_*
   launchers run these functions).  The activations' backward passes live
   in activation.h (which includes their forward passes' headers: sigmoid.h,
   silu.h, gelu.h, gelu_tanh.h, softplus.h); these live here because
   exp.h, log.h, tanh.h and sqrt.h each hold one correctly rounded function
   and its proof, and a backward pass is a composition, not correctly
   rounded.  docs/nn.md lists each with its definition.

   Elementwise, RN = one rounding to nearest-even, y the forward output:
     repdl_exp_backward_f32(y, dy)    dx = RN(dy * y)
     repdl_log_backward_f32(x, dy)    dx = RN(dy / x)
     repdl_tanh_backward_f32(y, dy)   dx = RN(dy * RN(1 - RN(y * y)))
     repdl_sqrt_backward_f32(y, dy)   dx = RN(dy / RN(2 y))
   and their array forms repdl_F_backward_array_f32(n, in, dy, dx), dx[i]
   = repdl_F_backward_f32(in[i], dy[i]), in = y (exp, tanh, sqrt) or x
   (log); in place allowed (dx == in or dx == dy), any other overlap not;
   n = 0 reads and writes nothing (NULL allowed); a NULL array with n > 0
   is REPDL_ERR_INVALID, nothing written; otherwise REPDL_OK.

   Row reductions (reduce.h's repdl_sum_rows_f32, repdl_mean_rows_f32,
   repdl_var_rows_f32, repdl_norm2_rows_f32 over dense rows, ldx = n):
   x and dx are [rows x n] row-major, y and dy [rows], dy the gradient of
   y.  Row r's factor first, then each element i:
     sum    dx = RN(dy)  (dy itself, NaN canonical)
     mean   dx = RN(dy / n)                  (repdl_mean_f32's division)
     var    m = repdl_mean_f32 of the row, k = RN(RN(2 dy) / (n - ddof))
            (NaN when n <= ddof),  dx = RN(RN(x - m) * k)
     norm2  k = RN(dy / y),  dx = RN(x * k), and +0 where y == 0
   Every NaN result is the canonical 0x7fc00000.  rows == 0 or n == 0: no
   element, nothing read or written (NULL allowed), REPDL_OK.  Otherwise
   REPDL_ERR_OVERFLOW when rows * n floats do not fit in size_t bytes,
   REPDL_ERR_INVALID when a pointer the formula reads (dy; x for var and
   norm2; y for norm2) or dx is NULL; nothing is written on an error.  dx
   may be x (in place: a row's factor is computed before the row is
   written) but must not overlap dy or y.
   Every array and row form first returns REPDL_ERR_FPENV, writing
   nothing, when the calling thread's floating-point environment would
   change the bits (flush-to-zero, denormals-are-zero, a rounding mode
   other than nearest: config.h, REPDL__FPENV_CHECK).

   Contraction: the only product that feeds an addition (tanh's y * y) is
   behind repdl__fkeep; on the device every operation is an explicitly
   rounded PTX instruction (config.h). */
#ifndef REPDL_BACKWARD_H
#define REPDL_BACKWARD_H

#include "config.h"
#include "detail/barrier.h"
#include "detail/cr.h"
#include "reduce.h"
REPDL_BEGIN_CODE

/* ---- Elementwise ---- */

/* exp' = exp: dx = RN(dy * y), y = exp(x) (repdl_mul_f32's product). */
REPDL_API float repdl_exp_backward_f32(float y, float dy)
{
    return repdl__canon(repdl__fmul(dy, y));
}

/* log'(x) = 1 / x: dx = RN(dy / x). */
REPDL_API float repdl_log_backward_f32(float x, float dy)
{
    return repdl__canon(repdl__fdiv(dy, x));
}

/* tanh' = 1 - tanh^2: dx = RN(dy * RN(1 - RN(y * y))), y = tanh(x). */
REPDL_API float repdl_tanh_backward_f32(float y, float dy)
{
    return repdl__canon(repdl__fmul(dy, repdl__fsub(1.0f, repdl__fkeep(repdl__fmul(y, y)))));
}

/* sqrt'(x) = 1 / (2 sqrt(x)): dx = RN(dy / RN(2 y)), y = sqrt(x) (2 y is
   exact unless it overflows to +inf). */
REPDL_API float repdl_sqrt_backward_f32(float y, float dy)
{
    return repdl__canon(repdl__fdiv(dy, repdl__fmul(2.0f, y)));
}

REPDL_API repdl_status repdl_exp_backward_array_f32(size_t n, const float *y, const float *dy,
                                                    float *dx)
{
    REPDL__BACKWARD_ARRAY_BODY(n, y, dy, dx, repdl_exp_backward_f32);
}

REPDL_API repdl_status repdl_log_backward_array_f32(size_t n, const float *x, const float *dy,
                                                    float *dx)
{
    REPDL__BACKWARD_ARRAY_BODY(n, x, dy, dx, repdl_log_backward_f32);
}

REPDL_API repdl_status repdl_tanh_backward_array_f32(size_t n, const float *y, const float *dy,
                                                     float *dx)
{
    REPDL__BACKWARD_ARRAY_BODY(n, y, dy, dx, repdl_tanh_backward_f32);
}

REPDL_API repdl_status repdl_sqrt_backward_array_f32(size_t n, const float *y, const float *dy,
                                                     float *dx)
{
    REPDL__BACKWARD_ARRAY_BODY(n, y, dy, dx, repdl_sqrt_backward_f32);
}

/* ---- Row reductions ----
   The per-row factor and the per-element step, shared with the device
   kernels (cuda/reduce.cu), which compute element (r, i) from the row's
   values alone. */

/* sum: dx = dy. */
REPDL_FN float repdl__sum_backward_elem(float dy) { return repdl__canon(dy); }

/* mean: dx = RN(dy / n), n >= 1. */
REPDL_FN float repdl__mean_backward_elem(float dy, size_t n)
{
    return repdl__canon(repdl__div_count_f32(dy, n));
}

/* var: k = RN(RN(2 dy) / (n - ddof)), NaN when n <= ddof. */
REPDL_FN float repdl__var_backward_k(float dy, size_t n, size_t ddof)
{
    return n > ddof ? repdl__div_count_f32(repdl__fmul(2.0f, dy), n - ddof) : repdl__nanf();
}

/* var: dx = RN(RN(x - m) * k), m the row's mean. */
REPDL_FN float repdl__var_backward_elem(float x, float m, float k)
{
    return repdl__canon(repdl__fmul(repdl__fsub(x, m), k));
}

/* norm2: k = RN(dy / y). */
REPDL_FN float repdl__norm2_backward_k(float y, float dy) { return repdl__fdiv(dy, y); }

/* norm2: dx = RN(x * k), +0 where y == 0 (the subgradient 0 at x = 0). */
REPDL_FN float repdl__norm2_backward_elem(float x, float y, float k)
{
    return repdl__feq(y, 0.0f) ? 0.0f : repdl__canon(repdl__fmul(x, k));
}

/* The checks of the row backward passes: REPDL_OK with nothing to do
   (*total = 0), REPDL_OK with *total = rows * n, or an error. */
REPDL_FN repdl_status repdl__rows_backward_arg(size_t rows, size_t n, const float *a,
                                               const float *b, const float *dy, float *dx,
                                               size_t *total)
{
    size_t t = rows;
    *total = 0;
    if (rows == 0 || n == 0) return REPDL_OK;
    if (repdl__size_mul(&t, n)) return REPDL_ERR_OVERFLOW;
    if (!a || !b || !dy || !dx) return REPDL_ERR_INVALID;
    *total = t;
    return REPDL_OK;
}

REPDL_API repdl_status repdl_sum_rows_backward_f32(size_t rows, size_t n, const float *dy, float *dx)
{
    REPDL__FPENV_CHECK();
    size_t total, r, i;
    repdl_status st = repdl__rows_backward_arg(rows, n, dy, dy, dy, dx, &total);
    if (st != REPDL_OK || total == 0) return st;
    for (r = 0; r < rows; r++) {
        float g = repdl__sum_backward_elem(dy[r]);
        for (i = 0; i < n; i++) dx[r * n + i] = g;
    }
    return REPDL_OK;
}

REPDL_API repdl_status repdl_mean_rows_backward_f32(size_t rows, size_t n, const float *dy,
                                                    float *dx)
{
    REPDL__FPENV_CHECK();
    size_t total, r, i;
    repdl_status st = repdl__rows_backward_arg(rows, n, dy, dy, dy, dx, &total);
    if (st != REPDL_OK || total == 0) return st;
    for (r = 0; r < rows; r++) {
        float g = repdl__mean_backward_elem(dy[r], n);
        for (i = 0; i < n; i++) dx[r * n + i] = g;
    }
    return REPDL_OK;
}

REPDL_API repdl_status repdl_var_rows_backward_f32(size_t rows, size_t n, size_t ddof,
                                                   const float *x, const float *dy, float *dx)
{
    REPDL__FPENV_CHECK();
    size_t total, r, i;
    repdl_status st = repdl__rows_backward_arg(rows, n, x, x, dy, dx, &total);
    if (st != REPDL_OK || total == 0) return st;
    for (r = 0; r < rows; r++) {
        const float *xr = x + r * n;
        float *dr = dx + r * n;
        float m = repdl_mean_f32(n, xr), k = repdl__var_backward_k(dy[r], n, ddof);
        for (i = 0; i < n; i++) dr[i] = repdl__var_backward_elem(xr[i], m, k);
    }
    return REPDL_OK;
}

REPDL_API repdl_status repdl_norm2_rows_backward_f32(size_t rows, size_t n, const float *x,
                                                     const float *y, const float *dy, float *dx)
{
    REPDL__FPENV_CHECK();
    size_t total, r, i;
    repdl_status st = repdl__rows_backward_arg(rows, n, x, y, dy, dx, &total);
    if (st != REPDL_OK || total == 0) return st;
    for (r = 0; r < rows; r++) {
        const float *xr = x + r * n;
        float *dr = dx + r * n;
        float k = repdl__norm2_backward_k(y[r], dy[r]);
        for (i = 0; i < n; i++) dr[i] = repdl__norm2_backward_elem(xr[i], y[r], k);
    }
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_BACKWARD_H */
