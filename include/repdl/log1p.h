/* SPDX-License-Identifier: MIT */
/* repdl/log1p.h: correctly rounded log(1 + x) of a binary32 value.

   Accuracy: repdl_log1p_f32(x) is log(1 + x) rounded to nearest-even
   binary32 for every binary32 x.  log1p(+-0) = +-0, log1p(x) = x for
   subnormal x (and every |x| < 2^-25), log1p(-1) = -inf, log1p(+inf) =
   +inf, log1p(x < -1) (-inf included) and log1p(NaN) = the canonical NaN
   0x7fc00000.  No result is subnormal or overflows.  Proven by comparing
   all 2^32 inputs with MPFR (docs/functions/log1pf.md).

   Fast path (repdl__log1pf_fast, since 2026-11-27), tried first: log.h's
   fast evaluation (degree 4) on z = 1 + x in binary64, read as 2^e m from
   z's own bits: no division and no branch between small and large |x|;
   |y / log1p(x) - 1| < 2^-36.85 (reference/gen/log1pf.py), under a
   rounding test with c = 2^17.  Where that test fails (about 2^-11 of the
   inputs), the former algorithm below decides.

   Algorithm, in double, on two ranges, both with log.h's constants:
     |x| <= 2^-8:  log1p(x) ~ x + x^2 q(x), log.h's degree-6 polynomial
                   (reference/gen/logf.sollya, relative error < 2^-54.8)
                   evaluated as log.h evaluates it on its interval 76,
                   with r = x exact: the error is relative to x, however
                   small x is.
     otherwise:    z = 1 + x (exact in double for 2^-29 < |x| < 2^53; for
                   x >= 2^53 it rounds, by < 2^-53 z), zf = RN32(z),
                   zl = z - zf (exact, |zl| <= 2^-24 zf),
                     log(1 + x) = log(zf) + log1p(t),  t = zl / zf,
                   log(zf) from log.h's repdl__logf_core (zf is a positive
                   normal binary32: 2^-24 <= zf <= FLT_MAX), relative error
                   < 6.10 2^-53, log1p(t) ~ t - t^2/2 (|t| <= 2^-24).
                   |log(1 + x)| > 2^-8.01 here, so |log(zf)| <
                   (1 + 2^-15.9) |log(1 + x)| and t's terms are tiny.
   |y / log1p(x) - 1| < 7.13 2^-53 on every path (1.30 2^-53 on the first), fused or not (reference/gen/
   log1pf.py).  Then y is rounded to binary32 when a rounding test proves
   that rounding correct (detail/cr.h's repdl__round_ok_normal, then
   repdl__round_ok); the few other inputs are listed, with their correctly
   rounded results, in detail/log1pf_hard.inc.  log(1 + x) is irrational
   for every binary32 x != 0: never a midpoint.
   Exactly handled, outside that path:
     |x| < 2^-25:  log(1 + x) = x (1 - x/2 + ...) lies between x and the
                   midpoint next to x (x^2/2 < 2^-26 |x|, the smallest
                   half-gap being 2^-25 |x|): x, +-0 and subnormals included;
     x = -1: -inf;  x < -1, -inf, NaN: the canonical NaN;  +inf: +inf.

   Also: repdl_log1p_array_f32(n, x, out), the same results for an array,
   in a form that compilers vectorize; repdl_log1p_bf16, repdl_log1p_f16
   and their array forms (half.h bit patterns), rounded once from y. */
#ifndef REPDL_LOG1P_H
#define REPDL_LOG1P_H

#include "config.h"
#include "detail/cr.h"
#include "log.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__log1pf_y's y on every path (fused or not),
   with room for the 2^-53 roundings of cr.h's test (reference/gen/
   log1pf.py: 7.13 2^-53 + 2^-53), rounded up to 9 2^-53. */
#define REPDL__LOG1PF_ERR 9.992007221626409e-16 /* 0x1.2p-50 */

/* c of repdl__round_ok_normal: (c - 1) 2^-53 / (1 + 2^-50) above y's
   bound 7.13 2^-53 (reference/gen/log1pf.py); every result here is a normal binary32
   (2^-25 (1 - 2^-25) < |log1p(x)| < 89). */
#define REPDL__LOG1PF_TOL 9u

/* y ~ log1p(x) for |x| <= 2^-8: log.h's polynomial on r = x, evaluated as
   log.h does (there: y = RN(RN(s + r) + p2) with s = +0 on interval 76,
   s + r = r exactly), so log.h's analysis of that interval applies
   (reference/gen/logf.py, 'center'). */
REPDL_FN double repdl__log1pf_small(double r)
{
    return repdl__dadd(r, repdl__logf_p2(r));
}

