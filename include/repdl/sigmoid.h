/* SPDX-License-Identifier: MIT */
/* repdl/sigmoid.h: correctly rounded logistic sigmoid of a binary32 value.

   Accuracy: repdl_sigmoid_f32(x) is sigma(x) = 1 / (1 + exp(-x)) rounded to
   nearest-even binary32 for every binary32 x, subnormal results included;
   sigma(+-0) = 0.5, sigma(+inf) = 1, sigma(-inf) = +0, NaN -> the canonical
   NaN 0x7fc00000.  Proven by comparing all 2^32 inputs with MPFR
   (reference/exhaustive.c, suite 'exhaustive', docs/nn-act-pool.md).

   Algorithm, in double:
     y = 1 / (1 + e),  e ~ exp(-x) from exp.h's repdl__expf_core
   |e / exp(-x) - 1| < REPDL__EXPF_ERR - 2^-53 = 3 2^-53 (exp.h, every path,
   fused or not); 1 + e carries that error scaled by e / (1 + e) < 1, plus
   one rounding, and the division one more: |y / sigma(x) - 1| < 5.01 2^-53
   (reference/gen/nn_act.py), on every path: 1 + e and 1 / (.) are single
   operations, which no compiler can contract.  y is rounded to binary32
   when a rounding test proves that correct (repdl__round_ok_normal, then
   repdl__round_ok, detail/cr.h); the few other inputs are listed with their
   correctly rounded results (MPFR) in detail/sigmoidf_hard.inc.
   Exactly handled, outside that path (reference/gen/nn_act.py checks each):
     x >= 17.5:               1 - sigma(x) < exp(-17.5) < 2^-25: rounds to 1;
     x < -0x1.9fe368p6:       sigma(x) < exp(x) < 2^-150: rounds to +0;
     |x| < 2^-12:             sigma(x) = 1/2 + x/4 - d, d = x^3/48 + O(x^5) has
                              x's sign and |d| < 2^-41.  y1 = 1/2 + x/4 is
                              exact in double for |x| >= 2^-27 (a multiple of
                              2^-52 in (0.4999, 0.5001)), and the rounding
                              boundaries of binary32 (multiples of 2^-26) other
                              than y1 itself are >= ulp(x)/4 > |d| away from
                              it, so sigma(x) rounds like y1 moved by one
                              binary64 ulp towards 1/2 (which breaks the tie
                              when y1 is a midpoint, the right way).  For
                              |x| < 2^-27 everything within 2^-29 of 1/2
                              rounds to 1/2, y1's own rounding included.
   Also: repdl_sigmoid_array_f32(n, x, out), the same results for an array. */
#ifndef REPDL_SIGMOID_H
#define REPDL_SIGMOID_H

#include "config.h"
#include "detail/cr.h"
#include "exp.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__sigmoidf_y's y on every path, including
   the 2^-53 of repdl__round_ok's own products: 6.01 2^-53, rounded up. */
#define REPDL__SIGMOIDF_ERR 8.881784197001252e-16 /* 0x1p-50 */

/* y ~ sigma(x) for -0x1.9fe368p6 <= x < 17.5 (no special-case test);
   exp.h's reduction holds for |x| <= 104. */
REPDL_FN double repdl__sigmoidf_core(float x)
{
    double e = repdl__expf_core(repdl__fneg(x));
    return repdl__ddiv(1.0, repdl__dadd(1.0, e));
}

/* 1 with *y ~ sigma(x), |*y / sigma(x) - 1| < REPDL__SIGMOIDF_ERR - 2^-53,
   when 2^-12 <= |x|, -0x1.9fe368p6 <= x < 17.5; 0 for the special cases
   that repdl_sigmoid_f32 answers exactly (NaN, +-inf, x >= 17.5,
   x < -0x1.9fe368p6, |x| < 2^-12). */
REPDL_FN int repdl__sigmoidf_y(float x, double *y)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    if (REPDL_UNLIKELY(ax < 0x39800000u || (ux >= 0x418c0000u && ux < 0x80000000u) ||
                       ux > 0xc2cff1b4u))
        return 0;
    *y = repdl__sigmoidf_core(x);
    return 1;
}

/* sigma(x) for |x| < 2^-12, exactly rounded (see the header comment). */
REPDL_FN float repdl__sigmoidf_tiny(float x)
{
    double y1 = repdl__dadd(0.5, repdl__dmul(repdl__f2d(x), 0.25));   /* exact for |x| >= 2^-27 */
    uint64_t u = repdl__asuint64(y1);
    u = repdl__fgt(x, 0.0f) ? u - 1u : u + 1u;                                  /* towards 1/2 */
    return repdl__d2f(repdl__asdouble(u));
}

/* sigma(x) = 1 / (1 + exp(-x)) correctly rounded to binary32. */
REPDL_API float repdl_sigmoid_f32(float x)
{
    double y;
    if (REPDL_UNLIKELY(!repdl__sigmoidf_y(x, &y))) {
        uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
        if (ax > 0x7f800000u) return repdl__nanf();
        if (ax < 0x39800000u) return repdl__sigmoidf_tiny(x);
        return ux < 0x80000000u ? 1.0f : 0.0f;
    }
    /* x >= -87: sigma(x) > 2^-125.6, a normal binary32; E = 2^-50 gives c = 8 */
    if (REPDL_LIKELY((repdl__asuint(x) <= 0xc2ae0000u) & repdl__round_ok_normal(y, 8u)))
        return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/sigmoidf_hard.inc"
        };
        return repdl__cr_round(x, y, REPDL__SIGMOIDF_ERR, tab, REPDL__HARD_N(tab));
    }
}

/* One element of repdl_sigmoid_array_f32's branch-free pass (detail/cr.h's
   skeleton): NaN, x >= 17.5 and x < -0x1.9fe368p6 answered by selects;
   flagged for repdl_sigmoid_f32: |x| < 2^-12, x < -87 (subnormal results)
   and the rare failures of the fast rounding test. */
REPDL_FN uint32_t repdl__sigmoid_lane(uint32_t ux, uint32_t *fail)
{
    uint32_t ax = ux & 0x7fffffffu;
    int one = (ux >= 0x418c0000u) & (ux <= 0x7f800000u);          /* 1 */
    int zero = (ux > 0xc2cff1b4u) & (ux <= 0xff800000u);          /* +0 */
    int nan = ax > 0x7f800000u;
    int sp = one | zero | nan;
    int slow = (!sp) & ((ax < 0x39800000u) | (ux > 0xc2ae0000u)); /* tiny, x < -87 */
    /* specials and slow ones run the approximation on 0 */
    double y = repdl__sigmoidf_core(repdl__asfloat(ux & ((sp | slow) ? 0u : 0xffffffffu)));
    uint32_t r = repdl__asuint(repdl__d2f(y));
    uint32_t spm = 0u - (uint32_t)sp;
    *fail = (uint32_t)(slow | (!sp & !repdl__round_ok_normal(y, 8u)));
    return (r & ~spm) | (0x3f800000u & (0u - (uint32_t)one)) |
           (REPDL_NAN_BITS & (0u - (uint32_t)nan));
}

/* out[i] = repdl_sigmoid_f32(x[i]), 0 <= i < n, bit for bit (detail/cr.h's
   skeleton); out == x (in place) is fine, any other overlap is not; n = 0
   accepts NULL. */
REPDL_API repdl_status repdl_sigmoid_array_f32(size_t n, const float *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__CR_ARRAY(n, x, out, repdl__sigmoid_lane, repdl_sigmoid_f32);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_SIGMOID_H */
