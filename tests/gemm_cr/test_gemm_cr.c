/* SPDX-License-Identifier: MIT */
/* tests/gemm_cr/test_gemm_cr.c: repdl_gemm_cr_f32 (include/repdl/gemm_cr.h)
   against the MPFR oracle of reference/gemm_cr_ref.h, bit for bit.

   Data families (each on random shapes, transposes, leading dimensions,
   with and without bias): moderate and full binary32 ranges, constructed
   cancellations (exact zero and tiny sums), subnormal results, overflow,
   NaN / inf / signed zeros; exact ties (midpoints built from the bits of a
   random float, the expected result derived from its last bit, not from
   the oracle), ties moved by a tiny term either way, the overflow
   threshold; long K (several K panels).  The same products through the
   threaded form (1 to 4 threads) and cut into random sub-blocks: the same
   bits.  The bf16-input form (repdl_gemm_cr_bf16) against the oracle on the
   widened values.  Bad arguments: the status and C untouched.
   --small: fewer shapes (slow builds). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPDL_GEMM_THREADS_MIN 0.0 /* every call splits */
/* The prefetch hints of the per-panel packing of op(A): every one inside
   op(A) (r0 <= r1 <= M, n >= 1, p0 + n <= K), counted so that the blocks
   build shows it reaches them (any thread). */
static unsigned long pf_calls, pf_bad;
#define REPDL_GEMM_CR_ON_PREFETCH(M, K, r0, r1, p0, n)                                     \
    (__atomic_add_fetch(&pf_calls, 1ul, __ATOMIC_RELAXED),                                 \
     ((r0) <= (r1) && (r1) <= (M) && (n) >= 1 && (p0) + (n) <= (K))                        \
         ? 0ul                                                                             \
         : __atomic_add_fetch(&pf_bad, 1ul, __ATOMIC_RELAXED))
/* The refined path (TwoSum lanes) for the flagged outputs: counted by
   answer, so that every build shows both outcomes are reached (decided
   there, or passed on to the exact path), and the exact build none
   decided there. */
static unsigned long rf_ok, rf_no;
#define REPDL_GEMM_CR_ON_REFINE(ok)                                                        \
    ((ok) ? __atomic_add_fetch(&rf_ok, 1ul, __ATOMIC_RELAXED)                              \
          : __atomic_add_fetch(&rf_no, 1ul, __ATOMIC_RELAXED))
/* The AVX-512 kernel's prefetch of its op(B) strip: every hint inside the
   strip (offset + 16 <= 16 kc doubles), counted so that a build running
   that kernel with kc above the distance shows it reaches them. */
static unsigned long bpf_calls, bpf_bad;
#define REPDL_GEMM_CR_ON_BPREFETCH(off, len)                                               \
    (__atomic_add_fetch(&bpf_calls, 1ul, __ATOMIC_RELAXED),                                \
     (off) + 16 <= (len) ? 0ul : __atomic_add_fetch(&bpf_bad, 1ul, __ATOMIC_RELAXED))
#include <repdl/gemm_cr_threads.h>

#include "gemm_cr_ref.h"
#include "../common/check.h"
#include "../common/splitmix64.h"

static splitmix64 rng;
static uint64_t rnd(void) { return splitmix64_next(&rng); }
static size_t rnd_below(size_t n) { return (size_t)(rnd() % n); }

static float f_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, 4);
    return x;
}
static uint32_t u_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}
/* 2^e, e in [-149, 127], from the bits. */
static float pow2f(int e)
{
    return e >= -126 ? f_of((uint32_t)(e + 127) << 23) : f_of(1u << (e + 149));
}

