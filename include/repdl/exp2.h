/* SPDX-License-Identifier: MIT */
/* repdl/exp2.h: correctly rounded base-2 exponential of a binary32 value.

   Accuracy: repdl_exp2_f32(x) is 2^x rounded to nearest-even binary32 for
   every binary32 x, subnormal results included and overflow to +inf;
   exp2(+-0) = 1, exp2(-inf) = +0, exp2(+inf) = +inf, NaN -> the canonical
   NaN 0x7fc00000.  Integer x gives the exact power of two (x in [-149, 127]),
   x = -150 gives +0 (2^-150 is exactly the midpoint between +0 and the
   smallest subnormal, and ties go to even) and x >= 128 gives +inf.
   Proven by comparing all 2^32 inputs with MPFR (docs/functions/exp2f.md).

   Algorithm, in double:
     w = 256 x = k + d,  k = round(w), |d| <= 1/2  (both exact: w is x with
                                                   its exponent moved)
     2^x = 2^(k/256) 2^(d/256) = 2^(k>>8) T[k&255] 2^(d/256)
         ~ s (1 + q(d)),  s = 2^(k>>8) T[k&255],  q(d) = e1 d + ... + e4 d^4
   T is exp.h's table (repdl__exp2_256_bits, detail/exp_table.h), s exact;
   q is a degree-4 polynomial (reference/gen/exp2f.sollya,
   |(1 + q) / 2^(d/256) - 1| < 2^-58.53).  y = s + s q: |y / 2^x - 1| < 1.88 2^-53 on every path, fused or
   not (reference/gen/exp2f.py).  The reduction has no rounding error at
   all (unlike exp's), and d = 0 gives q = 0 and y = s exactly: every
   integer x gets its exact power of two, which the rounding test accepts
   (a binary32 value is far from every rounding boundary).  Then y is
   rounded to binary32 when a rounding test proves that rounding correct
   (detail/cr.h's repdl__round_ok_normal, a cheap integer test, then
   repdl__round_ok); the few other inputs are listed, with their correctly
   rounded results, in detail/exp2f_hard.inc.
   Exactly handled, outside that path:
     x >= 128 (+inf included):   2^x >= 2^128 > FLT_MAX + ulp/2: +inf;
     x <= -150 (-inf included):  2^x <= 2^-150, half the smallest subnormal
                                 (a tie, to even: +0) or less: +0;
     NaN:                        the canonical NaN.
   Every x in (-150, 128) takes the approximation path: 2^x < 2^128
   (1 - 2^-18) for x <= 128 - 2^-17, finite in binary32.

   Constants, thresholds and error bound: reference/gen/exp2f.py (--check
   checks this file); polynomial: reference/gen/exp2f.sollya.

   Also: repdl_exp2_array_f32(n, x, out), the same results for an array,
   in a form that compilers vectorize; repdl_exp2_bf16, repdl_exp2_f16 and
   their array forms (bfloat16 and float16 bit patterns, half.h), each
   rounded once from y. */
#ifndef REPDL_EXP2_H
#define REPDL_EXP2_H

#include "config.h"
#include "detail/cr.h"
#include "detail/exp_table.h"
#include "half.h"
#include "half_math.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__exp2f_y's y on every path (fused or not),
   including the 2^-53 rounding of the rounding test's own products:
   2.88 2^-53 (reference/gen/exp2f.py), rounded up. */
#define REPDL__EXP2F_ERR 4.440892098500626e-16 /* 0x1p-51 */

