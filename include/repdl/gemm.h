/* SPDX-License-Identifier: MIT */
/* repdl/gemm.h: reproducible single-precision matrix product (GEMM).

     repdl_gemm_f32(transA, transB, M, N, K, alpha, beta, A, lda, B, ldb,
                    bias, C, ldc);
     C = alpha * (op(A) op(B) [+ bias]) + beta * C

   op(A) is M x K (A, or A^T when transA != 0), op(B) is K x N, row-major,
   leading dimensions in elements: opA[i][k] = transA ? A[k*lda + i] :
   A[i*lda + k], opB[k][j] = transB ? B[j*ldb + k] : B[k*ldb + j].

   The canonical order (docs/canonical-order.md, "Matrix products"), for
   every C[i][j]:
     acc = bias ? bias[j] : -0.0f;
     for (k = 0; k < K; k++) acc = fma(opA[i][k], opB[k][j], acc);
     r = (alpha == 1.0f) ? acc : RN(alpha * acc);
     if (beta != 0.0f) r = fma(beta, C_old[i][j], r);   (beta == 0: C not read)
     C[i][j] = canonical(r);                             (NaN -> 0x7fc00000)
   fma is repdl__fmaf (one rounding, the same bits on every target).  The
   chain is never split (no split-K, no partial sums added afterwards), so
   the bits of C[i][j] depend only on row i of op(A), column j of op(B),
   bias[j], alpha, beta and C_old[i][j]: not on M, N, the blocking, the
   vector width, the thread count or the machine.

   Implementation (docs/bench-linalg.md): the classic packed, cache-blocked
   product (panels of op(B) of KC x NC, blocks of op(A) of MC x KC) with a
   register-blocked micro-kernel.  The micro-kernel carries the partial C
   tile as its accumulator from one K panel to the next: it loads the
   partial tile, continues the chain over its KC steps, stores it back; it
   never starts a panel at zero.  On x86-64 with gcc or clang the
   micro-kernel is chosen at run time (AVX-512F, or AVX2 + FMA, through
   __attribute__((target)) and __builtin_cpu_supports), so a baseline
   -march=x86-64 build runs at hardware FMA speed; elsewhere (other
   compilers or targets, nvcc, REPDL_GEMM_NO_DISPATCH, CPUs without FMA) a
   portable C99 kernel of fixed-size loops over repdl__fmaf is used.  Every
   kernel performs the same fused multiply-adds in the same order.  A few
   rows (M <= 4) times B^T with alpha 1 and beta 0 (a linear layer decoding
   one token) take detail/gemv.h instead: the same chains, no packing.

   Edge cases: M == 0 or N == 0: nothing is read or written (pointers may
   be NULL).  K == 0: A and B are not read (may be NULL); the result is
   alpha * bias (or -0) then beta as above.  NaN and infinities propagate
   as IEEE fma does (0 * inf = NaN); results that are NaN are 0x7fc00000.
   -0 results are kept (e.g. an all -0 chain, or bias -0 with K == 0).
   Subnormals are neither flushed nor treated as zero.  C must not overlap
   A, B or bias (the product reads A and B after C was partly written).
   lda >= (transA ? M : K), ldb >= (transB ? K : N), ldc >= N, or the
   call returns REPDL_ERR_INVALID and writes nothing (repdl__gemm_check).  Scratch
   memory (packed panels) is taken with malloc; if malloc fails the
   product is computed by the plain loops of the definition (same bits,
   slower). */
#ifndef REPDL_GEMM_H
#define REPDL_GEMM_H

#include <stdlib.h>

#include "config.h"
#include "detail/gemv.h"
REPDL_BEGIN_CODE

/* ---- Blocking (performance only: no value depends on these) ---- */
#ifndef REPDL_GEMM_KC
#define REPDL_GEMM_KC 256 /* K panel: a B micro-panel (KC x NR) stays in L1 */
#endif
#ifndef REPDL_GEMM_MC
#define REPDL_GEMM_MC 144 /* rows of a packed A block (MC x KC, L2); multiple of 6 */
#endif
#ifndef REPDL_GEMM_NC
#define REPDL_GEMM_NC 2048 /* columns of a packed B panel (KC x NC, L3); multiple of 32 */
#endif
#define REPDL__GEMM_MR 6   /* rows of a micro-tile, every kernel */
#define REPDL__GEMM_NRMAX 32

/* Run-time kernel choice: x86-64, gcc or clang, not nvcc, unless
   REPDL_GEMM_NO_DISPATCH or REPDL_PORTABLE_C.  REPDL_GEMM_ISA_MAX caps the
   choice (0 portable, 1 AVX2 + FMA, 2 AVX-512F), for tests. */
#if REPDL__GNU_HOST && defined(__x86_64__) && !defined(REPDL_GEMM_NO_DISPATCH)
#define REPDL__GEMM_X86 1
#include <immintrin.h>
#else
#define REPDL__GEMM_X86 0
#endif
#ifndef REPDL_GEMM_ISA_MAX
#define REPDL_GEMM_ISA_MAX 2
#endif

/* The tile state a micro-kernel works on.  The kernel loads the MR x NR
   accumulator tile from `in` (ld ldi), continues every chain over its kc
   steps of the packed panels a (kc x MR, k-major) and b (kc x NR), then
   stores the tile to `out` (ld ldo); when `last`, it first applies the
   epilogue: r = alpha == 1 ? acc : RN(alpha acc), r = fma(beta, cold, r)
   when beta != 0, canonical NaN.  Only `rows` rows are read or written. */
