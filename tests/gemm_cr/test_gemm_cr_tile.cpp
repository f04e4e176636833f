/* SPDX-License-Identifier: MIT */
/* tests/gemm_cr/test_gemm_cr_tile.cpp: the int8 tensor-core tile of the
   correctly rounded product (cuda/gemm_cr_tile.cuh, the code the device
   kernel of cuda/gemm_cr.cu runs), driven on the host: every warp of the
   grid played by a host executor (32 lanes, the integer emulation of
   mma.sync m16n8k32 s8), compared bit for bit with repdl_gemm_cr_f32 and
   with the MPFR oracle (reference/gemm_cr_ref.h).

   Checks:
     - the MMA emulation (fragments built by crt_frag_a / crt_frag_b, the
       warp product, outputs read by the C layout) equals the plain integer
       product of the 16 x 32 and 32 x 8 digit matrices on random digits;
     - random shapes (edges of the 16 x 8 tile), transposes, leading
       dimensions, with and without bias, on data families: moderate range,
       full binary32 range, subnormal results, overflow, NaN / inf / +-0,
       small integers (ties and exact zeros), and constructed cancellation
       (the second half of K negating the first);
     - K beyond the int32 chunk: K = 2^17 + 4000 with the first three digits 127 (an
       int32 accumulator over all of K would wrap), and in the build with
       REPDL__CRS_KCHUNK = 64 every K above 64.
   Prints how many outputs each stage decided (S = 4, S = 8, exact). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long n_stage[4]; /* nonfinite / first S / S max / exact: the tile's counts */
#define REPDL__CRT_COUNT(stage) (n_stage[stage]++)

#include "../../cuda/gemm_cr_tile.cuh"

#include "gemm_cr_ref.h"
#include "../common/check.h"
#include "../common/splitmix64.h"

using namespace repdl_cuda;

struct host_warp {
    enum { LANES = 32 };
    static int lane(int l) { return l; }
    static int any(int p) { return p; }
    static void mma(int32_t acc[32][4], uint32_t a[32][4], uint32_t b[32][2])
    {
        repdl__mma_s8_m16n8k32_warp(acc, a, b);
    }
};

static splitmix64 rng;
static uint64_t rnd(void) { return splitmix64_next(&rng); }
static size_t rnd_below(size_t n) { return (size_t)(rnd() % n); }
static float f_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, 4);
    return x;
}
static uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

enum { M_MODERATE, M_FULL, M_SUBNORMAL, M_OVERFLOW, M_SPECIAL, M_SMALLINT, M_WIDE, M_TIE, M_COUNT };
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
        uint32_t r = (uint32_t)rnd_below(60);
        if (r == 0) return f_of(s | 0x7f800000u);
        if (r == 1) return f_of(0x7fc00000u | (uint32_t)(rnd() & 0x3fffffu) | s);
        if (r < 5) return f_of(s);
        e = (int)rnd_below(21) - 10;
        break;
    }
    case M_SMALLINT: return (float)((int)rnd_below(9) - 4);
    default: e = (int)rnd_below(61) - 30; break; /* wide: digits beyond 8 slices */
    }
    return f_of(s | (uint32_t)(e + 127) << 23 | m);
}

/* C by the host-driven tile: exponents, then every warp of the grid. */
static void tile_gemm(int tA, int tB, size_t M, size_t N, size_t K, const float *A, size_t lda,
                      const float *B, size_t ldb, const float *bias, float *C, size_t ldc)
{
    int *Ea = (int *)malloc((M + N) * sizeof(int)), *Eb = Ea + M;
    for (size_t i = 0; i < M; i++)
        Ea[i] = repdl__crs_exp(tA ? A + i : A + i * lda, K, tA ? lda : 1);
    for (size_t j = 0; j < N; j++)
        Eb[j] = repdl__crs_exp(tB ? B + j * ldb : B + j, K, tB ? 1 : ldb);
    crt_args p = {M, N, K, A, lda, B, ldb, bias, C, ldc, tA, tB, Ea, Eb};
    for (size_t i0 = 0; i0 < M; i0 += 16)
        for (size_t j0 = 0; j0 < N; j0 += 8) crt_tile<host_warp>(p, i0, j0);
    free(Ea);
}

static long n_outputs;