/* y ~ log1p(x) for -1 < x < +inf, |x| > 2^-8 (no special-case test). */
REPDL_FN double repdl__log1pf_large(float x)
{
    /* z = 1 + x: exact for |x| > 2^-29 and x < 2^53 (x's bits then span
       at most 53 places with 1's); for x >= 2^53 it rounds, |z / (1 + x) - 1|
       < 2^-53, which moves the logarithm (>= 36) by < 2^-58.1 relative */
    double z = repdl__dadd(1.0, repdl__f2d(x));
    float zf = repdl__d2f(z);                      /* in [2^-24, FLT_MAX] */
    /* zl = z - zf: exact (zf is z rounded to 24 bits, so the difference
       fits in z's last 29 bits); |t| = |zl / zf| <= 2^-24 (1 + 2^-23) */
    double zl = repdl__dsub(z, repdl__f2d(zf));
    double t = repdl__ddiv(zl, repdl__f2d(zf));
    /* log1p(t) ~ t - t^2/2, off by < |t|^3/3 < 2^-73.5; its roundings are
       below 2^-76 (reference/gen/log1pf.py counts them) */
    double corr = repdl__dsub(t, repdl__dmul(repdl__dmul(t, t), 0.5));
    /* log(zf): log.h, relative error < 6.10 2^-53; one more rounding */
    return repdl__dadd(repdl__logf_core(repdl__asuint(zf)), corr);
}

/* 1 with *y ~ log1p(x), |*y / log1p(x) - 1| < REPDL__LOG1PF_ERR - 2^-53,
   when 2^-25 <= |x|, -1 < x < +inf; 0 for the special cases that
   repdl_log1p_f32 answers exactly: |x| < 2^-25 (x), x <= -1 (-inf at -1,
   NaN below), +inf, NaN. */
REPDL_FN int repdl__log1pf_y(float x, double *y)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    /* 0x33000000 = 2^-25, 0x3b800000 = 2^-8, 0xbf800000 = -1 */
    if (REPDL_UNLIKELY((ax < 0x33000000u) | (ux >= 0xbf800000u) | ((ux >= 0x7f800000u) & (ux < 0x80000000u))))
        return 0;
    *y = ax <= 0x3b800000u ? repdl__log1pf_small(repdl__f2d(x)) : repdl__log1pf_large(x);
    return 1;
}

/* c of repdl__round_ok_normal for repdl__log1pf_fast's y: its relative
   error is below 2^-36.85 = 72876 2^-53 < (c - 1) 2^-53 / (1 + 2^-50)
   (reference/gen/log1pf.py).  The test fails for about 2c / 2^29 = 2^-11
   of the inputs. */
#define REPDL__LOG1PF_FAST_C 0x20000u /* 2^17 */

/* 1 for the fast path's domain, 2^-25 <= |x| with -1 < x < +inf, of the
   bits ux of x (0x33000000 = 2^-25, 0x7f800000 = +inf, 0xbf800000 = -1):
   repdl__log1pf_y's domain too. */
REPDL_FN uint32_t repdl__log1pf_fast_in(uint32_t ux)
{
    return (uint32_t)((ux - 0x33000000u < 0x4c800000u) | (ux - 0xb3000000u < 0x0c800000u));
}

/* y ~ log1p(x) for 2^-25 <= |x|, -1 < x < +inf (no special-case test; on
   other inputs it returns a meaningless value and does nothing undefined),
   the fast path: log.h's fast evaluation (repdl__log_fast_eval, logf's
   polynomial) on z = 1 + x in binary64, z = 2^e m read from z's own bits.
   z is exact for |x| < 2^53 (above, it rounds by < 2^-53 z).  On log.h's
   center interval at e = 0 (z in [0.998, 1.0039)) c = 1, so r = z - 1 = x
   exactly, however small; elsewhere m c rounds by <= 2^-53
   (|m c - 1| <= 2^-8), against |log1p(x)| > 2^-9.
   |y / log1p(x) - 1| < 2^-36.85, fused or not (reference/gen/log1pf.py). */
REPDL_FN double repdl__log1pf_fast(float x)
{
    double z = repdl__dadd(1.0, repdl__f2d(x));
    uint64_t u = repdl__asuint64(z);
    uint64_t t = u - 0x3fe6700000000000u;      /* bits of OFF = 0x1.67p-1 (log.h) */
    /* as log.h's repdl__logf_core, on binary64 bits: i = the top 7 bits of
       m's mantissa counted from OFF, e the top 12 bits of t, signed (the
       conversion and shift as there: the exhaustive tests check them) */
    size_t i = (size_t)((t >> 45) & 127u);
    int e = (int)((int64_t)t >> 52);
    double m = repdl__asdouble(u - (t & 0xfff0000000000000u));   /* in [OFF, 2 OFF) */
    return repdl__log_fast_ln(i, e, m);
}

/* The exact results of the special inputs of repdl__log1pf_y. */
REPDL_FN float repdl__log1pf_special(float x)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    if (ax < 0x33000000u) return x;                   /* x, +-0 and subnormals included */
    if (ux == 0xbf800000u) return repdl__asfloat(0xff800000u);   /* log1p(-1) = -inf */
    if (ux == 0x7f800000u) return x;                  /* +inf */
    return repdl__nanf();                             /* x < -1, -inf, NaN */
}