/* y ~ 2^x for -150 < x < 128 (no special-case test). */
REPDL_FN double repdl__exp2f_core(float x)
{
    /* w = 256 x: exact (|w| < 38400).  z = w + 0x1.8p52 rounds w to the
       integer k (ties to even) in z's low bits; kd = k and d = w - k are
       exact (Sterbenz), |d| <= 1/2.  No product here for a compiler to
       fuse. */
    double w = repdl__dmul(repdl__f2d(x), 256.0);
    double z = repdl__dadd(w, 6755399441055744.0);
    uint64_t ki = repdl__asuint64(z);
    double kd = repdl__dsub(z, 6755399441055744.0);
    double d = repdl__dsub(w, kd);
    /* s = 2^(k>>8) T[k&255], exact (exp.h: ki << 44 adds k>>8 to T[j]'s
       exponent; |k>>8| <= 150 keeps s a normal double),
       |s / 2^(k/256) - 1| < 0.851 2^-53 */
    double s = repdl__asdouble(repdl__exp2_256_bits(ki & 255u) + (ki << 44));
    /* q = d p, p = (e1 + e2 d) + d^2 (e3 + e4 d): degree-4, Sollya
       (reference/gen/exp2f.sollya), |d| <= 1/2, |(1 + q) / 2^(d/256) - 1| <
       2^-58.53.  |q| < 2^-9.5: the roundings of a, b, d2, d2 b, p, q and
       s q add up to < 2^-61 s; the final sum rounds by <= 2^-53 |y|
       (reference/gen/exp2f.py: |y / 2^x - 1| < 1.88 2^-53, fused or not).
       d = 0: q = 0 and y = s exactly, fused or not. */
    double d2 = repdl__dmul(d, d);
    double a = repdl__dadd(0.002707606174062263, repdl__dmul(d, 3.6655655969101393e-06));
    double b = repdl__dadd(3.3083030586600388e-09, repdl__dmul(d, 2.2393951513436906e-12));
    double q = repdl__dmul(d, repdl__dadd(a, repdl__dmul(d2, b)));
    return repdl__dadd(s, repdl__dmul(s, q));
}

/* 1 with *y ~ 2^x, |*y / 2^x - 1| < REPDL__EXP2F_ERR - 2^-53, when
   -150 < x < 128; 0 for the special cases that repdl_exp2_f32 answers
   exactly: NaN, x >= 128 (+inf, +inf included), x <= -150 (+0, -inf
   included). */
REPDL_FN int repdl__exp2f_y(float x, double *y)
{
    uint32_t ux = repdl__asuint(x);
    /* 0x43000000 = 128, 0xc3160000 = -150 */
    if (REPDL_UNLIKELY((ux >= 0x43000000u) & ((ux < 0x80000000u) | (ux >= 0xc3160000u))))
        return 0;
    *y = repdl__exp2f_core(x);
    return 1;
}

/* c of repdl__round_ok_normal for repdl__exp2f_core's y: its relative
   error (without the test's own roundings) is below 1.88 2^-53 <
   (c - 1) 2^-53 / (1 + 2^-50) for c = 3; 4 as in exp.h. */
#define REPDL__EXP2F_TOL 4u

/* exp2(x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_exp2_f32(float x)
{
    double y;
    if (REPDL_UNLIKELY(!repdl__exp2f_y(x, &y))) {
        if (repdl__fne(x, x)) return repdl__nanf();
        return repdl__fgt(x, 0.0f) ? repdl__asfloat(0x7f800000u) : 0.0f;
    }
    /* x > -126 (bits <= 0xc2fc0000 among the negatives): 2^x > 2^-126, so
       y rounds to a normal binary32 (or, for x just below 128, to a value
       below 2^128 (1 - 2^-18)), where the integer test holds */
    if (REPDL_LIKELY((repdl__asuint(x) <= 0xc2fc0000u) & repdl__round_ok_normal(y, REPDL__EXP2F_TOL)))
        return repdl__d2f(y);
    {
        /* inputs whose y fails the test with 4E, with MPFR's results
           (reference/hardcases.c) */
        static const repdl__hardcase tab[] = {
#include "detail/exp2f_hard.inc"
        };
        return repdl__cr_round(x, y, REPDL__EXP2F_ERR, tab, REPDL__HARD_N(tab));
    }
}

/* One element of repdl_exp2_array_f32's branch-free pass (detail/cr.h's
   skeleton): the approximation runs on every element; NaN, overflow and
   underflow to 0 are answered by selects; flagged for repdl_exp2_f32:
   subnormal results (-150 < x <= -126) and the rare (about 1 in 2^25)
   failures of the integer rounding test. */