/* A random finite value of the family `mode`. */
enum { M_MODERATE, M_FULL, M_SUBNORMAL, M_OVERFLOW, M_SPECIAL, M_ZEROS, M_SMALLINT, M_COUNT };
static float gen(int mode)
{
    uint32_t s = (uint32_t)(rnd() & 1u) << 31, m = (uint32_t)rnd() & 0x7fffffu;
    int e;
    switch (mode) {
    case M_MODERATE: e = (int)rnd_below(41) - 20; break;
    case M_FULL: {
        uint32_t u = (uint32_t)rnd() & 0x7fffffffu;
        if (u >= 0x7f800000u) u -= 0x7f800000u;
        return f_of(s | u);
    }
    case M_SUBNORMAL: e = (int)rnd_below(30) - 85; break;
    case M_OVERFLOW: e = (int)rnd_below(12) + 58; break;
    case M_SPECIAL: {
        uint32_t r = (uint32_t)rnd_below(40);
        if (r == 0) return f_of(s | 0x7f800000u);
        if (r == 1) return f_of(0x7fc00000u | (uint32_t)(rnd() & 0x3fffffu) | s);
        if (r < 5) return f_of(s);
        e = (int)rnd_below(21) - 10;
        break;
    }
    case M_ZEROS: {
        uint32_t r = (uint32_t)rnd_below(8);
        if (r < 6) return f_of(r < 4 ? 0x80000000u : 0u);
        e = (int)rnd_below(11) - 5;
        break;
    }
    default: /* small integers: frequent exact cancellation and ties */
        return (float)((int)rnd_below(9) - 4);
    }
    return f_of(s | (uint32_t)(e + 127) << 23 | m);
}

static long n_outputs;

/* One random product of family `mode`, compared with the oracle; then the
   threaded form and a random cut into four blocks. */
static void one_case(int mode, size_t M, size_t N, size_t K, int cancel)
{
    int tA = (int)(rnd() & 1), tB = (int)(rnd() & 1), T;
    size_t lda = (tA ? M : K) + rnd_below(3), ldb = (tB ? K : N) + rnd_below(3);
    size_t ldc = N + rnd_below(3), i, j, k;
    size_t nA = (tA ? K : M) * lda + 1, nB = (tB ? N : K) * ldb + 1, nC = M * ldc + 1;
    float *A = (float *)malloc(nA * sizeof(float)), *B = (float *)malloc(nB * sizeof(float));
    float *bias = (rnd() & 1) ? (float *)malloc(N * sizeof(float)) : NULL;
    float *C = (float *)malloc(nC * sizeof(float)), *R = (float *)malloc(nC * sizeof(float));
    float *D = (float *)malloc(nC * sizeof(float));
    for (i = 0; i < nA; i++) A[i] = gen(mode);
    for (i = 0; i < nB; i++) B[i] = gen(mode);
    if (bias)
        for (j = 0; j < N; j++) bias[j] = gen(mode);
    if (cancel && K >= 2) {
        /* The second half of every dot product negates the first, up to a
           few terms of other scales: exact zeros and sums far below the
           terms (the fast path's bound cannot decide them). */
        size_t h = K / 2;
        for (k = 0; k < h; k++) {
            for (i = 0; i < M; i++) {
                float *s = tA ? &A[k * lda + i] : &A[i * lda + k];
                float *d = tA ? &A[(k + h) * lda + i] : &A[i * lda + k + h];
                *d = *s;
            }
            for (j = 0; j < N; j++) {
                float *s = tB ? &B[j * ldb + k] : &B[k * ldb + j];
                float *d = tB ? &B[j * ldb + k + h] : &B[(k + h) * ldb + j];
                *d = -*s;
            }
        }
        if (cancel == 2 && rnd() & 1) {
            size_t kk = rnd_below(K);
            for (i = 0; i < M; i++) *(tA ? &A[kk * lda + i] : &A[i * lda + kk]) = gen(M_SUBNORMAL);
        }
        if (bias && (rnd() & 1))
            for (j = 0; j < N; j++) bias[j] = 0.0f;
    }
    for (i = 0; i < nC; i++) C[i] = R[i] = D[i] = f_of(0x7f800001u + (uint32_t)i); /* sentinels */
    CHECK(repdl_gemm_cr_f32(tA, tB, M, N, K, A, lda, B, ldb, bias, C, ldc) == REPDL_OK,
          "status mode %d", mode);
    gemm_cr_ref(tA, tB, M, N, K, A, lda, B, ldb, bias, R, ldc);
    CHECK_SAME(C, R, nC, "mode %d cancel %d M %zu N %zu K %zu tA %d tB %d bias %d", mode, cancel,
               M, N, K, tA, tB, bias != NULL);
    n_outputs += (long)(M * N);
    for (T = 1; T <= 4; T++) {
        memcpy(D, R, nC * sizeof(float));
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++) D[i * ldc + j] = f_of(0xffc00001u);
        CHECK(repdl_gemm_cr_threads_f32(tA, tB, M, N, K, T, A, lda, B, ldb, bias, D, ldc) ==
                  REPDL_OK,
              "threads status");
        CHECK_SAME(D, C, nC, "threads %d mode %d M %zu N %zu K %zu", T, mode, M, N, K);
    }
    {
        /* Four blocks at a random row and column cut. */
        size_t r = rnd_below(M + 1), c = rnd_below(N + 1), b;
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++) D[i * ldc + j] = f_of(0xffc00001u);
        for (b = 0; b < 4; b++) {
            size_t i0 = (b & 1) ? r : 0, m = (b & 1) ? M - r : r;
            size_t j0 = (b & 2) ? c : 0, n = (b & 2) ? N - c : c;
            const float *Ab = tA ? A + i0 : A + i0 * lda, *Bb = tB ? B + j0 * ldb : B + j0;
            if (m == 0 || n == 0) continue;
            CHECK(repdl_gemm_cr_f32(tA, tB, m, n, K, Ab, lda, Bb, ldb, bias ? bias + j0 : NULL,
                                    D + i0 * ldc + j0, ldc) == REPDL_OK,
                  "block status");
        }
        CHECK_SAME(D, C, nC, "blocks mode %d M %zu N %zu K %zu", mode, M, N, K);
    }
    free(A);
    free(B);
    free(bias);
    free(C);
    free(R);
    free(D);
}

