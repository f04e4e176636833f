/* SPDX-License-Identifier: MIT */
/* tests/reduce/test_reduce.c: the reductions of include/repdl/reduce.h
   against the plain definition of reference/reduce_ref.h, bit for bit.

   Expected values never come from the code under test: sums, dots and
   sums of squares from the recursive reference, divisions (mean, variance)
   from IEEE binary32 division of the reference sum (every n here is below
   2^24, so n is exact and the division rounds once), square roots from
   sqrtf, max/min/argmax from float comparisons.

     test_reduce [--seed S] [--quick]

   Checks, for n in {0, 1, 2^k - 1, 2^k, 2^k + 1 (k <= 20), 10^6, random
   n <= 10^6} and data with +-0, subnormals, +-inf, NaN payloads, huge and
   tiny magnitudes, exact cancellation:
     - sum, dot, sumsq, norm2, mean, var (ddof 0, 1), max, min, argmax,
       argmin, and their strided (inc 2, 3, -1, -2, 0) and row-wise forms;
     - both leaf schedules against the reference leaf;
     - split invariance: random aligned splits through repdl_sum_state,
       equal blocks through repdl_sum_combine_f32, for sum and dot;
     - batch invariance: row r of a row-wise call equals the single call;
     - thread-count invariance: repdl_sum_threads_f32 with 1..4 threads;
     - the documented edge cases (n == 0 with NULL, misaligned blocks,
       n <= ddof, ...);
     - the pairwise depth: no element passes through more than
       ceil(log2 n) rounded additions (the error bound's d);
     - a control: fusing the products into the additions (what
       -ffp-contract=fast would do without the barrier) changes the result
       on this data, so the build with that flag is a real test. */
#define REPDL_THREADS_MIN 0 /* split even small arrays: the test wants threads */
#include <repdl/reduce.h>
#include <repdl/reduce_threads.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "gen.h"
#include "reduce_ref.h"

static float canon(float v) { return v != v ? asfloat(0x7fc00000u) : v; }

/* Oracle for RN(s / n), n <= 2^24: one IEEE division. */
static float div_oracle(float s, size_t n)
{
    volatile float q = s / (float)n;
    return canon(q);
}

/* ---- Structural check of the error bound: the number of rounded
   additions on each element's path (additions with -0 padding are exact
   and do not count).  Mirrors reference/reduce_ref.h, carrying for each
   node whether it holds a real element and the deepest such path. ---- */
typedef struct { int real, depth; } node_info;

static node_info join(node_info a, node_info b)
{
    node_info r;
    r.real = a.real || b.real;
    if (a.real && b.real) r.depth = (a.depth > b.depth ? a.depth : b.depth) + 1;
    else r.depth = a.real ? a.depth : b.depth;
    return r;
}
static node_info depth_vertical(size_t n, size_t base, size_t l, size_t j, size_t cnt)
{
    node_info r;
    if (cnt == 1) {
        r.real = base + j * REF_V + l < n;
        r.depth = 0;
        return r;
    }
    return join(depth_vertical(n, base, l, j, cnt / 2),
                depth_vertical(n, base, l, j + cnt / 2, cnt / 2));
}
static node_info depth_leaf(size_t n, size_t base)
{
    node_info a[REF_V];
    size_t l, h, v;
    for (l = 0; l < REF_V; l++) a[l] = depth_vertical(n, base, l, 0, REF_L);
    for (h = REF_V / 2; h >= 1; h /= 2)
        for (v = 0; v < h; v++) a[v] = join(a[v], a[v + h]);
    return a[0];
}
static node_info depth_node(size_t n, size_t m, unsigned k, size_t j)
{
    node_info left;
    if (k == 0) return depth_leaf(n, j * REF_LEAF);
    left = depth_node(n, m, k - 1, 2 * j);
    if (((2 * j + 1) << (k - 1)) >= m) return left;
    return join(left, depth_node(n, m, k - 1, 2 * j + 1));
}
static int ceil_log2(size_t n)
{
    int k = 0;
    while (((size_t)1 << k) < n) k++;
    return k;
}
static void test_depth(void)
{
    size_t n;
    /* every n up to 5000, then a sparse sweep to 2^20 */
    for (n = 1; n <= (size_t)1 << 20; n += n < 5000 ? 1 : 997 + (n >> 6)) {
        size_t m = (n + REF_LEAF - 1) / REF_LEAF;
        node_info r = depth_node(n, m, (unsigned)ceil_log2(m), 0);
        CHECK(r.real && r.depth <= ceil_log2(n), "n=%zu depth %d > ceil(log2 n) = %d", n,
              r.depth, ceil_log2(n));
    }
}

/* ---- The control: the reference dot with the first addition of each
   lane fused (fmaf), as gcc would contract it. ---- */
