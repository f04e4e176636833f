/* SPDX-License-Identifier: MIT */
/* repdl/silu.h: silu(x) = x sigma(x) = x / (1 + exp(-x)), correctly
   rounded, of a binary32, bfloat16 or float16 value.

     repdl_silu_f32(x), repdl_silu_array_f32(n, x, y),
     repdl_silu_bf16(h), repdl_silu_f16(h), repdl_silu_array_bf16(n, x, out),
     repdl_silu_array_f16(n, x, out)

   The claim (every input, proven against MPFR), the algorithm, its error
   bound and the provenance of its constants are in the section comment
   below; the 16-bit forms round the binary32 function's double
   approximation once (detail/act.h gives why that is correct); the
   backward pass is activation.h's. */
#ifndef REPDL_SILU_H
#define REPDL_SILU_H

#include "config.h"
#include "detail/cr.h"
#include "detail/act.h"
#include "exp.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* ---- silu: x sigma(x), correctly rounded ----
   repdl_silu_f32(x) is silu(x) = x / (1 + exp(-x)) rounded to nearest-even
   binary32 for every binary32 x (all 2^32 inputs proven against MPFR,
   docs/functions/siluf.md); silu(+-0) = +-0, silu(+inf) = +inf,
   silu(-inf) = -0 (the limit), NaN -> the canonical NaN.
   Algorithm, in double: y = x / (1 + e), e = exp.h's repdl__expf_core(-x),
   |e / exp(-x) - 1| < 3 2^-53 (every path).  exp.h's reduction is exact
   for |x| <= 177 (|k| < 2^16, x a binary32 value), so the bound holds on
   -x <= 108.7 too.  1 + e carries e's error scaled by e / (1 + e) < 1,
   plus one rounding, the division one more, x is exact: |y / silu(x) - 1|
   < 5.01 2^-53, as sigmoid.h's y (whose numerator is 1); 1 + e and the
   division are single operations, which no compiler contracts.  Rounding
   test (detail/cr.h): repdl__round_ok_normal(y, 8) where the result is
   normal (x >= -87; |x| >= 2^-60 here), then repdl__round_ok(y, 2^-50);
   the other inputs are in detail/siluf_hard.inc (MPFR).
   Exactly handled (reference/gen/act_cr.py checks the thresholds):
     x >= 17.5:            silu(x) = x (1 - d), d = sigma(-x) < e^-17.5 <
                           2^-25: rounds to x (+inf included);
     x <= -0x1.b2a428p6:   |silu(x)| <= 2^-150 (never equal): -0 (-inf
                           included);
     |x| < 2^-60:          silu(x) = x/2 + x^2/4 - x^4/48 + ... lies above
                           x/2 (both signs) by less than 2^-61 |x/2|; x/2
                           is a binary32 value or (subnormal) a midpoint,
                           and every other rounding boundary is 2^-25 |x/2|
                           or 2^-150 away: silu(x) rounds like x/2 moved
                           one binary64 ulp towards +inf (which breaks the
                           tie of a midpoint the right way); +-0 -> +-0. */
#define REPDL__SILUF_ERR 8.881784197001252e-16 /* 0x1p-50: 6.01 2^-53 rounded up */

/* y ~ silu(x) for -0x1.b2a428p6 < x < 17.5 (no special-case test) */
REPDL_FN double repdl__siluf_core(float x)
{
    double e = repdl__expf_core(repdl__fneg(x));
    return repdl__ddiv(repdl__f2d(x), repdl__dadd(1.0, e));
}

/* 1 with *y ~ silu(x), |*y / silu(x) - 1| < REPDL__SILUF_ERR - 2^-53, when
   2^-60 <= |x|, -0x1.b2a428p6 < x < 17.5; 0 for the special cases that
   repdl_silu_f32 answers exactly. */
REPDL_FN int repdl__siluf_y(float x, double *y)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    if (REPDL_UNLIKELY(ax < 0x21800000u || (ux >= 0x418c0000u && ux < 0x80000000u) ||
                       ux >= 0xc2d95214u))
        return 0;
    *y = repdl__siluf_core(x);
    return 1;
}


