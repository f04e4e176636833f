/* SPDX-License-Identifier: MIT */
/* repdl/detail/gemv.h: the few-row product y = x W^T + bias (x [R x K],
   W [N x K], R = 1 .. 4: one token of a decoder) in the canonical order of
   repdl/gemm.h, without packing W.

     y[m][n] = canonical(chain over k ascending of fma(x[m][k], W[n][k], acc)
                         from acc = bias ? bias[n] : -0.0f)

   exactly the chain repdl_gemm_f32(0, 1, ...) computes with alpha 1 and
   beta 0, so the bits equal the batched product's.  The kernel vectorises
   across outputs: 8 consecutive rows of W (one 8-lane vector per k)
   hold 8 independent chains; an 8 x 8 block of W (8 rows, 8 k) is
   transposed in registers (moves only) and the 8 steps of every chain are
   applied k ascending.  Rows past N in the last group repeat row N - 1
   (read, never stored); the k past the last multiple of 8 are applied one
   at a time.  W is streamed once for all R rows of x.

   x86-64 with gcc or clang only (AVX2 + FMA, 8 rows a vector, or
   AVX-512F, 16 rows a vector; target attributes): the caller
   (repdl/gemm.h) checks the CPU; REPDL__GEMV_X86 is 0 elsewhere
   and the caller keeps its own kernels.  The kernels at the end (the
   packed weight) take W packed by repdl/linear_pack.h instead. */
#ifndef REPDL_DETAIL_GEMV_H
#define REPDL_DETAIL_GEMV_H

#include "../config.h"
REPDL_BEGIN_CODE

#if REPDL__GNU_HOST && defined(__x86_64__) && !defined(REPDL_GEMM_NO_DISPATCH)
#define REPDL__GEMV_X86 1
#include <immintrin.h>
#else
#define REPDL__GEMV_X86 0
#endif

/* Marks every loop over the groups, the rows of x and the steps of a
   block: all have constant trip counts (<= 16) once inlined and are
   unrolled whole, so that acc[][] stays in registers at -O2 as at -O3
   (gcc 12 -O2 unrolls none of them by itself and ran at 0.5x the -O3
   speed; the bits are the same either way). */
#define REPDL__GEMV_UNROLL _Pragma("GCC unroll 16")
#define REPDL__GEMV_RMAX 4 /* rows of x the kernel takes at once */
/* Groups of 8 rows of W read at once: 16 rows (more streams defeat the
   hardware prefetch on large K: measured, docs/bench-linalg.md). */
#define REPDL__GEMV_GMAX 2
/* The packed weight's panels (repdl/linear_pack.h, layout below): at most
   REPDL__GEMVP_W outputs, widths multiples of REPDL__GEMVP_Q.  Part of
   the packed layout's version: changing either changes the layout. */
#define REPDL__GEMVP_W 64
#define REPDL__GEMVP_Q 16

#if REPDL__GEMV_X86
/* g++ 12 reports -Wmaybe-uninitialized inside its own avx512fintrin.h
   (intrinsics whose unused upper lanes are a deliberately undefined
   value, `__Y = __Y`) once they are inlined here: silenced for this
   section only, so that a C++ user's -Werror build compiles. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/* d[8 i + j] = p[j][k + i] (i, j < 8): an 8 x 8 block of W transposed in
   registers (moves only).  Row j + 4 enters the high half of a vector by
   a 128-bit broadcast load and a blend, so only 16 shuffles remain. */
__attribute__((always_inline, target("avx2,fma"))) static inline void
repdl__gemv_t8(const float *const *p, size_t k, float *d)
{
    __m256 a0, a1, a2, a3, t0, t1, t2, t3;
    int h;
    REPDL__GEMV_UNROLL
    for (h = 0; h < 2; h++) {
        size_t q = k + 4 * (size_t)h;
#define REPDL__GEMV_LD(i)                                                               \
    _mm256_blend_ps(_mm256_castps128_ps256(_mm_loadu_ps(p[i] + q)),                     \
                    _mm256_broadcast_ps((const __m128 *)(const void *)(p[i + 4] + q)), 0xf0)
        a0 = REPDL__GEMV_LD(0);
        a1 = REPDL__GEMV_LD(1);
        a2 = REPDL__GEMV_LD(2);
        a3 = REPDL__GEMV_LD(3);
#undef REPDL__GEMV_LD
        t0 = _mm256_unpacklo_ps(a0, a1);
        t1 = _mm256_unpackhi_ps(a0, a1);
        t2 = _mm256_unpacklo_ps(a2, a3);
        t3 = _mm256_unpackhi_ps(a2, a3);
        _mm256_store_ps(d + 32 * h + 0, _mm256_shuffle_ps(t0, t2, 0x44));
        _mm256_store_ps(d + 32 * h + 8, _mm256_shuffle_ps(t0, t2, 0xee));
        _mm256_store_ps(d + 32 * h + 16, _mm256_shuffle_ps(t1, t3, 0x44));
        _mm256_store_ps(d + 32 * h + 24, _mm256_shuffle_ps(t1, t3, 0xee));
    }
}

