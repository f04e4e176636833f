/* SPDX-License-Identifier: MIT */
/* bench/fpenv/bench_fpenv.c: the cost of the floating-point environment
   check (config.h, repdl__fpenv_bad; docs/api.md, section 4) next to the
   calls that pay it once each: array functions at n = 1, 8, 64, 4096, a
   one-row reduction, a 4x4x4 gemm.

     bench_fpenv [--rounds R]

   Prints, per case, the median over R rounds (default 21) of the wall time
   per call, and the check alone (a loop of repdl__fpenv_bad() calls, each
   result kept) as the cost every call adds.  The same source built against
   headers without the check gives the "before" column of
   docs/bench-fpenv.md (bench/fpenv/compare.sh: callgrind's instruction
   counts there are exact, the times here move with the machine's load). */
#define _POSIX_C_SOURCE 199309L
#include <repdl/repdl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define N_MAX 4096
static float gx[N_MAX], gy[N_MAX], gz[N_MAX];
static volatile int sink;

/* One case: which function, which n. */
static void call(int f, size_t n)
{
    switch (f) {
    case 0: repdl_relu_array_f32(n, gx, gz); break;
    case 1: repdl_exp_array_f32(n, gx, gz); break;
    case 2: repdl_add_f32(n, gx, gy, gz); break;
    case 3: repdl_sum_rows_f32(1, n, gx, n, gz); break;
    default: repdl_gemm_f32(0, 0, 4, 4, 4, 1.0f, 0.0f, gx, 4, gy, 4, NULL, gz, 4); break;
    }
}

#ifdef REPDL__FPENV_CHECK
static void check_loop(long k)
{
    long i;
    int acc = 0;
    for (i = 0; i < k; i++) acc += repdl__fpenv_bad();
    sink = acc;
}
#endif

static double median_ns(int f, size_t n, int rounds, int check_only)
{
    double t[101];
    long k = (long)(2000000 / (n + 16)) + 1000, i;
    int r;
    for (r = 0; r < rounds; r++) {
        double t0 = now();
        if (check_only) {
#ifdef REPDL__FPENV_CHECK
            check_loop(k);
#endif
        } else {
            for (i = 0; i < k; i++) call(f, n);
        }
        t[r] = (now() - t0) * 1e9 / (double)k;
    }
    qsort(t, (size_t)rounds, sizeof t[0], cmp);
    return t[rounds / 2];
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"relu_array_f32", "exp_array_f32", "add_f32", "sum_rows_f32 (1 row)",
                                        "gemm_f32 4x4x4"};
    static const size_t ns[] = {1, 8, 64, 4096};
    int rounds = 21, f, a;
    size_t i, j;
    for (a = 1; a < argc; a++)
        if (!strcmp(argv[a], "--rounds") && a + 1 < argc) rounds = atoi(argv[++a]);
    if (rounds < 1 || rounds > 101) rounds = 21;
    for (i = 0; i < N_MAX; i++) {
        gx[i] = (float)((int)(i % 61u) - 30) * 0.125f;
        gy[i] = (float)((int)(i % 37u) - 18) * 0.0625f;
    }
#ifdef REPDL__FPENV_CHECK
    printf("check alone (repdl__fpenv_bad): %.2f ns\n", median_ns(0, 1, rounds, 1));
#else
    printf("check alone: none in these headers\n");
#endif
    printf("%-22s %6s %12s\n", "function", "n", "ns/call");
    for (f = 0; f < 5; f++)
        for (j = 0; j < (f == 4 ? 1u : 4u); j++) {
            size_t n = f == 4 ? 64 : ns[j];
            printf("%-22s %6zu %12.2f\n", names[f], n, median_ns(f, n, rounds, 0));
        }
    return 0;
}