/* A dot product of the given terms in a random order (through a 1 x 1
   product with random transposes), checked against `want` and the
   oracle. */
static void dot_case(size_t K, const float *a, const float *b, const float *bias, float want,
                     const char *what)
{
    float *A = (float *)malloc((K + 1) * sizeof(float)), *B = (float *)malloc((K + 1) * sizeof(float));
    size_t k, *perm = (size_t *)malloc((K + 1) * sizeof(size_t));
    float c = f_of(0x7f800001u), r;
    int tA, tB;
    for (k = 0; k < K; k++) perm[k] = k;
    for (k = K; k > 1; k--) {
        size_t t = rnd_below(k), x = perm[k - 1];
        perm[k - 1] = perm[t];
        perm[t] = x;
    }
    for (k = 0; k < K; k++) {
        A[k] = a[perm[k]];
        B[k] = b[perm[k]];
    }
    /* 1 x K times K x 1; transposed, A is K x 1 (lda 1), B is 1 x K (ldb K). */
    tA = (int)(rnd() & 1);
    tB = (int)(rnd() & 1);
    CHECK(repdl_gemm_cr_f32(tA, tB, 1, 1, K, A, tA ? 1 : K, B, tB ? K : 1, bias, &c, 1) ==
              REPDL_OK,
          "%s status", what);
    r = gemm_cr_ref_one(K, A, 1, B, 1, bias);
    CHECK_BITS(r, want, "%s: oracle against the construction", what);
    CHECK_BITS(c, want, "%s", what);
    n_outputs++;
    free(A);
    free(B);
    free(perm);
}

/* Exact midpoints: f + ulp(f)/2 written as f*1 + p*q (p q = ulp/2), plus a
   large pair that cancels; the result is f or its successor, whichever is
   even (the successor of the largest float is inf); a tiny term of either
   sign moves the sum off the midpoint.  Negated: the negated result.  Or
   f as the bias with the half-ulp (and tiny) products alone. */
