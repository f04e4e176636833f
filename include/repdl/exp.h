/* SPDX-License-Identifier: MIT */
/* repdl/exp.h: correctly rounded natural exponential of a binary32 value.

   Accuracy: repdl_exp_f32(x) is exp(x) rounded to nearest-even binary32 for
   every binary32 x, subnormal results included (exp(x) > 2^-150) and
   overflow to +inf; exp(+-0) = 1, exp(-inf) = +0, exp(+inf) = +inf, NaN ->
   the canonical NaN 0x7fc00000.  Proven by comparing all 2^32 inputs with
   MPFR, in both contracted and uncontracted builds (docs/functions/expf.md).

   Algorithm, in double:
     exp(x) = 2^(k/256) exp(r),          k = round(x 256/ln2), r = x - k ln2/256
            = 2^(k>>8) T[k&255] (1 + q(r)),  |r| <= ln2/512 (+2^-36 ln2/256)
     T[j] = 2^(j/256) rounded to double, q(r) = r + r^2 (c2 + c3 r + c4 r^2)
     y = s + s q with s = 2^(k>>8) T[j]:  |y / exp(x) - 1| < 2^-52.07
   then y is rounded to binary32 when a rounding test proves that rounding
   correct (repdl__round_ok_normal of detail/cr.h, a cheap integer test, then
   repdl__round_ok of detail/cr.h); the few other inputs are listed, with
   their correctly rounded results, in detail/expf_hard.inc.

   Fast path (repdl_exp_f32, |x| <= 87), tried first:
     w = x 256/ln2 = k + d, k = round(w), |d| <= 1/2,
     exp(x) = 2^(w/256) = 2^(k>>8) T[k&255] 2^(d/256) ~ s P(d),
     P(d) = (1 + e1 d) + d^2 (e2 + e3 d)  (degree 3; tanh.h's P of -d)
   with |y / exp(x) - 1| < 2^-44.68 (reference/gen/expf.py), under a rounding
   test with a margin to match (REPDL__EXPF_FAST_C); where it fails (about
   one input in 2^19) the approximation above decides, as before.

   Constants and table: reference/gen/expf.py; polynomial:
   reference/gen/expf.sollya; error bound: reference/gen/expf.py (it prints
   each term of the bound below).  The table T and the reduction live in
   detail/exp_table.h, shared with exp2.h, expm1.h, tanh.h and the
   activations.

   Also: repdl_exp_array_f32(n, x, out), the same results for an array, in a
   form that compilers vectorize. */
#ifndef REPDL_EXP_H
#define REPDL_EXP_H

#include "config.h"
#include "detail/cr.h"
#include "detail/exp_table.h"
REPDL_BEGIN_CODE

/* Relative error bound of repdl__expf_y's y on every path (fused or not),
   including the 2^-53 rounding of the rounding test's own products:
   2^-51.46 (reference/gen/expf.py), rounded up. */
#define REPDL__EXPF_ERR 4.440892098500626e-16 /* 0x1p-51 */

/* y ~ exp(x) for x in the approximation domain, no special-case test. */
REPDL_FN double repdl__expf_core(float x)
{
    double s;
    uint64_t j;
    double r = repdl__exp_reduce(repdl__f2d(x), &s, &j);
    /* degree-4, Sollya (reference/gen/expf.sollya), [-0x1.63p-10, 0x1.63p-10]:
       |(1 + q(r)) / exp(r) - 1| < 2^-57.45 */
    double r2 = repdl__dmul(r, r);
    double a = repdl__dadd(0.5000000000000233, repdl__dmul(r, 0.16666668003889068));
    double p = repdl__dadd(a, repdl__dmul(r2, 0.0416666536383358));
    /* y = s (1 + q) = s + (s r + (s r2) p), in this order so that s r and
       s r2 are ready when p is (a shorter dependency chain).  |s q| < 0.0014 s:
       the roundings of r2, a, p, s r, s r2, (s r2) p and s r + (s r2) p add
       up to < 2^-61.5 s; the final sum rounds by <= 2^-53 |y|.  With the
       table's 0.851 2^-53, the polynomial's 2^-57.45 and the reduction's
       2^-63: |y / exp(x) - 1| < 1.90 2^-53 (reference/gen/expf.py), fused
       or not. */
    double sr = repdl__dmul(s, r), sr2 = repdl__dmul(s, r2);
    return repdl__dadd(s, repdl__dadd(sr, repdl__dmul(sr2, p)));
}

