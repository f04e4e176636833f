/* SPDX-License-Identifier: MIT */
/* bench/linalg/bench_gemm_cr.c: the correctly rounded product
   repdl_gemm_cr_f32 (and its threaded form) against the FMA-chain
   repdl_gemm_f32 and OpenBLAS cblas_sgemm, measured in the same run
   (docs/functions/gemm_cr.md, "Speed").

     bench_gemm_cr [--reps R] [--quick] [--threads T]

   Every figure is the median of R >= 3 timed repetitions (after one
   warm-up) of CPU time per call (a repetition times ceil(2^22 / (M N K))
   calls, so that the smallest shapes are not at the timer's resolution), robust on a shared machine: the calling thread's
   for 1 thread, the whole process's (every thread's, summed) for T
   threads, so the T-thread ratio shows the work threading adds (each
   thread packs its own copy of op(B)), not the wall-clock speed-up.  cr/fma = time of repdl_gemm_cr_f32 / time of repdl_gemm_f32
   (the target: <= 2); exact = the share of outputs that took the
   exact path (counted through REPDL_GEMM_CR_ON_EXACT), refined = the share
   that the rule flagged and the refined path decided (REPDL_GEMM_CR_ON_REFINE).  Data: uniform in
   [-1, 1), bias of the same law (a linear layer's forward). */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long bench_exact, bench_refined;
#define REPDL_GEMM_CR_ON_EXACT() __atomic_add_fetch(&bench_exact, 1ul, __ATOMIC_RELAXED)
#define REPDL_GEMM_CR_ON_REFINE(ok) ((ok) ? __atomic_add_fetch(&bench_refined, 1ul, __ATOMIC_RELAXED) : 0ul)
#include <repdl/gemm.h>
#include <repdl/gemm_cr_threads.h>
#include <repdl/gemm_threads.h>

#include "../../tests/common/timer.h"

#ifdef REPDL_BENCH_OPENBLAS
#include <cblas.h>
#endif

static int reps = 5;

static float *arr(size_t n, uint32_t s)
{
    float *a = (float *)malloc((n ? n : 1) * sizeof(float));
    size_t i;
    for (i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        a[i] = (float)((int)(s >> 9) - (1 << 22)) * (1.0f / (1 << 22));
    }
    return a;
}

/* CPU time of the whole process (every thread), in seconds. */
static double process_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Calls a timed repetition makes: ceil(2^22 / (M N K)), at least 1. */
static int calls_for(size_t M, size_t N, size_t K)
{
    double mnk = (double)M * (double)N * (double)K;
    return mnk >= 4194304.0 ? 1 : (int)((4194304.0 + mnk - 1.0) / mnk);
}

enum { W_FMA, W_CR, W_BLAS };
static double time_one(int who, int nth, size_t M, size_t N, size_t K, const float *A,
                       const float *B, const float *bias, float *C)
{
    double t[64];
    int r, q, calls = calls_for(M, N, K);
    for (r = -1; r < reps; r++) {
        double t0 = nth == 1 ? timer_now(TIMER_CPU) : process_cpu();
        for (q = 0; q < calls; q++) {
            if (who == W_FMA) {
                if (nth == 1) repdl_gemm_f32(0, 1, M, N, K, 1.0f, 0.0f, A, K, B, K, bias, C, N);
                else repdl_gemm_threads_f32(0, 1, M, N, K, nth, 1.0f, 0.0f, A, K, B, K, bias, C, N);
            } else if (who == W_CR) {
                if (nth == 1) repdl_gemm_cr_f32(0, 1, M, N, K, A, K, B, K, bias, C, N);
                else repdl_gemm_cr_threads_f32(0, 1, M, N, K, nth, A, K, B, K, bias, C, N);
            }
#ifdef REPDL_BENCH_OPENBLAS
            else {
                openblas_set_num_threads(nth);
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, (int)N, (int)K, 1.0f,
                            A, (int)K, B, (int)K, 0.0f, C, (int)N);
            }
#endif
        }
        if (r >= 0) t[r] = ((nth == 1 ? timer_now(TIMER_CPU) : process_cpu()) - t0) / calls;
    }
    return timer_median(t, reps);
}

/* One shape: C (M x N) = A (M x K) B^T (B is N x K, a linear layer's weight). */
static void row(const char *name, size_t M, size_t N, size_t K, int nth)
{
    float *A = arr(M * K, 1u), *B = arr(K * N, 2u), *bias = arr(N, 3u), *C = arr(M * N, 4u);
    double flops = 2.0 * (double)M * (double)N * (double)K, tf, tc;
    double ncalls = (double)(reps + 1) * (double)calls_for(M, N, K);
    unsigned long e0, r0;
    tf = time_one(W_FMA, nth, M, N, K, A, B, bias, C);
    e0 = bench_exact;
    r0 = bench_refined;
    tc = time_one(W_CR, nth, M, N, K, A, B, bias, C);
    printf("%-8s %5zu %5zu %5zu %dT  fma %8.3f ms  cr %8.3f ms  cr/fma %5.2f  exact %.2e  "
           "refined %.2e",
           name, M, N, K, nth, tf * 1e3, tc * 1e3, tc / tf,
           (double)(bench_exact - e0) / (ncalls * (double)M * (double)N),
           (double)(bench_refined - r0) / (ncalls * (double)M * (double)N));
#ifdef REPDL_BENCH_OPENBLAS
    {
        double tb = time_one(W_BLAS, nth, M, N, K, A, B, bias, C);
        printf("  openblas %8.3f ms  cr/openblas %5.2f", tb * 1e3, tc / tb);
    }
#endif
    printf("  (%.1f GFLOP/s cr)\n", flops / tc * 1e-9);
    fflush(stdout);
    free(A); free(B); free(bias); free(C);
}

int main(int argc, char **argv)
{
    int quick = 0, nth = 2, i, t;
    static const size_t lin[][3] = {
        /* batch x out x in: the LeNet linear layers at batch 64 (784 -> 120
           -> 84 -> 10) and the GPT example's layers at 2048 tokens (d 128:
           qkv 128 -> 384, attention output 128 -> 128, MLP 128 -> 512 and
           512 -> 128, the head 128 -> vocabulary 256), the shapes of issue
           33's target. */
        {64, 120, 784}, {64, 84, 120}, {64, 10, 84},
        {2048, 384, 128}, {2048, 128, 128}, {2048, 512, 128}, {2048, 128, 512}, {2048, 256, 128}};
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) nth = atoi(argv[++i]);
    }
    if (reps < 3) reps = 3;
    if (reps > 64) reps = 64;
    printf("bench_gemm_cr: median of %d, C = A B^T + bias, uniform [-1, 1); kernels: %s\n", reps,
           repdl__gemm_isa() == 2 ? "AVX-512F" : repdl__gemm_isa() == 1 ? "AVX2 + FMA" : "portable C");
    for (t = 1; t <= nth; t += (nth > 1 ? nth - 1 : 1)) {
        size_t n;
        for (n = 512; n <= (quick ? 512u : 2048u); n *= 2) row("square", n, n, n, t);
        for (i = 0; i < (int)(sizeof lin / sizeof lin[0]); i++)
            row("linear", lin[i][0], lin[i][1], lin[i][2], t);
    }
    return 0;
}
