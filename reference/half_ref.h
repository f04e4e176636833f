/* SPDX-License-Identifier: MIT */
/* reference/half_ref.h: the independent references for bfloat16 and
   float16 (tests/half/test_half.c), written without any of repdl's code:

     repdl_hr_decode(f, h)         the value of a 16-bit pattern, a double
                                   (ldexp of its fields: exact)
     repdl_hr_encode(f, d)         the pattern of a double that is a value of
                                   the format (frexp of it; aborts if d is
                                   not one)
     repdl_hr_round_f32(f, x)      a binary32 rounded to nearest-even in the
                                   format, plainly: the truncated pattern,
                                   then an exact comparison with the
                                   midpoint above it
   and, with MPFR (REPDL_HR_MPFR defined before including):
     repdl_hr_mpfr_round(f, v)     an MPFR value rounded once to the format
                                   (precision p + 1, the format's exponent
                                   range, mpfr_subnormalize)
     repdl_hr_mpfr_fn(f, id, x)    exp, log, tanh, sqrt of a binary32 x
                                   correctly rounded to the format (MPFR's
                                   own correct rounding at p + 1 bits);
                                   sigmoid through an enclosure (below)
   A format is {p fraction bits, bias B}: bf16 {7, 127}, f16 {10, 15}, and,
   for the double-rounding counts, binary32 {23, 127}.  Every NaN result is
   the format's canonical NaN. */
#ifndef REPDL_REFERENCE_HALF_REF_H
#define REPDL_REFERENCE_HALF_REF_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct repdl_hr_fmt {
    const char *name; /* "bf16" */
    int p, bias;      /* fraction bits, exponent bias */
    uint32_t nan;     /* canonical NaN pattern */
} repdl_hr_fmt;

static const repdl_hr_fmt repdl_hr_bf16 = {"bf16", 7, 127, 0x7fc0u};
static const repdl_hr_fmt repdl_hr_f16 = {"f16", 10, 15, 0x7e00u};
static const repdl_hr_fmt repdl_hr_f32 = {"f32", 23, 127, 0x7fc00000u};

/* Pattern of +inf; the sign bit. */
static inline uint32_t repdl_hr_inf(const repdl_hr_fmt *f) { return (uint32_t)(2 * f->bias + 1) << f->p; }
static inline uint32_t repdl_hr_sign(const repdl_hr_fmt *f) { return 1u << (f->p + (f->bias == 127 ? 8 : 5)); }

/* The value of pattern h.  The inf pattern's magnitude read as a finite
   number, 2^(B+1), is what repdl_hr_step uses for the midpoint above the
   largest finite number. */
static inline double repdl_hr_decode(const repdl_hr_fmt *f, uint32_t h)
{
    uint32_t sb = repdl_hr_sign(f), a = h & (sb - 1u);
    uint32_t e = a >> f->p, m = a & ((1u << f->p) - 1u);
    double s = (h & sb) ? -1.0 : 1.0, v;
    if (e == (uint32_t)(2 * f->bias + 1)) return m ? NAN : s * INFINITY;
    if (e == 0) v = ldexp((double)m, 1 - f->bias - f->p);
    else v = ldexp((double)((1u << f->p) + m), (int)e - f->bias - f->p);
    return s * v;
}

/* |value| of magnitude pattern a (a <= inf pattern), inf read as 2^(B+1).
   From a table of the 16-bit formats' magnitudes, filled on first use
   (call it once before starting threads). */
static inline double repdl_hr_mag(const repdl_hr_fmt *f, uint32_t a)
{
    static double tab[2][0x7f81];
    static int filled[2];
    int k = f->bias == 15;
    if (f->p == 23) return a == repdl_hr_inf(f) ? ldexp(1.0, f->bias + 1) : repdl_hr_decode(f, a);
    if (!filled[k]) {
        uint32_t i, inf = repdl_hr_inf(f);
        for (i = 0; i < inf; i++) tab[k][i] = repdl_hr_decode(f, i);
        tab[k][inf] = ldexp(1.0, f->bias + 1);
        filled[k] = 1;
    }
    return tab[k][a];
}