static const float *ctl_x, *ctl_y;
static size_t ctl_n;
static float ctl_prod(size_t i) { return i < ctl_n ? ref_mul(ctl_x[i], ctl_y[i]) : -0.0f; }
static float ctl_vertical(size_t base, size_t l, size_t j, size_t cnt)
{
    if (cnt == 2) {
        size_t i0 = base + j * REF_V + l, i1 = i0 + REF_V;
        if (i0 < ctl_n) return fmaf(ctl_x[i0], ctl_y[i0], ctl_prod(i1));
        return ctl_prod(i0) + ctl_prod(i1);
    }
    return ctl_vertical(base, l, j, cnt / 2) + ctl_vertical(base, l, j + cnt / 2, cnt / 2);
}
static float ctl_leaf(const void *ctx, size_t j)
{
    float a[REF_V];
    size_t l, h, v;
    (void)ctx;
    for (l = 0; l < REF_V; l++) a[l] = ctl_vertical(j * REF_LEAF, l, 0, REF_L);
    for (h = REF_V / 2; h >= 1; h /= 2)
        for (v = 0; v < h; v++) a[v] = a[v] + a[v + h];
    return a[0];
}
static float fused_dot(const float *x, const float *y, size_t n)
{
    ctl_x = x;
    ctl_y = y;
    ctl_n = n;
    return ref_canon(ref_tree(ctl_leaf, NULL, (n + REF_LEAF - 1) / REF_LEAF));
}