/* c of repdl__round_ok_normal for repdl__expf_fast's y: its relative
   error is below 2^-44.68 = 319 2^-53 < (c - 1) 2^-53 / (1 + 2^-50)
   (reference/gen/expf.py).  The test fails with probability about
   2c / 2^29 = 2^-19. */
#define REPDL__EXPF_FAST_C 0x200u /* 2^9 */

/* y ~ exp(x) for |x| <= 87 (no special-case test), the fast path:
   |y / exp(x) - 1| < 2^-44.68, fused or not (reference/gen/expf.py). */
REPDL_FN double repdl__expf_fast(float x)
{
    double xd = repdl__f2d(x);
    /* w = x 256/ln2: the constant has relative error 0.13 2^-53, the
       product rounds by <= 2^-53 |w| (|w| < 32200); fused into z or d
       below, it is exact there.  d is within 1.13 2^-53 |w| of the exact
       x 256/ln2 - k: 2^(d/256) is off by < 1.13 |x| 2^-53 <= 2^6.6 2^-53
       relative. */
    double w = repdl__dmul(xd, 369.3299304675746);
    /* k = round(w) in z's low bits, kd = k and d = w - k exactly (as in
       tanh.h's fast path), |d| <= 1/2 + 2^-40 fused or not */
    double z = repdl__dadd(w, 6755399441055744.0);
    uint64_t ki = repdl__asuint64(z);
    double kd = repdl__dsub(z, 6755399441055744.0);
    double d = repdl__dsub(w, kd);
    /* s = 2^(k>>8) T[k&255], exact, |s / 2^(k/256) - 1| < 0.851 2^-53 */
    double s = repdl__asdouble(repdl__exp2_256_bits(ki & 255u) + (ki << 44));
    /* P ~ 2^(d/256): tanh.h's degree-3 polynomial of -d (Sollya,
       reference/gen/tanhf.sollya), |d| <= 1/2 + 2^-30, absolute error
       < 2^-45.24; its evaluation rounds by < 2^-52, fused or not. */
    double d2 = repdl__dmul(d, d);
    double P = repdl__dadd(repdl__dadd(1.0, repdl__dmul(d, 0.002707606174062255)),
                           repdl__dmul(d2, repdl__dadd(3.665566060704176e-06,
                                                       repdl__dmul(d, 3.3083031092022797e-09))));
    /* one more rounding */
    return repdl__dmul(s, P);
}

/* 1 with *y ~ exp(x), |*y / exp(x) - 1| < REPDL__EXPF_ERR - 2^-53, when x
   takes the approximation path: -0x1.9fe368p6 <= x <= 0x1.62e42ep6.
   0 for the special cases that repdl_exp_f32 answers exactly: NaN, x > 0x1.62e42ep6
   (exp(x) >= FLT_MAX + ulp/2, so +inf, including +inf) and x < -0x1.9fe368p6
   (exp(x) < 2^-150, so +0, including -inf). */
REPDL_FN int repdl__expf_y(float x, double *y)
{
    uint32_t ux = repdl__asuint(x);
    if (REPDL_UNLIKELY((ux & 0x7fffffffu) > 0x42b17217u)) {  /* |x| > 0x1.62e42ep6, inf, NaN */
        if (ux < 0x80000000u || ux > 0xc2cff1b4u)
            return 0;                                          /* +overflow, +inf, -underflow, -inf, NaN */
    }
    *y = repdl__expf_core(x);
    return 1;
}

