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
#include <stdlib.h>
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
/* exp2, expm1, log2, log1p (include/repdl/exp2.h, expm1.h, log2.h, log1p.h):
   MPFR's own functions, correctly rounded like the above.  exp2(-150) =
   2^-150 is exactly half the smallest subnormal: MPFR's RNDN underflow
   rounds a value <= 2^(emin-2) = 2^-150 to zero, the even neighbour, which
   tests/math/test_explog.c checks against the definition. */
static inline float repdl_ref_exp2f(float x) { return repdl_ref_apply(mpfr_exp2, x); }
static inline float repdl_ref_expm1f(float x) { return repdl_ref_apply(mpfr_expm1, x); }
static inline float repdl_ref_log2f(float x) { return repdl_ref_apply(mpfr_log2, x); }
static inline float repdl_ref_log1pf(float x) { return repdl_ref_apply(mpfr_log1p, x); }
/* issue 17, activations (h17-act) */
static inline float repdl_ref_erff(float x) { return repdl_ref_apply(mpfr_erf, x); }

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

/* ---- issue 17, activations (h17-act) ----
   A Ziv loop shared by the functions MPFR does not have: eval(t, x) sets t
   (precision p, MPFR's wide exponent range) with |t / f(x) - 1| <
   2^(c - p), c a bound proven for each below; t (1 -+ 2^(c + 1 - p))
   enclose f(x), and when both ends round (binary32 range, subnormalized)
   to the same value that is f(x)'s rounding (monotonic).  Otherwise p
   doubles (up to 2^16 bits, then abort: f(x) would be a binary32 value or
   a midpoint, which for these transcendental values does not happen). */
typedef void (*repdl_ref_ziv_fn)(mpfr_ptr t, float x);
static inline float repdl_ref_ziv_(repdl_ref_ziv_fn eval, int c, float x)
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_prec_t p;
    float r = 0.0f;
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    for (p = 64;; p *= 2) {
        mpfr_t t, lo, hi;
        float a, b;
        if (p > 65536) abort();
        mpfr_inits2(p, t, (mpfr_ptr)0);
        mpfr_inits2(p + 8, lo, hi, (mpfr_ptr)0);
        eval(t, x);
        mpfr_set(lo, t, MPFR_RNDN);                      /* exact: more bits */
        mpfr_mul_2si(hi, t, c + 1 - (long)p, MPFR_RNDN); /* exact */
        mpfr_sub(lo, t, hi, MPFR_RNDN);                  /* exact: p + 8 bits hold both */
        mpfr_add(hi, t, hi, MPFR_RNDN);
        a = repdl_ref_round_flt_(lo);
        b = repdl_ref_round_flt_(hi);
        mpfr_clears(t, lo, hi, (mpfr_ptr)0);
        if (memcmp(&a, &b, 4) == 0) { r = a; break; }
    }
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    return r;
}
static inline float repdl_ref_nan_(void) { uint32_t u = 0x7fc00000u; float r; memcpy(&r, &u, 4); return r; }

/* silu(x) = x / (1 + exp(-x)): three roundings (exp, add, div; x exact),
   |t / f - 1| < 2^(2-p). */
