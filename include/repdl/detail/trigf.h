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
   cos: never, |cos(x)| > 2^-30, lo = 0).

   Both functions first try a fast path (repdl__trigf_fast_y) for
   lo <= |x| < 2^17: x = (K + r) pi/64 (mod 2 pi) by a two-term Cody-Waite
   reduction, r = RN(x 32 C1 - K + RN(x D2)) (32 C1 the 28-bit C1 of
   trig_reduce.h times 32, D2 = RN(32 (2/pi) - 32 C1)), |r| <= 1/2 + 2^-31;
   its error grows with x (2^-61.6 at 2^17), so its domain ends at 2^17,
   the largest rotary angle of a 128K context; then with K' = K + 32 o and
   T[k] = RN(sin(k pi/64)),
     y = T[K' mod 128] cos(pi/64 r) + T[(K' + 32) mod 128] sin(pi/64 r),
   the two short polynomials of reference/gen/trigf.sollya (degree 4 and 5
   in r, about 2^-46 and 2^-49).  |y / f(x) - 1| < 2^-41.05 fused or not
   (reference/gen/trigf.py: the error of r, relative where T[K'] = 0 and
   the result is r's sine, divided by each binade's least |r| (reference/
   gen/trigf_minred.c --binades 17; worst in 2^15 <= |x| < 2^17, 2^-45.08
   below 2^15); the polynomials and their evaluation; the table's
   roundings and the final sum, where both entries are nonzero, relative to
   |f(x)| >= sin(pi/128)), so repdl__round_ok_normal with c = 4096 proves
   the rounding on all but about 2^-16 of the inputs.  The others, and
   |x| >= 2^17, take the accurate path (the functions' only path before
   2026-11-27, unchanged); the exhaustive proof checks both on all 2^32
   inputs. */
#ifndef REPDL_DETAIL_TRIGF_H
#define REPDL_DETAIL_TRIGF_H

#include "../config.h"
#include "cr.h"
#include "trig_reduce.h"
#include "half_fmt.h"
REPDL_BEGIN_CODE

/* The fast path's rounding-test constant: c - 1 >= 2^-41.05 2^53 (1 +
   2^-50) (reference/gen/trigf.py). */
#define REPDL__TRIGF_FAST_C 4096u
/* The fast path's bound (for the 16-bit forms), 2^-41.05 rounded up. */
#define REPDL__TRIGF_FAST_ERR 4.547473508864641e-13 /* 0x1p-41 */

/* 1 for the fast path's domain: lo <= ax < 2^17 (ax = |x|'s bits). */
REPDL_FN int repdl__trigf_fast_in(uint32_t ax, uint32_t lo)
{
    return ax - lo < 0x48000000u - lo;
}

/* T[k] = sin(k pi/64) rounded to double, k = 0..127 (T[0] = T[64] = 0,
   T[32] = 1, T[96] = -1 exactly).  reference/gen/trigf.py. */
REPDL_FN double repdl__trigf_tab64(uint32_t k)
{
    static const double T[128] = {
        0.0, 0.049067674327418015, 0.0980171403295606, 0.14673047445536175,
        0.19509032201612828, 0.2429801799032639, 0.2902846772544624, 0.33688985339222005,
        0.3826834323650898, 0.4275550934302821, 0.47139673682599764, 0.5141027441932218,
        0.5555702330196022, 0.5956993044924334, 0.6343932841636455, 0.6715589548470184,
        0.7071067811865476, 0.7409511253549591, 0.773010453362737, 0.8032075314806449,
        0.8314696123025452, 0.8577286100002721, 0.881921264348355, 0.9039892931234433,
        0.9238795325112867, 0.9415440651830208, 0.9569403357322088, 0.970031253194544,
        0.9807852804032304, 0.989176509964781, 0.9951847266721969, 0.9987954562051724,
        1.0, 0.9987954562051724, 0.9951847266721969, 0.989176509964781,
        0.9807852804032304, 0.970031253194544, 0.9569403357322088, 0.9415440651830208,
        0.9238795325112867, 0.9039892931234433, 0.881921264348355, 0.8577286100002721,
        0.8314696123025452, 0.8032075314806449, 0.773010453362737, 0.7409511253549591,
        0.7071067811865476, 0.6715589548470184, 0.6343932841636455, 0.5956993044924334,
        0.5555702330196022, 0.5141027441932218, 0.47139673682599764, 0.4275550934302821,
        0.3826834323650898, 0.33688985339222005, 0.2902846772544624, 0.2429801799032639,
        0.19509032201612828, 0.14673047445536175, 0.0980171403295606, 0.049067674327418015,
        0.0, -0.049067674327418015, -0.0980171403295606, -0.14673047445536175,
        -0.19509032201612828, -0.2429801799032639, -0.2902846772544624, -0.33688985339222005,
        -0.3826834323650898, -0.4275550934302821, -0.47139673682599764, -0.5141027441932218,
        -0.5555702330196022, -0.5956993044924334, -0.6343932841636455, -0.6715589548470184,
        -0.7071067811865476, -0.7409511253549591, -0.773010453362737, -0.8032075314806449,
        -0.8314696123025452, -0.8577286100002721, -0.881921264348355, -0.9039892931234433,
        -0.9238795325112867, -0.9415440651830208, -0.9569403357322088, -0.970031253194544,
        -0.9807852804032304, -0.989176509964781, -0.9951847266721969, -0.9987954562051724,
        -1.0, -0.9987954562051724, -0.9951847266721969, -0.989176509964781,
        -0.9807852804032304, -0.970031253194544, -0.9569403357322088, -0.9415440651830208,
        -0.9238795325112867, -0.9039892931234433, -0.881921264348355, -0.8577286100002721,
        -0.8314696123025452, -0.8032075314806449, -0.773010453362737, -0.7409511253549591,
        -0.7071067811865476, -0.6715589548470184, -0.6343932841636455, -0.5956993044924334,
        -0.5555702330196022, -0.5141027441932218, -0.47139673682599764, -0.4275550934302821,
        -0.3826834323650898, -0.33688985339222005, -0.2902846772544624, -0.2429801799032639,
        -0.19509032201612828, -0.14673047445536175, -0.0980171403295606, -0.049067674327418015
    };
    return T[k];
}

/* The fast path's y ~ sin(x + o pi/2), for |x| < 2^17 (detail above). */
REPDL_FN double repdl__trigf_fast_y(float x, uint32_t o)
{
    double xd = repdl__f2d(x);
    /* RN(x 32 RN(2/pi)) + 1.5 2^52: K in the low bits of the significand */
    double t = repdl__dadd(repdl__dmul(xd, 20.371832715762604 /* 32 RN(2/pi) */),
                           6755399441055744.0 /* 1.5 2^52 */);
    double k = repdl__dsub(t, 6755399441055744.0);
    /* a = x 32 C1 - K exact (24 + 28 bits, |a| < 2); r = RN(a + RN(x D2)),
       within 2^-78.6 |x| + 2^-53 |r| of x 64/pi - K */
    double a = repdl__dsub(repdl__dmul(xd, 20.371832728385925 /* 32 C1 */), k);
    double r = repdl__dadd(a, repdl__dmul(xd, -1.2623322314551629e-08 /* D2 */));
    uint32_t kk = (uint32_t)repdl__asuint64(t) + 32u * o;
    double r2 = repdl__dmul(r, r);
    /* cos(pi/64 r) ~ 1 + r^2 (fc1 + fc2 r^2), sin(pi/64 r) ~ r (fs0 + r^2 (fs1 + fs2 r^2)) */
    double pc = repdl__dadd(1.0, repdl__dmul(r2, repdl__dadd(-0.0012047856929609901,
                                                             repdl__dmul(r2, 2.4191129353598805e-07))));
    double ps = repdl__dadd(0.049087385212340455,
                            repdl__dmul(r2, repdl__dadd(-1.9713259806836193e-05,
                                                        repdl__dmul(r2, 2.3749743529011593e-09))));
    /* y = T[K'] pc + (T[K'+32] r) ps: T r runs beside ps (a shorter
       chain than T (r ps)), with the same roundings counted: the table's,
       two products and ps's own (reference/gen/trigf.py) */
    return repdl__dadd(repdl__dmul(repdl__trigf_tab64(kk & 127u), pc),
                       repdl__dmul(repdl__dmul(repdl__trigf_tab64((kk + 32u) & 127u), r), ps));
}

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
    return repdl__cr_round(x, y, err, tab, n);
}

