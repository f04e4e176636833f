/* SPDX-License-Identifier: MIT */
/* bench/reduce/naive.c: the naive sequential loops, built at -O3 like the
   rest of the benchmark but in their own translation unit.  IEEE semantics
   forbid reordering the additions, so they are not vectorized: one
   dependent addition per element. */
#include <stddef.h>

float bench_naive_sum(const float *x, size_t n)
{
    float s = 0.0f;
    size_t i;
    for (i = 0; i < n; i++) s += x[i];
    return s;
}

float bench_naive_dot(const float *x, const float *y, size_t n)
{
    float s = 0.0f;
    size_t i;
    for (i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}
