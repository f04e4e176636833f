/* SPDX-License-Identifier: MIT */
/* repdl/tanh.h: correctly rounded hyperbolic tangent of a binary32 value.

   Accuracy: repdl_tanh_f32(x) is tanh(x) rounded to nearest-even binary32 for
   every binary32 x; tanh(+-0) = +-0, tanh(+-inf) = +-1, NaN -> the
   canonical NaN 0x7fc00000.  Proven by comparing all 2^32 inputs with MPFR,
   in both contracted and uncontracted builds (docs/functions/tanhf.md).

   Two approximations in double, each followed by a rounding test (detail/
   cr.h): y is rounded to binary32 only where the test proves that rounding
   correct.

   Fast path, 2^-8 <= |x| < 16 (repdl__tanhf_fast): with
   w = x (-512/ln2) = k + d, k = round(w), |d| <= 1/2,
     exp(-2x)  = 2^(w/256) = sigma 2^(d/256),  sigma = 2^(k>>8) T[k&255] ~ 2^(k/256)
     tanh(x)   = (exp(2x) - 1) / (exp(2x) + 1) = (P - sigma) / (P + sigma)
     P         ~ 2^(-d/256) = 1 + f1 d + f2 d^2 + f3 d^3   (degree 3)
   T is exp.h's table (detail/exp_table.h).  One division, no special case
   inside the range (for 9.01 <= |x| < 16, y rounds to +-1 by itself).  |y / tanh(x) - 1| <
   2^-38.41 (reference/gen/tanhf.py, fused or not), which the integer test
   repdl__round_ok_normal(y, REPDL__TANHF_FAST_C) covers; it fails on about
   one input in 2^13, which then takes the accurate path, as do
   2^-12 <= |x| < 2^-8, where the fast path's error is larger.

   Accurate path (repdl__tanhf_y, every 2^-12 <= |x| < 0x1.205968p3), for
   t = 2|x| (exact):
     tanh(|x|) = expm1(t) / (expm1(t) + 2)
     expm1(t)  = 2^(k/256) exp(r) - 1             (reduction of exp.h)
               = (s - 1) + s (q + rho (1 + q))     s = 2^(k>>8) T[k&255], T (1 + rho) = 2^(j/256),
                                                   q(r) ~ expm1(r), degree 5
   s - 1 is exact, so expm1(t) keeps a small relative error even for small t
   (k = 0 gives s = 1, rho = 0: expm1(t) = q(t)).  |y / tanh(x) - 1| < 2^-50.24,
   y is rounded to binary32 when a rounding test proves that correct (the
   integer test repdl__round_ok_normal of detail/cr.h, then repdl__round_ok of
   detail/cr.h); the few other inputs are listed in detail/tanhf_hard.inc.
   Exactly handled, outside both:
     |x| < 2^-12:            tanh(x) rounds to x (tanh(x) = x - x^3/3 + ...
                             and x^3/3 is below half the gap under x);
     |x| >= 0x1.205968p3:    tanh(|x|) > 1 - 2^-25, so it rounds to 1.

   Polynomials: reference/gen/tanhf.sollya; thresholds and error bounds:
   reference/gen/tanhf.py.

   Also: repdl_tanh_array_f32(n, x, out), the same results for an array, in a
   form that compilers vectorize. */
#ifndef REPDL_TANH_H
#define REPDL_TANH_H

#include "config.h"
#include "detail/cr.h"
#include "detail/exp_table.h"
REPDL_BEGIN_CODE

/* c of repdl__round_ok_normal for repdl__tanhf_fast's y: its relative
   error is below 2^-38.41 = 24680 2^-53 < (c - 1) 2^-53 / (1 + 2^-50) on
   every path (reference/gen/tanhf.py).  The test fails with probability
   about 2c / 2^29 = 2^-13. */
#define REPDL__TANHF_FAST_C 0x8000u /* 2^15 */

