/* SPDX-License-Identifier: MIT */
/* repdl/cos.h: correctly rounded cosine of a binary32 value.

   Accuracy: repdl_cos_f32(x) is cos(x) rounded to nearest-even binary32 for
   every binary32 x, the largest ones (up to 2^128) included: the argument
   reduction is exact, not an approximation of x mod 2 pi.  cos(+-0) = 1,
   cos(+-inf) and NaN -> the canonical NaN 0x7fc00000.  Proven by comparing
   all 2^32 inputs with MPFR, in both contracted and uncontracted builds
   (docs/functions/cosf.md).

   Algorithm, in double (detail/trig_reduce.h, shared with sin.h):
     x = (q + f) pi/2 (mod 2 pi), |f| <= 1/2, as in sin.h, and
     cos(x) = sin((q + 1 + f) pi/2):
            = cos(pi/2 f) ~ C(f^2)       for q = 0 (q = 2: negated),
            = -sin(pi/2 f) ~ -f S(f^2)   for q = 1 (q = 3: negated);
     |y / cos(x) - 1| < REPDL__COSF_ERR - 2^-53 on every path, fused or not
     (reference/gen/trigf.py);
   then y is rounded to binary32 when a rounding test proves that rounding
   correct (repdl__round_ok_normal of detail/cr.h, then repdl__round_ok); the
   few other inputs are listed, with their correctly rounded results, in
   detail/cosf_hard.inc (reference/hardcases.c).  |cos(x)| > 2^-30 for every
   binary32 x (|f*| >= 2^-29.85 where q is odd), so the result is always a
   normal binary32.

   Also: repdl_cos_array_f32(n, x, out), the same results for an array;
   repdl_cos_bf16(x), repdl_cos_f16(x) and their array forms: cos(x) rounded
   once to the 16-bit format of x (half.h's bit patterns), directly from y
   (below, "bfloat16 and float16"). */
#ifndef REPDL_COS_H
#define REPDL_COS_H

#include "config.h"
#include "detail/cr.h"
#include "detail/trig_reduce.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__cosf_y's y on every path (fused or not),
   including the 2^-53 rounding of the rounding test's own products
   (reference/gen/trigf.py prints the bound), rounded up. */
#define REPDL__COSF_ERR 5.967448757360216e-16 /* 0x1.58p-51 */

/* c of repdl__round_ok_normal: the error without round_ok's rounding is
   below (c - 1) 2^-53 / (1 + 2^-50) (reference/gen/trigf.py). */
#define REPDL__COSF_C 8u

/* y ~ cos(x) for finite x (garbage, harmlessly, for inf and NaN) */
REPDL_FN double repdl__cosf_core(float x)
{
    uint32_t q;
    double f = repdl__trig_reduce(x, &q);
    return repdl__trig_eval(q + 1u, f);
}

/* 1 with *y ~ cos(x), |*y / cos(x) - 1| < REPDL__COSF_ERR - 2^-53, for
   finite x; 0 for inf and NaN (cos is NaN). */
REPDL_FN int repdl__cosf_y(float x, double *y)
{
    if ((repdl__asuint(x) & 0x7fffffffu) >= 0x7f800000u) return 0;
    *y = repdl__cosf_core(x);
    return 1;
}

/* repdl_cos_f32 off its fast path: inf, NaN and the inputs whose cheap
   rounding test failed. */
REPDL_FN_NOINLINE float repdl__cosf_slow(float x, double y)
{
    if ((repdl__asuint(x) & 0x7fffffffu) >= 0x7f800000u) return repdl__nanf();
    if (REPDL_LIKELY(repdl__round_ok(y, REPDL__COSF_ERR))) return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/cosf_hard.inc"
        };
        return repdl__hard_lookup(tab, (int)(sizeof tab / sizeof tab[0]), x, y);
    }
}

