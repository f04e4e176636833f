/* SPDX-License-Identifier: MIT */
/* reference/clip_ref.h: the global gradient norm and clipping of
   include/repdl/clip.h (docs/api.md, gradient clipping),
   written plainly: each tensor's sum of squares by reduce_ref.h's
   canonical dot, the list of those by its canonical sum (ref_sum),
   the square root by repdl_sqrt_f32 (correctly rounded, proven by
   tests/math), the scale and products in plain binary32 through a
   volatile.  Includes no clip.h or reduce.h. */
#ifndef REPDL_REFERENCE_CLIP_REF_H
#define REPDL_REFERENCE_CLIP_REF_H

#include <stdlib.h>

#include <repdl/sqrt.h>

#include "reduce_ref.h"

static inline float ref_grad_norm(size_t count, const size_t *sizes, float *const *g)
{
    float *part = (float *)malloc((count ? count : 1) * sizeof(float));
    float s;
    size_t t;
    for (t = 0; t < count; t++) part[t] = ref_dot(g[t], g[t], sizes[t]);
    s = ref_sum(part, count);
    free(part);
    return ref_canon(repdl_sqrt_f32(s));
}

/* Returns the norm; clips g in place when the norm is finite and
   max_norm / (norm + eps) < 1. */
static inline float ref_clip(size_t count, const size_t *sizes, float max_norm, float eps,
                             float *const *g)
{
    float nrm = ref_grad_norm(count, sizes, g);
    volatile float den, c;
    size_t t, i;
    if (!(nrm <= 3.40282347e38f)) return nrm;
    den = nrm + eps;
    c = max_norm / den;
    if (!(c < 1.0f)) return nrm;
    for (t = 0; t < count; t++)
        for (i = 0; i < sizes[t]; i++) g[t][i] = ref_canon(ref_mul(g[t][i], c));
    return nrm;
}

#endif /* REPDL_REFERENCE_CLIP_REF_H */
