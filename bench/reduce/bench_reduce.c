/* SPDX-License-Identifier: MIT */
/* bench/reduce/bench_reduce.c: repdl_sum_f32 and repdl_dot_f32 against
   the naive loop (-O3), the same loop at -O3 -ffast-math (vectorized, not
   reproducible), OpenBLAS cblas_sdot, and the machine's read bandwidth,
   at sizes in L1, L2, L3 and DRAM (docs/bench-reduce.md).

     bench_reduce [--wall] [--rounds R] [--quick]

   Every translation unit is built at -O3 -march=native (fastmath.c adds
   -ffast-math).  Each sample times `reps` calls on the same array (thread
   CPU time by default: the machine is shared; --wall for wall clock);
   samples of the kernels of a size are interleaved, R rounds (11 by
   default), each round with its own placement of the arrays (xoff, yoff
   below), and the median is reported, with the best in brackets.  The
   read anchors are interleaved among themselves, after the others: they
   run hot enough to slow whatever follows them (the clock drops).
   GB/s counts the bytes the kernel reads (4n for a sum, 8n for a dot).
   "read" is the best of four read-only loops over the same bytes
   (fast-math sum, 64 float accumulators, integer xor, memcpy 4 KiB at a
   time into an L1 buffer): the measured read bandwidth of one core at that
   size.
   OpenBLAS runs on one thread (openblas_set_num_threads(1)). */
#define _POSIX_C_SOURCE 200809L
#include <repdl/reduce.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/common/timer.h"

#ifdef REPDL_BENCH_OPENBLAS
#include <cblas.h>
void openblas_set_num_threads(int num_threads);
#endif

#ifndef REPDL_BENCH_FLAGS
#define REPDL_BENCH_FLAGS "?"
#endif

float bench_naive_sum(const float *x, size_t n);
float bench_naive_dot(const float *x, const float *y, size_t n);
float bench_fastmath_sum(const float *x, size_t n);
float bench_fastmath_dot(const float *x, const float *y, size_t n);
float bench_read_acc64(const float *x, size_t n);
float bench_read_xor(const float *x, size_t n);
float bench_read_memcpy(const float *x, size_t n);

static enum timer_clock bench_clock = TIMER_CPU; /* --wall: TIMER_WALL */

/* The kernels, behind one signature: k(x, y, n) reads 4n bytes (sums,
   read anchors, whose n is then twice the dot's) or 8n (dots). */
enum {
    K_REPDL, K_NAIVE, K_FASTMATH, K_BLAS,
    K_READ_FM, K_READ_ACC, K_READ_XOR, K_READ_MEMCPY, K_COUNT
};
static const char *const kname[K_COUNT] = {"repdl", "naive -O3", "-ffast-math", "OpenBLAS",
                                           "read:fm", "read:acc64", "read:xor",
                                           "read:memcpy"};

static volatile float sink;

static void run(int k, int dot, const float *x, const float *y, size_t n)
{
    switch (k) {
    case K_REPDL: sink = dot ? repdl_dot_f32(n, x, y) : repdl_sum_f32(n, x); break;
    case K_NAIVE: sink = dot ? bench_naive_dot(x, y, n) : bench_naive_sum(x, n); break;
    case K_FASTMATH: sink = dot ? bench_fastmath_dot(x, y, n) : bench_fastmath_sum(x, n); break;
#ifdef REPDL_BENCH_OPENBLAS
    case K_BLAS: sink = cblas_sdot((blasint)n, x, 1, y, 1); break;
#endif
    /* read anchors: the same bytes as the kernel (2n floats for a dot) */
    case K_READ_FM: sink = bench_fastmath_sum(x, dot ? 2 * n : n); break;
    case K_READ_ACC: sink = bench_read_acc64(x, dot ? 2 * n : n); break;
    case K_READ_XOR: sink = bench_read_xor(x, dot ? 2 * n : n); break;
    case K_READ_MEMCPY: sink = bench_read_memcpy(x, dot ? 2 * n : n); break;
    default: break;
    }
    __asm__ __volatile__("" : : "r"(x), "r"(y) : "memory");
}

typedef struct { const char *level; size_t bytes; } size_class;

/* Placement of x and y in round r (floats from a 4 KiB boundary): the
   speed of a loop in L1 depends on where its arrays sit relative to each
   other and to the stack (by 25% on this machine, from one process to the
   next, with address randomization), so the rounds sample eight
   placements and every kernel sees the same ones.  Round 0: both arrays
   page-aligned, as two large malloc'd arrays usually are. */
static const size_t xoff[8] = {0, 16, 272, 528, 0, 784, 64, 912};
static const size_t yoff[8] = {0, 16, 0, 800, 400, 48, 1008, 560};

