/* SPDX-License-Identifier: MIT */
/* repdl/detail/cr.h: the rounding test shared by the correctly rounded
   functions.

   Each function computes an approximation y (a double) of f(x) whose
   relative error is below a proven bound E, on every path a compiler may
   take (contracted into FMAs or not).  Then:

     round(y * (1 - E)) == round(y * (1 + E))  ==>  round(f(x)) == round(y)

   because rounding to binary32 is monotonic and f(x) lies between the two.
   This also holds where the result is subnormal, zero or overflows, since
   the conversion double -> float rounds there too.  The two products carry
   one more rounding each (relative 2^-53), which every E in repdl includes.

   When the test fails, f(x) lies within 2E of a rounding boundary.  Those
   inputs are few (about 2^32 * 4E * 2^24 of them) and listed with their
   correctly rounded results, from the MPFR oracle, in a sorted table
   (reference/hardcases.c generates it, with 4E, so that the table covers
   every path, see docs/math.md). */
#ifndef REPDL_DETAIL_CR_H
#define REPDL_DETAIL_CR_H

#include "../config.h"
REPDL_BEGIN_CODE

/* 1 when round(y) is proven to be the correctly rounded value of every real
   within relative distance e of y. */
REPDL_FN int repdl__round_ok(double y, double e)
{
    float lo = repdl__d2f(repdl__dmul(y, 1.0 - e));
    float hi = repdl__d2f(repdl__dmul(y, 1.0 + e));
    return repdl__asuint(lo) == repdl__asuint(hi);
}

/* A cheaper and stronger form of repdl__round_ok (used first by expf, logf
   and tanhf), for y whose rounding to
   binary32 is a normal number: 2^-126 <= |y| < 2^128, y = +-2^e (1 + M 2^-52).
   Let L be M's 29 low bits, the part that rounding to binary32 drops, with
   L = 2^28 at a rounding boundary (a midpoint), and let f be a real with
   |f - y| < c 2^(e-52) = c ulp(y).  When |L - 2^28| > c, no midpoint lies
   between y and f (the next other one is 2^27 ulp(y) away or more), so f
   and y round alike.  A relative error below (c - 1) 2^-53 gives
   |f - y| < (c - 1) 2^-53 (1 + 2^-50) 2^(e+1) < c ulp(y); so c = 4 covers an
   error bound E = 2^-51 and c = 8 one of 2^-50 (E counts 2^-53 for
   repdl__round_ok's own products, which this test does not have).
   A few integer operations instead of two products and two conversions.
   When it fails, the caller applies repdl__round_ok and then its table, as
   without it. */
REPDL_FN int repdl__round_ok_normal(double y, uint32_t c)
{
    uint32_t lo = (uint32_t)repdl__asuint64(y);   /* L is in the low word */
    /* V = (L + 2^28 + c) mod 2^29 > 2c  <=>  |L - 2^28| > c.  Computed as
       8 V = (8 lo + 2^31 + 8 c) mod 2^32 (the shift drops lo's bits above
       L): one lea on x86 instead of an add and an and.  Needs c < 2^28. */
    return (lo << 3) + (0x80000000u + 8u * c) > 16u * c;
}

/* The array forms (repdl_exp_array_f32, repdl_log_array_f32, ...): one
   skeleton for every correctly rounded function.  Chunks of
   REPDL__ARRAY_CHUNK elements; the input of the chunk at i0 is x + i0
   itself when a whole chunk remains, otherwise the m remaining elements
   copied to buf and padded with zeros, so that the branch-free loop always
   runs REPDL__ARRAY_CHUNK times (a fixed count is what gcc -O2's cheap
   vectorizer accepts).  *m receives the number of real elements. */
#define REPDL__ARRAY_CHUNK 256
REPDL_FN const float *repdl__chunk_in(const float *x, size_t n, size_t i0, float *buf,
                                      size_t *m)
{
    const float *xc = x + i0;
    *m = n - i0 < REPDL__ARRAY_CHUNK ? n - i0 : REPDL__ARRAY_CHUNK;
    if (*m < REPDL__ARRAY_CHUNK) {
        memcpy(buf, xc, *m * sizeof buf[0]);
        memset(buf + *m, 0, (REPDL__ARRAY_CHUNK - *m) * sizeof buf[0]);
        xc = buf;
    }
    return xc;
}