/* ---- Edge cases of the documentation ---- */
static void test_edges(void)
{
    static float zeros[4096]; /* blocks are refused before anything is read */
    float inf = asfloat(0x7f800000u), x3[3];
    /* outputs start as values no call returns here, so an output the call
       failed to write is caught (and gcc sees them initialised) */
    size_t idx[2] = {(size_t)-2, (size_t)-2};
    float out[2] = {3.0e38f, 3.0e38f};
    repdl_sum_state st;

    CHECK_BITS(repdl_sum_f32(0, NULL), -0.0f, "sum of nothing");
    CHECK_BITS(repdl_dot_f32(0, NULL, NULL), -0.0f, "dot of nothing");
    CHECK_BITS(repdl_sumsq_f32(0, NULL), -0.0f, "sumsq of nothing");
    CHECK_BITS(repdl_norm2_f32(0, NULL), -0.0f, "norm2 of nothing");
    CHECK_BITS(repdl_mean_f32(0, NULL), asfloat(0x7fc00000u), "mean of nothing");
    CHECK_BITS(repdl_var_f32(0, 0, NULL), asfloat(0x7fc00000u), "var of nothing");
    CHECK_BITS(repdl_max_f32(0, NULL), asfloat(0xff800000u), "max of nothing");
    CHECK_BITS(repdl_min_f32(0, NULL), asfloat(0x7f800000u), "min of nothing");
    CHECK(repdl_argmax_f32(0, NULL) == REPDL_NO_INDEX, "argmax of nothing");
    CHECK(repdl_argmin_f32(0, NULL) == REPDL_NO_INDEX, "argmin of nothing");
    CHECK_BITS(repdl_sum_strided_f32(0, NULL, 7), -0.0f, "strided sum of nothing");
    CHECK_BITS(repdl_dot_strided_f32(0, NULL, 3, NULL, -2), -0.0f, "strided dot");
    CHECK_BITS(repdl_mean_strided_f32(0, NULL, 2), asfloat(0x7fc00000u), "strided mean");
    CHECK_BITS(repdl_var_strided_f32(0, 1, NULL, 2), asfloat(0x7fc00000u), "strided var");
    CHECK_BITS(repdl_max_strided_f32(0, NULL, 5), asfloat(0xff800000u), "strided max");
    CHECK_BITS(repdl_sum_combine_f32(0, NULL), -0.0f, "combine of nothing");
    CHECK_BITS(repdl_sum_partial_f32(0, 0, NULL), -0.0f, "empty partial");
    CHECK_BITS(repdl_sum_threads_f32(0, 4, NULL), -0.0f, "threads, nothing");
    CHECK_BITS(repdl_dot_threads_f32(0, 3, NULL, NULL), -0.0f, "threads dot, nothing");
    repdl_sum_rows_f32(2, 0, NULL, 5, out);
    CHECK_BITS(out[1], -0.0f, "rows of nothing");
    repdl_argmax_rows_f32(2, 0, NULL, 5, idx);
    CHECK(idx[0] == REPDL_NO_INDEX && idx[1] == REPDL_NO_INDEX, "argmax rows of nothing");
    repdl_sum_rows_f32(0, 7, NULL, 5, NULL); /* no rows: touches nothing */

    /* variance: n <= ddof */
    x3[0] = 1.0f;
    x3[1] = 2.0f;
    x3[2] = 4.0f;
    CHECK_BITS(repdl_var_f32(1, 1, x3), asfloat(0x7fc00000u), "var n=1 ddof=1");
    CHECK_BITS(repdl_var_f32(1, 0, x3), 0.0f, "var n=1 ddof=0 is +0");
    CHECK_BITS(repdl_var_f32(2, 5, x3), asfloat(0x7fc00000u), "var n=2 ddof=5");
    /* mean 7/3: one rounding */
    CHECK_BITS(repdl_mean_f32(3, x3), div_oracle(7.0f, 3), "mean 7/3");
    /* population variance of {1,2,4}: m = RN(7/3), squares of rounded deviations */
    {
        float m = div_oracle(7.0f, 3), d0 = 1.0f - m, d1 = 2.0f - m, d2 = 4.0f - m;
        float s = (ref_mul(d0, d0) + ref_mul(d2, d2)) + ref_mul(d1, d1);
        /* lanes 0,1,2 fold: h=2 adds lane 2 to lane 0, then h=1 adds lane 1 */
        CHECK_BITS(repdl_var_f32(3, 0, x3), div_oracle(s, 3), "var {1,2,4}");
        CHECK_BITS(repdl_var_f32(3, 1, x3), div_oracle(s, 2), "var {1,2,4} ddof 1");
    }
    /* infinities: mean passes them, variance is NaN */
    x3[1] = inf;
    CHECK_BITS(repdl_mean_f32(3, x3), inf, "mean with +inf");
    CHECK_BITS(repdl_var_f32(3, 0, x3), asfloat(0x7fc00000u), "var with +inf");
    CHECK_BITS(repdl_norm2_f32(3, x3), inf, "norm2 with +inf");
    /* overflow of the squares */
    x3[0] = asfloat(0x5f800000u); /* 2^64: square 2^128 overflows */
    CHECK_BITS(repdl_sumsq_f32(1, x3), inf, "sumsq overflow");
    x3[0] = asfloat(0x5f7fffffu); /* just below 2^64: square finite */
    CHECK(repdl_sumsq_f32(1, x3) < inf, "sumsq just below overflow");
    /* underflow: (2^-75)^2 = 2^-150, half the smallest subnormal, rounds to
       +0 (tie to even); (1.5 * 2^-75)^2 = 1.125 * 2^-149 rounds to 2^-149;
       (2^-74)^2 = 2^-148 exactly */
    x3[0] = asfloat(0x1a000000u); /* 2^-75 */
    CHECK_BITS(repdl_sumsq_f32(1, x3), 0.0f, "sumsq underflow to +0");
    x3[0] = asfloat(0x1a400000u); /* 1.5 * 2^-75 */
    CHECK_BITS(repdl_sumsq_f32(1, x3), asfloat(1), "sumsq smallest subnormal");
    x3[0] = asfloat(0x1a800000u); /* 2^-74 */
    CHECK_BITS(repdl_sumsq_f32(1, x3), asfloat(2), "sumsq 2^-148");
    /* signed zeros */
    x3[0] = -0.0f;
    x3[1] = 0.0f;
    x3[2] = -0.0f;
    CHECK_BITS(repdl_max_f32(3, x3), 0.0f, "max(-0, +0, -0) = +0");
    CHECK_BITS(repdl_min_f32(3, x3), -0.0f, "min = -0");
    CHECK(repdl_argmax_f32(3, x3) == 1, "argmax of +0");
    CHECK(repdl_argmin_f32(3, x3) == 0, "argmin: first -0");
    CHECK_BITS(repdl_sum_f32(1, x3), -0.0f, "sum {-0}");
    CHECK_BITS(repdl_sum_f32(3, x3), 0.0f, "sum {-0, +0, -0}");
    CHECK_BITS(repdl_sumsq_f32(1, x3), 0.0f, "sumsq {-0} = +0");
    CHECK_BITS(repdl_mean_f32(1, x3), -0.0f, "mean {-0}");
    /* NaN: canonical, first index */
    x3[0] = 3.0f;
    x3[1] = asfloat(0xffc01234u);
    x3[2] = asfloat(0x7f800001u);
    CHECK_BITS(repdl_sum_f32(3, x3), asfloat(0x7fc00000u), "NaN sum canonical");
    CHECK_BITS(repdl_max_f32(3, x3), asfloat(0x7fc00000u), "NaN max canonical");
    CHECK(repdl_argmax_f32(3, x3) == 1 && repdl_argmin_f32(3, x3) == 1, "first NaN");
    /* ties */
    x3[0] = 5.0f;
    x3[1] = 7.0f;
    x3[2] = 7.0f;
    CHECK(repdl_argmax_f32(3, x3) == 1, "argmax tie: first");
    CHECK(repdl_argmin_strided_f32(3, x3 + 2, -1) == 2, "argmin strided");
    CHECK(repdl_argmax_strided_f32(3, x3 + 2, -1) == 0, "argmax strided tie: first");
    /* merge helpers */
    {
        float v = 1.0f;
        size_t i = 10;
        repdl_argmax_merge_f32(1.0f, 4, &v, &i);
        CHECK(i == 4, "merge tie takes the lesser index");
        repdl_argmax_merge_f32(0.5f, 0, &v, &i);
        CHECK(i == 4, "merge keeps the larger value");
        repdl_argmax_merge_f32(asfloat(0x7fc00000u), 9, &v, &i);
        CHECK(i == 9, "merge: NaN wins");
        repdl_argmax_merge_f32(asfloat(0xffffffffu), 7, &v, &i);
        CHECK(i == 7, "merge: first NaN");
        repdl_argmax_merge_f32(100.0f, 1, &v, &i);
        CHECK(i == 7, "merge: NaN stays");
        repdl_argmax_merge_f32(100.0f, REPDL_NO_INDEX, &v, &i);
        CHECK(i == 7, "merge: empty block");
        CHECK_BITS(repdl_max2_f32(-0.0f, 0.0f), 0.0f, "max2 zeros");
        CHECK_BITS(repdl_min2_f32(0.0f, -0.0f), -0.0f, "min2 zeros");
    }

    /* The partial API refuses blocks that are not nodes */
    CHECK_BITS(repdl_sum_partial_f32(512, 1, zeros), asfloat(0x7fc00000u), "misaligned");
    CHECK_BITS(repdl_sum_partial_f32(1024, 2048, zeros), asfloat(0x7fc00000u),
               "level-1 block at an odd leaf");
    CHECK(repdl_sum_block_ok(1024, 1024) && repdl_sum_block_ok(2048, 2048) &&
              !repdl_sum_block_ok(1024, 1025) && repdl_sum_block_ok(4096, 3000) &&
              !repdl_sum_block_ok(3072, 2048),
          "block_ok");
    repdl_sum_state_init(&st);
    CHECK(repdl_sum_state_push(&st, 0, 1024, 1.0f) == 0, "first block");
    CHECK(repdl_sum_state_push(&st, 2048, 1024, 1.0f) == -1, "gap refused");
    CHECK_BITS(repdl_sum_state_result(&st), asfloat(0x7fc00000u), "poisoned state");
    repdl_sum_state_init(&st);
    CHECK(repdl_sum_state_push(&st, 0, 1024, 1.0f) == 0, "first");
    CHECK(repdl_sum_state_push(&st, 1024, 2048, 1.0f) == -1, "misaligned refused");
    repdl_sum_state_init(&st);
    CHECK(repdl_sum_state_push(&st, 0, 100, 1.0f) == 0, "short first block");
    CHECK(repdl_sum_state_push(&st, 100, 5, 1.0f) == -1, "nothing after a short block");
    repdl_sum_state_init(&st);
    CHECK(repdl_sum_state_push(&st, 0, 3072, 1.0f) == 0, "3 leaves: a short level-2 block");
    CHECK(repdl_sum_state_push(&st, 3072, 1024, 1.0f) == -1, "it ended the array");
    repdl_sum_state_init(&st);
    CHECK(repdl_sum_state_push(&st, 0, 0, 5.0f) == 0, "empty block is fine");
    CHECK_BITS(repdl_sum_state_result(&st), -0.0f, "empty state: -0");
    /* block sizes near 2^32 leaves and beyond: pure index arithmetic */
    {
        size_t big = (size_t)1 << 42; /* 2^32 leaves */
        CHECK(repdl_sum_block_size(big, 2 * big) == big, "block size 2^42");
        CHECK(repdl_sum_block_size(big + 1024, 2 * big) == 1024, "block after 2^42");
        CHECK(repdl_sum_block_size(big, big + 5000) == 4096, "block 2^42 + 4096");
        CHECK(repdl_sum_block_size(big + 4096, big + 5000) == 904, "tail");
        CHECK(repdl_sum_block_ok(big, big) && !repdl_sum_block_ok(big + 1024, big),
              "block_ok 2^42");
        CHECK(repdl__sum_block_level(big) == 32 && repdl__sum_block_level(big + 1) == 33,
              "levels near 2^32 leaves");
        CHECK(repdl_sum_block_size(0, (size_t)-1) == ((size_t)1 << 63), "largest block");
    }
}

