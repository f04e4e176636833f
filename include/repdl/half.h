/* SPDX-License-Identifier: MIT */
/* repdl/half.h: bfloat16 and float16 values and their conversions from and
   to binary32.

   The formats, held as uint16_t bit patterns (sign in bit 15):
     bf16  bfloat16: 1 sign, 8 exponent, 7 fraction bits: binary32's
           exponent range with an 8-bit significand (the upper half of a
           binary32); normals from 2^-126, subnormals down to 2^-133,
           largest finite 0x7f7f = (2 - 2^-7) 2^127.
     f16   IEEE 754 binary16: 1 sign, 5 exponent, 7 + 3 fraction bits, an
           11-bit significand; normals from 2^-14, subnormals down to
           2^-24, largest finite 0x7bff = 65504.
   Every NaN result is the canonical NaN of its format: bf16 0x7fc0 (the
   upper half of binary32's 0x7fc00000), f16 0x7e00, binary32 0x7fc00000.

   Accuracy: the conversions to a 16-bit format round to nearest, ties to
   even, once: subnormal results included, overflow to +-inf (a value at or
   beyond the largest finite number plus half its ulp), signed zeros kept.
   The conversions to binary32 are exact (every bf16 and f16 value is a
   binary32).  Proven on every input: all 2^16 patterns of each format to
   binary32 against MPFR; binary32 to each format on all 2^32 patterns
   against a plainly written reference (suite exhaustive), and on a sample
   and every rounding boundary against MPFR too (suite quick):
   tests/half/test_half.c, docs/functions/half.md.

     uint16_t repdl_f32_to_bf16(float x)       float repdl_bf16_to_f32(uint16_t h)
     uint16_t repdl_f32_to_f16(float x)        float repdl_f16_to_f32(uint16_t h)
   and their array forms repdl_f32_to_bf16_array(n, x, out), ...: out[i] is
   the scalar form of x[i], bit for bit; x and out must not overlap; n = 0
   accepts NULL pointers.

   Algorithm, integer operations and one exactly rounded addition:
     binary32 -> bf16   (u + 0x7fff + lsb) >> 16: the 16 bits that drop out
                        decide, ties to the even lsb; a carry runs into the
                        exponent (and from the largest finite into inf).
                        binary32's subnormals are bf16's, on the same grid.
     binary32 -> f16    normal results: the same on the rebiased exponent,
                        13 bits dropped; results below 2^-14: |x| + 1/2 in
                        binary32, whose ulp 2^-24 is f16's subnormal
                        spacing, so that the one rounding of that sum is the
                        rounding to f16 and its low bits are the result.
   The private repdl__d_to_h rounds a double directly to either format the
   same two ways (the 16-bit functions of half_math.h use it). */
#ifndef REPDL_HALF_H
#define REPDL_HALF_H

#include "config.h"
REPDL_BEGIN_CODE

/* The canonical NaNs. */
#define REPDL_BF16_NAN_BITS 0x7fc0u
#define REPDL_F16_NAN_BITS 0x7e00u

/* All ones when c holds, else 0.  The selects below are written with
   these masks, not with ?: on values: a compiler keeps every operation
   unconditional then, which is what lets gcc vectorize the loops under
   -ftrapping-math (its default), and no value depends on which arm runs. */
REPDL_FN uint32_t repdl__mask(int c) { return 0u - (uint32_t)(c != 0); }

/* The format argument of the private helpers below: a constant at every
   call, so each helper folds into one format's code. */
#define REPDL__BF16 0
#define REPDL__F16 1

/* A 16-bit pattern to binary32, exact; a NaN keeps its payload (the public
   conversions canonicalize it).  f16: normal numbers rebias the exponent;
   subnormals (and zero) a 2^-24 are 2^-14 (1 + a 2^-10) - 2^-14, a binary32
   subtraction that is exact (both operands are multiples of 2^-24 in
   [2^-14, 2^-13)). */
REPDL_FN float repdl__h_to_f32(uint32_t h, int fmt)
{
    if (fmt == REPDL__BF16) return repdl__asfloat(h << 16);
    {
        uint32_t a = h & 0x7fffu, s = (h & 0x8000u) << 16;
        uint32_t n = (a << 13) + (112u << 23);                           /* 2^(e-15) (1 + f) */
        uint32_t sub = repdl__asuint(repdl__fsub(repdl__asfloat(n + (1u << 23)),
                                                 repdl__asfloat(113u << 23)));
        uint32_t mn = repdl__mask(a >= 0x0400u), mi = repdl__mask(a >= 0x7c00u);
        /* inf and NaN: n's exponent field 31 + 112 raised to 255, the
           payload kept */
        return repdl__asfloat((((n & mn) | (sub & ~mn)) + (0x38000000u & mi)) | s);
    }
}

