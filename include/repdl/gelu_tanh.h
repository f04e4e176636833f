/* SPDX-License-Identifier: MIT */
/* repdl/gelu_tanh.h: gelu, tanh form:
   x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), correctly rounded, of a
   binary32, bfloat16 or float16 value.

     repdl_gelu_tanh_f32(x), repdl_gelu_tanh_array_f32(n, x, y),
     repdl_gelu_tanh_bf16(h), repdl_gelu_tanh_f16(h), repdl_gelu_tanh_array_bf16(n, x, out),
     repdl_gelu_tanh_array_f16(n, x, out)

   The claim (every input, proven against MPFR), the algorithm, its error
   bound and the provenance of its constants are in the section comment
   below; the 16-bit forms round the binary32 function's double
   approximation once (detail/act.h gives why that is correct); the
   backward pass is activation.h's. */
#ifndef REPDL_GELU_TANH_H
#define REPDL_GELU_TANH_H

#include "config.h"
#include "detail/cr.h"
#include "detail/exp_table.h"
#include "detail/act.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* ---- gelu_tanh: the forward pass, correctly rounded ----
   repdl_gelu_tanh_f32(x) is g(x) = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
   with the exact real constants sqrt(2/pi) and 0.044715 (= 44715/10^6),
   rounded to nearest-even binary32, for every binary32 x (all 2^32 inputs
   proven against MPFR, docs/functions/gelu_tanhf.md); g(+-0) = +-0,
   g(+inf) = +inf, g(-inf) = -0 (the limit), NaN -> the canonical NaN.
   (The float sequence above, K1 = RN32(0.044715) and C2 = RN32(...), is
   now only the backward pass's.)
   Algorithm: g(x) = x sigma(w), w = c x + c k x^3, c = 2 sqrt(2/pi),
   k = 0.044715, since 1 + tanh(z) = 2 sigma(2z).  In double:
     w = w_hi + w_lo, |w_hi + w_lo - w| < 2^-66: c = C_H + C_L and
       c k = K_H + K_L (C_H, K_H of <= 29 bits, reference/gen/act_cr.py),
       x^3 = p1h + p1l + p2 exactly (bit masks split x^2 and x^2's upper
       half times x into pieces of <= 24 bits, so every product below
       with C_H or K_H is exact); the small terms (C_L x, K_H p1l, K_H p2,
       K_L x^3) round by < 2^-76 |w| each; a TwoSum and a Fast2Sum (no
       products: nothing to contract) give w_hi, w_lo with |w_lo| <=
       2^-53 |w_hi|;
     e = E1 - E1 w_lo ~ exp(-w), E1 = exp(-w_hi) by exp.h's reduction and
       polynomial (exact reduction for any double |a| <= 177 with k != 0
       => |a| > 2^-10: a and k C_HI are multiples of 2^-62, the difference
       below 2^-9 has <= 53 bits), |E1 / exp(-w_hi) - 1| < 1.9 2^-53 (exp.h);
       1 - w_lo ~ exp(-w_lo) within w_lo^2 < 2^-92; the sum rounds once:
       |e / exp(-w) - 1| < 2.92 2^-53;
     y = x / (1 + e): 1 + e and the division round once each, e's error
       is scaled by e / (1 + e) < 1: |y / g(x) - 1| < 4.93 2^-53, fused or
       not (the only products that feed additions are exact, or the tiny
       ones above).
   Rounding test (detail/cr.h): repdl__round_ok_normal(y, 8) where the
   result is normal (x >= -10), then repdl__round_ok(y, 2^-50); the other
   inputs are in detail/gelu_tanhf_hard.inc.
   Exactly handled (reference/gen/act_cr.py finds the thresholds):
     x >= 0x1.43eda8p+2:     sigma(-w) < 2^-25: rounds to x (+inf too);
     x <= -0x1.58aaf4p+3:    |g(x)| <= 2^-150 (never equal): -0 (-inf too);
     |x| < 2^-60:            g(x) = x/2 + c x^2/4 + O(x^4) lies above x/2 by
                             less than 2^-61 |x/2|: silu's tiny rule. */
#define REPDL__GELU_TANHF_ERR 8.881784197001252e-16 /* 0x1p-50: 5.93 2^-53 rounded up */

/* exp(a) for a double a, |a| <= 177: exp.h's reduction and degree-4
   polynomial (repdl__expf_core's code on a double argument; its bound
   1.9 2^-53 holds, see above). */
REPDL_FN double repdl__act_exp_d(double a)
{
    double s, r, r2, p, sr, sr2, q;
    uint64_t j;
    r = repdl__exp_reduce(a, &s, &j);
    r2 = repdl__dmul(r, r);
    q = repdl__dadd(0.5000000000000233, repdl__dmul(r, 0.16666668003889068));
    p = repdl__dadd(q, repdl__dmul(r2, 0.0416666536383358));
    sr = repdl__dmul(s, r);
    sr2 = repdl__dmul(s, r2);
    return repdl__dadd(s, repdl__dadd(sr, repdl__dmul(sr2, p)));
}

/* the top 24 significant bits of a double (low 29 mantissa bits cleared) */
REPDL_FN double repdl__hi24(double v)
{
    return repdl__asdouble(repdl__asuint64(v) & ~(uint64_t)0x1fffffffu);
}

/* y ~ g(x) for 2^-60 <= |x|, -0x1.58aaf4p+3 < x < 0x1.43eda8p+2 */
REPDL_FN double repdl__gelu_tanhf_core(float x)
{
    double xd = repdl__f2d(x);
    double x2 = repdl__dmul(xd, xd);                              /* exact */
    double x2h = repdl__hi24(x2), x2l = repdl__dsub(x2, x2h);      /* exact */
    double p1 = repdl__dmul(x2h, xd), p2 = repdl__dmul(x2l, xd);   /* exact */
    double p1h = repdl__hi24(p1), p1l = repdl__dsub(p1, p1h);      /* exact */
    double a1 = repdl__dmul(xd, 1.5957691222429276);               /* C_H x, exact */
    double b1 = repdl__dmul(p1h, 0.07135481620207429);             /* K_H p1h, exact */
    double s = repdl__dadd(a1, b1), bb = repdl__dsub(s, a1);
    double err = repdl__dadd(repdl__dsub(a1, repdl__dsub(s, bb)), repdl__dsub(b1, bb));   /* TwoSum */
    double lo = repdl__dadd(repdl__dadd(err, repdl__dmul(xd, -6.37196839509747e-10)),     /* C_L x */
                            repdl__dadd(repdl__dmul(p1l, 0.07135481620207429),            /* K_H p1l, exact */
                                        repdl__dmul(p2, 0.07135481620207429)));           /* K_H p2 */
    double wh, wl, e1, e;
    lo = repdl__dadd(lo, repdl__dmul(repdl__dadd(p1, p2), 7.052595945443934e-11));         /* K_L x^3 */
    wh = repdl__dadd(s, lo);
    wl = repdl__dadd(repdl__dsub(s, wh), lo);                      /* Fast2Sum, |s| >= |lo| */
    e1 = repdl__act_exp_d(-wh);
    e = repdl__dsub(e1, repdl__dmul(e1, wl));
    return repdl__ddiv(xd, repdl__dadd(1.0, e));
}

REPDL_FN int repdl__gelu_tanhf_y(float x, double *y)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    if (REPDL_UNLIKELY(ax < 0x21800000u || (ux >= 0x40a1f6d4u && ux < 0x80000000u) ||
                       ux >= 0xc12c557au))
        return 0;
    *y = repdl__gelu_tanhf_core(x);
    return 1;
}

