/* SPDX-License-Identifier: MIT */
/* tests/linalg/test_gemv.c: the few-row product (include/repdl/detail/
   gemv.h, taken by repdl_gemm_f32(0, 1, ...) for M <= 4) gives the bits of
   the batched product, bit for bit (memcmp).

     test_gemv [--small]

   Checks, for M = 1 .. 5 rows (5: past the fast path, the blocked
   product):
     - repdl_linear_forward_f32 on M rows equals the same rows of one
       call on a batch of 64 rows (the blocked product), and the plain
       loops of reference/gemm_ref.h (libm fmaf);
     - random shapes, K and N not multiples of 8 or 16 (every k tail, every
       partial group of 8 outputs), K = 1 .. 40 and N = 1 .. 40 exhaustively
       for M = 1, bias or not; K up to 1031 (both row blockings: 16 rows
       at once for K > 1024 or rows a multiple of 1024 floats apart);
     - data with +-0, subnormals, huge values, +-inf and NaN payloads (the
       NaN outputs 0x7fc00000), and overflow to inf;
     - repdl_gemm_f32(0, 1, ...) with padded leading dimensions;
     - repdl_gemm_threads_f32 at 1, 2, 3 threads. */
#define REPDL_GEMM_THREADS_MIN 0.0 /* threads even for small products */
#include <repdl/gemm.h>
#include <repdl/gemm_threads.h>
#include <repdl/linear.h>
#include <repdl/linear_pack.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "../common/splitmix64.h"
#include "gemm_ref.h"

#define BATCH 64

static splitmix64 rng = {0x6a09e667f3bcc908ull};
static uint64_t rnd(void) { return splitmix64_next(&rng); }

/* kind 0: values in (-2, 2), random low bits; kind 1: kind 0 with +-0,
   subnormals, huge values, +-inf and NaN payloads (1 in 16 each class). */
static float gen_val(int kind)
{
    float v = asfloat((uint32_t)(rnd() & 0x807fffffu) | ((uint32_t)(120 + rnd() % 8) << 23));
    if (kind == 1) {
        switch (rnd() % 96) {
        case 0: return 0.0f;
        case 1: return -0.0f;
        case 2: return asfloat((uint32_t)(rnd() & 0x807fffffu));
        case 3: return asfloat(0x7f800000u | (uint32_t)(rnd() & 0x80000000u));
        case 4: return asfloat(0x7f800001u | (uint32_t)(rnd() & 0x803fffffu));
        case 5: return asfloat((uint32_t)(rnd() & 0x807fffffu) | (250u << 23));
        default: break;
        }
    }
    return v;
}
static float *gen_arr(size_t n, int kind)
{
    float *a = (float *)malloc((n ? n : 1) * sizeof(float));
    size_t i;
    for (i = 0; i < n; i++) a[i] = gen_val(kind);
    return a;
}

static long n_nan; /* NaN outputs seen (the specials reach the outputs) */

static long n_packed; /* packed forwards compared */

/* repdl_linear_forward_packed_f32 against want (the batch's rows), from a
   buffer at an offset of 0 or 1 float (64-byte aligned or not), with the
   cap exact; the floats past the packed size are never written. */
static void check_packed(size_t M, size_t K, size_t N, const float *x, const float *W,
                         const float *b, const float *want)
{
    size_t need = 0, off = (size_t)(rnd() & 1), i;
    float *buf, *y = (float *)malloc(M * N * sizeof(float) + 1);
    CHECK(repdl_linear_pack_size_f32(K, N, &need) == REPDL_OK, "pack size");
    CHECK(need == REPDL_LINEAR_PACK_HEADER + K * ((N + 15) / 16 * 16), "pack size K %zu N %zu",
          K, N);
    buf = (float *)malloc((need + off + 4) * sizeof(float));
    memset(buf, 0x5a, (need + off + 4) * sizeof(float));
    CHECK(repdl_linear_pack_f32(K, N, W, buf + off, need) == REPDL_OK, "pack");
    for (i = need + off; i < need + off + 4; i++)
        CHECK(asuint(buf[i]) == 0x5a5a5a5au, "pack wrote past its size");
    memset(y, 0x55, M * N * sizeof(float));
    CHECK(repdl_linear_forward_packed_f32(M, K, N, x, buf + off, b, y) == REPDL_OK, "packed");
    CHECK_SAME(y, want, M * N, "packed M %zu K %zu N %zu off %zu vs batch", M, K, N, off);
    n_packed++;
    free(buf); free(y);
}

/* M rows starting at row r0 of a batch of 64, against the batch, the
   reference and the threaded product. */
