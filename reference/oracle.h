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
#include <pthread.h>
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

/* sin and cos of |x| >= 2^26: an exact reduction of the reference's own,
   so that the screen does not need glibc's reduction of huge arguments
   (__branred, about 40% of the screened run's time before).  Written
   independently of include/repdl/detail/trig_reduce.h: its constants come
   from MPFR at run time, not from reference/gen/trigf.py.

   x = m 2^e, m < 2^24 an integer, 3 <= e <= 104.  With
     U_e = floor(2^(e+127) / pi) mod 2^128     (MPFR, 512 bits, exact floor
                                                or one unit low)
   U_e 2^-126 is (2^e 2/pi) mod 4 within 2^-125, and since m is an integer
     x 2/pi = m (2^e 2/pi) = m U_e 2^-126 + d  (mod 4),  |d| < 2^24 2^-125 = 2^-101:
   P = m U_e mod 2^128 (exact, unsigned 128-bit) is x 2/pi mod 4 in units of
   2^-126; q = P rounded to a multiple of 2^126 (the quadrant), T = P - q 2^126
   the signed rest, f = T 2^-126 in [-1/2, 1/2) and
     |x| = (q + f* ) pi/2 (mod 2 pi),  |f - f*| < 2^-101.
   |f| < 2^-40 goes to MPFR (never seen: no binary32 comes that close), so
   |f / f* - 1| < 2^-61.  r = f pi/2 in double: T = hi + lo (two
   conversions, |lo| <= 2^-53 |T|, lo's rounding 2^-106 |T|), pi/2 = PH + PL
   (MPFR, within 2^-106), p + e = hi PH exactly (fma), rh = RN(p + RN(e + hi PL
   + lo PH)) 2^-126 (scaled exactly; fused or not: the small terms are within 2^-103 |r|):
     |rh - r*| <= (2^-53 + 2^-61 + 2^-100) |r*| < 1.0040 2^-53 |r*|,
   r* = f* pi/2, |r*| <= pi/4 (+ 2^-100).  Then
     sin|x| = sin(r*) (q = 0), cos(r*) (q = 1), -sin(r*) (q = 2), -cos(r*) (q = 3),
   and with |sin t| >= 0.9003 |t|, cos t >= 0.7071 for |t| <= pi/4 + 2^-100:
     |sin(rh) / sin(r*) - 1| < 1.0040 2^-53 / 0.9003 < 1.116 2^-53,
     |cos(rh) / cos(r*) - 1| < 1.0040 2^-53 (pi/4) tan(pi/4) < 0.789 2^-53;
   glibc's sin and cos of rh (|rh| <= pi/4, its direct path) add 1 ulp,
   2^-52 relative: in all < 2^-52 + 1.116 2^-53 + 2^-104 < 1.56 2^-52 < 2^-51,
   the bound the screen assumes.  sin(-x) = -sin(x), cos(-x) = cos(x),
   cos(x) = sin(x + pi/2): quadrant q + 1. */
__extension__ typedef unsigned __int128 repdl_oracle_u128;
__extension__ typedef __int128 repdl_oracle_i128;
static repdl_oracle_u128 repdl_oracle_twoopi_u[102];   /* U_e, e = 3 ... 104 */
static double repdl_oracle_pio2[2];                    /* PH, PL */
static pthread_once_t repdl_oracle_trig_once = PTHREAD_ONCE_INIT;

