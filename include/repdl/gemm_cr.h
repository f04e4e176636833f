/* SPDX-License-Identifier: MIT */
/* repdl/gemm_cr.h: correctly rounded single-precision matrix product.

     repdl_gemm_cr_f32(transA, transB, M, N, K, A, lda, B, ldb, bias, C, ldc);
     C[i][j] = RN( sum_k opA[i][k] * opB[k][j]  [+ bias[j]] )
     repdl_gemm_cr_bf16(...): A and B in bfloat16 (uint16_t), bias and C
     binary32, the same definition (at the end of this header).

   op(A), op(B), the leading dimensions and the argument check are those of
   repdl_gemm_f32 (gemm.h, row-major).  The sum is the exact real sum of the
   K products (and bias[j]), rounded once to binary32, nearest-even: the
   answer is unique, so it does not depend on any order, blocking, split of
   K, thread count, vector width or machine.  There is no alpha and no beta:
   RN(alpha * RN(s)) is not RN(alpha * s), so they would break the claim.
   Full proof: docs/functions/gemm_cr.md.

   Special values (the IEEE result of the exact sum):
     - a NaN input, 0 * inf, or infinite products (or bias) of both signs:
       NaN, written as 0x7fc00000; otherwise an infinite product or bias
       gives that infinity.  Non-finite values are never sliced or scaled.
     - a finite exact sum beyond the binary32 range rounds to +-inf;
       subnormal results are rounded once (never flushed).
     - an exact zero sum is +0, except when every term (product, bias) is
       -0, or K == 0 without bias: then -0 (IEEE addition under
       round-to-nearest, the empty sum of gemm.h).

   Algorithm: a fast path and an exact path, with a rule that decides.
     fast:  every product a*b of two binary32 is exact in binary64 (24 + 24
            significand bits, exponent within [-298, 256]); the K products
            (and the bias) are added in binary64 in any order: t.  Sums
            cannot overflow binary64 (K < 2^64 terms of at most 2^256) and
            never underflow (every partial sum is a multiple of 2^-298).
            For any summation tree of depth d (at most d additions from a
            term to the root), |t - s| <= gamma_d * T, gamma_d = d u / (1 -
            d u), u = 2^-53, T = sum |terms| (Higham).  Each K panel of kc
            products is summed from 0 and then added to the running sum:
            d = kc + ceil(K / kc) <= K + 1; the AVX-512 kernel sums chunks
            of 32 products from 0 within a panel: d = 32 + ceil(kc / 32) +
            ceil(K / kc) (its first chunk of the first panel is one chain
            from the bias, 32 + ceil(kc / 32) - 1 + ceil(K / kc) - 1 < d).
     bound: T <= min(||a_i||_1 ||b_j||_inf, ||a_i||_inf ||b_j||_1) + |bias|,
            the norms computed once per row of op(A) and column of op(B)
            (the AVX-512 kernel, which applies the rule itself, takes the
            column norms' and |bias|'s maxima over the output's strip of
            16 columns: a larger T, one per row of a tile);
            E = d * 2^-53 (1 + 2^-8) * T_computed + 2^-51 |t| covers gamma_d,
            the rounding of T's computation and of t -+ E (K <= 2^36).
     rule:  lo = t - E, hi = t + E; if 0 is outside [lo, hi] and
            (float)lo == (float)hi (bits), that is the answer (RN is
            monotone and s lies in [lo, hi]); otherwise the refined path.
     refined: the products and the bias summed again with TwoSum in eight
            lanes: s = sigma + sum of the rounding errors exactly, their
            binary64 sum e with |e - sum| <= (K + 16)(1 + 2^-8) 2^-53 g (g
            the binary64 sum of their magnitudes); t = RN(sigma + e) and
            the same rule with E = (K + 16)(1 + 2^-8) 2^-53 g + 2^-50 |t|;
            still undecided (within 2^-50 |t| of a midpoint, cancellation,
            an exact zero): the exact path.
     exact: every product m_a m_b 2^(e_a + e_b) (an integer below 2^48
            times a power of two >= 2^-298) is added to a fixed-point
            accumulator of 21 signed 64-bit digits of 32 bits each (value
            sum d[i] 2^(32 i - 298)); carries are propagated at least every
            2^28 terms (|digit increment| < 2^34, so no digit ever wraps),
            and the integer is rounded to nearest-even binary32 once.
   The fast path runs blocked: op(B) is converted to binary64 panels once
   (in groups of column blocks of at most REPDL_GEMM_CR_WHOLE doubles),
   op(A) once per row block and group, and an MR x NR micro-kernel (x86
   with gcc or clang: AVX2 + FMA or AVX-512F chosen at run time as in
   gemm.h, with AVX2 packing, norms and, for AVX-512, the norms, the rule, the
   refined path and the widening of op(A); elsewhere portable C) accumulates the binary64 sums;
   op(A) packed per K panel is prefetched one panel ahead, and the AVX-512
   kernel prefetches its strip of op(B) REPDL_GEMM_CR_BPF rows ahead (hints).  No kernel
   choice can change a bit: every accepted t was proven to round to RN(s).

   Edge cases: M == 0 or N == 0: nothing is read or written.  K == 0: A and
   B are not read; C[i][j] = bias ? canonical(bias[j]) : -0.  C must not
   overlap A, B or bias.  Scratch memory is taken with malloc; if it cannot
   be had every output takes the exact path (same bits, slower). */
#ifndef REPDL_GEMM_CR_H
#define REPDL_GEMM_CR_H

#include "gemm.h"
REPDL_BEGIN_CODE

/* ---- Blocking (performance only: no value depends on these) ---- */
#ifndef REPDL_GEMM_CR_KC
#define REPDL_GEMM_CR_KC 256 /* K panel of the fast path */
#endif
#ifndef REPDL_GEMM_CR_MC
#define REPDL_GEMM_CR_MC 96 /* rows of a block; multiple of REPDL__GEMM_CR_MR */
#endif
/* Doubles of packed op(B) held at once (4 MiB, about the L3 a core can
   count on): column blocks are packed in groups this size, and a row
   block of op(A) is packed once per group of two or more. */
#ifndef REPDL_GEMM_CR_WHOLE
#define REPDL_GEMM_CR_WHOLE ((size_t)1 << 19)
#endif
#ifndef REPDL_GEMM_CR_NC
#define REPDL_GEMM_CR_NC 256 /* columns of a block; multiple of 16 */
#endif
#define REPDL__GEMM_CR_MR 6
/* How far ahead (in k) the AVX-512 kernel prefetches its strip of packed
   op(B), which the first row tile of a block finds in L3 (a hint only). */
#ifndef REPDL_GEMM_CR_BPF
#define REPDL_GEMM_CR_BPF 64
#endif
#define REPDL__GEMM_CR_DIGITS 21
/* Above this K the fast path's bound is not used (every output exact);
   the bound's margin needs K <= 2^36.  Tests set it to 0 to send every
   output with K > 0 to the exact path. */
#ifndef REPDL_GEMM_CR_KFAST
#define REPDL_GEMM_CR_KFAST ((size_t)1 << 36)
#endif
/* The exact path propagates carries after this many nonzero products (at
   most 2^28, so no digit can wrap); tests set it small. */
#ifndef REPDL_GEMM_CR_CARRY_EVERY
#define REPDL_GEMM_CR_CARRY_EVERY ((size_t)1 << 28)
#endif

/* ---- The exact path ---- */

/* x = m 2^e exactly, m < 2^24 an integer, e >= -149 (x finite). */
REPDL_FN uint32_t repdl__gemm_cr_split(float x, int *e)
{
    uint32_t u = repdl__asuint(x) & 0x7fffffffu, be = u >> 23;
    *e = (be ? (int)be : 1) - 150;
    return be ? (u & 0x7fffffu) | 0x800000u : u;
}

/* d += sign * m 2^pos (pos >= 0 in units of 2^-298, m < 2^48): three
   chunks below 2^33 each into digits pos/32 .. pos/32 + 2. */
REPDL_FN void repdl__gemm_cr_add(int64_t *d, uint64_t m, int pos, int neg)
{
    int q = pos >> 5, sh = pos & 31;
    uint64_t lo = (m & 0xffffffffu) << sh, hi = (m >> 32) << sh;
    int64_t c0 = (int64_t)(lo & 0xffffffffu);
    int64_t c1 = (int64_t)((lo >> 32) + (hi & 0xffffffffu));
    int64_t c2 = (int64_t)(hi >> 32);
    if (neg) {
        d[q] -= c0; d[q + 1] -= c1; d[q + 2] -= c2;
    } else {
        d[q] += c0; d[q + 1] += c1; d[q + 2] += c2;
    }
}

