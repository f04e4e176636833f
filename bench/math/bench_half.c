/* SPDX-License-Identifier: MIT */
/* bench/math/bench_half.c: the bfloat16 and float16 functions of
   half_math.h against the binary32 function plus the conversions, which
   is what a caller would otherwise write (and which double-rounds on a few
   inputs: docs/functions/half.md).

   For each function F (exp, log, tanh, sqrt, sigmoid, exp2, log2, expm1,
   log1p, rsqrt, sin, cos, erf, silu, softplus, gelu, gelu_tanh) and format (bf16,
   f16), on an array of N 16-bit inputs (default 4096, cache-resident) from
   a fixed distribution, ns per element:
     array 16     repdl_F_array_bf16(n, x, out)
     array 32+cv  repdl_bf16_to_f32_array, repdl_F_array_f32,
                  repdl_f32_to_bf16_array through a float buffer
     call 16      out[i] = repdl_F_bf16(x[i]), a noinline call each
     call 32+cv   out[i] = repdl_f32_to_bf16(repdl_F_f32(repdl_bf16_to_f32(
                  x[i]))), the same, a noinline call each
   and the ratios (32+cv time) / (16 time): above 1.00, the 16-bit form
   is faster.  Each timing repeats the loop until about --calls elements
   (default 2^20); the four are interleaved in each repetition, and the
   median over --reps repetitions (default 11) is printed.  Times are this
   thread's CPU time (tests/common/timer.h); the load average is printed
   before and after (the machine may be shared).

   Usage: bench_half [--reps R] [--n N] [--calls C]
   Built twice by bench/math/meson.build: -O2 (bench_half) and -O3
   -march=native (bench_half_native). */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/activation.h>
#include <repdl/cos.h>
#include <repdl/erf.h>
#include <repdl/exp2.h>
#include <repdl/expm1.h>
#include <repdl/half_math.h>
#include <repdl/log1p.h>
#include <repdl/log2.h>
#include <repdl/rsqrt.h>
#include <repdl/sin.h>

#include "../../tests/common/splitmix64.h"
#include "../../tests/common/timer.h"
#include "bench_elementary.h"

#ifndef BENCH_FLAGS
#define BENCH_FLAGS "?"
#endif

typedef repdl_status (*arr_fn)(size_t, const uint16_t *, uint16_t *);
typedef void (*arr32_fn)(size_t, const float *, float *);
typedef uint16_t (*call_fn)(uint16_t);

/* The composite: convert, the binary32 function, convert back. */
#define COMPOSITE(F, FMT)                                                              \
    static BENCH_NOINLINE uint16_t comp_##F##_##FMT(uint16_t h)                        \
    {                                                                                  \
        return repdl_f32_to_##FMT(repdl_##F##_f32(repdl_##FMT##_to_f32(h)));          \
    }                                                                                  \
    static BENCH_NOINLINE uint16_t call_##F##_##FMT(uint16_t h) { return repdl_##F##_##FMT(h); }
#define BOTH(F) COMPOSITE(F, bf16) COMPOSITE(F, f16)
#define BENCH_HALF_FUNCS(X)                                                    \
    X(exp) X(log) X(tanh) X(sqrt) X(sigmoid) X(exp2) X(log2) X(expm1) X(log1p) \
    X(rsqrt) X(sin) X(cos) X(erf) X(silu) X(softplus) X(gelu) X(gelu_tanh)
#define A32(F) static void a32_##F(size_t n, const float *x, float *y) { repdl_##F##_array_f32(n, x, y); }
BENCH_HALF_FUNCS(BOTH)
BENCH_HALF_FUNCS(A32)