/* ---- Checks of one array ---- */
static float *sc_a, *sc_b; /* scratch arrays */

static void check_minmax(const float *x, size_t n, const char *what)
{
    CHECK_BITS(repdl_max_f32(n, x), ref_max(x, n), "max %s n=%zu", what, n);
    CHECK_BITS(repdl_min_f32(n, x), ref_min(x, n), "min %s n=%zu", what, n);
    CHECK(repdl_argmax_f32(n, x) == ref_argext(x, n, 1), "argmax %s n=%zu", what, n);
    CHECK(repdl_argmin_f32(n, x) == ref_argext(x, n, 0), "argmin %s n=%zu", what, n);
}

/* Random split of [0, n) into nodes, each summed alone, merged in order. */
static void check_splits(const float *x, const float *y, size_t n, float want_sum,
                         float want_dot, const char *what)
{
    int rep;
    unsigned k;
    for (rep = 0; rep < 3; rep++) {
        repdl_sum_state ss, sd;
        size_t b = 0;
        int ok = 1;
        repdl_sum_state_init(&ss);
        repdl_sum_state_init(&sd);
        while (b < n) {
            /* the largest level allowed at b, then a random level below it */
            unsigned kmax = 0, kk;
            size_t c;
            while (kmax < 40 && (b & (((size_t)REF_LEAF << (kmax + 1)) - 1)) == 0 &&
                   ((size_t)REF_LEAF << kmax) < n - b)
                kmax++;
            kk = (unsigned)gen_below(kmax + 1);
            c = (size_t)REF_LEAF << kk;
            if (c > n - b) c = n - b; /* the last block, short */
            ok &= repdl_sum_state_push(&ss, b, c, repdl_sum_partial_f32(b, c, x)) == 0;
            ok &= repdl_sum_state_push(&sd, b, c, repdl_dot_f32(c, x + b, y + b)) == 0;
            b += c;
        }
        CHECK(ok, "split refused, %s n=%zu", what, n);
        CHECK_BITS(repdl_sum_state_result(&ss), want_sum, "split sum %s n=%zu", what, n);
        CHECK_BITS(repdl_sum_state_result(&sd), want_dot, "split dot %s n=%zu", what, n);
    }
    /* equal blocks of 2^k leaves, combined */
    for (k = 0; ((size_t)REF_LEAF << k) < n; k += 1 + (unsigned)gen_below(3)) {
        size_t blk = (size_t)REF_LEAF << k, p = (n + blk - 1) / blk, i;
        float *part = (float *)malloc(p * sizeof(float));
        for (i = 0; i < p; i++) {
            size_t c = n - i * blk < blk ? n - i * blk : blk;
            part[i] = repdl_sum_f32(c, x + i * blk);
        }
        CHECK_BITS(repdl_sum_combine_f32(p, part), want_sum, "combine k=%u %s n=%zu", k,
                   what, n);
        CHECK_BITS(ref_combine(part, p), want_sum, "ref_combine k=%u %s n=%zu", k, what, n);
        /* the in-place GPU form of the documentation */
        {
            size_t s2;
            for (s2 = 1; s2 < p; s2 *= 2)
                for (i = 0; i + s2 < p; i += 2 * s2) part[i] = part[i] + part[i + s2];
            CHECK_BITS(canon(part[0]), want_sum, "in-place tree k=%u %s n=%zu", k, what, n);
        }
        free(part);
    }
}

