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
   tanh in binary64 on x86-64, and sqrt is correctly rounded; for these
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
#include <repdl/detail/cr.h>   /* repdl__round_ok, bit casts: no function code */
#include "mpfr_ref.h"

#ifndef REPDL_REF_ID_DEFINED
#define REPDL_REF_ID_DEFINED
enum repdl_ref_id { REPDL_REF_EXPF, REPDL_REF_LOGF, REPDL_REF_TANHF, REPDL_REF_SQRTF,
                   REPDL_REF_SIGMOIDF,
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
    case REPDL_REF_RSQRTF: d = 1.0 / sqrt((double)x); break;
    case REPDL_REF_SINF: d = sin((double)x); break;
    case REPDL_REF_COSF: d = cos((double)x); break;
    case REPDL_REF_SIGMOIDF: d = 1.0 / (1.0 + exp(-(double)x)); break;
    case REPDL_REF_EXPF: d = exp((double)x); break;
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
