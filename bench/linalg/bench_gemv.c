/* SPDX-License-Identifier: MIT */
/* bench/linalg/bench_gemv.c: the linear layer on one row (decoding one
   token: y = x W^T + b with x [1 x K], W [N x K]) against OpenBLAS
   cblas_sgemv on the same data in the same run (docs/bench-linalg.md).

     bench_gemv [--samples S] [--ms T] [--threads T]

   Each figure is the median of S samples (default 15); a sample times a
   loop of calls lasting about T ms (default 20) and divides.  One thread:
   this thread's CPU time (CLOCK_THREAD_CPUTIME_ID: time spent descheduled
   on a loaded machine is left out); T threads: wall time.  Columns:
     repdl      repdl_linear_forward_f32 (M = 1: detail/gemv.h), or
                repdl_gemm_threads_f32(0, 1, 1, ...) at T threads
     blocked    the blocked product the M = 1 call took before
                (repdl__gemm_core_f32), 1 thread only
     packed     repdl_linear_forward_packed_f32 (repdl/linear_pack.h: W
                packed once, outside the timing), 1 thread only
     openblas   cblas_sgemv(RowMajor, NoTrans, N, K, 1, W, K, x, 1, 0, y, 1)
                at openblas_set_num_threads(T)
     ratio      openblas time / repdl time (>= 1: repdl as fast or faster)
     pk_ratio   openblas time / packed time
   Both sides without bias; W is the same array every call (it stays in
   the cache where it fits: 2048 x 2048 and larger stream from memory). */
#define _POSIX_C_SOURCE 200112L
#include <repdl/gemm.h>
#include <repdl/gemm_threads.h>
#include <repdl/linear.h>
#include <repdl/linear_pack.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/common/timer.h"

#ifdef REPDL_BENCH_OPENBLAS
#include <cblas.h>
void openblas_set_num_threads(int);
#endif

static int samples = 15;
static double target_ms = 20.0;

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

enum { W_REPDL, W_BLOCKED, W_OPENBLAS, W_PACKED };

static void call(int who, int nth, size_t K, size_t N, const float *x, const float *W, float *y)
{
    if (who == W_REPDL) {
        if (nth == 1) repdl_linear_forward_f32(1, K, N, x, W, NULL, y);
        else repdl_gemm_threads_f32(0, 1, 1, N, K, nth, 1.0f, 0.0f, x, K, W, K, NULL, y, N);
    } else if (who == W_PACKED) {
        repdl_linear_forward_packed_f32(1, K, N, x, W, NULL, y); /* W: the packed form */
    } else if (who == W_BLOCKED) {
        repdl__gemm_core_f32(0, 1, 1, N, K, x, K, W, K, NULL, NULL, 0, 1.0f, 0.0f, y, N);
    } else {
#ifdef REPDL_BENCH_OPENBLAS
        cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)N, (int)K, 1.0f, W, (int)K, x, 1, 0.0f, y,
                    1);
#endif
    }
}

/* Median seconds per call. */
static double time_call(int who, int nth, size_t K, size_t N, const float *x, const float *W,
                        float *y)
{
    enum timer_clock clk = nth == 1 ? TIMER_CPU : TIMER_WALL;
    double t[101], t0, per;
    long iters = 1, i;
    int s;
    /* calibrate: iters such that a sample lasts about target_ms */
    for (;;) {
        t0 = timer_now(clk);
        for (i = 0; i < iters; i++) call(who, nth, K, N, x, W, y);
        per = timer_now(clk) - t0;
        if (per > target_ms * 1e-3 / 4 || iters > (1L << 24)) break;
        iters *= 2;
    }
    iters = (long)((double)iters * (target_ms * 1e-3) / (per > 0 ? per : 1e-9)) + 1;
    for (s = 0; s < samples; s++) {
        t0 = timer_now(clk);
        for (i = 0; i < iters; i++) call(who, nth, K, N, x, W, y);
        t[s] = (timer_now(clk) - t0) / (double)iters;
    }
    return timer_median(t, samples);
}