static void check_strided(const float *x, const float *y, size_t n, float want_sum,
                          float want_dot, const char *what)
{
    static const ptrdiff_t incs[] = {2, 3, -1, -2};
    size_t i, t;
    for (t = 0; t < sizeof incs / sizeof *incs; t++) {
        ptrdiff_t inc = incs[t];
        size_t span = n * (size_t)(inc < 0 ? -inc : inc) + 1;
        float *bx = (float *)malloc(span * sizeof(float));
        float *by = (float *)malloc(span * sizeof(float));
        float *px = inc < 0 ? bx + span - 1 : bx, *py = inc < 0 ? by + span - 1 : by;
        for (i = 0; i < span; i++) bx[i] = by[i] = gen_nan(); /* gaps: never read */
        for (i = 0; i < n; i++) {
            px[(ptrdiff_t)i * inc] = x[i];
            py[(ptrdiff_t)i * inc] = y[i];
        }
        CHECK_BITS(repdl_sum_strided_f32(n, px, inc), want_sum, "strided %td sum %s n=%zu",
                   inc, what, n);
        CHECK_BITS(repdl_dot_strided_f32(n, px, inc, py, inc), want_dot,
                   "strided %td dot %s n=%zu", inc, what, n);
        CHECK_BITS(repdl_mean_strided_f32(n, px, inc), repdl_mean_f32(n, x),
                   "strided mean %s n=%zu", what, n);
        CHECK_BITS(repdl_var_strided_f32(n, 1, px, inc), repdl_var_f32(n, 1, x),
                   "strided var %s n=%zu", what, n);
        CHECK_BITS(repdl_max_strided_f32(n, px, inc), ref_max(x, n), "strided max");
        CHECK(repdl_argmin_strided_f32(n, px, inc) == ref_argext(x, n, 0), "strided argmin");
        CHECK_BITS(repdl_norm2_strided_f32(n, px, inc), repdl_norm2_f32(n, x),
                   "strided norm2");
        free(bx);
        free(by);
    }
    /* stride 0: n copies of x[0] */
    if (n > 0) {
        for (i = 0; i < n; i++) sc_a[i] = x[0];
        CHECK_BITS(repdl_sum_strided_f32(n, x, 0), ref_sum(sc_a, n), "stride 0 %s n=%zu",
                   what, n);
        CHECK_BITS(repdl_dot_strided_f32(n, x, 0, y, 1), ref_dot(sc_a, y, n),
                   "stride 0 dot %s n=%zu", what, n);
    }
}

