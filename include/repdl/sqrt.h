/* SPDX-License-Identifier: MIT */
/* repdl/sqrt.h: correctly rounded square root of a binary32 value.

   Accuracy: repdl_sqrt_f32(x) is sqrt(x) rounded to nearest-even binary32 for
   every binary32 x: IEEE 754 requires it of the square root instruction of
   every platform repdl runs on (x86 sqrtss/sqrtps, AArch64 fsqrt, PTX
   sqrt.rn.f32), so repdl only removes what differs between platforms:
     sqrt(+-0) = +-0 (the sign is kept), sqrt(+inf) = +inf, subnormal inputs
     are ordinary inputs, and sqrt(x < 0) (-inf included) and sqrt(NaN) are
     the canonical NaN 0x7fc00000 (x86 returns 0xffc00000 for sqrt(-1) and
     keeps NaN payloads; NVIDIA GPUs return 0x7fffffff).
   No errno, whatever the C library does.  Proven by comparing all 2^32
   inputs with MPFR (docs/functions/sqrtf.md).

   Which instruction (config.h, repdl__fsqrt): the compiler builtin when
   -fno-math-errno is in force (then repdl_sqrt_array_f32 vectorizes), inline
   assembly on x86-64, AArch64, RISC-V and POWER otherwise (correct, but a
   compiler does not vectorize inline assembly), __fsqrt_rn on the device. */
#ifndef REPDL_SQRT_H
#define REPDL_SQRT_H

#include "config.h"
REPDL_BEGIN_CODE

/* Correctly rounded sqrt(x) (see the top of this file). */
REPDL_API float repdl_sqrt_f32(float x)
{
    return repdl__canon(repdl__fsqrt(x));
}

/* out[k] = repdl_sqrt_f32(x[k]) for k < n, bit for bit.  out may be x itself
   (in place) but must not overlap it otherwise; n = 0 (x, out may then be
   NULL) does nothing. */
REPDL_API void repdl_sqrt_array_f32(size_t n, const float *x, float *out)
{
    size_t k;
    for (k = 0; k < n; k++) out[k] = repdl_sqrt_f32(x[k]);
}

REPDL_END_CODE
#endif /* REPDL_SQRT_H */
