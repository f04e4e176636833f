/* SPDX-License-Identifier: MIT */
/* bench/linalg/bench_gemm.c: repdl_gemm_f32 (and its threaded form) against
   OpenBLAS cblas_sgemm measured in the same run, and conv2d against the
   same work done as plain products (docs/bench-linalg.md).

     bench_gemm [--reps R] [--quick] [--threads T]
     bench_gemm --layers [--reps R]   (the linear layer's products, below)

   Every figure is the median of R >= 5 timed repetitions (after one
   warm-up).  GFLOP/s = 2 M N K / time.  ratio = repdl GFLOP/s / OpenBLAS
   GFLOP/s (> 1: repdl faster).  1 thread vs OpenBLAS with
   openblas_set_num_threads(1), then T threads vs T threads. */
#define _POSIX_C_SOURCE 200112L
#include <repdl/conv2d.h>
#include <repdl/gemm.h>
#include <repdl/gemm_threads.h>
#include <repdl/linear.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tests/common/timer.h"

#ifdef REPDL_BENCH_OPENBLAS
#include <cblas.h>
#endif
#ifndef REPDL_BENCH_FLAGS
#define REPDL_BENCH_FLAGS "?"
#endif

static int reps = 7;

static float *arr(size_t n)
{
    float *a = (float *)malloc((n ? n : 1) * sizeof(float));
    size_t i;
    uint32_t s = 12345u;
    for (i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        a[i] = (float)((int)(s >> 9) - (1 << 22)) * (1.0f / (1 << 22));
    }
    return a;
}

/* The kinds of call being timed. */
enum { R_GEMM, O_GEMM };
static double time_gemm(int who, int nth, int tA, int tB, size_t M, size_t N, size_t K,
                        const float *A, const float *B, float *C)
{
    double t[64];
    int r;
    size_t lda = tA ? M : K, ldb = tB ? K : N;
    for (r = -1; r < reps; r++) {
        double t0 = timer_now(TIMER_WALL);
        if (who == R_GEMM) {
            if (nth == 1)
                repdl_gemm_f32(tA, tB, M, N, K, 1.0f, 0.0f, A, lda, B, ldb, NULL, C, N);
            else
                repdl_gemm_threads_f32(tA, tB, M, N, K, nth, 1.0f, 0.0f, A, lda, B, ldb, NULL, C,
                                       N);
        }
#ifdef REPDL_BENCH_OPENBLAS
        else {
            openblas_set_num_threads(nth);
            cblas_sgemm(CblasRowMajor, tA ? CblasTrans : CblasNoTrans,
                        tB ? CblasTrans : CblasNoTrans, (int)M, (int)N, (int)K, 1.0f, A,
                        (int)lda, B, (int)ldb, 0.0f, C, (int)N);
        }
#endif
        if (r >= 0) t[r] = timer_now(TIMER_WALL) - t0;
    }
    return timer_median(t, reps);
}

static void row(const char *name, int tA, int tB, size_t M, size_t N, size_t K, int nth)
{
    float *A = arr(M * K), *B = arr(K * N), *C = arr(M * N);
    double flops = 2.0 * (double)M * (double)N * (double)K;
    double tr = time_gemm(R_GEMM, nth, tA, tB, M, N, K, A, B, C);
    printf("%-10s %c%c %5zu %5zu %5zu  %dT  repdl %7.1f GFLOP/s", name, tA ? 'T' : 'N',
           tB ? 'T' : 'N', M, N, K, nth, flops / tr * 1e-9);
#ifdef REPDL_BENCH_OPENBLAS
    {
        double to = time_gemm(O_GEMM, nth, tA, tB, M, N, K, A, B, C);
        printf("  openblas %7.1f GFLOP/s  ratio %.2f", flops / to * 1e-9, to / tr);
    }
#endif
    printf("\n");
    fflush(stdout);
    free(A); free(B); free(C);
}

/* conv2d forward / backward against the products it is made of: per image
   [OC x CK] . [CK x P] (forward), the two backward products likewise. */
