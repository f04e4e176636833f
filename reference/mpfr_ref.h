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

#endif /* REPDL_REFERENCE_MPFR_REF_H */
