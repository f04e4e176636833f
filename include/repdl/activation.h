/* SPDX-License-Identifier: MIT */
/* repdl/activation.h: activation functions and their backward passes
   (float32), reproducible: the same bits on every machine, compiler, flag
   set and vector width (docs/nn-act-pool.md gives each definition).

   Array forms (in place allowed: y == x, dx == dy or dx == x; any other
   overlap is not; n = 0 accepts NULL):
     repdl_F_f32(n, x, y)                 y[i]  = repdl_Ff(x[i])
     repdl_F_backward_f32(n, x, dy, dx)   dx[i] = repdl_F_backwardf(x[i], dy[i])
   for F in relu, sigmoid, silu, gelu (erf form), gelu_tanh, softplus.
   Every NaN output is the canonical 0x7fc00000.

   Accuracy (docs/nn-act-pool.md, docs/functions/):
     sigmoid, silu,      correctly rounded functions of one binary32
     softplus, gelu      argument (sigmoid.h and below: a double
     (erf form),         approximation with a proven error bound, the
     gelu_tanh           rounding test of detail/cr.h, MPFR hard-case
                         tables; all 2^32 inputs compared with MPFR);
                         gelu_tanh with the exact constants sqrt(2/pi)
                         and 0.044715;
     relu                exact;
     every backward      reproducible, not correctly rounded: the
                         documented compositions below, built on the
                         correctly rounded sigmoid (gelu's in double,
                         relative error < 2^-44 before its final rounding,
                         measured by reference/gen/nn_act.py; near its
                         zero x = -0.7518: absolute error about 2^-52).
   Contraction: every product that feeds an addition is behind
   repdl__fkeep / repdl__dkeep, or the sequence says repdl__fmaf (a fused
   multiply-add that is part of the definition, identical everywhere), or
   (in the correctly rounded forward passes) the error bound holds fused or
   not. */
#ifndef REPDL_ACTIVATION_H
#define REPDL_ACTIVATION_H

#include "config.h"
#include "detail/barrier.h"
#include "detail/exp_table.h"
#include "exp.h"
#include "sigmoid.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* ---- relu: max(x, +0); NaN -> NaN ---- */
/* y = x if x > 0, NaN if x is NaN, +0 otherwise (-0 and negatives). */
REPDL_API float repdl_relu_f32(float x)
{
    return repdl__fgt(x, 0.0f) ? x : (repdl__fne(x, x) ? repdl__nanf() : 0.0f);
}
/* dx = dy if x > 0; NaN if x is NaN; +0 otherwise (whatever dy). */
REPDL_API float repdl_relu_backward_f32(float x, float dy)
{
    return repdl__fgt(x, 0.0f) ? repdl__canon(dy) : (repdl__fne(x, x) ? repdl__nanf() : 0.0f);
}

/* ---- sigmoid: correctly rounded (sigmoid.h) ---- */
/* dx = dy * (sigma(x) sigma(-x)): sigma'(x) = sigma(x) (1 - sigma(x)) =
   sigma(x) sigma(-x), both factors correctly rounded (no cancellation). */
REPDL_API float repdl_sigmoid_backward_f32(float x, float dy)
{
    float g = repdl__fmul(repdl_sigmoid_f32(x), repdl_sigmoid_f32(repdl__fneg(x)));
    return repdl__canon(repdl__fmul(dy, g));
}

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

/* x/2 moved one binary64 ulp towards +inf, for 0 < |x| < 2^-60: the tiny
   rule of silu, gelu and gelu_tanh (see above), also their 16-bit forms' */
REPDL_FN double repdl__act_tiny_d(float x)
{
    double y1 = repdl__dmul(repdl__f2d(x), 0.5);                 /* exact, normal */
    uint64_t u = repdl__asuint64(y1);
    u = repdl__fgt(x, 0.0f) ? u + 1u : u - 1u;                   /* towards +inf */
    return repdl__asdouble(u);
}

/* silu(x) for |x| < 2^-60 (see above) */
REPDL_FN float repdl__siluf_tiny(float x)
{
    if (repdl__feq(x, 0.0f)) return x;
    return repdl__d2f(repdl__act_tiny_d(x));
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
    if (REPDL_LIKELY(repdl__round_ok(y, REPDL__SILUF_ERR))) return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/siluf_hard.inc"
        };
        return repdl__hard_lookup(tab, (int)(sizeof tab / sizeof tab[0]), x, y);
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
/* silu'(x) = sigma(x) (1 + x sigma(-x)):
     g = sigma(x) * fmaf(x, sigma(-x), 1);  dx = dy * g.
   g(+inf) = 1, g(-inf) = -0 (the limits, which the formula reaches for
   large finite x too). */
REPDL_API float repdl_silu_backward_f32(float x, float dy)
{
    float g;
    uint32_t ux = repdl__asuint(x);
    if (REPDL_UNLIKELY((ux & 0x7fffffffu) == 0x7f800000u))
        g = ux == 0x7f800000u ? 1.0f : -0.0f;
    else
        g = repdl__fmul(repdl_sigmoid_f32(x), repdl__fmaf(x, repdl_sigmoid_f32(repdl__fneg(x)), 1.0f));
    return repdl__canon(repdl__fmul(dy, g));
}

/* ---- gelu, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
   = x sigma(w), w = 2 sqrt(2/pi) (x + 0.044715 x^3), since
   1 + tanh(z) = 2 sigma(2z) exactly: the same function without the
   cancellation of 1 + tanh for negative x.  Sequence (binary32):
     x2 = x*x; x3 = x2*x; i = x + keep(K1*x3); w = C2*i; y = x * sigma(w)
   K1 = RN(0.044715), C2 = RN(2 sqrt(2/pi)).  gelu_tanh(-inf) = -0. ---- */