typedef struct repdl__gemm_tile {
    const float *in;
    size_t ldi;
    float *out;
    size_t ldo;
    const float *cold;
    size_t ldc;
    int last;
    float alpha, beta;
} repdl__gemm_tile;

/* Portable kernel: MR x 16, fixed-size loops over repdl__fmaf (vectorized
   by compilers where fma is an instruction).  off == NULL: b is a packed
   panel (kc x 16); otherwise step k reads its 16 B values at b + off[k]
   (the "B at an offset" form of the direct convolution, conv2d.h). */
REPDL_FN void repdl__ukr_portable(int rows, size_t kc, const float *a, const float *b,
                                  const size_t *off, const repdl__gemm_tile *t)
{
    float c[REPDL__GEMM_MR][16];
    size_t k;
    int i, j;
    for (i = 0; i < REPDL__GEMM_MR; i++)
        for (j = 0; j < 16; j++) c[i][j] = i < rows ? t->in[(size_t)i * t->ldi + j] : 0.0f;
    for (k = 0; k < kc; k++) {
        const float *bk = off ? b + off[k] : b + k * 16;
        for (i = 0; i < REPDL__GEMM_MR; i++)
            for (j = 0; j < 16; j++) c[i][j] = repdl__fmaf(a[i], bk[j], c[i][j]);
        a += REPDL__GEMM_MR;
    }
    for (i = 0; i < rows; i++)
        for (j = 0; j < 16; j++) {
            float r = c[i][j];
            if (t->last) {
                if (repdl__fne(t->alpha, 1.0f)) r = repdl__fmul(t->alpha, r);
                if (repdl__fne(t->beta, 0.0f)) r = repdl__fmaf(t->beta, t->cold[(size_t)i * t->ldc + j], r);
                r = repdl__canon(r);
            }
            t->out[(size_t)i * t->ldo + j] = r;
        }
}

#if REPDL__GEMM_X86
/* x86 kernels: the same chains with AVX2 + FMA (MR x 16, two ymm a row)
   or AVX-512F (MR x 32, two zmm a row).  `rows` is a constant in each
   instantiation (always_inline), so the unused rows vanish. */
#define REPDL__ROWS6(X) X(0) X(1) X(2) X(3) X(4) X(5)

