/* SPDX-License-Identifier: MIT */
/* reference/oracle.h: the expected result of each function for one input,
   two ways that must agree (exhaustive --mode mpfr checks it):

     repdl_oracle_mpfr      MPFR, for every input (reference/mpfr_ref.h);
     repdl_oracle_screened  glibc's double function, rounded to binary32 when
                            it is provably far from a rounding boundary, and
                            MPFR otherwise.

   The screen (docs/math.md, "The oracle").  Let f be the exact value
   and d glibc's double result.  glibc documents (manual, "Known Maximum
   Errors in Math Functions") at most 1 ulp for exp and log and 2 ulps for
   tanh in binary64 on x86-64 (1 ulp for erf), and sqrt is correctly rounded; for these
   arguments d is a normal double (|f| lies in [2^-150, 2^128] or is 0), so
   |d - f| <= 2 * 2^-52 * |f| = 2^-51 |f|.  We accept d only when
   repdl__round_ok(d, M) holds with M = 2^-45, 64 times that bound:
   f lies within d * (1 +- M), and both ends of that interval round to the
   same binary32, hence so does f (rounding is monotonic).  Non-finite and
   zero d go to MPFR; NaN inputs, log and sqrt of negative numbers, and exp
   of |x| beyond its overflow and underflow thresholds follow from the
   mathematical definition (below); no special-value behaviour of glibc is
   trusted. */
#ifndef REPDL_REFERENCE_ORACLE_H
#define REPDL_REFERENCE_ORACLE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <repdl/detail/cr.h>   /* repdl__round_ok, bit casts: no function code */
#include "mpfr_ref.h"

#ifndef REPDL_REF_ID_DEFINED
#define REPDL_REF_ID_DEFINED
enum repdl_ref_id { REPDL_REF_EXPF, REPDL_REF_LOGF, REPDL_REF_TANHF, REPDL_REF_SQRTF,
                   REPDL_REF_SIGMOIDF,
                   REPDL_REF_EXP2F, REPDL_REF_EXPM1F, REPDL_REF_LOG2F, REPDL_REF_LOG1PF,
                   /* issue 17, activations (h17-act) */
                   REPDL_REF_ERFF, REPDL_REF_SILUF, REPDL_REF_SOFTPLUSF, REPDL_REF_GELUF,
                   REPDL_REF_GELU_TANHF,
                   REPDL_REF_RSQRTF, REPDL_REF_SINF, REPDL_REF_COSF };
#endif

#define REPDL_ORACLE_MARGIN 0x1p-45

static inline uint32_t repdl_oracle_mpfr(enum repdl_ref_id id, float x)
{
    float r;
    switch (id) {
    case REPDL_REF_EXPF: r = repdl_ref_expf(x); break;
    case REPDL_REF_LOGF: r = repdl_ref_logf(x); break;
    case REPDL_REF_TANHF: r = repdl_ref_tanhf(x); break;
    case REPDL_REF_SIGMOIDF: r = repdl_ref_sigmoidf(x); break;
    case REPDL_REF_EXP2F: r = repdl_ref_exp2f(x); break;
    case REPDL_REF_EXPM1F: r = repdl_ref_expm1f(x); break;
    case REPDL_REF_LOG2F: r = repdl_ref_log2f(x); break;
    case REPDL_REF_LOG1PF: r = repdl_ref_log1pf(x); break;
    /* issue 17, activations (h17-act) */
    case REPDL_REF_ERFF: r = repdl_ref_erff(x); break;
    case REPDL_REF_SILUF: r = repdl_ref_siluf(x); break;
    case REPDL_REF_SOFTPLUSF: r = repdl_ref_softplusf(x); break;
    case REPDL_REF_GELUF: r = repdl_ref_geluf(x); break;
    case REPDL_REF_GELU_TANHF: r = repdl_ref_gelu_tanhf(x); break;
    case REPDL_REF_RSQRTF: r = repdl_ref_rsqrtf(x); break;
    case REPDL_REF_SINF: r = repdl_ref_sinf(x); break;
    case REPDL_REF_COSF: r = repdl_ref_cosf(x); break;
    default: r = repdl_ref_sqrtf(x); break;
    }
    return repdl__asuint(r);
}