#define REPDL__GELU_K1 0.044715f /* 0x1.6e4e26p-5f */  /* RN32(0.044715) */
#define REPDL__GELU_K3 0.134145f /* 0x1.12ba9ep-3f */  /* RN32(3 * 0.044715) = RN32(0.134145) */
#define REPDL__GELU_C2 1.5957692f /* 0x1.988454p+0f */  /* RN32(2 sqrt(2/pi)) */
REPDL_FN float repdl__gelu_tanh_w(float x, float *x2)
{
    float x3, i;
    *x2 = repdl__fmul(x, x);
    x3 = repdl__fmul(*x2, x);
    i = repdl__fadd(x, repdl__fkeep(repdl__fmul(REPDL__GELU_K1, x3)));
    return repdl__fmul(REPDL__GELU_C2, i);
}
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
    if (REPDL_LIKELY(repdl__round_ok(y, REPDL__GELU_TANHF_ERR))) return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/gelu_tanhf_hard.inc"
        };
        return repdl__hard_lookup(tab, (int)(sizeof tab / sizeof tab[0]), x, y);
    }
}
/* d/dx x sigma(w) = sigma(w) + x sigma(w) sigma(-w) w'(x),
   w'(x) = C2 (1 + 3 K1 x^2):
     s = sigma(w); sn = sigma(-w); dw = C2 * fmaf(K3, x2, 1);
     a = (x * s) * sn; g = fmaf(a, dw, s); dx = dy * g.
   |x| >= 2^32 (infinities included): g = 1 for x > 0, +0 for x < 0, the
   values the sequence gives just below 2^32 (where x2 would overflow). */
REPDL_API float repdl_gelu_tanh_backward_f32(float x, float dy)
{
    float x2, w, s, sn, dw, a, g;
    uint32_t ux = repdl__asuint(x);
    if (REPDL_UNLIKELY((ux & 0x7fffffffu) >= 0x4f800000u && (ux & 0x7fffffffu) <= 0x7f800000u)) {
        g = ux < 0x80000000u ? 1.0f : 0.0f;
    } else {
        w = repdl__gelu_tanh_w(x, &x2);
        s = repdl_sigmoid_f32(w);
        sn = repdl_sigmoid_f32(repdl__fneg(w));
        dw = repdl__fmul(REPDL__GELU_C2, repdl__fmaf(REPDL__GELU_K3, x2, 1.0f));
        a = repdl__fmul(repdl__fmul(x, s), sn);
        g = repdl__fmaf(a, dw, s);
    }
    return repdl__canon(repdl__fmul(dy, g));
}

/* ---- Double-precision helpers of gelu (erf form) and softplus ----
   No contraction can change them: every product that feeds an addition is
   behind repdl__dkeep. */

/* exp(a) in double for a double a, -110 <= a <= 0, that is either a
   binary32 value or -x^2/2 for a binary32 x (both make the reduction
   below exact, see exp.h's repdl__exp_reduce: a - k C_HI is a multiple of
   2^-56 below 2^-9 when k != 0).  The reduction and degree-4 polynomial of
   exp.h (reference/gen/expf.sollya), with dkeep barriers:
   |result / exp(a) - 1| < 1.9 2^-53 (reference/gen/expf.py's bound; the
   uncontracted path is one of the paths it covers). */
REPDL_FN double repdl__act_exp(double a)
{
    double z = repdl__dadd(repdl__dkeep(repdl__dmul(a, 369.3299304675746)), 6755399441055744.0);
    uint64_t ki = repdl__asuint64(z), j = ki & 255u;
    double kd = repdl__dsub(z, 6755399441055744.0 /* 0x1.8p52 */);
    double r = repdl__dsub(a, repdl__dkeep(repdl__dmul(kd, 0.0027076061740558544 /* 0x1.62e42fefap-9 */)));
    double s, r2, p, sr, sr2;
    r = repdl__dsub(r, repdl__dkeep(repdl__dmul(kd, 6.432011555819173e-15 /* 0x1.cf79abc9e3b3ap-48 */)));
    s = repdl__asdouble(repdl__exp2_256_bits(j) + (ki << 44));
    r2 = repdl__dmul(r, r);
    p = repdl__dadd(0.5000000000000233, repdl__dkeep(repdl__dmul(r, 0.16666668003889068)));
    p = repdl__dadd(p, repdl__dkeep(repdl__dmul(r2, 0.0416666536383358 /* 0x1.55554e56bbb14p-5 */)));
    sr = repdl__dkeep(repdl__dmul(s, r));
    sr2 = repdl__dmul(s, r2);
    return repdl__dadd(s, repdl__dadd(sr, repdl__dkeep(repdl__dmul(sr2, p))));
}

/* Horner c[0] + v (c[1] + v (... c[n-1])), products behind dkeep. */
REPDL_FN double repdl__act_horner(const double *c, int n, double v)
{
    double h = c[n - 1];
    int k;
    for (k = n - 2; k >= 0; k--) h = repdl__dadd(c[k], repdl__dkeep(repdl__dmul(h, v)));
    return h;
}

/* Q(u) = Phi(-u) = erfc(u / sqrt 2) / 2 for a binary32 0 <= u < 15, and
   *e = exp(-u^2/2).  Polynomials: reference/gen/nn_act.sollya (relative
   errors: P1 2^-53.8 (dirty), R1 2^-48.26, R2 2^-52.49, R3 2^-51.30
   (supnorm)).
     u < 1:       Q = 1/2 - u P1(u^2)       (P1 ~ erf(u/sqrt2)/(2u), Q > 0.158)
     1 <= u < 2:  Q = e R1(u)
     2 <= u < 4:  Q = e R2(1/u)
     u >= 4:      Q = e R3(1/u)
   |Q~ / Q - 1| < 2^-45 (reference/gen/nn_act.py measures it, with e's
   error and the evaluation's). */