/* The pattern of d, which must be a value of the format (or inf, NaN). */
static inline uint32_t repdl_hr_encode(const repdl_hr_fmt *f, double d)
{
    uint32_t s = signbit(d) ? repdl_hr_sign(f) : 0u, a;
    double ad = fabs(d);
    if (d != d) return f->nan;
    if (isinf(ad)) return s | repdl_hr_inf(f);
    if (ad >= ldexp(1.0, 1 - f->bias)) {
        int e;
        double m = frexp(ad, &e);                       /* ad = m 2^e, m in [1/2, 1) */
        a = ((uint32_t)(e - 1 + f->bias) << f->p) | (uint32_t)ldexp(2.0 * m - 1.0, f->p);
    } else {
        a = (uint32_t)ldexp(ad, f->bias - 1 + f->p);    /* subnormal: a count of 2^(1-B-p) */
    }
    if (repdl_hr_decode(f, a) != ad) {
        fprintf(stderr, "repdl_hr_encode: %a is not a %s value\n", d, f->name);
        abort();
    }
    return s | a;
}

/* A binary32 rounded to nearest-even in format f: c = the pattern of the
   largest value <= |x| (the truncation), then |x| against the midpoint of
   c and c + 1, compared exactly in double (both are at most 25-bit
   numbers); a tie goes to the even pattern.  Overflow: c + 1 = inf, whose
   magnitude 2^(B+1) makes the midpoint the largest finite plus half an
   ulp, IEEE 754's overflow rule. */
static inline uint32_t repdl_hr_round_f32(const repdl_hr_fmt *f, float x)
{
    uint32_t u, c, inf = repdl_hr_inf(f);
    double ax = fabs((double)x), mid;
    memcpy(&u, &x, 4);
    if (x != x) return f->nan;
    if (ax >= repdl_hr_mag(f, inf)) c = inf;            /* |x| >= 2^(B+1), inf included */
    else if (f->bias == 127) c = (u & 0x7fffffffu) >> (23 - f->p);  /* same exponent range: truncate */
    else if (ax >= repdl_hr_mag(f, 1u << f->p))          /* f16 normal range, from 2^-14 */
        c = ((u & 0x7fffffffu) - ((uint32_t)(127 - f->bias) << 23)) >> (23 - f->p);
    else c = (uint32_t)(ax * 0x1p24);                   /* f16 subnormal: a count of 2^-24, truncated */
    if (c < inf) {
        mid = (repdl_hr_mag(f, c) + repdl_hr_mag(f, c + 1)) / 2;
        if (ax > mid || (ax == mid && (c & 1u))) c++;
    }
    return ((u >> 31) ? repdl_hr_sign(f) : 0u) | c;
}

#ifdef REPDL_HR_MPFR
#include <mpfr.h>

/* The MPFR exponent range of format f: the smallest subnormal 2^(1-B-p) is
   1/2 2^emin, the largest finite (1 - 2^-(p+1)) 2^emax. */
static inline void repdl_hr_set_range(const repdl_hr_fmt *f)
{
    mpfr_set_emin(2 - f->bias - f->p);
    mpfr_set_emax(f->bias + 1);
}
static inline void repdl_hr_wide_range(void)
{
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
}

/* v (any precision, in the wide range) rounded once to format f. */
static inline uint32_t repdl_hr_mpfr_round(const repdl_hr_fmt *f, mpfr_srcptr v)
{
    mpfr_t m;
    uint32_t r;
    int t;
    if (mpfr_nan_p(v)) return f->nan;
    mpfr_init2(m, f->p + 1);
    t = mpfr_set(m, v, MPFR_RNDN);               /* p + 1 bits, unbounded exponent */
    repdl_hr_set_range(f);
    t = mpfr_check_range(m, t, MPFR_RNDN);
    t = mpfr_subnormalize(m, t, MPFR_RNDN);      /* t: the first rounding's direction, so no double rounding */
    (void)t;
    r = repdl_hr_encode(f, mpfr_get_d(m, MPFR_RNDN));   /* exact */
    repdl_hr_wide_range();
    mpfr_clear(m);
    return r;
}

enum repdl_hr_fn { REPDL_HR_EXP, REPDL_HR_LOG, REPDL_HR_TANH, REPDL_HR_SQRT, REPDL_HR_SIGMOID };

/* sigma(x) = 1 / (1 + exp(-x)) at precision prec (three roundings to
   nearest: relative error below 2^(2 - prec)), in the wide range. */