/* y ~ tanh(x) for 2^-8 <= |x| < 16 (no special-case test), the fast path.
   |y / tanh(x) - 1| < 2^-38.41 fused or not (reference/gen/tanhf.py, per k
   and sub-interval of d; the error is largest for small |x|, where the
   cancellation in P - sigma amplifies P's absolute error: 2^-38.4 for |x|
   in [2^-8, 2^-7), 2^-43.2 in [2^-3, 2^-2), 2^-51.3 above 4). */
REPDL_FN double repdl__tanhf_fast(float x)
{
    double xd = repdl__f2d(x);
    /* w = x (-512/ln2): the constant has relative error 0.13 2^-53, the
       product rounds by <= 2^-53 |w| (fused into z or d below, it is exact
       there): d is within 1.13 2^-53 |w| of x (-512/ln2) - k, which moves
       2^(-d/256) by < 2.3 |x| 2^-53 relative. */
    double w = repdl__dmul(xd, -738.6598609351493);
    /* z = w + 0x1.8p52 rounds w to the integer k (|w| < 11819 < 2^51) in
       z's low bits; kd = k exactly; d = w - k exactly (Sterbenz).  Fused,
       z and d use the exact product instead of w (k = round(x C),
       d = RN(x C - k)); either way |d| <= 1/2 + 2^-40. */
    double z = repdl__dadd(w, 6755399441055744.0);
    uint64_t ki = repdl__asuint64(z);
    double kd = repdl__dsub(z, 6755399441055744.0);
    double d = repdl__dsub(w, kd);
    /* sigma = 2^(k>>8) T[k&255], exact (ki << 44 adds k>>8 to the exponent,
       exp.h), |sigma / 2^(k/256) - 1| < 0.851 2^-53 */
    double sg = repdl__asdouble(repdl__exp2_256_bits(ki & 255u) + (ki << 44));
    /* P ~ 2^(-d/256): degree-3, Sollya (reference/gen/tanhf.sollya),
       |d| <= 1/2 + 2^-30, |P(d) - 2^(-d/256)| < 2^-45.24; its evaluation
       rounds by < 2^-52 absolute, fused or not. */
    double d2 = repdl__dmul(d, d);
    double P = repdl__dadd(repdl__dadd(1.0, repdl__dmul(d, -0.002707606174062255)),
                           repdl__dmul(d2, repdl__dadd(3.665566060704176e-06,
                                                       repdl__dmul(d, -3.3083031092022797e-09))));
    /* tanh(x) = (P - sigma) / (P + sigma): three more roundings of 2^-53
       each; P's and sigma's errors reach y scaled by 2 sigma / |P^2 - sigma^2|
       and 2 P / |P^2 - sigma^2|, at most about 1 / (2 |x|). */
    return repdl__ddiv(repdl__dsub(P, sg), repdl__dadd(P, sg));
}

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

/* repdl_tanh_f32 off its fast path (|x| < 2^-8, |x| >= 16, NaN, and the
   fast rounding test's failures): the accurate path, its rounding tests
   and table, and the special inputs.  It takes x's bits, not x: then x's
   register is free once the fast path has converted it, and gcc -O2
   converts in place instead of zeroing another register first (one
   instruction fewer, 0.965x instead of 1.03x LLVM libc's time per call in
   a standalone loop, 2026-11-28). */
REPDL_FN_NOINLINE float repdl__tanhf_slow(uint32_t ux)
{
    float x = repdl__asfloat(ux);
    double y;
    if (REPDL_UNLIKELY(!repdl__tanhf_y(x, &y))) {
        uint32_t ax = ux & 0x7fffffffu;
        if (ax > 0x7f800000u) return repdl__nanf();
        if (ax < 0x39800000u) return x;                              /* tanh(x) rounds to x, +-0 included */
        return repdl__asfloat((ux & 0x80000000u) | 0x3f800000u);      /* +-1 */
    }
    if (REPDL_LIKELY(repdl__round_ok_normal(y, 8u))) return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/tanhf_hard.inc"
        };
        return repdl__cr_round(x, y, REPDL__TANHF_ERR, tab, REPDL__HARD_N(tab));
    }
}