/* cos(x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_cos_f32(float x)
{
    double y = repdl__cosf_core(x);
    /* finite x: |cos(x)| > 2^-30, y rounds to a normal binary32 */
    if (REPDL_LIKELY(((repdl__asuint(x) & 0x7fffffffu) < 0x7f800000u) &
                     repdl__round_ok_normal(y, REPDL__COSF_C)))
        return repdl__d2f(y);
    return repdl__cosf_slow(x, y);
}

/* One element of repdl_cos_array_f32's branch-free pass (detail/cr.h's
   skeleton): y on every element (garbage for inf and NaN, which a select
   answers); flagged for repdl_cos_f32: the rare failures of the rounding
   test. */
REPDL_FN uint32_t repdl__cos_lane(uint32_t ux, uint32_t *fail)
{
    int sp = (ux & 0x7fffffffu) >= 0x7f800000u;
    double y = repdl__cosf_core(repdl__asfloat(ux));
    uint32_t r = repdl__asuint(repdl__d2f(y));
    uint32_t spm = 0u - (uint32_t)sp;
    *fail = (uint32_t)(!sp & !repdl__round_ok_normal(y, REPDL__COSF_C));
    return (r & ~spm) | (REPDL_NAN_BITS & spm);
}

/* The array form: out[i] = repdl_cos_f32(x[i]) for 0 <= i < n, bit for bit
   (detail/cr.h's skeleton).  out may be x itself (in place), otherwise the
   two must not overlap; n = 0 accepts NULL pointers. */
REPDL_API void repdl_cos_array_f32(size_t n, const float *x, float *out)
{
    REPDL__CR_ARRAY(n, x, out, repdl__cos_lane, repdl_cos_f32);
}

/* ---- bfloat16 and float16 (half.h's bit patterns) ----
   cos(x) rounded once, directly from y, to the 16-bit format of x
   (repdl__d_to_h): no binary32 rounding in between.  Why one rounding of y
   is correct in every build: tests/half/test_half_fn.c checks, with MPFR,
   for all 2^16 inputs of each format, that the exact value lies farther
   than E (REPDL__COSF_ERR, the bound of y on every path) from every
   rounding boundary of the format, or is exact and equal to y (the margin
   proof of half_math.h). */
/* cos: outside repdl__cosf_y (inf, NaN) the result is NaN. */
REPDL_FN uint32_t repdl__cos_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__cosf_y(x, &y))) return repdl__d_to_h_1(y, fmt);
    return REPDL__H_NAN(fmt);
}
/* One element of the 16-bit array forms: inf, NaN: NaN by a select (y is
   computed on 0 instead); otherwise y rounded. */
REPDL_FN uint32_t repdl__cos_h_lane(uint32_t h, int fmt, uint32_t *fail)
{
    uint32_t ux = repdl__asuint(repdl__h_to_f32(h, fmt));
    uint32_t sp = (uint32_t)((ux & 0x7fffffffu) >= 0x7f800000u);
    double y = repdl__cosf_core(repdl__asfloat(ux & (sp ? 0u : 0xffffffffu)));
    uint32_t r = repdl__d_to_h(y, fmt);
    *fail = 0;
    return (r & (sp - 1u)) | (REPDL__H_NAN(fmt) & (0u - sp));
}

/* cos(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_cos_bf16(uint16_t x) { return (uint16_t)repdl__cos_h(x, REPDL__BF16); }
/* cos(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_cos_f16(uint16_t x) { return (uint16_t)repdl__cos_h(x, REPDL__F16); }
/* out[i] = repdl_cos_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API void repdl_cos_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__H_ARRAY(n, x, out, REPDL__BF16, repdl__cos_h_lane, repdl__cos_h);
}
/* out[i] = repdl_cos_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API void repdl_cos_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__H_ARRAY(n, x, out, REPDL__F16, repdl__cos_h_lane, repdl__cos_h);
}

REPDL_END_CODE
#endif /* REPDL_COS_H */