/* Outputs n0 .. n0 + 8G - 1 (G groups of 8 consecutive rows of W; those
   >= N repeat row N - 1 and are not stored) of the R rows of x.  Per 16
   steps of k: every group's 8 x 16 block is transposed into buf (each
   64-byte line of W used whole at once), then step k + i (i ascending) of
   all R G chains. */
__attribute__((always_inline, target("avx2,fma"))) static inline void
repdl__gemv_block(const int R, const int G, size_t n0, size_t N, size_t K, const float *x,
                  size_t ldx, const float *W, size_t ldw, const float *bias, float *y,
                  size_t ldy)
{
    __m256 acc[REPDL__GEMV_GMAX][REPDL__GEMV_RMAX];
    const float *p[REPDL__GEMV_GMAX][8];
    float buf[REPDL__GEMV_GMAX][16 * 8] __attribute__((aligned(32)));
    __m256 qn = _mm256_castsi256_ps(_mm256_set1_epi32((int)REPDL_NAN_BITS));
    size_t k;
    int g, i, m;
    REPDL__GEMV_UNROLL
    for (g = 0; g < G; g++) {
        float b0[8];
        REPDL__GEMV_UNROLL
        for (i = 0; i < 8; i++) {
            size_t n = n0 + 8 * (size_t)g + (size_t)i;
            if (n >= N) n = N - 1;
            p[g][i] = W + n * ldw;
            b0[i] = bias ? bias[n] : -0.0f;
        }
        REPDL__GEMV_UNROLL
        for (m = 0; m < R; m++) acc[g][m] = _mm256_loadu_ps(b0);
    }
    for (k = 0; k + 16 <= K; k += 16) {
        REPDL__GEMV_UNROLL
        for (g = 0; g < G; g++) {
            repdl__gemv_t8(p[g], k, buf[g]);
            repdl__gemv_t8(p[g], k + 8, buf[g] + 64);
        }
        REPDL__GEMV_UNROLL
        for (i = 0; i < 16; i++)
            REPDL__GEMV_UNROLL
            for (m = 0; m < R; m++) {
                __m256 xv = _mm256_broadcast_ss(x + (size_t)m * ldx + k + (size_t)i);
                REPDL__GEMV_UNROLL
                for (g = 0; g < G; g++)
                    acc[g][m] = _mm256_fmadd_ps(xv, _mm256_load_ps(buf[g] + 8 * i), acc[g][m]);
            }
    }
    if (k + 8 <= K) {
        REPDL__GEMV_UNROLL
        for (g = 0; g < G; g++) repdl__gemv_t8(p[g], k, buf[g]);
        REPDL__GEMV_UNROLL
        for (i = 0; i < 8; i++)
            REPDL__GEMV_UNROLL
            for (m = 0; m < R; m++) {
                __m256 xv = _mm256_broadcast_ss(x + (size_t)m * ldx + k + (size_t)i);
                REPDL__GEMV_UNROLL
                for (g = 0; g < G; g++)
                    acc[g][m] = _mm256_fmadd_ps(xv, _mm256_load_ps(buf[g] + 8 * i), acc[g][m]);
            }
        k += 8;
    }
    for (; k < K; k++) /* one step at a time, the 8 values gathered */
        REPDL__GEMV_UNROLL
        for (g = 0; g < G; g++) {
            __m256 v = _mm256_setr_ps(p[g][0][k], p[g][1][k], p[g][2][k], p[g][3][k],
                                      p[g][4][k], p[g][5][k], p[g][6][k], p[g][7][k]);
            REPDL__GEMV_UNROLL
            for (m = 0; m < R; m++)
                acc[g][m] = _mm256_fmadd_ps(_mm256_broadcast_ss(x + (size_t)m * ldx + k), v,
                                            acc[g][m]);
        }
    REPDL__GEMV_UNROLL
    for (g = 0; g < G; g++)
        REPDL__GEMV_UNROLL
        for (m = 0; m < R; m++) {
            __m256 r = acc[g][m];
            size_t n = n0 + 8 * (size_t)g;
            r = _mm256_blendv_ps(r, qn, _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
            if (n + 8 <= N) {
                _mm256_storeu_ps(y + (size_t)m * ldy + n, r);
            } else if (n < N) {
                float o[8];
                size_t j;
                _mm256_storeu_ps(o, r);
                for (j = 0; n + j < N; j++) y[(size_t)m * ldy + n + j] = o[j];
            }
        }
}

/* Blocks of REPDL__GEMV_GMAX groups, the rest in one block of fewer. */
__attribute__((always_inline, target("avx2,fma"))) static inline void
repdl__gemv_rows(const int R, size_t N, size_t K, const float *x, size_t ldx, const float *W,
                 size_t ldw, const float *bias, float *y, size_t ldy)
{
    size_t n;
    for (n = 0; n + 8 < N; n += 16) repdl__gemv_block(R, 2, n, N, K, x, ldx, W, ldw, bias, y, ldy);
    if (n < N) repdl__gemv_block(R, 1, n, N, K, x, ldx, W, ldw, bias, y, ldy);
}

/* AVX-512F: 16 rows of W a vector.  Steps k .. k+7 of the R chains of the
   16 rows p[0..15]: vector i lane j = p[j][k + i], built from 128-bit
   pieces (rows j, j+4, j+8, j+12 in the four 128-bit lanes, by a load and
   three masked broadcast loads) and a 4 x 4 transpose inside each lane. */
__attribute__((always_inline, target("avx512f"))) static inline void
repdl__gemv_s8z(const int R, const float *const *p, size_t k, const float *x, size_t ldx,
                __m512 *acc)
{
    __m512 a0, a1, a2, a3, t0, t1, t2, t3, v[8];
    int h, i, m;
    REPDL__GEMV_UNROLL
    for (h = 0; h < 2; h++) {
        size_t q = k + 4 * (size_t)h;
#define REPDL__GEMV_LZ(i)                                                                  \
    _mm512_mask_broadcast_f32x4(                                                           \
        _mm512_mask_broadcast_f32x4(                                                       \
            _mm512_mask_broadcast_f32x4(_mm512_castps128_ps512(_mm_loadu_ps(p[i] + q)),   \
                                        0x00f0, _mm_loadu_ps(p[i + 4] + q)),               \
            0x0f00, _mm_loadu_ps(p[i + 8] + q)),                                           \
        0xf000, _mm_loadu_ps(p[i + 12] + q))
        a0 = REPDL__GEMV_LZ(0);
        a1 = REPDL__GEMV_LZ(1);
        a2 = REPDL__GEMV_LZ(2);
        a3 = REPDL__GEMV_LZ(3);
#undef REPDL__GEMV_LZ
        t0 = _mm512_unpacklo_ps(a0, a1);
        t1 = _mm512_unpackhi_ps(a0, a1);
        t2 = _mm512_unpacklo_ps(a2, a3);
        t3 = _mm512_unpackhi_ps(a2, a3);
        v[4 * h + 0] = _mm512_shuffle_ps(t0, t2, 0x44);
        v[4 * h + 1] = _mm512_shuffle_ps(t0, t2, 0xee);
        v[4 * h + 2] = _mm512_shuffle_ps(t1, t3, 0x44);
        v[4 * h + 3] = _mm512_shuffle_ps(t1, t3, 0xee);
    }
    REPDL__GEMV_UNROLL
    for (i = 0; i < 8; i++)
        REPDL__GEMV_UNROLL
        for (m = 0; m < R; m++)
            acc[m] = _mm512_fmadd_ps(_mm512_set1_ps(x[(size_t)m * ldx + k + (size_t)i]), v[i],
                                     acc[m]);
}

/* Steps k .. k+15 of the R chains of the 16 rows p[0..15], the same
   vectors as two repdl__gemv_s8z, the loads ordered row by row: the four
   128-bit pieces of each 64-byte line are read together (16 rows K floats
   apart may share one L1 set and evict each other between the halves). */
__attribute__((always_inline, target("avx512f"))) static inline void
repdl__gemv_s16z(const int R, const float *const *p, size_t k, const float *x, size_t ldx,
                 __m512 *acc)
{
    __m512 a[4][4], t0, t1, t2, t3, v[4];
    int q, i, m;
    REPDL__GEMV_UNROLL
    for (i = 0; i < 4; i++)
        REPDL__GEMV_UNROLL
        for (q = 0; q < 4; q++) {
            size_t o = k + 4 * (size_t)q;
            a[q][i] = _mm512_mask_broadcast_f32x4(
                _mm512_mask_broadcast_f32x4(
                    _mm512_mask_broadcast_f32x4(_mm512_castps128_ps512(_mm_loadu_ps(p[i] + o)),
                                                0x00f0, _mm_loadu_ps(p[i + 4] + o)),
                    0x0f00, _mm_loadu_ps(p[i + 8] + o)),
                0xf000, _mm_loadu_ps(p[i + 12] + o));
        }
    REPDL__GEMV_UNROLL
    for (q = 0; q < 4; q++) {
        t0 = _mm512_unpacklo_ps(a[q][0], a[q][1]);
        t1 = _mm512_unpackhi_ps(a[q][0], a[q][1]);
        t2 = _mm512_unpacklo_ps(a[q][2], a[q][3]);
        t3 = _mm512_unpackhi_ps(a[q][2], a[q][3]);
        v[0] = _mm512_shuffle_ps(t0, t2, 0x44);
        v[1] = _mm512_shuffle_ps(t0, t2, 0xee);
        v[2] = _mm512_shuffle_ps(t1, t3, 0x44);
        v[3] = _mm512_shuffle_ps(t1, t3, 0xee);
        REPDL__GEMV_UNROLL
        for (i = 0; i < 4; i++)
            REPDL__GEMV_UNROLL
            for (m = 0; m < R; m++)
                acc[m] = _mm512_fmadd_ps(
                    _mm512_set1_ps(x[(size_t)m * ldx + k + 4 * (size_t)q + (size_t)i]), v[i],
                    acc[m]);
    }
}

/* repdl__gemv_s16z for 16 rows L bytes apart (no row past N): row
   i + 4 r (i, r < 4) at b[r] + i L, with b[r] at step k; the addresses
   stay base + index forms (no table of 16 row pointers to reload). */
__attribute__((always_inline, target("avx512f"))) static inline void
repdl__gemv_s16zs(const int R, const char *b0, const char *b4, const char *b8,
                  const char *b12, size_t L, size_t L3, size_t k, const float *x, size_t ldx,
                  __m512 *acc)
{
    __m512 a[4][4], t0, t1, t2, t3, v[4];
    int q, i, m;
#define REPDL__GEMV_AT(b, i, q)                                                              \
    _mm_loadu_ps((const float *)(const void *)((b) + ((i) == 3 ? L3 : (size_t)(i) * L) +   \
                                               16 * (q)))
    REPDL__GEMV_UNROLL
    for (i = 0; i < 4; i++)
        REPDL__GEMV_UNROLL
        for (q = 0; q < 4; q++)
            a[q][i] = _mm512_mask_broadcast_f32x4(
                _mm512_mask_broadcast_f32x4(
                    _mm512_mask_broadcast_f32x4(_mm512_castps128_ps512(REPDL__GEMV_AT(b0, i, q)),
                                                0x00f0, REPDL__GEMV_AT(b4, i, q)),
                    0x0f00, REPDL__GEMV_AT(b8, i, q)),
                0xf000, REPDL__GEMV_AT(b12, i, q));
#undef REPDL__GEMV_AT
    REPDL__GEMV_UNROLL
    for (q = 0; q < 4; q++) {
        t0 = _mm512_unpacklo_ps(a[q][0], a[q][1]);
        t1 = _mm512_unpackhi_ps(a[q][0], a[q][1]);
        t2 = _mm512_unpacklo_ps(a[q][2], a[q][3]);
        t3 = _mm512_unpackhi_ps(a[q][2], a[q][3]);
        v[0] = _mm512_shuffle_ps(t0, t2, 0x44);
        v[1] = _mm512_shuffle_ps(t0, t2, 0xee);
        v[2] = _mm512_shuffle_ps(t1, t3, 0x44);
        v[3] = _mm512_shuffle_ps(t1, t3, 0xee);
        REPDL__GEMV_UNROLL
        for (i = 0; i < 4; i++)
            REPDL__GEMV_UNROLL
            for (m = 0; m < R; m++)
                acc[m] = _mm512_fmadd_ps(
                    _mm512_set1_ps(x[(size_t)m * ldx + k + 4 * (size_t)q + (size_t)i]), v[i],
                    acc[m]);
    }
}

/* The steps k < K - K % 16 of the G groups of 16 rows p[g][0..15]: the
   first F groups have rows ldw floats apart (repdl__gemv_s16zs), the
   others any rows (repdl__gemv_s16z).  Returns the next step. */
__attribute__((always_inline, target("avx512f"))) static inline size_t
repdl__gemv_k16z(const int R, const int G, const int F, const float *(*p)[16], size_t ldw,
                 size_t K, const float *x, size_t ldx, __m512 (*acc)[REPDL__GEMV_RMAX])
{
    const size_t L = ldw * sizeof(float), L3 = 3 * L;
    const char *b[2][4];
    size_t k;
    int g, i;
    REPDL__GEMV_UNROLL
    for (g = 0; g < F; g++)
        REPDL__GEMV_UNROLL
        for (i = 0; i < 4; i++) b[g][i] = (const char *)(const void *)p[g][4 * i];
    for (k = 0; k + 16 <= K; k += 16) {
        REPDL__GEMV_UNROLL
        for (g = 0; g < G; g++) {
            if (g < F) {
                repdl__gemv_s16zs(R, b[g][0], b[g][1], b[g][2], b[g][3], L, L3, k, x, ldx,
                                  acc[g]);
                REPDL__GEMV_UNROLL
                for (i = 0; i < 4; i++) b[g][i] += 16 * sizeof(float);
            } else {
                repdl__gemv_s16z(R, p[g], k, x, ldx, acc[g]);
            }
        }
    }
    return k;
}

/* Outputs n0 .. n0 + 16G - 1 (G groups of 16 rows; rows >= N repeat row
   N - 1, not stored): the order of repdl__gemv_block.  G = 2 only for
   K <= 1024 and rows not a multiple of 4 KiB apart (repdl__gemv_rowsz):
   32 rows at once ran slower otherwise (docs/bench-linalg.md). */
__attribute__((always_inline, target("avx512f"))) static inline void
repdl__gemv_blockz(const int R, const int G, size_t n0, size_t N, size_t K, const float *x,
                   size_t ldx, const float *W, size_t ldw, const float *bias, float *y,
                   size_t ldy)
{
    __m512 acc[2][REPDL__GEMV_RMAX];
    const float *p[2][16];
    __m512 qn = _mm512_castsi512_ps(_mm512_set1_epi32((int)REPDL_NAN_BITS));
    size_t k;
    int g, i, m;
    REPDL__GEMV_UNROLL
    for (g = 0; g < G; g++) {
        float b0[16];
        REPDL__GEMV_UNROLL
        for (i = 0; i < 16; i++) {
            size_t n = n0 + 16 * (size_t)g + (size_t)i;
            if (n >= N) n = N - 1;
            p[g][i] = W + n * ldw;
            b0[i] = bias ? bias[n] : -0.0f;
        }
        REPDL__GEMV_UNROLL
        for (m = 0; m < R; m++) acc[g][m] = _mm512_loadu_ps(b0);
    }
    /* the groups with no repeated row (all but a last partial one) take
       the strided loads */
    if (n0 + 16 * (size_t)G <= N)
        k = repdl__gemv_k16z(R, G, G, p, ldw, K, x, ldx, acc);
    else if (G == 2 && n0 + 16 <= N)
        k = repdl__gemv_k16z(R, 2, 1, p, ldw, K, x, ldx, acc);
    else
        k = repdl__gemv_k16z(R, G, 0, p, ldw, K, x, ldx, acc);
    if (k + 8 <= K) {
        REPDL__GEMV_UNROLL
        for (g = 0; g < G; g++) repdl__gemv_s8z(R, p[g], k, x, ldx, acc[g]);
        k += 8;
    }
    for (; k < K; k++) /* one step at a time, the 16 values gathered */
        REPDL__GEMV_UNROLL
        for (g = 0; g < G; g++) {
            float c[16];
            __m512 v;
            REPDL__GEMV_UNROLL
            for (i = 0; i < 16; i++) c[i] = p[g][i][k];
            v = _mm512_loadu_ps(c);
            REPDL__GEMV_UNROLL
            for (m = 0; m < R; m++)
                acc[g][m] = _mm512_fmadd_ps(_mm512_set1_ps(x[(size_t)m * ldx + k]), v, acc[g][m]);
        }
    REPDL__GEMV_UNROLL
    for (g = 0; g < G; g++)
        REPDL__GEMV_UNROLL
        for (m = 0; m < R; m++) {
            __m512 r = acc[g][m];
            size_t n = n0 + 16 * (size_t)g, j;
            r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q), qn);
            if (n + 16 <= N) {
                _mm512_storeu_ps(y + (size_t)m * ldy + n, r);
            } else if (n < N) {
                float o[16];
                _mm512_storeu_ps(o, r);
                for (j = 0; n + j < N; j++) y[(size_t)m * ldy + n + j] = o[j];
            }
        }
}

