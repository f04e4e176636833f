/* SPDX-License-Identifier: MIT */
/* repdl/tanh.h: correctly rounded hyperbolic tangent of a binary32 value.

   Accuracy: repdl_tanh_f32(x) is tanh(x) rounded to nearest-even binary32 for
   every binary32 x; tanh(+-0) = +-0, tanh(+-inf) = +-1, NaN -> the
   canonical NaN 0x7fc00000.  Proven by comparing all 2^32 inputs with MPFR,
   in both contracted and uncontracted builds (docs/functions/tanhf.md).

   Algorithm, in double, for t = 2|x|:
     tanh(|x|) = expm1(t) / (expm1(t) + 2)
     expm1(t)  = 2^(k/256) exp(r) - 1             (reduction of exp.h)
               = (s - 1) + s (q + rho (1 + q))     s = 2^(k>>8) T[k&255], T (1 + rho) = 2^(j/256),
                                                   q(r) ~ expm1(r), degree 5
   s - 1 is exact, so expm1(t) keeps a small relative error even for small t
   (k = 0 gives s = 1, rho = 0: expm1(t) = q(t)).  |y / tanh(x) - 1| < 2^-50.24,
   y is rounded to binary32 when a rounding test proves that correct (the
   integer test repdl__round_ok_normal of detail/cr.h, then repdl__round_ok of
   detail/cr.h); the few other inputs are listed in detail/tanhf_hard.inc.
   Exactly handled, outside that path:
     |x| < 2^-12:            tanh(x) rounds to x (tanh(x) = x - x^3/3 + ...
                             and x^3/3 is below half the gap under x);
     |x| >= 0x1.205968p3:    tanh(|x|) > 1 - 2^-25, so it rounds to 1.

   Polynomial: reference/gen/tanhf.sollya; thresholds and error bound:
   reference/gen/tanhf.py.

   Also: repdl_tanh_array_f32(n, x, out), the same results for an array, in a
   form that compilers vectorize. */
#ifndef REPDL_TANH_H
#define REPDL_TANH_H

#include "config.h"
#include "detail/cr.h"
#include "exp.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__tanhf_y's y on every path (fused or not),
   including the 2^-53 rounding of the rounding test's own products:
   7.77 2^-53 (reference/gen/tanhf.py, worst near t = ln2/512), rounded up. */
#define REPDL__TANHF_ERR 8.881784197001252e-16 /* 0x1p-50 */

/* y ~ tanh(x) for 2^-12 <= |x| < 0x1.205968p3 (no special-case test). */
REPDL_FN double repdl__tanhf_core(float x)
{
    uint32_t ux = repdl__asuint(x);
    double t = repdl__dmul(repdl__f2d(repdl__asfloat(ux & 0x7fffffffu)), 2.0);   /* 2|x|, exact */
    uint64_t sign = (uint64_t)(ux >> 31) << 63;
    double s, rho, r, r2, a, b, c, v, w, em1;
    uint64_t j;
    r = repdl__exp_reduce(t, &s, &j);                             /* k >= 0, so s >= 1 */
    rho = repdl__exp2_256_rho(j);
    /* expm1(r) ~ q(r) = r + r2 c: degree-5, Sollya (reference/gen/tanhf.sollya),
       [-0x1.63p-10, 0x1.63p-10], |q(r) / expm1(r) - 1| < 2^-61.11 */
    r2 = repdl__dmul(r, r);
    a = repdl__dadd(0.49999999999999856, repdl__dmul(r, 0.16666666666666705));
    b = repdl__dadd(0.041666669839777515, repdl__dmul(r, 0.008333333408896167));
    c = repdl__dadd(a, repdl__dmul(r2, b));
    /* w = r + rho (1 + r) + r2 c ~ q + rho (1 + q), off by rho r2 c
       (< 2^-53 2^-20, against em1 > 2^-9.6 whenever rho != 0, as k >= 1).
       |rho (1 + r)| < 2^-52.9, computed with an error < 2^-105; v and w
       round by <= 2^-53 of their size each; the roundings of r2, a, b, c
       and r2 c add up to < 2^-71 (reference/gen/tanhf.py), fused or not.
       v does not wait for the polynomial. */
    v = repdl__dadd(r, repdl__dadd(rho, repdl__dmul(rho, r)));
    w = repdl__dadd(v, repdl__dmul(r2, c));
    /* exp(t) ~ s (1 + rho)(1 + q) = 1 + (s - 1) + s w.  s - 1 is exact:
       s >= 1 is a multiple of ulp(s) <= 1, and so is s - 1 < s.  s w and the
       sum round by <= 2^-53 of their size each (one rounding if fused). */
    em1 = repdl__dadd(repdl__dsub(s, 1.0), repdl__dmul(s, w));
    /* |em1 / expm1(t) - 1| < 4.77 2^-53 (reference/gen/tanhf.py; worst for
       k = 1, where s w is as large as em1).
       tanh(|x|) = em1 / (em1 + 2): em1 + 2 and the division round by
       <= 2^-53 each; expm1's relative error reaches tanh scaled by
       2 / (em1 + 2) <= 1: |y / tanh(x) - 1| < 6.77 2^-53.  The numerator
       takes x's sign (exact), which gives tanh(x), tanh being odd. */
    return repdl__ddiv(repdl__asdouble(repdl__asuint64(em1) | sign), repdl__dadd(em1, 2.0));
}

