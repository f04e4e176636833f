/* SPDX-License-Identifier: MIT */
/* repdl/detail/half_fmt.h: the private side of the two 16-bit formats of
   half.h (bfloat16 and float16, uint16_t bit patterns): the format
   argument, each format's special patterns, the exact widening to binary32
   and the roundings from binary32 and from double (one rounding, ties to
   even, subnormals and overflow included).  half.h's public conversions,
   half_math.h's 16-bit functions and detail/trigf.h's 16-bit sin and cos
   are built on these; half.h describes the formats and the algorithm. */
#ifndef REPDL_DETAIL_HALF_FMT_H
#define REPDL_DETAIL_HALF_FMT_H

#include "../config.h"
REPDL_BEGIN_CODE

/* The canonical NaNs (public: half.h's). */
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

/* Patterns of each format. */
#define REPDL__H_NAN(fmt) ((fmt) == REPDL__BF16 ? REPDL_BF16_NAN_BITS : REPDL_F16_NAN_BITS)
#define REPDL__H_INF(fmt) ((fmt) == REPDL__BF16 ? 0x7f80u : 0x7c00u)
#define REPDL__H_ONE(fmt) ((fmt) == REPDL__BF16 ? 0x3f80u : 0x3c00u)
#define REPDL__H_HALF(fmt) ((fmt) == REPDL__BF16 ? 0x3f00u : 0x3800u)

REPDL_END_CODE
#endif /* REPDL_DETAIL_HALF_FMT_H */