__attribute__((always_inline, target("avx512f"))) static inline void
repdl__gemv_rowsz(const int R, size_t N, size_t K, const float *x, size_t ldx, const float *W,
                  size_t ldw, const float *bias, float *y, size_t ldy)
{
    size_t n;
    n = 0;
    /* 32 rows at once (two chains hide the fma latency) for K <= 1024,
       unless the rows are a multiple of 4 KiB apart: then all 32 lines
       of a step fall in one L1 set (12 ways) and evict each other */
    if (K <= 1024 && ldw % 1024 != 0)
        for (; n + 16 < N; n += 32) repdl__gemv_blockz(R, 2, n, N, K, x, ldx, W, ldw, bias, y, ldy);
    for (; n < N; n += 16) repdl__gemv_blockz(R, 1, n, N, K, x, ldx, W, ldw, bias, y, ldy);
}

/* The same as repdl__gemv_avx2_f32 with AVX-512F (the caller checks). */
__attribute__((target("avx512f"))) static inline void
repdl__gemv_avx512_f32(int R, size_t N, size_t K, const float *x, size_t ldx, const float *W,
                       size_t ldw, const float *bias, float *y, size_t ldy)
{
    switch (R) {
    case 1: repdl__gemv_rowsz(1, N, K, x, ldx, W, ldw, bias, y, ldy); break;
    case 2: repdl__gemv_rowsz(2, N, K, x, ldx, W, ldw, bias, y, ldy); break;
    case 3: repdl__gemv_rowsz(3, N, K, x, ldx, W, ldw, bias, y, ldy); break;
    default: repdl__gemv_rowsz(4, N, K, x, ldx, W, ldw, bias, y, ldy); break;
    }
}