int main(int argc, char **argv)
{
    /* {K, N}: square decode shapes 128 .. 4096; examples/train_gpt's layers
       (d_model 128: qkv 128 x 384, mlp 128 x 512 and 512 x 128, the tied
       logits 128 x 256); a 768-wide transformer's mlp; LeNet-5's fc1-fc3 */
    static const size_t shapes[][2] = {
        {128, 128},  {256, 256},  {512, 512},  {768, 768}, {1024, 1024}, {2048, 2048},
        {4096, 4096}, {128, 384},  {128, 512},  {512, 128}, {128, 256},   {768, 3072},
        {3072, 768}, {400, 120},  {120, 84},   {84, 10}};
    int nthreads = 2, a, si, nth;
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--samples") && a + 1 < argc) samples = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--ms") && a + 1 < argc) target_ms = atof(argv[++a]);
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc) nthreads = atoi(argv[++a]);
        else {
            fprintf(stderr, "usage: bench_gemv [--samples S] [--ms T] [--threads T]\n");
            return 2;
        }
    }
    if (samples < 1) samples = 1;
    if (samples > 101) samples = 101;
    printf("# bench_gemv: M = 1 linear (x [1 x K], W [N x K]); median of %d samples of ~%.0f ms;"
           " 1 thread: thread CPU time, T threads: wall time\n",
           samples, target_ms);
    printf("%-7s %5s %5s %12s %12s %12s %12s %7s %7s %8s\n", "threads", "K", "N", "repdl_us",
           "blocked_us", "packed_us", "openblas_us", "GB/s", "ratio", "pk_ratio");
    for (nth = 1; nth <= nthreads; nth += (nthreads > 1 ? nthreads - 1 : 1)) {
#ifdef REPDL_BENCH_OPENBLAS
        openblas_set_num_threads(nth);
#endif
        for (si = 0; si < (int)(sizeof shapes / sizeof shapes[0]); si++) {
            size_t K = shapes[si][0], N = shapes[si][1];
            float *x = arr(K, 7u), *W = arr(N * K, 11u);
            float *y = arr(N, 13u), *y2 = arr(N, 17u), *P = NULL;
            size_t np = 0;
            void *pv = NULL;
            double tr, tb = 0, to = 0, tp = 0;
            tr = time_call(W_REPDL, nth, K, N, x, W, y);
            if (nth == 1) {
                tb = time_call(W_BLOCKED, nth, K, N, x, W, y2);
                if (memcmp(y, y2, N * sizeof(float))) {
                    printf("MISMATCH repdl vs blocked at K %zu N %zu\n", K, N);
                    return 1;
                }
                if (repdl_linear_pack_size_f32(K, N, &np) != REPDL_OK ||
                    posix_memalign(&pv, 64, np * sizeof(float)) != 0 || !(P = (float *)pv) ||
                    repdl_linear_pack_f32(K, N, W, P, np) != REPDL_OK) {
                    printf("pack failed at K %zu N %zu\n", K, N);
                    return 1;
                }
                tp = time_call(W_PACKED, nth, K, N, x, P, y2);
                if (memcmp(y, y2, N * sizeof(float))) {
                    printf("MISMATCH repdl vs packed at K %zu N %zu\n", K, N);
                    return 1;
                }
                free(P);
            }
#ifdef REPDL_BENCH_OPENBLAS
            to = time_call(W_OPENBLAS, nth, K, N, x, W, y2);
#endif
            printf("%-7d %5zu %5zu %12.2f %12.2f %12.2f %12.2f %7.1f %7.2f %8.2f\n", nth, K, N,
                   tr * 1e6, tb * 1e6, tp * 1e6, to * 1e6, (double)(N * K * 4) / tr * 1e-9,
                   to > 0 ? to / tr : 0.0, to > 0 && tp > 0 ? to / tp : 0.0);
            fflush(stdout);
            free(x); free(W); free(y); free(y2);
        }
        if (nthreads == 1) break;
    }
    return 0;
}
