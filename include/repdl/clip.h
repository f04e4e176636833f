/* SPDX-License-Identifier: MIT */
/* repdl/clip.h: gradient clipping by global 2-norm over a list of
   parameter tensors, as torch.nn.utils.clip_grad_norm_ (norm_type 2), in
   one defined order (docs/rope.md, section 2).

   The norm of `count` tensors, tensor t of sizes[t] elements at grads[t]:
     S_t   = repdl_sumsq_f32(sizes[t], grads[t])      canonical order of t alone
     S     = repdl_sum_f32(count, S)                  the canonical tree over
                                                      S_0 .. S_{count-1}, list order
     norm  = RN(sqrt(S))                              correctly rounded
   Why per tensor, then the list: each S_t is the canonical sum of one
   tensor, so it can be computed wherever that tensor lives (a thread, a
   CUDA block, the rank or unit that owns it) with the splitting rules of
   reduce.h, and only count floats need to meet; one tree over the
   concatenation would put tensor boundaries inside leaves, tying every
   tensor's partial sums to its offset in the list.  The list order is part
   of the definition (the caller's parameter order, as in PyTorch).

   Clipping:
     c = RN(max_norm / RN(norm + eps))
     when norm is finite and c < 1:  g[i] = RN(g[i] c) for every element
     otherwise:                      the gradients are left as they are
   PyTorch 1.13 multiplies by min(c, 1), which for finite norms is the same
   bits (a product by 1 changes no number; NaN elements come out as the
   canonical NaN here).  Its norm differs: PyTorch takes the norm of the
   per-tensor norms, with its own summation order.  A NaN or infinite
   norm leaves the gradients untouched (PyTorch would scale them by NaN or
   0): the returned norm says so, and the caller skips the step.

   Bad input (REPDL_ERR_INVALID, nothing written): count > 0 with sizes or
   grads NULL, grads[t] NULL with sizes[t] > 0, max_norm NaN or < 0, eps
   NaN, < 0 or infinite.  max_norm = +inf never clips.  count == 0 or all
   tensors empty: norm = -0 (the empty sum; sqrt(-0) = -0), nothing clipped.
   `norm` may be NULL when the caller does not want it.  NaN norms are the
   canonical 0x7fc00000.

     float *g[3] = {gw1, gb1, gw2};  size_t sz[3] = {n1, m1, n2};
     float norm;
     repdl_clip_grad_norm_f32(3, sz, 1.0f, 1e-6f, g, &norm);   */
#ifndef REPDL_CLIP_H
#define REPDL_CLIP_H

#include "config.h"
#include "reduce.h"
REPDL_BEGIN_CODE

/* The argument checks shared by both functions. */
REPDL_FN repdl_status repdl__clip_check(size_t count, const size_t *sizes,
                                        const float *const *grads)
{
    size_t t;
    if (count && (!sizes || !grads)) return REPDL_ERR_INVALID;
    for (t = 0; t < count; t++)
        if (sizes[t] && !grads[t]) return REPDL_ERR_INVALID;
    return REPDL_OK;
}

/* The norm of the header comment, without checks: the per-tensor sums of
   squares enter the canonical tree a leaf of REPDL_SUM_LEAF values at a
   time (bit for bit repdl_sum_f32 over the array of them). */
REPDL_FN float repdl__grad_norm(size_t count, const size_t *sizes, const float *const *grads)
{
    repdl__tree tr;
    float p[REPDL_SUM_LEAF];
    size_t j, len, i;
    repdl__tree_init(&tr);
    REPDL__LEAVES(count, j, len) {
        for (i = 0; i < len; i++) p[i] = repdl__dot_f32(sizes[j + i], grads[j + i], grads[j + i]);
        repdl__tree_leaf(&tr, p, len);
    }
    return repdl__canon(repdl__fsqrt(repdl__canon(repdl__tree_root(&tr))));
}

/* *norm = the global 2-norm of the list (header comment).  REPDL_OK,
   REPDL_ERR_INVALID (NULL arrays, norm NULL), REPDL_ERR_FPENV. */
REPDL_API repdl_status repdl_grad_norm_f32(size_t count, const size_t *sizes,
                                           const float *const *grads, float *norm)
{
    repdl_status st;
    REPDL__FPENV_CHECK();
    if (!norm) return REPDL_ERR_INVALID;
    st = repdl__clip_check(count, sizes, grads);
    if (st != REPDL_OK) return st;
    *norm = repdl__grad_norm(count, sizes, grads);
    return REPDL_OK;
}

/* Clips the list in place to global norm max_norm (header comment);
   *norm (when norm is not NULL) receives the norm before clipping. */
REPDL_API repdl_status repdl_clip_grad_norm_f32(size_t count, const size_t *sizes, float max_norm,
                                                float eps, float *const *grads, float *norm)
{
    const float *const *cg = (const float *const *)grads;
    repdl_status st;
    float nrm, c;
    size_t t, i;
    REPDL__FPENV_CHECK();
    if (!(max_norm >= 0.0f) || !(eps >= 0.0f) || !(eps <= 3.40282347e38f)) return REPDL_ERR_INVALID;
    st = repdl__clip_check(count, sizes, cg);
    if (st != REPDL_OK) return st;
    nrm = repdl__grad_norm(count, sizes, cg);
    if (norm) *norm = nrm;
    if (!(nrm <= 3.40282347e38f)) return REPDL_OK; /* NaN or +inf: untouched */
    c = repdl__fdiv(max_norm, repdl__fadd(nrm, eps));
    if (!(c < 1.0f)) return REPDL_OK;
    for (t = 0; t < count; t++) {
        float *g = grads[t];
        for (i = 0; i < sizes[t]; i++) g[i] = repdl__canon(repdl__fmul(g[i], c));
    }
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_CLIP_H */
