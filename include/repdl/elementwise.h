/* SPDX-License-Identifier: MIT */
/* repdl/elementwise.h: elementwise add, mul, scale and dropout of binary32
   arrays, the same bits everywhere.

   Accuracy: add, mul, scale are correctly rounded (one IEEE operation,
   round-to-nearest-even); dropout is one correctly rounded product of the
   kept element and a scale fixed per call.  Every element is independent,
   so any split, thread or block count gives the same bits.  NaN results
   are 0x7fc00000; -0, infinities and subnormals are ordinary values (no
   flush to zero).  n == 0 reads nothing (pointers may be NULL).  In place
   (y == a, y == b, y == x, dx == dy) is allowed; other overlaps are not.

     repdl_add_f32    y[i] = RN(a[i] + b[i])
     repdl_mul_f32    y[i] = RN(a[i] * b[i])
     repdl_scale_f32  y[i] = RN(alpha * x[i])

   Dropout (training mode), probability p of dropping:
     scale = RN(1 / RN(1 - p))           (once per call, both steps rounded)
     keep_j = repdl_rng_uniform_f32(seed, offset, j) >= p   (rng.h: element j
              of the uniform stream (seed, offset); n elements use
              repdl_rng_uniform_blocks(n) counter blocks)
     y[j] = keep_j ? RN(x[j] * scale) : +0      (a dropped NaN gives +0)
     mask[j] = keep_j (1 or 0), if mask != NULL
   Backward: dx[j] = mask[j] ? RN(dy[j] * scale) : +0, same scale.
   Edge cases: p == 0 keeps every element (uniforms are >= 0) and scale = 1,
   so y = x exactly (NaN canonical); p == 1 drops every element (uniforms
   are < 1): y = +0, mask = 0.  p < 0 is taken as 0; p > 1 and p NaN as 1.
   The _range form treats x[0] as element `first` of the stream, for
   splitting an array: any split gives the same bits as one call. */
#ifndef REPDL_ELEMENTWISE_H
#define REPDL_ELEMENTWISE_H

#include "config.h"
#include "rng.h"
REPDL_BEGIN_CODE

REPDL_API repdl_status repdl_add_f32(size_t n, const float *a, const float *b, float *y)
{
    REPDL__FPENV_CHECK();
    if (n && (!a || !b || !y)) return REPDL_ERR_INVALID;
    size_t i;
    for (i = 0; i < n; i++) y[i] = repdl__canon(repdl__fadd(a[i], b[i]));
    return REPDL_OK;
}

REPDL_API repdl_status repdl_mul_f32(size_t n, const float *a, const float *b, float *y)
{
    REPDL__FPENV_CHECK();
    if (n && (!a || !b || !y)) return REPDL_ERR_INVALID;
    size_t i;
    for (i = 0; i < n; i++) y[i] = repdl__canon(repdl__fmul(a[i], b[i]));
    return REPDL_OK;
}

REPDL_API repdl_status repdl_scale_f32(size_t n, float alpha, const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !y)) return REPDL_ERR_INVALID;
    size_t i;
    for (i = 0; i < n; i++) y[i] = repdl__canon(repdl__fmul(alpha, x[i]));
    return REPDL_OK;
}

/* p clamped to [0, 1]; NaN -> 1. */
REPDL_FN float repdl__dropout_p(float p)
{
    return repdl__fge(p, 0.0f) ? (repdl__fle(p, 1.0f) ? p : 1.0f) : (repdl__flt(p, 0.0f) ? 0.0f : 1.0f);
}

/* The scale of a (clamped) p: RN(1 / RN(1 - p)); +inf for p == 1 (unused). */
REPDL_FN float repdl__dropout_scale(float p) { return repdl__fdiv(1.0f, repdl__fsub(1.0f, p)); }

/* One element from its uniform word. */
REPDL_FN float repdl__dropout_elem(float x, uint32_t w, float p, float scale, uint8_t *keep)
{
    int k = repdl__fge(repdl__rng_u01(w), p);
    *keep = (uint8_t)k;
    return k ? repdl__canon(repdl__fmul(x, scale)) : 0.0f;
}

REPDL_API repdl_status repdl_dropout_forward_range_f32(size_t n, float p, uint64_t seed, uint64_t offset,
                                              uint64_t first, const float *x, float *y,
                                              uint8_t *mask)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !y)) return REPDL_ERR_INVALID;
    uint32_t w[REPDL__RNG_CHUNK];
    uint8_t kb[REPDL__RNG_CHUNK];
    float pc = repdl__dropout_p(p), scale = repdl__dropout_scale(pc);
    size_t j0, j;
    for (j0 = 0; j0 < n; j0 += REPDL__RNG_CHUNK) {
        size_t m = n - j0 < REPDL__RNG_CHUNK ? n - j0 : REPDL__RNG_CHUNK;
        uint8_t *mk = mask ? mask + j0 : kb;
        repdl__rng_u32_run(seed, offset, first + j0, m, w);
        for (j = 0; j < m; j++) y[j0 + j] = repdl__dropout_elem(x[j0 + j], w[j], pc, scale, mk + j);
    }
    return REPDL_OK;
}

REPDL_API repdl_status repdl_dropout_forward_f32(size_t n, float p, uint64_t seed, uint64_t offset,
                                        const float *x, float *y, uint8_t *mask)
{
    return repdl_dropout_forward_range_f32(n, p, seed, offset, 0u, x, y, mask);
}

REPDL_API repdl_status repdl_dropout_backward_f32(size_t n, float p, const uint8_t *mask, const float *dy,
                                         float *dx)
{
    REPDL__FPENV_CHECK();
    if (n && (!mask || !dy || !dx)) return REPDL_ERR_INVALID;
    float scale = repdl__dropout_scale(repdl__dropout_p(p));
    size_t i;
    for (i = 0; i < n; i++) dx[i] = mask[i] ? repdl__canon(repdl__fmul(dy[i], scale)) : 0.0f;
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_ELEMENTWISE_H */