__attribute__((always_inline, target("avx2,fma"))) static inline void
repdl__ukr_avx2_body(const int rows, size_t kc, const float *a, const float *b,
                     const size_t *off, const repdl__gemm_tile *t)
{
    __m256 z = _mm256_setzero_ps();
    __m256 c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z, c40 = z,
           c41 = z, c50 = z, c51 = z;
    size_t k;
#define REPDL__LD(i)                                                      \
    if (rows > i) {                                                       \
        c##i##0 = _mm256_loadu_ps(t->in + (size_t)i * t->ldi);           \
        c##i##1 = _mm256_loadu_ps(t->in + (size_t)i * t->ldi + 8);       \
    }
    REPDL__ROWS6(REPDL__LD)
#undef REPDL__LD
    for (k = 0; k < kc; k++) {
        const float *bk = off ? b + off[k] : b; /* off: a constant NULL or not */
        __m256 b0 = _mm256_loadu_ps(bk), b1 = _mm256_loadu_ps(bk + 8), av;
#define REPDL__FM(i)                                                      \
    if (rows > i) {                                                       \
        av = _mm256_broadcast_ss(a + i);                                  \
        c##i##0 = _mm256_fmadd_ps(av, b0, c##i##0);                       \
        c##i##1 = _mm256_fmadd_ps(av, b1, c##i##1);                       \
    }
        REPDL__ROWS6(REPDL__FM)
#undef REPDL__FM
        a += REPDL__GEMM_MR;
        if (!off) b += 16;
    }
    if (t->last) {
        __m256 va = _mm256_set1_ps(t->alpha), vb = _mm256_set1_ps(t->beta);
        __m256 qn = _mm256_castsi256_ps(_mm256_set1_epi32((int)REPDL_NAN_BITS));
        int sa = repdl__fne(t->alpha, 1.0f), sb = repdl__fne(t->beta, 0.0f);
#define REPDL__EPI1(v, i, off)                                                        \
    if (sa) v = _mm256_mul_ps(va, v);                                                 \
    if (sb) v = _mm256_fmadd_ps(vb, _mm256_loadu_ps(t->cold + (size_t)i * t->ldc + off), v); \
    v = _mm256_blendv_ps(v, qn, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
#define REPDL__EPI(i)                                                     \
    if (rows > i) {                                                       \
        REPDL__EPI1(c##i##0, i, 0)                                        \
        REPDL__EPI1(c##i##1, i, 8)                                        \
    }
        REPDL__ROWS6(REPDL__EPI)
#undef REPDL__EPI
#undef REPDL__EPI1
    }
#define REPDL__ST(i)                                                      \
    if (rows > i) {                                                       \
        _mm256_storeu_ps(t->out + (size_t)i * t->ldo, c##i##0);          \
        _mm256_storeu_ps(t->out + (size_t)i * t->ldo + 8, c##i##1);      \
    }
    REPDL__ROWS6(REPDL__ST)
#undef REPDL__ST
}

__attribute__((target("avx2,fma"))) static inline void
repdl__ukr_avx2(int rows, size_t kc, const float *a, const float *b, const repdl__gemm_tile *t)
{
    switch (rows) {
    case 1: repdl__ukr_avx2_body(1, kc, a, b, NULL, t); break;
    case 2: repdl__ukr_avx2_body(2, kc, a, b, NULL, t); break;
    case 3: repdl__ukr_avx2_body(3, kc, a, b, NULL, t); break;
    case 4: repdl__ukr_avx2_body(4, kc, a, b, NULL, t); break;
    case 5: repdl__ukr_avx2_body(5, kc, a, b, NULL, t); break;
    default: repdl__ukr_avx2_body(6, kc, a, b, NULL, t); break;
    }
}

/* The same chains with step k's B values at b + off[k] (conv2d.h's direct
   forward): only the address of the B loads differs. */
__attribute__((target("avx2,fma"))) static inline void
repdl__ukr_avx2_boff(int rows, size_t kc, const float *a, const float *b, const size_t *off,
                   const repdl__gemm_tile *t)
{
    switch (rows) {
    case 1: repdl__ukr_avx2_body(1, kc, a, b, off, t); break;
    case 2: repdl__ukr_avx2_body(2, kc, a, b, off, t); break;
    case 3: repdl__ukr_avx2_body(3, kc, a, b, off, t); break;
    case 4: repdl__ukr_avx2_body(4, kc, a, b, off, t); break;
    case 5: repdl__ukr_avx2_body(5, kc, a, b, off, t); break;
    default: repdl__ukr_avx2_body(6, kc, a, b, off, t); break;
    }
}

__attribute__((always_inline, target("avx512f"))) static inline void
repdl__ukr_avx512_body(const int rows, size_t kc, const float *a, const float *b,
                       const size_t *off, const repdl__gemm_tile *t)
{
    __m512 z = _mm512_setzero_ps();
    __m512 c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z, c40 = z,
           c41 = z, c50 = z, c51 = z;
    size_t k;
#define REPDL__LD(i)                                                      \
    if (rows > i) {                                                       \
        c##i##0 = _mm512_loadu_ps(t->in + (size_t)i * t->ldi);           \
        c##i##1 = _mm512_loadu_ps(t->in + (size_t)i * t->ldi + 16);      \
    }
    REPDL__ROWS6(REPDL__LD)
#undef REPDL__LD
    for (k = 0; k < kc; k++) {
        const float *bk = off ? b + off[k] : b;
        __m512 b0 = _mm512_loadu_ps(bk), b1 = _mm512_loadu_ps(bk + 16), av;
#define REPDL__FM(i)                                                      \
    if (rows > i) {                                                       \
        av = _mm512_set1_ps(a[i]);                                        \
        c##i##0 = _mm512_fmadd_ps(av, b0, c##i##0);                       \
        c##i##1 = _mm512_fmadd_ps(av, b1, c##i##1);                       \
    }
        REPDL__ROWS6(REPDL__FM)
#undef REPDL__FM
        a += REPDL__GEMM_MR;
        if (!off) b += 32;
    }
    if (t->last) {
        __m512 va = _mm512_set1_ps(t->alpha), vb = _mm512_set1_ps(t->beta);
        __m512 qn = _mm512_castsi512_ps(_mm512_set1_epi32((int)REPDL_NAN_BITS));
        int sa = repdl__fne(t->alpha, 1.0f), sb = repdl__fne(t->beta, 0.0f);
#define REPDL__EPI1(v, i, off)                                                        \
    if (sa) v = _mm512_mul_ps(va, v);                                                 \
    if (sb) v = _mm512_fmadd_ps(vb, _mm512_loadu_ps(t->cold + (size_t)i * t->ldc + off), v); \
    v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), qn);
#define REPDL__EPI(i)                                                     \
    if (rows > i) {                                                       \
        REPDL__EPI1(c##i##0, i, 0)                                        \
        REPDL__EPI1(c##i##1, i, 16)                                       \
    }
        REPDL__ROWS6(REPDL__EPI)
#undef REPDL__EPI
#undef REPDL__EPI1
    }
#define REPDL__ST(i)                                                      \
    if (rows > i) {                                                       \
        _mm512_storeu_ps(t->out + (size_t)i * t->ldo, c##i##0);          \
        _mm512_storeu_ps(t->out + (size_t)i * t->ldo + 16, c##i##1);     \
    }
    REPDL__ROWS6(REPDL__ST)
#undef REPDL__ST
}

__attribute__((target("avx512f"))) static inline void
repdl__ukr_avx512(int rows, size_t kc, const float *a, const float *b, const repdl__gemm_tile *t)
{
    switch (rows) {
    case 1: repdl__ukr_avx512_body(1, kc, a, b, NULL, t); break;
    case 2: repdl__ukr_avx512_body(2, kc, a, b, NULL, t); break;
    case 3: repdl__ukr_avx512_body(3, kc, a, b, NULL, t); break;
    case 4: repdl__ukr_avx512_body(4, kc, a, b, NULL, t); break;
    case 5: repdl__ukr_avx512_body(5, kc, a, b, NULL, t); break;
    default: repdl__ukr_avx512_body(6, kc, a, b, NULL, t); break;
    }
}

/* The same chains with step k's B values at b + off[k] (conv2d.h's direct
   forward): only the address of the B loads differs. */
__attribute__((target("avx512f"))) static inline void
repdl__ukr_avx512_boff(int rows, size_t kc, const float *a, const float *b, const size_t *off,
                   const repdl__gemm_tile *t)
{
    switch (rows) {
    case 1: repdl__ukr_avx512_body(1, kc, a, b, off, t); break;
    case 2: repdl__ukr_avx512_body(2, kc, a, b, off, t); break;
    case 3: repdl__ukr_avx512_body(3, kc, a, b, off, t); break;
    case 4: repdl__ukr_avx512_body(4, kc, a, b, off, t); break;
    case 5: repdl__ukr_avx512_body(5, kc, a, b, off, t); break;
    default: repdl__ukr_avx512_body(6, kc, a, b, off, t); break;
    }
}
#undef REPDL__ROWS6
#endif /* REPDL__GEMM_X86 */

/* The kernel this CPU runs: 0 portable, 1 AVX2 + FMA, 2 AVX-512F (decided
   once per translation unit; a race only writes the same value twice). */
REPDL_FN int repdl__gemm_isa(void)
{
#if REPDL__GEMM_X86
    /* The probe's answer, cached.  Threads may race to the first call:
       each computes the same value and stores it atomically (relaxed is
       enough, the value carries no other data), so the race is benign and
       ThreadSanitizer sees none. */
    static int isa = -1;
    int v = __atomic_load_n(&isa, __ATOMIC_RELAXED);
    if (v < 0) {
        v = 0;
        __builtin_cpu_init();
        if (REPDL_GEMM_ISA_MAX >= 2 && __builtin_cpu_supports("avx512f")) v = 2;
        else if (REPDL_GEMM_ISA_MAX >= 1 && __builtin_cpu_supports("avx2") &&
                 __builtin_cpu_supports("fma"))
            v = 1;
        __atomic_store_n(&isa, v, __ATOMIC_RELAXED);
    }
    return v;
#else
    return 0;
#endif
}

REPDL_FN int repdl__gemm_nr(int isa) { return isa == 2 ? 32 : 16; }

REPDL_FN void repdl__gemm_ukr(int isa, int rows, size_t kc, const float *a, const float *b,
                              const repdl__gemm_tile *t)
{
#if REPDL__GEMM_X86
    if (isa == 2) { repdl__ukr_avx512(rows, kc, a, b, t); return; }
    if (isa == 1) { repdl__ukr_avx2(rows, kc, a, b, t); return; }
#endif
    (void)isa;
    repdl__ukr_portable(rows, kc, a, b, NULL, t);
}

/* The micro-kernel with B taken at offsets: step k multiplies the packed
   A column (a + k MR) by the nr floats at b + off[k] (not packed; any
   alignment).  Each chain performs the same fused multiply-adds in the same
   order as repdl__gemm_ukr on a packed panel holding those rows. */
REPDL_FN void repdl__gemm_ukr_boff(int isa, int rows, size_t kc, const float *a, const float *b,
                                   const size_t *off, const repdl__gemm_tile *t)
{
#if REPDL__GEMM_X86
    if (isa == 2) { repdl__ukr_avx512_boff(rows, kc, a, b, off, t); return; }
    if (isa == 1) { repdl__ukr_avx2_boff(rows, kc, a, b, off, t); return; }
#endif
    (void)isa;
    repdl__ukr_portable(rows, kc, a, b, off, t);
}

#if REPDL__GEMM_X86
/* d[k nr + j] = s[j lds + k] for k < kc (a multiple of 8), j < nr (16 or
   32): 8 x 8 blocks transposed in registers (moves only: no arithmetic). */
__attribute__((target("avx2"))) static inline void
repdl__pack_bt_avx2(const float *s, size_t lds, size_t kc, size_t nr, float *d)
{
    size_t kb, jb;
    /* 8 source rows at a time, streamed over k (rows lds apart can share
       an L1 set: more than 8 at once would evict each other) */
    for (jb = 0; jb < nr; jb += 8)
        for (kb = 0; kb < kc; kb += 8) {
            const float *p = s + jb * lds + kb;
            __m256 r0 = _mm256_loadu_ps(p), r1 = _mm256_loadu_ps(p + lds),
                   r2 = _mm256_loadu_ps(p + 2 * lds), r3 = _mm256_loadu_ps(p + 3 * lds),
                   r4 = _mm256_loadu_ps(p + 4 * lds), r5 = _mm256_loadu_ps(p + 5 * lds),
                   r6 = _mm256_loadu_ps(p + 6 * lds), r7 = _mm256_loadu_ps(p + 7 * lds);
            __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1),
                   t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3),
                   t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
                   t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
            __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee),
                   u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee),
                   u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee),
                   u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
            float *q = d + kb * nr + jb;
            _mm256_storeu_ps(q + 0 * nr, _mm256_permute2f128_ps(u0, u4, 0x20));
            _mm256_storeu_ps(q + 1 * nr, _mm256_permute2f128_ps(u1, u5, 0x20));
            _mm256_storeu_ps(q + 2 * nr, _mm256_permute2f128_ps(u2, u6, 0x20));
            _mm256_storeu_ps(q + 3 * nr, _mm256_permute2f128_ps(u3, u7, 0x20));
            _mm256_storeu_ps(q + 4 * nr, _mm256_permute2f128_ps(u0, u4, 0x31));
            _mm256_storeu_ps(q + 5 * nr, _mm256_permute2f128_ps(u1, u5, 0x31));
            _mm256_storeu_ps(q + 6 * nr, _mm256_permute2f128_ps(u2, u6, 0x31));
            _mm256_storeu_ps(q + 7 * nr, _mm256_permute2f128_ps(u3, u7, 0x31));
            if (!(kb & 15) && jb + 8 < nr) { /* the next 8 rows' line at this k (a hint) */
                size_t r;
                for (r = 8; r < 16; r++) _mm_prefetch((const char *)(p + r * lds), _MM_HINT_T0);
            }
        }
}
#endif

#if REPDL__GEMM_X86
/* d[(j / nr) nr kc + k nr + j % nr] = s[k lds + j] for k < kc, j < nc (a
   multiple of nr, 16 or 32): the rows of B copied into whole panels, 8
   floats a move (moves only).  A row is read once, in address order. */
__attribute__((target("avx2"))) static inline void
repdl__pack_bn_avx2(const float *s, size_t lds, size_t kc, size_t nc, size_t nr, float *d)
{
    size_t k, jp, j;
    for (k = 0; k < kc; k++) {
        const float *r = s + k * lds;
        float *q = d + k * nr;
        for (jp = 0; jp < nc; jp += nr, q += nr * kc)
            for (j = 0; j < nr; j += 8) _mm256_storeu_ps(q + j, _mm256_loadu_ps(r + jp + j));
    }
}
#endif

#if REPDL__GEMM_X86
/* d[k MR + i] = s[i lds + k] for i < MR (6), k < kc (a multiple of 8): 6
   rows x 8 k transposed in registers (moves only), each k's 6 floats
   stored by an 8-float move whose last 2 the next k overwrites (the
   block's last k: a masked move of 6). */
__attribute__((target("avx2"))) static inline void
repdl__pack_an_avx2(const float *s, size_t lds, size_t kc, float *d)
{
    const __m256i m6 = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0);
    const __m256 z = _mm256_setzero_ps();
    size_t kb;
    for (kb = 0; kb < kc; kb += 8) {
        const float *p = s + kb;
        __m256 r0 = _mm256_loadu_ps(p), r1 = _mm256_loadu_ps(p + lds),
               r2 = _mm256_loadu_ps(p + 2 * lds), r3 = _mm256_loadu_ps(p + 3 * lds),
               r4 = _mm256_loadu_ps(p + 4 * lds), r5 = _mm256_loadu_ps(p + 5 * lds);
        __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1),
               t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3),
               t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
               t6 = _mm256_unpacklo_ps(z, z), t7 = t6;
        __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee),
               u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee),
               u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee),
               u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
        float *q = d + kb * 6;
        _mm256_storeu_ps(q + 0 * 6, _mm256_permute2f128_ps(u0, u4, 0x20));
        _mm256_storeu_ps(q + 1 * 6, _mm256_permute2f128_ps(u1, u5, 0x20));
        _mm256_storeu_ps(q + 2 * 6, _mm256_permute2f128_ps(u2, u6, 0x20));
        _mm256_storeu_ps(q + 3 * 6, _mm256_permute2f128_ps(u3, u7, 0x20));
        _mm256_storeu_ps(q + 4 * 6, _mm256_permute2f128_ps(u0, u4, 0x31));
        _mm256_storeu_ps(q + 5 * 6, _mm256_permute2f128_ps(u1, u5, 0x31));
        _mm256_storeu_ps(q + 6 * 6, _mm256_permute2f128_ps(u2, u6, 0x31));
        _mm256_maskstore_ps(q + 7 * 6, m6, _mm256_permute2f128_ps(u3, u7, 0x31));
    }
}
#endif