/* repdl_log1p_f32 off its fast path: the special inputs and the fast
   rounding test's failures (the former path, unchanged). */
REPDL_FN_NOINLINE float repdl__log1pf_slow(float x)
{
    double y;
    if (REPDL_UNLIKELY(!repdl__log1pf_y(x, &y))) return repdl__log1pf_special(x);
    if (REPDL_LIKELY(repdl__round_ok_normal(y, REPDL__LOG1PF_TOL))) return repdl__d2f(y);
    {
        /* inputs whose y fails the test with 4E, with MPFR's results
           (reference/hardcases.c) */
        static const repdl__hardcase tab[] = {
#include "detail/log1pf_hard.inc"
        };
        return repdl__cr_round(x, y, REPDL__LOG1PF_ERR, tab, REPDL__HARD_N(tab));
    }
}

/* log(1 + x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_log1p_f32(float x)
{
    /* The fast path runs on every input (harmlessly on the special ones),
       so that one branch tests both its domain and its rounding test;
       every result there is a normal binary32 (|log1p(x)| in
       [2^-25.1, 89)). */
    double y = repdl__log1pf_fast(x);
    if (REPDL_LIKELY(repdl__log1pf_fast_in(repdl__asuint(x)) &
                     repdl__round_ok_normal(y, REPDL__LOG1PF_FAST_C)))
        return repdl__d2f(y);
    return repdl__log1pf_slow(x);
}

/* out[k] = repdl_log1p_f32(x[k]) for k < n, bit for bit (element by
   element, REPDL__SCALAR_ARRAY of detail/cr.h).  out may be x itself (in
   place) but must not overlap it otherwise; n = 0 (x, out may then be
   NULL) does nothing. */
REPDL_API repdl_status repdl_log1p_array_f32(size_t n, const float *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__SCALAR_ARRAY(n, x, out, repdl_log1p_f32);
    return REPDL_OK;
}

/* ---- bfloat16 and float16 (half.h bit patterns) ----
   y of repdl__log1pf_y16 (the fast path's) rounded once to the 16-bit
   format (half.h's repdl__d_to_h_1): tests/half/test_half_fn.c proves, for
   each of the 2^16 inputs of each format, that log(1 + x) lies farther
   than REPDL__LOG1PF_Y16_ERR from every rounding boundary of the format.
   Outside that domain repdl_log1p_f32's result is exact in 16 bits too:
   x itself for |x| < 2^-25 (log(1 + x) is within 2^-26 |x| of x, and the
   16-bit half-gaps are wider), -inf, +inf, NaN. */

/* The bound of repdl__log1pf_y16's y: the fast path's 2^-36.85, rounded
   up. */
#define REPDL__LOG1PF_Y16_ERR 1.4551915228366852e-11 /* 0x1p-36 */

/* 1 with *y ~ log1p(x), |*y / log1p(x) - 1| < REPDL__LOG1PF_Y16_ERR, on
   repdl__log1pf_fast's domain (2^-25 <= |x|, -1 < x < +inf, which is
   repdl__log1pf_y's); 0 elsewhere. */
REPDL_FN int repdl__log1pf_y16(float x, double *y)
{
    if (REPDL_LIKELY(repdl__log1pf_fast_in(repdl__asuint(x)))) {
        *y = repdl__log1pf_fast(x);
        return 1;
    }
    return 0;
}

REPDL_FN uint32_t repdl__log1p_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__log1pf_y16(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__f32_to_h(repdl_log1p_f32(x), fmt);
}

/* One element of the 16-bit array forms' branch-free pass (half_math.h's
   skeleton): repdl__log1pf_fast's y (no branch inside), rounded by
   half.h's repdl__d_to_h (f16 results below 2^-14 are subnormal); flagged
   for repdl__log1p_h: x outside that domain (|x| < 2^-25, x <= -1, +inf,
   NaN), whose y is meaningless. */
REPDL_FN uint32_t repdl__log1p_h_lane(uint32_t h, int fmt, uint32_t *fail)
{
    uint32_t ux = repdl__asuint(repdl__h_to_f32(h, fmt));
    double y = repdl__log1pf_fast(repdl__asfloat(ux));
    *fail = !repdl__log1pf_fast_in(ux);
    return repdl__d_to_h(y, fmt);
}

/* log(1 + x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_log1p_bf16(uint16_t x) { return (uint16_t)repdl__log1p_h(x, REPDL__BF16); }
/* log(1 + x) correctly rounded to float16. */
REPDL_API uint16_t repdl_log1p_f16(uint16_t x) { return (uint16_t)repdl__log1p_h(x, REPDL__F16); }
/* out[i] = repdl_log1p_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_log1p_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__BF16, repdl__log1p_h_lane, repdl__log1p_h);
    return REPDL_OK;
}
/* out[i] = repdl_log1p_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_log1p_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__F16, repdl__log1p_h_lane, repdl__log1p_h);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_LOG1P_H */