static void one_case(int mode, size_t M, size_t N, size_t K, int cancel)
{
    int tA = (int)(rnd() & 1), tB = (int)(rnd() & 1);
    size_t lda = (tA ? M : K) + rnd_below(3), ldb = (tB ? K : N) + rnd_below(3);
    size_t ldc = N + rnd_below(3);
    size_t nA = (tA ? K : M) * lda + 1, nB = (tB ? N : K) * ldb + 1, nC = M * ldc + 1;
    float *A = (float *)malloc(nA * sizeof(float)), *B = (float *)malloc(nB * sizeof(float));
    float *bias = (rnd() & 1) ? (float *)malloc(N * sizeof(float)) : NULL;
    float *C = (float *)malloc(nC * sizeof(float)), *R = (float *)malloc(nC * sizeof(float));
    for (size_t i = 0; i < nA; i++) A[i] = gen(mode);
    for (size_t i = 0; i < nB; i++) B[i] = gen(mode);
    if (bias)
        for (size_t j = 0; j < N; j++) bias[j] = gen(mode);
    if (mode == M_TIE && K >= 3) {
        /* Near midpoints: row i is v, ulp(v)/2, ulp(v) 2^-(20..40) (then
           0), column j is +-1 in its first three entries: the sums
           v +- ulp/2 +- a tiny term lie within 2^-20 ulp of a midpoint. */
        for (size_t i = 0; i < nA; i++) A[i] = 0.0f;
        for (size_t i = 0; i < nB; i++) B[i] = 0.0f;
        for (size_t i = 0; i < M; i++) {
            uint32_t e = 107 + (uint32_t)rnd_below(40), sg = (uint32_t)(rnd() & 1u) << 31;
            float v = f_of(sg | e << 23 | ((uint32_t)rnd() & 0x7fffffu));
            float half = f_of(sg | (e - 24) << 23);
            float tiny = f_of((uint32_t)(rnd() & 1u) << 31 | (e - 23 - 20 - (uint32_t)rnd_below(21)) << 23);
            float row[3] = {v, half, tiny};
            for (size_t k = 0; k < 3; k++) *(tA ? &A[k * lda + i] : &A[i * lda + k]) = row[k];
        }
        for (size_t j = 0; j < N; j++)
            for (size_t k = 0; k < 3; k++)
                *(tB ? &B[j * ldb + k] : &B[k * ldb + j]) = (rnd() & 1) ? 1.0f : -1.0f;
        if (bias)
            for (size_t j = 0; j < N; j++) bias[j] = 0.0f;
    }
    if (cancel && K >= 2) {
        size_t h = K / 2;
        for (size_t k = 0; k < h; k++)
            for (size_t i = 0; i < M; i++) {
                float *s = tA ? &A[k * lda + i] : &A[i * lda + k];
                float *d = tA ? &A[(k + h) * lda + i] : &A[i * lda + k + h];
                *d = -*s;
            }
        for (size_t k = 0; k < h; k++)
            for (size_t j = 0; j < N; j++) {
                float *s = tB ? &B[j * ldb + k] : &B[k * ldb + j];
                float *d = tB ? &B[j * ldb + k + h] : &B[(k + h) * ldb + j];
                *d = *s;
            }
    }
    for (size_t i = 0; i < nC; i++) C[i] = R[i] = f_of(0x7fbadbadu);
    repdl_status st = repdl_gemm_cr_f32(tA, tB, M, N, K, A, lda, B, ldb, bias, R, ldc);
    CHECK(st == REPDL_OK, "status %d", (int)st);
    tile_gemm(tA, tB, M, N, K, A, lda, B, ldb, bias, C, ldc);
    long bad = 0;
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            const float *a = tA ? A + i : A + i * lda;
            const float *b = tB ? B + j * ldb : B + j;
            float o = gemm_cr_ref_one(K, a, tA ? lda : 1, b, tB ? 1 : ldb, bias ? bias + j : NULL);
            uint32_t got = bits_of(C[i * ldc + j]), host = bits_of(R[i * ldc + j]);
            if (check_failed(got == host && got == bits_of(o)))
                printf("FAIL mode %d %zux%zux%zu tA %d tB %d (%zu,%zu): tile %08x host %08x "
                       "oracle %08x\n",
                       mode, M, N, K, tA, tB, i, j, (unsigned)got, (unsigned)host,
                       (unsigned)bits_of(o));
            bad += got != host;
            n_outputs++;
        }
    /* padding of C untouched */
    for (size_t i = 0; i < M; i++)
        for (size_t j = N; j < ldc; j++)
            CHECK(bits_of(C[i * ldc + j]) == 0x7fbadbadu, "padding written at (%zu,%zu)", i, j);
    (void)bad;
    free(A);
    free(B);
    free(bias);
    free(C);
    free(R);
}

/* The warp MMA through the fragment maps equals the plain integer product
   of the digit matrices. */