/* Carry propagation: afterwards d[0 .. D-2] are in [0, 2^32) and the value
   is unchanged (d[D-1] takes the signed rest). */
REPDL_FN void repdl__gemm_cr_carry(int64_t *d)
{
    int i;
    for (i = 0; i < REPDL__GEMM_CR_DIGITS - 1; i++) {
        int64_t low = d[i] & (int64_t)0xffffffff;
        d[i + 1] += (d[i] - low) / ((int64_t)1 << 32);
        d[i] = low;
    }
}

/* Bits [pos, pos + 32) of the non-negative normalised integer d (pos >= 0). */
REPDL_FN uint64_t repdl__gemm_cr_bits(const int64_t *d, int pos)
{
    int q = pos >> 5, sh = pos & 31;
    uint64_t v = (uint64_t)d[q] >> sh;
    if (sh && q + 1 < REPDL__GEMM_CR_DIGITS) v |= (uint64_t)d[q + 1] << (32 - sh);
    return v & 0xffffffffu;
}

/* RN to binary32 of the integer d times 2^-298; zero: the sign negzero. */
REPDL_FN float repdl__gemm_cr_round(int64_t *d, int negzero)
{
    int i, h, tb, lsb, neg;
    uint64_t top, q, rb, sticky;
    uint32_t bits;
    repdl__gemm_cr_carry(d);
    neg = d[REPDL__GEMM_CR_DIGITS - 1] < 0;
    if (neg) {
        for (i = 0; i < REPDL__GEMM_CR_DIGITS; i++) d[i] = -d[i];
        repdl__gemm_cr_carry(d);
    }
    for (h = REPDL__GEMM_CR_DIGITS - 1; h >= 0 && d[h] == 0; h--) {}
    if (h < 0) return negzero ? -0.0f : 0.0f;
    top = (uint64_t)d[h];
    for (tb = 32 * h; top > 1; top >>= 1) tb++;
    /* The last kept bit: 24 bits below the top, at least 2^-149 (= 149). */
    lsb = tb - 23 > 149 ? tb - 23 : 149;
    q = repdl__gemm_cr_bits(d, lsb) & 0x1ffffffu;
    rb = (repdl__gemm_cr_bits(d, lsb - 1)) & 1u;
    sticky = 0;
    {
        int pos = lsb - 1, w = pos >> 5;
        for (i = 0; i < w; i++) sticky |= (uint64_t)d[i];
        sticky |= (uint64_t)d[w] & ((((uint64_t)1) << (pos & 31)) - 1);
    }
    if (rb && (sticky || (q & 1u))) q++;
    /* value q 2^(lsb - 298), q <= 2^24: bits ((lsb - 149) << 23) + q. */
    if (lsb - 149 >= 255) bits = 0x7f800000u;
    else {
        uint64_t b = ((uint64_t)(lsb - 149) << 23) + q;
        bits = b >= 0x7f800000u ? 0x7f800000u : (uint32_t)b;
    }
    return repdl__asfloat(bits | (neg ? 0x80000000u : 0u));
}

/* The exact path for one output (finite inputs): RN(sum_k a[k sa] b[k sb]
   [+ *bias]). */
REPDL_FN float repdl__gemm_cr_exact(size_t K, const float *a, size_t sa, const float *b,
                                    size_t sb, const float *bias)
{
    int64_t d[REPDL__GEMM_CR_DIGITS];
    int negzero = 1, i;
    size_t k, since = 0;
    for (i = 0; i < REPDL__GEMM_CR_DIGITS; i++) d[i] = 0;
    if (bias) {
        int e;
        uint32_t m = repdl__gemm_cr_split(*bias, &e);
        int neg = (repdl__asuint(*bias) >> 31) != 0;
        if (m) repdl__gemm_cr_add(d, m, e + 149 + 149, neg);
        negzero = m == 0 && neg;
    }
    for (k = 0; k < K; k++) {
        float x = a[k * sa], y = b[k * sb];
        int ex, ey;
        uint64_t m = (uint64_t)repdl__gemm_cr_split(x, &ex) * repdl__gemm_cr_split(y, &ey);
        int neg = ((repdl__asuint(x) ^ repdl__asuint(y)) >> 31) != 0;
        if (m) {
            repdl__gemm_cr_add(d, m, ex + ey + 298, neg);
            negzero = 0;
            if (++since >= REPDL_GEMM_CR_CARRY_EVERY) {
                repdl__gemm_cr_carry(d);
                since = 0;
            }
        } else if (!neg) {
            negzero = 0;
        }
    }
    return repdl__gemm_cr_round(d, negzero);
}

/* ---- The refined path: a compensated sum for the flagged outputs ---- */

/* One error-free step (Knuth's TwoSum): *s + p = x + err exactly, x =
   RN(*s + p) (no overflow: every value here is below 2^320); *s = x, err
   added to *e and |err| to *g. */
#define REPDL__GEMM_CR_TWOSUM(S, P, E, G)                                          \
    {                                                                              \
        double x_ = (S) + (P), z_ = x_ - (S);                                      \
        double r_ = ((S) - (x_ - z_)) + ((P) - z_);                                \
        (S) = x_;                                                                  \
        (E) += r_;                                                                 \
        (G) += r_ < 0 ? -r_ : r_;                                                  \
    }

#if REPDL__GEMM_X86
/* The steps of repdl__gemm_cr_refine for the products k < K & ~7 of
   contiguous a and b, product k in lane k % 8 of s, e, g (the same
   operations, eight lanes at a time); returns K & ~7.  The zero-masked
   conversion with every lane set is the plain one (g++ warns about the
   unmasked form's undefined source once inlined). */
__attribute__((target("avx512f"))) static size_t
repdl__gemm_cr_refine_avx512(size_t K, const float *a, const float *b, double *s, double *e,
                             double *g)
{
    const __m512i nosign = _mm512_set1_epi64(0x7fffffffffffffffll);
    __m512d vs = _mm512_loadu_pd(s), ve = _mm512_loadu_pd(e), vg = _mm512_loadu_pd(g);
    size_t k, nb = K & ~(size_t)7;
    for (k = 0; k < nb; k += 8) {
        __m512d p = _mm512_mul_pd(_mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(a + k)),
                                  _mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(b + k)));
        __m512d x = _mm512_add_pd(vs, p), z = _mm512_sub_pd(x, vs);
        __m512d r = _mm512_add_pd(_mm512_sub_pd(vs, _mm512_sub_pd(x, z)), _mm512_sub_pd(p, z));
        vs = x;
        ve = _mm512_add_pd(ve, r);
        vg = _mm512_add_pd(vg, _mm512_castsi512_pd(
                                   _mm512_and_si512(_mm512_castpd_si512(r), nosign)));
    }
    _mm512_storeu_pd(s, vs);
    _mm512_storeu_pd(e, ve);
    _mm512_storeu_pd(g, vg);
    return nb;
}
#endif

/* A second decision for an output the rule flagged (finite inputs, K <=
   2^36): the products (exact in binary64) and the bias are summed in eight
   lanes with TwoSum, the lane sums joined with TwoSum, so that s = sigma +
   sum r_i exactly over the K + 7 rounding errors r_i; e = their binary64
   sum and g = the binary64 sum of |r_i| give |e - sum r_i| <= gamma_(K+6)
   sum |r_i| <= (K + 16) (1 + 2^-8) 2^-53 g, and t = RN(sigma + e) adds
   2^-53 |t|.  With E = (K + 16) (1 + 2^-8) 2^-53 g + 2^-50 |t| the rule of
   the header decides as before (docs/functions/gemm_cr.md, step 4b).
   Returns 1 with *c = RN(s), or 0 (near a midpoint, a zero sum): the exact
   path. */
