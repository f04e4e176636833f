/* SPDX-License-Identifier: MIT */
/* repdl/half_math.h: correctly rounded exp, log, tanh, sqrt and sigmoid of
   bfloat16 and float16 values.

   Accuracy: repdl_F_bf16(x) and repdl_F_f16(x), F in exp, log, tanh, sqrt,
   sigmoid, are F(x) rounded once to nearest-even in the 16-bit format of x
   (half.h: bit patterns in and out), subnormal results included, overflow
   to +inf; the special values are those of the binary32 functions
   (exp(-inf) = +0, log(+-0) = -inf, log(1) = +0, tanh(+-0) = +-0,
   sqrt(-0) = -0, sigmoid(+-0) = 1/2, ...), every NaN result the format's
   canonical NaN (bf16 0x7fc0, f16 0x7e00).  Rounding the binary32 result
   again would be a double rounding, wrong on 10 of the f16 inputs of these
   five functions (none of bf16's, by chance: tests/half/test_half.c counts
   them, docs/functions/half.md lists them): these functions round once.  Proven on all 2^16 inputs of each
   format against MPFR, with a margin that covers every build (below).

   Algorithm:
     x is converted to binary32 (exact).  exp, log, tanh, sigmoid: the
     binary32 function's approximation y ~ F(x), a double with
     |y / F(x) - 1| < E (repdl__expf_y and REPDL__EXPF_ERR = 2^-51,
     repdl__logf_y, repdl__sigmoidf_y and 2^-50; tanh's calls:
     repdl__tanhf_y16, the fast path's y on 2^-8 <= |x| < 16, and
     REPDL__TANHF_Y16_ERR = 2^-38), is rounded directly to the 16-bit
     format (half.h's repdl__d_to_h).
     Outside the approximation's domain (NaN, infinities, saturation,
     tiny |x|) the binary32 function's result is exact or is far from every
     16-bit rounding boundary, and its conversion is the answer.
     sqrt: the binary32 square root (correctly rounded by IEEE 754 on every
     platform), converted: for a p-bit input, RN_q(sqrt) rounded again to p
     bits is RN_p(sqrt) whenever q >= 2p + 2 (Figueroa, "When is double
     rounding innocuous?", 1995): q = 24 >= 18 (bf16) and >= 24 (f16), and
     no square root of a bf16 or f16 value is subnormal in its format.

   Why one rounding of y is correct in every build (the margin proof).  No
   rounding test and no table of hard cases: for each of the 2^16 inputs,
   the test computes F(x) with MPFR and checks that it lies farther than E
   (relative) from every rounding boundary of the format (the midpoints,
   that above the largest finite number and that below the smallest
   subnormal included).  Any y within E of F(x), the binary32 functions'
   proven bound on every path (fused or not, host or device), then rounds
   as F(x) does.  The smallest margin is 2^-37.6 (sigmoid, f16, x = -2^-11,
   whose sigma(x) lies x^3/48 above the midpoint 1/2 - 2^-13), 2^12 times
   E; the others are 2^-17 to 2^-29 (docs/functions/half.md).

   Array forms repdl_F_array_bf16(n, x, out), repdl_F_array_f16: out[i] is
   repdl_F_bf16(x[i]) bit for bit; out may be x (in place), no other
   overlap; n = 0 accepts NULL pointers.  Chunks of REPDL__ARRAY_CHUNK
   elements go through a branch-free pass that compilers vectorize (y from
   repdl__expf_core, repdl__logf_core, repdl__sigmoidf_core on the same
   domains as repdl__F_y, where the same bound E holds, and for tanh from
   repdl__tanhf_y itself; exp's, tanh's and sigmoid's specials answered by
   selects), and the few
   elements it flags (log's specials: x <= 0, 1, inf, NaN, bf16
   subnormals; tanh inputs outside repdl__tanhf_y's domain that are not
   tiny or NaN, should its domain ever change) through the scalar form. */
#ifndef REPDL_HALF_MATH_H
#define REPDL_HALF_MATH_H

#include "config.h"
#include "detail/cr.h"
#include "detail/half_fmt.h"
#include "half.h"
#include "exp.h"
#include "log.h"
#include "tanh.h"
#include "sqrt.h"
#include "sigmoid.h"
REPDL_BEGIN_CODE