static inline void repdl_hr_sigmoid(mpfr_ptr t, float x)
{
    mpfr_set_flt(t, -x, MPFR_RNDN);              /* exact (prec >= 24) */
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_add_ui(t, t, 1, MPFR_RNDN);
    mpfr_ui_div(t, 1, t, MPFR_RNDN);
}

/* F(x) at precision prec in the wide range (sigmoid: relative error below
   2^(2 - prec); the others: MPFR's correct rounding, below 2^-prec). */
static inline void repdl_hr_mpfr_eval(mpfr_ptr v, enum repdl_hr_fn id, float x)
{
    if (id == REPDL_HR_SIGMOID) { repdl_hr_sigmoid(v, x); return; }
    mpfr_set_flt(v, x, MPFR_RNDN);
    switch (id) {
    case REPDL_HR_EXP: mpfr_exp(v, v, MPFR_RNDN); break;
    case REPDL_HR_LOG: mpfr_log(v, v, MPFR_RNDN); break;
    case REPDL_HR_TANH: mpfr_tanh(v, v, MPFR_RNDN); break;
    default: mpfr_sqrt(v, v, MPFR_RNDN); break;
    }
}

/* F(x) correctly rounded to format f.  exp, log, tanh, sqrt: MPFR rounds
   correctly itself, at precision p + 1 in the format's range.  sigmoid:
   t at precision q with |t / sigma(x) - 1| < 2^(2-q); t (1 -+ 2^(3-q))
   enclose sigma(x), and when both round to the same value that is
   sigma(x)'s rounding (rounding is monotonic); otherwise q doubles
   (sigma(x) is transcendental for x != 0, Lindemann, so never a midpoint,
   and the loop ends).  x >= 17.5: 1 (1 - sigma(x) < e^-17.5 < 2^-25);
   x <= -104: +0 (sigma(x) < e^-104 < 2^-150); x = +-0: 1/2. */
static inline uint32_t repdl_hr_mpfr_fn(const repdl_hr_fmt *f, enum repdl_hr_fn id, float x)
{
    uint32_t r;
    if (id != REPDL_HR_SIGMOID) {
        mpfr_t xm, m;
        int t;
        mpfr_init2(xm, 24);
        mpfr_init2(m, f->p + 1);
        mpfr_set_flt(xm, x, MPFR_RNDN);          /* exact, in the wide range */
        repdl_hr_set_range(f);
        switch (id) {
        case REPDL_HR_EXP: t = mpfr_exp(m, xm, MPFR_RNDN); break;
        case REPDL_HR_LOG: t = mpfr_log(m, xm, MPFR_RNDN); break;
        case REPDL_HR_TANH: t = mpfr_tanh(m, xm, MPFR_RNDN); break;
        default: t = mpfr_sqrt(m, xm, MPFR_RNDN); break;
        }
        t = mpfr_subnormalize(m, t, MPFR_RNDN);
        (void)t;
        r = mpfr_nan_p(m) ? f->nan : repdl_hr_encode(f, mpfr_get_d(m, MPFR_RNDN));
        repdl_hr_wide_range();
        mpfr_clear(xm);
        mpfr_clear(m);
        return r;
    }
    if (x != x) return f->nan;
    if (x == 0.0f) return repdl_hr_encode(f, 0.5);
    if (x >= 17.5f) return repdl_hr_encode(f, 1.0);
    if (x <= -104.0f) return 0u;
    {
        mpfr_prec_t q;
        for (q = 64;; q *= 2) {
            mpfr_t t, lo, hi;
            uint32_t a, b;
            mpfr_init2(t, q);
            mpfr_inits2(q + 8, lo, hi, (mpfr_ptr)0);
            repdl_hr_sigmoid(t, x);
            mpfr_mul_2si(hi, t, 3 - (long)q, MPFR_RNDN); /* t 2^(3-q), exact */
            mpfr_sub(lo, t, hi, MPFR_RNDD);
            mpfr_add(hi, t, hi, MPFR_RNDU);
            a = repdl_hr_mpfr_round(f, lo);
            b = repdl_hr_mpfr_round(f, hi);
            mpfr_clear(t);
            mpfr_clears(lo, hi, (mpfr_ptr)0);
            if (a == b) return a;
        }
    }
}
#endif /* REPDL_HR_MPFR */

#endif /* REPDL_REFERENCE_HALF_REF_H */