static void check_shape(size_t M, size_t K, size_t N, int kind, int with_bias)
{
    float *xb = gen_arr(BATCH * K, kind), *W = gen_arr(N * K, kind);
    float *b = with_bias ? gen_arr(N, kind) : NULL;
    float *yb = (float *)malloc(BATCH * N * sizeof(float));
    float *y = (float *)malloc(M * N * sizeof(float) + 1);
    float *yr = (float *)malloc(M * N * sizeof(float) + 1);
    size_t r0 = (size_t)(rnd() % (BATCH - M + 1)), i;
    int T;
    CHECK(repdl_linear_forward_f32(BATCH, K, N, xb, W, b, yb) == REPDL_OK, "batch");
    CHECK(repdl_linear_forward_f32(M, K, N, xb + r0 * K, W, b, y) == REPDL_OK, "rows");
    CHECK_SAME(y, yb + r0 * N, M * N, "M %zu K %zu N %zu kind %d bias %d vs batch", M, K, N,
               kind, with_bias);
    ref_linear_forward_f32(M, K, N, xb + r0 * K, W, b, yr);
    CHECK_SAME(y, yr, M * N, "M %zu K %zu N %zu kind %d bias %d vs reference", M, K, N, kind,
               with_bias);
    for (i = 0; i < M * N; i++)
        if (y[i] != y[i]) {
            n_nan++;
            CHECK(asuint(y[i]) == 0x7fc00000u, "NaN not canonical");
        }
    check_packed(M, K, N, xb + r0 * K, W, b, yb + r0 * N);
    for (T = 1; T <= 3; T++) {
        memset(y, 0x55, M * N * sizeof(float));
        repdl_gemm_threads_f32(0, 1, M, N, K, T, 1.0f, 0.0f, xb + r0 * K, K, W, K, b, y, N);
        CHECK_SAME(y, yb + r0 * N, M * N, "M %zu K %zu N %zu threads %d", M, K, N, T);
    }
    free(xb); free(W); free(b); free(yb); free(y); free(yr);
}

/* repdl_gemm_f32(0, 1) with every leading dimension padded by pad. */
static void check_ld(size_t M, size_t K, size_t N, size_t pad)
{
    size_t lda = K + pad, ldb = K + pad, ldc = N + pad, i;
    float *A = gen_arr(M * lda, 1), *B = gen_arr(N * ldb, 1), *bias = gen_arr(N, 0);
    float *C = gen_arr(M * ldc, 0), *Cr = (float *)malloc(M * ldc * sizeof(float));
    memcpy(Cr, C, M * ldc * sizeof(float));
    CHECK(repdl_gemm_f32(0, 1, M, N, K, 1.0f, 0.0f, A, lda, B, ldb, bias, C, ldc) == REPDL_OK,
          "gemm");
    ref_gemm_f32(0, 1, M, N, K, 1.0f, A, lda, B, ldb, bias, 0.0f, Cr, ldc);
    for (i = 0; i < M; i++) /* the padding too: never written */
        CHECK_SAME(C + i * ldc, Cr + i * ldc, ldc, "ld M %zu K %zu N %zu pad %zu row %zu", M,
                   K, N, pad, i);
    free(A); free(B); free(bias); free(C); free(Cr);
}

int main(int argc, char **argv)
{
    int small = argc > 1 && strcmp(argv[1], "--small") == 0, it, kind;
    size_t M, K, N;
    /* every k tail and every partial output group, one row */
    for (K = 1; K <= 40; K++)
        for (N = 1; N <= 40; N++) check_shape(1, K, N, (int)((K + N) & 1), (int)(N & 1));
    for (M = 1; M <= 5; M++) {
        for (kind = 0; kind < 2; kind++) {
            check_shape(M, 1, 1, kind, 1);
            check_shape(M, 16, 16, kind, 0);
            check_shape(M, 23, 17, kind, 1);
            check_shape(M, 300, 129, kind, 1);
            check_shape(M, 257, 300, kind, 0);
            check_shape(M, 1031, 37, kind, 1); /* K > 1024: 16 rows at once (AVX-512) */
            check_shape(M, 1024, 37, kind, 0); /* rows 4 KiB apart: 16 rows at once */
        }
        for (it = 0; it < (small ? 10 : 40); it++) {
            size_t k = 1 + (size_t)(rnd() % 200), n = 1 + (size_t)(rnd() % 100);
            int kd = (int)(rnd() & 1);
            check_shape(M, k, n, kd, (int)(rnd() & 1));
        }
        check_ld(M, 37, 21, 3);
        check_ld(M, 64, 16, 5);
        check_ld(M, 1000, 40, 24); /* K < 1024, ld 1024: 16 rows at once */
    }
    if (!small) check_shape(1, 1000, 70, 0, 1); /* the K panels of the batch */
    /* the data reach inf - inf: NaN outputs were compared */
    CHECK(n_nan > 0, "no NaN output produced (%ld)", n_nan);
    /* every check_shape compared its packed forward */
    CHECK(n_packed == 40 * 40 + 5 * (14 + (small ? 10 : 40)) + !small,
          "packed forwards compared: %ld", n_packed);
    return check_summary("test_gemv");
}