static void conv_row(const char *name, size_t n, size_t c, size_t h, size_t w, size_t oc,
                     size_t k, size_t stride, size_t pad)
{
    repdl_conv2d_shape s;
    size_t oh, ow, P, CK, i;
    float *x, *wt, *b, *y, *dx, *dw, *db, *col;
    double tf[64], tb[64], tg[64], tgb[64], flops;
    int r;
    s.n = n; s.c = c; s.h = h; s.w = w; s.oc = oc; s.kh = k; s.kw = k;
    s.stride_h = s.stride_w = stride; s.pad_h = s.pad_w = pad; s.dil_h = s.dil_w = 1;
    oh = repdl_conv2d_out_h(&s); ow = repdl_conv2d_out_w(&s);
    P = oh * ow; CK = c * k * k;
    x = arr(n * c * h * w); wt = arr(oc * CK); b = arr(oc); y = arr(n * oc * P);
    dx = arr(n * c * h * w); dw = arr(oc * CK); db = arr(oc); col = arr(CK * P);
    flops = 2.0 * (double)n * (double)oc * (double)P * (double)CK;
    for (r = -1; r < reps; r++) {
        double t0 = timer_now(TIMER_WALL), t1, t2, t3, t4;
        repdl_conv2d_forward_f32(&s, x, wt, b, y);
        t1 = timer_now(TIMER_WALL);
        repdl_conv2d_backward_f32(&s, x, wt, y, dx, dw, db);
        t2 = timer_now(TIMER_WALL);
        for (i = 0; i < n; i++)
            repdl_gemm_f32(0, 0, oc, P, CK, 1.0f, 0.0f, wt, CK, col, P, NULL, y + i * oc * P, P);
        t3 = timer_now(TIMER_WALL);
        for (i = 0; i < n; i++) { /* dw-shaped and dx-shaped products */
            repdl_gemm_f32(0, 1, oc, CK, P, 1.0f, 0.0f, y + i * oc * P, P, col, P, NULL, dw, CK);
            repdl_gemm_f32(1, 0, CK, P, oc, 1.0f, 0.0f, wt, CK, y + i * oc * P, P, NULL, col, P);
        }
        t4 = timer_now(TIMER_WALL);
        if (r >= 0) { tf[r] = t1 - t0; tb[r] = t2 - t1; tg[r] = t3 - t2; tgb[r] = t4 - t3; }
    }
    {
        double mf = timer_median(tf, reps), mb = timer_median(tb, reps),
               mg = timer_median(tg, reps), mgb = timer_median(tgb, reps);
        printf("%-12s n%zu c%zu %zux%zu oc%zu k%zu s%zu p%zu: fwd %8.3f ms (%5.1f GFLOP/s) vs gemm %8.3f ms: x%.2f | "
               "bwd %8.3f ms vs 2 gemms %8.3f ms: x%.2f\n",
               name, n, c, h, w, oc, k, stride, pad, mf * 1e3, flops / mf * 1e-9, mg * 1e3,
               mf / mg, mb * 1e3, mgb * 1e3, mb / mgb);
    }
    fflush(stdout);
    free(x); free(wt); free(b); free(y); free(dx); free(dw); free(db); free(col);
}

/* --layers: the four products of a linear layer (repdl_linear_forward_f32
   and repdl_linear_backward_f32 with one output at a time) at the MLP's and
   the example GPT's shapes, against the same work by OpenBLAS (y: sgemm
   x W^T, dx: sgemm dy W, dW: sgemm dy^T x over the whole batch) and, for
   db, a plain column-sum loop.  Thread CPU time (CLOCK_THREAD_CPUTIME_ID),
   1 thread, median of reps timed blocks of >= 20 ms each.  ratio = repdl
   time / anchor time (< 1: repdl faster). */
enum { P_Y, P_DX, P_DW, P_DB };
static double time_part(int who, int part, size_t M, size_t K, size_t N, const float *x,
                        const float *W, const float *b, const float *dy, float *out)
{
    double t[64];
    int r;
    long it = 1, i;
    for (r = -2; r < reps; r++) {
        double t0, el;
        for (;;) {
            t0 = timer_now(TIMER_CPU);
            for (i = 0; i < it; i++) {
                if (who == R_GEMM) {
                    if (part == P_Y) repdl_linear_forward_f32(M, K, N, x, W, b, out);
                    else
                        repdl_linear_backward_f32(M, K, N, x, W, dy, part == P_DX ? out : NULL,
                                                  part == P_DW ? out : NULL,
                                                  part == P_DB ? out : NULL);
                }
#ifdef REPDL_BENCH_OPENBLAS
                else if (part == P_Y)
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, (int)N, (int)K,
                                1.0f, x, (int)K, W, (int)K, 0.0f, out, (int)N);
                else if (part == P_DX)
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)K,
                                (int)N, 1.0f, dy, (int)N, W, (int)K, 0.0f, out, (int)K);
                else if (part == P_DW)
                    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)N, (int)K, (int)M,
                                1.0f, dy, (int)N, x, (int)K, 0.0f, out, (int)K);
#endif
                else { /* plain column sums */
                    size_t m, n;
                    for (n = 0; n < N; n++) out[n] = 0.0f;
                    for (m = 0; m < M; m++)
                        for (n = 0; n < N; n++) out[n] += dy[m * N + n];
                }
            }
            el = timer_now(TIMER_CPU) - t0;
            if (r > -2 || el >= 0.02 || it > (1L << 24)) break;
            it *= 2;
        }
        if (r >= 0) t[r] = el / (double)it;
    }
    return timer_median(t, reps);
}