REPDL_FN int repdl__gemm_cr_refine(int isa, size_t K, const float *a, size_t sa, const float *b,
                                   size_t sb, const float *bias, float *c)
{
    double s[8], e[8], g[8], sig, ea = 0.0, ga = 0.0, t, E, lo, hi;
    size_t k = 0;
    int l;
    for (l = 0; l < 8; l++) s[l] = e[l] = g[l] = 0.0;
    if (bias) s[0] = (double)*bias;
#if REPDL__GEMM_X86
    if (isa == 2 && sa == 1 && sb == 1) k = repdl__gemm_cr_refine_avx512(K, a, b, s, e, g);
#endif
    (void)isa;
    for (; k < K; k++) {
        double p = (double)a[k * sa] * (double)b[k * sb];
        REPDL__GEMM_CR_TWOSUM(s[k & 7], p, e[k & 7], g[k & 7])
    }
    sig = s[0];
    for (l = 1; l < 8; l++) REPDL__GEMM_CR_TWOSUM(sig, s[l], ea, ga)
    for (l = 0; l < 8; l++) {
        ea += e[l];
        ga += g[l];
    }
    t = sig + ea;
    /* (K + 16) 0x1.01p-53 g + 2^-50 |t| (no hexadecimal literals: C++14) */
    E = (double)(K + 16) * repdl__asdouble(0x3ca0100000000000ull) * ga +
        repdl__asdouble(0x3cd0000000000000ull) * (t < 0 ? -t : t);
    lo = t - E;
    hi = t + E;
    if (!((lo > 0.0) | (hi < 0.0)) || (float)lo != (float)hi) return 0;
    *c = (float)lo;
    return 1;
}

/* ---- The fast path ---- */

/* The micro-kernel: S (MR x nr doubles, ld lds) = S0 (ld ld0: S itself
   after the first K panel, the row of bias values with ld0 = 0 on the
   first, so S never needs filling) + the packed a panel
   (MR rows of kc values, row i at a + i la) times the packed b panel
   (kc x nr, k-major), the panel's kc products summed from 0 first.  The
   portable and AVX2 kernels chain the kc products of an output, so a term
   reaches the root through at most kc + (number of panels) additions; the
   AVX-512 kernel sums chunks of REPDL__GEMM_CR_KSUB products from 0 and adds
   each chunk sum to the panel sum: at most KSUB + ceil(kc / KSUB) + (number
   of panels) additions (repdl__gemm_cr_depth, the depth in the bound). */
#define REPDL__GEMM_CR_KSUB 32
#define REPDL__GEMM_CR_UKR_BODY(NR)                                              \
    {                                                                            \
        double c[REPDL__GEMM_CR_MR][NR];                                         \
        size_t k;                                                                \
        int i, j;                                                                \
        for (i = 0; i < REPDL__GEMM_CR_MR; i++)                                  \
            for (j = 0; j < NR; j++) c[i][j] = 0.0;                              \
        for (k = 0; k < kc; k++) {                                               \
            const double *bk = b + k * NR;                                       \
            for (i = 0; i < REPDL__GEMM_CR_MR; i++)                              \
                for (j = 0; j < NR; j++) c[i][j] += a[i * la + k] * bk[j];       \
        }                                                                        \
        for (i = 0; i < REPDL__GEMM_CR_MR; i++)                                  \
            for (j = 0; j < NR; j++)                                             \
                S[(size_t)i * lds + j] = S0[(size_t)i * ld0 + j] + c[i][j];      \
    }

/* The rule applied inside the AVX-512 kernel on the last K panel (the
   sums still in registers): the norms of the tile's 6 rows (a1, amx), the
   maxima over the strip's 16 columns of the column norms and of |bias|
   (b1, bmx, babs), the factors (a1 and amx readable 8 rows on), the output tile c (row i at c + i ldc,
   `rows` rows and `cols` columns written) and the flag bits (bit j of
   flag[i fld] set: output (i, j) flagged; every row of the tile written,
   bits past `cols` clear); any |= the flag bits.  Of S only the flagged
   sums are stored. */
typedef struct repdl__gemm_cr_rule {
    const double *a1, *amx;
    double b1, bmx, babs, kf, c51;
    float *c;
    size_t ldc, fld;
    unsigned rows, cols, any;
    unsigned short *flag;
} repdl__gemm_cr_rule;

REPDL_FN void repdl__gemm_cr_ukr8(size_t kc, const double *a, size_t la, const double *b,
                                  double *S, size_t lds, const double *S0, size_t ld0)
REPDL__GEMM_CR_UKR_BODY(8)