/* 1 with *y ~ tanh(x), |*y / tanh(x) - 1| < REPDL__TANHF_ERR - 2^-53, when
   2^-12 <= |x| < 0x1.205968p3; 0 for the special cases that repdl_tanh_f32
   answers exactly: NaN, +-inf, |x| >= 0x1.205968p3 (+-1), |x| < 2^-12 (x). */
REPDL_FN int repdl__tanhf_y(float x, double *y)
{
    uint32_t ax = repdl__asuint(x) & 0x7fffffffu;
    if (REPDL_UNLIKELY(ax - 0x39800000u >= 0x41102cb4u - 0x39800000u))  /* |x| < 2^-12 or >= 0x1.205968p3, inf, NaN */
        return 0;
    *y = repdl__tanhf_core(x);
    return 1;
}

/* tanh(x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_tanh_f32(float x)
{
    double y;
    if (REPDL_UNLIKELY(!repdl__tanhf_y(x, &y))) {
        uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
        if (ax > 0x7f800000u) return repdl__nanf();
        if (ax < 0x39800000u) return x;                              /* tanh(x) rounds to x, +-0 included */
        return repdl__asfloat((ux & 0x80000000u) | 0x3f800000u);      /* +-1 */
    }
    /* 2^-12 <= |tanh(x)| < 1: a normal binary32; REPDL__TANHF_ERR = 2^-50
       gives c = 8 (exp.h) */
    if (REPDL_LIKELY(repdl__round_ok_normal(y, 8u))) return repdl__d2f(y);
    if (REPDL_LIKELY(repdl__round_ok(y, REPDL__TANHF_ERR))) return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/tanhf_hard.inc"
        };
        return repdl__hard_lookup(tab, (int)(sizeof tab / sizeof tab[0]), x, y);
    }
}

/* One element of repdl_tanh_array_f32's branch-free pass (detail/cr.h's
   skeleton): tiny, saturated and NaN inputs answered by selects; flagged
   for repdl_tanh_f32: the elements whose fast rounding test failed. */
REPDL_FN uint32_t repdl__tanh_lane(uint32_t ux, uint32_t *fail)
{
    uint32_t ax = ux & 0x7fffffffu;
    /* the cases repdl__tanhf_y answers 0 for, as selects */
    int tiny = ax < 0x39800000u;                               /* x */
    int sat = (ax >= 0x41102cb4u) & (ax <= 0x7f800000u);       /* +-1 */
    int nan = ax > 0x7f800000u;
    int sp = tiny | sat | nan;
    /* specials run the approximation on a harmless argument, as in
       repdl__exp_lane */
    double y = repdl__tanhf_core(repdl__asfloat(ux & (sp ? 0x807fffffu : 0xffffffffu)));
    uint32_t r = repdl__asuint(repdl__d2f(y));
    uint32_t spm = 0u - (uint32_t)sp;
    *fail = (uint32_t)(!sp & !repdl__round_ok_normal(y, 8u));
    return (r & ~spm) | (ux & (0u - (uint32_t)tiny)) |
           (((ux & 0x80000000u) | 0x3f800000u) & (0u - (uint32_t)sat)) |
           (REPDL_NAN_BITS & (0u - (uint32_t)nan));
}

/* The array form: out[i] = repdl_tanh_f32(x[i]) for 0 <= i < n, bit for bit
   (detail/cr.h's skeleton).  out may be x itself (in place), otherwise the
   two must not overlap; n = 0 accepts NULL pointers. */
REPDL_API void repdl_tanh_array_f32(size_t n, const float *x, float *out)
{
    REPDL__CR_ARRAY(n, x, out, repdl__tanh_lane, repdl_tanh_f32);
}

REPDL_END_CODE
#endif /* REPDL_TANH_H */
