/* SPDX-License-Identifier: MIT */
/* bench/reduce/params/leaf_template.c: the parameter study of
   docs/canonical-order.md, section 12.  A canonical sum with a leaf of V
   lanes x L vectors, built like include/repdl/reduce.h (full schedule in
   caches, stream schedule with L2 prefetch hints past 16 MiB), against the
   -O3 -ffast-math loop.  gen.py writes the trees out for each (V, L) (a
   generic loop over L is not vectorized by gcc 12) where @TREES@ stands. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/timer.h" /* run.sh: -I at the repository root */

/* The buddy tree over the leaves is the library's (repdl__tree,
   detail/accum.h).  V and L, the geometry run.sh passes with -D, are
   names accum.h uses for its own: set aside around the include. */
enum { STUDY_V = V, STUDY_L = L };
#undef V
#undef L
#include "include/repdl/detail/accum.h"
#define V STUDY_V
#define L STUDY_L

#define B (V * L)

typedef float v8f __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
static inline float fold16(float *b) /* h = 8, 4, 2, 1 */
{
    v8f lo, hi;
    v4f l4, h4;
    float f[4];
    memcpy(&lo, b, 32);
    memcpy(&hi, b + 8, 32);
    lo = lo + hi;
    memcpy(&l4, &lo, 16);
    memcpy(&h4, (char *)&lo + 16, 16);
    l4 = l4 + h4;
    memcpy(f, &l4, 16);
    return (f[0] + f[2]) + (f[1] + f[3]);
}

@TREES@

__attribute__((noinline)) float rsum(const float *x, size_t n)
{
    repdl__tree t;
    size_t j, m = n / B;
    repdl__tree_init(&t);
    if (n < ((size_t)1 << 18)) {
        for (j = 0; j < m; j++) repdl__tree_push(&t, 0, leaf_full(x + j * B));
    } else {
        int pf = n >= ((size_t)1 << 22), l;
        const size_t D = 4096 / B > 0 ? 4096 / B : 1; /* 16 KiB ahead */
        for (j = 0; j < m; j++) {
            if (pf && j + D < m)
                for (l = 0; l < B; l += 64) __builtin_prefetch(x + (j + D) * B + l, 0, 2);
            repdl__tree_push(&t, 0, leaf_stream(x + j * B));
        }
    }
    return repdl__tree_root(&t);
}

float fm_sum(const float *x, size_t n);

static volatile float sink;

int main(void)
{
    static const size_t sizes[3] = {4096, 131072, (size_t)1 << 26};
    static const char *const lv[3] = {"L1", "L2", "DRAM"};
    size_t i, N = (size_t)1 << 26;
    float *x = (float *)aligned_alloc(4096, N * 4);
    int s, r, k;
    for (i = 0; i < N; i++) x[i] = (float)(i % 1000) * 0.001f;
    printf("V=%3d L=%2d:", V, L);
    for (s = 0; s < 3; s++) {
        size_t n = sizes[s];
        long q, reps = s == 2 ? 2 : (long)((1u << 30) / (n * 4));
        double t[2][7];
        for (r = 0; r < 7; r++)
            for (k = 0; k < 2; k++) {
                double t0 = timer_now(TIMER_CPU);
                for (q = 0; q < reps; q++) {
                    sink = k ? fm_sum(x, n) : rsum(x, n);
                    __asm__ __volatile__("" ::: "memory");
                }
                t[k][r] = timer_now(TIMER_CPU) - t0;
            }
        qsort(t[0], 7, sizeof(double), timer_cmp);
        qsort(t[1], 7, sizeof(double), timer_cmp);
        printf("  %s %6.1f GB/s (%.2fx)", lv[s], 4.0 * (double)n * (double)reps / t[0][3] / 1e9,
               t[1][3] / t[0][3]);
    }
    printf("\n");
    free(x);
    return 0;
}
