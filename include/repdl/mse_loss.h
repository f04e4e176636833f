/* SPDX-License-Identifier: MIT */
/* repdl/mse_loss.h: mean squared error (torch.nn.MSELoss,
   torch.nn.functional.mse_loss), forward and backward, over n elements of
   input x and target t.

     d_i   = RN(x_i - t_i)
     s_i   = RN(d_i * d_i)                       (config.h's repdl__fsub,
                                                  repdl__fmul: no contraction)
     S     = the canonical sum of s_0 .. s_{n-1}  (repdl_sum_f32's order and
                                                  bits over the array of s_i)
     loss  = S                    REPDL_REDUCTION_SUM  (n == 0: -0.0, the
                                                        empty sum)
             RN(S / n)            REPDL_REDUCTION_MEAN (repdl_mean_f32's
                                                        division, one rounding
                                                        by the exact integer
                                                        n; n == 0: NaN, as
                                                        PyTorch)
     g     = dloss                REPDL_REDUCTION_SUM
             RN(dloss / n)        REPDL_REDUCTION_MEAN (the same division)
     dx_i  = RN(RN(2 d_i) * g)

   The backward's order: 2 d_i is exact unless it overflows (then +-inf,
   as the exact value rounds), so dx_i is the rounding of the exact
   2 d_i g; g is the gradient the reduction hands to every term (for the
   mean, the loss gradient divided by n exactly as the loss was), so the
   gradient of a shard of a batch with REPDL_REDUCTION_SUM, scaled by
   RN(dloss / B) there, is the MEAN call's over all B elements bit for bit.
   The target's gradient is -dx_i (negation is exact).

   Every NaN written is 0x7fc00000; +-0, +-inf and subnormals are ordinary
   values (x == t gives d_i = +0, s_i = +0; inf - inf is NaN).  Bad input:
   a reduction other than REPDL_REDUCTION_MEAN or _SUM, loss NULL (forward),
   or x, t or dx NULL with n > 0 is REPDL_ERR_INVALID with nothing written;
   n floats that do not fit in size_t bytes is REPDL_ERR_OVERFLOW.  With
   n == 0 the arrays may be NULL: the forward writes the loss above, the
   backward writes nothing.  dx may be x or t (each element is read before
   it is written); loss must not overlap x or t.  No threads form: the
   forward is one pass of the canonical sum, the backward elementwise. */
#ifndef REPDL_MSE_LOSS_H
#define REPDL_MSE_LOSS_H

#include "config.h"
#include "reduce.h"
#include "softmax.h"
REPDL_BEGIN_CODE

/* The checks of both passes (host and CUDA launchers alike); out is the
   loss (forward) or dx (backward, only needed with n > 0). */
REPDL_FN repdl_status repdl__mse_check(size_t n, int reduction, const float *x, const float *t,
                                       const float *out, int out_always)
{
    if (n > ((size_t)-1) / sizeof(float)) return REPDL_ERR_OVERFLOW;
    if (reduction != REPDL_REDUCTION_SUM && reduction != REPDL_REDUCTION_MEAN)
        return REPDL_ERR_INVALID;
    if ((n || out_always) && !out) return REPDL_ERR_INVALID;
    if (n && (!x || !t)) return REPDL_ERR_INVALID;
    return REPDL_OK;
}

/* s_i = RN(RN(x - t)^2), the term of the sum. */
REPDL_FN float repdl__mse_term(float x, float t)
{
    float d = repdl__fsub(x, t);
    return repdl__fmul(d, d);
}

/* g: the gradient each term receives (mean: RN(dloss / n); n > 0). */
REPDL_FN float repdl__mse_grad_scale(float dloss, size_t n, int reduction)
{
    return reduction == REPDL_REDUCTION_MEAN ? repdl__div_count_f32(dloss, n) : dloss;
}

/* dx_i = RN(RN(2 RN(x - t)) * g), a NaN as 0x7fc00000. */
REPDL_FN float repdl__mse_grad(float x, float t, float g)
{
    float d2 = repdl__fmul(2.0f, repdl__fsub(x, t));
    return repdl__canon(repdl__fmul(d2, g));
}

REPDL_API repdl_status repdl_mse_loss_forward_f32(size_t n, int reduction, const float *x,
                                                  const float *t, float *loss)
{
    REPDL__FPENV_CHECK();
    repdl__tree tr;
    float lb[REPDL_SUM_LEAF];
    size_t i0, len, k;
    repdl_status st = repdl__mse_check(n, reduction, x, t, loss, 1);
    if (st != REPDL_OK) return st;
    repdl__tree_init(&tr);
    REPDL__LEAVES(n, i0, len) {
        for (k = 0; k < len; k++) lb[k] = repdl__mse_term(x[i0 + k], t[i0 + k]);
        repdl__tree_leaf(&tr, lb, len);
    }
    *loss = repdl__loss_finish(repdl__tree_root(&tr), n, reduction); /* n == 0: -0.0 */
    return REPDL_OK;
}

REPDL_API repdl_status repdl_mse_loss_backward_f32(size_t n, int reduction, const float *x,
                                                   const float *t, float dloss, float *dx)
{
    REPDL__FPENV_CHECK();
    size_t i;
    float g;
    repdl_status st = repdl__mse_check(n, reduction, x, t, dx, 0);
    if (st != REPDL_OK || n == 0) return st;
    g = repdl__mse_grad_scale(dloss, n, reduction);
    for (i = 0; i < n; i++) dx[i] = repdl__mse_grad(x[i], t[i], g);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_MSE_LOSS_H */