/* y [R x N] (ld ldy) = x [R x K] (ld ldx) W^T (W [N x K], ld ldw) + bias,
   1 <= R <= REPDL__GEMV_RMAX, N >= 1; K == 0 gives the bias (or -0).
   Needs AVX2 + FMA (the caller checks). */
__attribute__((target("avx2,fma"))) static inline void
repdl__gemv_avx2_f32(int R, size_t N, size_t K, const float *x, size_t ldx, const float *W,
                     size_t ldw, const float *bias, float *y, size_t ldy)
{
    switch (R) {
    case 1: repdl__gemv_rows(1, N, K, x, ldx, W, ldw, bias, y, ldy); break;
    case 2: repdl__gemv_rows(2, N, K, x, ldx, W, ldw, bias, y, ldy); break;
    case 3: repdl__gemv_rows(3, N, K, x, ldx, W, ldw, bias, y, ldy); break;
    default: repdl__gemv_rows(4, N, K, x, ldx, W, ldw, bias, y, ldy); break;
    }
}

/* ---- The packed weight (repdl/linear_pack.h) ----
   Panels of REPDL__GEMVP_W outputs from output n0 = 0, 64, ... (the last
   one N - n0 rounded up to a multiple of REPDL__GEMVP_Q, narrower); panel
   n0 starts at P + n0 K and holds W[n0 + j][k] at [k w + j] (w its
   width), so step k of the chains of all its outputs reads one contiguous
   run and the whole weight is one sequential stream, which the hardware
   prefetch follows (a software prefetch 1 or 2 KiB ahead measured slower
   on shapes in the L2 and no faster beyond: docs/bench-linalg.md).  The
   chains are those of repdl__gemv_block (k ascending from the bias or
   -0), lanes = outputs; lanes past N hold 0 and are never stored. */