static inline void repdl_ref_silu_eval_(mpfr_ptr t, float x)
{
    mpfr_set_flt(t, -x, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_add_ui(t, t, 1, MPFR_RNDN);
    {
        mpfr_t xm;
        mpfr_init2(xm, 24);
        mpfr_set_flt(xm, x, MPFR_RNDN);
        mpfr_div(t, xm, t, MPFR_RNDN);
        mpfr_clear(xm);
    }
}
/* Mathematical shortcuts: silu(+-0) = +-0; x >= 17.5: x (1 - sigma(-x)) with
   sigma(-x) < e^-17.5 < 2^-25, rounds to x (+inf too); x <= -110:
   |silu(x)| < 110 e^-110 < 2^-150, rounds to -0 (-inf too). */
static inline float repdl_ref_siluf(float x)
{
    uint32_t ux;
    memcpy(&ux, &x, 4);
    if ((ux & 0x7fffffffu) > 0x7f800000u) return repdl_ref_nan_();
    if (x == 0.0f || x >= 17.5f) return x;
    if (x <= -110.0f) return -0.0f;
    return repdl_ref_ziv_(repdl_ref_silu_eval_, 2, x);
}

/* softplus(x) = log1p(exp(x)): exp's rounding reaches log1p scaled by
   e/((1 + e) log1p(e)) <= 1, log1p's adds one: |t / f - 1| < 2^(2-p). */
static inline void repdl_ref_softplus_eval_(mpfr_ptr t, float x)
{
    mpfr_set_flt(t, x, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_log1p(t, t, MPFR_RNDN);
}
/* x >= 16: x + d, 0 < d < e^-16 < 2^-20 <= half an ulp of x: rounds to x
   (+inf too); x <= -104: softplus(x) < e^x < 2^-150: +0 (-inf too). */
static inline float repdl_ref_softplusf(float x)
{
    uint32_t ux;
    memcpy(&ux, &x, 4);
    if ((ux & 0x7fffffffu) > 0x7f800000u) return repdl_ref_nan_();
    if (x >= 16.0f) return x;
    if (x <= -104.0f) return 0.0f;
    return repdl_ref_ziv_(repdl_ref_softplus_eval_, 2, x);
}

/* gelu(x) = x Phi(x) = x erfc(-x/sqrt 2) / 2 (no cancellation for either
   sign).  Roundings: sqrt 2, the division (z = -x/sqrt 2 within 2^(1-p)
   relative, plus), erfc (its condition number |z erfc'(z)/erfc(z)| is
   below 2 z^2 + 2 <= 227 for -6/sqrt2 <= z <= 15/sqrt 2), the product;
   /2 is exact: |t / f - 1| < (2 227 + 3) 2^-p < 2^(9-p). */
static inline void repdl_ref_gelu_eval_(mpfr_ptr t, float x)
{
    mpfr_t z;
    mpfr_init2(z, mpfr_get_prec(t));
    mpfr_sqrt_ui(z, 2, MPFR_RNDN);
    mpfr_set_flt(t, -x, MPFR_RNDN);
    mpfr_div(z, t, z, MPFR_RNDN);
    mpfr_erfc(z, z, MPFR_RNDN);
    mpfr_set_flt(t, x, MPFR_RNDN);
    mpfr_mul(t, t, z, MPFR_RNDN);
    mpfr_div_2ui(t, t, 1, MPFR_RNDN);
    mpfr_clear(z);
}
/* gelu(+-0) = +-0; x >= 6: 1 - Phi(x) < 1e-9 < 2^-25: rounds to x (+inf
   too); x <= -15: |gelu(x)| < phi(15) < 2^-150: -0 (-inf too). */
static inline float repdl_ref_geluf(float x)
{
    uint32_t ux;
    memcpy(&ux, &x, 4);
    if ((ux & 0x7fffffffu) > 0x7f800000u) return repdl_ref_nan_();
    if (x == 0.0f || x >= 6.0f) return x;
    if (x <= -15.0f) return -0.0f;
    return repdl_ref_ziv_(repdl_ref_gelu_eval_, 9, x);
}

/* gelu_tanh(x) = x/2 (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3))) = x sigma(w),
   w = 2 sqrt(2/pi) (x + 0.044715 x^3), 0.044715 = 44715/10^6 exactly.
   w: x^3 (one rounding), 0.044715 (one), the product, the sum (terms of
   one sign), 2 sqrt(2/pi) (pi, the quotient, the root: within 2^(1.6-p)),
   the product: |dw / w| < 8 2^-p, |w| < 113 for |x| < 11: |dw| < 2^(10-p);
   sigma's relative sensitivity to w is sigma(-w) <= 1; exp, 1 +, x / (.)
   round once each: |t / f - 1| < (2^10 + 4) 2^-p < 2^(12-p). */
static inline void repdl_ref_gelu_tanh_eval_(mpfr_ptr t, float x)
{
    mpfr_t w, c;
    mpfr_prec_t p = mpfr_get_prec(t);
    mpfr_inits2(p, w, c, (mpfr_ptr)0);
    mpfr_set_flt(w, x, MPFR_RNDN);
    mpfr_pow_ui(w, w, 3, MPFR_RNDN);
    mpfr_set_ui(c, 44715, MPFR_RNDN);
    mpfr_div_ui(c, c, 1000000, MPFR_RNDN);
    mpfr_mul(w, w, c, MPFR_RNDN);
    mpfr_add_d(w, w, (double)x, MPFR_RNDN);
    mpfr_const_pi(c, MPFR_RNDN);
    mpfr_ui_div(c, 2, c, MPFR_RNDN);
    mpfr_sqrt(c, c, MPFR_RNDN);
    mpfr_mul_2ui(c, c, 1, MPFR_RNDN);
    mpfr_mul(w, w, c, MPFR_RNDN);
    mpfr_neg(w, w, MPFR_RNDN);
    mpfr_exp(w, w, MPFR_RNDN);
    mpfr_add_ui(w, w, 1, MPFR_RNDN);
    mpfr_set_flt(c, x, MPFR_RNDN);
    mpfr_div(t, c, w, MPFR_RNDN);
    mpfr_clears(w, c, (mpfr_ptr)0);
}
/* +-0 -> +-0; x >= 6: w > 25, sigma(-w) < 2^-25: x (+inf too); x <= -11:
   w < -112, |g(x)| < 11 e^-112 < 2^-150: -0 (-inf too). */
static inline float repdl_ref_gelu_tanhf(float x)
{
    uint32_t ux;
    memcpy(&ux, &x, 4);
    if ((ux & 0x7fffffffu) > 0x7f800000u) return repdl_ref_nan_();
    if (x == 0.0f || x >= 6.0f) return x;
    if (x <= -11.0f) return -0.0f;
    return repdl_ref_ziv_(repdl_ref_gelu_tanh_eval_, 12, x);
}

#endif /* REPDL_REFERENCE_MPFR_REF_H */