/* A binary32 rounded to nearest-even in a 16-bit format (NaN: canonical).
   bf16: the upper half, rounded by the lower.  f16, a = |x| bits:
     a >= 0x477ff000 (65520 = 65504 + ulp/2, and above): inf;
     a >= 0x38800000 (2^-14): rebias (-112 << 23) and round off 13 bits
       the bf16 way; a carry out of 0x7bff gives 0x7c00, inf;
     below: RN(|x| + 1/2) - 1/2 counted in units of 2^-24 (exact: the sum
       lies in [1/2, 1) where the ulp is 2^-24), 0 to 0x400 = 2^-14. */
REPDL_FN uint32_t repdl__f32_to_h(float x, int fmt)
{
    uint32_t u = repdl__asuint(x), a = u & 0x7fffffffu;
    uint32_t nan = repdl__mask(a > 0x7f800000u);
    if (fmt == REPDL__BF16) {
        uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
        return (r & ~nan) | (REPDL_BF16_NAN_BITS & nan);
    }
    {
        uint32_t s = (u >> 16) & 0x8000u;
        uint32_t t = a - (112u << 23);
        uint32_t hn = (t + 0x0fffu + ((t >> 13) & 1u)) >> 13;
        uint32_t hs = repdl__asuint(repdl__fadd(repdl__asfloat(a), 0.5f)) - 0x3f000000u;
        uint32_t mn = repdl__mask(a >= 0x38800000u), mi = repdl__mask(a >= 0x477ff000u);
        uint32_t r = ((((hn & mn) | (hs & ~mn)) & ~mi) | (0x7c00u & mi)) | s;
        return (r & ~nan) | (REPDL_F16_NAN_BITS & nan);
    }
}

/* A double y with 2^(1-B) <= |y| < 2^(B+1) (the format's normal range and
   up to its overflow) rounded to nearest-even in a 16-bit format with p
   fraction bits and bias B (bf16: 7, 127; f16: 10, 15): y's high word,
   rebiased by (1023 - B) << 20, holds the format's exponent and fraction
   above bit 20 - p; the bits below decide, ties to even, with the low
   word's "any bit set" ORed into bit 0 (below the round bit, so that the
   decision is the one the whole 64 bits give; the OR never carries).  A
   carry runs into the exponent, and from the largest finite number into
   inf's pattern.  The sign is y's. */
REPDL_FN uint32_t repdl__d_to_h_normal(double y, int fmt)
{
    const int p = fmt == REPDL__BF16 ? 7 : 10;
    const uint32_t rebias = (uint32_t)(fmt == REPDL__BF16 ? 1023 - 127 : 1023 - 15) << 20;
    uint64_t u = repdl__asuint64(y);
    uint32_t hi = (uint32_t)(u >> 32), lo = (uint32_t)u;
    uint32_t t = ((hi & 0x7fffffffu) - rebias) | (uint32_t)(lo != 0u);
    uint32_t h = (t + ((1u << (19 - p)) - 1u) + ((t >> (20 - p)) & 1u)) >> (20 - p);
    return h | ((hi >> 16) & 0x8000u);
}

/* A finite double y rounded to nearest-even in a 16-bit format, directly
   (one rounding, no binary32 in between), with p fraction bits and bias B
   (bf16: 7, 127; f16: 10, 15):
     |y| >= 2^(B+1) (beyond every finite number and their top midpoint):
       inf;
     |y| >= 2^(1-B) (normal range): repdl__d_to_h_normal;
     |y| <  2^(1-B): RN(|y| + C) with C = 2^(53 - B - p): the exact sum
       lies in [C, 2C), where the ulp of a double is C 2^-52 = 2^(1-B-p),
       the format's subnormal spacing, so the sum's one rounding is the
       rounding to the format, and its bits minus C's count the spacings:
       0 to 2^p, which is the pattern of 2^(1-B), the smallest normal.
   The sign is y's (so -0 and +0 stay apart).  Every operation is exact
   or is the one rounding: no contraction (one addition, no product) and no
   compiler can change the result. */
