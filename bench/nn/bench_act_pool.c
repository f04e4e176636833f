/* SPDX-License-Identifier: MIT */
/* bench/nn/bench_act_pool.c: throughput of the activations'
   forward passes and of pool2d on the CPU, repdl against the plain loops
   of plain_act_pool.c, measured in the same run: GB/s = (bytes read + written) /
   median time over the rounds, and the ratio repdl / plain.
     bench_nn_act_pool [--n N] [--rounds R] [--pool] [--cpu]
   (--pool: the pooling rows only; --cpu: this thread's CPU time instead
   of wall time, which leaves out the time the thread is descheduled on a
   shared machine).  Inputs: N floats uniform in [-8, 8] (the range where activations do
   their work), one call per round, rounds alternate repdl and plain. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/activation.h>
#include <repdl/pool.h>

#include "../../tests/common/timer.h"
#include "plain_act_pool.h"

typedef repdl_status (*act_fn)(size_t, const float *, float *);
typedef void (*plain_fn)(size_t, const float *, float *);

int main(int argc, char **argv)
{
    size_t n = 1u << 20, i;
    int rounds = 21, a, r, pool_only = 0;
    enum timer_clock clk = TIMER_WALL;
    float *x, *y;
    double *tr, *tp;
    static const struct { const char *name; act_fn rep; plain_fn plain; } acts[] = {
        {"relu", repdl_relu_array_f32, plain_relu},
        {"sigmoid", repdl_sigmoid_array_f32, plain_sigmoid},
        {"silu", repdl_silu_array_f32, plain_silu},
        {"gelu", repdl_gelu_array_f32, plain_gelu},
        {"gelu_tanh", repdl_gelu_tanh_array_f32, plain_gelu_tanh},
        {"softplus", repdl_softplus_array_f32, plain_softplus},
    };
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc) n = (size_t)strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--rounds") && a + 1 < argc) rounds = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--pool")) pool_only = 1;
        else if (!strcmp(argv[a], "--cpu")) clk = TIMER_CPU;
        else { fprintf(stderr, "usage: bench_nn_act_pool [--n N] [--rounds R] [--pool] [--cpu]\n"); return 2; }
    }
    if (rounds < 1) rounds = 1;
    x = (float *)malloc(n * sizeof(float));
    y = (float *)malloc(n * sizeof(float));
    tr = (double *)malloc((size_t)rounds * sizeof(double));
    tp = (double *)malloc((size_t)rounds * sizeof(double));
    srand(1);
    for (i = 0; i < n; i++) x[i] = (float)rand() / (float)RAND_MAX * 16.0f - 8.0f;
    if (!pool_only) {
        printf("activation forward, n = %zu floats, median of %d rounds\n", n, rounds);
        printf("%-10s %12s %12s %8s\n", "function", "repdl GB/s", "plain GB/s", "ratio");
    }
    for (a = 0; a < (int)(sizeof acts / sizeof acts[0]) && !pool_only; a++) {
        double mr, mp;
        acts[a].rep(n, x, y);
        acts[a].plain(n, x, y);
        for (r = 0; r < rounds; r++) {
            double t0 = timer_now(clk);
            acts[a].rep(n, x, y);
            tr[r] = timer_now(clk) - t0;
            t0 = timer_now(clk);
            acts[a].plain(n, x, y);
            tp[r] = timer_now(clk) - t0;
        }
        mr = timer_median(tr, rounds);
        mp = timer_median(tp, rounds);
        printf("%-10s %12.2f %12.2f %8.2f\n", acts[a].name, 8.0 * (double)n / mr * 1e-9,
               8.0 * (double)n / mp * 1e-9, mp / mr);
    }
    {
        /* pool2d 2x2 stride 2 and 3x3 stride 1 on 64 x 16 x 56 x 56.  Rows:
             max       repdl forward (argmax written) / plain_max_pool2d
                       (no argmax, no NaN rule: the anchor)
             max=sem   the same repdl call / plain_max_pool2d_arg (the
                       direct loop with repdl's semantics and argmax)
             avg       avg_pool2d forward / plain_avg_pool2d
             max bwd   max_pool2d backward / plain_max_pool2d_backward
                       (zero dx, scatter dx[argmax] += dy), the argmax
                       of the forward pass, dy uniform in [-1, 1] */
        repdl_pool2d_shape s = {64, 16, 56, 56, 2, 2, 2, 2, 0, 0};
        size_t nx = 64u * 16 * 56 * 56, planes = 64u * 16, k;
        float *px = (float *)malloc(nx * sizeof(float)), *py = (float *)malloc(nx * sizeof(float));
        float *pdy = (float *)malloc(nx * sizeof(float)), *pdx = (float *)malloc(nx * sizeof(float));
        size_t *arg = (size_t *)malloc(nx * sizeof(size_t)), *parg = (size_t *)malloc(nx * sizeof(size_t));
        static const char *kinds[4] = {"max", "max=sem", "avg", "max bwd"};
        for (i = 0; i < nx; i++) px[i] = (float)rand() / (float)RAND_MAX;
        for (i = 0; i < nx; i++) pdy[i] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
        printf("%spool2d on 64 x 16 x 56 x 56, median of %d rounds (GB/s of input read + output\n"
               "written, argmax not counted)\n", pool_only ? "" : "\n", rounds);
        printf("%-18s %12s %12s %8s\n", "op", "repdl GB/s", "plain GB/s", "ratio");
        for (k = 2; k <= 3; k++) {
            size_t oh, ow, ohw, bytes;
            int kind;
            s.kh = s.kw = k;
            s.stride_h = s.stride_w = k == 2 ? 2 : 1;
            oh = repdl_pool2d_out_h(&s);
            ow = repdl_pool2d_out_w(&s);
            ohw = oh * ow;
            bytes = (nx + planes * ohw) * sizeof(float);
            repdl_max_pool2d_forward_f32(&s, px, py, arg);   /* the backward's argmax */
            for (kind = 0; kind < 4; kind++) {
                double mr, mp;
                for (r = 0; r < rounds; r++) {
                    double t0 = timer_now(clk);
                    if (kind <= 1) repdl_max_pool2d_forward_f32(&s, px, py, parg);
                    else if (kind == 2) repdl_avg_pool2d_forward_f32(&s, 1, px, py);
                    else repdl_max_pool2d_backward_f32(&s, arg, pdy, pdx);
                    tr[r] = timer_now(clk) - t0;
                    t0 = timer_now(clk);
                    if (kind == 0) plain_max_pool2d(planes, 56, 56, k, s.stride_h, px, py);
                    else if (kind == 1) plain_max_pool2d_arg(planes, 56, 56, k, s.stride_h, px, py, parg);
                    else if (kind == 2) plain_avg_pool2d(planes, 56, 56, k, s.stride_h, px, py);
                    else plain_max_pool2d_backward(planes, 56 * 56, ohw, arg, pdy, pdx);
                    tp[r] = timer_now(clk) - t0;
                }
                mr = timer_median(tr, rounds);
                mp = timer_median(tp, rounds);
                printf("%-8s %zux%zu s%zu  %12.2f %12.2f %8.2f\n", kinds[kind], k, k, s.stride_h,
                       (double)bytes / mr * 1e-9, (double)bytes / mp * 1e-9, mp / mr);
            }
        }
        free(px); free(py); free(pdy); free(pdx); free(arg); free(parg);
    }
    free(x); free(y); free(tr); free(tp);
    return 0;
}