/* ---- The scalar forms, both formats (fmt: REPDL__BF16 or REPDL__F16) ---- */

/* exp: repdl__expf_y covers -0x1.9fe368p6 <= x <= 0x1.62e42ep6, which y
   rounds correctly also where the 16-bit result overflows (f16: x > 11.09)
   or is subnormal or zero; outside it, repdl_exp_f32 gives +inf, +0 or
   NaN, exactly. */
REPDL_FN uint32_t repdl__exp_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__expf_y(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__f32_to_h(repdl_exp_f32(x), fmt);
}

/* log: outside repdl__logf_y (x <= 0, +inf, NaN) repdl_log_f32 gives -inf,
   NaN or +inf.  log(1): y = +0 exactly (log.h), so +0. */
REPDL_FN uint32_t repdl__log_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__logf_y(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__f32_to_h(repdl_log_f32(x), fmt);
}

/* tanh: outside repdl__tanhf_y16 (repdl__tanhf_y's domain), repdl_tanh_f32 gives NaN, +-1 (tanh(x)
   within 2^-25 of +-1: so in 16 bits too) or x itself (|x| < 2^-12,
   tanh(x) = x (1 - x^2/3 + ...) rounds to x in binary32 and, the spacing
   being wider, in 16 bits), all exact. */
REPDL_FN uint32_t repdl__tanh_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__tanhf_y16(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__f32_to_h(repdl_tanh_f32(x), fmt);
}

/* sigmoid: outside repdl__sigmoidf_y, repdl_sigmoid_f32 gives NaN, 1
   (x >= 17.5), +0 (x < -0x1.9fe368p6), or, for |x| < 2^-12, a binary32
   within 2^-14 of 1/2, which rounds to 1/2 in both formats (the 16-bit
   spacing below 1/2 is 2^-10 in bf16, 2^-12 in f16). */
REPDL_FN uint32_t repdl__sigmoid_h(uint32_t h, int fmt)
{
    float x = repdl__h_to_f32(h, fmt);
    double y;
    if (REPDL_LIKELY(repdl__sigmoidf_y(x, &y))) return repdl__d_to_h_1(y, fmt);
    return repdl__f32_to_h(repdl_sigmoid_f32(x), fmt);
}

/* sqrt: the binary32 square root (config.h's repdl__fsqrt, correctly
   rounded: repdl_sqrt_f32 without its NaN canonicalization, which the
   conversion does) rounded again (the top of this file says why that is
   the correctly rounded result); NaN, x < 0: NaN; +-0, +inf kept. */
REPDL_FN uint32_t repdl__sqrt_h(uint32_t h, int fmt)
{
    return repdl__f32_to_h(repdl__fsqrt(repdl__h_to_f32(h, fmt)), fmt);
}

/* ---- One element of the array forms' branch-free pass ----
   Each returns the result pattern and sets *fail where the scalar form
   must redo the element.  The approximation runs on every element, on a
   harmless argument for the specials, which selects then answer. */

/* exp: the specials of repdl__expf_y answered as repdl_exp_f32 does:
   x > 0x1.62e42ep6 and +inf: +inf; x < -0x1.9fe368p6 and -inf: +0. */
REPDL_FN uint32_t repdl__exp_h_lane(uint32_t h, int fmt, uint32_t *fail)
{
    uint32_t ux = repdl__asuint(repdl__h_to_f32(h, fmt));
    uint32_t ovf = (uint32_t)((ux > 0x42b17217u) & (ux <= 0x7f800000u));
    uint32_t unf = (uint32_t)((ux > 0xc2cff1b4u) & (ux <= 0xff800000u));
    uint32_t nan = (uint32_t)((ux & 0x7fffffffu) > 0x7f800000u);
    uint32_t sp = ovf | unf | nan;
    /* specials: x with its exponent field cleared, |.| < 2^-126 */
    double y = repdl__expf_core(repdl__asfloat(ux & (sp ? 0x807fffffu : 0xffffffffu)));
    uint32_t r = repdl__d_to_h(y, fmt);
    *fail = 0;
    return (r & (sp - 1u)) | (REPDL__H_INF(fmt) & (0u - ovf)) | (REPDL__H_NAN(fmt) & (0u - nan));
}

