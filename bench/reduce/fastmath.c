/* SPDX-License-Identifier: MIT */
/* bench/reduce/fastmath.c: the same naive loops compiled with -O3
   -ffast-math (this translation unit only; it must not include repdl, which
   refuses -ffast-math).  The compiler is then free to reassociate: it
   vectorizes the loops, and the result depends on the compiler, flags and
   vector width (not reproducible).  Also the read-bandwidth anchors: loops
   that only read memory as fast as the core can, so that the reductions
   can be compared with the machine's read bandwidth.  (None of this needs
   -ffast-math but the first two; the anchors are here to keep them out of
   the repdl translation unit.) */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

float bench_fastmath_sum(const float *x, size_t n)
{
    float s = 0.0f;
    size_t i;
    for (i = 0; i < n; i++) s += x[i];
    return s;
}

float bench_fastmath_dot(const float *x, const float *y, size_t n)
{
    float s = 0.0f;
    size_t i;
    for (i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}

/* Read anchor 1: 64 independent float accumulators (no latency chain). */
float bench_read_acc64(const float *x, size_t n)
{
    float a[64] = {0}, s = 0.0f;
    size_t i, k;
    for (i = 0; i + 64 <= n; i += 64)
        for (k = 0; k < 64; k++) a[k] += x[i + k];
    for (; i < n; i++) s += x[i];
    for (k = 0; k < 64; k++) s += a[k];
    return s;
}

/* Read anchor 2: integer xor of every word (one cheap operation per
   element, vectorized at any width). */
float bench_read_xor(const float *x, size_t n)
{
    const uint32_t *u = (const uint32_t *)(const void *)x;
    uint32_t a[16] = {0}, r = 0;
    size_t i, k;
    float f;
    for (i = 0; i + 16 <= n; i += 16)
        for (k = 0; k < 16; k++) a[k] ^= u[i + k];
    for (; i < n; i++) r ^= u[i];
    for (k = 0; k < 16; k++) r ^= a[k];
    memcpy(&f, &r, 4);
    return f;
}

/* Read anchor 3: the C library's memcpy, 4 KiB at a time, into a buffer
   that stays in L1 (glibc streams memory with its best instructions and
   prefetching). */
float bench_read_memcpy(const float *x, size_t n)
{
    float buf[1024];
    uint32_t r = 0, u;
    size_t i;
    for (i = 0; i + 1024 <= n; i += 1024) {
        memcpy(buf, x + i, sizeof buf);
        __asm__ __volatile__("" : : "r"(buf) : "memory");
        memcpy(&u, &buf[i & 1023], 4);
        r ^= u;
    }
    memcpy(&buf[0], &r, 4);
    return buf[0];
}