/* ---- bfloat16 and float16 (half.h's bit patterns, detail/half_fmt.h) ----
   sin(x + o pi/2) rounded once, directly from y, to the 16-bit format of x
   (repdl__d_to_h): no binary32 rounding in between.  Why one rounding of y
   is correct in every build: tests/half/test_half_fn.c checks, with MPFR,
   for all 2^16 inputs of each format, that the exact value lies farther
   than E = REPDL__TRIGF_FAST_ERR (the bound of repdl__trigf_y16's y on
   every path) from every rounding boundary of the format, or is exact and
   equal to y (the margin proof of half_math.h). */
/* The y the 16-bit forms round: the fast path's for lo <= |x| < 2^17 (lo
   as the binary32 function's), the accurate path's for other finite x; 1
   with *y, or 0 for inf and NaN.  Its bound is the larger,
   REPDL__TRIGF_FAST_ERR. */
REPDL_FN int repdl__trigf_y16(float x, uint32_t o, uint32_t lo, double *y)
{
    if (REPDL_LIKELY(repdl__trigf_fast_in(repdl__asuint(x) & 0x7fffffffu, lo))) {
        *y = repdl__trigf_fast_y(x, o);
        return 1;
    }
    return repdl__trigf_y(x, o, y);
}

/* inf and NaN give NaN; every other input y rounded. */
REPDL_FN uint32_t repdl__trigf_h(uint32_t h, int fmt, uint32_t o, uint32_t lo)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__trigf_y16(x, o, lo, &y))) return repdl__d_to_h_1(y, fmt);
    return REPDL__H_NAN(fmt);
}

REPDL_END_CODE
#endif /* REPDL_DETAIL_TRIGF_H */