static void check_rows(const float *x, const float *y, size_t n, const char *what)
{
    /* rows of this array at ldx = n + 3: each row must equal the single
       call and the reference */
    enum { R = 4 };
    size_t ld = n + 3, r, idx[R];
    float *bx = (float *)malloc((R * ld + 1) * sizeof(float));
    float *by = (float *)malloc((R * ld + 1) * sizeof(float));
    float o[R];
    for (r = 0; r < R; r++) {
        memcpy(bx + r * ld, x + (r * 7) % (n + 1), (n - (r * 7) % (n + 1)) * sizeof(float));
        memcpy(bx + r * ld + (n - (r * 7) % (n + 1)), x, ((r * 7) % (n + 1)) * sizeof(float));
        memcpy(by + r * ld, y, n * sizeof(float));
    }
    repdl_sum_rows_f32(R, n, bx, ld, o);
    for (r = 0; r < R; r++) {
        CHECK_BITS(o[r], repdl_sum_f32(n, bx + r * ld), "sum row %zu %s n=%zu", r, what, n);
        CHECK_BITS(o[r], ref_sum(bx + r * ld, n), "sum row ref %zu %s n=%zu", r, what, n);
    }
    repdl_dot_rows_f32(R, n, bx, ld, by, ld, o);
    for (r = 0; r < R; r++)
        CHECK_BITS(o[r], repdl_dot_f32(n, bx + r * ld, by + r * ld), "dot row %zu", r);
    repdl_sumsq_rows_f32(R, n, bx, ld, o);
    for (r = 0; r < R; r++) CHECK_BITS(o[r], repdl_sumsq_f32(n, bx + r * ld), "sumsq row");
    repdl_norm2_rows_f32(R, n, bx, ld, o);
    for (r = 0; r < R; r++) CHECK_BITS(o[r], repdl_norm2_f32(n, bx + r * ld), "norm2 row");
    repdl_mean_rows_f32(R, n, bx, ld, o);
    for (r = 0; r < R; r++) CHECK_BITS(o[r], repdl_mean_f32(n, bx + r * ld), "mean row");
    repdl_var_rows_f32(R, n, 1, bx, ld, o);
    for (r = 0; r < R; r++) CHECK_BITS(o[r], repdl_var_f32(n, 1, bx + r * ld), "var row");
    repdl_max_rows_f32(R, n, bx, ld, o);
    for (r = 0; r < R; r++) CHECK_BITS(o[r], ref_max(bx + r * ld, n), "max row");
    repdl_min_rows_f32(R, n, bx, ld, o);
    for (r = 0; r < R; r++) CHECK_BITS(o[r], ref_min(bx + r * ld, n), "min row");
    repdl_argmax_rows_f32(R, n, bx, ld, idx);
    for (r = 0; r < R; r++) CHECK(idx[r] == ref_argext(bx + r * ld, n, 1), "argmax row");
    repdl_argmin_rows_f32(R, n, bx, ld, idx);
    for (r = 0; r < R; r++) CHECK(idx[r] == ref_argext(bx + r * ld, n, 0), "argmin row");
    /* batch size 1 and R give the same row 0 */
    {
        float one_row = asfloat(0x7f7f7f7fu); /* unwritten: caught */
        CHECK(repdl_sum_rows_f32(1, n, bx, ld, &one_row) == REPDL_OK, "sum_rows one row");
        repdl_sum_rows_f32(R, n, bx, ld, o);
        CHECK_BITS(o[0], one_row, "batch invariance row 0 %s n=%zu", what, n);
    }
    free(bx);
    free(by);
}

static int control_seen;