REPDL_API float repdl_silu_f32(float x)
{
    double y;
    if (REPDL_UNLIKELY(!repdl__siluf_y(x, &y))) {
        uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
        if (ax > 0x7f800000u) return repdl__nanf();
        if (ax < 0x21800000u) return repdl__siluf_tiny(x);
        return ux < 0x80000000u ? x : -0.0f;
    }
    /* x >= -87 (and |x| >= 2^-60): |silu(x)| > 2^-125.9, normal */
    if (REPDL_LIKELY((repdl__asuint(x) <= 0xc2ae0000u) & repdl__round_ok_normal(y, 8u)))
        return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/siluf_hard.inc"
        };
        return repdl__cr_round(x, y, REPDL__SILUF_ERR, tab, REPDL__HARD_N(tab));
    }
}

/* One element of repdl_silu_array_f32's branch-free pass (detail/cr.h's
   skeleton): NaN, +-0, x >= 17.5 and x <= -0x1.b2a428p6 answered by
   selects; flagged for repdl_silu_f32: 0 < |x| < 2^-60, x < -87
   (subnormal results) and the rare failures of the rounding test. */
REPDL_FN uint32_t repdl__silu_lane(uint32_t ux, uint32_t *fail)
{
    uint32_t ax = ux & 0x7fffffffu;
    int same = ((ux >= 0x418c0000u) & (ux <= 0x7f800000u)) | (ax == 0u);   /* x */
    int zero = (ux >= 0xc2d95214u) & (ux <= 0xff800000u);                 /* -0 */
    int nan = ax > 0x7f800000u;
    int sp = same | zero | nan;
    int slow = (!sp) & ((ax < 0x21800000u) | (ux > 0xc2ae0000u));
    double y = repdl__siluf_core(repdl__asfloat(ux & ((sp | slow) ? 0u : 0xffffffffu)));
    uint32_t r = repdl__asuint(repdl__d2f(y));
    uint32_t spm = 0u - (uint32_t)sp;
    *fail = (uint32_t)(slow | (!sp & !repdl__round_ok_normal(y, 8u)));
    return (r & ~spm) | (ux & (0u - (uint32_t)same)) | (0x80000000u & (0u - (uint32_t)zero)) |
           (REPDL_NAN_BITS & (0u - (uint32_t)nan));
}

/* ---- Array form ---- */

/* out[i] = repdl_silu_f32(x[i]) bit for bit (detail/cr.h's skeleton) */
REPDL_API repdl_status repdl_silu_array_f32(size_t n, const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !y)) return REPDL_ERR_INVALID;
    REPDL__CR_ARRAY(n, x, y, repdl__silu_lane, repdl_silu_f32);
    return REPDL_OK;
}

/* ---- bfloat16 and float16 forms (detail/act.h) ---- */

/* silu: y's domain 2^-60 <= |x|, -0x1.b2a428p6 < x < 17.5 (0x418c0000) */
REPDL_FN uint32_t repdl__silu_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__siluf_y(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__act_h_special(h, x, fmt);
}
REPDL_FN uint32_t repdl__silu_h_lane(uint32_t h, int fmt, uint32_t *fail)
{
    uint32_t ux = repdl__asuint(repdl__h_to_f32(h, fmt));
    double y = repdl__siluf_core(repdl__act_h_arg(ux, 0x418c0000u, 0xc2d95214u));
    return repdl__act_h_pick(h, ux, y, fmt, 0x418c0000u, 0xc2d95214u, fail);
}

/* silu(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_silu_bf16(uint16_t x) { return (uint16_t)repdl__silu_h(x, REPDL__BF16); }
/* silu(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_silu_f16(uint16_t x) { return (uint16_t)repdl__silu_h(x, REPDL__F16); }
/* out[i] = repdl_silu_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_silu_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__BF16, repdl__silu_h_lane, repdl__silu_h);
    return REPDL_OK;
}
/* out[i] = repdl_silu_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_silu_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__F16, repdl__silu_h_lane, repdl__silu_h);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_SILU_H */