REPDL_API float repdl_gelu_tanh_f32(float x)
{
    double y;
    if (REPDL_UNLIKELY(!repdl__gelu_tanhf_y(x, &y))) {
        uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
        if (ax > 0x7f800000u) return repdl__nanf();
        if (ax < 0x21800000u) return repdl__siluf_tiny(x);   /* x/2 nudged up */
        return ux < 0x80000000u ? x : -0.0f;
    }
    /* x >= -10 (and |x| >= 2^-60): |g(x)| > 2^-125.6, normal; E = 2^-50: c = 8 */
    if (REPDL_LIKELY((repdl__asuint(x) <= 0xc1200000u) & repdl__round_ok_normal(y, 8u)))
        return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/gelu_tanhf_hard.inc"
        };
        return repdl__cr_round(x, y, REPDL__GELU_TANHF_ERR, tab, REPDL__HARD_N(tab));
    }
}

/* ---- Array form ---- */

/* out[i] = repdl_gelu_tanh_f32(x[i]) */
REPDL_API repdl_status repdl_gelu_tanh_array_f32(size_t n, const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !y)) return REPDL_ERR_INVALID;
    size_t i;
    for (i = 0; i < n; i++) y[i] = repdl_gelu_tanh_f32(x[i]);
    return REPDL_OK;
}

/* ---- bfloat16 and float16 forms (detail/act.h) ---- */

/* gelu_tanh: y's domain 2^-60 <= |x|, -0x1.58aaf4p+3 < x < 0x1.43eda8p+2 */
REPDL_FN uint32_t repdl__gelu_tanh_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__gelu_tanhf_y(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__act_h_special(h, x, fmt);
}
REPDL_FN uint32_t repdl__gelu_tanh_h_lane(uint32_t h, int fmt, uint32_t *fail)
{
    uint32_t ux = repdl__asuint(repdl__h_to_f32(h, fmt));
    double y = repdl__gelu_tanhf_core(repdl__act_h_arg(ux, 0x40a1f6d4u, 0xc12c557au));
    return repdl__act_h_pick(h, ux, y, fmt, 0x40a1f6d4u, 0xc12c557au, fail);
}

/* gelu_tanh(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_gelu_tanh_bf16(uint16_t x) { return (uint16_t)repdl__gelu_tanh_h(x, REPDL__BF16); }
/* gelu_tanh(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_gelu_tanh_f16(uint16_t x) { return (uint16_t)repdl__gelu_tanh_h(x, REPDL__F16); }
/* out[i] = repdl_gelu_tanh_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_gelu_tanh_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__BF16, repdl__gelu_tanh_h_lane, repdl__gelu_tanh_h);
    return REPDL_OK;
}
/* out[i] = repdl_gelu_tanh_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_gelu_tanh_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__F16, repdl__gelu_tanh_h_lane, repdl__gelu_tanh_h);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_GELU_TANH_H */
