/* SPDX-License-Identifier: MIT */
/* repdl/expm1.h: correctly rounded exp(x) - 1 of a binary32 value.

   Accuracy: repdl_expm1_f32(x) is e^x - 1 rounded to nearest-even binary32
   for every binary32 x, overflow to +inf included; expm1(+-0) = +-0,
   expm1(x) = x for subnormal x (and every |x| < 2^-25), expm1(-inf) = -1,
   expm1(+inf) = +inf, NaN -> the canonical NaN 0x7fc00000.  Proven by
   comparing all 2^32 inputs with MPFR (docs/functions/expm1f.md).

   Fast path (repdl__expm1f_fast, since 2026-11-27), tried first on
   2^-25 <= |x| <= 87: exp.h's fast path minus 1 for |x| >= 1/16, a degree-6
   polynomial below (reference/gen/expm1f_fast.sollya); |y / expm1(x) - 1|
   < 2^-40.64 (reference/gen/expm1f.py), under a rounding test with
   c = 2^13.  Where that test fails (about 2^-15 of the inputs), the
   algorithm below decides.

   Algorithm, in double (tanh.h's accurate path, on both signs):
     x = k ln2/256 + r                       (exp.h's reduction, |r| < 0x1.63p-10)
     e^x = 2^(k/256) e^r = s (1 + rho) (1 + q(r)),
                      s = 2^(k>>8) T[k&255], T (1 + rho) = 2^(j/256) (exp.h)
     e^x - 1 = (s - 1) + s w,   w = q + rho (1 + q) ~ r + rho (1 + r) + r^2 c(r)
   q(r) ~ expm1(r) is tanh.h's degree-5 polynomial (reference/gen/
   tanhf.sollya, relative error < 2^-61.11).  k = 0 (|x| < 0x1.62e4p-10)
   gives s = 1, rho = 0, r = x: y = q(x), whose error is relative to x,
   however small x is.  Elsewhere s - 1 is exact where it matters (s in
   [1/2, 2^53): Sterbenz below 2, s a multiple of ulp(s) <= 1 above) and
   rounds by <= 2^-53 |y| otherwise.  |y / expm1(x) - 1| < 4.78 2^-53 on every path,
   fused or not (reference/gen/expm1f.py, per k and sub-interval of r; the
   worst is for k = +-1, where s w is as large as y).
   Then y is rounded to binary32 when a rounding test proves that rounding
   correct (detail/cr.h's repdl__round_ok_normal, then repdl__round_ok); the
   few other inputs are listed, with their correctly rounded results, in
   detail/expm1f_hard.inc.
   Exactly handled, outside that path (reference/gen/expm1f.py checks each):
     |x| < 2^-25:              e^x - 1 = x (1 + x/2 + ...) lies between x and
                               the midpoint next to x (|x|/2 < 2^-26 of the
                               smallest half-gap 2^-25 |x|): x, +-0 and
                               subnormals included;
     x > 0x1.62e42ep6:         e^x - 1 >= FLT_MAX + ulp/2: +inf (+inf too);
     x < XLO = -0x1.154244p4:  -1 < e^x - 1 < -1 + 2^-25: -1 (-inf too);
     NaN:                      the canonical NaN.
   (no result is subnormal: |e^x - 1| >= 2^-25 (1 - 2^-25) elsewhere.)

   Thresholds and error bound: reference/gen/expm1f.py (--check checks
   this file).

   Also: repdl_expm1_array_f32(n, x, out), the same results for an array,
   in a form that compilers vectorize; repdl_expm1_bf16, repdl_expm1_f16
   and their array forms (half.h bit patterns), rounded once from y. */
#ifndef REPDL_EXPM1_H
#define REPDL_EXPM1_H

#include "config.h"
#include "detail/cr.h"
#include "detail/exp_table.h"
#include "exp.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__expm1f_y's y on every path (fused or
   not), including the 2^-53 rounding of the rounding test's own products:
   4.78 2^-53 + 2^-53 (reference/gen/expm1f.py), rounded up to 6 2^-53. */
#define REPDL__EXPM1F_ERR 6.661338147750939e-16 /* 0x1.8p-51 */

/* c of repdl__round_ok_normal: (c - 1) 2^-53 / (1 + 2^-50) above y's
   bound 4.78 2^-53 (reference/gen/expm1f.py). */
#define REPDL__EXPM1F_TOL 6u