static void ties(int n)
{
    int t;
    for (t = 0; t < n; t++) {
        uint32_t fu = (uint32_t)rnd_below(0x7f7fffffu) + 1u; /* (0, FLT_MAX] */
        float f = f_of(fu), a[6], b[6], bias = pow2f(100), want;
        int be = (int)(fu >> 23), h = (be ? be : 1) - 150 - 1; /* ulp(f)/2 = 2^h */
        int kind = (int)rnd_below(3), e = h - 30 < -298 ? -298 : h - 30;
        size_t K = 4, k;
        a[0] = f; b[0] = 1.0f;
        a[1] = pow2f(h / 2); b[1] = pow2f(h - h / 2);
        a[2] = pow2f(60); b[2] = pow2f(40);
        a[3] = -pow2f(60); b[3] = pow2f(40);
        a[4] = b[4] = 0.0f;
        want = f_of((fu & 1u) ? fu + 1u : fu);
        if (kind) {
            a[4] = (kind == 1 ? 1.0f : -1.0f) * pow2f(e / 2);
            b[4] = pow2f(e - e / 2);
            K = 5;
            want = f_of(kind == 1 ? fu + 1u : fu);
        }
        if (rnd() & 1) {
            for (k = 0; k < K; k++) a[k] = -a[k];
            want = f_of(u_of(want) ^ 0x80000000u);
        }
        switch (rnd_below(3)) {
        case 0:
            dot_case(K, a, b, NULL, want, "tie");
            break;
        case 1:
            /* a bias of 2^100 that cancels against one more product */
            a[K] = pow2f(50); b[K] = -pow2f(50);
            dot_case(K + 1, a, b, &bias, want, "tie with bias");
            break;
        default:
            /* f itself as the bias, no large pair: the bias dominates the
               bound (its binary64 sum with the products is inexact) */
            bias = a[0];
            a[0] = a[1]; b[0] = b[1];
            a[1] = a[4]; b[1] = b[4];
            dot_case(K - 3, a, b, &bias, want, "tie on the bias");
            break;
        }
    }
}

/* The product of an M x K matrix whose rows are all a[0..K) and an op(B)
   whose columns are all b[0..K) (plus bias[j] when given), op(B) stored
   both ways: every output must be want. */
static void repeated_rows(size_t M, size_t N, size_t K, const float *a, const float *b,
                          const float *bias, float want, const char *what)
{
    float *A = (float *)malloc(M * K * sizeof *A), *Bt = (float *)malloc(N * K * sizeof *Bt);
    float *Bn = (float *)malloc(K * N * sizeof *Bn), *C = (float *)malloc(M * N * sizeof *C);
    size_t i, j, k;
    int tB;
    if (!A || !Bt || !Bn || !C) { fprintf(stderr, "%s: out of memory\n", what); exit(2); }
    for (i = 0; i < M; i++) memcpy(A + i * K, a, K * sizeof *a);
    for (j = 0; j < N; j++) memcpy(Bt + j * K, b, K * sizeof *b);
    for (k = 0; k < K; k++)
        for (j = 0; j < N; j++) Bn[k * N + j] = b[k];
    for (tB = 0; tB < 2; tB++) {
        CHECK(repdl_gemm_cr_f32(0, tB, M, N, K, A, K, tB ? Bt : Bn, tB ? K : N, bias, C, N) ==
                  REPDL_OK,
              "%s status", what);
        for (i = 0; i < M * N; i++) CHECK_BITS(C[i], want, "%s, transB %d, output %zu", what, tB, i);
        n_outputs += (long)(M * N);
    }
    free(A); free(Bt); free(Bn); free(C);
}