#if REPDL__GEMM_X86
__attribute__((target("avx2,fma"))) static void
repdl__gemm_cr_ukr_avx2(size_t kc, const double *a, size_t la, const double *b, double *S,
                        size_t lds, const double *S0, size_t ld0)
{
    __m256d c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
    const double *a3 = a + 3 * la;
    size_t k;
#define REPDL__CRL(i) c##i##0 = _mm256_setzero_pd(); c##i##1 = _mm256_setzero_pd();
    REPDL__CRL(0) REPDL__CRL(1) REPDL__CRL(2) REPDL__CRL(3) REPDL__CRL(4) REPDL__CRL(5)
#undef REPDL__CRL
    for (k = 0; k < kc; k++) {
        __m256d b0 = _mm256_loadu_pd(b + 8 * k), b1 = _mm256_loadu_pd(b + 8 * k + 4), x;
#define REPDL__CRF(i, q, o) x = _mm256_broadcast_sd(q + o * la + k);             \
        c##i##0 = _mm256_fmadd_pd(x, b0, c##i##0); c##i##1 = _mm256_fmadd_pd(x, b1, c##i##1);
        REPDL__CRF(0, a, 0) REPDL__CRF(1, a, 1) REPDL__CRF(2, a, 2)
        REPDL__CRF(3, a3, 0) REPDL__CRF(4, a3, 1) REPDL__CRF(5, a3, 2)
#undef REPDL__CRF
    }
#define REPDL__CRS(i) \
    _mm256_storeu_pd(S + i * lds, _mm256_add_pd(_mm256_loadu_pd(S0 + i * ld0), c##i##0)); \
    _mm256_storeu_pd(S + i * lds + 4, _mm256_add_pd(_mm256_loadu_pd(S0 + i * ld0 + 4), c##i##1));
    REPDL__CRS(0) REPDL__CRS(1) REPDL__CRS(2) REPDL__CRS(3) REPDL__CRS(4) REPDL__CRS(5)
#undef REPDL__CRS
}

/* 6 x 16: the panel sums c and the chunk sums p (24 of the 32 registers);
   row k + REPDL_GEMM_CR_BPF of the strip is prefetched while row k is used,
   only inside the strip (a hint: no value depends on it).  With R (the
   last K panel), the sums t are decided there by the rule of the header
   with one T per row of the tile (the strip's column maxima), E = |t| c51
   + kf T (one rounding of the sum, the bound's margin covers it) and the
   side test 0 < lo or hi < 0 written |t| > E (the same: lo = RN(t - E) > 0
   exactly when t > E, RN being monotone with RN(0) = 0; false for NaN).  g++ 12's -Wmaybe-uninitialized inside avx512fintrin.h (the
   undefined upper half of _mm512_castps256_ps512, filled by the insert)
   is silenced for this function under gcc, as for the widening below. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f"))) static void
repdl__gemm_cr_ukr_avx512(size_t kc, const double *a, size_t la, const double *b, double *S,
                          size_t lds, const double *S0, size_t ld0, repdl__gemm_cr_rule *R)
{
    __m512d c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
    __m512d p00, p01, p10, p11, p20, p21, p30, p31, p40, p41, p50, p51;
    const double *a3 = a + 3 * la;
    size_t k0, k, ke = kc < REPDL__GEMM_CR_KSUB ? kc : REPDL__GEMM_CR_KSUB;
    double eT[8]; /* with R: kf T of the tile's rows (lanes 6, 7 unused) */
    if (R) { /* before the sums, off their path: min as the C conditional */
        __m512d T1 = _mm512_mul_pd(_mm512_loadu_pd(R->a1), _mm512_set1_pd(R->bmx));
        __m512d T2 = _mm512_mul_pd(_mm512_loadu_pd(R->amx), _mm512_set1_pd(R->b1));
        _mm512_storeu_pd(eT, _mm512_mul_pd(_mm512_set1_pd(R->kf),
                                           _mm512_add_pd(_mm512_maskz_min_pd(0xff, T1, T2),
                                                         _mm512_set1_pd(R->babs))));
    }
    /* Rows k0 <= k < ke of the strip into the accumulators P. */
#define REPDL__CRK(P)                                                                     \
    for (k = k0; k < ke; k++) {                                                           \
        __m512d b0 = _mm512_loadu_pd(b + 16 * k), b1 = _mm512_loadu_pd(b + 16 * k + 8), x;  \
        if (k + REPDL_GEMM_CR_BPF < kc) { /* row k + BPF of the strip (two lines) */      \
            REPDL__CR_BPF_HOOK                                                            \
            _mm_prefetch((const char *)(b + 16 * (k + REPDL_GEMM_CR_BPF)), _MM_HINT_T0);   \
            _mm_prefetch((const char *)(b + 16 * (k + REPDL_GEMM_CR_BPF) + 8), _MM_HINT_T0); \
        }                                                                                 \
        REPDL__CRF(0, a, 0, P) REPDL__CRF(1, a, 1, P) REPDL__CRF(2, a, 2, P)              \
        REPDL__CRF(3, a3, 0, P) REPDL__CRF(4, a3, 1, P) REPDL__CRF(5, a3, 2, P)           \
    }
#define REPDL__CRF(i, q, o, P) x = _mm512_set1_pd(q[o * la + k]);                        \
    P##i##0 = _mm512_fmadd_pd(x, b0, P##i##0); P##i##1 = _mm512_fmadd_pd(x, b1, P##i##1);
#ifdef REPDL_GEMM_CR_ON_BPREFETCH
#define REPDL__CR_BPF_HOOK REPDL_GEMM_CR_ON_BPREFETCH(16 * (k + REPDL_GEMM_CR_BPF), 16 * kc); /* a test hook */
#else
#define REPDL__CR_BPF_HOOK
#endif
    /* The first chunk is summed into c itself: from the bias row on the
       first K panel (ld0 == 0: the bias then starts the chain, whose depth
       KSUB + ceil(kc / KSUB) - 1 + (panels - 1) stays below d), from 0 on
       the others (S0, the earlier panels' sum, added at the end). */
    if (ld0 == 0) {
        const __m512d s00 = _mm512_loadu_pd(S0), s01 = _mm512_loadu_pd(S0 + 8);
#define REPDL__CRL(i) c##i##0 = s00; c##i##1 = s01;
        REPDL__CRL(0) REPDL__CRL(1) REPDL__CRL(2) REPDL__CRL(3) REPDL__CRL(4) REPDL__CRL(5)
#undef REPDL__CRL
    } else {
#define REPDL__CRL(i) c##i##0 = _mm512_setzero_pd(); c##i##1 = _mm512_setzero_pd();
        REPDL__CRL(0) REPDL__CRL(1) REPDL__CRL(2) REPDL__CRL(3) REPDL__CRL(4) REPDL__CRL(5)
#undef REPDL__CRL
    }
    k0 = 0;
    REPDL__CRK(c)
    for (k0 = ke; k0 < kc; k0 = ke) {
        ke = kc - k0 < REPDL__GEMM_CR_KSUB ? kc : k0 + REPDL__GEMM_CR_KSUB;
#define REPDL__CRL(i) p##i##0 = _mm512_setzero_pd(); p##i##1 = _mm512_setzero_pd();
        REPDL__CRL(0) REPDL__CRL(1) REPDL__CRL(2) REPDL__CRL(3) REPDL__CRL(4) REPDL__CRL(5)
#undef REPDL__CRL
        REPDL__CRK(p)
#define REPDL__CRA(i) c##i##0 = _mm512_add_pd(c##i##0, p##i##0); c##i##1 = _mm512_add_pd(c##i##1, p##i##1);
        REPDL__CRA(0) REPDL__CRA(1) REPDL__CRA(2) REPDL__CRA(3) REPDL__CRA(4) REPDL__CRA(5)
#undef REPDL__CRA
    }
#undef REPDL__CR_BPF_HOOK
#undef REPDL__CRF
#undef REPDL__CRK
    if (ld0) {
#define REPDL__CRS(i) \
        c##i##0 = _mm512_add_pd(_mm512_loadu_pd(S0 + i * ld0), c##i##0);     \
        c##i##1 = _mm512_add_pd(_mm512_loadu_pd(S0 + i * ld0 + 8), c##i##1);
        REPDL__CRS(0) REPDL__CRS(1) REPDL__CRS(2) REPDL__CRS(3) REPDL__CRS(4) REPDL__CRS(5)
#undef REPDL__CRS
    }
#define REPDL__CRS(i) _mm512_storeu_pd(S + i * lds, c##i##0); _mm512_storeu_pd(S + i * lds + 8, c##i##1);
    if (!R) {
        REPDL__CRS(0) REPDL__CRS(1) REPDL__CRS(2) REPDL__CRS(3) REPDL__CRS(4) REPDL__CRS(5)
    }
#undef REPDL__CRS
    if (R) {
        const __m512d vc51 = _mm512_set1_pd(R->c51);
        const __m512i nosign = _mm512_set1_epi64(0x7fffffffffffffffll);
        const unsigned colmask = R->cols >= 16 ? 0xffffu : (1u << R->cols) - 1u;
        const unsigned rows = R->rows;
        float *const cp = R->c;
        unsigned short *const fp = R->flag;
        const size_t ldc = R->ldc, fld = R->fld;
        unsigned any = 0;
        /* Row i: its T over the strip (one bound for the 16 outputs), E =
           RN(|t| c51 + RN(kf T)); lo and hi rounded to binary32 in fl, fh;
           the side test (0 outside [lo, hi]) as |t| > E. */
#define REPDL__CRH(t, vE, fl, fh, side)                                                   \
        {                                                                                 \
            __m512d at = _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(t), nosign)); \
            __m512d E = _mm512_fmadd_pd(at, vc51, vE);                                    \
            fl = _mm512_maskz_cvtpd_ps(0xff, _mm512_sub_pd(t, E));                        \
            fh = _mm512_maskz_cvtpd_ps(0xff, _mm512_add_pd(t, E));                        \
            side = (unsigned)_mm512_cmp_pd_mask(at, E, _CMP_GT_OQ);                       \
        }
#define REPDL__CR16(lo8, hi8)                                                             \
        _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(lo8)), \
                                            _mm256_castps_pd(hi8), 1))