/* Outputs n0 .. n0 + 16V - 1 (those >= N not stored) of the R rows of x
   from a panel slice p (step k at p + k w). */
__attribute__((always_inline, target("avx512f"))) static inline void
repdl__gemvp_slice_z(const int R, const int V, size_t n0, size_t N, size_t K, const float *x,
                     size_t ldx, const float *p, size_t w, const float *bias, float *y,
                     size_t ldy)
{
    __m512 acc[4][REPDL__GEMV_RMAX];
    __m512 qn = _mm512_castsi512_ps(_mm512_set1_epi32((int)REPDL_NAN_BITS));
    size_t k;
    int v, m;
    /* lanes n < N: bias[n] or -0 (masked loads: nothing read past N) */
    REPDL__GEMV_UNROLL
    for (v = 0; v < V; v++) {
        size_t n = n0 + 16 * (size_t)v;
        __mmask16 live = n + 16 <= N ? (__mmask16)0xffff
                         : n < N   ? (__mmask16)((1u << (N - n)) - 1u)
                                   : (__mmask16)0;
        __m512 b0 = _mm512_set1_ps(-0.0f);
        if (bias && live) b0 = _mm512_mask_loadu_ps(b0, live, bias + n);
        REPDL__GEMV_UNROLL
        for (m = 0; m < R; m++) acc[v][m] = b0;
    }
    for (k = 0; k < K; k++) {
        const float *q = p + k * w;
        REPDL__GEMV_UNROLL
        for (m = 0; m < R; m++) {
            __m512 xv = _mm512_set1_ps(x[(size_t)m * ldx + k]);
            REPDL__GEMV_UNROLL
            for (v = 0; v < V; v++)
                acc[v][m] = _mm512_fmadd_ps(xv, _mm512_loadu_ps(q + 16 * v), acc[v][m]);
        }
    }
    REPDL__GEMV_UNROLL
    for (v = 0; v < V; v++)
        REPDL__GEMV_UNROLL
        for (m = 0; m < R; m++) {
            __m512 r = acc[v][m];
            size_t n = n0 + 16 * (size_t)v;
            r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q), qn);
            if (n + 16 <= N)
                _mm512_storeu_ps(y + (size_t)m * ldy + n, r);
            else if (n < N) /* masked: nothing written past N */
                _mm512_mask_storeu_ps(y + (size_t)m * ldy + n,
                                      (__mmask16)((1u << (N - n)) - 1u), r);
        }
}