static void check_array(const float *x, const float *y, size_t n, int kind, int full)
{
    const char *what = gen_kind_name[kind];
    float want_sum = ref_sum(x, n), want_dot = ref_dot(x, y, n);
    float want_sq = ref_dot(x, x, n);
    int T;

    CHECK_BITS(repdl_sum_f32(n, x), want_sum, "sum %s n=%zu", what, n);
    CHECK_BITS(repdl_dot_f32(n, x, y), want_dot, "dot %s n=%zu", what, n);
    CHECK_BITS(repdl_sumsq_f32(n, x), want_sq, "sumsq %s n=%zu", what, n);
    CHECK_BITS(repdl_norm2_f32(n, x), canon(sqrtf(want_sq)), "norm2 %s n=%zu", what, n);
    if (n > 0) {
        float m = div_oracle(want_sum, n);
        CHECK_BITS(repdl_mean_f32(n, x), m, "mean %s n=%zu", what, n);
        {
            float s2 = ref_sum_sqdev(x, n, m);
            CHECK_BITS(repdl_var_f32(n, 0, x), div_oracle(s2, n), "var0 %s n=%zu", what, n);
            CHECK_BITS(repdl_var_f32(n, 1, x), n > 1 ? div_oracle(s2, n - 1)
                                                     : asfloat(0x7fc00000u),
                       "var1 %s n=%zu", what, n);
        }
    }
    check_minmax(x, n, what);
    if (asuint(fused_dot(x, y, n)) != asuint(want_dot)) control_seen = 1;
    for (T = 1; T <= 4; T++) {
        CHECK_BITS(repdl_sum_threads_f32(n, T, x), want_sum, "threads %d sum %s n=%zu", T,
                   what, n);
        if (full || T == 3)
            CHECK_BITS(repdl_dot_threads_f32(n, T, x, y), want_dot, "threads %d dot", T);
    }
    if (!full) return;
    check_splits(x, y, n, want_sum, want_dot, what);
    if (n <= ((size_t)1 << 17)) check_strided(x, y, n, want_sum, want_dot, what);
    if (n <= ((size_t)1 << 16)) check_rows(x, y, n, what);
}

/* The two leaf schedules, leaf by leaf, against the reference leaf: of
   x for a sum, of the rounded products x[i] * y[i] for a dot.  A leaf
   value is internal: a NaN's payload there depends on which NaN operand
   the hardware propagates (compilers may swap the operands of an
   addition), so NaNs are compared canonicalised, as every result is. */
static void check_leaves(const float *x, const float *y, size_t n, int kind)
{
    size_t j, i;
    uint32_t keep = repdl__opaque_ones();
    for (j = 0; j + REF_LEAF <= n; j += REF_LEAF) {
        float want = canon(ref_leaf(x, n, j)), p[REF_LEAF], wantd;
        CHECK_BITS(canon(repdl__sum_leaf_full_f32(x + j)), want, "leaf_full %s j=%zu",
                   gen_kind_name[kind], j);
        CHECK_BITS(canon(repdl__sum_leaf_stream_f32(x + j)), want, "leaf_stream %s j=%zu",
                   gen_kind_name[kind], j);
        for (i = 0; i < REF_LEAF; i++) p[i] = ref_mul(x[j + i], y[j + i]);
        wantd = canon(ref_leaf(p, REF_LEAF, 0));
        CHECK_BITS(canon(repdl__dot_leaf_full_f32(x + j, y + j, keep)), wantd,
                   "dot leaf_full %s j=%zu", gen_kind_name[kind], j);
        CHECK_BITS(canon(repdl__dot_leaf_stream_f32(x + j, y + j, keep)), wantd,
                   "dot leaf_stream %s j=%zu", gen_kind_name[kind], j);
    }
}

/* repdl_div_count_f32, the public array form: every element against IEEE
   division (count <= 2^24), NaN inputs canonical, count 0 all NaN, in
   place, n == 0 with NULL. */
static void check_div_count_array(void)
{
    enum { N = 777 };
    static float x[N], y[N];
    size_t counts[] = {1, 2, 3, 10, 16, 64, 100, 4095, (size_t)1 << 24};
    size_t c, i;
    for (i = 0; i < N; i++) {
        x[i] = i % 5 == 0 ? gen_exp_range(0, 30) : gen_exp_range(0, 254);
        if (gen_below(2)) x[i] = -x[i];
    }
    x[0] = 0.0f; x[1] = -0.0f; x[2] = asfloat(0x7f800000u); x[3] = asfloat(0xff800000u);
    x[4] = asfloat(0x7fa00001u); x[5] = asfloat(0xffc12345u); x[6] = asfloat(1); x[7] = asfloat(0x80000003u);
    for (c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        repdl_div_count_f32(N, counts[c], x, y);
        for (i = 0; i < N; i++)
            CHECK_BITS(y[i], div_oracle(x[i], counts[c]), "div_count %a / %zu", x[i], counts[c]);
    }
    repdl_div_count_f32(N, 0, x, y);
    for (i = 0; i < N; i++) CHECK_BITS(y[i], asfloat(0x7fc00000u), "div_count %a / 0", x[i]);
    memcpy(y, x, sizeof x);
    repdl_div_count_f32(N, 64, y, y); /* in place */
    for (i = 0; i < N; i++) CHECK_BITS(y[i], div_oracle(x[i], 64), "div_count in place %a", x[i]);
    repdl_div_count_f32(0, 5, NULL, NULL);
}

/* Exact division: the long-division path against IEEE division, for every
   n where the latter rounds once (n <= 2^24). */