/* Directed cases with results derived by hand. */
/* Terms the binary64 sum loses, in a fixed order (no permutation): with
   m = (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24, a binary32 midpoint whose tie
   goes down to f = 1 + 2^-11, the K = 256 products are m, -2^-47, then
   1, 2^-54 x 28, -1, and seven groups 1, 2^-54 x 30, -1.  With the
   default panel of 256 every kernel adds each 2^-54 to a partial sum of 1
   or more (one chain per panel, or chunks of 32 that start with the 1),
   so all 238 are lost: the computed t is m - 2^-47 (rounds to f) while
   the exact sum is m + 110 2^-54 (rounds to f's successor).  The bound with the true depth
   (at least 41 here) exceeds the lost 238 2^-54; a depth of 1 (a bound
   about 2^5 too small) accepts t.  The rows of A and the columns of op(B)
   repeat the vector, so every output of the 7 x 17 product (full micro-
   tiles and edges, op(B) transposed or not) is the same. */
static void lost_terms(void)
{
    enum { KL = 256, ML = 7, NL = 17 };
    static float a[KL], b[KL];
    float want = f_of(u_of(1.0f + pow2f(-11)) + 1u), r;
    size_t at = 0;
    int g, t;
    a[at] = 1.0f + pow2f(-12); b[at++] = 1.0f + pow2f(-12);
    a[at] = -pow2f(-24); b[at++] = pow2f(-23);
    for (g = 0; g < 8; g++) {
        a[at] = 1.0f; b[at++] = 1.0f;
        for (t = 0; t < (g ? 30 : 28); t++) { a[at] = pow2f(-27); b[at++] = pow2f(-27); }
        a[at] = -1.0f; b[at++] = 1.0f;
    }
    CHECK(at == KL, "lost terms: %zu products", at);
    r = gemm_cr_ref_one(KL, a, 1, b, 1, NULL);
    CHECK_BITS(r, want, "lost terms: oracle against the construction");
    repeated_rows(ML, NL, KL, a, b, NULL, want, "lost terms");
}

/* A bias that dominates the sum: bias 2^24, products 1, -2^-26 and 30 of
   2^-30: s = 2^24 + 1 + 14 2^-30, above the midpoint 2^24 + 1, so RN(s) =
   2^24 + 2.  The AVX-512 kernel's first chunk is one chain starting from the
   bias: each 2^-30 falls below half an ulp of the partial sum and is lost,
   t = 2^24 + 1 - 2^-26, below the midpoint by 4 2^-28; only the |bias|
   part of the bound (32 2^-53 2^24 and more) covers that, 2^-51 |t| does
   not.  Every build must still give 2^24 + 2 (other kernels sum the chunk
   from 0 and keep the small terms). */
static void bias_chain(void)
{
    enum { KB = 32, MB = 3, NB = 5 };
    float a[KB], b[KB], bias[NB], want = pow2f(24) + 2.0f, r;
    size_t k, j;
    a[0] = 1.0f; b[0] = 1.0f;
    a[1] = -pow2f(-13); b[1] = pow2f(-13);
    for (k = 2; k < KB; k++) { a[k] = pow2f(-15); b[k] = pow2f(-15); }
    for (j = 0; j < NB; j++) bias[j] = pow2f(24);
    r = gemm_cr_ref_one(KB, a, 1, b, 1, bias);
    CHECK_BITS(r, want, "bias chain: oracle against the construction");
    repeated_rows(MB, NB, KB, a, b, bias, want, "bias chain");
}