static void layer_rows(const char *name, size_t M, size_t K, size_t N)
{
    static const char *pn[] = {"y", "dx", "dW", "db"};
    float *x = arr(M * K), *W = arr(N * K), *b = arr(N), *dy = arr(M * N);
    float *out = arr((M > N ? M : N) * (K > N ? K : N));
    int p;
#ifdef REPDL_BENCH_OPENBLAS
    openblas_set_num_threads(1);
#endif
    for (p = 0; p < 4; p++) {
        double tr = time_part(R_GEMM, p, M, K, N, x, W, b, dy, out);
        double to = time_part(O_GEMM, p, M, K, N, x, W, b, dy, out);
        printf("%-6s %-3s M %4zu K %4zu N %4zu  repdl %8.2f us  %s %8.2f us  ratio %.2f\n", name,
               pn[p], M, K, N, tr * 1e6, p == P_DB ? "loop    " : "openblas", to * 1e6, tr / to);
        fflush(stdout);
    }
    free(x); free(W); free(b); free(dy); free(out);
}

static void layers(void)
{
    /* MLP 784-512-512-10 at batch 64; the example GPT (examples/train_gpt.c
       defaults: d_model 128, MLP 4x, vocabulary 256, one sequence of 128
       tokens a call) */
    static const size_t sh[][3] = {{64, 784, 512}, {64, 512, 512}, {64, 512, 10},
                                   {128, 128, 384}, {128, 128, 128}, {128, 128, 512},
                                   {128, 512, 128}, {128, 128, 256}};
    size_t i;
    for (i = 0; i < sizeof sh / sizeof sh[0]; i++)
        layer_rows(i < 3 ? "mlp" : "gpt", sh[i][0], sh[i][1], sh[i][2]);
}

int main(int argc, char **argv)
{
    static const size_t sq[] = {256, 512, 1024, 2048};
    static const size_t dlm[] = {1, 32, 128, 512};
    static const size_t dlkn[][2] = {{784, 1024}, {1024, 1024}, {4096, 4096}, {1024, 4096}};
    int quick = 0, nth = 2, do_layers = 0, i, j, t;
#ifdef REPDL_BENCH_OPENBLAS
    /* OpenBLAS's worker threads keep spinning on their cores after each
       call (Debian's build: 2^28 cycles, tens of milliseconds) waiting for
       more work; timed next, repdl's created thread finds the second core
       taken and runs after its caller, at 1 thread's speed (measured:
       0.35-0.56x OpenBLAS instead of 0.85-1.05x; docs/bench-scaling.md).
       OpenBLAS reads OPENBLAS_THREAD_TIMEOUT when it loads, before main:
       so unless it is set, set it to 4 (park at once) and run this
       program again. */
    if (!getenv("OPENBLAS_THREAD_TIMEOUT")) {
        setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1);
        execv("/proc/self/exe", argv);
        fprintf(stderr, "bench_gemm: could not re-run with OPENBLAS_THREAD_TIMEOUT=4\n");
    }
#endif
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) nth = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--layers")) do_layers = 1;
    }
    if (reps < 5) reps = 5;
    if (reps > 64) reps = 64;
    printf("bench_gemm: flags %s, kernel %s, median of %d reps, OPENBLAS_THREAD_TIMEOUT=%s\n",
           REPDL_BENCH_FLAGS,
           repdl__gemm_isa() == 2 ? "avx512f" : repdl__gemm_isa() == 1 ? "avx2+fma" : "portable",
           reps, getenv("OPENBLAS_THREAD_TIMEOUT") ? getenv("OPENBLAS_THREAD_TIMEOUT") : "unset");
    if (do_layers) {
        layers();
        return 0;
    }
    for (t = 0; t < 2; t++) {
        int T = t ? nth : 1;
        for (i = 0; i < 4; i++) {
            if (quick && sq[i] > 1024) continue;
            row("square", 0, 0, sq[i], sq[i], sq[i], T);
        }
        for (j = 0; j < 4; j++)
            for (i = 0; i < 4; i++) {
                if (quick && dlkn[j][0] == 4096) continue;
                /* DL shape: activations [M x K] times weights [N x K]^T (linear) */
                row("linear", 0, 1, dlm[i], dlkn[j][1], dlkn[j][0], T);
            }
        if (!quick && T == 1) {
            row("square", 1, 0, 1024, 1024, 1024, 1);
            row("square", 0, 1, 1024, 1024, 1024, 1);
            row("square", 1, 1, 1024, 1024, 1024, 1);
        }
    }
    conv_row("lenet-conv1", 64, 1, 28, 28, 6, 5, 1, 2);
    conv_row("lenet-conv2", 64, 6, 14, 14, 16, 5, 1, 0);
    conv_row("resnet-3x3", 8, 64, 56, 56, 64, 3, 1, 1);
    conv_row("resnet-3x3s2", 8, 128, 28, 28, 256, 3, 2, 1);
    return 0;
}