#define REPDL__CRR(i)                                                                     \
        {                                                                                 \
            const __m512d vE = _mm512_set1_pd(eT[i]);                                     \
            __m256 f0, f1, h0, h1;                                                        \
            __m512 fl;                                                                    \
            unsigned s0, s1, bad;                                                         \
            REPDL__CRH(c##i##0, vE, f0, h0, s0)                                           \
            REPDL__CRH(c##i##1, vE, f1, h1, s1)                                           \
            fl = REPDL__CR16(f0, f1);                                                     \
            bad = ~((unsigned)_mm512_cmp_ps_mask(fl, REPDL__CR16(h0, h1), _CMP_EQ_OQ) &     \
                    (s0 | (s1 << 8))) & colmask;                                          \
            fp[i * fld] = (unsigned short)bad;                                            \
            any |= bad;                                                                   \
            if (bad) { /* the flagged sums, for the non-finite test */                    \
                _mm512_mask_storeu_pd(S + i * lds, (__mmask8)bad, c##i##0);               \
                _mm512_mask_storeu_pd(S + i * lds + 8, (__mmask8)(bad >> 8), c##i##1);    \
            }                                                                             \
            if (i < rows) _mm512_mask_storeu_ps(cp + i * ldc, (__mmask16)colmask, fl);    \
        }
        REPDL__CRR(0) REPDL__CRR(1) REPDL__CRR(2) REPDL__CRR(3) REPDL__CRR(4) REPDL__CRR(5)
#undef REPDL__CRR
#undef REPDL__CR16
#undef REPDL__CRH
        R->any |= any;
    }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

/* The depth d of the fast path's summation tree for K products in panels of
   kc0 (the bound's factor), for the kernel of isa. */
REPDL_FN size_t repdl__gemm_cr_depth(int isa, size_t K, size_t kc0)
{
    size_t panels = kc0 ? (K + kc0 - 1) / kc0 : 0;
    if (isa == 2 && kc0 > REPDL__GEMM_CR_KSUB)
        return REPDL__GEMM_CR_KSUB + (kc0 + REPDL__GEMM_CR_KSUB - 1) / REPDL__GEMM_CR_KSUB +
               panels;
    return kc0 + panels;
}

REPDL_FN int repdl__gemm_cr_nr(int isa) { return isa == 2 ? 16 : 8; }

/* R: the rule fused into the AVX-512 kernel (NULL for the others). */
REPDL_FN void repdl__gemm_cr_ukr(int isa, size_t kc, const double *a, size_t la, const double *b,
                                 double *S, size_t lds, const double *S0, size_t ld0,
                                 repdl__gemm_cr_rule *R)
{
#if REPDL__GEMM_X86
    if (isa == 2) { repdl__gemm_cr_ukr_avx512(kc, a, la, b, S, lds, S0, ld0, R); return; }
    if (isa == 1) { repdl__gemm_cr_ukr_avx2(kc, a, la, b, S, lds, S0, ld0); return; }
#endif
    (void)isa;
    (void)R;
    repdl__gemm_cr_ukr8(kc, a, la, b, S, lds, S0, ld0);
}

/* |x| as a double, by the bits (no branch on the sign). */
REPDL_FN double repdl__gemm_cr_abs(float x)
{
    return (double)repdl__asfloat(repdl__asuint(x) & 0x7fffffffu);
}

/* Norms of `lines` lines of n values, for the bound: l1[i] = the binary64
   sum of |x| (any order: the error analysis of the header holds for every
   summation tree; NaN when a value is NaN, +inf when one is infinite) and
   mx[i] = max |x|.  Line i is x + i ld (along) or x[k ld + i] (across). */
REPDL_FN void repdl__gemm_cr_norms(size_t lines, size_t n, const float *x, size_t ld, int across,
                                   double *l1, double *mx)
{
    size_t i, k;
    if (across) {
        for (i = 0; i < lines; i++) l1[i] = mx[i] = 0.0;
        for (k = 0; k < n; k++)
            for (i = 0; i < lines; i++) {
                double v = repdl__gemm_cr_abs(x[k * ld + i]);
                l1[i] += v;
                mx[i] = v > mx[i] ? v : mx[i];
            }
        return;
    }
    for (i = 0; i < lines; i++) {
        const float *r = x + i * ld;
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0, m0 = 0, m1 = 0, m2 = 0, m3 = 0;
        size_t nb = n & ~(size_t)3;
        for (k = 0; k < nb; k += 4) {
            double v0 = repdl__gemm_cr_abs(r[k]), v1 = repdl__gemm_cr_abs(r[k + 1]),
                   v2 = repdl__gemm_cr_abs(r[k + 2]), v3 = repdl__gemm_cr_abs(r[k + 3]);
            s0 += v0; s1 += v1; s2 += v2; s3 += v3;
            m0 = v0 > m0 ? v0 : m0;
            m1 = v1 > m1 ? v1 : m1;
            m2 = v2 > m2 ? v2 : m2;
            m3 = v3 > m3 ? v3 : m3;
        }
        for (k = nb; k < n; k++) {
            double v = repdl__gemm_cr_abs(r[k]);
            s0 += v;
            m0 = v > m0 ? v : m0;
        }
        m0 = m1 > m0 ? m1 : m0;
        m2 = m3 > m2 ? m3 : m2;
        l1[i] = (s0 + s1) + (s2 + s3);
        mx[i] = m2 > m0 ? m2 : m0;
    }
}

#if REPDL__GEMM_X86
/* The norms along rows (the `along` case of repdl__gemm_cr_norms), eight
   binary64 lanes per step: the same quantities (l1 summed in another
   order, which the bound allows; mx the same maximum). */
__attribute__((target("avx2,fma"))) static void
repdl__gemm_cr_norms_avx2(size_t lines, size_t n, const float *x, size_t ld, double *l1,
                          double *mx)
{
    const __m128 msk = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    size_t i, k, nb = n & ~(size_t)7;
    for (i = 0; i < lines; i++) {
        const float *r = x + i * ld;
        __m256d s0 = _mm256_setzero_pd(), s1 = s0, m0 = s0, m1 = s0;
        double t[4], u[4], s, m;
        for (k = 0; k < nb; k += 8) {
            __m256d v0 = _mm256_cvtps_pd(_mm_and_ps(_mm_loadu_ps(r + k), msk));
            __m256d v1 = _mm256_cvtps_pd(_mm_and_ps(_mm_loadu_ps(r + k + 4), msk));
            s0 = _mm256_add_pd(s0, v0);
            s1 = _mm256_add_pd(s1, v1);
            m0 = _mm256_max_pd(v0, m0);
            m1 = _mm256_max_pd(v1, m1);
        }
        _mm256_storeu_pd(t, _mm256_add_pd(s0, s1));
        _mm256_storeu_pd(u, _mm256_max_pd(m0, m1));
        s = (t[0] + t[1]) + (t[2] + t[3]);
        m = u[0];
        for (k = 1; k < 4; k++) m = u[k] > m ? u[k] : m;
        for (k = nb; k < n; k++) {
            double v = repdl__gemm_cr_abs(r[k]);
            s += v;
            m = v > m ? v : m;
        }
        l1[i] = s;
        mx[i] = m;
    }
}

/* The same norms, sixteen binary64 lanes per step (two of eight); the
   zero-masked conversion with every lane set is the plain one (g++ warns
   about the unmasked form's undefined source once inlined). */
__attribute__((target("avx512f"))) static void
repdl__gemm_cr_norms_avx512(size_t lines, size_t n, const float *x, size_t ld, double *l1,
                            double *mx)
{
    const __m512i nosign = _mm512_set1_epi64(0x7fffffffffffffffll);
    size_t i, k, nb = n & ~(size_t)15;
    for (i = 0; i < lines; i++) {
        const float *r = x + i * ld;
        __m512d s0 = _mm512_setzero_pd(), s1 = s0, m0 = s0, m1 = s0;
        double t[8], u[8], s, m;
        for (k = 0; k < nb; k += 16) {
            __m512d v0 = _mm512_castsi512_pd(_mm512_and_si512(
                _mm512_castpd_si512(_mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(r + k))), nosign));
            __m512d v1 = _mm512_castsi512_pd(_mm512_and_si512(
                _mm512_castpd_si512(_mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(r + k + 8))),
                nosign));
            s0 = _mm512_add_pd(s0, v0);
            s1 = _mm512_add_pd(s1, v1);
            m0 = _mm512_maskz_max_pd(0xff, v0, m0);
            m1 = _mm512_maskz_max_pd(0xff, v1, m1);
        }
        _mm512_storeu_pd(t, _mm512_add_pd(s0, s1));
        _mm512_storeu_pd(u, _mm512_maskz_max_pd(0xff, m0, m1));
        s = ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
        m = u[0];
        for (k = 1; k < 8; k++) m = u[k] > m ? u[k] : m;
        for (k = nb; k < n; k++) {
            double v = repdl__gemm_cr_abs(r[k]);
            s += v;
            m = v > m ? v : m;
        }
        l1[i] = s;
        mx[i] = m;
    }
}

/* 8 x 8 floats (row r at src + r ld, 8 consecutive k) to doubles
   transposed: dst[k ldd + r] = src[r ld + k]. */
__attribute__((target("avx2,fma"))) static void
repdl__gemm_cr_t8x8(const float *src, size_t ld, double *dst, size_t ldd)
{
    __m256 r0 = _mm256_loadu_ps(src), r1 = _mm256_loadu_ps(src + ld),
           r2 = _mm256_loadu_ps(src + 2 * ld), r3 = _mm256_loadu_ps(src + 3 * ld),
           r4 = _mm256_loadu_ps(src + 4 * ld), r5 = _mm256_loadu_ps(src + 5 * ld),
           r6 = _mm256_loadu_ps(src + 6 * ld), r7 = _mm256_loadu_ps(src + 7 * ld);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1),
           t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3),
           t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
           t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee),
           u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee),
           u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee),
           u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
    /* u0: rows 0-3 of k 0 | k 4; u4: rows 4-7 of k 0 | k 4; u1, u5: k 1 | 5;
       u2, u6: k 2 | 6; u3, u7: k 3 | 7. */
#define REPDL__T8(ua, ub, k)                                                        \
    _mm256_storeu_pd(dst + (k) * ldd, _mm256_cvtps_pd(_mm256_castps256_ps128(ua)));     \
    _mm256_storeu_pd(dst + (k) * ldd + 4, _mm256_cvtps_pd(_mm256_castps256_ps128(ub))); \
    _mm256_storeu_pd(dst + (k + 4) * ldd, _mm256_cvtps_pd(_mm256_extractf128_ps(ua, 1))); \
    _mm256_storeu_pd(dst + (k + 4) * ldd + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(ub, 1)));
    REPDL__T8(u0, u4, 0) REPDL__T8(u1, u5, 1) REPDL__T8(u2, u6, 2) REPDL__T8(u3, u7, 3)
#undef REPDL__T8
}
#endif