REPDL_FN uint32_t repdl__d_to_h(double y, int fmt)
{
    /* the high words of 2^(1-B) and 2^(B+1) (both powers of two: their
       low words are 0, so comparing high words compares |y| with them) */
    const uint32_t tiny = fmt == REPDL__BF16 ? 0x38100000u : 0x3f100000u;   /* 2^-126, 2^-14 */
    const uint32_t huge = fmt == REPDL__BF16 ? 0x47f00000u : 0x40f00000u;   /* 2^128, 2^16 */
    /* C = 2^(53-B-p): 2^-81, 2^28 (bit patterns: C++14 has no hex floats) */
    const double c = repdl__asdouble(fmt == REPDL__BF16 ? 0x3ae0000000000000u : 0x41b0000000000000u);
    const uint32_t inf = fmt == REPDL__BF16 ? 0x7f80u : 0x7c00u;
    uint64_t u = repdl__asuint64(y), a = u & 0x7fffffffffffffffu;
    uint32_t ahi = (uint32_t)(a >> 32), s = (uint32_t)(u >> 48) & 0x8000u;
    uint32_t hn = repdl__d_to_h_normal(y, fmt);   /* sign included */
    uint32_t hs = (uint32_t)(repdl__asuint64(repdl__dadd(repdl__asdouble(a), c)) - repdl__asuint64(c)) | s;
    uint32_t mn = repdl__mask(ahi >= tiny), mi = repdl__mask(ahi >= huge);
    return (((hn & mn) | (hs & ~mn)) & ~mi) | ((inf | s) & mi);
}

/* repdl__d_to_h for scalar code: the normal range, nearly every result,
   takes a branch that skips the other two computations (the same bits). */
REPDL_FN uint32_t repdl__d_to_h_1(double y, int fmt)
{
    const uint32_t tiny = fmt == REPDL__BF16 ? 0x38100000u : 0x3f100000u;
    const uint32_t huge = fmt == REPDL__BF16 ? 0x47f00000u : 0x40f00000u;
    uint32_t ahi = (uint32_t)(repdl__asuint64(y) >> 32) & 0x7fffffffu;
    if (REPDL_LIKELY(ahi - tiny < huge - tiny)) return repdl__d_to_h_normal(y, fmt);
    return repdl__d_to_h(y, fmt);
}

/* ---- The public conversions ---- */

/* x, or 0x7fc00000 when x is a NaN (config.h's repdl__canon, by the bits
   and with a mask, for the vectorized loops). */
REPDL_FN float repdl__h_canon(float x)
{
    uint32_t u = repdl__asuint(x), nan = repdl__mask((u & 0x7fffffffu) > 0x7f800000u);
    return repdl__asfloat((u & ~nan) | (REPDL_NAN_BITS & nan));
}

/* x rounded to nearest-even bfloat16 (NaN: 0x7fc0). */
REPDL_API uint16_t repdl_f32_to_bf16(float x)
{
    return (uint16_t)repdl__f32_to_h(x, REPDL__BF16);
}

/* The bfloat16 h as a binary32, exact (NaN: 0x7fc00000). */
REPDL_API float repdl_bf16_to_f32(uint16_t h)
{
    return repdl__h_canon(repdl__h_to_f32(h, REPDL__BF16));
}

/* x rounded to nearest-even float16 (NaN: 0x7e00). */
REPDL_API uint16_t repdl_f32_to_f16(float x)
{
    return (uint16_t)repdl__f32_to_h(x, REPDL__F16);
}

/* The float16 h as a binary32, exact (NaN: 0x7fc00000). */
REPDL_API float repdl_f16_to_f32(uint16_t h)
{
    return repdl__h_canon(repdl__h_to_f32(h, REPDL__F16));
}

/* out[i] = repdl_f32_to_bf16(x[i]), i < n.  x and out must not overlap;
   n = 0 accepts NULL pointers.  (The loops are branch-free: compilers
   vectorize them.) */
REPDL_API repdl_status repdl_f32_to_bf16_array(size_t n, const float *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    size_t i;
    for (i = 0; i < n; i++) out[i] = repdl_f32_to_bf16(x[i]);
    return REPDL_OK;
}

/* out[i] = repdl_bf16_to_f32(x[i]), i < n (no overlap; n = 0: NULL ok). */
REPDL_API repdl_status repdl_bf16_to_f32_array(size_t n, const uint16_t *x, float *out)
{
    REPDL__FPENV_CHECK();
    size_t i;
    for (i = 0; i < n; i++) out[i] = repdl_bf16_to_f32(x[i]);
    return REPDL_OK;
}

/* out[i] = repdl_f32_to_f16(x[i]), i < n (no overlap; n = 0: NULL ok). */
REPDL_API repdl_status repdl_f32_to_f16_array(size_t n, const float *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    size_t i;
    for (i = 0; i < n; i++) out[i] = repdl_f32_to_f16(x[i]);
    return REPDL_OK;
}

/* out[i] = repdl_f16_to_f32(x[i]), i < n (no overlap; n = 0: NULL ok). */
REPDL_API repdl_status repdl_f16_to_f32_array(size_t n, const uint16_t *x, float *out)
{
    REPDL__FPENV_CHECK();
    size_t i;
    for (i = 0; i < n; i++) out[i] = repdl_f16_to_f32(x[i]);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_HALF_H */