/* Packs opA[i0 .. i0+mc)[p0 .. p0+kc) into panels of MR rows, k-major
   (ap[(i / MR) MR kc + k MR + i % MR]); rows past mc are 0. */
REPDL_FN void repdl__gemm_pack_a(int transA, const float *A, size_t lda, size_t i0, size_t mc,
                                 size_t p0, size_t kc, float *ap)
{
    size_t ip, k, ii;
    const size_t MR = REPDL__GEMM_MR;
    for (ip = 0; ip < mc; ip += MR) {
        size_t rows = mc - ip < MR ? mc - ip : MR;
        float *d = ap + ip * kc;
        if (transA) {
            for (k = 0; k < kc; k++) {
                const float *s = A + (p0 + k) * lda + i0 + ip;
                for (ii = 0; ii < rows; ii++) d[k * MR + ii] = s[ii];
                for (; ii < MR; ii++) d[k * MR + ii] = 0.0f;
            }
        } else {
            /* a transpose, 16 k (one cache line of each row) at a time;
               whole rows x 8 k blocks by AVX2 shuffles where the CPU has them */
            size_t kb = 0, ke;
#if REPDL__GEMM_X86
            if (rows == MR && MR == 6 && repdl__gemm_isa() >= 1) {
                kb = kc & ~(size_t)7;
                repdl__pack_an_avx2(A + (i0 + ip) * lda + p0, lda, kb, d);
            }
#endif
            for (; kb < kc; kb = ke) {
                ke = kc - kb < 16 ? kc : kb + 16;
                for (ii = 0; ii < rows; ii++) {
                    const float *s = A + (i0 + ip + ii) * lda + p0;
                    for (k = kb; k < ke; k++) d[k * MR + ii] = s[k];
                }
                for (; ii < MR; ii++)
                    for (k = kb; k < ke; k++) d[k * MR + ii] = 0.0f;
            }
        }
    }
}