#if REPDL__GEMM_X86
/* d[k] = (double)x[k], k < n. */
__attribute__((target("avx2,fma"))) static void
repdl__gemm_cr_widen_avx2(size_t n, const float *x, double *d)
{
    size_t k, nb = n & ~(size_t)7;
    for (k = 0; k < nb; k += 8) {
        _mm256_storeu_pd(d + k, _mm256_cvtps_pd(_mm_loadu_ps(x + k)));
        _mm256_storeu_pd(d + k + 4, _mm256_cvtps_pd(_mm_loadu_ps(x + k + 4)));
    }
    for (k = nb; k < n; k++) d[k] = (double)x[k];
}
#endif

#if REPDL__GEMM_X86
/* g++ 12 reports -Wmaybe-uninitialized inside its own avx512fintrin.h
   (_mm512_cvtps_pd's deliberately undefined source lanes, `__Y = __Y`)
   once it is inlined here: silenced for this function only, so that a
   C++ user's -Werror build compiles (as detail/gemv.h does). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/* d[k] = (double)x[k], k < n, sixteen a step. */
__attribute__((target("avx512f"))) static void
repdl__gemm_cr_widen_avx512(size_t n, const float *x, double *d)
{
    size_t k, nb = n & ~(size_t)15;
    for (k = 0; k < nb; k += 16) {
        _mm512_storeu_pd(d + k, _mm512_cvtps_pd(_mm256_loadu_ps(x + k)));
        _mm512_storeu_pd(d + k + 8, _mm512_cvtps_pd(_mm256_loadu_ps(x + k + 8)));
    }
    for (k = nb; k < n; k++) d[k] = (double)x[k];
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

/* d[k] = (double)x[k], k < n. */
REPDL_FN void repdl__gemm_cr_widen(int isa, size_t n, const float *x, double *d)
{
    size_t k;
#if REPDL__GEMM_X86
    if (isa == 2) {
        repdl__gemm_cr_widen_avx512(n, x, d);
        return;
    }
    if (isa >= 1) {
        repdl__gemm_cr_widen_avx2(n, x, d);
        return;
    }
#endif
    (void)isa;
    for (k = 0; k < n; k++) d[k] = (double)x[k];
}

/* A hint (no value depends on it): rows [r0, r1) of A (op(A) not
   transposed), columns [p0, p0 + n), n >= 1, fetched into cache while the
   kernel works on the previous panel, so that packing them reads cache. */
REPDL_FN void repdl__gemm_cr_prefetch(const float *A, size_t lda, size_t r0, size_t r1, size_t p0,
                                      size_t n)
{
#if REPDL__GNU_HOST
    size_t r, k;
    for (r = r0; r < r1; r++) {
        const float *x = A + r * lda + p0;
        for (k = 0; k < n; k += 16) __builtin_prefetch(x + k, 0, 3);
        __builtin_prefetch(x + n - 1, 0, 3);
    }
#else
    (void)A; (void)lda; (void)r0; (void)r1; (void)p0; (void)n;
#endif
}

/* Pack op(B)[pc..pc+kc)[col0..col0+nr) for transB (row j of B holds column
   j of op(B)) as d[k nr + jj], jj < nr, every column present. */
REPDL_FN void repdl__gemm_cr_pack_bt(int isa, const float *B, size_t ldb, size_t col0,
                                     size_t pc, size_t kc, size_t nr, double *d)
{
    size_t k = 0, jj;
#if REPDL__GEMM_X86
    if (isa >= 1) {
        for (; k + 8 <= kc; k += 8)
            for (jj = 0; jj < nr; jj += 8)
                repdl__gemm_cr_t8x8(B + (col0 + jj) * ldb + pc + k, ldb, d + k * nr + jj, nr);
    }
#endif
    (void)isa;
    for (; k < kc; k++)
        for (jj = 0; jj < nr; jj++) d[k * nr + jj] = (double)B[(col0 + jj) * ldb + pc + k];
}

/* The rule of the header over a row of a block, branch-free (the compiler
   vectorizes it): c[j] = (float)lo and flag[j] = 0 when lo and hi round to
   the same binary32 and 0 is outside [lo, hi]; else flag[j] = 1.  Float
   equality suffices: with 0 outside [lo, hi] both ends have one sign.  A
   non-finite t (a non-finite input) is the IEEE sum: +-inf is accepted
   (lo = hi = t), NaN is flagged.  kf = d (1 + 2^-8) 2^-53, c51 = 2^-51. */
#define REPDL__GEMM_CR_DECIDE_BODY                                               \
    {                                                                            \
        size_t j;                                                                \
        unsigned any = 0;                                                        \
        for (j = 0; j < n; j++) {                                                \
            double t = s[j], T1 = a1 * bmx[j], T2 = amx * b1[j];                 \
            double T = (T1 < T2 ? T1 : T2) + babs[j], at = t < 0 ? -t : t;       \
            double E = kf * T + at * c51, lo = t - E, hi = t + E;                \
            float fl = (float)lo, fh = (float)hi;                                \
            unsigned f = !((fl == fh) & ((lo > 0.0) | (hi < 0.0)));              \
            c[j] = fl;                                                           \
            flag[j] = (unsigned char)f;                                          \
            any |= f;                                                            \
        }                                                                        \
        return (int)any;                                                         \
    }

/* Returns nonzero when some flag[j] is 1. */
REPDL_FN int repdl__gemm_cr_decide_c(size_t n, const double *s, double a1, double amx,
                                     const double *b1, const double *bmx, const double *babs,
                                     double kf, double c51, float *c, unsigned char *flag)
REPDL__GEMM_CR_DECIDE_BODY

#if REPDL__GEMM_X86
__attribute__((target("avx2,fma"))) static int
repdl__gemm_cr_decide_avx2(size_t n, const double *s, double a1, double amx, const double *b1,
                           const double *bmx, const double *babs, double kf, double c51, float *c,
                           unsigned char *flag)
REPDL__GEMM_CR_DECIDE_BODY

#endif

REPDL_FN int repdl__gemm_cr_decide(int isa, size_t n, const double *s, double a1, double amx,
                                   const double *b1, const double *bmx, const double *babs,
                                   double kf, double c51, float *c, unsigned char *flag)
{
#if REPDL__GEMM_X86
    if (isa >= 1) return repdl__gemm_cr_decide_avx2(n, s, a1, amx, b1, bmx, babs, kf, c51, c, flag);
#endif
    (void)isa;
    return repdl__gemm_cr_decide_c(n, s, a1, amx, b1, bmx, babs, kf, c51, c, flag);
}

/* Every output by the exact path (or non-finite rule): no scratch. */
REPDL_FN void repdl__gemm_cr_plain(int transA, int transB, size_t M, size_t N, size_t K,
                                   const float *A, size_t lda, const float *B, size_t ldb,
                                   const float *bias, float *C, size_t ldc)
{
    size_t i, j, k;
    size_t sa = transA ? lda : 1, sb = transB ? 1 : ldb;
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            const float *a = transA ? A + i : A + i * lda;
            const float *b = transB ? B + j * ldb : B + j;
            double t = bias ? (double)bias[j] : -0.0, T = bias ? t - t : 0.0;
            for (k = 0; k < K; k++) {
                double p = (double)a[k * sa] * (double)b[k * sb];
                t += p;
                T += p - p; /* NaN when a term is not finite */
            }
            if (T - T == 0.0) C[i * ldc + j] = repdl__gemm_cr_exact(K, a, sa, b, sb, bias);
            else C[i * ldc + j] = repdl__canon((float)t);
        }
}

