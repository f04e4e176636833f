/* SPDX-License-Identifier: MIT */
/* The -O3 -ffast-math anchor of the parameter study. */
#include <stddef.h>
float fm_sum(const float *x, size_t n)
{
    float s = 0.0f;
    size_t i;
    for (i = 0; i < n; i++) s += x[i];
    return s;
}