/* Packs opB[p0 .. p0+kc)[j0 .. j0+nc) into panels of nr columns
   (bp[(j / nr) nr kc + k nr + j % nr]); columns past nc are 0. */
REPDL_FN void repdl__gemm_pack_b(int transB, const float *B, size_t ldb, size_t p0, size_t kc,
                                 size_t j0, size_t nc, size_t nr, float *bp)
{
    size_t jp, k, jj;
    if (!transB) {
        /* row k of the block read once, in address order, into every panel */
#if REPDL__GEMM_X86
        if (nc >= nr && repdl__gemm_isa() >= 1) {
            size_t nf = nc / nr * nr; /* the whole panels, by vector moves */
            repdl__pack_bn_avx2(B + p0 * ldb + j0, ldb, kc, nf, nr, bp);
            if (nf == nc) return;
            B += nf;
            bp += nf * kc;
            nc -= nf;
        }
#endif
        for (k = 0; k < kc; k++) {
            const float *s = B + (p0 + k) * ldb + j0;
            for (jp = 0; jp < nc; jp += nr) {
                size_t cols = nc - jp < nr ? nc - jp : nr;
                float *d = bp + jp * kc + k * nr;
                memcpy(d, s + jp, cols * sizeof(float));
                for (jj = cols; jj < nr; jj++) d[jj] = 0.0f;
            }
        }
        return;
    }
    for (jp = 0; jp < nc; jp += nr) {
        size_t cols = nc - jp < nr ? nc - jp : nr;
        float *d = bp + jp * kc;
        {
            /* a transpose, 16 k (one cache line of each column) at a time:
               the source lines and the 16 destination rows stay in L1;
               whole 8 x 8 blocks by AVX2 shuffles where the CPU has them */
            size_t kb = 0, ke;
#if REPDL__GEMM_X86
            if (cols == nr && repdl__gemm_isa() >= 1) {
                kb = kc & ~(size_t)7;
                repdl__pack_bt_avx2(B + (j0 + jp) * ldb + p0, ldb, kb, nr, d);
            }
#endif
            for (; kb < kc; kb = ke) {
                ke = kc - kb < 16 ? kc : kb + 16;
                for (jj = 0; jj < cols; jj++) {
                    const float *s = B + (j0 + jp + jj) * ldb + p0;
                    for (k = kb; k < ke; k++) d[k * nr + jj] = s[k];
                }
                for (; jj < nr; jj++)
                    for (k = kb; k < ke; k++) d[k * nr + jj] = 0.0f;
            }
        }
    }
}

