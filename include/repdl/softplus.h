/* SPDX-License-Identifier: MIT */
/* repdl/softplus.h: softplus(x) = log(1 + exp(x)), correctly rounded, of
   a binary32, bfloat16 or float16 value.

     repdl_softplus_f32(x), repdl_softplus_array_f32(n, x, y),
     repdl_softplus_bf16(h), repdl_softplus_f16(h), repdl_softplus_array_bf16(n, x, out),
     repdl_softplus_array_f16(n, x, out)

   The claim (every input, proven against MPFR), the algorithm, its error
   bound and the provenance of its constants are in the section comment
   below; the 16-bit forms round the binary32 function's double
   approximation once (detail/act.h gives why that is correct); the
   backward pass is activation.h's. */
#ifndef REPDL_SOFTPLUS_H
#define REPDL_SOFTPLUS_H

#include "config.h"
#include "detail/cr.h"
#include "detail/half_fmt.h"
#include "exp.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* ---- softplus: log(1 + e^x), correctly rounded ----
   repdl_softplus_f32(x) is softplus(x) = log(1 + exp(x)) rounded to
   nearest-even binary32 for every binary32 x (all 2^32 inputs proven
   against MPFR, docs/functions/softplusf.md); softplus(+inf) = +inf,
   softplus(-inf) = +0, softplus(+-0) = RN(log 2), NaN -> the canonical NaN.
   Algorithm, in double, with e = exp(-|x|) (exp.h's repdl__expf_core,
   |e / exp(-|x|) - 1| < 3 2^-53 on every path):
     softplus(x) = max(x, 0) + log1p(e),   log1p(e) = 2 atanh(s),
     s = e / (2 + e) in (0, 1/3],  atanh(s) ~ s + s w A(w), w = s^2,
   A of degree 9 (Sollya, reference/gen/softplusf.sollya: relative error
   of s + s^3 A(s^2) to atanh(s) < 2^-57.5).  Error (reference/gen/
   act_cr.py): s within 5 2^-53 (e's 3, scaled by 2/(2 + e) <= 1, and two
   roundings); atanh amplifies a relative error of s by s/((1 - s^2)
   atanh(s)) <= 1.082; the correction s w A is < 0.045 s and carries its
   Horner error (0.41 2^-53 absolute, bounded in exact rational arithmetic)
   and three roundings; the sum one rounding, the doubling none:
   |L / log1p(e) - 1| < 6.65 2^-53; x + L (x > 0) adds one rounding:
   |y / softplus(x) - 1| < 7.65 2^-53, fused or not.  Rounding test (detail/cr.h):
   repdl__round_ok_normal(y, 16) where the result is normal (x >= -87),
   then repdl__round_ok(y, 2^-49); the other inputs are in
   detail/softplusf_hard.inc (MPFR).
   Exactly handled:
     x >= 16:                 softplus(x) = x + d, 0 < d < e^-16 < 2^-20 <=
                              half an ulp of x: rounds to x (+inf included).
                              PyTorch's threshold (x > 20: x) gives the same
                              values;
     x < -0x1.9fe368p6:       softplus(x) < e^x < 2^-150: +0 (-inf included).
   The backward pass is dy * sigma(x) (below), unchanged. */
#define REPDL__SOFTPLUSF_ERR 1.7763568394002505e-15 /* 0x1p-49: 8.65 2^-53 rounded up */

