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
   The private repdl__d_to_h (detail/half_fmt.h) rounds a double directly
   to either format the same two ways (the 16-bit functions of half_math.h
   use it). */
#ifndef REPDL_HALF_H
#define REPDL_HALF_H

#include "config.h"
#include "detail/half_fmt.h"
REPDL_BEGIN_CODE

/* The canonical NaNs, REPDL_BF16_NAN_BITS (0x7fc0u) and REPDL_F16_NAN_BITS
   (0x7e00u), are defined in detail/half_fmt.h, whose roundings give them. */

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
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    size_t i;
    for (i = 0; i < n; i++) out[i] = repdl_f32_to_bf16(x[i]);
    return REPDL_OK;
}

/* out[i] = repdl_bf16_to_f32(x[i]), i < n (no overlap; n = 0: NULL ok). */
REPDL_API repdl_status repdl_bf16_to_f32_array(size_t n, const uint16_t *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    size_t i;
    for (i = 0; i < n; i++) out[i] = repdl_bf16_to_f32(x[i]);
    return REPDL_OK;
}

/* out[i] = repdl_f32_to_f16(x[i]), i < n (no overlap; n = 0: NULL ok). */
REPDL_API repdl_status repdl_f32_to_f16_array(size_t n, const float *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    size_t i;
    for (i = 0; i < n; i++) out[i] = repdl_f32_to_f16(x[i]);
    return REPDL_OK;
}

/* out[i] = repdl_f16_to_f32(x[i]), i < n (no overlap; n = 0: NULL ok). */
REPDL_API repdl_status repdl_f16_to_f32_array(size_t n, const uint16_t *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    size_t i;
    for (i = 0; i < n; i++) out[i] = repdl_f16_to_f32(x[i]);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_HALF_H */
