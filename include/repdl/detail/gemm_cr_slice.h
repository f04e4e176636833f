/* SPDX-License-Identifier: MIT */
/* repdl/detail/gemm_cr_slice.h: the int8 slices of the correctly rounded
   product (the Ozaki scheme), for the tensor-core tile of
   cuda/gemm_cr_tile.cuh and its host emulation.  Host and device
   (REPDL_FN); integer code except the decision, which is gemm_cr.h's rule.

   Slicing.  Row i of op(A) has the exponent Ea = repdl__crs_exp(row): every
   finite |a| < 2^Ea.  The scaled value a 2^-Ea is in (-1, 1); with
   F = floor(|a| 2^(7S - Ea)) (an integer below 2^(7S), S <= 8 so it fits
   in 64 bits) its S digits are alpha_s = sign(a) ((F >> 7(S - s)) & 127),
   s = 1 .. S (int8, in [-127, 127]), and
       a 2^-Ea = sum_s alpha_s 2^(-7s) + rho,   |rho| < 2^(-7S).
   The same for column j of op(B) (Eb, beta_r).  A row or column holding a
   non-finite value is not sliced (its digits are 0; the caller decides its
   outputs by the IEEE sum, gemm_cr.h step 6).

   Products.  P_sr = sum_k alpha_ks beta_kr is a sum of integers of
   magnitude at most 127^2 < 2^14: an int32 sum of at most REPDL__CRS_KCHUNK
   = 2^17 of them stays below 2^17 * 16129 < 2^31 (exact, never wraps), and
   the chunk sums are added in int64.  Only the pairs with s + r <= S + 1
   are computed; Q_L = sum_{s + r = L} P_sr (int64, exact: |Q_L| < S K 2^14
   < 2^53 for K <= REPDL__CRS_KMAX = 2^32).

   Bound.  a b 2^-(Ea+Eb) - sum_{s+r<=S+1} alpha_s beta_r 2^-7(s+r) is the
   residues' part (|rho_a B| + |A rho_b| + |rho_a rho_b| < (2 + 2^-7S) 2^-7S)
   plus the S(S-1)/2 dropped pairs (each below 2^(14 - 7(S+2)) = 2^-7S):
   per k less than (S^2/2 + 2) 2^-7S, so the truncated sum is within
       Etr = K (S^2/2 + 2) 2^(Ea + Eb - 7S)
   of the exact one.  t = bias + sum_L Q_L 2^(Ea+Eb-7L) in binary64 (each
   term exact: Q_L < 2^53 times a power of two within binary64's normal
   range): at most S + 1 roundings, |error| <= gamma_(S+1) sum |terms|,
   and with A = the computed sum of |terms| (low by at most a factor
   1 - gamma_(S+2)) that is below (S + 2) 2^-53 A.  So
       E = (Etr + (S + 2) 2^-53 A) (1 + 2^-8) + 2^-51 |t|
   bounds |t - s| with room for the roundings of E itself and of t -+ E
   (the argument of gemm_cr.h, step 4), and the rule is gemm_cr.h's: accept
   (float)lo when it has the bits of (float)hi and 0 is outside [lo, hi];
   otherwise more slices or the exact path (repdl__gemm_cr_exact of
   gemm_cr.h, which the tile includes). */
#ifndef REPDL_DETAIL_GEMM_CR_SLICE_H
#define REPDL_DETAIL_GEMM_CR_SLICE_H

#include "../config.h"
REPDL_BEGIN_CODE

/* K per int32 chunk: 2^17 * 127^2 < 2^31 - 1.  Tests set it small. */
#ifndef REPDL__CRS_KCHUNK
#define REPDL__CRS_KCHUNK ((size_t)1 << 17)
#endif
#define REPDL__CRS_SMAX 8                 /* most slices: 56 bits, F < 2^56 */
#define REPDL__CRS_KMAX ((size_t)1 << 32) /* above: every output exact */
#define REPDL__CRS_NONFINITE 1000         /* repdl__crs_exp of a non-finite line */

/* The exponent of a line of n values x[k stride]: the smallest E >= -126
   with every |x| < 2^E; REPDL__CRS_NONFINITE when one is inf or NaN. */
