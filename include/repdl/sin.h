/* SPDX-License-Identifier: MIT */
/* repdl/sin.h: correctly rounded sine of a binary32 value.

   Accuracy: repdl_sin_f32(x) is sin(x) rounded to nearest-even binary32 for
   every binary32 x, the largest ones (up to 2^128) included: the argument
   reduction is exact, not an approximation of x mod 2 pi.  sin(+-0) = +-0,
   subnormal x give their (subnormal) results, sin(+-inf) and NaN -> the
   canonical NaN 0x7fc00000.  Proven by comparing all 2^32 inputs with
   MPFR, in both contracted and uncontracted builds (docs/functions/sinf.md).

   Algorithm, in double (detail/trig_reduce.h):
     x = (q + f) pi/2 (mod 2 pi), |f| <= 1/2: for |x| < 1/2, f = x RN(2/pi);
       otherwise a Payne-Hanek reduction with 256 bits of 2/pi in 64-bit
       integer arithmetic, |f / f* - 1| < 2^-53 + 2^-72 (f* the exact
       fraction, |f*| >= 2^-29.85 for every binary32 x >= 1/2); for
       1/2 <= |x| < 2^28 a Cody-Waite reduction in double computes that
       same f and q, bit for bit (checked on every input);
     sin(x) = sin(pi/2 f) ~ f S(f^2)     for q = 0 (q = 2: negated),
            = cos(pi/2 f) ~ C(f^2)       for q = 1 (q = 3: negated);
     |y / sin(x) - 1| < REPDL__SINF_ERR - 2^-53 on every path, fused or
     not (reference/gen/trigf.py);
   then y is rounded to binary32 when a rounding test proves that rounding
   correct (repdl__round_ok_normal of detail/cr.h, then repdl__round_ok); the
   few other inputs are listed, with their correctly rounded results, in
   detail/sinf_hard.inc (reference/hardcases.c).

   The tail after y (fast test, slow path, 16-bit forms) is
   detail/trigf.h's, shared with cos.h (quadrant offset 0 here, 1 there).

   Constants: reference/gen/trigf.py (2/pi, error bound),
   reference/gen/trigf.sollya (polynomials), reference/gen/trigf_minred.c
   (the smallest reduced argument).

   Also: repdl_sin_array_f32(n, x, out), the same results for an array;
   repdl_sin_bf16(x), repdl_sin_f16(x) and their array forms: sin(x) rounded
   once to the 16-bit format of x (half.h's bit patterns), directly from y
   (below, "bfloat16 and float16"). */
#ifndef REPDL_SIN_H
#define REPDL_SIN_H

#include "config.h"
#include "detail/cr.h"
#include "detail/trigf.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__sinf_y's y on every path (fused or not),
   including the 2^-53 rounding of the rounding test's own products
   (reference/gen/trigf.py prints the bound), rounded up. */
#define REPDL__SINF_ERR 5.967448757360216e-16 /* 0x1.58p-51 */

/* c of repdl__round_ok_normal: the error without round_ok's rounding is
   below (c - 1) 2^-53 / (1 + 2^-50) (reference/gen/trigf.py). */
#define REPDL__SINF_C 8u

/* lo of detail/trigf.h: for |x| >= 2^-125 (and finite), |sin(x)| >=
   min(|x| (1 - x^2/6), sin(pi/2 2^-29.85)) > 2^-126, so y rounds to a
   normal binary32; smaller |x| take the slow path. */
#define REPDL__SINF_LO 0x01000000u

/* 1 with *y ~ sin(x), |*y / sin(x) - 1| < REPDL__SINF_ERR - 2^-53, for
   finite x; 0 for inf and NaN (sin is NaN). */
REPDL_FN int repdl__sinf_y(float x, double *y) { return repdl__trigf_y(x, 0u, y); }

/* repdl_sin_f32 off its fast path (detail/trigf.h): inf, NaN, |x| below
   lo and the inputs whose cheap rounding test failed. */
REPDL_FN_NOINLINE float repdl__sinf_slow(float x, double y)
{
    static const repdl__hardcase tab[] = {
#include "detail/sinf_hard.inc"
    };
    return repdl__trigf_slow(x, y, REPDL__SINF_ERR, tab, REPDL__HARD_N(tab));
}

/* The accurate path of repdl_sin_f32 (its only path before 2026-11-27):
   every x the fast path does not answer. */
REPDL_FN_NOINLINE float repdl__sinf_accurate(float x)
{
    double y = repdl__trigf_core(x, 0u);
    if (REPDL_LIKELY(repdl__trigf_fast_ok(repdl__asuint(x) & 0x7fffffffu, y, REPDL__SINF_LO, REPDL__SINF_C)))
        return repdl__d2f(y);
    return repdl__sinf_slow(x, y);
}

/* sin(x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_sin_f32(float x)
{
    if (REPDL_LIKELY(repdl__trigf_fast_in(repdl__asuint(x) & 0x7fffffffu, REPDL__SINF_LO))) {
        double y = repdl__trigf_fast_y(x, 0u);
        if (REPDL_LIKELY(repdl__round_ok_normal(y, REPDL__TRIGF_FAST_C))) return repdl__d2f(y);
    }
    return repdl__sinf_accurate(x);
}

/* The array form: out[i] = repdl_sin_f32(x[i]) for 0 <= i < n, bit for bit
   (element by element: REPDL__SCALAR_ARRAY of detail/cr.h).  out may be x
   itself (in place), otherwise the two must not overlap; n = 0 accepts
   NULL pointers. */
REPDL_API repdl_status repdl_sin_array_f32(size_t n, const float *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__SCALAR_ARRAY(n, x, out, repdl_sin_f32);
    return REPDL_OK;
}

/* ---- bfloat16 and float16 (half.h's bit patterns) ----
   sin(x) rounded once, directly from y, to the 16-bit format of x, E =
   REPDL__TRIGF_FAST_ERR (detail/trigf.h; the margin proof: tests/half/test_half_fn.c). */
REPDL_FN uint32_t repdl__sin_h(uint32_t h, int fmt) { return repdl__trigf_h(h, fmt, 0u, REPDL__SINF_LO); }

/* sin(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_sin_bf16(uint16_t x) { return (uint16_t)repdl__sin_h(x, REPDL__BF16); }
/* sin(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_sin_f16(uint16_t x) { return (uint16_t)repdl__sin_h(x, REPDL__F16); }
/* out[i] = repdl_sin_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_sin_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_SCALAR_ARRAY(n, x, out, REPDL__BF16, repdl__sin_h);
    return REPDL_OK;
}
/* out[i] = repdl_sin_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_sin_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_SCALAR_ARRAY(n, x, out, REPDL__F16, repdl__sin_h);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_SIN_H */