/* y ~ e^x - 1 for 2^-25 <= |x|, XLO <= x <= 0x1.62e42ep6 (no special-case
   test; exp.h's reduction holds for |x| <= 104). */
REPDL_FN double repdl__expm1f_core(float x)
{
    double s, rho, r, r2, a, b, c, v, w;
    uint64_t j;
    r = repdl__exp_reduce(repdl__f2d(x), &s, &j);   /* |r - (x - k ln2/256)| < 2^-62.99 */
    rho = repdl__exp2_256_rho(j);                   /* |rho| < 2^-53, rho = 0 for j = 0 */
    /* expm1(r) ~ q(r) = r + r2 c: degree-5, Sollya (reference/gen/
       tanhf.sollya, tanh.h's polynomial), [-0x1.63p-10, 0x1.63p-10],
       |q(r) / expm1(r) - 1| < 2^-61.11 */
    r2 = repdl__dmul(r, r);
    a = repdl__dadd(0.49999999999999856, repdl__dmul(r, 0.16666666666666705));
    b = repdl__dadd(0.041666669839777515, repdl__dmul(r, 0.008333333408896167));
    c = repdl__dadd(a, repdl__dmul(r2, b));
    /* w = r + rho (1 + r) + r2 c ~ q + rho (1 + q), off by rho r2 c
       (< 2^-53 2^-20 absolute).  The roundings of r2, a, b, c, r2 c, rho r,
       rho + rho r, v and w are counted by reference/gen/expm1f.py. */
    v = repdl__dadd(r, repdl__dadd(rho, repdl__dmul(rho, r)));
    w = repdl__dadd(v, repdl__dmul(r2, c));
    /* e^x - 1 ~ (s - 1) + s w.  s - 1: exact for s in [1/2, 2^53) (Sterbenz
       below 2; above, s and 1 are multiples of ulp(s) <= 1 and so is s - 1,
       which is below s); otherwise it rounds, by <= 2^-54 when s < 1/2
       (|y| > 1/2 there) and by <= 1 <= 2^-53 |y| when s >= 2^53.  s w and
       the sum round by <= 2^-53 of their size each (one rounding if
       fused).  k = 0: s = 1, s - 1 = +0, y = w. */
    return repdl__dadd(repdl__dsub(s, 1.0), repdl__dmul(s, w));
}

/* 1 with *y ~ e^x - 1, |*y / expm1(x) - 1| < REPDL__EXPM1F_ERR - 2^-53,
   when 2^-25 <= |x| and XLO <= x <= 0x1.62e42ep6; 0 for the special cases
   that repdl_expm1_f32 answers exactly: NaN, |x| < 2^-25 (x),
   x > 0x1.62e42ep6 (+inf), x < XLO (-1). */
REPDL_FN int repdl__expm1f_y(float x, double *y)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    /* 0x33000000 = 2^-25; 0x42b17217 = 0x1.62e42ep6; 0xc18aa122 = XLO */
    if (REPDL_UNLIKELY((ax < 0x33000000u) | ((ux > 0x42b17217u) & ((ux < 0x80000000u) | (ux > 0xc18aa122u)))))
        return 0;
    *y = repdl__expm1f_core(x);
    return 1;
}

/* c of repdl__round_ok_normal for repdl__expm1f_fast's y: its relative
   error is below 2^-40.64 = 5265.7 2^-53 < (c - 1) 2^-53 / (1 + 2^-50)
   (reference/gen/expm1f.py).  The test fails for about 2c / 2^29 = 2^-15
   of the inputs. */
#define REPDL__EXPM1F_FAST_C 0x2000u /* 2^13 */

/* 1 for the fast path's domain, 2^-25 <= |x| <= 87, of the bits ux of x
   (0x33000000 = 2^-25, 0x0fae0000 = bits(87) - 0x33000000), where every
   result is a normal binary32 (|expm1(x)| in [2^-25.1, 2^125.6]). */
REPDL_FN uint32_t repdl__expm1f_fast_in(uint32_t ux)
{
    return (uint32_t)((ux & 0x7fffffffu) - 0x33000000u <= 0x0fae0000u);
}