/* repdl_exp_f32 off its fast path: |x| > 87 (overflow, underflow and
   subnormal results, inf, NaN) and the fast rounding test's failures. */
REPDL_FN_NOINLINE float repdl__expf_slow(float x)
{
    double y;
    if (!repdl__expf_y(x, &y)) {
        if (repdl__fne(x, x)) return repdl__nanf();
        return repdl__fgt(x, 0.0f) ? repdl__asfloat(0x7f800000u) : 0.0f;
    }
    /* |x| <= 87 keeps exp(x) in [2^-125.5, 2^125.6]: a normal binary32 */
    if (REPDL_LIKELY(((repdl__asuint(x) & 0x7fffffffu) <= 0x42ae0000u) & repdl__round_ok_normal(y, 4u)))
        return repdl__d2f(y);
    {
        static const repdl__hardcase tab[] = {
#include "detail/expf_hard.inc"
        };
        return repdl__cr_round(x, y, REPDL__EXPF_ERR, tab, REPDL__HARD_N(tab));
    }
}

/* exp(x) correctly rounded to binary32 (round to nearest even). */
REPDL_API float repdl_exp_f32(float x)
{
    /* The fast path runs first, on every input (on NaN, inf or huge x it
       computes garbage, harmlessly: the table index is masked), so that one
       branch tests both conditions: |x| <= 87, so exp(x) is in
       [2^-125.5, 2^125.6] and y rounds to a normal binary32, and the fast
       rounding test. */
    double y = repdl__expf_fast(x);
    if (REPDL_LIKELY(((repdl__asuint(x) & 0x7fffffffu) <= 0x42ae0000u) &
                     repdl__round_ok_normal(y, REPDL__EXPF_FAST_C)))
        return repdl__d2f(y);
    return repdl__expf_slow(x);
}

/* One element of repdl_exp_array_f32's branch-free pass (detail/cr.h's
   skeleton): the approximation runs on every element; NaN, overflow and
   underflow to 0 are answered by selects; flagged for repdl_exp_f32:
   87 < |x| within the approximation domain, and the rare (about 1 in
   2^24) failures of the fast rounding test. */
REPDL_FN uint32_t repdl__exp_lane(uint32_t ux, uint32_t *fail)
{
    int ovf = (ux > 0x42b17217u) & (ux <= 0x7f800000u);        /* +inf */
    int unf = (ux > 0xc2cff1b4u) & (ux <= 0xff800000u);        /* +0 */
    int nan = (ux & 0x7fffffffu) > 0x7f800000u;                /* NaN */
    int sp = ovf | unf | nan;
    int fast = (ux & 0x7fffffffu) <= 0x42ae0000u;              /* as repdl_exp_f32 */
    /* specials run the approximation on a harmless argument: x with its
       exponent field cleared (|.| < 2^-126); an input-dependent value
       keeps compilers from branching around a constant */
    double y = repdl__expf_core(repdl__asfloat(ux & (sp ? 0x807fffffu : 0xffffffffu)));
    uint32_t r = repdl__asuint(repdl__d2f(y));
    /* selects as masks, so that no compiler moves the conversion above
       into a branch (which would stop vectorization) */
    uint32_t spm = 0u - (uint32_t)sp;
    *fail = (uint32_t)(!sp & !(fast & repdl__round_ok_normal(y, 4u)));
    return (r & ~spm) | (0x7f800000u & (0u - (uint32_t)ovf)) |
           (REPDL_NAN_BITS & (0u - (uint32_t)nan));
}

/* The array form: out[i] = repdl_exp_f32(x[i]) for 0 <= i < n, bit for bit
   (detail/cr.h's skeleton).  out may be x itself (in place), otherwise the
   two must not overlap; n = 0 accepts NULL pointers. */
REPDL_API repdl_status repdl_exp_array_f32(size_t n, const float *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__CR_ARRAY(n, x, out, repdl__exp_lane, repdl_exp_f32);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_EXP_H */