REPDL_FN void repdl__gemm_cr_core(int transA, int transB, size_t M, size_t N, size_t K,
                                  const float *A, size_t lda, const float *B, size_t ldb,
                                  const float *bias, float *C, size_t ldc)
{
    const int MR = REPDL__GEMM_CR_MR;
    int isa = repdl__gemm_isa();
    size_t nr = (size_t)repdl__gemm_cr_nr(isa);
    size_t kc0 = K < REPDL_GEMM_CR_KC ? K : REPDL_GEMM_CR_KC;
    size_t nc0 = N < REPDL_GEMM_CR_NC ? N : REPDL_GEMM_CR_NC;
    size_t mc0 = M < REPDL_GEMM_CR_MC ? M : REPDL_GEMM_CR_MC;
    size_t ncp = (nc0 + nr - 1) / nr * nr, mcp = (mc0 + MR - 1) / MR * MR;
    size_t sa = transA ? lda : 1, sb = transB ? 1 : ldb;
    /* The norms padded (8 rows, 16 columns of zeros: the fused rule reads
       whole tiles); the flags: one byte an output of a block row for the
       rule pass, a 16-bit word per row and strip of a block for the fused
       rule. */
    size_t nS = mcp * ncp + ncp, nA = mcp * kc0, nB, words, t;
    size_t nstat = 2 * (M + 8) + 3 * (N + 16) + ncp / 8 + 1 + mcp * (ncp / 16) / 4 + 1 +
                   3 * (N / 16 + 1);
    size_t i, j, k, ic, jc, jb, pc, nblk, group;
    int whole;
    double *S, *s0, *ap, *bp, *ra1, *ramax, *cb1, *cbmax, *babs, *sb1, *sbmx, *sba;
    unsigned char *flag;
    unsigned short *flagw;
    /* The bound's factors (no hexadecimal literals: C++14): d (1 + 2^-8)
       2^-53 with d the depth of the fast path's summation tree
       (repdl__gemm_cr_depth, <= K + 1) and 0x1.01p-53 = 0x3ca0100000000000,
       and 2^-51; above
       REPDL_GEMM_CR_KFAST the factor is +inf, so every output is flagged. */
    double kf = K <= REPDL_GEMM_CR_KFAST
                    ? (double)repdl__gemm_cr_depth(isa, K, kc0) * repdl__asdouble(0x3ca0100000000000ull)
                    : repdl__asdouble(0x7ff0000000000000ull);
    double c51 = repdl__asdouble(0x3cc0000000000000ull);
    void *blk;
    /* The rule fused into the AVX-512 kernel's last K panel. */
    int fuse = isa == 2;
    repdl__gemm_cr_rule rule;
    if (M == 0 || N == 0) return;
    if (K == 0) {
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++) C[i * ldc + j] = bias ? repdl__canon(bias[j]) : -0.0f;
        return;
    }
    /* Scratch: op(B) is packed `group` column blocks (all of K) at a time,
       as many as fit in REPDL_GEMM_CR_WHOLE doubles; when two or more fit
       (`whole`), each row block of op(A) is packed once for all of K and
       the group, else one column block at a time and op(A) per K panel
       (a 96 x K block of op(A) would leave L2 before the kernel reads it).
       Blocking only: no value depends on it. */
    nblk = (N + nc0 - 1) / nc0;
    group = REPDL_GEMM_CR_WHOLE / K / ncp;
    whole = group >= 2;
    if (group < 1) group = 1;
    if (group > nblk) group = nblk;
    nB = group * ncp;
    if (whole) nA = mcp * K;
    words = nS + nA + nstat;
    t = nB;
    if (repdl__size_mul(&t, K) || repdl__size_add(&words, t) ||
        words > ((size_t)-1) / sizeof(double) - 8)
        blk = NULL;
    else
        blk = malloc(words * sizeof(double) + 64);
    if (!blk) {
        repdl__gemm_cr_plain(transA, transB, M, N, K, A, lda, B, ldb, bias, C, ldc);
        return;
    }
    S = (double *)(void *)repdl__align64(blk);
    s0 = S + mcp * ncp; /* the first panel's sums start from this row */
    ap = S + nS;
    bp = ap + nA;
    ra1 = bp + nB * K;
    ramax = ra1 + M + 8;
    cb1 = ramax + M + 8;
    cbmax = cb1 + N + 16;
    babs = cbmax + N + 16;
    flag = (unsigned char *)(babs + N + 16);
    flagw = (unsigned short *)(babs + N + 16 + ncp / 8 + 1);
    sb1 = babs + N + 16 + ncp / 8 + 1 + mcp * (ncp / 16) / 4 + 1;
    sbmx = sb1 + N / 16 + 1;
    sba = sbmx + N / 16 + 1;
    for (i = M; i < M + 8; i++) ra1[i] = ramax[i] = 0.0;
    for (j = N; j < N + 16; j++) cb1[j] = cbmax[j] = babs[j] = 0.0;
#if REPDL__GEMM_X86
    if (isa == 2 && !transA) repdl__gemm_cr_norms_avx512(M, K, A, lda, ra1, ramax);
    else if (isa >= 1 && !transA) repdl__gemm_cr_norms_avx2(M, K, A, lda, ra1, ramax);
    else
#endif
        repdl__gemm_cr_norms(M, K, A, lda, transA, ra1, ramax);
#if REPDL__GEMM_X86
    if (isa == 2 && transB) repdl__gemm_cr_norms_avx512(N, K, B, ldb, cb1, cbmax);
    else if (isa >= 1 && transB) repdl__gemm_cr_norms_avx2(N, K, B, ldb, cb1, cbmax);
    else