/* y ~ e^x - 1 for 2^-25 <= |x| <= 87 (no special-case test; on other inputs
   a meaningless value, nothing undefined), the fast path:
     |x| >= 1/16:  y = E - 1, E = exp.h's repdl__expf_fast(x),
                   |E / e^x - 1| < 2^-44.68, magnified by at most
                   e^x / |e^x - 1| <= 1 / (1 - e^(-1/16)) = 16.5;
     |x| < 1/16:   y = x + x^2 p(x), degree 6 with the coefficient of x
                   exactly 1 (Sollya, reference/gen/expm1f_fast.sollya,
                   relative error < 2^-40.99), Estrin's scheme.
   |y / expm1(x) - 1| < 2^-40.64 on both, fused or not (reference/gen/
   expm1f.py). */
REPDL_FN double repdl__expm1f_fast(float x)
{
    if ((repdl__asuint(x) & 0x7fffffffu) >= 0x3d800000u)     /* |x| >= 1/16 */
        return repdl__dsub(repdl__expf_fast(x), 1.0);
    {
        double xd = repdl__f2d(x), x2 = repdl__dmul(xd, xd);
        double q0 = repdl__dadd(0.49999999999936323, repdl__dmul(xd, 0.16666666536257133));
        double q2 = repdl__dadd(repdl__dadd(0.04166666723139923, repdl__dmul(xd, 0.008334412437716623)),
                                repdl__dmul(x2, 0.0013888680209622583));
        return repdl__dadd(xd, repdl__dmul(x2, repdl__dadd(q0, repdl__dmul(x2, q2))));
    }
}

/* The exact results of the special inputs of repdl__expm1f_y. */
REPDL_FN float repdl__expm1f_special(float x)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    if (ax > 0x7f800000u) return repdl__nanf();
    if (ax < 0x33000000u) return x;                  /* x, +-0 and subnormals included */
    return ux < 0x80000000u ? repdl__asfloat(0x7f800000u) : repdl__asfloat(0xbf800000u);
}

/* repdl_expm1_f32 off its fast path: |x| < 2^-25, |x| > 87, inf, NaN and
   the fast rounding test's failures (the former path, unchanged). */
REPDL_FN_NOINLINE float repdl__expm1f_slow(float x)
{
    double y;
    if (REPDL_UNLIKELY(!repdl__expm1f_y(x, &y))) return repdl__expm1f_special(x);
    /* every y here rounds to a normal binary32 (|y| in [2^-25.1, 2^128)) */
    if (REPDL_LIKELY(repdl__round_ok_normal(y, REPDL__EXPM1F_TOL))) return repdl__d2f(y);
    {
        /* inputs whose y fails the test with 4E, with MPFR's results
           (reference/hardcases.c) */
        static const repdl__hardcase tab[] = {
#include "detail/expm1f_hard.inc"
        };
        return repdl__cr_round(x, y, REPDL__EXPM1F_ERR, tab, REPDL__HARD_N(tab));
    }
}

/* expm1(x) = e^x - 1 correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_expm1_f32(float x)
{
    /* The fast path runs on every input, so that one branch tests both its
       domain and its rounding test. */
    double y = repdl__expm1f_fast(x);
    if (REPDL_LIKELY(repdl__expm1f_fast_in(repdl__asuint(x)) &
                     repdl__round_ok_normal(y, REPDL__EXPM1F_FAST_C)))
        return repdl__d2f(y);
    return repdl__expm1f_slow(x);
}

/* One element of repdl_expm1_array_f32's branch-free pass (detail/cr.h's
   skeleton): the approximation runs on every element (the specials on a
   harmless argument: 2^-10 with x's sign); the specials are answered by
   selects; flagged: the rare failures of the integer rounding test. */
REPDL_FN uint32_t repdl__expm1_lane(uint32_t ux, uint32_t *fail)
{
    uint32_t ax = ux & 0x7fffffffu;
    int tiny = ax < 0x33000000u;                                   /* x */
    int ovf = (ux > 0x42b17217u) & (ux <= 0x7f800000u);            /* +inf */
    int m1 = (ux > 0xc18aa122u) & (ux <= 0xff800000u);             /* -1 */
    int nan = ax > 0x7f800000u;
    int sp = tiny | ovf | m1 | nan;
    double y = repdl__expm1f_core(repdl__asfloat(sp ? (ux & 0x80000000u) | 0x3a800000u : ux));
    uint32_t r = repdl__asuint(repdl__d2f(y));
    uint32_t spm = 0u - (uint32_t)sp;
    *fail = (uint32_t)(!sp & !repdl__round_ok_normal(y, REPDL__EXPM1F_TOL));
    return (r & ~spm) | (ux & (0u - (uint32_t)tiny)) |
           (0x7f800000u & (0u - (uint32_t)ovf)) | (0xbf800000u & (0u - (uint32_t)m1)) |
           (REPDL_NAN_BITS & (0u - (uint32_t)nan));
}

