/* SPDX-License-Identifier: MIT */
/* tests/linalg/test_gemm.c: the matrix products of include/repdl/gemm.h,
   linear.h, conv2d.h and gemm_threads.h against the plain definitions of
   reference/gemm_ref.h, bit for bit (memcmp).

     test_gemm [--small]      (--small: the shape set of slow builds, e.g.
                               the software-fma one)

   Checks:
     - gemm: shapes built from {1, 7, 33, 1000} (and K across several K
       panels, N across several N panels), the four transA/transB, padded
       leading dimensions, alpha in {1, -0.75}, beta in {0, 1, 0.5}, bias
       or not; data with NaN payloads, +-inf, +-0, subnormals; K == 0;
       M or N == 0 with NULL pointers;
     - batch invariance: row i of an M = 512 product equals the M = 1
       product of row i, and likewise columns of N = 1 vs N = 512;
     - thread-count invariance: 1, 2, 3, 4, 7 threads, row and column cuts;
     - linear forward and backward;
     - conv2d forward and backward for several stride / pad / dilation
       combinations (kernel larger than the input with padding, stride
       larger than the kernel, 1x1, non-square), the argument checks;
     - a finite-difference check in double of the backward passes (a
       tolerance test of the formulas, separate from the bitwise ones). */
#define REPDL_GEMM_THREADS_MIN 0.0 /* the test wants threads even for small products */
#include <repdl/conv2d.h>
#include <repdl/gemm.h>
#include <repdl/gemm_threads.h>
#include <repdl/linear.h>
#include <repdl/reduce_units.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "../common/splitmix64.h"
#include "gemm_ref.h"

static int small_mode;

static splitmix64 rng = {0x243f6a8885a308d3ull};
static uint64_t rnd(void) { return splitmix64_next(&rng); }

/* kind 0: values in (-2, 2) with random low bits (every product inexact);
   kind 1: kind 0 plus +-0, subnormals, huge values, +-inf and NaNs with
   random payloads (1 in 16 each class). */
