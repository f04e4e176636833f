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
#include "detail/barrier.h"
REPDL_BEGIN_CODE

/* Correctly rounded sqrt(x) (see the top of this file).  The result is a
   NaN exactly when x is not >= 0 (x < 0, -inf or NaN; -0 >= 0 holds), so
   the canonical NaN is chosen by testing x rather than the square root:
   the test does not wait for the square root, and sqrt(x) is returned as
   the instruction gives it (repdl__canon of the result, as before, put a
   round trip through an integer register after it: 1.6x glibc's latency
   at -O2, docs/bench-math.md). */
REPDL_API float repdl_sqrt_f32(float x)
{
    float r = repdl__fsqrt(x);
#if REPDL__FSQRT_VEC
    /* a select, which loops over this function vectorize (compare and
       blend) */
    return repdl__fge(x, 0.0f) ? r : repdl__nanf();
#else
    /* repdl__fsqrt is inline assembly, which no loop vectorizes: a branch
       instead of a select (the opaque repdl__fkeep keeps the compiler from
       turning it into a blend, which would wait for the square root) */
    return REPDL_LIKELY(repdl__fge(x, 0.0f)) ? r : repdl__fkeep(repdl__nanf());
#endif
}

/* out[k] = repdl_sqrt_f32(x[k]) for k < n, bit for bit.  out may be x itself
   (in place) but must not overlap it otherwise; n = 0 (x, out may then be
   NULL) does nothing. */
REPDL_API repdl_status repdl_sqrt_array_f32(size_t n, const float *x, float *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
#if REPDL__FSQRT_VEC
    size_t k;
    for (k = 0; k < n; k++) out[k] = repdl_sqrt_f32(x[k]);
#else
    /* The scalar form's square root is inline assembly, which no loop
       vectorizes: copy, take every square root with config.h's
       repdl__fsqrt_n (sqrtps: the same IEEE square root, 4 or 8 at a
       time), then canonicalize.  The same bits as repdl_sqrt_f32: for
       x >= 0 (-0 and +inf included) sqrt(x) is a number, returned as is;
       for x < 0 and NaN the instruction gives a NaN (s != s), which the
       scalar form answers with the canonical NaN, and so does the select
       below (a loop that vectorizes).  In place (out == x) the copy is
       skipped. */
    size_t k;
    if (n == 0) return REPDL_OK;
    if (out != x)
        for (k = 0; k < n; k++) out[k] = x[k];
    repdl__fsqrt_n(out, n);
    for (k = 0; k < n; k++) out[k] = repdl__fne(out[k], out[k]) ? repdl__nanf() : out[k];
#endif
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_SQRT_H */