REPDL_FN double repdl__gelu_q(double u, double *e)
{
    static const double P1[11] = {
        0.3989422804014327, -0.06649038006690723, 0.009973557010073532,
        -0.0011873282158456019, 0.00011543468955462453, -9.444662414146145e-06,
        6.659814828684324e-07, -4.1241488624332536e-08, 2.2841478758594596e-09,
        -1.167203022744101e-10, 5.227252589479909e-12};
    static const double R1[13] = {
        0.49999589797759914, -0.3989033720991461, 0.24982939833341958,
        -0.13252195252913576, 0.06165311880193879, -0.02545818830167389,
        0.009263781589221889, -0.00289836274912385, 0.0007493218639870174,
        -0.0001515920821662005, 2.2230217741390536e-05, -2.08203346974257e-06,
        9.287593035517013e-08 /* 0x1.8ee62a556d7eep-24 */};
    static const double R2[15] = {
        -3.256895254957147e-06, 0.39907329261219726, -0.002372457850640244,
        -0.37385351857433735, -0.16505259985049547, 1.817881821636288,
        -0.43490633854026794, -15.285143140092648, 57.06579300758222,
        -118.32403829806168, 164.0837785933804, -156.90363045271062,
        100.35143880460974, -38.905717359686314, 6.9431821781694385};
    static const double R3[15] = {
        -4.2153652643488886e-10, 0.39894233201554957, -2.910714805247264e-06,
        -0.39884200032945244, -0.002359725079959959, 1.2369701339488666,
        -0.5091699166497038, -1.0981217576303521, -35.50640260160858,
        234.31592917344253, -744.7515228529644, 1458.9978313088143,
        -1812.5714175193727, 1322.9015031317967, -434.1920086281164};
    double w = repdl__dmul(u, u);                    /* exact: u is a binary32 */
    *e = repdl__act_exp(repdl__dmul(w, -0.5));      /* -u^2/2, exact */
    if (u < 1.0)
        return repdl__dsub(0.5, repdl__dkeep(repdl__dmul(u, repdl__act_horner(P1, 11, w))));
    if (u < 2.0) return repdl__dkeep(repdl__dmul(*e, repdl__act_horner(R1, 13, u)));
    if (u < 4.0) return repdl__dkeep(repdl__dmul(*e, repdl__act_horner(R2, 15, repdl__ddiv(1.0, u))));
    return repdl__dkeep(repdl__dmul(*e, repdl__act_horner(R3, 15, repdl__ddiv(1.0, u))));
}

/* ---- gelu, erf form: x Phi(x) = x/2 (1 + erf(x / sqrt 2)), correctly rounded ----
   repdl_gelu_f32(x) is gelu(x) rounded to nearest-even binary32 for every
   binary32 x (all 2^32 inputs proven against MPFR, docs/functions/geluf.md);
   gelu(+-0) = +-0, gelu(+inf) = +inf, gelu(-inf) = -0 (the limit), NaN ->
   the canonical NaN.
   Algorithm, in double, u = |x|:
     Phi(x) = 1 - Q(u) (x > 0),  Q(u) (x < 0),  Q(u) = Phi(-u) = e S(u),
     e = exp(-u^2/2) (repdl__act_exp below: u^2/2 is exact, |e / exp - 1|
     < 1.9 2^-53), S(u) = Q(u) exp(u^2/2) from 29 polynomials of degree 13
     (reference/gen/geluf.sollya: piece 0 on [0, 1/2) in u, piece i on
     [i/2, (i+1)/2) in u - (i/2 + 1/4), exact; relative errors < 2^-53.18, the rounding of the
     constant coefficients dominating);
     y = x (e S) or x (1 - e S).  Since Q <= 1/2, 1 - Q carries at most Q's
     relative error plus one rounding.  S within 4.51 2^-53 (approximation
     and Horner evaluation, bounded in exact rational arithmetic by
     reference/gen/act_cr.py), Q = e S within 7.41 2^-53, |y / gelu(x) - 1|
     < 9.41 2^-53 on every path, fused or not; with the test's 2^-53,
     10.41 2^-53 < E = 2^-49.  Rounding test (detail/cr.h):
     repdl__round_ok_normal(y, 16) where the result is normal, then
     repdl__round_ok(y, 2^-49); the other inputs in detail/geluf_hard.inc.
   Exactly handled (reference/gen/act_cr.py finds the thresholds):
     x >= 0x1.5ae102p+2:     Q(x) < 2^-25: x (1 - Q) rounds to x (+inf too);
     x <= -0x1.cb64eap+3:    |gelu(x)| = u Q(u) <= 2^-150 (never equal): -0
                             (-inf too);
     |x| < 2^-60:            gelu(x) = x/2 + x^2/sqrt(2 pi) + O(x^4) lies above
                             x/2 (both signs) by less than 2^-61 |x/2|: as
                             silu's tiny range, x/2 moved one binary64 ulp
                             towards +inf rounds correctly; +-0 -> +-0. */
#define REPDL__GELUF_ERR 1.7763568394002505e-15 /* 0x1p-49 */