__attribute__((always_inline, target("avx512f"))) static inline void
repdl__gemvp_rows_z(const int R, size_t N, size_t K, const float *x, size_t ldx,
                    const float *P, const float *bias, float *y, size_t ldy)
{
    size_t n0;
    for (n0 = 0; n0 < N; n0 += REPDL__GEMVP_W) {
        size_t r = (N - n0 + REPDL__GEMVP_Q - 1) / REPDL__GEMVP_Q * REPDL__GEMVP_Q;
        size_t w = r < REPDL__GEMVP_W ? r : REPDL__GEMVP_W;
        const float *p = P + n0 * K;
        switch (w / 16) {
        case 1: repdl__gemvp_slice_z(R, 1, n0, N, K, x, ldx, p, w, bias, y, ldy); break;
        case 2: repdl__gemvp_slice_z(R, 2, n0, N, K, x, ldx, p, w, bias, y, ldy); break;
        case 3: repdl__gemvp_slice_z(R, 3, n0, N, K, x, ldx, p, w, bias, y, ldy); break;
        default: repdl__gemvp_slice_z(R, 4, n0, N, K, x, ldx, p, w, bias, y, ldy); break;
        }
    }
}

/* y [R x N] (ld ldy) = x [R x K] (ld ldx) W^T + bias from the packed data
   P (the panels, past the header), 1 <= R <= REPDL__GEMV_RMAX, N, K >= 1.
   Needs AVX-512F (the caller checks). */