/* The arguments of one blocked product. */
typedef struct repdl__gemm_args {
    int transA, transB, cont, isa;
    size_t M, N, K, lda, ldb, ldc, ldw;
    const float *A, *B, *bias_col, *bias_row;
    /* the first panel's accumulator row when neither cont nor bias_row:
       bias_col[j] or -0, padded with -0 to N + nr floats (read at j, ld 0) */
    const float *init_row;
    float alpha, beta;
    float *C;
    float *W; /* partial chains between K panels when C must keep C_old (beta != 0), or NULL */
    float *ap, *bp;
} repdl__gemm_args;

/* One micro-tile at (i, j) of rows x cols (<= MR x nr) for the K panel
   [p, p + kc): the accumulator comes from the initial value (first
   panel), from C (cont) or from the partial store (C, or W); it goes to C
   on the last panel, else to the partial store. */
REPDL_FN void repdl__gemm_tile_run(const repdl__gemm_args *g, size_t i, size_t j, int rows,
                                   size_t cols, size_t kc, int first, int last, const float *a,
                                   const float *b)
{
    const size_t MR = REPDL__GEMM_MR, nr = (size_t)repdl__gemm_nr(g->isa);
    float init[REPDL__GEMM_MR * REPDL__GEMM_NRMAX];
    float in_l[REPDL__GEMM_MR * REPDL__GEMM_NRMAX], out_l[REPDL__GEMM_MR * REPDL__GEMM_NRMAX];
    float cold_l[REPDL__GEMM_MR * REPDL__GEMM_NRMAX];
    float *part = g->W ? g->W + i * g->ldw + j : g->C + i * g->ldc + j;
    size_t ldp = g->W ? g->ldw : g->ldc;
    float *cij = g->C + i * g->ldc + j;
    repdl__gemm_tile t;
    size_t r, c;
    (void)MR;
    if (first && !g->cont && g->bias_row) {
        for (r = 0; r < (size_t)rows; r++) {
            float v = g->bias_row[i + r];
            for (c = 0; c < nr; c++) init[r * nr + c] = v;
        }
        t.in = init;
        t.ldi = nr;
    } else if (first && !g->cont) {
        t.in = g->init_row + j; /* every row the same: ld 0 */
        t.ldi = 0;
    } else if (first) {
        t.in = cij;
        t.ldi = g->ldc;
    } else {
        t.in = part;
        t.ldi = ldp;
    }
    t.out = last ? cij : part;
    t.ldo = last ? g->ldc : ldp;
    t.cold = cij;
    t.ldc = g->ldc;
    t.last = last;
    t.alpha = g->alpha;
    t.beta = g->beta;
    if (cols == nr) {
        repdl__gemm_ukr(g->isa, rows, kc, a, b, &t);
        return;
    }
    /* partial tile: through local copies */
    {
        float *dst = t.out;
        size_t ldd = t.ldo;
        for (r = 0; r < (size_t)rows; r++)
            for (c = 0; c < nr; c++) {
                in_l[r * nr + c] = c < cols ? t.in[r * t.ldi + c] : 0.0f;
                cold_l[r * nr + c] = (c < cols && last && repdl__fne(g->beta, 0.0f)) ? cij[r * g->ldc + c]
                                                                            : 0.0f;
            }
        t.in = in_l;
        t.ldi = nr;
        t.out = out_l;
        t.ldo = nr;
        t.cold = cold_l;
        t.ldc = nr;
        repdl__gemm_ukr(g->isa, rows, kc, a, b, &t);
        for (r = 0; r < (size_t)rows; r++)
            for (c = 0; c < cols; c++) dst[r * ldd + c] = out_l[r * nr + c];
    }
}

