/* SPDX-License-Identifier: MIT */
/* repdl/cos.h: correctly rounded cosine of a binary32 value.

   Accuracy: repdl_cos_f32(x) is cos(x) rounded to nearest-even binary32 for
   every binary32 x, the largest ones (up to 2^128) included: the argument
   reduction is exact, not an approximation of x mod 2 pi.  cos(+-0) = 1,
   cos(+-inf) and NaN -> the canonical NaN 0x7fc00000.  Proven by comparing
   all 2^32 inputs with MPFR, in both contracted and uncontracted builds
   (docs/functions/cosf.md).

   Algorithm, in double (detail/trig_reduce.h, shared with sin.h):
     x = (q + f) pi/2 (mod 2 pi), |f| <= 1/2, as in sin.h, and
     cos(x) = sin((q + 1 + f) pi/2):
            = cos(pi/2 f) ~ C(f^2)       for q = 0 (q = 2: negated),
            = -sin(pi/2 f) ~ -f S(f^2)   for q = 1 (q = 3: negated);
     |y / cos(x) - 1| < REPDL__COSF_ERR - 2^-53 on every path, fused or not
     (reference/gen/trigf.py);
   then y is rounded to binary32 when a rounding test proves that rounding
   correct (repdl__round_ok_normal of detail/cr.h, then repdl__round_ok); the
   few other inputs are listed, with their correctly rounded results, in
   detail/cosf_hard.inc (reference/hardcases.c).  |cos(x)| > 2^-30 for every
   binary32 x (|f*| >= 2^-29.85 where q is odd), so the result is always a
   normal binary32.  The tail after y (fast test, slow path,
   16-bit forms) is detail/trigf.h's, shared with sin.h.

   Also: repdl_cos_array_f32(n, x, out), the same results for an array;
   repdl_cos_bf16(x), repdl_cos_f16(x) and their array forms: cos(x) rounded
   once to the 16-bit format of x (half.h's bit patterns), directly from y
   (below, "bfloat16 and float16"). */
#ifndef REPDL_COS_H
#define REPDL_COS_H

#include "config.h"
#include "detail/cr.h"
#include "detail/trigf.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__cosf_y's y on every path (fused or not),
   including the 2^-53 rounding of the rounding test's own products
   (reference/gen/trigf.py prints the bound), rounded up. */
#define REPDL__COSF_ERR 5.967448757360216e-16 /* 0x1.58p-51 */

/* c of repdl__round_ok_normal: the error without round_ok's rounding is
   below (c - 1) 2^-53 / (1 + 2^-50) (reference/gen/trigf.py). */
#define REPDL__COSF_C 8u

/* lo of detail/trigf.h: 0, every finite x: |cos(x)| > 2^-30, y rounds
   to a normal binary32. */
#define REPDL__COSF_LO 0x0u

/* 1 with *y ~ cos(x), |*y / cos(x) - 1| < REPDL__COSF_ERR - 2^-53, for
   finite x; 0 for inf and NaN (cos is NaN). */
REPDL_FN int repdl__cosf_y(float x, double *y) { return repdl__trigf_y(x, 1u, y); }

/* repdl_cos_f32 off its fast path (detail/trigf.h): inf, NaN, |x| below
   lo and the inputs whose cheap rounding test failed. */
REPDL_FN_NOINLINE float repdl__cosf_slow(float x, double y)
{
    static const repdl__hardcase tab[] = {
#include "detail/cosf_hard.inc"
    };
    return repdl__trigf_slow(x, y, REPDL__COSF_ERR, tab, REPDL__HARD_N(tab));
}

/* The accurate path of repdl_cos_f32 (its only path before 2026-11-27):
   every x the fast path does not answer. */
REPDL_FN_NOINLINE float repdl__cosf_accurate(float x)
{
    double y = repdl__trigf_core(x, 1u);
    if (REPDL_LIKELY(repdl__trigf_fast_ok(repdl__asuint(x) & 0x7fffffffu, y, REPDL__COSF_LO, REPDL__COSF_C)))
        return repdl__d2f(y);
    return repdl__cosf_slow(x, y);
}

/* cos(x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_cos_f32(float x)
{
    if (REPDL_LIKELY(repdl__trigf_fast_in(repdl__asuint(x) & 0x7fffffffu, REPDL__COSF_LO))) {
        double y = repdl__trigf_fast_y(x, 1u);
        if (REPDL_LIKELY(repdl__round_ok_normal(y, REPDL__TRIGF_FAST_C))) return repdl__d2f(y);
    }
    return repdl__cosf_accurate(x);
}

/* The array form: out[i] = repdl_cos_f32(x[i]) for 0 <= i < n, bit for bit
   (element by element: REPDL__SCALAR_ARRAY of detail/cr.h).  out may be x
   itself (in place), otherwise the two must not overlap; n = 0 accepts
   NULL pointers. */
REPDL_API repdl_status repdl_cos_array_f32(size_t n, const float *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__SCALAR_ARRAY(n, x, out, repdl_cos_f32);
    return REPDL_OK;
}

/* ---- bfloat16 and float16 (half.h's bit patterns) ----
   cos(x) rounded once, directly from y, to the 16-bit format of x, E =
   REPDL__TRIGF_FAST_ERR (detail/trigf.h; the margin proof: tests/half/test_half_fn.c). */
REPDL_FN uint32_t repdl__cos_h(uint32_t h, int fmt) { return repdl__trigf_h(h, fmt, 1u, REPDL__COSF_LO); }

/* cos(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_cos_bf16(uint16_t x) { return (uint16_t)repdl__cos_h(x, REPDL__BF16); }
/* cos(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_cos_f16(uint16_t x) { return (uint16_t)repdl__cos_h(x, REPDL__F16); }
/* out[i] = repdl_cos_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_cos_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_SCALAR_ARRAY(n, x, out, REPDL__BF16, repdl__cos_h);
    return REPDL_OK;
}
/* out[i] = repdl_cos_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_cos_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_SCALAR_ARRAY(n, x, out, REPDL__F16, repdl__cos_h);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_COS_H */
