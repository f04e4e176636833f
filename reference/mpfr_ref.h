/* SPDX-License-Identifier: MIT */
/* reference/mpfr_ref.h: the MPFR oracle for repdl's correctly rounded
   binary32 functions.

   Each repdl_ref_* returns the exact real result rounded once to binary32,
   round-to-nearest-even, with binary32's exponent range and subnormals
   (24-bit precision, emin = -148, emax = 128, mpfr_subnormalize).  A NaN
   result is the canonical 0x7fc00000, as repdl's.  Thread-safe when MPFR is
   built with thread-local storage (Debian's is); each thread calls
   repdl_ref_init() once. */
#ifndef REPDL_REFERENCE_MPFR_REF_H
#define REPDL_REFERENCE_MPFR_REF_H

#include <mpfr.h>
#include <stdint.h>
#include <string.h>

static inline void repdl_ref_init(void)
{
    mpfr_set_emin(-148);  /* 2^-149 = 0.5 * 2^-148: smallest subnormal */
    mpfr_set_emax(128);   /* FLT_MAX = (1 - 2^-24) * 2^128 */
}

typedef int (*repdl_ref_mpfr_fn)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

static inline float repdl_ref_apply(repdl_ref_mpfr_fn f, float x)
{
    mpfr_t m;
    float r;
    mpfr_init2(m, 24);
    mpfr_set_flt(m, x, MPFR_RNDN);               /* exact */
    int t = f(m, m, MPFR_RNDN);
    t = mpfr_subnormalize(m, t, MPFR_RNDN);
    (void)t;
    r = mpfr_get_flt(m, MPFR_RNDN);              /* exact: m fits binary32 */
    mpfr_clear(m);
    if (r != r) { uint32_t u = 0x7fc00000u; memcpy(&r, &u, 4); }
    return r;
}

static inline float repdl_ref_expf(float x) { return repdl_ref_apply(mpfr_exp, x); }
static inline float repdl_ref_logf(float x) { return repdl_ref_apply(mpfr_log, x); }
static inline float repdl_ref_tanhf(float x) { return repdl_ref_apply(mpfr_tanh, x); }
static inline float repdl_ref_sqrtf(float x) { return repdl_ref_apply(mpfr_sqrt, x); }

/* rsqrt, sin, cos (issue 17, include/repdl/rsqrt.h, sin.h, cos.h).
   1/sqrt(x): MPFR's mpfr_rec_sqrt gives +inf for -0, where IEEE 754's rSqrt
   (Section 9.2.1), which repdl follows, gives -inf (the sign of 1/(-0)):
   -0 is answered from that definition, every other input by MPFR. */
static inline float repdl_ref_rsqrtf(float x)
{
    uint32_t ux;
    memcpy(&ux, &x, 4);
    if (ux == 0x80000000u) { uint32_t u = 0xff800000u; float r; memcpy(&r, &u, 4); return r; }
    return repdl_ref_apply(mpfr_rec_sqrt, x);
}
static inline float repdl_ref_sinf(float x) { return repdl_ref_apply(mpfr_sin, x); }
static inline float repdl_ref_cosf(float x) { return repdl_ref_apply(mpfr_cos, x); }

/* a*b + c rounded once to binary32 (the oracle for repdl__fmaf). */
static inline float repdl_ref_fmaf(float a, float b, float c)
{
    mpfr_t ma, mb, mc;
    float r;
    mpfr_init2(ma, 24); mpfr_init2(mb, 24); mpfr_init2(mc, 24);
    mpfr_set_flt(ma, a, MPFR_RNDN);
    mpfr_set_flt(mb, b, MPFR_RNDN);
    mpfr_set_flt(mc, c, MPFR_RNDN);
    int t = mpfr_fma(ma, ma, mb, mc, MPFR_RNDN);
    t = mpfr_subnormalize(ma, t, MPFR_RNDN);
    (void)t;
    r = mpfr_get_flt(ma, MPFR_RNDN);
    mpfr_clear(ma); mpfr_clear(mb); mpfr_clear(mc);
    if (r != r) { uint32_t u = 0x7fc00000u; memcpy(&r, &u, 4); }
    return r;
}

/* sigma(x) = 1 / (1 + exp(-x)) rounded once to binary32 (the oracle for
   repdl_sigmoid_f32).  MPFR has no sigmoid: t = 1/(1 + exp(-x)) is computed
   at precision p in MPFR's default (wide) exponent range with three
   roundings to nearest, so |t / sigma(x) - 1| < 2^(2-p); t(1 -+ 2^(3-p))
   enclose sigma(x), and when both round (binary32 range, subnormalized)
   to the same value that is sigma(x)'s rounding (monotonic).  Otherwise p
   doubles: sigma(x) is transcendental for x != 0 (Lindemann), never a
   binary32 number or a midpoint, so the loop ends.  x >= 17.5 gives 1
   (1 - sigma < e^-17.5 < 2^-25) and x <= -104 gives +0 (sigma < e^-104 <
   2^-150): mathematical facts, not evaluations. */
static inline float repdl_ref_round_flt_(mpfr_srcptr v)   /* called in the wide range */
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_t m;
    float r;
    int t;
    mpfr_init2(m, 24);
    t = mpfr_set(m, v, MPFR_RNDN);               /* 24 bits, unbounded exponent */
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    t = mpfr_check_range(m, t, MPFR_RNDN);
    t = mpfr_subnormalize(m, t, MPFR_RNDN);      /* t is m's error sign: no double rounding */
    (void)t;
    r = mpfr_get_flt(m, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clear(m);
    return r;
}

static inline float repdl_ref_sigmoidf(float x)
{
    uint32_t ux;
    memcpy(&ux, &x, 4);
    if ((ux & 0x7fffffffu) > 0x7f800000u) { uint32_t u = 0x7fc00000u; float r; memcpy(&r, &u, 4); return r; }
    if (x == 0.0f) return 0.5f;
    if (x >= 17.5f) return 1.0f;
    if (x <= -104.0f) return 0.0f;
    {
        mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
        mpfr_prec_t p;
        float r = 0.0f;
        mpfr_set_emin(mpfr_get_emin_min());
        mpfr_set_emax(mpfr_get_emax_max());
        for (p = 64;; p *= 2) {
            mpfr_t t, lo, hi;
            float a, b;
            mpfr_inits2(p, t, (mpfr_ptr)0);
            mpfr_inits2(p + 8, lo, hi, (mpfr_ptr)0);
            mpfr_set_flt(t, -x, MPFR_RNDN);              /* exact */
            mpfr_exp(t, t, MPFR_RNDN);
            mpfr_add_ui(t, t, 1, MPFR_RNDN);
            mpfr_ui_div(t, 1, t, MPFR_RNDN);
            mpfr_set(lo, t, MPFR_RNDN);                  /* exact: more bits */
            mpfr_mul_2si(hi, t, 3 - (long)p, MPFR_RNDN); /* t 2^(3-p), exact */
            mpfr_sub(lo, t, hi, MPFR_RNDD);
            mpfr_add(hi, t, hi, MPFR_RNDU);
            a = repdl_ref_round_flt_(lo);
            b = repdl_ref_round_flt_(hi);
            mpfr_clears(t, lo, hi, (mpfr_ptr)0);
            if (memcmp(&a, &b, 4) == 0) { r = a; break; }
        }
        mpfr_set_emin(emin);
        mpfr_set_emax(emax);
        return r;
    }
}

#endif /* REPDL_REFERENCE_MPFR_REF_H */