/* y ~ softplus(x) for -0x1.9fe368p6 <= x < 16 (no special-case test) */
REPDL_FN double repdl__softplusf_core(float x)
{
    uint32_t ux = repdl__asuint(x);
    double e = repdl__expf_core(repdl__asfloat(ux | 0x80000000u));          /* exp(-|x|) */
    double s = repdl__ddiv(e, repdl__dadd(2.0, e));
    double w = repdl__dmul(s, s);
    /* A (reference/gen/softplusf.sollya), Horner in w <= 1/9 + 2^-40 */
    double a = 0.08073615753920103;
    a = repdl__dadd(0.044049138279416845, repdl__dmul(w, a));
    a = repdl__dadd(0.05999499716253129, repdl__dmul(w, a));
    a = repdl__dadd(0.06657201763972981, repdl__dmul(w, a));
    a = repdl__dadd(0.07692775366561411, repdl__dmul(w, a));
    a = repdl__dadd(0.09090895155097393, repdl__dmul(w, a));
    a = repdl__dadd(0.11111111347059138, repdl__dmul(w, a));
    a = repdl__dadd(0.1428571428372356, repdl__dmul(w, a));
    a = repdl__dadd(0.20000000000006168, repdl__dmul(w, a));
    a = repdl__dadd(0.3333333333333333, repdl__dmul(w, a));
    {
        /* L = 2 (s + (s w) A); the doubling is exact */
        double l = repdl__dmul(repdl__dadd(s, repdl__dmul(repdl__dmul(s, w), a)), 2.0);
        return ux < 0x80000000u ? repdl__dadd(repdl__f2d(x), l) : l;
    }
}

/* 1 with *y ~ softplus(x), |*y / softplus(x) - 1| < REPDL__SOFTPLUSF_ERR -
   2^-53, when -0x1.9fe368p6 <= x < 16; 0 for the special cases. */
REPDL_FN int repdl__softplusf_y(float x, double *y)
{
    uint32_t ux = repdl__asuint(x);
    if (REPDL_UNLIKELY((ux >= 0x41800000u && ux < 0x80000000u) || ux > 0xc2cff1b4u))
        return 0;   /* x >= 16, +inf, x < -0x1.9fe368p6, -inf, NaN */
    *y = repdl__softplusf_core(x);
    return 1;
}

REPDL_API float repdl_softplus_f32(float x)
{
    double y;
    if (REPDL_UNLIKELY(!repdl__softplusf_y(x, &y))) {
        uint32_t ux = repdl__asuint(x);
        if ((ux & 0x7fffffffu) > 0x7f800000u) return repdl__nanf();
        return ux < 0x80000000u ? x : 0.0f;
    }
    /* x >= -87: softplus(x) > e^-87 (1 - e^-87) > 2^-126: normal; E = 2^-49: c = 16 */
    if (REPDL_LIKELY((repdl__asuint(x) <= 0xc2ae0000u) & repdl__round_ok_normal(y, 16u)))
        return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/softplusf_hard.inc"
        };
        return repdl__cr_round(x, y, REPDL__SOFTPLUSF_ERR, tab, REPDL__HARD_N(tab));
    }
}

/* ---- Array form ---- */

REPDL_API repdl_status repdl_softplus_array_f32(size_t n, const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !y)) return REPDL_ERR_INVALID;
    size_t i;
    for (i = 0; i < n; i++) y[i] = repdl_softplus_f32(x[i]);
    return REPDL_OK;
}

/* ---- bfloat16 and float16 forms (detail/act.h) ---- */

/* softplus: y's domain -0x1.9fe368p6 <= x < 16; outside: NaN, x (x >= 16,
   +inf), +0 (below, -inf).  softplus(+-0) = log 2 is on the domain. */
REPDL_FN uint32_t repdl__softplus_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    uint32_t ux = repdl__asuint(x);
    if (REPDL_LIKELY(repdl__softplusf_y(x, &y))) return repdl__d_to_h_1(y, fmt);
    if ((ux & 0x7fffffffu) > 0x7f800000u) return REPDL__H_NAN(fmt);
    return ux < 0x80000000u ? h : 0u;
}

/* softplus(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_softplus_bf16(uint16_t x) { return (uint16_t)repdl__softplus_h(x, REPDL__BF16); }
/* softplus(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_softplus_f16(uint16_t x) { return (uint16_t)repdl__softplus_h(x, REPDL__F16); }
/* out[i] = repdl_softplus_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_softplus_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_SCALAR_ARRAY(n, x, out, REPDL__BF16, repdl__softplus_h);
    return REPDL_OK;
}
/* out[i] = repdl_softplus_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_softplus_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_SCALAR_ARRAY(n, x, out, REPDL__F16, repdl__softplus_h);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_SOFTPLUS_H */