static float gen_val(int kind)
{
    float v = asfloat((uint32_t)(rnd() & 0x807fffffu) | ((uint32_t)(120 + rnd() % 8) << 23));
    if (kind == 1) {
        switch (rnd() % 96) {
        case 0: return 0.0f;
        case 1: return -0.0f;
        case 2: return asfloat((uint32_t)(rnd() & 0x807fffffu)); /* subnormal */
        case 3: return asfloat(0x7f800000u | (uint32_t)(rnd() & 0x80000000u)); /* +-inf */
        case 4: return asfloat(0x7f800001u | (uint32_t)(rnd() & 0x803fffffu)); /* NaN */
        case 5: return asfloat((uint32_t)(rnd() & 0x807fffffu) | (250u << 23)); /* huge */
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
static float *dup_arr(const float *a, size_t n)
{
    float *b = (float *)malloc((n ? n : 1) * sizeof(float));
    if (n) memcpy(b, a, n * sizeof(float));
    return b;
}

/* One gemm against the reference; pad adds to every leading dimension. */
static void check_gemm(int tA, int tB, size_t M, size_t N, size_t K, float alpha, float beta,
                       int with_bias, int kind, size_t pad)
{
    size_t lda = (tA ? M : K) + pad, ldb = (tB ? K : N) + pad, ldc = N + pad;
    size_t na = (tA ? K : M) * lda, nb = (tB ? N : K) * ldb, nc = M * ldc;
    float *A = gen_arr(na, kind), *B = gen_arr(nb, kind), *bias = gen_arr(N, kind);
    float *C = gen_arr(nc, kind), *R = dup_arr(C, nc);
    ref_gemm_f32(tA, tB, M, N, K, alpha, A, lda, B, ldb, with_bias ? bias : NULL, beta, R, ldc);
    repdl_gemm_f32(tA, tB, M, N, K, alpha, beta, A, lda, B, ldb, with_bias ? bias : NULL, C, ldc);
    CHECK_SAME(C, R, nc, "gemm tA=%d tB=%d M=%zu N=%zu K=%zu alpha=%g beta=%g bias=%d kind=%d pad=%zu",
               tA, tB, M, N, K, alpha, beta, with_bias, kind, pad);
    free(A); free(B); free(bias); free(C); free(R);
}

static void test_gemm_shapes(void)
{
    static const size_t dims[] = {1, 7, 33, 1000};
    static const float alphas[] = {1.0f, -0.75f}, betas[] = {0.0f, 1.0f, 0.5f};
    size_t a, b, c;
    int tA, tB, v = 0;
    double budget = small_mode ? 4e5 : 4e7; /* multiply-adds of one reference call */
    for (a = 0; a < 4; a++)
        for (b = 0; b < 4; b++)
            for (c = 0; c < 4; c++) {
                size_t M = dims[a], N = dims[b], K = dims[c];
                if ((double)M * N * K > budget) continue;
                for (tA = 0; tA < 2; tA++)
                    for (tB = 0; tB < 2; tB++) {
                        v++;
                        check_gemm(tA, tB, M, N, K, alphas[v % 2], betas[v % 3], v % 4 != 0,
                                   v % 2, (size_t)(v % 3));
                    }
            }
    /* K across several panels (chain continuation; with beta != 0 the
       partial-chain store), N across several column panels, M across
       several row blocks, edge tiles in every direction */
    for (tA = 0; tA < 2; tA++)
        for (tB = 0; tB < 2; tB++) {
            check_gemm(tA, tB, 13, 37, small_mode ? 600 : 1300, 1.0f, 0.0f, 1, 1, 1);
            check_gemm(tA, tB, 13, 37, small_mode ? 600 : 1300, -0.75f, 0.5f, 1, 1, 0);
            check_gemm(tA, tB, 11, 40, 513, 1.0f, 1.0f, 0, 0, 2);
            if (!small_mode) {
                check_gemm(tA, tB, 3, 4200, 300, 1.0f, 0.5f, 1, 0, 0);
                check_gemm(tA, tB, 301, 95, 260, 2.0f, 0.0f, 1, 1, 3);
            } else {
                check_gemm(tA, tB, 2, 2100, 20, 1.0f, 0.5f, 1, 0, 0);
                check_gemm(tA, tB, 150, 19, 20, 2.0f, 0.0f, 1, 1, 3);
            }
        }
    /* every small shape */
    for (a = 1; a <= 13; a += 3)
        for (b = 1; b <= 40; b += 3)
            for (c = 0; c <= 9; c += 3) check_gemm((int)(a & 1), (int)(b & 1), a, b, c, 1.0f, 0.5f, 1, 1, 0);
}

/* K == 0, M or N == 0 with NULL, and directed values. */
static void test_gemm_edges(void)
{
    float bias[3] = {1.5f, -0.0f, asfloat(0x7f800123u)}, C[6], R[6], Cs[6];
    size_t i;
    /* K == 0: A, B NULL, C = alpha * bias (or -0), then beta */
    for (i = 0; i < 6; i++) C[i] = R[i] = (float)i - 2.5f;
    ref_gemm_f32(0, 0, 2, 3, 0, -2.0f, NULL, 1, NULL, 3, bias, 0.5f, R, 3);
    repdl_gemm_f32(0, 0, 2, 3, 0, -2.0f, 0.5f, NULL, 1, NULL, 3, bias, C, 3);
    CHECK_SAME(C, R, 6, "K == 0 with bias");
    CHECK(asuint(C[2]) == 0x7fc00000u, "canonical NaN from a NaN bias: 0x%08x", asuint(C[2]));
    for (i = 0; i < 6; i++) C[i] = 7.0f;
    repdl_gemm_f32(1, 1, 2, 3, 0, 1.0f, 0.0f, NULL, 1, NULL, 1, NULL, C, 3);
    for (i = 0; i < 6; i++) CHECK(asuint(C[i]) == 0x80000000u, "K == 0, no bias, beta 0: -0 (%zu)", i);
    /* M == 0 or N == 0: nothing touched, NULL everywhere */
    for (i = 0; i < 6; i++) Cs[i] = C[i] = (float)i;
    repdl_gemm_f32(0, 0, 0, 3, 5, 1.0f, 1.0f, NULL, 5, NULL, 3, NULL, NULL, 3);
    repdl_gemm_f32(0, 0, 2, 0, 5, 1.0f, 1.0f, NULL, 5, NULL, 0, NULL, C, 3);
    repdl_gemm_threads_f32(0, 0, 0, 0, 5, 3, 1.0f, 1.0f, NULL, 5, NULL, 0, NULL, NULL, 3);
    CHECK_SAME(C, Cs, 6, "N == 0 wrote C");
    /* beta == 0: C_old not read (NaN in C must not leak) */
    {
        float A[2] = {1.0f, 2.0f}, B[2] = {3.0f, -0.5f}, D[1] = {asfloat(0x7fc00001u)};
        repdl_gemm_f32(0, 0, 1, 1, 2, 1.0f, 0.0f, A, 2, B, 1, NULL, D, 1);
        CHECK(D[0] == 2.0f, "beta 0 read C: %a", D[0]);
        /* -0 results: (-0) * x chain from -0 stays -0 */
        A[0] = -0.0f; A[1] = 0.0f; B[0] = 1.0f; B[1] = -1.0f;
        repdl_gemm_f32(0, 0, 1, 1, 2, 1.0f, 0.0f, A, 2, B, 1, NULL, D, 1);
        CHECK(asuint(D[0]) == 0x80000000u, "-0 chain: 0x%08x", asuint(D[0]));
        /* 0 * inf = NaN, canonical */
        A[0] = 0.0f; B[0] = asfloat(0x7f800000u);
        repdl_gemm_f32(0, 0, 1, 1, 2, 1.0f, 0.0f, A, 2, B, 1, NULL, D, 1);
        CHECK(asuint(D[0]) == 0x7fc00000u, "0 * inf: 0x%08x", asuint(D[0]));
    }
    /* the chain is fused: -(1 + 2^-22) + (1 + 2^-23)^2 = 2^-46 exactly
       with fma, 0 with a rounded product */
    {
        float A[2], B[2], D[1];
        A[0] = 1.0f; B[0] = -asfloat(0x3f800002u);
        A[1] = asfloat(0x3f800001u); B[1] = asfloat(0x3f800001u);
        repdl_gemm_f32(0, 0, 1, 1, 2, 1.0f, 0.0f, A, 2, B, 1, NULL, D, 1);
        CHECK(asuint(D[0]) == 0x28800000u, "fma chain: got %a want 0x1p-46", D[0]);
    }
}

/* Row i of an M = 512 product equals the M = 1 product of row i; column j
   of an N = 512 product equals the N = 1 product of column j. */
static void test_batch_invariance(void)
{
    size_t K = small_mode ? 70 : 300, N = 40, M = 512, i, j, k;
    float *A = gen_arr(M * K, 1), *B = gen_arr(K * M, 1), *bias = gen_arr(M, 1);
    float *C = gen_arr(M * M, 0), *row = gen_arr(M, 0), *Bc = gen_arr(K, 0);
    repdl_gemm_f32(0, 0, M, N, K, 1.0f, 0.0f, A, K, B, N, bias, C, N);
    for (i = 0; i < M; i += 37) {
        repdl_gemm_f32(0, 0, 1, N, K, 1.0f, 0.0f, A + i * K, K, B, N, bias, row, N);
        CHECK_SAME(row, C + i * N, N, "batch invariance row %zu", i);
    }
    /* columns: C = A[0:3] B, N = 512; then N = 1 with column j of B */
    repdl_gemm_f32(0, 0, 3, M, K, 0.5f, 0.0f, A, K, B, M, bias, C, M);
    for (j = 0; j < M; j += 41) {
        float col[3], want[3];
        for (k = 0; k < K; k++) Bc[k] = B[k * M + j];
        repdl_gemm_f32(0, 0, 3, 1, K, 0.5f, 0.0f, A, K, Bc, 1, bias + j, col, 1);
        for (i = 0; i < 3; i++) want[i] = C[i * M + j];
        CHECK_SAME(col, want, 3, "batch invariance column %zu", j);
    }
    free(A); free(B); free(bias); free(C); free(row); free(Bc);
}

static void test_threads(void)
{
    static const int counts[] = {1, 2, 3, 4, 7};
    static const size_t shapes[][3] = {{200, 150, 300}, {1, 1000, 100}, {500, 9, 40}, {97, 97, 600}};
    size_t s;
    int t, tA, tB;
    for (s = 0; s < 4; s++) {
        size_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        if (small_mode) K = K / 10 + 1;
        for (tA = 0; tA < 2; tA++)
            for (tB = 0; tB < 2; tB++) {
                size_t lda = tA ? M : K, ldb = tB ? K : N;
                float *A = gen_arr(M * K, 1), *B = gen_arr(K * N, 1), *bias = gen_arr(N, 1);
                float *C0 = gen_arr(M * N, 0), *R = dup_arr(C0, M * N), *C = gen_arr(M * N, 0);
                float beta = (tA + tB) == 1 ? 0.5f : 0.0f;
                ref_gemm_f32(tA, tB, M, N, K, 1.0f, A, lda, B, ldb, bias, beta, R, N);
                for (t = 0; t < 5; t++) {
                    memcpy(C, C0, M * N * sizeof(float));
                    CHECK(repdl_gemm_threads_f32(tA, tB, M, N, K, counts[t], 1.0f, beta, A, lda, B,
                                                 ldb, bias, C, N) == 0, "threads rc");
                    CHECK_SAME(C, R, M * N, "threads=%d M=%zu N=%zu K=%zu tA=%d tB=%d",
                               counts[t], M, N, K, tA, tB);
                }
                free(A); free(B); free(bias); free(C0); free(R); free(C);
            }
    }
}

static void test_linear(void)
{
    /* M: one micro-batch (1, 7, 16), several with a short last one (17, 33,
       100), a power of two (64), and 0 */
    static const size_t shapes[][3] = {{1, 7, 33},  {33, 1000, 7}, {64, 784, 100}, {7, 1, 1},
                                       {0, 5, 3},   {5, 0, 3},     {16, 9, 5},     {17, 9, 5},
                                       {100, 3, 13}, {257, 2, 3},
                                       /* dW's tile trees: N past one A block (MC
                                          144) and K past one B panel (512 at M
                                          64) with short edges; 22 micro-batches,
                                          the groups 16 + 4 + 2, the last short */
                                       {48, 40, 300}, {64, 1100, 9}, {350, 37, 11}};
    size_t s;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t M = shapes[s][0], K = shapes[s][1], N = shapes[s][2];
        float *x, *W, *b, *dy, *y, *yr, *dx, *dxr, *dW, *dWr, *db, *dbr;
        if (small_mode && M * N * K > 100000) continue;
        x = gen_arr(M * K, (int)(s & 1)); W = gen_arr(N * K, 1); b = gen_arr(N, 0);
        dy = gen_arr(M * N, (int)(s & 1));
        y = gen_arr(M * N, 0); yr = gen_arr(M * N, 0);
        dx = gen_arr(M * K, 0); dxr = gen_arr(M * K, 0); dW = gen_arr(N * K, 0);
        dWr = gen_arr(N * K, 0); db = gen_arr(N, 0); dbr = gen_arr(N, 0);
        repdl_linear_forward_f32(M, K, N, x, W, b, y);
        ref_linear_forward_f32(M, K, N, x, W, b, yr);
        CHECK_SAME(y, yr, M * N, "linear forward %zu %zu %zu", M, K, N);
        repdl_linear_forward_f32(M, K, N, x, W, NULL, y);
        ref_linear_forward_f32(M, K, N, x, W, NULL, yr);
        CHECK_SAME(y, yr, M * N, "linear forward, no bias %zu %zu %zu", M, K, N);
        repdl_linear_backward_f32(M, K, N, x, W, dy, dx, dW, db);
        ref_linear_backward_f32(M, K, N, x, W, dy, dxr, dWr, dbr);
        CHECK_SAME(dx, dxr, M * K, "linear dx %zu %zu %zu", M, K, N);
        CHECK_SAME(dW, dWr, N * K, "linear dW %zu %zu %zu", M, K, N);
        CHECK_SAME(db, dbr, N, "linear db %zu %zu %zu", M, K, N);
        repdl_linear_backward_f32(M, K, N, x, W, dy, NULL, NULL, db); /* NULL: skipped */
        CHECK_SAME(db, dbr, N, "linear db alone");
        free(x); free(W); free(b); free(dy); free(y); free(yr); free(dx); free(dxr);
        free(dW); free(dWr); free(db); free(dbr);
    }
}

/* dW's tile trees start each micro-batch's chain at -0: dy = -0 against
   x = 1 gives products -0, a chain of -0 and a tree of -0 (from +0: +0);
   the same with y's chains from -0 (no bias, x = -0).  And the fallback
   of dW when its scratch cannot be had (repdl__linear_dw_plain_f32) gives
   the tiles' bits: the root, and a group's node (canon 0) against the
   tree of the group alone. */
static void test_linear_directed(void)
{
    static const size_t shapes[][3] = {{40, 33, 7}, {16, 5, 40}, {350, 37, 11}};
    size_t s, i;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t M = shapes[s][0], K = shapes[s][1], N = shapes[s][2];
        float *x = gen_arr(M * K, 0), *W = gen_arr(N * K, 0), *dy = gen_arr(M * N, 1);
        float *y = gen_arr(M * N, 0), *dW = gen_arr(N * K, 0), *dWr = gen_arr(N * K, 0);
        float *dWp = gen_arr(N * K, 0), *yr = gen_arr(M * N, 0);
        ref_linear_backward_f32(M, K, N, x, W, dy, NULL, dWr, NULL);
        repdl__linear_dw_plain_f32(M, K, N, x, dy, 1, dWp);
        CHECK_SAME(dWp, dWr, N * K, "dW plain fallback %zu %zu %zu", M, K, N);
        if (M > 256) { /* the first group of 16 micro-batches: its node */
            ref_linear_backward_f32(256, K, N, x, W, dy, NULL, dWr, NULL);
            repdl__linear_dw_plain_f32(256, K, N, x, dy, 0, dWp);
            repdl__linear_dw_f32(256, K, N, x, dy, 0, dW);
            for (i = 0; i < N * K; i++) dWp[i] = repdl__canon(dWp[i]);
            CHECK_SAME(dWp, dWr, N * K, "dW plain node %zu %zu", K, N);
            for (i = 0; i < N * K; i++) dW[i] = repdl__canon(dW[i]);
            CHECK_SAME(dW, dWr, N * K, "dW tile node %zu %zu", K, N);
        }
        for (i = 0; i < M * N; i++) dy[i] = -0.0f;
        for (i = 0; i < M * K; i++) x[i] = 1.0f;
        repdl_linear_backward_f32(M, K, N, x, W, dy, NULL, dW, NULL);
        for (i = 0; i < N * K; i++)
            if (asuint(dW[i]) != 0x80000000u) break;
        CHECK(i == N * K, "dW of -0 products: 0x%08x at %zu (%zu %zu %zu)",
              i < N * K ? asuint(dW[i]) : 0u, i, M, K, N);
        for (i = 0; i < M * K; i++) x[i] = -0.0f;
        for (i = 0; i < N * K; i++) W[i] = 1.0f;
        repdl_linear_forward_f32(M, K, N, x, W, NULL, y);
        ref_linear_forward_f32(M, K, N, x, W, NULL, yr);
        CHECK_SAME(y, yr, M * N, "y of -0 products %zu %zu %zu", M, K, N);
        for (i = 0; i < M * N; i++)
            if (asuint(y[i]) != 0x80000000u) break;
        CHECK(i == M * N, "y of -0 products: not -0 at %zu", i);
        free(x); free(W); free(dy); free(y); free(dW); free(dWr); free(dWp); free(yr);
    }
}

/* ---- conv2d ---- */
static ref_conv_shape to_ref(const repdl_conv2d_shape *s)
{
    ref_conv_shape r;
    r.n = s->n; r.c = s->c; r.h = s->h; r.w = s->w; r.oc = s->oc; r.kh = s->kh; r.kw = s->kw;
    r.sh = s->stride_h; r.sw = s->stride_w; r.ph = s->pad_h; r.pw = s->pad_w;
    r.dh = s->dil_h; r.dw = s->dil_w;
    return r;
}

static void check_conv(repdl_conv2d_shape s, int kind)
{
    ref_conv_shape r = to_ref(&s);
    size_t oh = repdl_conv2d_out_h(&s), ow = repdl_conv2d_out_w(&s);
    size_t nx = s.n * s.c * s.h * s.w, nw = s.oc * s.c * s.kh * s.kw, ny = s.n * s.oc * oh * ow;
    float *x = gen_arr(nx, kind), *w = gen_arr(nw, kind), *b = gen_arr(s.oc, kind);
    float *dy = gen_arr(ny, kind), *y = gen_arr(ny, 0), *yr = gen_arr(ny, 0);
    float *dx = gen_arr(nx, 0), *dxr = gen_arr(nx, 0), *dw = gen_arr(nw, 0), *dwr = gen_arr(nw, 0);
    float *db = gen_arr(s.oc, 0), *dbr = gen_arr(s.oc, 0);
    CHECK(oh == ref_conv_out(s.h, s.kh, s.stride_h, s.pad_h, s.dil_h) &&
              ow == ref_conv_out(s.w, s.kw, s.stride_w, s.pad_w, s.dil_w), "out size");
    CHECK(repdl_conv2d_forward_f32(&s, x, w, b, y) == 0, "forward rc");
    ref_conv2d_forward_f32(&r, x, w, b, yr);
    CHECK_SAME(y, yr, ny, "conv fwd n%zu c%zu %zux%zu oc%zu k%zux%zu s%zu,%zu p%zu,%zu d%zu,%zu kind %d",
               s.n, s.c, s.h, s.w, s.oc, s.kh, s.kw, s.stride_h, s.stride_w, s.pad_h, s.pad_w,
               s.dil_h, s.dil_w, kind);
    CHECK(repdl_conv2d_forward_f32(&s, x, w, NULL, y) == 0, "forward rc");
    ref_conv2d_forward_f32(&r, x, w, NULL, yr);
    CHECK_SAME(y, yr, ny, "conv fwd no bias k%zux%zu", s.kh, s.kw);
    CHECK(repdl_conv2d_backward_f32(&s, x, w, dy, dx, dw, db) == 0, "backward rc");
    ref_conv2d_backward_f32(&r, x, w, dy, dxr, dwr, dbr);
    CHECK_SAME(dx, dxr, nx, "conv dx n%zu c%zu %zux%zu oc%zu k%zux%zu s%zu,%zu p%zu,%zu d%zu,%zu",
               s.n, s.c, s.h, s.w, s.oc, s.kh, s.kw, s.stride_h, s.stride_w, s.pad_h, s.pad_w,
               s.dil_h, s.dil_w);
    CHECK_SAME(dw, dwr, nw, "conv dw n%zu c%zu %zux%zu oc%zu k%zux%zu s%zu,%zu p%zu,%zu d%zu,%zu",
               s.n, s.c, s.h, s.w, s.oc, s.kh, s.kw, s.stride_h, s.stride_w, s.pad_h, s.pad_w,
               s.dil_h, s.dil_w);
    CHECK_SAME(db, dbr, s.oc, "conv db");
    /* each output alone (NULL skips the others) */
    CHECK(repdl_conv2d_backward_f32(&s, x, w, dy, NULL, dw, NULL) == 0, "backward rc");
    CHECK_SAME(dw, dwr, nw, "conv dw alone");
    CHECK(repdl_conv2d_backward_f32(&s, x, w, dy, dx, NULL, NULL) == 0, "backward rc");
    CHECK_SAME(dx, dxr, nx, "conv dx alone");
    free(x); free(w); free(b); free(dy); free(y); free(yr); free(dx); free(dxr); free(dw);
    free(dwr); free(db); free(dbr);
}

static repdl_conv2d_shape cs(size_t n, size_t c, size_t h, size_t w, size_t oc, size_t kh,
                             size_t kw, size_t sh, size_t sw, size_t ph, size_t pw, size_t dh,
                             size_t dw)
{
    repdl_conv2d_shape s;
    s.n = n; s.c = c; s.h = h; s.w = w; s.oc = oc; s.kh = kh; s.kw = kw;
    s.stride_h = sh; s.stride_w = sw; s.pad_h = ph; s.pad_w = pw; s.dil_h = dh; s.dil_w = dw;
    return s;
}

static void test_conv(void)
{
    repdl_conv2d_shape s;
    float one = 1.0f;
    check_conv(cs(2, 3, 9, 9, 4, 3, 3, 1, 1, 1, 1, 1, 1), 1);     /* same padding */
    check_conv(cs(3, 2, 8, 11, 5, 3, 2, 2, 3, 1, 0, 1, 1), 1);    /* strides, non-square */
    check_conv(cs(2, 2, 9, 9, 3, 3, 3, 1, 2, 2, 1, 2, 3), 1);     /* dilation */
    check_conv(cs(2, 2, 3, 3, 3, 5, 5, 1, 1, 2, 2, 1, 1), 0);     /* kernel > input, padded */
    check_conv(cs(2, 2, 10, 10, 3, 2, 2, 4, 3, 0, 1, 1, 1), 1);   /* stride > kernel */
    check_conv(cs(1, 4, 5, 6, 7, 1, 1, 1, 1, 0, 0, 1, 1), 0);     /* 1x1 */
    check_conv(cs(2, 1, 4, 4, 2, 7, 7, 1, 1, 3, 3, 1, 1), 1);     /* kernel 7, input 4 */
    check_conv(cs(1, 1, 5, 5, 1, 3, 3, 1, 1, 0, 0, 1, 1), 0);
    check_conv(cs(4, 1, 28, 28, 6, 5, 5, 1, 1, 2, 2, 1, 1), 0);   /* LeNet conv1 */
    /* batches of several micro-batches, the last one short */
    check_conv(cs(17, 2, 5, 5, 3, 3, 3, 1, 1, 1, 1, 1, 1), 1);
    check_conv(cs(40, 1, 4, 6, 2, 2, 3, 1, 2, 0, 1, 1, 1), 0);
    check_conv(cs(70, 2, 3, 3, 2, 3, 3, 1, 1, 1, 1, 1, 1), 1);
    if (!small_mode) {
        check_conv(cs(2, 6, 14, 14, 16, 5, 5, 1, 1, 0, 0, 1, 1), 1); /* LeNet conv2 */
        check_conv(cs(2, 20, 9, 9, 40, 3, 3, 1, 1, 1, 1, 1, 1), 1);  /* CK = 180, OC > MR */
        check_conv(cs(1, 40, 20, 20, 8, 3, 3, 2, 2, 1, 1, 1, 1), 1); /* CK = 360 > KC */
    }
    /* output empty (kernel larger than the padded input): y nothing,
       dx = -0, dw = -0, db = -0 */
    {
        float x[4] = {1, 2, 3, 4}, w[9], dx[4], dw[9], db[1];
        size_t i;
        for (i = 0; i < 9; i++) w[i] = 1.0f;
        s = cs(1, 1, 2, 2, 1, 3, 3, 1, 1, 0, 0, 1, 1);
        CHECK(repdl_conv2d_out_h(&s) == 0, "empty output");
        CHECK(repdl_conv2d_forward_f32(&s, x, w, NULL, NULL) == 0, "empty forward");
        CHECK(repdl_conv2d_backward_f32(&s, x, w, NULL, dx, dw, db) == 0, "empty backward");
        for (i = 0; i < 4; i++) CHECK(asuint(dx[i]) == 0x80000000u, "dx -0");
        for (i = 0; i < 9; i++) CHECK(asuint(dw[i]) == 0x80000000u, "dw -0");
        CHECK(asuint(db[0]) == 0x80000000u, "db -0");
    }
    /* bad arguments */
    s = cs(1, 1, 3, 3, 1, 3, 3, 0, 1, 0, 0, 1, 1);
    CHECK(repdl_conv2d_forward_f32(&s, &one, &one, NULL, &one) == -1, "stride 0");
    s = cs(1, 1, 3, 3, 1, 3, 3, 1, 1, 0, 0, 1, 0);
    CHECK(repdl_conv2d_backward_f32(&s, &one, &one, &one, NULL, NULL, NULL) == -1, "dil 0");
    s = cs(1, 1, 3, 3, 1, 0, 3, 1, 1, 0, 0, 1, 1);
    CHECK(repdl_conv2d_forward_f32(&s, &one, &one, NULL, &one) == -1, "kernel 0");
    CHECK(repdl_conv2d_forward_f32(NULL, &one, &one, NULL, &one) == -1, "shape NULL");
    s = cs(1, 1, 3, 3, 1, 1, 1, 1, 1, 0, 0, 1, 1);
    CHECK(repdl_conv2d_forward_f32(&s, NULL, &one, NULL, &one) == -1, "x NULL");
    /* n == 0: nothing read; dw = -0, db = -0 */
    {
        float dw[1] = {5.0f}, db[1] = {5.0f};
        s = cs(0, 1, 3, 3, 1, 1, 1, 1, 1, 0, 0, 1, 1);
        CHECK(repdl_conv2d_forward_f32(&s, NULL, NULL, NULL, NULL) == 0, "n 0 forward");
        CHECK(repdl_conv2d_backward_f32(&s, NULL, &one, NULL, NULL, dw, db) == 0, "n 0 backward");
        CHECK(asuint(dw[0]) == 0x80000000u && asuint(db[0]) == 0x80000000u, "n 0 dw db -0");
    }
}

/* ---- Finite differences in double: the backward passes are the
   gradients of L = sum(dy * y) (tolerance test of the formulas). ---- */
static double conv_loss_d(const repdl_conv2d_shape *s, const double *x, const double *w,
                          const double *b, const float *dy)
{
    size_t oh = repdl_conv2d_out_h(s), ow = repdl_conv2d_out_w(s);
    size_t n, o, p, q, c, r, t;
    double L = 0.0;
    for (n = 0; n < s->n; n++)
        for (o = 0; o < s->oc; o++)
            for (p = 0; p < oh; p++)
                for (q = 0; q < ow; q++) {
                    double acc = b[o];
                    for (c = 0; c < s->c; c++)
                        for (r = 0; r < s->kh; r++)
                            for (t = 0; t < s->kw; t++) {
                                long ih = (long)(p * s->stride_h + r * s->dil_h) - (long)s->pad_h;
                                long iw = (long)(q * s->stride_w + t * s->dil_w) - (long)s->pad_w;
                                if (ih < 0 || iw < 0 || ih >= (long)s->h || iw >= (long)s->w) continue;
                                acc += w[((o * s->c + c) * s->kh + r) * s->kw + t] *
                                       x[((n * s->c + c) * s->h + (size_t)ih) * s->w + (size_t)iw];
                            }
                    L += acc * (double)dy[((n * s->oc + o) * oh + p) * ow + q];
                }
    return L;
}

static void fd_check(const char *what, double *v, size_t n, float got_grad_of(size_t),
                     double (*loss)(void), size_t step)
{
    size_t i;
    for (i = 0; i < n; i += step) {
        double keep = v[i], h = 1e-3, lp, lm, g, want;
        v[i] = keep + h; lp = loss();
        v[i] = keep - h; lm = loss();
        v[i] = keep;
        want = (lp - lm) / (2 * h);
        g = got_grad_of(i);
        CHECK(fabs(g - want) <= 1e-4 * (1.0 + fabs(want)), "%s[%zu]: %.9g vs fd %.9g", what, i, g, want);
    }
}

static repdl_conv2d_shape fd_s;
static double *fd_x, *fd_w, *fd_b;
static float *fd_dy, *fd_gx, *fd_gw, *fd_gb;
static double fd_conv_loss(void) { return conv_loss_d(&fd_s, fd_x, fd_w, fd_b, fd_dy); }
static float fd_gx_at(size_t i) { return fd_gx[i]; }
static float fd_gw_at(size_t i) { return fd_gw[i]; }
static float fd_gb_at(size_t i) { return fd_gb[i]; }

static void test_fd_conv(repdl_conv2d_shape s)
{
    size_t oh = repdl_conv2d_out_h(&s), ow = repdl_conv2d_out_w(&s);
    size_t nx = s.n * s.c * s.h * s.w, nw = s.oc * s.c * s.kh * s.kw, ny = s.n * s.oc * oh * ow, i;
    float *x = gen_arr(nx, 0), *w = gen_arr(nw, 0), *b = gen_arr(s.oc, 0);
    fd_s = s;
    fd_dy = gen_arr(ny, 0);
    fd_gx = gen_arr(nx, 0); fd_gw = gen_arr(nw, 0); fd_gb = gen_arr(s.oc, 0);
    fd_x = (double *)malloc(nx * sizeof(double));
    fd_w = (double *)malloc(nw * sizeof(double));
    fd_b = (double *)malloc(s.oc * sizeof(double));
    for (i = 0; i < nx; i++) fd_x[i] = x[i];
    for (i = 0; i < nw; i++) fd_w[i] = w[i];
    for (i = 0; i < s.oc; i++) fd_b[i] = b[i];
    CHECK(repdl_conv2d_backward_f32(&s, x, w, fd_dy, fd_gx, fd_gw, fd_gb) == 0, "fd backward");
    fd_check("conv dx", fd_x, nx, fd_gx_at, fd_conv_loss, 3);
    fd_check("conv dw", fd_w, nw, fd_gw_at, fd_conv_loss, 2);
    fd_check("conv db", fd_b, s.oc, fd_gb_at, fd_conv_loss, 1);
    free(x); free(w); free(b); free(fd_dy); free(fd_gx); free(fd_gw); free(fd_gb);
    free(fd_x); free(fd_w); free(fd_b);
}

/* linear as a 1x1 convolution of a 1x1 image: x [M x K] = [n][c], W =
   [oc][c], y [M x N] = [n][oc]; the same loss in double. */
static void test_fd_linear(size_t M, size_t K, size_t N)
{
    repdl_conv2d_shape s = cs(M, K, 1, 1, N, 1, 1, 1, 1, 0, 0, 1, 1);
    float *x = gen_arr(M * K, 0), *W = gen_arr(N * K, 0);
    size_t i;
    fd_s = s;
    fd_dy = gen_arr(M * N, 0);
    fd_gx = gen_arr(M * K, 0); fd_gw = gen_arr(N * K, 0); fd_gb = gen_arr(N, 0);
    fd_x = (double *)malloc(M * K * sizeof(double));
    fd_w = (double *)malloc(N * K * sizeof(double));
    fd_b = (double *)calloc(N, sizeof(double));
    for (i = 0; i < M * K; i++) fd_x[i] = x[i];
    for (i = 0; i < N * K; i++) fd_w[i] = W[i];
    repdl_linear_backward_f32(M, K, N, x, W, fd_dy, fd_gx, fd_gw, fd_gb);
    fd_check("linear dx", fd_x, M * K, fd_gx_at, fd_conv_loss, 1);
    fd_check("linear dW", fd_w, N * K, fd_gw_at, fd_conv_loss, 1);
    fd_check("linear db", fd_b, N, fd_gb_at, fd_conv_loss, 1);
    free(x); free(W); free(fd_dy); free(fd_gx); free(fd_gw); free(fd_gb);
    free(fd_x); free(fd_w); free(fd_b);
}


/* ---- the batch order, split ----
   Linear and conv2d on a batch of G micro-batches: each micro-batch's
   gradient (dW|db, dw|db: the call on its samples alone) is one unit
   vector; for every split of [0, G) into 4 contiguous ranges (all cut
   points, empty ranges included), each range's node vectors are built on
   its own thread (repdl_units_nodes_f32), then repdl_units_combine_f32:
   the result equals the one call on the whole batch, bit for bit.  And 1
   to 4 threads each taking whole micro-batches the same way. */
typedef struct split_job {
    size_t U, u0, u1, V;
    const float *units;
    float *nodes;
    int rc;
} split_job;

static void *split_run(void *p)
{
    split_job *j = (split_job *)p;
    j->rc = repdl_units_nodes_f32(j->U, j->u0, j->u1, j->V, j->units + j->u0 * j->V, j->V,
                                  j->nodes);
    return NULL;
}

/* Combines the unit vectors units[U][V] over the ranges bounds[0..P]
   (each on its own thread) into out. */
static int split_combine(size_t U, size_t P, const size_t *bounds, size_t V, const float *units,
                         float *out)
{
    split_job job[4];
    pthread_t th[4];
    float *nodes[4];
    size_t p;
    int rc = 0;
    for (p = 0; p < P; p++) {
        size_t n = repdl_units_nodes(U, bounds[p], bounds[p + 1], 0, NULL);
        nodes[p] = (float *)malloc((n ? n : 1) * V * sizeof(float));
        job[p].U = U; job[p].u0 = bounds[p]; job[p].u1 = bounds[p + 1]; job[p].V = V;
        job[p].units = units; job[p].nodes = nodes[p]; job[p].rc = 0;
        if (pthread_create(&th[p], NULL, split_run, &job[p])) split_run(&job[p]), th[p] = 0;
    }
    for (p = 0; p < P; p++) {
        if (th[p]) pthread_join(th[p], NULL);
        rc |= job[p].rc;
    }
    rc |= repdl_units_combine_f32(U, P, bounds, V, (const float *const *)nodes, out);
    for (p = 0; p < P; p++) free(nodes[p]);
    return rc;
}

static void check_splits(size_t U, size_t V, const float *units, const float *want,
                         const char *what)
{
    float *out = (float *)malloc(V * sizeof(float));
    size_t a, b, c, T;
    for (a = 0; a <= U; a++)
        for (b = a; b <= U; b++)
            for (c = b; c <= U; c++) {
                size_t bounds[5];
                bounds[0] = 0; bounds[1] = a; bounds[2] = b; bounds[3] = c; bounds[4] = U;
                CHECK(split_combine(U, 4, bounds, V, units, out) == 0, "%s: combine rc", what);
                CHECK_SAME(out, want, V, "%s: split %zu %zu %zu of %zu micro-batches", what, a, b,
                           c, U);
            }
    for (T = 1; T <= 4; T++) { /* T threads, micro-batches [U t / T, U (t+1) / T) */
        size_t bounds[5], t;
        for (t = 0; t <= T; t++) bounds[t] = U * t / T;
        CHECK(split_combine(U, T, bounds, V, units, out) == 0, "%s: combine rc", what);
        CHECK_SAME(out, want, V, "%s: %zu threads", what, T);
    }
    free(out);
}

static void test_batch_split(void)
{
    /* linear: M = 70 rows (5 micro-batches, the last of 6), K = 9, N = 5 */
    {
        size_t M = 70, K = 9, N = 5, V = N * K + N, G = repdl__mb_count(M), g;
        float *x = gen_arr(M * K, 1), *W = gen_arr(N * K, 1), *dy = gen_arr(M * N, 1);
        float *want = gen_arr(V, 0), *units = gen_arr(G * V, 0);
        repdl_linear_backward_f32(M, K, N, x, W, dy, NULL, want, want + N * K);
        for (g = 0; g < G; g++) {
            size_t m0 = g * REPDL_MICROBATCH, len = M - m0 < REPDL_MICROBATCH ? M - m0 : REPDL_MICROBATCH;
            repdl_linear_backward_f32(len, K, N, x + m0 * K, W, dy + m0 * N, NULL, units + g * V,
                                      units + g * V + N * K);
        }
        check_splits(G, V, units, want, "linear dW|db");
        free(x); free(W); free(dy); free(want); free(units);
    }
    /* conv2d: 87 images (6 micro-batches, the last of 7) */
    {
        repdl_conv2d_shape s = cs(87, 2, 6, 5, 3, 3, 2, 1, 2, 1, 0, 1, 1), sg = s;
        size_t oh = repdl_conv2d_out_h(&s), ow = repdl_conv2d_out_w(&s), P = oh * ow;
        size_t in_sz = s.c * s.h * s.w, CK = s.c * s.kh * s.kw, V = s.oc * CK + s.oc;
        size_t G = repdl__mb_count(s.n), g;
        float *x = gen_arr(s.n * in_sz, 1), *w = gen_arr(s.oc * CK, 1);
        float *dy = gen_arr(s.n * s.oc * P, 1), *want = gen_arr(V, 0), *units = gen_arr(G * V, 0);
        CHECK(repdl_conv2d_backward_f32(&s, x, w, dy, NULL, want, want + s.oc * CK) == 0, "rc");
        for (g = 0; g < G; g++) {
            size_t i0 = g * REPDL_MICROBATCH;
            sg.n = s.n - i0 < REPDL_MICROBATCH ? s.n - i0 : REPDL_MICROBATCH;
            CHECK(repdl_conv2d_backward_f32(&sg, x + i0 * in_sz, w, dy + i0 * s.oc * P, NULL,
                                            units + g * V, units + g * V + s.oc * CK) == 0, "rc");
        }
        check_splits(G, V, units, want, "conv2d dw|db");
        free(x); free(w); free(dy); free(want); free(units);
    }
}

int main(int argc, char **argv)
{
    int i;
    for (i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--small")) small_mode = 1;
    if (!repdl_fpenv_ok(1.0f)) {
        printf("FAIL: flush-to-zero environment\n");
        return 1;
    }
    printf("kernel: %s (REPDL__HAVE_HW_FMA %d)%s\n",
           repdl__gemm_isa() == 2 ? "avx512f" : repdl__gemm_isa() == 1 ? "avx2+fma" : "portable",
           REPDL__HAVE_HW_FMA, small_mode ? ", small shape set" : "");
    test_gemm_edges();
    test_gemm_shapes();
    test_batch_invariance();
    test_threads();
    test_linear();
    test_linear_directed();
    test_conv();
    test_batch_split();
    test_fd_conv(cs(2, 2, 6, 7, 3, 3, 3, 2, 1, 1, 2, 1, 2));
    test_fd_conv(cs(1, 3, 5, 5, 2, 4, 4, 1, 1, 2, 2, 1, 1));
    test_fd_linear(3, 5, 4);
    return check_summary("test_gemm");
}
