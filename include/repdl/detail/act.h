/* SPDX-License-Identifier: MIT */
/* repdl/detail/act.h: what the correctly rounded activations silu.h,
   gelu.h, gelu_tanh.h and softplus.h share: the tiny rule of silu, gelu
   and gelu_tanh (0 < |x| < 2^-60: x/2 moved one binary64 ulp towards
   +inf; silu.h proves it, gelu.h and gelu_tanh.h cite it) and the special
   results and branch-free lane of their bfloat16 and float16 forms. */
#ifndef REPDL_DETAIL_ACT_H
#define REPDL_DETAIL_ACT_H

#include "../config.h"
#include "half_fmt.h"
REPDL_BEGIN_CODE

/* x/2 moved one binary64 ulp towards +inf, for 0 < |x| < 2^-60: the tiny
   rule of silu, gelu and gelu_tanh (silu.h proves it), also their 16-bit
   forms' */
REPDL_FN double repdl__act_tiny_d(float x)
{
    double y1 = repdl__dmul(repdl__f2d(x), 0.5);                 /* exact, normal */
    uint64_t u = repdl__asuint64(y1);
    u = repdl__fgt(x, 0.0f) ? u + 1u : u - 1u;                   /* towards +inf */
    return repdl__asdouble(u);
}

/* silu(x) for |x| < 2^-60 (silu.h) */
REPDL_FN float repdl__siluf_tiny(float x)
{
    if (repdl__feq(x, 0.0f)) return x;
    return repdl__d2f(repdl__act_tiny_d(x));
}

/* ---- bfloat16 and float16 forms of silu, softplus, gelu, gelu_tanh ----
   repdl_F_bf16(x), repdl_F_f16(x) and their array forms (half.h's bit
   patterns): F(x) rounded once to nearest-even in the 16-bit format of x,
   directly from the binary32 function's double approximation y
   (repdl__Ff_y, |y / F(x) - 1| < E on every path (REPDL__SILUF_ERR,
   REPDL__SOFTPLUSF_ERR, REPDL__GELUF_ERR, REPDL__GELU_TANHF_ERR), fused or
   not) by half.h's repdl__d_to_h: no binary32 rounding in between, which
   would be a double rounding (wrong on the inputs that
   tests/half/test_half_fn.c counts and asserts).  Why one rounding of y is
   correct in every build (half_math.h's margin proof): the test checks
   with MPFR, for all 2^16 inputs of each format, that F(x) lies farther
   than E from every rounding boundary of the format (subnormal ones and
   the one above the largest finite value included).
   Outside repdl__Ff_y's domain, exactly (the thresholds of the binary32
   functions, in their headers; each input is a binary32 value, so the binary32
   arguments hold):
     NaN:                       the format's canonical NaN;
     x at or above the upper    F(x) = x (1 - d), 0 < d < 2^-25 (softplus:
     threshold, +inf:           x + d, 0 < d < e^-16 < 2^-27 x), far inside
                                half an ulp of x (2^-9 x or more): x itself,
                                which the format holds (h is the answer);
     x beyond the lower         |F(x)| < 2^-150, far below half the least
     threshold, -inf:           subnormal of either format (2^-134, 2^-25):
                                -0 (silu, gelu, gelu_tanh), +0 (softplus);
     silu, gelu, gelu_tanh      F(x) lies above x/2 (towards +inf) by less
     at +-0 and 0 < |x|         than 2^-61 |x/2|; x/2 is a value of the
     < 2^-60 (bf16 only:        format or (x the least subnormals) a
     f16's least subnormal      midpoint, every other boundary at least
     is 2^-24):                 2^-10 |x/2| away: x/2 moved one binary64
                                ulp towards +inf (repdl__act_tiny_d) rounds
                                as F(x); +-0 -> +-0.
   Array forms: out may be x (in place), no other overlap; n = 0 accepts
   NULL.  silu, gelu_tanh: a branch-free pass (half_math.h's skeleton)
   answers the specials by selects and flags only 0 < |x| < 2^-60 for the
   scalar form.  gelu: the scalar form per element after a vectorized
   conversion of each chunk (REPDL__H_CONV_ARRAY: its y's pieces and exp
   made a branch-free lane 3x slower). */

/* The 16-bit result of silu, gelu or gelu_tanh outside their y's domain
   (above): h is x's pattern. */
REPDL_FN uint32_t repdl__act_h_special(uint32_t h, float x, int fmt)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    if (ax > 0x7f800000u) return REPDL__H_NAN(fmt);
    if (ax < 0x21800000u) return ax == 0u ? h : repdl__d_to_h(repdl__act_tiny_d(x), fmt);
    return ux < 0x80000000u ? h : 0x8000u;
}

/* The lane's argument for the approximation: x on y's domain, +0 (harmless)
   elsewhere; hi: the upper threshold's pattern (results x from it to +inf),
   lo: the lower one's (results -0 from it to -inf). */
REPDL_FN float repdl__act_h_arg(uint32_t ux, uint32_t hi, uint32_t lo)
{
    uint32_t ax = ux & 0x7fffffffu;
    int sp = ((ux >= hi) & (ux <= 0x7f800000u)) | ((ux >= lo) & (ux <= 0xff800000u)) |
             (ax > 0x7f800000u) | (ax < 0x21800000u);
    return repdl__asfloat(ux & (sp ? 0u : 0xffffffffu));
}

/* The lane's result: y rounded on y's domain, the specials by selects;
   0 < |x| < 2^-60 flagged for the scalar form. */
REPDL_FN uint32_t repdl__act_h_pick(uint32_t h, uint32_t ux, double y, int fmt, uint32_t hi,
                                    uint32_t lo, uint32_t *fail)
{
    uint32_t ax = ux & 0x7fffffffu;
    uint32_t same = (uint32_t)(((ux >= hi) & (ux <= 0x7f800000u)) | (ax == 0u));
    uint32_t zero = (uint32_t)((ux >= lo) & (ux <= 0xff800000u));
    uint32_t nan = (uint32_t)(ax > 0x7f800000u);
    uint32_t tiny = (uint32_t)((ax != 0u) & (ax < 0x21800000u));
    uint32_t sp = same | zero | nan | tiny;
    uint32_t r = repdl__d_to_h(y, fmt);
    *fail = tiny;
    return (r & (sp - 1u)) | (h & (0u - same)) | (0x8000u & (0u - zero)) |
           (REPDL__H_NAN(fmt) & (0u - nan));
}

REPDL_END_CODE
#endif /* REPDL_DETAIL_ACT_H */