/* 1 for the fast path's domain, 2^-8 <= |x| < 16 (ux = x's bits: ux 2
   drops the sign; 0x77000000 and 0x83000000 are 2^-8's and 16's bits
   times 2). */
REPDL_FN int repdl__tanhf_fast_in(uint32_t ux)
{
    return ux * 2u - 0x77000000u < 0x83000000u - 0x77000000u;
}

/* The bound of repdl__tanhf_y16's y: the fast path's 2^-38.41 (the
   larger), rounded up. */
#define REPDL__TANHF_Y16_ERR 3.637978807091713e-12 /* 0x1p-38 */

/* The y that the 16-bit calls round (half_math.h): repdl__tanhf_fast's on
   its domain 2^-8 <= |x| < 16, repdl__tanhf_y's elsewhere; 1 with *y,
   |*y / tanh(x) - 1| < REPDL__TANHF_Y16_ERR, or 0 where repdl__tanhf_y
   gives 0. */
REPDL_FN int repdl__tanhf_y16(float x, double *y)
{
    if (REPDL_LIKELY(repdl__tanhf_fast_in(repdl__asuint(x)))) {
        *y = repdl__tanhf_fast(x);
        return 1;
    }
    return repdl__tanhf_y(x, y);
}

/* tanh(x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_tanh_f32(float x)
{
    uint32_t ux = repdl__asuint(x);
    if (REPDL_LIKELY(repdl__tanhf_fast_in(ux))) {
        double y = repdl__tanhf_fast(x);
        if (REPDL_LIKELY(repdl__round_ok_normal(y, REPDL__TANHF_FAST_C))) return repdl__d2f(y);
    }
    return repdl__tanhf_slow(ux);
}

/* One element of repdl_tanh_array_f32's branch-free pass (detail/cr.h's
   skeleton): the fast path on 2^-8 <= |x| < 16; tiny (|x| < 2^-12),
   saturated (|x| >= 16, +-inf) and NaN inputs answered by selects; flagged
   for repdl_tanh_f32: 2^-12 <= |x| < 2^-8, and the elements whose fast
   rounding test failed. */
REPDL_FN uint32_t repdl__tanh_lane(uint32_t ux, uint32_t *fail)
{
    uint32_t ax = ux & 0x7fffffffu;
    int fast = repdl__tanhf_fast_in(ux);
    int tiny = ax < 0x39800000u;                                    /* x */
    int sat = (ax >= 0x41800000u) & (ax <= 0x7f800000u);            /* +-1 */
    int nan = ax > 0x7f800000u;
    int sp = tiny | sat | nan;
    /* other inputs run the approximation on a harmless argument, x with
       its exponent field cleared (as repdl__exp_lane) */
    double y = repdl__tanhf_fast(repdl__asfloat(ux & (fast ? 0xffffffffu : 0x807fffffu)));
    uint32_t r = repdl__asuint(repdl__d2f(y));
    uint32_t spm = 0u - (uint32_t)sp;
    *fail = (uint32_t)(!sp & !(fast & repdl__round_ok_normal(y, REPDL__TANHF_FAST_C)));
    return (r & ~spm) | (ux & (0u - (uint32_t)tiny)) |
           (((ux & 0x80000000u) | 0x3f800000u) & (0u - (uint32_t)sat)) |
           (REPDL_NAN_BITS & (0u - (uint32_t)nan));
}

/* The array form: out[i] = repdl_tanh_f32(x[i]) for 0 <= i < n, bit for bit
   (detail/cr.h's skeleton).  out may be x itself (in place), otherwise the
   two must not overlap; n = 0 accepts NULL pointers. */
REPDL_API repdl_status repdl_tanh_array_f32(size_t n, const float *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__CR_ARRAY(n, x, out, repdl__tanh_lane, repdl_tanh_f32);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_TANH_H */