#endif
        repdl__gemm_cr_norms(N, K, B, ldb, !transB, cb1, cbmax);
    for (j = 0; j < N; j++) {
        double v = bias ? (double)bias[j] : 0.0;
        babs[j] = v < 0 ? -v : v;
    }
    /* The fused rule's column factors: the maxima over each strip of 16
       columns (NaN when one is NaN). */
    for (j = 0; j < N; j += 16) {
        size_t q, je = N - j < 16 ? N : j + 16;
        double m1 = 0.0, mm = 0.0, ma = 0.0;
        for (q = j; q < je; q++) {
            m1 = !(cb1[q] <= m1) ? cb1[q] : m1;
            mm = !(cbmax[q] <= mm) ? cbmax[q] : mm;
            ma = !(babs[q] <= ma) ? babs[q] : ma;
        }
        sb1[j / 16] = m1;
        sbmx[j / 16] = mm;
        sba[j / 16] = ma;
    }
    rule.kf = kf;
    rule.c51 = c51;
    rule.ldc = ldc;
    for (jb = 0; jb < N; jb += group * nc0) {
        size_t jend = N - jb < group * nc0 ? N : jb + group * nc0;
        /* Pack op(B)[0..K)[jc..jc+nc) of every column block jc in
           [jb, jend) as doubles at bp + (jc - jb) / nc0 * K ncp: K-panels
           of kc0 rows, each as nr-wide column strips (kc x nr, k-major),
           zero-padded. */
        for (jc = jb; jc < jend; jc += nc0) {
            size_t nc = N - jc < nc0 ? N - jc : nc0, ncr = (nc + nr - 1) / nr * nr;
            double *bj = bp + (jc - jb) / nc0 * K * ncp;
            for (pc = 0; pc < K; pc += kc0) {
                size_t kc = K - pc < kc0 ? K - pc : kc0;
                double *panel = bj + pc * ncr;
                size_t jr;
                for (jr = 0; jr < ncr; jr += nr) {
                    double *d = panel + jr * kc;
                    size_t jj;
                    if (transB && jr + nr <= nc) {
                        repdl__gemm_cr_pack_bt(isa, B, ldb, jc + jr, pc, kc, nr, d);
                        continue;
                    }
                    for (k = 0; k < kc; k++)
                        for (jj = 0; jj < nr; jj++) {
                            size_t col = jc + jr + jj;
                            d[k * nr + jj] =
                                jr + jj < nc ? (double)(transB ? B[col * ldb + pc + k]
                                                               : B[(pc + k) * ldb + col])
                                             : 0.0;
                        }
                }
            }
        }
        for (ic = 0; ic < M; ic += mc0) {
            size_t mc = M - ic < mc0 ? M - ic : mc0, mcr = (mc + MR - 1) / MR * MR;
            /* Pack op(A)[ic..ic+mcr)[p0..p0+n) as doubles, row i at
               dst + i n (rows past mc zero): every K panel once (whole,
               the panel at pc at ap + pc mcr), else each K panel at ap. */
#define REPDL__CR_PACK_A(p0, n, dst)                                                  \
    for (i = 0; i < mcr; i++) {                                                       \
        double *d = (dst) + i * (n);                                                  \
        if (i >= mc) {                                                                \
            for (k = 0; k < (n); k++) d[k] = 0.0;                                     \
        } else if (transA) {                                                          \
            const float *x = A + (p0) * lda + ic + i;                                 \
            for (k = 0; k < (n); k++) d[k] = (double)x[k * lda];                      \
        } else if (isa >= 1) {                                                        \
            repdl__gemm_cr_widen(isa, (n), A + (ic + i) * lda + (p0), d);             \
        } else {                                                                      \
            const float *x = A + (ic + i) * lda + (p0);                               \
            for (k = 0; k < (n); k++) d[k] = (double)x[k];                            \
        }                                                                             \
    }
            if (whole)
                for (pc = 0; pc < K; pc += kc0) {
                    size_t kc = K - pc < kc0 ? K - pc : kc0;
                    REPDL__CR_PACK_A(pc, kc, ap + pc * mcr)
                }
            for (jc = jb; jc < jend; jc += nc0) {
                size_t nc = N - jc < nc0 ? N - jc : nc0, ncr = (nc + nr - 1) / nr * nr;
                const double *bj = bp + (jc - jb) / nc0 * K * ncp;
                size_t ir, jr, nst = ncr / nr;
                rule.any = 0;
                rule.fld = nst;
                for (j = 0; j < ncr; j++) s0[j] = (bias && j < nc) ? (double)bias[jc + j] : -0.0;
                for (pc = 0; pc < K; pc += kc0) {
                    size_t kc = K - pc < kc0 ? K - pc : kc0;
                    const double *apc = whole ? ap + pc * mcr : ap;
                    /* Packed per panel: the rows [nic, nic + nmc) and
                       columns [npc, npc + nkc) of op(A) packed next, as
                       prefetch hints spread over the column strips. */
                    size_t nic = ic, npc = pc + kc0, nmc = 0, nkc = 0;
                    if (!whole) REPDL__CR_PACK_A(pc, kc, ap)
                    if (!whole && !transA) {
                        if (npc >= K) {
                            npc = 0;
                            if (jc + nc0 >= jend) nic = ic + mc0;
                        }
                        if (nic < M) nmc = M - nic < mc0 ? M - nic : mc0;
                        nkc = K - npc < kc0 ? K - npc : kc0;
                    }
                    for (jr = 0; jr < ncr; jr += nr) {
                        if (nmc) {
                            size_t r0 = nic + jr / nr * nmc / nst;
                            size_t r1 = nic + (jr / nr + 1) * nmc / nst;
#ifdef REPDL_GEMM_CR_ON_PREFETCH
                            REPDL_GEMM_CR_ON_PREFETCH(M, K, r0, r1, npc, nkc); /* a test hook */
#endif
                            repdl__gemm_cr_prefetch(A, lda, r0, r1, npc, nkc);
                        }
                        for (ir = 0; ir < mcr; ir += MR) {
                            repdl__gemm_cr_rule *rp = NULL;
                            if (fuse && pc + kc >= K) {
                                rule.a1 = ra1 + ic + ir;
                                rule.amx = ramax + ic + ir;
                                rule.b1 = sb1[(jc + jr) / 16];
                                rule.bmx = sbmx[(jc + jr) / 16];
                                rule.babs = sba[(jc + jr) / 16];
                                rule.c = C + (ic + ir) * ldc + jc + jr;
                                rule.rows = (unsigned)(mc - ir < (size_t)MR ? mc - ir : (size_t)MR);
                                rule.cols = (unsigned)(nc - jr < nr ? nc - jr : nr);
                                rule.flag = flagw + ir * nst + jr / nr;
                                rp = &rule;
                            }
                            repdl__gemm_cr_ukr(isa, kc, apc + ir * kc, kc,
                                               bj + pc * ncr + jr * kc, S + ir * ncr + jr, ncr,
                                               pc ? S + ir * ncr + jr : s0 + jr, pc ? ncr : 0, rp);
                        }
                    }
                }
                for (i = 0; i < mc; i++) {
                    size_t row = ic + i;
                    const float *a = transA ? A + row : A + row * lda;
                    const double *srow = S + i * ncr;
                    float *crow = C + row * ldc + jc;
                    if (fuse) {
                        /* The fused rule decided the block: its flag words
                           to bytes, for the rows with any. */
                        size_t st;
                        unsigned w = 0;
                        if (!rule.any) break;
                        for (st = 0; st < nst; st++) w |= flagw[i * nst + st];
                        if (!w) continue;
                        for (j = 0; j < nc; j++)
                            flag[j] = (unsigned char)((flagw[i * nst + j / nr] >> (j % nr)) & 1u);
                    } else if (!repdl__gemm_cr_decide(isa, nc, srow, ra1[row], ramax[row],
                                                      cb1 + jc, cbmax + jc, babs + jc, kf, c51,
                                                      crow, flag))
                        continue;
                    for (j = 0; j < nc; j++) {
                        size_t col = jc + j;
                        if (!flag[j]) continue;
                        if (!(srow[j] - srow[j] == 0.0)) crow[j] = repdl__canon((float)srow[j]);
                        else {
const float *b = transB ? B + col * ldb : B + col;
                            const float *bc = bias ? bias + col : NULL;
                            int ok = K <= REPDL_GEMM_CR_KFAST &&
                                     repdl__gemm_cr_refine(isa, K, a, sa, b, sb, bc, crow + j);
#ifdef REPDL_GEMM_CR_ON_REFINE
                            REPDL_GEMM_CR_ON_REFINE(ok); /* a counting hook for tests */
#endif
                            if (ok) continue;
#ifdef REPDL_GEMM_CR_ON_EXACT
                            REPDL_GEMM_CR_ON_EXACT(); /* a counting hook for benchmarks */
#endif
                            crow[j] = repdl__gemm_cr_exact(K, a, sa, b, sb, bc);
                        }
                    }
                }
            }
#undef REPDL__CR_PACK_A
        }
    }
    free(blk);
}

/* C[i][j] = RN(sum_k opA[i][k] opB[k][j] [+ bias[j]]), the header's rules. */
REPDL_API repdl_status repdl_gemm_cr_f32(int transA, int transB, size_t M, size_t N, size_t K,
                                         const float *A, size_t lda, const float *B, size_t ldb,
                                         const float *bias, float *C, size_t ldc)
{
    REPDL__FPENV_CHECK();
    repdl_status st = repdl__gemm_check(transA, transB, M, N, K, A, lda, B, ldb, C, ldc);
    if (st != REPDL_OK) return st;
    repdl__gemm_cr_core(transA, transB, M, N, K, A, lda, B, ldb, bias, C, ldc);
    return REPDL_OK;
}

/* The bf16-input form: A and B hold bfloat16 bit patterns (uint16_t, the
   layout and leading dimensions of repdl_gemm_cr_f32), bias and C are
   binary32.  Every bf16 value is a binary32 exactly (its bits << 16), so
   C[i][j] is the correctly rounded binary32 of the exact sum of the bf16
   products [+ bias[j]], the same rules.  op(A) and op(B) are converted to
   binary32 in scratch memory first (M K + K N floats): REPDL_ERR_NOMEM,
   nothing written, when it cannot be had. */
REPDL_API repdl_status repdl_gemm_cr_bf16(int transA, int transB, size_t M, size_t N, size_t K,
                                          const uint16_t *A, size_t lda, const uint16_t *B,
                                          size_t ldb, const float *bias, float *C, size_t ldc)
{
    REPDL__FPENV_CHECK();
    repdl_status st = repdl__gemm_check(transA, transB, M, N, K, (const float *)(const void *)A,
                                        lda, (const float *)(const void *)B, ldb, C, ldc);
    size_t na = M, nb = N, i, j, k;
    float *Af, *Bf;
    if (st != REPDL_OK) return st;
    if (M == 0 || N == 0) return REPDL_OK;
    if (K == 0) {
        repdl__gemm_cr_core(0, 1, M, N, 0, NULL, 0, NULL, 0, bias, C, ldc);
        return REPDL_OK;
    }
    if (repdl__size_mul(&na, K) || repdl__size_mul(&nb, K) || repdl__size_add(&na, nb) ||
        na > ((size_t)-1) / sizeof(float))
        return REPDL_ERR_OVERFLOW;
    Af = (float *)malloc(na * sizeof(float));
    if (!Af) return REPDL_ERR_NOMEM;
    Bf = Af + M * K;
    /* Dense op(A) (M x K, row-major) and op(B)^T (N x K, row-major). */
    for (i = 0; i < M; i++)
        for (k = 0; k < K; k++)
            Af[i * K + k] = repdl__asfloat((uint32_t)(transA ? A[k * lda + i] : A[i * lda + k])
                                           << 16);
    for (j = 0; j < N; j++)
        for (k = 0; k < K; k++)
            Bf[j * K + k] = repdl__asfloat((uint32_t)(transB ? B[j * ldb + k] : B[k * ldb + j])
                                           << 16);
    repdl__gemm_cr_core(0, 1, M, N, K, Af, K, Bf, K, bias, C, ldc);
    free(Af);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_GEMM_CR_H */
