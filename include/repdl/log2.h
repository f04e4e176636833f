/* SPDX-License-Identifier: MIT */
/* repdl/log2.h: correctly rounded base-2 logarithm of a binary32 value.

   Accuracy: repdl_log2_f32(x) is log2(x) rounded to nearest-even binary32
   for every binary32 x.  log2(+-0) = -inf, log2(+inf) = +inf, log2(1) = +0,
   log2(2^k) = k exactly, log2(x < 0) (-inf included) and log2(NaN) = the
   canonical NaN 0x7fc00000.  Subnormal inputs are ordinary inputs; no
   result is subnormal or overflows.  Proven by comparing all 2^32 inputs
   with MPFR (docs/functions/log2f.md).

   Algorithm, in double: log.h's approximation of the natural logarithm,
   scaled:
     log2(x) = log(x) / ln2,   y = RN(y_e INVLN2),  INVLN2 = RN(1/ln2)
   where y_e = repdl__logf_core's y, |y_e / log(x) - 1| < 6.10 2^-53 on every
   path (log.h, reference/gen/logf.py), so |y / log2(x) - 1| < 7.23 2^-53
   (reference/gen/log2f.py), fused or not (the product of a sum and a
   constant offers nothing to contract).  No new table.
   Exact cases: x = 1 gives y_e = +0 (log.h), so y = +0; x = 2^k (k != 0)
   gives y within 7.23 2^-53 of the integer k, a binary32 value, which every
   rounding boundary is farther from than 2^-25 |k|: the rounding test
   accepts y and returns k.  log2 of a binary32 other than a power of two
   is irrational, never a midpoint.  y is rounded to binary32 when the
   rounding test proves it correct (detail/cr.h's repdl__round_ok_normal,
   then repdl__round_ok); the few other inputs are listed, with their
   correctly rounded results, in detail/log2f_hard.inc.

   Also: repdl_log2_array_f32(n, x, out), the same results for an array, in
   a form that compilers vectorize; repdl_log2_bf16, repdl_log2_f16 and
   their array forms (half.h bit patterns), rounded once from y. */
#ifndef REPDL_LOG2_H
#define REPDL_LOG2_H

#include "config.h"
#include "detail/cr.h"
#include "log.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__log2f_y's y on every path (fused or not),
   with room for the 2^-53 roundings of cr.h's test: 7.23 2^-53 + 2^-53
   (reference/gen/log2f.py), rounded up to 9 2^-53. */
#define REPDL__LOG2F_ERR 9.992007221626409e-16 /* 0x1.2p-50 */

/* c of repdl__round_ok_normal: (c - 1) 2^-53 / (1 + 2^-50) above y's
   bound 7.23 2^-53 (detail/cr.h); every result of log2f other than +0 is
   a normal binary32 (2^-22.6 < |log2(x)| <= 149), and y = +0 passes the
   test and rounds to +0. */
#define REPDL__LOG2F_TOL 9u

/* y ~ log2(x), for the bits u of a positive normal binary32 x, or for
   u = bits(x 2^23) - (23 << 23) when x is subnormal (log.h's convention). */
REPDL_FN double repdl__log2f_core(uint32_t u)
{
    /* INVLN2 = RN(1/ln2); the product rounds once (<= 2^-53 |y|) */
    return repdl__dmul(repdl__logf_core(u), 1.4426950408889634);
}

/* 1 when x takes the approximation path, with *y ~ log2(x),
   |*y / log2(x) - 1| < REPDL__LOG2F_ERR - 2^-53; 0 for the special inputs
   (x <= 0, -0 included, +inf, NaN), whose results repdl_log2_f32 gives
   exactly. */
REPDL_FN int repdl__log2f_y(float x, double *y)
{
    uint32_t u = repdl__asuint(x);
    if (REPDL_UNLIKELY(u - 0x00800000u >= 0x7f000000u)) {
        /* not a positive normal number */
        if (u == 0u || u >= 0x7f800000u) return 0;  /* +-0, negative, +inf, NaN */
        /* positive subnormal: x 2^23 is exact and normal */
        u = repdl__asuint(repdl__fmul(x, 8388608.0f)) - (23u << 23);
    }
    *y = repdl__log2f_core(u);
    return 1;
}