static void check_division(void)
{
    int i;
    for (i = 0; i < 200000; i++) {
        float s = i % 3 == 0 ? gen_exp_range(0, 254) : gen_exp_range(0, 30);
        size_t n = i % 4 == 0 ? 1 + gen_below(16) : 1 + gen_below((uint64_t)1 << (1 + i % 24));
        if (i % 50 == 0) s = asfloat(i % 100 == 0 ? 0x80000000u : 0x7f800000u);
        CHECK_BITS(repdl__div_exact_f32(s, n), div_oracle(s, n), "div %a / %zu", s, n);
        CHECK_BITS(repdl__div_count_f32(s, n), div_oracle(s, n), "div %a / %zu", s, n);
    }
    check_div_count_array();
}

int main(int argc, char **argv)
{
    uint64_t seed = 20261121;
    int quick = 0, a, kind;
    size_t nmax = 1000000, k;
    size_t ns[200];
    int nn = 0, t;
    float *x, *y;

    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--seed") && a + 1 < argc) seed = strtoull(argv[++a], NULL, 0);
        else if (!strcmp(argv[a], "--quick")) quick = 1;
    }
    splitmix64_seed(&gen_rng, seed);
    printf("test_reduce: seed %llu, V=%d L=%d, stream schedule from %zu, prefetch from %zu\n",
           (unsigned long long)seed, REPDL_SUM_LANES, REPDL_SUM_VECS,
           (size_t)REPDL_SUM_STREAM_MIN, (size_t)REPDL_SUM_PREFETCH_MIN);
    if (REPDL_SUM_LANES != REF_V || REPDL_SUM_VECS != REF_L || REPDL_SUM_LEAF != REF_LEAF) {
        printf("FAIL: the header's leaf geometry differs from the reference\n");
        return 1;
    }
    if (!repdl_fpenv_ok(1.0f)) {
        printf("FAIL: flush-to-zero environment\n");
        return 1;
    }

    ns[nn++] = 0;
    ns[nn++] = 1;
    ns[nn++] = 2;
    ns[nn++] = 3;
    ns[nn++] = 5;
    ns[nn++] = 7;
    for (k = 3; k <= 20; k++) {
        ns[nn++] = ((size_t)1 << k) - 1;
        ns[nn++] = (size_t)1 << k;
        ns[nn++] = ((size_t)1 << k) + 1;
    }
    ns[nn++] = 1000000;
    /* the schedules' thresholds, odd tails (the build with small
       thresholds puts every schedule and the prefetching under the
       reference) */
    if (REPDL_SUM_STREAM_MIN + 4000 <= nmax) ns[nn++] = REPDL_SUM_STREAM_MIN + 1024 * 3 + 17;
    if (REPDL_SUM_PREFETCH_MIN + 9000 <= nmax)
        ns[nn++] = REPDL_SUM_PREFETCH_MIN + 1024 * 7 + 1;
    if (REPDL_SUM_PREFETCH_MIN / 2 + 9000 <= nmax)
        ns[nn++] = REPDL_SUM_PREFETCH_MIN / 2 + 1024 * 6 + 511;
    for (t = 0; t < (quick ? 4 : 12); t++) ns[nn++] = (size_t)gen_below(nmax + 1);
    for (t = 0; t < 8; t++) ns[nn++] = (size_t)gen_below(5000) * 2 + 1; /* odd sizes */

    x = (float *)malloc((nmax + 1) * 3 * sizeof(float) + 64);
    y = (float *)malloc((nmax + 1) * 3 * sizeof(float) + 64);
    sc_a = (float *)malloc((nmax + 1) * 3 * sizeof(float));
    sc_b = (float *)malloc((nmax + 1) * 3 * sizeof(float));

    test_edges();
    test_depth();
    check_division();

    for (kind = 0; kind < GEN_KINDS; kind++) {
        gen_fill(x, nmax + 1, kind);
        gen_fill(y, nmax + 1, kind == GEN_ZEROS ? GEN_MIXED : kind);
        check_leaves(x, y, 1 << 17, kind);
        for (t = 0; t < nn; t++) {
            size_t n = ns[t];
            /* every size with this data; the costly checks on the smaller
               sizes and on every size for the first kinds */
            int full = !quick && (kind <= GEN_NONFINITE || n <= 70000);
            /* fresh data per size for the kinds where it matters */
            if (n > 0 && n < 100000) {
                gen_fill(x, n, kind);
                gen_fill(y, n, kind == GEN_ZEROS ? GEN_MIXED : kind);
            }
            check_array(x, y, n, kind, full);
            /* the same data at an unaligned address */
            if (n < 5000 && n > 0) {
                memcpy(sc_b + 1, x, n * sizeof(float));
                CHECK_BITS(repdl_sum_f32(n, sc_b + 1), ref_sum(x, n), "unaligned n=%zu", n);
            }
        }
    }
    CHECK(control_seen, "the fused-dot control never differed: the contraction test "
                        "would be blind");

    free(x);
    free(y);
    free(sc_a);
    free(sc_b);
    return check_summary("test_reduce");
}
