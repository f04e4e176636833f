/* SPDX-License-Identifier: MIT */
/* reference/mse_loss_ref.h: the mean squared error written from its
   definition (docs/nn.md, "Mean squared error"), the plain way: the terms
   into an array, reference/reduce_ref.h's canonical sum over it, the
   divisions in double.  Independent of the library: it includes no repdl
   header.

     d_i  = x_i - t_i, s_i = d_i * d_i          (float, each rounded)
     sum  = ref_sum(s, n)                       (-0.0 for n == 0)
     mean = RN(sum / n)                         (NaN for n == 0)
     g    = dloss (sum), RN(dloss / n) (mean)
     dx_i = (2 d_i) * g                         (float, each rounded)
   every NaN 0x7fc00000.

   The divisions: a binary32 dividend and a divisor n <= 2^24 (exact in
   binary32) divided in binary64 and rounded to binary32 give the correctly
   rounded quotient (53 >= 2 * 24 + 2 bits), so the reference is valid for
   n <= 2^24 only; the callers stay far below. */
#ifndef REPDL_REFERENCE_MSE_LOSS_REF_H
#define REPDL_REFERENCE_MSE_LOSS_REF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reduce_ref.h"

#define REF_MSE_MEAN 0 /* REPDL_REDUCTION_MEAN */
#define REF_MSE_SUM 1  /* REPDL_REDUCTION_SUM */

static inline float ref_mse_nan(void)
{
    float f;
    uint32_t u = 0x7fc00000u;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* RN(a / n) for n <= 2^24 (see the top of this file). */
static inline float ref_mse_div(float a, size_t n)
{
    volatile double q = (double)a / (double)n; /* one binary64 rounding */
    return (float)q;
}

static inline float ref_mse_forward(const float *x, const float *t, size_t n, int reduction)
{
    float *s, sum;
    size_t i;
    if (n == 0) return reduction == REF_MSE_SUM ? -0.0f : ref_mse_nan();
    s = (float *)malloc(n * sizeof *s);
    if (!s) abort();
    for (i = 0; i < n; i++) {
        volatile float d = x[i] - t[i]; /* rounded before the square */
        s[i] = d * d;
    }
    sum = ref_sum(s, n);
    free(s);
    if (reduction == REF_MSE_MEAN) sum = ref_mse_div(sum, n);
    return sum != sum ? ref_mse_nan() : sum;
}

static inline void ref_mse_backward(const float *x, const float *t, size_t n, float dloss,
                                    int reduction, float *dx)
{
    size_t i;
    float g = reduction == REF_MSE_MEAN && n ? ref_mse_div(dloss, n) : dloss;
    for (i = 0; i < n; i++) {
        volatile float d = x[i] - t[i];
        volatile float d2 = 2.0f * d;
        float v = d2 * g;
        dx[i] = v != v ? ref_mse_nan() : v;
    }
}

#endif /* REPDL_REFERENCE_MSE_LOSS_REF_H */