static void directed(void)
{
    float fmax = f_of(0x7f7fffffu), one = 1.0f, inf = f_of(0x7f800000u), nan = f_of(0x7fc00000u);
    float a[4], b[4], z = 0.0f, nz = f_of(0x80000000u);
    /* FLT_MAX + 2^103 is the midpoint to 2^128: inf; minus 2^-100: FLT_MAX. */
    a[0] = fmax; b[0] = one; a[1] = pow2f(103); b[1] = one;
    dot_case(2, a, b, NULL, inf, "overflow threshold");
    a[2] = -pow2f(-50); b[2] = pow2f(-50);
    dot_case(3, a, b, NULL, fmax, "below the overflow threshold");
    /* Cancellation far below the terms: 2^100 + 2^-140 - 2^100. */
    a[0] = pow2f(60); b[0] = pow2f(40); a[1] = pow2f(-70); b[1] = pow2f(-70);
    a[2] = -pow2f(60); b[2] = pow2f(40);
    dot_case(3, a, b, NULL, pow2f(-140), "cancellation to a subnormal");
    /* 2^-150 exactly: the midpoint between 0 and 2^-149: +0 (even); a
       tiny extra term: 2^-149. */
    a[0] = pow2f(-75); b[0] = pow2f(-75);
    dot_case(1, a, b, NULL, z, "half the smallest subnormal");
    a[1] = pow2f(-149); b[1] = pow2f(-100);
    dot_case(2, a, b, NULL, pow2f(-149), "just above half the smallest subnormal");
    a[0] = -pow2f(-75);
    a[1] = -pow2f(-149);
    dot_case(2, a, b, NULL, -pow2f(-149), "negative, just above half the smallest subnormal");
    dot_case(1, a, b, NULL, nz, "-2^-150: -0");
    /* Zeros: all products -0 gives -0; one +0 gives +0; 1 - 1 gives +0. */
    a[0] = nz; b[0] = one; a[1] = z; b[1] = -one; a[2] = -one; b[2] = z;
    dot_case(3, a, b, NULL, nz, "all products -0");
    a[1] = z; b[1] = one;
    dot_case(3, a, b, NULL, z, "one product +0");
    a[0] = one; b[0] = one; a[1] = -one; b[1] = one;
    dot_case(2, a, b, NULL, z, "1 - 1");
    a[0] = nz; b[0] = one;
    dot_case(1, a, b, &nz, nz, "-0 product and -0 bias");
    dot_case(1, a, b, &z, z, "-0 product and +0 bias");
    /* Non-finite: inf - inf and 0 * inf are NaN; inf + finite is inf. */
    a[0] = inf; b[0] = one; a[1] = fmax; b[1] = fmax;
    dot_case(2, a, b, NULL, inf, "inf + a finite overflow");
    a[1] = -inf;
    dot_case(2, a, b, NULL, nan, "inf - inf");
    a[0] = inf; b[0] = z;
    dot_case(1, a, b, NULL, nan, "inf * 0");
    a[0] = one; b[0] = one;
    dot_case(1, a, b, &inf, inf, "1 + inf bias");
    a[0] = f_of(0xffc12345u); /* a NaN with a payload: canonical NaN */
    dot_case(1, a, b, NULL, nan, "NaN input");
    /* K == 0: bias or -0. */
    dot_case(0, a, b, NULL, nz, "K = 0");
    dot_case(0, a, b, &one, one, "K = 0 with bias");
}

/* The bf16-input form on random shapes: bf16 patterns from every family
   (the top halves of its binary32 values, plus random patterns with NaN
   and inf), against the oracle on the same values widened to binary32. */