/* log: every element that is not a positive normal binary32 other than 1
   (zeros, negatives, infinities, NaN, bf16's subnormals, and 1, whose
   y = +0 is outside the normal range) is flagged: rare in data, and
   selects for them cost more than the scalar form (bench/math/
   bench_half.c).  2^-11 < |log(x)| < 2^7 for every other bf16 and f16
   x: normal in both formats. */
REPDL_FN uint32_t repdl__log_h_lane(uint32_t h, int fmt, uint32_t *fail)
{
    uint32_t u = repdl__asuint(repdl__h_to_f32(h, fmt));
    uint32_t ok = (uint32_t)((u - 0x00800000u < 0x7f000000u) & (u != 0x3f800000u));
    double y = repdl__logf_core(u);          /* garbage for the flagged: replaced */
    *fail = !ok;
    return repdl__d_to_h_normal(y, fmt);
}

/* tanh, through repdl__tanhf_y only: |x| clamped into its domain
   [2^-12, 0x1.205968p3), y ~ tanh(|x|) given x's sign (tanh is odd).  A
   clamped |x| >= 0x1.205968p3 (+inf included) gets y ~ tanh(0x1.205966p3)
   = 1 - 2^-25.0: 1 in 16 bits, its correct result; |x| < 2^-12: x (see
   repdl__tanh_h); NaN: NaN.  Flagged: what repdl__tanhf_y would refuse
   after the clamp (nothing, unless its domain changes). */
REPDL_FN uint32_t repdl__tanh_h_lane(uint32_t h, int fmt, uint32_t *fail)
{
    uint32_t ux = repdl__asuint(repdl__h_to_f32(h, fmt)), ax = ux & 0x7fffffffu;
    uint32_t tiny = (uint32_t)(ax < 0x39800000u);
    uint32_t nan = (uint32_t)(ax > 0x7f800000u);
    uint32_t ac = ax < 0x39800000u ? 0x39800000u : ax > 0x41102cb3u ? 0x41102cb3u : ax;
    double y = 0.0;
    uint32_t ok = (uint32_t)repdl__tanhf_y(repdl__asfloat(ac), &y);
    /* y ~ tanh(|x|) in [2^-12, 1): normal in both formats */
    uint32_t r = repdl__d_to_h_normal(y, fmt) | ((ux >> 16) & 0x8000u);
    uint32_t sp = tiny | nan;
    *fail = !ok & !sp;
    return (r & (sp - 1u)) | (h & (0u - tiny)) | (REPDL__H_NAN(fmt) & (0u - nan));
}

/* sigmoid: x >= 17.5 and +inf: 1; x < -0x1.9fe368p6 and -inf: +0;
   |x| < 2^-12: 1/2 (see repdl__sigmoid_h); NaN: NaN. */
REPDL_FN uint32_t repdl__sigmoid_h_lane(uint32_t h, int fmt, uint32_t *fail)
{
    uint32_t ux = repdl__asuint(repdl__h_to_f32(h, fmt)), ax = ux & 0x7fffffffu;
    uint32_t one = (uint32_t)((ux >= 0x418c0000u) & (ux <= 0x7f800000u));
    uint32_t zero = (uint32_t)((ux > 0xc2cff1b4u) & (ux <= 0xff800000u));
    uint32_t nan = (uint32_t)(ax > 0x7f800000u);
    uint32_t tiny = (uint32_t)(ax < 0x39800000u);
    uint32_t sp = one | zero | nan | tiny;
    double y = repdl__sigmoidf_core(repdl__asfloat(ux & (sp ? 0u : 0xffffffffu)));
    uint32_t r = repdl__d_to_h(y, fmt);
    *fail = 0;
    return (r & (sp - 1u)) | (REPDL__H_ONE(fmt) & (0u - one)) |
           (REPDL__H_HALF(fmt) & (0u - tiny)) | (REPDL__H_NAN(fmt) & (0u - nan));
}

/* The chunk at i0 of the n 16-bit elements x, copied to buf and padded
   with zeros to REPDL__ARRAY_CHUNK elements (a fixed count for the loops
   over it; the copy lets out be x); returns the number of real elements. */