__attribute__((target("avx512f"))) static inline void
repdl__gemvp_avx512_f32(int R, size_t N, size_t K, const float *x, size_t ldx, const float *P,
                        const float *bias, float *y, size_t ldy)
{
    switch (R) {
    case 1: repdl__gemvp_rows_z(1, N, K, x, ldx, P, bias, y, ldy); break;
    case 2: repdl__gemvp_rows_z(2, N, K, x, ldx, P, bias, y, ldy); break;
    case 3: repdl__gemvp_rows_z(3, N, K, x, ldx, P, bias, y, ldy); break;
    default: repdl__gemvp_rows_z(4, N, K, x, ldx, P, bias, y, ldy); break;
    }
}

/* The AVX2 slice: outputs n0 .. n0 + 8V - 1, 8 a vector. */
__attribute__((always_inline, target("avx2,fma"))) static inline void
repdl__gemvp_slice_y(const int R, const int V, size_t n0, size_t N, size_t K, const float *x,
                     size_t ldx, const float *p, size_t w, const float *bias, float *y,
                     size_t ldy)
{
    __m256 acc[8][REPDL__GEMV_RMAX];
    __m256i live[8];
    __m256 qn = _mm256_castsi256_ps(_mm256_set1_epi32((int)REPDL_NAN_BITS));
    size_t k;
    int v, m;
    /* live[v] lane j: output n0 + 8v + j < N; the bias or -0 there
       (masked loads and stores: nothing read or written past N) */
    REPDL__GEMV_UNROLL
    for (v = 0; v < V; v++) {
        size_t n = n0 + 8 * (size_t)v;
        int c = n >= N ? 0 : N - n >= 8 ? 8 : (int)(N - n);
        __m256 b0 = _mm256_set1_ps(-0.0f);
        live[v] = _mm256_cmpgt_epi32(_mm256_set1_epi32(c), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        if (bias && c) b0 = _mm256_blendv_ps(b0, _mm256_maskload_ps(bias + n, live[v]),
                                             _mm256_castsi256_ps(live[v]));
        REPDL__GEMV_UNROLL
        for (m = 0; m < R; m++) acc[v][m] = b0;
    }
    for (k = 0; k < K; k++) {
        const float *q = p + k * w;
        REPDL__GEMV_UNROLL
        for (m = 0; m < R; m++) {
            __m256 xv = _mm256_broadcast_ss(x + (size_t)m * ldx + k);
            REPDL__GEMV_UNROLL
            for (v = 0; v < V; v++)
                acc[v][m] = _mm256_fmadd_ps(xv, _mm256_loadu_ps(q + 8 * v), acc[v][m]);
        }
    }
    REPDL__GEMV_UNROLL
    for (v = 0; v < V; v++)
        REPDL__GEMV_UNROLL
        for (m = 0; m < R; m++) {
            __m256 r = acc[v][m];
            size_t n = n0 + 8 * (size_t)v;
            r = _mm256_blendv_ps(r, qn, _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
            if (n + 8 <= N) _mm256_storeu_ps(y + (size_t)m * ldy + n, r);
            else if (n < N) _mm256_maskstore_ps(y + (size_t)m * ldy + n, live[v], r);
        }
}

/* A panel in slices of at most S vectors (S = 8 for one row of x, else 4:
   the accumulators stay within the 16 registers). */
__attribute__((always_inline, target("avx2,fma"))) static inline void
repdl__gemvp_rows_y(const int R, size_t N, size_t K, const float *x, size_t ldx,
                    const float *P, const float *bias, float *y, size_t ldy)
{
    const size_t S = R == 1 ? 8 : 4;
    size_t n0, v0;
    for (n0 = 0; n0 < N; n0 += REPDL__GEMVP_W) {
        size_t r = (N - n0 + REPDL__GEMVP_Q - 1) / REPDL__GEMVP_Q * REPDL__GEMVP_Q;
        size_t w = r < REPDL__GEMVP_W ? r : REPDL__GEMVP_W;
        for (v0 = 0; v0 < w / 8; v0 += S) {
            size_t V = w / 8 - v0 < S ? w / 8 - v0 : S, n = n0 + 8 * v0;
            const float *p = P + n0 * K + 8 * v0;
            switch (V) { /* widths are multiples of 16: V even */
            case 2: repdl__gemvp_slice_y(R, 2, n, N, K, x, ldx, p, w, bias, y, ldy); break;
            case 4: repdl__gemvp_slice_y(R, 4, n, N, K, x, ldx, p, w, bias, y, ldy); break;
            case 6: repdl__gemvp_slice_y(R, 6, n, N, K, x, ldx, p, w, bias, y, ldy); break;
            default: repdl__gemvp_slice_y(R, 8, n, N, K, x, ldx, p, w, bias, y, ldy); break;
            }
        }
    }
}

/* The same as repdl__gemvp_avx512_f32 with AVX2 + FMA (the caller checks). */
__attribute__((target("avx2,fma"))) static inline void
repdl__gemvp_avx2_f32(int R, size_t N, size_t K, const float *x, size_t ldx, const float *P,
                      const float *bias, float *y, size_t ldy)
{
    switch (R) {
    case 1: repdl__gemvp_rows_y(1, N, K, x, ldx, P, bias, y, ldy); break;
    case 2: repdl__gemvp_rows_y(2, N, K, x, ldx, P, bias, y, ldy); break;
    case 3: repdl__gemvp_rows_y(3, N, K, x, ldx, P, bias, y, ldy); break;
    default: repdl__gemvp_rows_y(4, N, K, x, ldx, P, bias, y, ldy); break;
    }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif /* REPDL__GEMV_X86 */

REPDL_END_CODE
#endif /* REPDL_DETAIL_GEMV_H */
