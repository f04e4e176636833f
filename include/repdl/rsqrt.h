/* SPDX-License-Identifier: MIT */
/* repdl/rsqrt.h: correctly rounded reciprocal square root of a binary32
   value.

   Accuracy: repdl_rsqrt_f32(x) is 1/sqrt(x) rounded to nearest-even binary32
   for every binary32 x (IEEE 754 rSqrt): rsqrt(+0) = +inf, rsqrt(-0) = -inf,
   rsqrt(+inf) = +0, x < 0 (-inf included) and NaN -> the canonical NaN
   0x7fc00000; subnormal x are ordinary inputs.  Not the approximate
   instructions (x86 rsqrtss, PTX rsqrt.approx), whose results differ by
   platform.  Proven by comparing all 2^32 inputs with MPFR
   (docs/functions/rsqrtf.md).

   Algorithm, in double:
     y = 1 / sqrt(x)   (x converted exactly; sqrt and division correctly
                        rounded, IEEE 754 requires both of the hardware)
   s = sqrt(x)(1 + e1), y = (1/s)(1 + e2), |e1|, |e2| <= 2^-53, so
     |y sqrt(x) - 1| = |(1 + e2)/(1 + e1) - 1| <= 2^-52 / (1 - 2^-53)
   on every path: nothing here can be contracted.  For 0 < x < +inf,
   1/sqrt(x) lies in [2^-64, 2^74.5]: a normal binary32.  Then y is rounded
   to binary32 when a rounding test proves that rounding correct
   (repdl__round_ok_normal of detail/cr.h, then repdl__round_ok); the few
   other inputs are listed, with their correctly rounded results, in
   detail/rsqrtf_hard.inc (reference/hardcases.c).
   Exact results: 1/sqrt(x) is a dyadic rational only for x = 4^k (x = p^2
   4^j with p odd would need 1/p dyadic), where y = 2^-k is exact; it is
   never a rounding midpoint (a midpoint has 25 significant bits, 2^-k has
   one), so no tie needs a rule.

   Also: repdl_rsqrt_array_f32(n, x, out), the same results for an array;
   repdl_rsqrt_bf16(x), repdl_rsqrt_f16(x) and their array forms: rsqrt(x) rounded
   once to the 16-bit format of x (half.h's bit patterns), directly from y
   (below, "bfloat16 and float16"). */
#ifndef REPDL_RSQRT_H
#define REPDL_RSQRT_H

#include "config.h"
#include "detail/cr.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* Relative error bound of y, including the 2^-53 rounding of
   repdl__round_ok's own products: 2^-52 (1 + 2^-52) + 2^-53 (1 + 2^-51)
   < 1.5001 2^-52 <= 0x1.9p-52 (reference/gen/rsqrtf.py prints it). */
#define REPDL__RSQRTF_ERR 3.469446951953614e-16 /* 0x1.9p-52 */

/* y = 1/sqrt(x) in double (see the top of this file); +inf for +0, -inf for
   -0, +0 for +inf, a NaN for x < 0 or NaN. */
REPDL_FN double repdl__rsqrtf_core(float x)
{
    /* two correctly rounded operations: |y sqrt(x) - 1| <= 2^-52 (1 + 2^-52) */
    return repdl__ddiv(1.0, repdl__dsqrt(repdl__f2d(x)));
}

/* 1 with *y ~ 1/sqrt(x), |*y sqrt(x) - 1| < REPDL__RSQRTF_ERR - 2^-53, when
   0 < x < +inf; 0 for the special cases that repdl_rsqrt_f32 answers
   exactly (+-0, +inf, x < 0, NaN). */
REPDL_FN int repdl__rsqrtf_y(float x, double *y)
{
    if ((repdl__asuint(x) - 1u) >= 0x7f7fffffu) return 0;   /* not in (0, +inf) */
    *y = repdl__rsqrtf_core(x);
    return 1;
}

/* repdl_rsqrt_f32 off its fast path: the special cases and the inputs whose
   cheap rounding test failed. */
REPDL_FN_NOINLINE float repdl__rsqrtf_slow(float x, double y)
{
    uint32_t ux = repdl__asuint(x);
    if (ux > 0x80000000u || (ux & 0x7fffffffu) > 0x7f800000u)
        return repdl__nanf();                 /* x < 0 (-inf included), NaN */
    if ((ux & 0x7fffffffu) == 0u || ux == 0x7f800000u)
        return repdl__d2f(y);                 /* +0 -> +inf, -0 -> -inf, +inf -> +0: exact */
    {
        static const repdl__hardcase tab[] = {
#include "detail/rsqrtf_hard.inc"
        };
        return repdl__cr_round(x, y, REPDL__RSQRTF_ERR, tab, REPDL__HARD_N(tab));
    }
}

/* 1/sqrt(x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_rsqrt_f32(float x)
{
    double y = repdl__rsqrtf_core(x);
    /* 0 < x < +inf: y rounds to a normal binary32; the error
       2^-52 (1 + 2^-52) < (4 - 1) 2^-53 / (1 + 2^-50) allows c = 4 */
    if (REPDL_LIKELY(((repdl__asuint(x) - 1u) < 0x7f7fffffu) & repdl__round_ok_normal(y, 4u)))
        return repdl__d2f(y);
    return repdl__rsqrtf_slow(x, y);
}

/* The array form: out[i] = repdl_rsqrt_f32(x[i]) for 0 <= i < n, bit for
   bit (element by element: REPDL__SCALAR_ARRAY of detail/cr.h).  out may
   be x itself (in place), otherwise the two must not overlap; n = 0
   accepts NULL pointers. */
REPDL_API repdl_status repdl_rsqrt_array_f32(size_t n, const float *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__SCALAR_ARRAY(n, x, out, repdl_rsqrt_f32);
    return REPDL_OK;
}

/* ---- bfloat16 and float16 (half.h's bit patterns) ----
   rsqrt(x) rounded once, directly from y, to the 16-bit format of x
   (repdl__d_to_h): no binary32 rounding in between.  Why one rounding of y
   is correct in every build: tests/half/test_half_fn.c checks, with MPFR,
   for all 2^16 inputs of each format, that the exact value lies farther
   than E (REPDL__RSQRTF_ERR, the bound of y on every path) from every
   rounding boundary of the format, or is exact and equal to y (the margin
   proof of half_math.h). */
/* rsqrt: outside repdl__rsqrtf_y (+-0, +inf, x < 0, NaN) repdl_rsqrt_f32
   gives +-inf, +0 or NaN, exactly. */
REPDL_FN uint32_t repdl__rsqrt_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__rsqrtf_y(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__f32_to_h(repdl_rsqrt_f32(x), fmt);
}

/* rsqrt(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_rsqrt_bf16(uint16_t x) { return (uint16_t)repdl__rsqrt_h(x, REPDL__BF16); }
/* rsqrt(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_rsqrt_f16(uint16_t x) { return (uint16_t)repdl__rsqrt_h(x, REPDL__F16); }
/* out[i] = repdl_rsqrt_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_rsqrt_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_SCALAR_ARRAY(n, x, out, REPDL__BF16, repdl__rsqrt_h);
    return REPDL_OK;
}
/* out[i] = repdl_rsqrt_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_rsqrt_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_SCALAR_ARRAY(n, x, out, REPDL__F16, repdl__rsqrt_h);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_RSQRT_H */