static void repdl_oracle_trig_init(void)
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_t pi, v;
    int e, k;
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    mpfr_init2(pi, 512);
    mpfr_init2(v, 512);
    mpfr_const_pi(pi, MPFR_RNDN);
    for (e = 3; e <= 104; e++) {
        repdl_oracle_u128 u = 0;
        mpfr_ui_div(v, 1, pi, MPFR_RNDN);
        mpfr_mul_2ui(v, v, (unsigned long)(e + 127), MPFR_RNDN);   /* 2^(e+127)/pi < 2^231 */
        mpfr_div_2ui(v, v, 128, MPFR_RNDN);                       /* exact */
        mpfr_frac(v, v, MPFR_RNDN);                               /* exact: (.) mod 2^128, / 2^128 */
        for (k = 0; k < 2; k++) {                                 /* two 64-bit digits */
            unsigned long d;
            mpfr_mul_2ui(v, v, 64, MPFR_RNDN);                    /* exact */
            d = mpfr_get_ui(v, MPFR_RNDZ);                        /* floor: v >= 0 */
            mpfr_sub_ui(v, v, d, MPFR_RNDN);                      /* exact */
            u = (u << 64) | (repdl_oracle_u128)(uint64_t)d;
        }
        repdl_oracle_twoopi_u[e - 3] = u;
    }
    mpfr_div_2ui(v, pi, 1, MPFR_RNDN);
    repdl_oracle_pio2[0] = mpfr_get_d(v, MPFR_RNDN);
    mpfr_sub_d(v, v, repdl_oracle_pio2[0], MPFR_RNDN);
    repdl_oracle_pio2[1] = mpfr_get_d(v, MPFR_RNDN);
    mpfr_clear(pi);
    mpfr_clear(v);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
}

/* The double d of the screen for sin (want_cos = 0) or cos (want_cos = 1) of x,
   2^26 <= |x| < inf, within 2^-51 |f| (above); 0 (MPFR decides) for |f| < 2^-40. */
static inline double repdl_oracle_trig_huge(float x, int want_cos)
{
    uint32_t ux = repdl__asuint(x), ax = ux & 0x7fffffffu;
    uint64_t m = (ax & 0x007fffffu) | 0x00800000u, H, R;
    int e = (int)(ax >> 23) - 150, s, neg;                             /* e: 3 ... 104 */
    repdl_oracle_u128 P, q, N;
    double hi, lo, p, pe, rh, d, scale;
    pthread_once(&repdl_oracle_trig_once, repdl_oracle_trig_init);
    P = (repdl_oracle_u128)m * repdl_oracle_twoopi_u[e - 3];      /* mod 2^128 */
    q = (P + ((repdl_oracle_u128)1 << 125)) >> 126;
    N = P - (q << 126);                 /* T mod 2^128; T < 0 iff bit 127 is set */
    neg = (int)(N >> 127);
    if (neg) N = -N;                                              /* |T| */
    if (N < ((repdl_oracle_u128)1 << 86)) return 0.0;             /* |f| < 2^-40 */
    /* |T| = (H 2^64 + L) 2^-s with H's top bit set (no 128-bit <-> double
       conversions, which are library calls): hi = H >> 11 (53 bits, exact),
       lo = ((H mod 2^11) 2^64 + L) 2^-75 rounded once (|lo| < 1 = ulp(hi):
       2^-105 |T|), L mod 2^11 dropped (< 2^-116 |T|); f = +-(hi + lo) 2^(-51-s) */
    s = __builtin_clzll((uint64_t)(N >> 64));                    /* 2 ... 41 */
    N <<= s;
    H = (uint64_t)(N >> 64);
    R = ((H & 0x7ffu) << 53) | ((uint64_t)N >> 11);
    hi = (double)(H >> 11);
    lo = (double)R * 0x1p-64;
    scale = repdl__asdouble((uint64_t)(1023 - 51 - s) << 52);    /* 2^(-51-s), exact */
    p = hi * repdl_oracle_pio2[0];
    pe = fma(hi, repdl_oracle_pio2[0], -p);
    rh = (p + (pe + (hi * repdl_oracle_pio2[1] + lo * repdl_oracle_pio2[0]))) * scale;
    if (neg) rh = -rh;
    q = (q + (repdl_oracle_u128)want_cos) & 3u;
    d = (q & 1u) ? cos(rh) : sin(rh);
    if (q & 2u) d = -d;
    if (!want_cos && (ux >> 31)) d = -d;
    return d;
}