/* log2(x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_log2_f32(float x)
{
    double y;
    /* the special inputs have log's results: -inf, +inf, NaN */
    if (REPDL_UNLIKELY(!repdl__log2f_y(x, &y))) return repdl__logf_special(x);
    if (REPDL_LIKELY(repdl__round_ok_normal(y, REPDL__LOG2F_TOL))) return repdl__d2f(y);
    /* rare (about 2^-24 of the inputs): the shared test, then the table */
    if (repdl__round_ok(y, REPDL__LOG2F_ERR)) return repdl__d2f(y);
    {
        /* inputs whose y fails the test with 4E, with MPFR's results
           (reference/hardcases.c) */
        static const repdl__hardcase tab[] = {
#include "detail/log2f_hard.inc"
        };
        return repdl__hard_lookup(tab, (int)(sizeof tab / sizeof tab[0]), x, y);
    }
}

/* One element of repdl_log2_array_f32's branch-free pass (detail/cr.h's
   skeleton), as log.h's: flagged for repdl_log2_f32: the specials (x <= 0,
   subnormals, +inf, NaN) and the inputs whose integer rounding test
   fails. */
REPDL_FN uint32_t repdl__log2_lane(uint32_t u, uint32_t *fail)
{
    double y = repdl__log2f_core(u);
    *fail = (uint32_t)((u - 0x00800000u >= 0x7f000000u) |
                       !repdl__round_ok_normal(y, REPDL__LOG2F_TOL));
    return repdl__asuint(repdl__d2f(y));
}

/* out[k] = repdl_log2_f32(x[k]) for k < n, bit for bit (detail/cr.h's
   skeleton).  out may be x itself (in place) but must not overlap it
   otherwise; n = 0 (x, out may then be NULL) does nothing. */
REPDL_API void repdl_log2_array_f32(size_t n, const float *x, float *out)
{
    REPDL__CR_ARRAY(n, x, out, repdl__log2_lane, repdl_log2_f32);
}

/* ---- bfloat16 and float16 (half.h bit patterns) ----
   y of repdl__log2f_y rounded once to the 16-bit format (half.h's
   repdl__d_to_h_1): tests/half/test_half_fn.c proves, for each of the
   2^16 inputs of each format, that log2(x) lies farther than
   REPDL__LOG2F_ERR from every rounding boundary of the format, or is 0
   (x = 1: y = +0 exactly).  Outside repdl__log2f_y's domain (x <= 0, +inf,
   NaN) repdl_log2_f32's result is exact. */
REPDL_FN uint32_t repdl__log2_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__log2f_y(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__f32_to_h(repdl_log2_f32(x), fmt);
}

/* One element of the 16-bit array forms' branch-free pass (half_math.h's
   skeleton), as half_math.h's log: flagged: every x that is not a positive
   normal binary32 other than 1 (2^-9.5 < |log2(x)| <= 133 for the others:
   normal in both formats). */
REPDL_FN uint32_t repdl__log2_h_lane(uint32_t h, int fmt, uint32_t *fail)
{
    uint32_t u = repdl__asuint(repdl__h_to_f32(h, fmt));
    uint32_t ok = (uint32_t)((u - 0x00800000u < 0x7f000000u) & (u != 0x3f800000u));
    double y = repdl__log2f_core(u);          /* garbage for the flagged: replaced */
    *fail = !ok;
    return repdl__d_to_h_normal(y, fmt);
}

/* log2(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_log2_bf16(uint16_t x) { return (uint16_t)repdl__log2_h(x, REPDL__BF16); }
/* log2(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_log2_f16(uint16_t x) { return (uint16_t)repdl__log2_h(x, REPDL__F16); }
/* out[i] = repdl_log2_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API void repdl_log2_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__H_ARRAY(n, x, out, REPDL__BF16, repdl__log2_h_lane, repdl__log2_h);
}
/* out[i] = repdl_log2_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API void repdl_log2_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__H_ARRAY(n, x, out, REPDL__F16, repdl__log2_h_lane, repdl__log2_h);
}

REPDL_END_CODE
#endif /* REPDL_LOG2_H */
