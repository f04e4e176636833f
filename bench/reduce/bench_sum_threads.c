/* SPDX-License-Identifier: MIT */
/* bench/reduce/bench_sum_threads.c: the canonical sum and dot on 1 to T
   threads (reduce_threads.h) against the serial call (reduce.h), for the
   scaling table of docs/bench-scaling.md.

     bench_sum_threads [--reps R] [--threads T] [--n N] [--calls C]

   For each n (2^16, 2^20, 2^24, or the one --n) and each thread count
   1..T (default 2), repdl_sum_threads_f32 and repdl_dot_threads_f32 are
   timed in wall-clock time, interleaved with the serial repdl_sum_f32 /
   repdl_dot_f32 (the anchor of the same run): R repetitions (default 11),
   each timing C calls (default: about 2^26 elements' worth), medians.
   speedup = serial time / threaded time.  Every threaded result is
   compared with the serial one bit for bit (the claim of
   reduce_threads.h): a difference prints FAIL and the exit status is 1.
   --calls 1 --reps 1 is the form for valgrind --tool=callgrind (the
   instruction counts of the scaling table). */
#define _POSIX_C_SOURCE 200809L
#include <repdl/reduce.h>
#include <repdl/reduce_threads.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/common/timer.h"

static int same(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

int main(int argc, char **argv)
{
    int reps = 11, maxt = 2, i, t, r, fail = 0;
    size_t one_n = 0, calls_opt = 0, sizes[3] = {(size_t)1 << 16, (size_t)1 << 20, (size_t)1 << 24};
    int nsizes = 3, si;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) maxt = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--n") && i + 1 < argc) one_n = (size_t)strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--calls") && i + 1 < argc) calls_opt = (size_t)strtoull(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: bench_sum_threads [--reps R] [--threads T] [--n N] [--calls C]\n");
            return 2;
        }
    }
    if (reps < 1 || maxt < 1) return 2;
    if (one_n) { sizes[0] = one_n; nsizes = 1; }
    printf("# bench_sum_threads: wall clock, median of %d, serial repdl_sum_f32/repdl_dot_f32 as the anchor\n", reps);
    printf("%10s %3s %12s %12s %8s %12s %12s %8s\n", "n", "thr", "sum ms", "serial ms", "speedup",
           "dot ms", "serial ms", "speedup");
    for (si = 0; si < nsizes; si++) {
        size_t n = sizes[si], k, c, calls = calls_opt ? calls_opt : ((size_t)1 << 26) / n + 1;
        float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(n * sizeof(float));
        double *ts = (double *)malloc((size_t)reps * 4 * sizeof(double));
        uint32_t s = 2463534242u;
        volatile float sink = 0.0f;
        if (!x || !y || !ts) return 2;
        for (k = 0; k < n; k++) {
            s ^= s << 13; s ^= s >> 17; s ^= s << 5;
            x[k] = (float)(int32_t)s * 0x1p-31f;
            s ^= s << 13; s ^= s >> 17; s ^= s << 5;
            y[k] = (float)(int32_t)s * 0x1p-31f;
        }
        for (t = 1; t <= maxt; t++) {
            float ref_s = repdl_sum_f32(n, x), ref_d = repdl_dot_f32(n, x, y);
            float got_s = repdl_sum_threads_f32(n, t, x), got_d = repdl_dot_threads_f32(n, t, x, y);
            if (!same(ref_s, got_s) || !same(ref_d, got_d)) {
                printf("FAIL n=%zu threads=%d: threaded result differs from the serial one\n", n, t);
                fail = 1;
            }
            for (r = 0; r < reps; r++) {
                double a;
                a = timer_now(TIMER_WALL);
                for (c = 0; c < calls; c++) sink += repdl_sum_threads_f32(n, t, x);
                ts[r] = (timer_now(TIMER_WALL) - a) / (double)calls;
                a = timer_now(TIMER_WALL);
                for (c = 0; c < calls; c++) sink += repdl_sum_f32(n, x);
                ts[reps + r] = (timer_now(TIMER_WALL) - a) / (double)calls;
                a = timer_now(TIMER_WALL);
                for (c = 0; c < calls; c++) sink += repdl_dot_threads_f32(n, t, x, y);
                ts[2 * reps + r] = (timer_now(TIMER_WALL) - a) / (double)calls;
                a = timer_now(TIMER_WALL);
                for (c = 0; c < calls; c++) sink += repdl_dot_f32(n, x, y);
                ts[3 * reps + r] = (timer_now(TIMER_WALL) - a) / (double)calls;
            }
            {
                double ms = 1e3 * timer_median(ts, reps), ss = 1e3 * timer_median(ts + reps, reps);
                double md = 1e3 * timer_median(ts + 2 * reps, reps), sd = 1e3 * timer_median(ts + 3 * reps, reps);
                printf("%10zu %3d %12.4f %12.4f %8.2f %12.4f %12.4f %8.2f\n", n, t, ms, ss, ss / ms,
                       md, sd, sd / md);
            }
        }
        (void)sink;
        free(x);
        free(y);
        free(ts);
    }
    return fail;
}