REPDL_FN size_t repdl__h_chunk_in(const uint16_t *x, size_t n, size_t i0, uint16_t *buf)
{
    size_t m = n - i0 < REPDL__ARRAY_CHUNK ? n - i0 : REPDL__ARRAY_CHUNK;
    memcpy(buf, x + i0, m * sizeof buf[0]);
    if (m < REPDL__ARRAY_CHUNK) memset(buf + m, 0, (REPDL__ARRAY_CHUNK - m) * sizeof buf[0]);
    return m;
}

/* The array skeleton (detail/cr.h's, for 16-bit elements): per chunk the
   input is copied (so out may be x), LANE runs over the whole chunk,
   SCALAR redoes the flagged real elements, and the chunk is written. */
#define REPDL__H_ARRAY(n, x, out, fmt, LANE, SCALAR)                                  \
    do {                                                                              \
        size_t i0_, i_;                                                               \
        for (i0_ = 0; i0_ < (n); i0_ += REPDL__ARRAY_CHUNK) {                         \
            uint16_t xb_[REPDL__ARRAY_CHUNK], res_[REPDL__ARRAY_CHUNK];               \
            uint32_t bad_[REPDL__ARRAY_CHUNK], any_ = 0;                              \
            size_t m_ = repdl__h_chunk_in((x), (n), i0_, xb_);                        \
            for (i_ = 0; i_ < REPDL__ARRAY_CHUNK; i_++) {                             \
                res_[i_] = (uint16_t)LANE(xb_[i_], (fmt), &bad_[i_]);                 \
                any_ |= bad_[i_];                                                     \
            }                                                                         \
            if (REPDL_UNLIKELY(any_))                                                 \
                for (i_ = 0; i_ < m_; i_++)                                           \
                    if (bad_[i_]) res_[i_] = (uint16_t)SCALAR(xb_[i_], (fmt));        \
            memcpy((out) + i0_, res_, m_ * sizeof res_[0]);                           \
        }                                                                             \
    } while (0)

/* The 16-bit array form of a function whose lane is slower than its
   scalar code (as REPDL__SCALAR_ARRAY of detail/cr.h: sin, cos, erf,
   rsqrt, softplus; gelu: REPDL__H_CONV_ARRAY below): out[i] = SCALAR(x[i], fmt), element by
   element (out may be x; n == 0 accepts NULL). */
#define REPDL__H_SCALAR_ARRAY(n, x, out, fmt, SCALAR)                                  \
    do {                                                                              \
        size_t i_;                                                                    \
        for (i_ = 0; i_ < (n); i_++) (out)[i_] = (uint16_t)SCALAR((x)[i_], (fmt));    \
    } while (0)

/* As REPDL__H_SCALAR_ARRAY, with the inputs of a chunk converted to
   binary32 first, in a loop of the whole chunk that compilers vectorize
   (float16's conversion is a dozen operations): out[i] = SCALAR(x[i],
   xf[i], fmt) with xf[i] = repdl__h_to_f32(x[i], fmt), the same bits
   (out may be x: each element is read before its result is written; n == 0
   accepts NULL). */
#define REPDL__H_CONV_ARRAY(n, x, out, fmt, SCALAR)                                    \
    do {                                                                              \
        size_t i0_, i_;                                                               \
        for (i0_ = 0; i0_ < (n); i0_ += REPDL__ARRAY_CHUNK) {                         \
            uint16_t xb_[REPDL__ARRAY_CHUNK];                                         \
            float xf_[REPDL__ARRAY_CHUNK];                                            \
            size_t m_ = repdl__h_chunk_in((x), (n), i0_, xb_);                        \
            for (i_ = 0; i_ < REPDL__ARRAY_CHUNK; i_++)                               \
                xf_[i_] = repdl__h_to_f32(xb_[i_], (fmt));                            \
            for (i_ = 0; i_ < m_; i_++)                                               \
                (out)[i0_ + i_] = (uint16_t)SCALAR(xb_[i_], xf_[i_], (fmt));          \
        }                                                                             \
    } while (0)

/* sqrt's array form: the square roots of a chunk in one pass
   (config.h's repdl__fsqrt_n: SSE/AVX on x86 hosts), then the
   conversions. */