/* The double d of the screen for gelu (id REPDL_REF_GELUF) and gelu_tanh
   (any other id): within 2^-43.5 |f| for x != 0, -15 < x < 6 (gelu) and
   -11 < x < 6 (gelu_tanh), the argument in repdl_oracle_screened below.
   Also the screen of reference/worstcases.c. */
static inline double repdl_oracle_gelu_double(enum repdl_ref_id id, float x)
{
    double xd = (double)x, w;
    if (id == REPDL_REF_GELUF) return xd * erfc(-xd * 0.70710678118654752440) * 0.5;
    w = 1.5957691216057308 * (xd + 0.044715 * (xd * xd * xd));
    return xd / (1.0 + exp(-w));
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
    /* silu, gelu and gelu_tanh of 0 < |x| < 2^-75: f(x) = x/2 + delta with
         silu       delta = x tanh(x/2) / 2         (x sigma(x), sigma = (1 + tanh(x/2))/2)
         gelu       delta = x erf(x/sqrt2) / 2      (x Phi(x))
         gelu_tanh  delta = x tanh(w) / 2,  w = sqrt(2/pi) (x + 0.044715 x^3),
       each factor beside x having x's sign and at most |x| in magnitude
       (|tanh t| <= |t|, |erf t| <= 2|t|/sqrt(pi), |w| < 0.8 |x|), so
         0 < delta <= x^2 / 2 < 2^-151.
       x/2 is a binary32 or, where it is subnormal and x's last bit is set,
       exactly the midpoint of two neighbours; binary32 spacing is >= 2^-149
       everywhere.  So f rounds to x/2 when x/2 is a binary32, and to the
       upper neighbour when x/2 is a midpoint (f lies above it by less than
       half the spacing).  The double screen below cannot see this (delta
       is below half an ulp of x/2 in double, d = x/2 exactly); MPFR needed
       about 2^24 high-precision calls per function for these midpoints,
       33 to 68 s of each gcc -O2 exhaustive run.  exhaustive --mode agree checks
       this rule against MPFR (docs/math.md, "The oracle"). */
    if ((id == REPDL_REF_SILUF || id == REPDL_REF_GELUF || id == REPDL_REF_GELU_TANHF) &&
        (ux & 0x7fffffffu) != 0u && (ux & 0x7fffffffu) < 0x1a000000u) {
        double h = (double)x * 0.5;     /* exact */
        float r = (float)h;             /* x/2, or a neighbour of the midpoint x/2 */
        if ((double)r < h) r = nextafterf(r, INFINITY);
        return repdl__asuint(r);
    }
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
        d = repdl_oracle_gelu_double(id, x);
        if (d != 0.0 && d - d == 0.0 && repdl__round_ok(d, 0x1p-36))
            return repdl__asuint((float)d);
        ++*mpfr_calls;
        return repdl_oracle_mpfr(id, x);
    }
    /* rsqrt, sin, cos: d = 1/sqrt(x) in double is two correctly rounded
       operations, |d sqrt(x) - 1| <= 2^-52 (1 + 2^-52) < 2^-51; glibc
       documents at most 1 ulp for sin and cos in binary64 on x86-64 (and
       reduces every argument exactly), within the 2^-51 |f| assumed above;
       for |x| >= 2^26 the reduction is the reference's own and glibc only
       evaluates sin or cos of |r| <= pi/4 (repdl_oracle_trig_huge, its
       bound < 1.56 2^-52)
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
    case REPDL_REF_SINF:
        d = (ux & 0x7fffffffu) >= 0x4c800000u ? repdl_oracle_trig_huge(x, 0) : sin((double)x);
        break;
    case REPDL_REF_COSF:
        d = (ux & 0x7fffffffu) >= 0x4c800000u ? repdl_oracle_trig_huge(x, 1) : cos((double)x);
        break;
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