static void bf16_case(int mode, size_t M, size_t N, size_t K)
{
    int tA = (int)(rnd() & 1), tB = (int)(rnd() & 1);
    size_t lda = (tA ? M : K) + rnd_below(3), ldb = (tB ? K : N) + rnd_below(3);
    size_t ldc = N + rnd_below(3), i;
    size_t nA = (tA ? K : M) * lda + 1, nB = (tB ? N : K) * ldb + 1, nC = M * ldc + 1;
    uint16_t *A = (uint16_t *)malloc(nA * 2), *B = (uint16_t *)malloc(nB * 2);
    float *Af = (float *)malloc(nA * sizeof(float)), *Bf = (float *)malloc(nB * sizeof(float));
    float *bias = (rnd() & 1) ? (float *)malloc(N * sizeof(float)) : NULL;
    float *C = (float *)malloc(nC * sizeof(float)), *R = (float *)malloc(nC * sizeof(float));
    for (i = 0; i < nA; i++) {
        A[i] = (rnd() & 15) ? (uint16_t)(u_of(gen(mode)) >> 16) : (uint16_t)rnd();
        Af[i] = f_of((uint32_t)A[i] << 16);
    }
    for (i = 0; i < nB; i++) {
        B[i] = (rnd() & 15) ? (uint16_t)(u_of(gen(mode)) >> 16) : (uint16_t)rnd();
        Bf[i] = f_of((uint32_t)B[i] << 16);
    }
    if (bias)
        for (i = 0; i < N; i++) bias[i] = gen(mode);
    for (i = 0; i < nC; i++) C[i] = R[i] = f_of(0x7f800001u + (uint32_t)i);
    CHECK(repdl_gemm_cr_bf16(tA, tB, M, N, K, A, lda, B, ldb, bias, C, ldc) == REPDL_OK,
          "bf16 status");
    gemm_cr_ref(tA, tB, M, N, K, Af, lda, Bf, ldb, bias, R, ldc);
    CHECK_SAME(C, R, nC, "bf16 mode %d M %zu N %zu K %zu tA %d tB %d", mode, M, N, K, tA, tB);
    n_outputs += (long)(M * N);
    free(A); free(B); free(Af); free(Bf); free(bias); free(C); free(R);
}

/* Bad arguments: the status, and C untouched. */
static void bad_args(void)
{
    float A[4] = {1, 2, 3, 4}, B[4] = {1, 2, 3, 4}, C[4] = {9, 9, 9, 9};
    CHECK(repdl_gemm_cr_f32(0, 0, 2, 2, 2, NULL, 2, B, 2, NULL, C, 2) == REPDL_ERR_INVALID, "NULL A");
    CHECK(repdl_gemm_cr_f32(0, 0, 2, 2, 2, A, 2, NULL, 2, NULL, C, 2) == REPDL_ERR_INVALID, "NULL B");
    CHECK(repdl_gemm_cr_f32(0, 0, 2, 2, 2, A, 2, B, 2, NULL, NULL, 2) == REPDL_ERR_INVALID, "NULL C");
    CHECK(repdl_gemm_cr_f32(0, 0, 2, 2, 2, A, 1, B, 2, NULL, C, 2) == REPDL_ERR_INVALID, "lda");
    CHECK(repdl_gemm_cr_f32(0, 0, 2, 2, 2, A, 2, B, 1, NULL, C, 2) == REPDL_ERR_INVALID, "ldb");
    CHECK(repdl_gemm_cr_f32(0, 0, 2, 2, 2, A, 2, B, 2, NULL, C, 1) == REPDL_ERR_INVALID, "ldc");
    CHECK(repdl_gemm_cr_threads_f32(0, 0, 2, 2, 2, 2, A, 2, B, 2, NULL, C, 1) == REPDL_ERR_INVALID,
          "threads ldc");
    CHECK(repdl_gemm_cr_f32(0, 0, (size_t)1 << 40, (size_t)1 << 40, 2, A, 2, B, (size_t)1 << 40,
                            NULL, C, (size_t)1 << 40) == REPDL_ERR_OVERFLOW,
          "size overflow");
    {
        uint16_t h[4] = {0x3f80, 0x4000, 0x4040, 0x4080};
        CHECK(repdl_gemm_cr_bf16(0, 0, 2, 2, 2, NULL, 2, h, 2, NULL, C, 2) == REPDL_ERR_INVALID,
              "bf16 NULL A");
        CHECK(repdl_gemm_cr_bf16(1, 0, 2, 2, 2, h, 1, h, 2, NULL, C, 2) == REPDL_ERR_INVALID,
              "bf16 lda");
        CHECK(repdl_gemm_cr_bf16(0, 0, 1, 2, 0, NULL, 0, NULL, 0, &A[0], C + 2, 2) == REPDL_OK &&
                  u_of(C[2]) == u_of(1.0f) && u_of(C[3]) == u_of(2.0f),
              "bf16 K = 0: the bias");
        C[2] = C[3] = 9;
    }
    CHECK(C[0] == 9 && C[1] == 9 && C[2] == 9 && C[3] == 9, "C untouched");
    CHECK(repdl_gemm_cr_f32(0, 0, 0, 2, 2, NULL, 2, NULL, 2, NULL, NULL, 2) == REPDL_OK, "M = 0");
    CHECK(repdl_gemm_cr_f32(0, 0, 2, 0, 2, NULL, 2, NULL, 2, NULL, NULL, 0) == REPDL_OK, "N = 0");
    CHECK(repdl_gemm_cr_f32(0, 0, 2, 2, 0, NULL, 0, NULL, 2, NULL, C, 2) == REPDL_OK &&
              u_of(C[0]) == 0x80000000u && u_of(C[3]) == 0x80000000u,
          "K = 0, A and B NULL: -0");
}

