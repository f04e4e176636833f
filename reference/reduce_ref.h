/* SPDX-License-Identifier: MIT */
/* reference/reduce_ref.h: the canonical summation order of
   docs/canonical-order.md, written as plainly as possible: the oracle that
   every fast implementation (include/repdl/reduce.h, the CUDA kernels) is
   tested against, bit for bit.

   Each function mirrors one section of the document.  Slow (a function
   call per element and per node) and independent of the library: it
   includes no repdl header.  Additions are plain `+` on floats, each
   rounded once (no compiler can contract an addition alone); products are
   forced through a volatile so that no compiler fuses them with the
   additions that follow, whatever -ffp-contract says. */
#ifndef REPDL_REFERENCE_REDUCE_REF_H
#define REPDL_REFERENCE_REDUCE_REF_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Section 2: the parameters. */
#define REF_V 64             /* lanes of a vector */
#define REF_L 16             /* vectors of a leaf */
#define REF_LEAF (REF_V * REF_L)

static inline float ref_canon(float s) /* section 7: canonical NaN */
{
    if (s != s) { uint32_t u = 0x7fc00000u; memcpy(&s, &u, 4); }
    return s;
}

/* Section 3: element i of the sequence, -0.0 past the end (padding). */
static inline float ref_elem(const float *x, size_t n, size_t i)
{
    return i < n ? x[i] : -0.0f;
}

/* Section 3.1: lane l of the leaf starting at element `base`: the
   vertical adjacent pairwise tree over its vectors j .. j + cnt - 1. */
static inline float ref_vertical(const float *x, size_t n, size_t base, size_t l,
                                 size_t j, size_t cnt)
{
    if (cnt == 1) return ref_elem(x, n, base + j * REF_V + l);
    return ref_vertical(x, n, base, l, j, cnt / 2) +
           ref_vertical(x, n, base, l, j + cnt / 2, cnt / 2);
}

/* Section 3.2: the leaf value: the lanes fold by halving. */
static inline float ref_leaf(const float *x, size_t n, size_t base)
{
    float a[REF_V];
    size_t l, h, v;
    for (l = 0; l < REF_V; l++) a[l] = ref_vertical(x, n, base, l, 0, REF_L);
    for (h = REF_V / 2; h >= 1; h /= 2)
        for (v = 0; v < h; v++) a[v] = a[v] + a[v + h];
    return a[0];
}

/* Section 4: node (k, j) of the buddy tree over m leaf values, covering
   leaves j 2^k .. (j + 1) 2^k - 1; a missing right sibling passes the left
   one up.  leaf(ctx, j) gives the value of leaf j. */
typedef float (*ref_leaf_fn)(const void *ctx, size_t j);

static inline float ref_node(ref_leaf_fn leaf, const void *ctx, size_t m, unsigned k,
                             size_t j)
{
    float left;
    if (k == 0) return leaf(ctx, j);
    left = ref_node(leaf, ctx, m, k - 1, 2 * j);
    if (((2 * j + 1) << (k - 1)) >= m) return left;
    return left + ref_node(leaf, ctx, m, k - 1, 2 * j + 1);
}

/* The root over m leaves: node (K, 0) with 2^K >= m; -0.0 for m == 0. */
static inline float ref_tree(ref_leaf_fn leaf, const void *ctx, size_t m)
{
    unsigned K = 0;
    if (m == 0) return -0.0f;
    while (((size_t)1 << K) < m) K++;
    return ref_node(leaf, ctx, m, K, 0);
}

/* Section 4 with the leaves of section 3. */
typedef struct ref_array { const float *x; size_t n; } ref_array;

static inline float ref_array_leaf(const void *ctx, size_t j)
{
    const ref_array *a = (const ref_array *)ctx;
    return ref_leaf(a->x, a->n, j * REF_LEAF);
}

/* The canonical sum (sections 2 to 7). */
static inline float ref_sum(const float *x, size_t n)
{
    ref_array a;
    a.x = x;
    a.n = n;
    return ref_canon(ref_tree(ref_array_leaf, &a, (n + REF_LEAF - 1) / REF_LEAF));
}

/* Section 6: the buddy tree alone, over p given values (block partials). */
static inline float ref_values_leaf(const void *ctx, size_t j)
{
    return ((const float *)ctx)[j];
}
static inline float ref_combine(const float *v, size_t p)
{
    return ref_canon(ref_tree(ref_values_leaf, v, p));
}

/* Section 8: each product rounded (the volatile forbids fusing it with a
   later addition), then the canonical sum of the products. */
static inline float ref_mul(float a, float b)
{
    volatile float p = a * b;
    return p;
}
static inline float ref_dot(const float *x, const float *y, size_t n)
{
    float *p = (float *)malloc((n ? n : 1) * sizeof(float));
    float s;
    size_t i;
    for (i = 0; i < n; i++) p[i] = ref_mul(x[i], y[i]);
    s = ref_sum(p, n);
    free(p);
    return s;
}

/* Section 8: two-pass variance given the mean m: the canonical sum of the
   rounded squares of the rounded deviations (division left to the caller,
   which checks it against MPFR). */
static inline float ref_sum_sqdev(const float *x, size_t n, float m)
{
    float *p = (float *)malloc((n ? n : 1) * sizeof(float));
    float s;
    size_t i;
    for (i = 0; i < n; i++) {
        volatile float d = x[i] - m;
        p[i] = ref_mul(d, d);
    }
    s = ref_sum(p, n);
    free(p);
    return s;
}

/* Section 9: max / min / argmax / argmin, straight from the rules: NaN
   first (first NaN index), then the numeric order with -0 < +0, ties to the
   first index.  Written with float comparisons, not the library's integer
   keys. */
static inline int ref_isnan(float a) { return a != a; }
static inline int ref_signbit(float a)
{
    uint32_t u;
    memcpy(&u, &a, 4);
    return (int)(u >> 31);
}
/* 1 when a is greater than b in the order -inf < ... < -0 < +0 < ... < +inf. */
static inline int ref_greater(float a, float b)
{
    if (a == 0 && b == 0) return !ref_signbit(a) && ref_signbit(b);
    return a > b;
}
static inline size_t ref_argext(const float *x, size_t n, int want_max)
{
    size_t i, best = 0;
    if (n == 0) return (size_t)-1;
    for (i = 0; i < n; i++)
        if (ref_isnan(x[i])) return i;
    for (i = 1; i < n; i++)
        if (want_max ? ref_greater(x[i], x[best]) : ref_greater(x[best], x[i])) best = i;
    return best;
}
static inline float ref_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline float ref_max(const float *x, size_t n) /* -inf when n == 0 */
{
    return n == 0 ? ref_from_bits(0xff800000u) : ref_canon(x[ref_argext(x, n, 1)]);
}
static inline float ref_min(const float *x, size_t n) /* +inf when n == 0 */
{
    return n == 0 ? ref_from_bits(0x7f800000u) : ref_canon(x[ref_argext(x, n, 0)]);
}

#endif /* REPDL_REFERENCE_REDUCE_REF_H */