int main(int argc, char **argv)
{
    static const size_class classes[] = {
        {"L1", (size_t)16 << 10}, {"L2", (size_t)512 << 10},
        {"L3", (size_t)8 << 20},  {"DRAM", (size_t)256 << 20}};
    int rounds = 11, quick = 0, a, c, dot, g, k, r;
    size_t maxbytes = classes[3].bytes, i;
    float *x, *y;
    void *px = NULL, *py = NULL;
    double t[K_COUNT][64], med[K_COUNT] = {0}, best[K_COUNT] = {0};

    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--wall")) bench_clock = TIMER_WALL;
        else if (!strcmp(argv[a], "--rounds") && a + 1 < argc) rounds = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--quick")) quick = 1;
        else {
            fprintf(stderr, "usage: %s [--wall] [--rounds R] [--quick]\n", argv[0]);
            return 2;
        }
    }
    if (rounds < 1) rounds = 1;
    if (rounds > 64) rounds = 64;
    if (quick) rounds = 3;
#ifdef REPDL_BENCH_OPENBLAS
    openblas_set_num_threads(1);
#endif
    /* x holds 2n floats for the read anchors of a dot; 4 KiB aligned */
    if (posix_memalign(&px, 4096, maxbytes + 4096) ||
        posix_memalign(&py, 4096, maxbytes / 2 + 4096)) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    x = (float *)px;
    y = (float *)py;
    for (i = 0; i < maxbytes / 4 + 1024; i++)
        x[i] = (float)((i * 2654435761u) % 2001) * 1e-3f - 1.0f;
    for (i = 0; i < maxbytes / 8 + 1024; i++) y[i] = (float)((i * 40503u) % 997) * 1e-3f;

    printf("bench_reduce: flags %s, %s, %s, median of %d rounds [best]\n", REPDL_BENCH_FLAGS,
#ifdef __VERSION__
           "compiler " __VERSION__,
#else
           "compiler ?",
#endif
           bench_clock == TIMER_WALL ? "wall clock" : "thread CPU time", rounds);
    printf("%-4s %-5s %10s  %-12s %18s\n", "op", "size", "n", "kernel", "GB/s");
    for (dot = 0; dot < 2; dot++) {
        for (c = 0; c < 4; c++) {
            size_t bytes = classes[c].bytes, n = bytes / (dot ? 8 : 4);
            /* about 20 ms a sample at 100 GB/s in caches, 2 calls from DRAM */
            size_t reps = c == 3 ? 2 : ((size_t)2 << 30) / bytes;
            double readbw = 0;
            if (quick) reps = reps / 8 + 1;
            /* Two groups, each interleaved round by round: the compared
               kernels, then the read anchors (which run hot enough to
               lower the clock of whatever follows them for a while). */
            for (g = 0; g < 2; g++) {
                int k0 = g ? K_READ_FM : K_REPDL, k1 = g ? K_COUNT : K_READ_FM;
                for (r = 0; r < rounds; r++) {
                    for (k = k0; k < k1; k++) {
                        double t0;
                        size_t q;
                        if (k == K_BLAS && !dot) continue;
#ifndef REPDL_BENCH_OPENBLAS
                        if (k == K_BLAS) continue;
#endif
                        const float *xr = x + xoff[r % 8], *yr = y + yoff[r % 8];
                        run(k, dot, xr, yr, n); /* warm */
                        t0 = timer_now(bench_clock);
                        for (q = 0; q < reps; q++) run(k, dot, xr, yr, n);
                        t[k][r] = timer_now(bench_clock) - t0;
                    }
                }
            }
            for (k = 0; k < K_COUNT; k++) {
                if (k == K_BLAS && !dot) continue;
#ifndef REPDL_BENCH_OPENBLAS
                if (k == K_BLAS) continue;
#endif
                qsort(t[k], (size_t)rounds, sizeof(double), timer_cmp);
                med[k] = (double)bytes * (double)reps / t[k][rounds / 2] / 1e9;
                best[k] = (double)bytes * (double)reps / t[k][0] / 1e9;
                if (k >= K_READ_FM && med[k] > readbw) readbw = med[k];
                printf("%-4s %-5s %10zu  %-12s %8.1f [%6.1f]\n", dot ? "dot" : "sum",
                       classes[c].level, n, kname[k], med[k], best[k]);
            }
            printf("%-4s %-5s %10zu  ratios: repdl/-ffast-math %.2f, repdl/naive %.2f",
                   dot ? "dot" : "sum", classes[c].level, n, med[K_REPDL] / med[K_FASTMATH],
                   med[K_REPDL] / med[K_NAIVE]);
#ifdef REPDL_BENCH_OPENBLAS
            if (dot) printf(", repdl/OpenBLAS %.2f", med[K_REPDL] / med[K_BLAS]);
#endif
            printf(", repdl/read %.2f (read %.1f GB/s)\n", med[K_REPDL] / readbw, readbw);
        }
    }
    free(x);
    free(y);
    return 0;
}
