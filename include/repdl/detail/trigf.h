/* SPDX-License-Identifier: MIT */
/* repdl/detail/trigf.h: what repdl_sin_f32 (sin.h) and repdl_cos_f32
   (cos.h) share after the reduction: y, the fast rounding test, the slow
   path and the 16-bit forms.

   cos(x) = sin(x + pi/2): with x = (q + f) pi/2 (mod 2 pi) (trig_reduce.h),
   sin(x) is repdl__trig_eval(q, f) and cos(x) repdl__trig_eval(q + 1, f).
   Every helper below takes that quadrant offset o (0: sin, 1: cos) and is
   inlined with o a constant, so sin.h and cos.h run the operations they ran
   when each wrote its own copy.  The bounds (E = REPDL__SINF_ERR,
   REPDL__COSF_ERR; c = REPDL__SINF_C, REPDL__COSF_C) and the hard-case
   tables stay with each function; so does lo, the smallest |x| bits of the
   fast path: below it a result may be subnormal (sin: 2^-125, 0x01000000;
   cos: never, |cos(x)| > 2^-30, lo = 0). */
#ifndef REPDL_DETAIL_TRIGF_H
#define REPDL_DETAIL_TRIGF_H

#include "../config.h"
#include "cr.h"
#include "trig_reduce.h"
#include "../half.h"
#include "../half_math.h"
REPDL_BEGIN_CODE

/* y ~ sin(x + o pi/2) for finite x (garbage, harmlessly, for inf and NaN) */
REPDL_FN double repdl__trigf_core(float x, uint32_t o)
{
    uint32_t q;
    double f = repdl__trig_reduce(x, &q);
    return repdl__trig_eval(q + o, f);
}

/* 1 with *y = repdl__trigf_core(x, o) for finite x; 0 for inf and NaN
   (sin and cos are NaN there). */
REPDL_FN int repdl__trigf_y(float x, uint32_t o, double *y)
{
    if ((repdl__asuint(x) & 0x7fffffffu) >= 0x7f800000u) return 0;
    *y = repdl__trigf_core(x, o);
    return 1;
}

/* The fast path's condition for ax = |x|'s bits: lo <= ax < inf (the
   result is a normal binary32) and repdl__round_ok_normal(y, c). */
REPDL_FN int repdl__trigf_fast_ok(uint32_t ax, double y, uint32_t lo, uint32_t c)
{
    return ((ax - lo) < 0x7f800000u - lo) & repdl__round_ok_normal(y, c);
}

/* Off the fast path: inf and NaN -> NaN; y rounded when
   repdl__round_ok(y, err) proves it; otherwise tab (n entries, MPFR's
   results, detail/<f>_hard.inc) answers. */
REPDL_FN float repdl__trigf_slow(float x, double y, double err, const repdl__hardcase *tab, int n)
{
    if ((repdl__asuint(x) & 0x7fffffffu) >= 0x7f800000u) return repdl__nanf();
    if (REPDL_LIKELY(repdl__round_ok(y, err))) return repdl__d2f(y);
    return repdl__hard_lookup(tab, n, x, y);
}

/* ---- bfloat16 and float16 (half.h's bit patterns) ----
   sin(x + o pi/2) rounded once, directly from y, to the 16-bit format of x
   (repdl__d_to_h): no binary32 rounding in between.  Why one rounding of y
   is correct in every build: tests/half/test_half_fn.c checks, with MPFR,
   for all 2^16 inputs of each format, that the exact value lies farther
   than E (the bound of y on every path) from every rounding boundary of
   the format, or is exact and equal to y (the margin proof of
   half_math.h). */
/* inf and NaN give NaN; every other input y rounded. */
REPDL_FN uint32_t repdl__trigf_h(uint32_t h, int fmt, uint32_t o)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__trigf_y(x, o, &y))) return repdl__d_to_h_1(y, fmt);
    return REPDL__H_NAN(fmt);
}

REPDL_END_CODE
#endif /* REPDL_DETAIL_TRIGF_H */