/* The skeleton, as the body of an array form: out[i] = SCALAR(x[i]) for
   i < n, bit for bit.  Per chunk:
     1. a branch-free pass over the whole chunk that compilers vectorize:
        r = LANE(ux, &fail) gives the result bits of the input bits ux
        (specials answered by selects) and fail = 1 where that result is not
        proven (the rounding test failed, or an input the pass does not
        handle);
     2. SCALAR redoes the flagged real elements (rare: about 2^-24 of the
        inputs, plus the function's own slow ranges);
     3. the chunk is written to out after every read of it: out may be x
        (in place); any other overlap is not allowed.
   An unflagged result passed the rounding test, so it is the correctly
   rounded one, which SCALAR returns too.  n == 0 accepts NULL pointers. */
#define REPDL__CR_ARRAY(n, x, out, LANE, SCALAR)                                       \
    do {                                                                              \
        size_t i0_, i_;                                                               \
        for (i0_ = 0; i0_ < (n); i0_ += REPDL__ARRAY_CHUNK) {                         \
            size_t m_;                                                                \
            float xb_[REPDL__ARRAY_CHUNK];                                            \
            const float *xc_ = repdl__chunk_in((x), (n), i0_, xb_, &m_);              \
            uint32_t res_[REPDL__ARRAY_CHUNK], bad_[REPDL__ARRAY_CHUNK], any_ = 0;    \
            for (i_ = 0; i_ < REPDL__ARRAY_CHUNK; i_++) {                             \
                res_[i_] = LANE(repdl__asuint(xc_[i_]), &bad_[i_]);                   \
                any_ |= bad_[i_];                                                     \
            }                                                                         \
            if (REPDL_UNLIKELY(any_))                                                 \
                for (i_ = 0; i_ < m_; i_++)                                           \
                    if (bad_[i_]) res_[i_] = repdl__asuint(SCALAR(xc_[i_]));          \
            memcpy((out) + i0_, res_, m_ * sizeof res_[0]);                           \
        }                                                                             \
    } while (0)

/* The array form of a function whose branch-free lane is slower than its
   scalar code in every measured build (erf, sin, cos, log1p, rsqrt: the
   compilers if-convert the lane's rare paths into work on every element;
   docs/bench-math.md): out[i] = SCALAR(x[i]), i < n, element by element,
   so out may be x (in place); n == 0 accepts NULL pointers. */
#define REPDL__SCALAR_ARRAY(n, x, out, SCALAR)                                         \
    do {                                                                              \
        size_t i_;                                                                    \
        for (i_ = 0; i_ < (n); i_++) (out)[i_] = SCALAR((x)[i_]);                     \
    } while (0)

/* The whole body of a backward array form (activation.h, backward.h):
   the environment check, REPDL_ERR_INVALID for a NULL array with n > 0,
   then dx[i] = F(a[i], dy[i]), i < n, and REPDL_OK.  Element by element,
   each read before its result is written, so dx may be a or dy. */
#define REPDL__BACKWARD_ARRAY_BODY(n, a, dy, dx, F)                                    \
    do {                                                                              \
        size_t i_;                                                                    \
        REPDL__FPENV_CHECK();                                                         \
        if ((n) && (!(a) || !(dy) || !(dx))) return REPDL_ERR_INVALID;                \
        for (i_ = 0; i_ < (n); i_++) (dx)[i_] = F((a)[i_], (dy)[i_]);                 \
        return REPDL_OK;                                                              \
    } while (0)

/* A table of hard cases: {input bits, correctly rounded result bits},
   sorted by input bits. */
typedef struct repdl__hardcase { uint32_t x, r; } repdl__hardcase;

/* Binary search; returns the tabulated result of x, or the plain rounding
   of y if x is not listed (which the exhaustive proof shows never happens
   for an input whose rounding test failed). */
REPDL_FN float repdl__hard_lookup(const repdl__hardcase *tab, int n, float x, double y)
{
    uint32_t ux = repdl__asuint(x);
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) >> 1;
        if (tab[mid].x == ux) return repdl__asfloat(tab[mid].r);
        if (tab[mid].x < ux) lo = mid + 1; else hi = mid - 1;
    }
    return repdl__d2f(y);
}

/* The entries of a table: REPDL__HARD_N(tab) for a static array tab. */
#define REPDL__HARD_N(tab) ((int)(sizeof(tab) / sizeof((tab)[0])))

/* The last step of every correctly rounded binary32 function, once its
   cheap test has failed: round(y) when repdl__round_ok(y, e) proves it
   (e: the function's bound E), otherwise the table tab of its n hard cases
   answers. */
REPDL_FN float repdl__cr_round(float x, double y, double e, const repdl__hardcase *tab, int n)
{
    if (REPDL_LIKELY(repdl__round_ok(y, e))) return repdl__d2f(y);
    return repdl__hard_lookup(tab, n, x, y);
}

REPDL_END_CODE
#endif /* REPDL_DETAIL_CR_H */