/* The blocked product (loops of the Goto / BLIS scheme: jc over NC, pc over
   KC, ic over MC, then jr over nr and ir over MR).  K == 0 runs one empty
   panel (the kernel only applies the epilogue). */
REPDL_FN void repdl__gemm_blocked(const repdl__gemm_args *g)
{
    const size_t MR = REPDL__GEMM_MR, nr = (size_t)repdl__gemm_nr(g->isa);
    size_t jc, pc, ic, jr, ir;
    for (jc = 0; jc < g->N; jc += REPDL_GEMM_NC) {
        size_t nc = g->N - jc < REPDL_GEMM_NC ? g->N - jc : REPDL_GEMM_NC;
        pc = 0;
        do {
            size_t kc = g->K - pc < REPDL_GEMM_KC ? g->K - pc : REPDL_GEMM_KC;
            int first = pc == 0, last = pc + kc >= g->K;
            if (kc) repdl__gemm_pack_b(g->transB, g->B, g->ldb, pc, kc, jc, nc, nr, g->bp);
            for (ic = 0; ic < g->M; ic += REPDL_GEMM_MC) {
                size_t mc = g->M - ic < REPDL_GEMM_MC ? g->M - ic : REPDL_GEMM_MC;
                if (kc) repdl__gemm_pack_a(g->transA, g->A, g->lda, ic, mc, pc, kc, g->ap);
                for (jr = 0; jr < nc; jr += nr) {
                    size_t cols = nc - jr < nr ? nc - jr : nr;
                    for (ir = 0; ir < mc; ir += MR) {
                        int rows = (int)(mc - ir < MR ? mc - ir : MR);
                        repdl__gemm_tile_run(g, ic + ir, jc + jr, rows, cols, kc, first, last,
                                             g->ap + ir * kc, g->bp + jr * kc);
                    }
                }
            }
            pc += kc;
        } while (pc < g->K);
    }
}

/* The core of every matrix product of repdl (gemm, linear, conv2d):
   the chain of C[i][j] starts from
     cont != 0:        C[i][j] itself (chain continuation: the product is
                       accumulated into C by continuing its chains; alpha
                       and beta must then be 1 and 0);
     bias_row != NULL: bias_row[i];
     bias_col != NULL: bias_col[j];
     otherwise         -0.0f;
   then alpha and beta as in repdl_gemm_f32, and canonical NaN.
   repdl__gemm_plain_f32 is the same order as plain loops (the fallback
   when scratch memory cannot be had). */
REPDL_FN void repdl__gemm_plain_f32(int transA, int transB, size_t M, size_t N, size_t K,
                                    const float *A, size_t lda, const float *B, size_t ldb,
                                    const float *bias_col, const float *bias_row, int cont,
                                    float alpha, float beta, float *C, size_t ldc)
{
    size_t i, j, k;
    for (i = 0; i < M; i++) {
        for (j = 0; j < N; j++) {
            float acc = cont ? C[i * ldc + j]
                             : bias_row ? bias_row[i] : bias_col ? bias_col[j] : -0.0f;
            float r;
            for (k = 0; k < K; k++) {
                float a = transA ? A[k * lda + i] : A[i * lda + k];
                float b = transB ? B[j * ldb + k] : B[k * ldb + j];
                acc = repdl__fmaf(a, b, acc);
            }
            r = (repdl__feq(alpha, 1.0f)) ? acc : repdl__fmul(alpha, acc);
            if (repdl__fne(beta, 0.0f)) r = repdl__fmaf(beta, C[i * ldc + j], r);
            C[i * ldc + j] = repdl__canon(r);
        }
    }
}