/* S's 29 polynomials (degree 0 to 13).  From reference/gen/act_cr.py. */
REPDL_FN const double *repdl__gelu_s_coeffs(uint32_t i)
{
    static const double C[29][14] = {
        {0.5, -0.3989422804014326, 0.24999999999998657, -0.13298076013307575, 0.06249999997967358, -0.026596151694216603, 0.010416663158888641, -0.0037994251980725618, 0.001301958023144033, -0.0004217181546339434, 0.00012909931367096757, -3.643863966913475e-05, 8.553758725615924e-06, -1.2112031709756873e-06},
        {0.30023246233995093, -0.17376793364646947, 0.08495325605255044, -0.03668433053568653, 0.014360002037569566, -0.00518286580137684, 0.0017454754543341738, -0.0005533941798148128, 0.00016630356896223274, -4.762943022758768e-05, 1.3059741962084772e-05, -3.441741275539966e-06, 8.71826755040475e-07, -2.0509157457356755e-07},
        {0.23076032130563176, -0.11049187876939295, 0.04632273642195101, -0.017529486080657908, 0.006102719704548435, -0.0019802172892453922, 0.0006045747224011781, -0.0001749284517036107, 4.823819878253369e-05, -1.2735717084965447e-05, 3.2454923543147952e-06, -8.019785576422156e-07, 1.209699968612041e-07, 1.3473683154510693e-08},
        {0.18523166467823896, -0.0747868672145145, 0.027177323526421632, -0.009075517014427718, 0.0028237921874936954, -0.0008267761370263537, 0.0002294890077208595, -6.0738636981408775e-05, 1.5399111057407736e-05, -3.754150183362617e-06, 8.8852920078408e-07, -2.0390569821871957e-07, 1.6998682777813418e-08, 6.025633166939096e-09},
        {0.15365193742384164, -0.053225421197788995, 0.01694736986440565, -0.005031279667621356, 0.0014067476533910581, -0.00037321948991262516, 9.450061559280172e-05, -2.294185194835212e-05, 5.3606588553010166e-06, -1.2094297307475278e-06, 2.578361661741376e-07, -5.1114968027278664e-08, 4.183656322730871e-08, -2.5818085623413014e-08},
        {0.13072473410074711, -0.03944926162437811, 0.011119632316853704, -0.002956757584344304, 0.0007471372399705053, -0.0001804260348002841, 4.182760771043667e-05, -9.342877393669925e-06, 2.0168283707470874e-06, -4.217475870617678e-07, 8.58016145547292e-08, -1.8038578987840374e-08, 2.6636867863147858e-09, 4.532235398993379e-09},
        {0.11345206212929865, -0.0302230784812121, 0.0076135285326765865, -0.0018263702499997385, 0.000419456305438291, -9.262745189948518e-05, 1.9736159521452104e-05, -4.069256116705074e-06, 8.144604747744604e-07, -1.5851002863679522e-07, 2.2570254320104548e-08, -2.0167481424074638e-09, 3.739554041786177e-08, -1.7631469532668615e-08},
        {0.10003920963545321, -0.023795244268483163, 0.005403521814319139, -0.0011773458215927992, 0.0002471187460329632, -5.013010503669639e-05, 9.855131253777891e-06, -1.8818979616784612e-06, 3.500386598150265e-07, -6.350999557910823e-08, 7.523302698204053e-09, -1.5922739714468544e-10, 1.8487966088432594e-08, -8.815840820004359e-09},
        {0.08935931861967142, -0.019165176267829143, 0.003953659740699379, -0.000787374123286713, 0.00015182992910597117, -2.8419384817695152e-05, 5.174594812069323e-06, -9.18198272507432e-07, 1.5891947172249458e-07, -2.6873664595605334e-08, 5.901164334059642e-09, -1.3596201232550016e-09, -6.976692585124704e-09, 3.1073757245168376e-09},
        {0.08067539917254936, -0.015734134331823208, 0.0029691305481960137, -0.0005435880759669273, 9.677179665228995e-05, -1.6784408123024156e-05, 2.8409865399581048e-06, -4.69971276164312e-07, 7.580634079743215e-08, -1.1958205672578178e-08, 5.367085280741552e-09, -1.6633232411199518e-09, -1.7142768396144365e-08, 6.771232750852669e-09},
        {0.07348823085269288, -0.013129068424795097, 0.0022803108112577465, -0.0003858122218939642, 6.369916177830672e-05, -1.0278324798654645e-05, 1.622981818767761e-06, -2.510833238595845e-07, 3.839075251052768e-08, -5.78571358850888e-09, -2.9181614843366186e-09, 1.294662887980092e-09, 1.847394188573017e-08, -6.9456140595184285e-09},
        {0.0674492313514587, -0.011109200130545227, 0.0017856653004089127, -0.00028054155105832395, 4.313784582777393e-05, -6.499788040672125e-06, 9.606570441756691e-07, -1.3940742336669652e-07, 2.042616843708776e-08, -2.945376910630289e-09, -6.588531452107154e-09, 1.981433468693607e-09, 3.434089386160803e-08, -1.0098198432167755e-08},
        {0.062308486908362076, -0.009514237224169695, 0.0014222521286511697, -0.00020838714003432792, 2.9958125804343143e-05, -4.229770665103549e-06, 5.870128620344784e-07, -8.013798112157104e-08, 1.0688819111234958e-08, -1.3999331413889598e-09, 1.2147682609541146e-09, -3.505009842974046e-10, -5.062225688958318e-09, 1.6043704733802714e-09},
        {0.057882631723879995, -0.008234516265242702, 0.0011498234667466725, -0.0001577359549031325, 2.1276442686138643e-05, -2.8239931643447917e-06, 3.690870288535238e-07, -4.753034165813137e-08, 5.884387183170263e-09, -6.867405220004753e-10, 2.0050448838607466e-09, -8.666338750380669e-10, -9.410718333115109e-09, 4.1177325541650934e-09},
        {0.05403435940923554, -0.007193174684475032, 0.0009419214733953276, -0.00012141466745175311, 1.54162836500283e-05, -1.9293222976047017e-06, 2.3811301420126022e-07, -2.899626020334086e-08, 3.570166782222632e-09, -4.3732661152306597e-10, -1.0306695751039443e-09, 2.939837581461254e-10, 5.314048873546089e-09, -1.4719322462653906e-09},
        {0.05065898233519691, -0.006335167303656634, 0.0007807178659284621, -9.486794756891352e-05, 1.1372818136091193e-05, -1.3457215179730997e-06, 1.5724229204890358e-07, -1.8151538460308598e-08, 2.1714649032949646e-09, -2.490211082028748e-10, -1.260819615655328e-09, 2.0431428681576412e-10, 6.336065510656853e-09, -1.055108641675848e-09},
        {0.04767539072655085, -0.005620306907388147, 0.0006539293702993164, -7.512986747300987e-05, 8.526990912385541e-06, -9.564384805753608e-07, 1.060622037124027e-07, -1.1632598864391963e-08, 1.262772394950578e-09, -1.2495609781609917e-10, 6.010210554132123e-12, -1.2621377085691444e-10, 4.1448521137824804e-11, 5.757754627071348e-10},
        {0.04501983300125158, -0.0050187416404813895, 0.0005529218235190426, -6.0225228227744876e-05, 6.4877692168826796e-06, -6.914496929147056e-07, 7.29260607620479e-08, -7.613652227105792e-09, 9.126519830362966e-10, -1.175834788221597e-10, -1.5956725880657116e-09, 4.6338894756196917e-10, 7.896290436067647e-09, -2.2537890838699533e-09},
        {0.04264154944410702, -0.004507948043442693, 0.00047151502113216946, -4.881136599374385e-05, 5.002471279920313e-06, -5.07701033801407e-07, 5.1047266634240555e-08, -5.085541897529444e-09, 2.9273460019300186e-10, -2.0764530428679113e-12, 2.681219448061358e-09, -5.998003095342881e-10, -1.317691189344495e-08, 2.941303822080293e-09},
        {0.040499650305367736, -0.00407068992409723, 0.0004052117727107741, -3.995838005888126e-05, 3.904391668848184e-06, -3.781120049992393e-07, 3.630625547406974e-08, -3.4568668766804022e-09, 1.570388219874232e-10, 7.766952553198518e-12, 2.168251144038927e-09, -4.865681794782666e-10, -1.0660843976671194e-08, 2.3793147027808468e-09},
        {0.03856084623888273, -0.0036936064528847274, 0.00035069004840624827, -3.301115223705785e-05, 3.0814346077065577e-06, -2.852897528780921e-07, 2.619621295867491e-08, -2.3867792365002557e-09, 3.823223339926663e-10, -4.70833779265583e-11, -2.1280832855548343e-09, 3.5865212527873976e-10, 1.0485583685291996e-08, -1.7817016288316907e-09},
        {0.03679777319643005, -0.0033662185398096313, 0.00030546194673790013, -2.7500870791012083e-05, 2.456896479355956e-06, -2.1784683869652533e-07, 1.9171322728759887e-08, -1.6747833327091582e-09, 2.1254495733876637e-10, -2.933951110460204e-11, -8.588333899229774e-10, 2.1071910925518162e-10, 4.233537471613458e-09, -1.0219170799369121e-09},
        {0.03518773883972102, -0.0030802184545711854, 0.0002676406128991292, -2.3087186491370887e-05, 1.977441021078144e-06, -1.6819452280418866e-07, 1.421955411126478e-08, -1.1942112462405182e-09, -1.8895452796980256e-10, 4.230104073658389e-11, 3.691708254717628e-09, -6.470052452421165e-10, -1.8171742103102736e-08, 3.185402904491804e-09},
        {0.033711772414414094, -0.0028289545320670743, 0.00023577833131283173, -1.9519713046469292e-05, 1.6054257739094433e-06, -1.3119209044396955e-07, 1.0652038703016821e-08, -8.59513236592992e-10, 9.784297628498664e-11, -1.0480065426798409e-11, -3.69342220326111e-10, 6.362288827570101e-11, 1.8204976427800117e-09, -3.129663053979113e-10},
        {0.032353896166432555, -0.0026070523626338855, 0.00020875236208336956, -1.6611975702739175e-05, 1.3139149772105468e-06, -1.0330356022601069e-07, 8.071870357329428e-09, -6.27350693704856e-10, 1.15656060354087e-10, -7.679029353354632e-12, -8.595304909432587e-10, 5.7379337060168554e-11, 4.233038623582526e-09, -3.071277310267203e-10},
        {0.031100560591563298, -0.0024101328590006212, 0.00018568331965309584, -1.4223511142944893e-05, 1.0833880930048287e-06, -8.20624570583623e-08, 6.184820556006974e-09, -4.633388679745179e-10, -4.1601168570426464e-11, 1.983526438583946e-12, 9.74599955266182e-10, -6.534071114604954e-11, -4.797211459876613e-09, 3.475145325581282e-10},
        {0.029940202293495033, -0.0022346000126235058, 0.00016587606311632602, -1.2247392108557598e-05, 8.995294789121539e-07, -6.572547402012671e-08, 4.774569947092688e-09, -3.448808104820545e-10, 1.1218168862289134e-10, -1.9757770466484035e-11, -1.1174716912370175e-09, 2.2525448976928378e-10, 5.502128470479137e-09, -1.0915322380132481e-09},
        {0.028862894617664746, -0.0020774794085424327, 0.00014877637510284515, -1.060141695803112e-05, 7.517230212807992e-07, -5.30451926411284e-08, 3.7231428167947576e-09, -2.602096310884663e-10, 7.485819598017037e-11, -6.365640052732021e-12, -7.2623048222715e-10, 6.844452218736455e-11, 3.5757897640947507e-09, -3.4792509304065767e-10},
        {0.02786006921131525, -0.001936294140190348, 0.0001339388568014003, -9.221810256847489e-06, 6.320151598942446e-07, -4.31188410679465e-08, 2.928634946729044e-09, -1.981766796334876e-10, 1.254142662627156e-11, 2.607065471731554e-12, 1.0184094593409631e-11, -4.147555899996117e-11, -4.984036471980982e-11, 1.9211399152289078e-10},
    };
    return C[i];
}