REPDL_FN void repdl__sqrt_array_h(size_t n, const uint16_t *x, uint16_t *out, int fmt)
{
    size_t i0, i;
    for (i0 = 0; i0 < n; i0 += REPDL__ARRAY_CHUNK) {
        size_t m = n - i0 < REPDL__ARRAY_CHUNK ? n - i0 : REPDL__ARRAY_CHUNK;
        float xf[REPDL__ARRAY_CHUNK];
        for (i = 0; i < m; i++) xf[i] = repdl__h_to_f32(x[i0 + i], fmt);
        repdl__fsqrt_n(xf, m);
        for (i = 0; i < m; i++) out[i0 + i] = (uint16_t)repdl__f32_to_h(xf[i], fmt);
    }
}

/* ---- The public functions ---- */

/* exp(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_exp_bf16(uint16_t x) { return (uint16_t)repdl__exp_h(x, REPDL__BF16); }
/* exp(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_exp_f16(uint16_t x) { return (uint16_t)repdl__exp_h(x, REPDL__F16); }
/* log(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_log_bf16(uint16_t x) { return (uint16_t)repdl__log_h(x, REPDL__BF16); }
/* log(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_log_f16(uint16_t x) { return (uint16_t)repdl__log_h(x, REPDL__F16); }
/* tanh(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_tanh_bf16(uint16_t x) { return (uint16_t)repdl__tanh_h(x, REPDL__BF16); }
/* tanh(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_tanh_f16(uint16_t x) { return (uint16_t)repdl__tanh_h(x, REPDL__F16); }
/* sqrt(x) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_sqrt_bf16(uint16_t x) { return (uint16_t)repdl__sqrt_h(x, REPDL__BF16); }
/* sqrt(x) correctly rounded to float16. */
REPDL_API uint16_t repdl_sqrt_f16(uint16_t x) { return (uint16_t)repdl__sqrt_h(x, REPDL__F16); }
/* 1 / (1 + exp(-x)) correctly rounded to bfloat16. */
REPDL_API uint16_t repdl_sigmoid_bf16(uint16_t x) { return (uint16_t)repdl__sigmoid_h(x, REPDL__BF16); }
/* 1 / (1 + exp(-x)) correctly rounded to float16. */
REPDL_API uint16_t repdl_sigmoid_f16(uint16_t x) { return (uint16_t)repdl__sigmoid_h(x, REPDL__F16); }

/* out[i] = repdl_exp_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_exp_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__BF16, repdl__exp_h_lane, repdl__exp_h);
    return REPDL_OK;
}
/* out[i] = repdl_exp_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_exp_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__F16, repdl__exp_h_lane, repdl__exp_h);
    return REPDL_OK;
}
/* out[i] = repdl_log_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_log_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__BF16, repdl__log_h_lane, repdl__log_h);
    return REPDL_OK;
}
/* out[i] = repdl_log_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_log_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__F16, repdl__log_h_lane, repdl__log_h);
    return REPDL_OK;
}
/* out[i] = repdl_tanh_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_tanh_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__BF16, repdl__tanh_h_lane, repdl__tanh_h);
    return REPDL_OK;
}
/* out[i] = repdl_tanh_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_tanh_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__F16, repdl__tanh_h_lane, repdl__tanh_h);
    return REPDL_OK;
}
/* out[i] = repdl_sqrt_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_sqrt_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    repdl__sqrt_array_h(n, x, out, REPDL__BF16);
    return REPDL_OK;
}
/* out[i] = repdl_sqrt_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_sqrt_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    repdl__sqrt_array_h(n, x, out, REPDL__F16);
    return REPDL_OK;
}
/* out[i] = repdl_sigmoid_bf16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_sigmoid_array_bf16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__BF16, repdl__sigmoid_h_lane, repdl__sigmoid_h);
    return REPDL_OK;
}
/* out[i] = repdl_sigmoid_f16(x[i]), i < n (out may be x; n = 0: NULL ok). */
REPDL_API repdl_status repdl_sigmoid_array_f16(size_t n, const uint16_t *x, uint16_t *out)
{
    REPDL__FPENV_CHECK();
    if (n && (!x || !out)) return REPDL_ERR_INVALID;
    REPDL__H_ARRAY(n, x, out, REPDL__F16, repdl__sigmoid_h_lane, repdl__sigmoid_h);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_HALF_MATH_H */