REPDL_FN void repdl__gemm_core_f32(int transA, int transB, size_t M, size_t N, size_t K,
                                   const float *A, size_t lda, const float *B, size_t ldb,
                                   const float *bias_col, const float *bias_row, int cont,
                                   float alpha, float beta, float *C, size_t ldc)
{
    repdl__gemm_args g;
    size_t kc, mcp, ncp, nr, na, nb, nw = 0, rb, i0;
    void *blk;
    if (M == 0 || N == 0) return;
    g.isa = repdl__gemm_isa();
    nr = (size_t)repdl__gemm_nr(g.isa);
    /* A few columns (a linear layer's 10 classes): the tiles of C^T =
       op(B)^T op(A)^T fill more lanes (MR of N's rows, nr of M's columns).
       C^T[j][i] is the same chain as C[i][j] (bias_col[j] becomes the row
       bias; fma(b, a, acc) == fma(a, b, acc)), NaN canonical either way;
       then copied, transposed, into C.  beta == 0 only (C_old unread). */
    if (!cont && !bias_row && repdl__feq(beta, 0.0f) &&
        4 * ((N + REPDL__GEMM_MR - 1) / REPDL__GEMM_MR * REPDL__GEMM_MR) * ((M + nr - 1) / nr * nr) <
            3 * ((M + REPDL__GEMM_MR - 1) / REPDL__GEMM_MR * REPDL__GEMM_MR) * ((N + nr - 1) / nr * nr)) {
        float *ct = (float *)malloc(M * N * sizeof(float));
        if (ct) {
            size_t i, j;
            repdl__gemm_core_f32(!transB, !transA, N, M, K, B, ldb, A, lda, NULL, bias_col, 0,
                                 alpha, 0.0f, ct, M);
            for (i = 0; i < M; i++)
                for (j = 0; j < N; j++) C[i * ldc + j] = ct[j * M + i];
            free(ct);
            return;
        }
    }
    kc = K < REPDL_GEMM_KC ? K : REPDL_GEMM_KC;
    mcp = (M < REPDL_GEMM_MC ? M : REPDL_GEMM_MC);
    mcp = (mcp + REPDL__GEMM_MR - 1) / REPDL__GEMM_MR * REPDL__GEMM_MR;
    ncp = (N < REPDL_GEMM_NC ? N : REPDL_GEMM_NC);
    ncp = (ncp + nr - 1) / nr * nr;
    na = mcp * kc;
    nb = kc * ncp;
    rb = M;
    if (!cont && repdl__fne(beta, 0.0f) && K > REPDL_GEMM_KC) {
        /* C_old must survive until the last panel: the partial chains go
           to W, whole rows of C at a time (at most ~16 MiB of W). */
        size_t cap = ((size_t)1 << 22) / N;
        if (cap < REPDL_GEMM_MC) cap = REPDL_GEMM_MC;
        if (rb > cap) rb = cap;
        nw = rb * N;
    }
    blk = malloc((na + nb + nw + N + nr) * sizeof(float) + 5 * 64);
    if (!blk) {
        repdl__gemm_plain_f32(transA, transB, M, N, K, A, lda, B, ldb, bias_col, bias_row, cont,
                              alpha, beta, C, ldc);
        return;
    }
    g.ap = repdl__align64(blk);
    g.bp = repdl__align64(g.ap + na);
    g.W = nw ? repdl__align64(g.bp + nb) : NULL;
    {
        float *ir = repdl__align64(g.bp + nb + nw + 16);
        size_t j;
        for (j = 0; j < N + nr; j++) ir[j] = (bias_col && j < N) ? bias_col[j] : -0.0f;
        g.init_row = ir;
    }
    g.ldw = N;
    g.transA = transA;
    g.transB = transB;
    g.cont = cont;
    g.N = N;
    g.K = K;
    g.lda = lda;
    g.ldb = ldb;
    g.ldc = ldc;
    g.B = B;
    g.bias_col = bias_col;
    g.alpha = alpha;
    g.beta = beta;
    for (i0 = 0; i0 < M; i0 += rb) {
        g.M = M - i0 < rb ? M - i0 : rb;
        g.A = (K == 0) ? A : transA ? A + i0 : A + i0 * lda;
        g.bias_row = bias_row ? bias_row + i0 : NULL;
        g.C = C + i0 * ldc;
        repdl__gemm_blocked(&g);
    }
    free(blk);
}

/* C = alpha * (op(A) op(B) [+ bias]) + beta * C, canonical order (above). */
/* The argument check of repdl_gemm_f32 (and of the threaded and CUDA
   forms): REPDL_ERR_INVALID when a leading dimension is shorter than its
   row (lda < (transA ? M : K), ldb < (transB ? K : N), ldc < N) or a
   matrix that is read or written is NULL; REPDL_ERR_OVERFLOW when the
   extent of a matrix (its rows times its leading dimension) does not fit
   in size_t as a count of floats.  M == 0 or N == 0 is valid and does
   nothing (NULL pointers allowed); K == 0 reads neither A nor B. */
REPDL_FN repdl_status repdl__gemm_check(int transA, int transB, size_t M, size_t N, size_t K,
                                        const float *A, size_t lda, const float *B, size_t ldb,
                                        const float *C, size_t ldc)
{
    size_t t;
    if (M == 0 || N == 0) return REPDL_OK;
    if (ldc < N || !C) return REPDL_ERR_INVALID;
    t = M; if (repdl__size_mul(&t, ldc)) return REPDL_ERR_OVERFLOW;
    if (K == 0) return REPDL_OK;
    if (!A || !B || lda < (transA ? M : K) || ldb < (transB ? K : N)) return REPDL_ERR_INVALID;
    t = transA ? K : M; if (repdl__size_mul(&t, lda)) return REPDL_ERR_OVERFLOW;
    t = transB ? N : K; if (repdl__size_mul(&t, ldb)) return REPDL_ERR_OVERFLOW;
    return REPDL_OK;
}

REPDL_API repdl_status repdl_gemm_f32(int transA, int transB, size_t M, size_t N, size_t K,
                                      float alpha, float beta, const float *A, size_t lda,
                                      const float *B, size_t ldb, const float *bias, float *C,
                                      size_t ldc)
{
    REPDL__FPENV_CHECK();
    repdl_status st = repdl__gemm_check(transA, transB, M, N, K, A, lda, B, ldb, C, ldc);
    if (st != REPDL_OK) return st;
#if REPDL__GEMV_X86
    /* a few rows times W^T (a linear layer decoding one token): the same
       chains, vectorised across columns (detail/gemv.h) */
    if (!transA && transB && M && M <= REPDL__GEMV_RMAX && N && K && repdl__feq(alpha, 1.0f) &&
        repdl__feq(beta, 0.0f) && repdl__gemm_isa() >= 1) {
        if (repdl__gemm_isa() >= 2)
            repdl__gemv_avx512_f32((int)M, N, K, A, lda, B, ldb, bias, C, ldc);
        else repdl__gemv_avx2_f32((int)M, N, K, A, lda, B, ldb, bias, C, ldc);
        return REPDL_OK;
    }
#endif
    repdl__gemm_core_f32(transA, transB, M, N, K, A, lda, B, ldb, bias, NULL, 0, alpha, beta,
                         C, ldc);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_GEMM_H */