/* y ~ gelu(x) for 2^-60 <= |x|, -0x1.cb64eap+3 < x < 0x1.5ae102p+2 */
REPDL_FN double repdl__geluf_core(float x)
{
    uint32_t ux = repdl__asuint(x);
    float a = repdl__asfloat(ux & 0x7fffffffu);
    double u = repdl__f2d(a), xd = repdl__f2d(x);
    /* i = floor(2u) (2u exact, truncated), <= 28 */
    uint32_t i = (uint32_t)repdl__f2i_rz(repdl__fmul(a, 2.0f));
    const double *c = repdl__gelu_s_coeffs(i);
    /* t = u on piece 0, u - (i/2 + 1/4) on the others (exact: multiples of
       2^-24, |t| <= 1/4) */
    double t = i == 0u ? u : repdl__dsub(u, repdl__dadd(repdl__dmul((double)i, 0.5), 0.25));
    double h = c[13], e, q;
    int k;
    for (k = 12; k >= 0; k--) h = repdl__dadd(c[k], repdl__dmul(h, t));
    e = repdl__act_exp(repdl__dmul(repdl__dmul(u, u), -0.5));   /* -u^2/2 exact */
    q = repdl__dmul(e, h);
    return ux >> 31 ? repdl__dmul(xd, q) : repdl__dmul(xd, repdl__dsub(1.0, q));
}