struct fn {
    const char *name, *inputs;
    arr_fn a16[2];
    arr32_fn a32;
    call_fn c16[2], comp[2];
    double lo, hi; /* inputs: uniform on [lo, hi], or log-uniform when lo > 0 */
};
/* One row: F's name, its inputs, the pointers all named after F. */
#define ROW(F, INPUTS, LO, HI)                                                          \
    { #F, INPUTS, {repdl_##F##_array_bf16, repdl_##F##_array_f16}, a32_##F,              \
      {call_##F##_bf16, call_##F##_f16}, {comp_##F##_bf16, comp_##F##_f16}, LO, HI }
static const struct fn fns[] = {
    ROW(exp, "uniform on [-16, 11] (finite f16 results)", -16.0, 11.0),
    ROW(log, "log-uniform on [2^-14, 2^15]", 0x1p-14, 0x1p15),
    ROW(tanh, "uniform on [-10, 10]", -10.0, 10.0),
    ROW(sqrt, "uniform on [0, 6e4]", 0.0, 6e4),
    ROW(sigmoid, "uniform on [-20, 20]", -20.0, 20.0),
    ROW(exp2, "uniform on [-24, 15] (finite f16 results)", -24.0, 15.0),
    ROW(log2, "log-uniform on [2^-14, 2^15]", 0x1p-14, 0x1p15),
    ROW(expm1, "uniform on [-10, 10]", -10.0, 10.0),
    ROW(log1p, "uniform on [-0.5, 1000]", -0.5, 1000.0),
    ROW(rsqrt, "log-uniform on [2^-14, 2^15]", 0x1p-14, 0x1p15),
    ROW(sin, "uniform on [-100, 100]", -100.0, 100.0),
    ROW(cos, "uniform on [-100, 100]", -100.0, 100.0),
    ROW(erf, "uniform on [-5, 5]", -5.0, 5.0),
    ROW(silu, "uniform on [-20, 20]", -20.0, 20.0),
    ROW(softplus, "uniform on [-20, 20]", -20.0, 20.0),
    ROW(gelu, "uniform on [-10, 10]", -10.0, 10.0),
    ROW(gelu_tanh, "uniform on [-10, 10]", -10.0, 10.0),
};
#define NFN ((int)(sizeof fns / sizeof fns[0]))
static const char *const fmt_name[2] = {"bf16", "f16"};

static float *g_xf, *g_yf; /* the composite array path's buffers */

static BENCH_NOINLINE void run_a16(arr_fn f, const uint16_t *x, uint16_t *y, size_t n) { f(n, x, y); }
static BENCH_NOINLINE void run_a32(int k, arr32_fn f, const uint16_t *x, uint16_t *y, size_t n)
{
    if (k == 0) repdl_bf16_to_f32_array(n, x, g_xf);
    else repdl_f16_to_f32_array(n, x, g_xf);
    f(n, g_xf, g_yf);
    if (k == 0) repdl_f32_to_bf16_array(n, g_yf, y);
    else repdl_f32_to_f16_array(n, g_yf, y);
}
static BENCH_NOINLINE void run_call(call_fn f, const uint16_t *x, uint16_t *y, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = f(x[i]);
}

static double loadavg(void)
{
    double l = -1.0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1.0;
        fclose(f);
    }
    return l;
}

int main(int argc, char **argv)
{
    int reps = 11;
    size_t n = 4096, calls = (size_t)1 << 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--n") == 0) n = (size_t)atol(argv[i + 1]);
        else if (strcmp(argv[i], "--calls") == 0) calls = (size_t)atol(argv[i + 1]);
    }
    if (reps < 1 || n < 1) { fprintf(stderr, "usage: bench_half [--reps R] [--n N] [--calls C]\n"); return 2; }
    size_t loops = calls / n ? calls / n : 1;
    uint16_t *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *y2 = malloc(n * sizeof *y2);
    double *t = malloc(sizeof(double) * 4 * (size_t)reps);
    g_xf = malloc(n * sizeof *g_xf);
    g_yf = malloc(n * sizeof *g_yf);
    if (!x || !y || !y2 || !t || !g_xf || !g_yf) { perror("malloc"); return 1; }
    double load0 = loadavg();
    printf("bench_half (%s): %zu elements, %zu passes per timing, median of %d, thread CPU time, "
           "ns per element; load average %.2f at start\n", BENCH_FLAGS, n, loops, reps, load0);
    printf("| F | format | inputs | array 16 | array 32+cv | ratio | call 16 | call 32+cv | ratio |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    for (int f = 0; f < NFN; f++)
        for (int k = 0; k < 2; k++) {
            splitmix64 rng;
            double med[4];
            splitmix64_seed(&rng, 0x5eed2026u + (uint64_t)(2 * f + k));
            for (size_t i = 0; i < n; i++) {
                double u = (double)(splitmix64_next(&rng) >> 11) * 0x1p-53;
                double v = fns[f].lo > 0 ? fns[f].lo * pow(fns[f].hi / fns[f].lo, u)
                                         : fns[f].lo + (fns[f].hi - fns[f].lo) * u;
                x[i] = k == 0 ? repdl_f32_to_bf16((float)v) : repdl_f32_to_f16((float)v);
            }
            /* the two ways agree except on the double-rounding inputs */
            run_a16(fns[f].a16[k], x, y, n);
            run_a32(k, fns[f].a32, x, y2, n);
            size_t diff = 0;
            for (size_t i = 0; i < n; i++) diff += y[i] != y2[i];
            for (int r = 0; r < reps; r++) {
                double t0;
                t0 = timer_now(TIMER_CPU);
                for (size_t l = 0; l < loops; l++) run_a16(fns[f].a16[k], x, y, n);
                t[0 * reps + r] = (timer_now(TIMER_CPU) - t0) * 1e9 / (double)(loops * n);
                t0 = timer_now(TIMER_CPU);
                for (size_t l = 0; l < loops; l++) run_a32(k, fns[f].a32, x, y2, n);
                t[1 * reps + r] = (timer_now(TIMER_CPU) - t0) * 1e9 / (double)(loops * n);
                t0 = timer_now(TIMER_CPU);
                for (size_t l = 0; l < loops; l++) run_call(fns[f].c16[k], x, y, n);
                t[2 * reps + r] = (timer_now(TIMER_CPU) - t0) * 1e9 / (double)(loops * n);
                t0 = timer_now(TIMER_CPU);
                for (size_t l = 0; l < loops; l++) run_call(fns[f].comp[k], x, y2, n);
                t[3 * reps + r] = (timer_now(TIMER_CPU) - t0) * 1e9 / (double)(loops * n);
            }
            for (int j = 0; j < 4; j++) med[j] = timer_median(t + j * reps, reps);
            printf("| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |%s\n", fns[f].name,
                   fmt_name[k], fns[f].inputs, med[0], med[1], med[1] / med[0], med[2], med[3],
                   med[3] / med[2], diff ? " (results differ: double rounding)" : "");
        }
    printf("load average %.2f at end\n", loadavg());
    free(x); free(y); free(y2); free(t); free(g_xf); free(g_yf);
    return 0;
}