REPDL_FN uint32_t repdl__exp2_lane(uint32_t ux, uint32_t *fail)
{
    int ovf = (ux >= 0x43000000u) & (ux <= 0x7f800000u);       /* +inf */
    int unf = (ux >= 0xc3160000u) & (ux <= 0xff800000u);       /* +0 */
    int nan = (ux & 0x7fffffffu) > 0x7f800000u;                /* NaN */
    int sp = ovf | unf | nan;
    int nrm = ux <= 0xc2fc0000u;                               /* as repdl_exp2_f32 */
    /* specials run the approximation on a harmless argument: x with its
       exponent field cleared (|.| < 2^-126) */
    double y = repdl__exp2f_core(repdl__asfloat(ux & (sp ? 0x807fffffu : 0xffffffffu)));
    uint32_t r = repdl__asuint(repdl__d2f(y));
    uint32_t spm = 0u - (uint32_t)sp;
    *fail = (uint32_t)(!sp & !(nrm & repdl__round_ok_normal(y, REPDL__EXP2F_TOL)));
    return (r & ~spm) | (0x7f800000u & (0u - (uint32_t)ovf)) |
           (REPDL_NAN_BITS & (0u - (uint32_t)nan));
}

/* The array form: out[i] = repdl_exp2_f32(x[i]) for 0 <= i < n, bit for
   bit (detail/cr.h's skeleton).  out may be x itself (in place), otherwise
   the two must not overlap; n = 0 accepts NULL pointers. */
REPDL_API repdl_status repdl_exp2_array_f32(size_t n, const float *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__CR_ARRAY(n, x, out, repdl__exp2_lane, repdl_exp2_f32);
    return REPDL_OK;
}

/* ---- bfloat16 and float16 (half.h bit patterns) ----
   y of repdl__exp2f_y rounded once to the 16-bit format (half.h's
   repdl__d_to_h_1): tests/half/test_half_fn.c proves, for each of the
   2^16 inputs of each format, that 2^x lies farther than REPDL__EXP2F_ERR
   from every rounding boundary of the format, or that y is 2^x exactly
   (integer x: d = 0, y = s on every path).  The exact ties, 2^-25 (f16)
   and 2^-134 (bf16), half the smallest subnormal of the format, round to
   even, +0, as 2^x does.  Outside repdl__exp2f_y's domain repdl_exp2_f32's
   result (+inf, +0, NaN) is exact. */
REPDL_FN uint32_t repdl__exp2_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__exp2f_y(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__f32_to_h(repdl_exp2_f32(x), fmt);
}

/* One element of the 16-bit array forms' branch-free pass (half_math.h's
   skeleton): specials answered by selects, nothing flagged. */
REPDL_FN uint32_t repdl__exp2_h_lane(uint32_t h, int fmt, uint32_t *fail)
{
    uint32_t ux = repdl__asuint(repdl__h_to_f32(h, fmt));
    uint32_t ovf = (uint32_t)((ux >= 0x43000000u) & (ux <= 0x7f800000u));
    uint32_t unf = (uint32_t)((ux >= 0xc3160000u) & (ux <= 0xff800000u));
    uint32_t nan = (uint32_t)((ux & 0x7fffffffu) > 0x7f800000u);
    uint32_t sp = ovf | unf | nan;
    /* specials: x with its exponent field cleared, |.| < 2^-126 */
    double y = repdl__exp2f_core(repdl__asfloat(ux & (sp ? 0x807fffffu : 0xffffffffu)));
    uint32_t r = repdl__d_to_h(y, fmt);
    *fail = 0;
    return (r & (sp - 1u)) | (REPDL__H_INF(fmt) & (0u - ovf)) | (REPDL__H_NAN(fmt) & (0u - nan));
}

/* 2^x correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_exp2_bf16(uint16_t x) { return (uint16_t)repdl__exp2_h(x, REPDL__BF16); }
/* 2^x correctly rounded to float16. */
REPDL_API uint16_t repdl_exp2_f16(uint16_t x) { return (uint16_t)repdl__exp2_h(x, REPDL__F16); }
/* out[i] = repdl_exp2_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_exp2_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__BF16, repdl__exp2_h_lane, repdl__exp2_h);
    return REPDL_OK;
}
/* out[i] = repdl_exp2_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_exp2_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__F16, repdl__exp2_h_lane, repdl__exp2_h);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_EXP2_H */