REPDL_FN int repdl__geluf_y(float x, double *y)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    if (REPDL_UNLIKELY(ax < 0x21800000u || (ux >= 0x40ad7081u && ux < 0x80000000u) ||
                       ux >= 0xc165b275u))
        return 0;
    *y = repdl__geluf_core(x);
    return 1;
}

REPDL_API float repdl_gelu_f32(float x)
{
    double y;
    if (REPDL_UNLIKELY(!repdl__geluf_y(x, &y))) {
        uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
        if (ax > 0x7f800000u) return repdl__nanf();
        if (ax < 0x21800000u) return repdl__siluf_tiny(x);   /* the same rule: x/2 nudged up */
        return ux < 0x80000000u ? x : -0.0f;
    }
    /* x >= -13 (and |x| >= 2^-60): |gelu(x)| > 2^-125, normal; E = 2^-49: c = 16 */
    if (REPDL_LIKELY((repdl__asuint(x) <= 0xc1500000u) & repdl__round_ok_normal(y, 16u)))
        return repdl__d2f(y);
    if (REPDL_LIKELY(repdl__round_ok(y, REPDL__GELUF_ERR))) return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/geluf_hard.inc"
        };
        return repdl__hard_lookup(tab, (int)(sizeof tab / sizeof tab[0]), x, y);
    }
}
/* gelu'(x) = Phi(x) + x phi(x), phi(x) = exp(-x^2/2) / sqrt(2 pi):
   g = RN32(Phi + keep(x * e * RSQRT2PI)) in double, dx = dy * g (binary32).
   |x| >= 15: g = 1 for x > 0 (1 - Q + x phi, Q < 2^-160), -0 for x < 0
   (0 > g > x phi(x) > -2^-159). */
REPDL_API float repdl_gelu_backward_f32(float x, float dy)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    double u, q, e, phi;
    float g;
    if (REPDL_UNLIKELY(ax >= 0x41700000u)) {                /* |x| >= 15, inf, NaN */
        if (ax > 0x7f800000u) return repdl__nanf();
        g = ux < 0x80000000u ? 1.0f : -0.0f;
    } else {
        u = repdl__f2d(repdl__asfloat(ax));
        q = repdl__gelu_q(u, &e);
        phi = ux < 0x80000000u ? repdl__dsub(1.0, q) : q;
        g = repdl__d2f(repdl__dadd(phi, repdl__dkeep(repdl__dmul(repdl__dmul(repdl__f2d(x), e),
                                                                 0.3989422804014327 /* 0x1.9884533d43651p-2 */)))); /* RN(1/sqrt(2 pi)) */
    }
    return repdl__canon(repdl__fmul(dy, g));
}

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
    if (REPDL_LIKELY(repdl__round_ok(y, REPDL__SOFTPLUSF_ERR))) return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/softplusf_hard.inc"
        };
        return repdl__hard_lookup(tab, (int)(sizeof tab / sizeof tab[0]), x, y);
    }
}
/* softplus'(x) = sigma(x): dx = dy * sigma(x) (correctly rounded sigma);
   for x > 20 PyTorch passes dy through, and sigma(x) = 1 there: the same. */
REPDL_API float repdl_softplus_backward_f32(float x, float dy)
{
    return repdl__canon(repdl__fmul(dy, repdl_sigmoid_f32(x)));
}

/* ---- Array forms ----
   Each is the loop of its scalar function, bit for bit; sigmoid, silu and
   gelu_tanh get sigma from repdl_sigmoid_array_f32 (vectorizable) chunk by
   chunk; the others are plain loops. */