/* The array form: out[i] = repdl_expm1_f32(x[i]) for 0 <= i < n, bit for
   bit (detail/cr.h's skeleton).  out may be x itself (in place), otherwise
   the two must not overlap; n = 0 accepts NULL pointers. */
REPDL_API repdl_status repdl_expm1_array_f32(size_t n, const float *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__CR_ARRAY(n, x, out, repdl__expm1_lane, repdl_expm1_f32);
    return REPDL_OK;
}

/* ---- bfloat16 and float16 (half.h bit patterns) ----
   The calls round y of repdl__expm1f_y16 (the fast path's on its domain),
   the array lanes repdl__expm1f_core's, once to the 16-bit format (half.h's
   repdl__d_to_h_1): tests/half/test_half_fn.c proves, for each of the
   2^16 inputs of each format, that e^x - 1 lies farther than
   REPDL__EXPM1F_Y16_ERR (the larger bound) from every rounding boundary of
   the format.  Outside repdl__expm1f_y's domain repdl_expm1_f32's result
   is exact in 16 bits too: x itself for |x| < 2^-25 (e^x - 1 is within
   2^-26 |x| of x, and the 16-bit half-gaps are wider than binary32's),
   -1, +inf, NaN. */

/* The bound of repdl__expm1f_y16's y: the fast path's 2^-40.64 (the
   larger), rounded up. */
#define REPDL__EXPM1F_Y16_ERR 9.094947017729282e-13 /* 0x1p-40 */

/* 1 with *y ~ e^x - 1, |*y / expm1(x) - 1| < REPDL__EXPM1F_Y16_ERR:
   repdl__expm1f_fast's y on 2^-25 <= |x| <= 87, repdl__expm1f_y's
   elsewhere (0 where that gives 0). */
REPDL_FN int repdl__expm1f_y16(float x, double *y)
{
    if (REPDL_LIKELY(repdl__expm1f_fast_in(repdl__asuint(x)))) {
        *y = repdl__expm1f_fast(x);
        return 1;
    }
    return repdl__expm1f_y(x, y);
}

REPDL_FN uint32_t repdl__expm1_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__expm1f_y16(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__f32_to_h(repdl_expm1_f32(x), fmt);
}

/* One element of the 16-bit array forms' branch-free pass (half_math.h's
   skeleton): specials answered by selects, nothing flagged. */
REPDL_FN uint32_t repdl__expm1_h_lane(uint32_t h, int fmt, uint32_t *fail)
{
    uint32_t ux = repdl__asuint(repdl__h_to_f32(h, fmt)), ax = ux & 0x7fffffffu;
    uint32_t tiny = (uint32_t)(ax < 0x33000000u);
    uint32_t ovf = (uint32_t)((ux > 0x42b17217u) & (ux <= 0x7f800000u));
    uint32_t m1 = (uint32_t)((ux > 0xc18aa122u) & (ux <= 0xff800000u));
    uint32_t nan = (uint32_t)(ax > 0x7f800000u);
    uint32_t sp = tiny | ovf | m1 | nan;
    double y = repdl__expm1f_core(repdl__asfloat(sp ? (ux & 0x80000000u) | 0x3a800000u : ux));
    uint32_t r = repdl__d_to_h(y, fmt);
    *fail = 0;
    return (r & (sp - 1u)) | (h & (0u - tiny)) | (REPDL__H_INF(fmt) & (0u - ovf)) |
           ((0x8000u | REPDL__H_ONE(fmt)) & (0u - m1)) | (REPDL__H_NAN(fmt) & (0u - nan));
}

/* e^x - 1 correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_expm1_bf16(uint16_t x) { return (uint16_t)repdl__expm1_h(x, REPDL__BF16); }
/* e^x - 1 correctly rounded to float16. */
REPDL_API uint16_t repdl_expm1_f16(uint16_t x) { return (uint16_t)repdl__expm1_h(x, REPDL__F16); }
/* out[i] = repdl_expm1_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_expm1_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__BF16, repdl__expm1_h_lane, repdl__expm1_h);
    return REPDL_OK;
}
/* out[i] = repdl_expm1_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_expm1_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__F16, repdl__expm1_h_lane, repdl__expm1_h);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_EXPM1_H */