int main(int argc, char **argv)
{
    int small = argc > 1 && strcmp(argv[1], "--small") == 0, mode, rep;
    int reps = small ? 4 : 8;
    splitmix64_seed(&rng, 0x243f6a8885a308d3ull);
    directed();
    bad_args();
    ties(small ? 300 : 1500);
    lost_terms();
    bias_chain();
    for (mode = 0; mode < M_COUNT; mode++)
        for (rep = 0; rep < reps; rep++) {
            size_t M = 1 + rnd_below(13), N = 1 + rnd_below(21), K = rnd_below(rep < 2 ? 8 : 90);
            one_case(mode, M, N, K, 0);
            one_case(mode, M, N, K, 1 + (int)(rnd() & 1));
        }
    for (mode = 0; mode < M_COUNT; mode++)
        for (rep = 0; rep < 3; rep++) {
            size_t M = 1 + rnd_below(9), N = 1 + rnd_below(17), K = rnd_below(rep ? 70 : 6);
            bf16_case(mode, M, N, K);
        }
    /* Several blocks and K panels of the fast path (MC 96, NC 256, KC 256). */
    one_case(M_MODERATE, 100, 40, small ? 300 : 500, 0);
    one_case(M_FULL, 30, 260, 300, 0);
    one_case(M_SMALLINT, 20, 30, 600, 2);
    one_case(M_MODERATE, 7, 9, small ? 600 : 2000, 1);
    CHECK(pf_bad == 0, "%lu of %lu prefetch hints outside op(A)", pf_bad, pf_calls);
#ifdef GEMM_CR_TEST_PANELS /* the blocks build: op(A) packed per panel for K > 4 */
    CHECK(pf_calls > 0, "the per-panel packing's prefetch hints reached");
#endif
    CHECK(bpf_bad == 0, "%lu of %lu op(B) prefetch hints outside the strip", bpf_bad, bpf_calls);
    if (repdl__gemm_isa() == 2 && REPDL_GEMM_CR_KC > REPDL_GEMM_CR_BPF)
        CHECK(bpf_calls > 0, "the AVX-512 kernel's op(B) prefetch hints reached");
    else
        printf("gemm_cr: the AVX-512 kernel's op(B) prefetch is not run by this build\n");
    CHECK(rf_no > 0, "the exact path reached after the refined path");
#ifdef GEMM_CR_TEST_EXACT /* the exact build: REPDL_GEMM_CR_KFAST=0 */
    CHECK(rf_ok == 0, "the exact build: %lu outputs decided by the refined path", rf_ok);
#else
    CHECK(rf_ok > 0, "outputs decided by the refined path reached");
#endif
    printf("gemm_cr: %ld outputs compared with the MPFR oracle (%lu op(A) and %lu op(B) "
           "prefetch hints; flagged outputs: %lu decided by the refined path, %lu exact)\n",
           n_outputs, pf_calls, bpf_calls, rf_ok, rf_no);
    return check_summary("gemm_cr");
}