REPDL_API repdl_status repdl_relu_array_f32(size_t n, const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    size_t i;
    for (i = 0; i < n; i++) y[i] = repdl_relu_f32(x[i]);
    return REPDL_OK;
}
REPDL_API repdl_status repdl_relu_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    REPDL__FPENV_CHECK();
    size_t i;
    for (i = 0; i < n; i++) dx[i] = repdl_relu_backward_f32(x[i], dy[i]);
    return REPDL_OK;
}
REPDL_API repdl_status repdl_sigmoid_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    REPDL__FPENV_CHECK();
    size_t i;
    for (i = 0; i < n; i++) dx[i] = repdl_sigmoid_backward_f32(x[i], dy[i]);
    return REPDL_OK;
}
REPDL_API repdl_status repdl_silu_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    REPDL__FPENV_CHECK();
    size_t i;
    for (i = 0; i < n; i++) dx[i] = repdl_silu_backward_f32(x[i], dy[i]);
    return REPDL_OK;
}
REPDL_API repdl_status repdl_gelu_array_f32(size_t n, const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    size_t i;
    for (i = 0; i < n; i++) y[i] = repdl_gelu_f32(x[i]);
    return REPDL_OK;
}
REPDL_API repdl_status repdl_gelu_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    REPDL__FPENV_CHECK();
    size_t i;
    for (i = 0; i < n; i++) dx[i] = repdl_gelu_backward_f32(x[i], dy[i]);
    return REPDL_OK;
}
REPDL_API repdl_status repdl_gelu_tanh_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    REPDL__FPENV_CHECK();
    size_t i;
    for (i = 0; i < n; i++) dx[i] = repdl_gelu_tanh_backward_f32(x[i], dy[i]);
    return REPDL_OK;
}
REPDL_API repdl_status repdl_softplus_array_f32(size_t n, const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    size_t i;
    for (i = 0; i < n; i++) y[i] = repdl_softplus_f32(x[i]);
    return REPDL_OK;
}
REPDL_API repdl_status repdl_softplus_backward_array_f32(size_t n, const float *x, const float *dy, float *dx)
{
    REPDL__FPENV_CHECK();
    size_t i;
    for (i = 0; i < n; i++) dx[i] = repdl_softplus_backward_f32(x[i], dy[i]);
    return REPDL_OK;
}

/* out[i] = repdl_silu_f32(x[i]) bit for bit (detail/cr.h's skeleton) */
REPDL_API repdl_status repdl_silu_array_f32(size_t n, const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    REPDL__CR_ARRAY(n, x, y, repdl__silu_lane, repdl_silu_f32);
    return REPDL_OK;
}

/* out[i] = repdl_gelu_tanh_f32(x[i]) */
REPDL_API repdl_status repdl_gelu_tanh_array_f32(size_t n, const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    size_t i;
    for (i = 0; i < n; i++) y[i] = repdl_gelu_tanh_f32(x[i]);
    return REPDL_OK;
}

/* ---- bfloat16 and float16 forms of silu, softplus, gelu, gelu_tanh ----
   repdl_F_bf16(x), repdl_F_f16(x) and their array forms (half.h's bit
   patterns): F(x) rounded once to nearest-even in the 16-bit format of x,
   directly from the binary32 function's double approximation y
   (repdl__Ff_y, |y / F(x) - 1| < E on every path (REPDL__SILUF_ERR,
   REPDL__SOFTPLUSF_ERR, REPDL__GELUF_ERR, REPDL__GELU_TANHF_ERR), fused or
   not) by half.h's repdl__d_to_h: no binary32 rounding in between, which
   would be a double rounding (wrong on the inputs that
   tests/half/test_half_fn.c counts and asserts).  Why one rounding of y is
   correct in every build (half_math.h's margin proof): the test checks
   with MPFR, for all 2^16 inputs of each format, that F(x) lies farther
   than E from every rounding boundary of the format (subnormal ones and
   the one above the largest finite value included).
   Outside repdl__Ff_y's domain, exactly (the thresholds of the binary32
   functions above; each input is a binary32 value, so the binary32
   arguments hold):
     NaN:                       the format's canonical NaN;
     x at or above the upper    F(x) = x (1 - d), 0 < d < 2^-25 (softplus:
     threshold, +inf:           x + d, 0 < d < e^-16 < 2^-27 x), far inside
                                half an ulp of x (2^-9 x or more): x itself,
                                which the format holds (h is the answer);
     x beyond the lower         |F(x)| < 2^-150, far below half the least
     threshold, -inf:           subnormal of either format (2^-134, 2^-25):
                                -0 (silu, gelu, gelu_tanh), +0 (softplus);
     silu, gelu, gelu_tanh      F(x) lies above x/2 (towards +inf) by less
     at +-0 and 0 < |x|         than 2^-61 |x/2|; x/2 is a value of the
     < 2^-60 (bf16 only:        format or (x the least subnormals) a
     f16's least subnormal      midpoint, every other boundary at least
     is 2^-24):                 2^-10 |x/2| away: x/2 moved one binary64
                                ulp towards +inf (repdl__act_tiny_d) rounds
                                as F(x); +-0 -> +-0.
   Array forms: out may be x (in place), no other overlap; n = 0 accepts
   NULL.  silu, gelu_tanh: a branch-free pass (half_math.h's skeleton)
   answers the specials by selects and flags only 0 < |x| < 2^-60 for the
   scalar form.  gelu: the scalar form per element after a vectorized
   conversion of each chunk (REPDL__H_CONV_ARRAY: its y's pieces and exp
   made a branch-free lane 3x slower). */

/* The 16-bit result of silu, gelu or gelu_tanh outside their y's domain
   (above): h is x's pattern. */