/* *mpfr_calls is incremented when MPFR was needed. */
static inline uint32_t repdl_oracle_screened(enum repdl_ref_id id, float x, uint64_t *mpfr_calls)
{
    uint32_t ux = repdl__asuint(x);
    double d;
    if ((ux & 0x7fffffffu) > 0x7f800000u)
        return REPDL_NAN_BITS;          /* NaN in: every f gives NaN (IEEE 754, MPFR) */
    if ((id == REPDL_REF_LOGF || id == REPDL_REF_SQRTF) && ux > 0x80000000u)
        return REPDL_NAN_BITS;          /* x < 0, -inf included: outside the domain */
    if (id == REPDL_REF_EXPF && x >= 89.0f)
        return 0x7f800000u;             /* exp(x) >= e^89 > 4.4e38: above FLT_MAX + ulp/2 */
    if (id == REPDL_REF_EXPF && x <= -104.0f)
        return 0x00000000u;             /* exp(x) <= e^-104 < 6.9e-46 < 2^-150: rounds to +0 */
    /* sigmoid: 1 - sigma(x) < e^-17.5 < 2^-25 for x >= 17.5 (rounds to 1),
       sigma(x) < e^x < 2^-150 for x <= -104 (rounds to +0); in between
       d = 1/(1 + exp(-x)) with glibc's exp (1 ulp) and two roundings:
       |d/sigma - 1| < 2^-52 + 2^-52 = 2^-51, the bound assumed above. */
    if (id == REPDL_REF_SIGMOIDF && x >= 17.5f) return 0x3f800000u;
    if (id == REPDL_REF_SIGMOIDF && x <= -104.0f) return 0x00000000u;
    /* exp2, expm1, log2, log1p: glibc documents (libm-test-ulps of
       x86_64) at most 1 ulp for exp2, expm1 and log1p and 2 ulps for log2
       in binary64: the bound above holds, d being a normal double for
       every binary32 argument (|f| >= 2^-150 or f = 0).  Decided by the
       definition:
         exp2:  x >= 128: 2^x >= 2^128 > FLT_MAX + ulp/2: +inf;
                x <= -150: 2^x <= 2^-150 (half the smallest subnormal; a
                tie at -150, to even): +0;
         expm1: x >= 89: e^89 - 1 > 4.4e38: +inf;
                x <= -18: -1 < expm1(x) < -1 + e^-18 < -1 + 2^-25: -1;
         log2, log1p: x < 0, resp. x < -1 (-inf included): NaN. */
    if (id == REPDL_REF_EXP2F && x >= 128.0f) return 0x7f800000u;
    if (id == REPDL_REF_EXP2F && x <= -150.0f) return 0x00000000u;
    if (id == REPDL_REF_EXPM1F && x >= 89.0f) return 0x7f800000u;
    if (id == REPDL_REF_EXPM1F && x <= -18.0f) return 0xbf800000u;
    if (id == REPDL_REF_LOG2F && ux > 0x80000000u) return REPDL_NAN_BITS;
    if (id == REPDL_REF_LOG1PF && x < -1.0f) return REPDL_NAN_BITS;
    /* issue 17, activations (h17-act).  silu: x >= 17.5 and x <= -110 as
       in repdl_ref_siluf, in between d = x/(1 + exp(-x)) (glibc's exp, two
       roundings, x exact): 2^-51.  softplus: x >= 16 and x <= -104 as in
       repdl_ref_softplusf, in between d = log1p(exp(x)), glibc's exp and
       log1p (1 ulp each; exp's error reaches the result scaled by <= 1):
       2^-51. */
    if (id == REPDL_REF_SILUF && x >= 17.5f) return ux;
    if (id == REPDL_REF_SILUF && x <= -110.0f) return 0x80000000u;
    if (id == REPDL_REF_SOFTPLUSF && x >= 16.0f) return ux;
    if (id == REPDL_REF_SOFTPLUSF && x <= -104.0f) return 0x00000000u;
    /* gelu and gelu_tanh: the thresholds of repdl_ref_geluf and
       repdl_ref_gelu_tanhf; in between a double evaluation whose error
       the arguments' roundings dominate: gelu, d = x erfc(-x/sqrt2)/2:
       z = -x/sqrt2 within 2 2^-53, erfc's condition number < 227 (see
       mpfr_ref.h) and its own error (glibc documents a few ulps): within
       2^-43.5 of f; gelu_tanh, d = x / (1 + exp(-w)) with w in double,
       |dw| < 6 2^-53 |w| < 2^-43.7 (|w| < 113), exp, + and / 2^-52 each:
       within 2^-43.5.  Screen with margin 2^-36 (more than 64 times). */
    if (id == REPDL_REF_GELUF || id == REPDL_REF_GELU_TANHF) {
        float big = id == REPDL_REF_GELUF ? 15.0f : 11.0f;
        if (x == 0.0f || x >= 6.0f) return ux;
        if (x <= -big) return 0x80000000u;
        if (id == REPDL_REF_GELUF) {
            d = (double)x * erfc(-(double)x * 0.70710678118654752440) * 0.5;
        } else {
            double xd = (double)x;
            double w = 1.5957691216057308 * (xd + 0.044715 * (xd * xd * xd));
            d = xd / (1.0 + exp(-w));
        }
        if (d != 0.0 && d - d == 0.0 && repdl__round_ok(d, 0x1p-36))
            return repdl__asuint((float)d);
        ++*mpfr_calls;
        return repdl_oracle_mpfr(id, x);
    }
    /* rsqrt, sin, cos: d = 1/sqrt(x) in double is two correctly rounded
       operations, |d sqrt(x) - 1| <= 2^-52 (1 + 2^-52) < 2^-51; glibc
       documents at most 1 ulp for sin and cos in binary64 on x86-64 (and
       reduces every argument exactly), within the 2^-51 |f| assumed above
       (sin(x) and cos(x) of a binary32 x != 0 are normal doubles: |sin x| >
       2^-150 and cos(x) != 0).  Decided by the definition: 1/sqrt(x) for
       x < 0 (-inf included) is NaN; 1/sqrt(-0) = -inf (IEEE 754 rSqrt);
       sin and cos of +-inf are NaN. */
    if (id == REPDL_REF_RSQRTF && ux > 0x80000000u) return REPDL_NAN_BITS;
    if (id == REPDL_REF_RSQRTF && ux == 0x80000000u) return 0xff800000u;
    if ((id == REPDL_REF_SINF || id == REPDL_REF_COSF) && (ux & 0x7fffffffu) == 0x7f800000u)
        return REPDL_NAN_BITS;
    switch (id) {
    case REPDL_REF_EXP2F: d = exp2((double)x); break;
    case REPDL_REF_EXPM1F: d = expm1((double)x); break;
    case REPDL_REF_LOG2F: d = log2((double)x); break;
    case REPDL_REF_LOG1PF: d = log1p((double)x); break;
    case REPDL_REF_SILUF: d = (double)x / (1.0 + exp(-(double)x)); break;
    case REPDL_REF_SOFTPLUSF: d = log1p(exp((double)x)); break;
    case REPDL_REF_RSQRTF: d = 1.0 / sqrt((double)x); break;
    case REPDL_REF_SINF: d = sin((double)x); break;
    case REPDL_REF_COSF: d = cos((double)x); break;
    case REPDL_REF_SIGMOIDF: d = 1.0 / (1.0 + exp(-(double)x)); break;
    case REPDL_REF_EXPF: d = exp((double)x); break;
    /* issue 17, activations (h17-act): glibc documents 1 ulp for erf */
    case REPDL_REF_ERFF: d = erf((double)x); break;
    case REPDL_REF_LOGF: d = log((double)x); break;
    case REPDL_REF_TANHF: d = tanh((double)x); break;
    default: d = sqrt((double)x); break;
    }
    /* d != 0 and finite: the error bound above applies */
    if (d != 0.0 && d - d == 0.0 && repdl__round_ok(d, REPDL_ORACLE_MARGIN))
        return repdl__asuint((float)d);
    ++*mpfr_calls;
    return repdl_oracle_mpfr(id, x);
}

#endif /* REPDL_REFERENCE_ORACLE_H */