REPDL_FN int repdl__crs_exp(const float *x, size_t n, size_t stride)
{
    uint32_t mb = 0;
    size_t k;
    for (k = 0; k < n; k++) {
        uint32_t u = repdl__asuint(x[k * stride]) & 0x7fffffffu;
        mb = u > mb ? u : mb;
    }
    if (mb >= 0x7f800000u) return REPDL__CRS_NONFINITE;
    /* binade [2^(be-127), 2^(be-126)); subnormals and 0 below 2^-126 */
    return (mb >> 23 ? (int)(mb >> 23) : 1) - 126;
}

/* Digit s (1 .. S) of x 2^-E, sign-magnitude, in [-127, 127]; 0 when the
   line is not finite (E == REPDL__CRS_NONFINITE). */
REPDL_FN int8_t repdl__crs_digit(float x, int E, int S, int s)
{
    uint32_t u = repdl__asuint(x), be = (u >> 23) & 0xffu;
    uint64_t m = be ? (uint64_t)((u & 0x7fffffu) | 0x800000u) : (uint64_t)(u & 0x7fffffu);
    int sh = (be ? (int)be : 1) - 150 - E + 7 * S; /* |x| 2^(7S-E) = m 2^sh */
    uint64_t F;
    int d;
    if (E == REPDL__CRS_NONFINITE) return 0;
    F = sh >= 0 ? m << sh : (sh > -32 ? m >> -sh : 0);
    d = (int)((F >> (7 * (S - s))) & 127u);
    return (int8_t)((u >> 31) ? -d : d);
}

/* 2^p as a binary64, -1022 <= p <= 1023. */
REPDL_FN double repdl__crs_pow2(int p) { return repdl__asdouble((uint64_t)(1023 + p) << 52); }

/* The decision for one output from its level sums Q[L - 2] (L = 2 .. S+1),
   Esum = Ea + Eb (both finite lines), the bias (NULL: none; finite).
   *ok = 1 and the result when the bound decides the rounding, else *ok = 0
   (more slices or the exact path). */
REPDL_FN float repdl__crs_decide(const int64_t *Q, int S, int Esum, size_t K, const float *bias,
                                 int *ok)
{
    double t = bias ? repdl__f2d(*bias) : 0.0, A = t < 0 ? -t : t, Etr, E, at, lo, hi;
    float fl, fh;
    int L;
    for (L = 2; L <= S + 1; L++) {
        double v = repdl__dmul((double)Q[L - 2], repdl__crs_pow2(Esum - 7 * L));
        t = repdl__dadd(t, v);
        A = repdl__dadd(A, v < 0 ? -v : v);
    }
    /* K (S^2/2 + 2) 2^(Esum - 7S); S^2/2 + 2 and the power exact */
    Etr = repdl__dmul(repdl__dmul((double)K, repdl__dmul((double)(S * S + 4), 0.5)),
                      repdl__crs_pow2(Esum - 7 * S));
    at = t < 0 ? -t : t;
    /* (Etr + (S + 2) 2^-53 A) (1 + 2^-8) + 2^-51 |t| */
    E = repdl__dadd(repdl__dmul(repdl__dadd(Etr, repdl__dmul(repdl__dmul((double)(S + 2), repdl__crs_pow2(-53)), A)),
                                repdl__dadd(1.0, repdl__crs_pow2(-8))),
                    repdl__dmul(at, repdl__crs_pow2(-51)));
    lo = repdl__dsub(t, E);
    hi = repdl__dadd(t, E);
    fl = repdl__d2f(lo);
    fh = repdl__d2f(hi);
    *ok = repdl__asuint(fl) == repdl__asuint(fh) && (lo > 0.0 || hi < 0.0);
    return fl;
}

/* An output of a non-finite row, column or bias: the IEEE binary64 sum of
   the exact products (any order: NaN or the infinity, gemm_cr.h step 6),
   NaN canonical. */
REPDL_FN float repdl__crs_nonfinite(size_t K, const float *a, size_t sa, const float *b,
                                    size_t sb, const float *bias)
{
    double t = bias ? repdl__f2d(*bias) : 0.0;
    size_t k;
    for (k = 0; k < K; k++)
        t = repdl__dadd(t, repdl__dmul(repdl__f2d(a[k * sa]), repdl__f2d(b[k * sb])));
    return repdl__canon(repdl__d2f(t));
}

REPDL_END_CODE
#endif /* REPDL_DETAIL_GEMM_CR_SLICE_H */