REPDL_FN uint32_t repdl__act_h_special(uint32_t h, float x, int fmt)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    if (ax > 0x7f800000u) return REPDL__H_NAN(fmt);
    if (ax < 0x21800000u) return ax == 0u ? h : repdl__d_to_h(repdl__act_tiny_d(x), fmt);
    return ux < 0x80000000u ? h : 0x8000u;
}

/* The lane's argument for the approximation: x on y's domain, +0 (harmless)
   elsewhere; hi: the upper threshold's pattern (results x from it to +inf),
   lo: the lower one's (results -0 from it to -inf). */
REPDL_FN float repdl__act_h_arg(uint32_t ux, uint32_t hi, uint32_t lo)
{
    uint32_t ax = ux & 0x7fffffffu;
    int sp = ((ux >= hi) & (ux <= 0x7f800000u)) | ((ux >= lo) & (ux <= 0xff800000u)) |
             (ax > 0x7f800000u) | (ax < 0x21800000u);
    return repdl__asfloat(ux & (sp ? 0u : 0xffffffffu));
}

/* The lane's result: y rounded on y's domain, the specials by selects;
   0 < |x| < 2^-60 flagged for the scalar form. */
REPDL_FN uint32_t repdl__act_h_pick(uint32_t h, uint32_t ux, double y, int fmt, uint32_t hi,
                                    uint32_t lo, uint32_t *fail)
{
    uint32_t ax = ux & 0x7fffffffu;
    uint32_t same = (uint32_t)(((ux >= hi) & (ux <= 0x7f800000u)) | (ax == 0u));
    uint32_t zero = (uint32_t)((ux >= lo) & (ux <= 0xff800000u));
    uint32_t nan = (uint32_t)(ax > 0x7f800000u);
    uint32_t tiny = (uint32_t)((ax != 0u) & (ax < 0x21800000u));
    uint32_t sp = same | zero | nan | tiny;
    uint32_t r = repdl__d_to_h(y, fmt);
    *fail = tiny;
    return (r & (sp - 1u)) | (h & (0u - same)) | (0x8000u & (0u - zero)) |
           (REPDL__H_NAN(fmt) & (0u - nan));
}

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

/* gelu (erf form): y's domain 2^-60 <= |x|, -0x1.cb64eap+3 < x <
   0x1.5ae102p+2 */
REPDL_FN uint32_t repdl__gelu_hx(uint32_t h, float x, int fmt)   /* x = h as binary32 */
{
    double y;
    if (REPDL_LIKELY(repdl__geluf_y(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__act_h_special(h, x, fmt);
}
REPDL_FN uint32_t repdl__gelu_h(uint32_t h, int fmt)
{
    return repdl__gelu_hx(h, repdl__h_to_f32(h, fmt), fmt);
}

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

/* silu(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_silu_bf16(uint16_t x) { return (uint16_t)repdl__silu_h(x, REPDL__BF16); }
/* silu(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_silu_f16(uint16_t x) { return (uint16_t)repdl__silu_h(x, REPDL__F16); }
/* out[i] = repdl_silu_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_silu_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    REPDL__H_ARRAY(n, x, out, REPDL__BF16, repdl__silu_h_lane, repdl__silu_h);
    return REPDL_OK;
}
/* out[i] = repdl_silu_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_silu_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    REPDL__H_ARRAY(n, x, out, REPDL__F16, repdl__silu_h_lane, repdl__silu_h);
    return REPDL_OK;
}

/* softplus(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_softplus_bf16(uint16_t x) { return (uint16_t)repdl__softplus_h(x, REPDL__BF16); }
/* softplus(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_softplus_f16(uint16_t x) { return (uint16_t)repdl__softplus_h(x, REPDL__F16); }
/* out[i] = repdl_softplus_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_softplus_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    REPDL__H_SCALAR_ARRAY(n, x, out, REPDL__BF16, repdl__softplus_h);
    return REPDL_OK;
}
/* out[i] = repdl_softplus_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_softplus_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    REPDL__H_SCALAR_ARRAY(n, x, out, REPDL__F16, repdl__softplus_h);
    return REPDL_OK;
}

/* gelu(x) (erf form) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_gelu_bf16(uint16_t x) { return (uint16_t)repdl__gelu_h(x, REPDL__BF16); }
/* gelu(x) (erf form) correctly rounded to float16. */
REPDL_API uint16_t repdl_gelu_f16(uint16_t x) { return (uint16_t)repdl__gelu_h(x, REPDL__F16); }
/* out[i] = repdl_gelu_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_gelu_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    REPDL__H_CONV_ARRAY(n, x, out, REPDL__BF16, repdl__gelu_hx);
    return REPDL_OK;
}
/* out[i] = repdl_gelu_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_gelu_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    REPDL__H_CONV_ARRAY(n, x, out, REPDL__F16, repdl__gelu_hx);
    return REPDL_OK;
}

/* gelu_tanh(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_gelu_tanh_bf16(uint16_t x) { return (uint16_t)repdl__gelu_tanh_h(x, REPDL__BF16); }
/* gelu_tanh(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_gelu_tanh_f16(uint16_t x) { return (uint16_t)repdl__gelu_tanh_h(x, REPDL__F16); }
/* out[i] = repdl_gelu_tanh_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_gelu_tanh_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    REPDL__H_ARRAY(n, x, out, REPDL__BF16, repdl__gelu_tanh_h_lane, repdl__gelu_tanh_h);
    return REPDL_OK;
}
/* out[i] = repdl_gelu_tanh_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_gelu_tanh_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    REPDL__H_ARRAY(n, x, out, REPDL__F16, repdl__gelu_tanh_h_lane, repdl__gelu_tanh_h);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_ACTIVATION_H */