static void mma_case(void)
{
    int8_t Am[16][32], Bm[32][8];
    for (int i = 0; i < 16; i++)
        for (int k = 0; k < 32; k++) Am[i][k] = (int8_t)((int)rnd_below(255) - 127);
    for (int k = 0; k < 32; k++)
        for (int j = 0; j < 8; j++) Bm[k][j] = (int8_t)((int)rnd_below(255) - 127);
    uint32_t fa[32][4], fb[32][2];
    int32_t acc[32][4];
    for (int l = 0; l < 32; l++) {
        int g = l >> 2, q = l & 3;
        for (int j = 0; j < 4; j++) {
            int i = g + 8 * (j & 1), k = 4 * q + 16 * (j >> 1);
            fa[l][j] = crt_pack(Am[i][k], Am[i][k + 1], Am[i][k + 2], Am[i][k + 3]);
        }
        for (int j = 0; j < 2; j++) {
            int k = 4 * q + 16 * j;
            fb[l][j] = crt_pack(Bm[k][g], Bm[k + 1][g], Bm[k + 2][g], Bm[k + 3][g]);
        }
        for (int e = 0; e < 4; e++) acc[l][e] = (int32_t)(l * 4 + e); /* C is added */
    }
    repdl__mma_s8_m16n8k32_warp(acc, fa, fb);
    for (int l = 0; l < 32; l++)
        for (int e = 0; e < 4; e++) {
            int i = (l >> 2) + 8 * (e >> 1), j = 2 * (l & 3) + (e & 1);
            int32_t want = (int32_t)(l * 4 + e);
            for (int k = 0; k < 32; k++) want += (int32_t)Am[i][k] * Bm[k][j];
            CHECK(acc[l][e] == want, "mma lane %d element %d: %d, want %d", l, e, (int)acc[l][e],
                  (int)want);
        }
}

/* Every digit 127: |x| 2^-E = 1 - 2^-56 needs 8 slices of 127.  K beyond
   2^17: one int32 over all of K would reach 2^17 * 16129 * ... > 2^31. */
static void long_k_case(size_t K)
{
    size_t M = 3, N = 2;
    float x = f_of(0x3f7fffffu); /* 1 - 2^-24: every digit of F is 127 */
    float *A = (float *)malloc(M * K * sizeof(float)), *B = (float *)malloc(K * N * sizeof(float));
    float C[6], R[6];
    for (size_t i = 0; i < M * K; i++) A[i] = i % K == 5 ? -x : x;
    for (size_t i = 0; i < K * N; i++) B[i] = (i / N) % 7 == 3 ? f_of(0x3f7ffffeu) : x;
    tile_gemm(0, 0, M, N, K, A, K, B, N, NULL, C, N);
    CHECK(repdl_gemm_cr_f32(0, 0, M, N, K, A, K, B, N, NULL, R, N) == REPDL_OK, "status");
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            float o = gemm_cr_ref_one(K, A + i * K, 1, B + j, N, NULL);
            CHECK(bits_of(C[i * N + j]) == bits_of(R[i * N + j]) &&
                      bits_of(C[i * N + j]) == bits_of(o),
                  "K %zu (%zu,%zu): tile %08x host %08x oracle %08x", K, i, j,
                  (unsigned)bits_of(C[i * N + j]), (unsigned)bits_of(R[i * N + j]),
                  (unsigned)bits_of(o));
            n_outputs++;
        }
    free(A);
    free(B);
}

int main(int argc, char **argv)
{
    int small = argc > 1 && strcmp(argv[1], "--small") == 0;
    (void)gemm_cr_ref; /* the oracle's matrix form is not used here */
    splitmix64_seed(&rng, 0x13198a2e03707344ull);
    for (int t = 0; t < 200; t++) mma_case();
    int reps = small ? 2 : 6;
    for (int mode = 0; mode < M_COUNT; mode++)
        for (int r = 0; r < reps; r++)
            for (int cancel = 0; cancel < 2; cancel++) {
                size_t M = 1 + rnd_below(40), N = 1 + rnd_below(20), K = rnd_below(200);
                one_case(mode, M, N, K, cancel);
            }
    /* tile edges exactly, K a multiple of 32 and not, K = 0 and 1 */
    one_case(M_MODERATE, 16, 8, 32, 0);
    one_case(M_MODERATE, 32, 16, 64, 1);
    one_case(M_SMALLINT, 17, 9, 33, 0);
    one_case(M_MODERATE, 5, 3, 0, 0);
    one_case(M_FULL, 5, 3, 1, 0);
    long_k_case(((size_t)1 << 17) + 4000);
    printf("outputs: %ld (non-finite %ld, S=%d %ld, S=%d %ld, exact %ld)\n", n_outputs,
           n_stage[0], REPDL__CRS_S0, n_stage[1], REPDL__CRS_SMAX, n_stage[2], n_stage[3]);
    return check_summary("gemm_cr_tile");
}
