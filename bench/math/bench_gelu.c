/* SPDX-License-Identifier: MIT */
/* bench/math/bench_gelu.c: ns per element of repdl_gelu_array_f32 and
   repdl_gelu_backward_array_f32 against the element-by-element loop of
   their scalar forms (what the array forms were before
   detail/gelu_vec.h), on 4096 elements drawn from N(0, 1) (activations)
   and uniform on [-10, 10]; median of 31 runs.  Also checks that both
   give the same bits (exit 1 otherwise).
     cc -O2 -Iinclude bench/math/bench_gelu.c -o bench_gelu && ./bench_gelu */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "repdl/activation.h"

#define N 4096
#define RUNS 31

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static unsigned long long rs = 88172645463325252ull;
static double unif(void)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (double)(rs >> 11) * (1.0 / 9007199254740992.0);
}

static float x[N], dy[N], y0[N], y1[N];

/* which: 0 scalar forward loop, 1 array forward, 2 scalar backward loop,
   3 array backward */
static double run(int which, float *out)
{
    double t[RUNS];
    int r;
    size_t i;
    for (r = 0; r < RUNS; r++) {
        double t0 = now();
        switch (which) {
        case 0: for (i = 0; i < N; i++) out[i] = repdl_gelu_f32(x[i]); break;
        case 1: repdl_gelu_array_f32(N, x, out); break;
        case 2: for (i = 0; i < N; i++) out[i] = repdl_gelu_backward_f32(x[i], dy[i]); break;
        default: repdl_gelu_backward_array_f32(N, x, dy, out); break;
        }
        t[r] = (now() - t0) * 1e9 / N;
    }
    qsort(t, RUNS, sizeof t[0], cmpd);
    return t[RUNS / 2];
}

int main(void)
{
    int d, bad = 0;
    size_t i;
    for (d = 0; d < 2; d++) {
        double s, a, sb, ab;
        for (i = 0; i < N; i++) {
            double u1 = unif(), u2 = unif(), v = 0.0;
            if (d == 0) {
                /* N(0, 1) by the sum of 12 uniforms minus 6 (enough for timing) */
                int k;
                v = u1 + u2 - 1.0;
                for (k = 0; k < 10; k++) v += unif();
                v -= 5.0;
            } else {
                v = -10.0 + 20.0 * u1;
            }
            x[i] = (float)v;
            dy[i] = (float)(u2 - 0.5);
        }
        s = run(0, y0);
        a = run(1, y1);
        bad |= memcmp(y0, y1, sizeof y0) != 0;
        sb = run(2, y0);
        ab = run(3, y1);
        bad |= memcmp(y0, y1, sizeof y0) != 0;
        printf("%-22s forward: scalar loop %6.2f ns, array %6.2f ns (%.2fx); "
               "backward: scalar loop %6.2f ns, array %6.2f ns (%.2fx)\n",
               d == 0 ? "N(0,1)" : "uniform [-10, 10]", s, a, s / a, sb, ab, sb / ab);
    }
    if (bad) printf("MISMATCH between the array and scalar forms\n");
    return bad;
}
