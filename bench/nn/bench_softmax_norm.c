/* SPDX-License-Identifier: MIT */
/* bench/nn/bench_softmax_norm.c: throughput of softmax.h and norm.h on
   the CPU (one thread) against plain non-reproducible C loops (naive_softmax_norm.c:
   glibc expf/logf, sequential float sums), measured in the same run.

     bench_nn [--reps R] [--wall]

   For each op and shape (rows x cols = 4096 x 1024 and 256 x 32768, 16 MiB
   of input each): the median over R repetitions (default 15) of the
   thread CPU time (--wall: wall time) of one call on the whole array, as GB/s of the bytes the op must
   move (inputs read once + outputs written once), and the ratio
   repdl / naive (>= 1: repdl faster).  docs/nn-softmax-norm.md records
   the figures.  Layer-norm backward appears three times: layer_norm_bwd
   (dx only), ln_dgamma_dbeta (dgamma and dbeta only) and ln_bwd_all (the
   three outputs of one call, against the two naive loops one after the
   other). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/common/timer.h"

#include <repdl/norm.h>
#include <repdl/softmax.h>

#include "naive_softmax_norm.h"

#ifndef REPDL_BENCH_FLAGS
#define REPDL_BENCH_FLAGS "?"
#endif

static enum timer_clock bench_clock = TIMER_CPU; /* --wall: TIMER_WALL */
enum { SOFTMAX, LOG_SOFTMAX, SOFTMAX_BW, LOG_SOFTMAX_BW, LAYER_NORM, LAYER_NORM_BW, LN_PARAM_GRADS, LN_BW_ALL,
       RMS_NORM, NOPS };
static const char *names[NOPS] = {"softmax", "log_softmax", "softmax_bwd", "log_softmax_bwd", "layer_norm",
                                  "layer_norm_bwd", "ln_dgamma_dbeta", "ln_bwd_all", "rms_norm"};
/* arrays of rows x cols moved: read + written */
static const int arrays[NOPS] = {2, 2, 3, 3, 2, 3, 2, 3, 2};

static size_t R, C;
static float *x, *y, *dy, *dx, *g, *b, *mu, *rs, *pg, *pb;

static void run(int op, int naive)
{
    switch (op) {
    case SOFTMAX: naive ? naive_softmax(R, C, x, y) : (void)repdl_softmax_f32(R, C, x, y); break;
    case LOG_SOFTMAX: naive ? naive_log_softmax(R, C, x, y) : (void)repdl_log_softmax_f32(R, C, x, y); break;
    case SOFTMAX_BW:
        naive ? naive_softmax_backward(R, C, y, dy, dx) : (void)repdl_softmax_backward_f32(R, C, y, dy, dx);
        break;
    case LOG_SOFTMAX_BW: /* y read as log-probabilities (any values: the same work) */
        naive ? naive_log_softmax_backward(R, C, y, dy, dx)
              : (void)repdl_log_softmax_backward_f32(R, C, y, dy, dx);
        break;
    case LAYER_NORM:
        naive ? naive_layer_norm(R, C, x, g, b, 1e-5f, y)
              : (void)repdl_layer_norm_forward_f32(R, C, 1e-5f, x, g, b, y, mu, rs);
        break;
    case LAYER_NORM_BW:
        naive ? naive_layer_norm_backward(R, C, x, g, mu, rs, dy, dx)
              : (void)repdl_layer_norm_backward_f32(R, C, x, g, mu, rs, dy, dx, NULL, NULL);
        break;
    case LN_PARAM_GRADS: /* the column sums over rows of layer-norm backward */
        naive ? naive_layer_norm_param_grads(R, C, x, mu, rs, dy, pg, pb)
              : (void)repdl_layer_norm_backward_f32(R, C, x, g, mu, rs, dy, NULL, pg, pb);
        break;
    case LN_BW_ALL: /* the whole layer-norm backward: dx, dgamma, dbeta */
        if (naive) {
            naive_layer_norm_backward(R, C, x, g, mu, rs, dy, dx);
            naive_layer_norm_param_grads(R, C, x, mu, rs, dy, pg, pb);
        } else {
            (void)repdl_layer_norm_backward_f32(R, C, x, g, mu, rs, dy, dx, pg, pb);
        }
        break;
    case RMS_NORM:
        naive ? naive_rms_norm(R, C, x, g, 1e-6f, y) : (void)repdl_rms_norm_forward_f32(R, C, 1e-6f, x, g, y, rs);
        break;
    }
}

static double median_time(int op, int naive, int reps)
{
    double t[101];
    run(op, naive); /* warm */
    for (int k = 0; k < reps; k++) {
        double t0 = timer_now(bench_clock);
        run(op, naive);
        t[k] = timer_now(bench_clock) - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], timer_cmp);
    return t[reps / 2];
}

int main(int argc, char **argv)
{
    /* the last: a classifier's batch of 64 rows of 10 logits (short rows) */
    static const size_t shapes[3][2] = {{4096, 1024}, {256, 32768}, {64, 10}};
    int reps = 15;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--wall")) bench_clock = TIMER_WALL;
    if (reps < 1) reps = 1;
    if (reps > 101) reps = 101;
    printf("bench_nn: one thread, median of %d, %s time, flags %s\n", reps,
           bench_clock == TIMER_WALL ? "wall" : "thread CPU", REPDL_BENCH_FLAGS);
    printf("%-15s %-12s %10s %10s %10s %10s %7s\n", "op", "shape", "repdl ms", "naive ms",
           "repdl GB/s", "naive GB/s", "ratio");
    for (int s = 0; s < 3; s++) {
        R = shapes[s][0];
        C = shapes[s][1];
        size_t n = R * C;
        x = malloc(n * 4); y = malloc(n * 4); dy = malloc(n * 4); dx = malloc(n * 4);
        g = malloc(C * 4); b = malloc(C * 4); pg = malloc(C * 4); pb = malloc(C * 4); mu = malloc(R * 4); rs = malloc(R * 4);
        if (!x || !y || !dy || !dx || !g || !b || !mu || !rs || !pg || !pb) return 1;
        srand(1);
        for (size_t i = 0; i < n; i++) {
            x[i] = (float)rand() / RAND_MAX * 16.0f - 8.0f;
            dy[i] = (float)rand() / RAND_MAX - 0.5f;
        }
        for (size_t j = 0; j < C; j++) { g[j] = 1.0f + (float)j / C; b[j] = (float)j / C - 0.5f; }
        repdl_softmax_f32(R, C, x, y); /* a valid y for the backward */
        repdl_layer_norm_forward_f32(R, C, 1e-5f, x, g, b, dx, mu, rs);
        for (int op = 0; op < NOPS; op++) {
            double tr = median_time(op, 0, reps), tn = median_time(op, 1, reps);
            double bytes = (double)arrays[op] * n * 4;
            char shape[32];
            snprintf(shape, sizeof shape, "%zux%zu", R, C);
            printf("%-15s %-12s %10.4f %10.4f %10.2f %10.2f %7.2f\n", names[op], shape, tr * 1e3,
                   tn * 1e3, bytes / tr * 1e-9, bytes / tn * 1e-9, tn / tr);
            fflush(stdout);
        }
        free(x); free(y); free(dy); free(dx); free(g); free(b); free(mu); free(rs); free(pg); free(pb);
    }
    return 0;
}
