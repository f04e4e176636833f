/* SPDX-License-Identifier: MIT */
/* tests/nn/test_backward.c: include/repdl/backward.h, the backward passes
   of exp, log, tanh, sqrt and of the row reductions sum, mean, var, norm2,
   bit for bit against the formulas of docs/nn.md written out here with
   their own rounding steps (one binary32 operation a statement, each
   result stored to a volatile float, so no build contracts or widens
   them) and the plain canonical sum of reference/reduce_ref.h.

   Cases: every pair of a set of special values (+-0, subnormals, the
   smallest and largest normals, +-1, +-inf, NaNs with payloads) and random
   bit patterns; each scalar function against its formula, each array form
   against its scalar form, in place (dx == in, dx == dy); the row forms
   on rows of 1 to 2100 elements (across leaves) with specials, ddof 0, 1,
   n and more, in place dx == x; n = 0 and rows = 0 with NULL, NULL
   pointers, size overflow, and nothing written on an error.
   Exit 0 when every check passes; each failure is printed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/backward.h>

#include "reduce_ref.h"

static long fails, checks;

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float from(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void same(float got, float want, const char *what, float a, float b)
{
    checks++;
    if (bits(got) != bits(want)) {
        if (fails < 20)
            printf("FAIL %s(%08x, %08x): got %08x, want %08x\n", what, (unsigned)bits(a),
                   (unsigned)bits(b), (unsigned)bits(got), (unsigned)bits(want));
        fails++;
    }
}

/* The formulas of docs/nn.md, one rounding a statement. */
static float canon(float v) { return v != v ? from(0x7fc00000u) : v; }
static float f_exp(float y, float dy)
{
    volatile float p = dy * y;
    return canon(p);
}
static float f_log(float x, float dy)
{
    volatile float q = dy / x;
    return canon(q);
}
static float f_tanh(float y, float dy)
{
    volatile float sq = y * y;
    volatile float one_minus = 1.0f - sq;
    volatile float p = dy * one_minus;
    return canon(p);
}
static float f_sqrt(float y, float dy)
{
    volatile float two_y = 2.0f * y;
    volatile float q = dy / two_y;
    return canon(q);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 32);
}

static const uint32_t specials[] = {
    0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu,
    0x00800000u, 0x80800000u, 0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0xff7fffffu,
    0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x40000000u,
    0x3f000000u, 0x1f800000u, 0x5f800000u, 0x3f7fffffu, 0x3f800001u, 0x00400000u,
};
#define NSPEC (sizeof specials / sizeof specials[0])

typedef float (*scalar_fn)(float, float);
typedef repdl_status (*array_fn)(size_t, const float *, const float *, float *);

static void test_elementwise(const char *name, scalar_fn lib, scalar_fn ref, array_fn arr)
{
    enum { N = 4096 };
    static float a[N], g[N], d[N], w[N];
    size_t i, j, n = 0;
    /* every pair of specials, then random patterns (a few of each kind:
       full-range bits, values near 1, subnormal dy) */
    for (i = 0; i < NSPEC; i++)
        for (j = 0; j < NSPEC; j++, n++) {
            a[n] = from(specials[i]);
            g[n] = from(specials[j]);
        }
    for (; n < N; n++) {
        uint32_t r = rnd();
        a[n] = from(n % 3 == 0 ? rnd() : (r & 0x807fffffu) | 0x3f000000u);
        g[n] = from(n % 5 == 0 ? rnd() & 0x807fffffu : rnd());
    }
    for (i = 0; i < N; i++) same(lib(a[i], g[i]), ref(a[i], g[i]), name, a[i], g[i]);
    /* the array form is the scalar form, also in place */
    memset(d, 0xa5, sizeof d);
    checks++;
    if (arr(N, a, g, d) != REPDL_OK) { printf("FAIL %s array status\n", name); fails++; }
    for (i = 0; i < N; i++) same(d[i], lib(a[i], g[i]), name, a[i], g[i]);
    memcpy(w, a, sizeof w);
    arr(N, w, g, w);
    for (i = 0; i < N; i++) same(w[i], d[i], name, a[i], g[i]);
    memcpy(w, g, sizeof w);
    arr(N, a, w, w);
    for (i = 0; i < N; i++) same(w[i], d[i], name, a[i], g[i]);
    /* n = 0: nothing read or written, NULL allowed */
    checks++;
    if (arr(0, NULL, NULL, NULL) != REPDL_OK) { printf("FAIL %s n=0\n", name); fails++; }
}

/* ---- rows ---- */

static float ref_mean(const float *x, size_t n)
{
    volatile float s = ref_sum(x, n);
    volatile float q = s / (float)n;
    return canon(q);
}

/* dx of one row by the formulas of docs/nn.md */
static void ref_row(int kind, size_t n, size_t ddof, const float *x, float y, float dy, float *dx)
{
    size_t i;
    float m = 0.0f, k = 0.0f;
    if (kind == 2) {
        volatile float two = 2.0f * dy;
        volatile float kk = two / (float)(n - ddof);
        m = ref_mean(x, n);
        k = n > ddof ? kk : from(0x7fc00000u);
    } else if (kind == 3) {
        volatile float kk = dy / y;
        k = kk;
    }
    for (i = 0; i < n; i++) {
        if (kind == 0) {
            dx[i] = canon(dy);
        } else if (kind == 1) {
            volatile float q = dy / (float)n;
            dx[i] = canon(q);
        } else if (kind == 2) {
            volatile float dev = x[i] - m;
            volatile float p = dev * k;
            dx[i] = canon(p);
        } else {
            volatile float p = x[i] * k;
            dx[i] = y == 0.0f ? 0.0f : canon(p);
        }
    }
}

static repdl_status lib_rows(int kind, size_t rows, size_t n, size_t ddof, const float *x,
                             const float *y, const float *dy, float *dx)
{
    switch (kind) {
    case 0: return repdl_sum_rows_backward_f32(rows, n, dy, dx);
    case 1: return repdl_mean_rows_backward_f32(rows, n, dy, dx);
    case 2: return repdl_var_rows_backward_f32(rows, n, ddof, x, dy, dx);
    default: return repdl_norm2_rows_backward_f32(rows, n, x, y, dy, dx);
    }
}

static const char *const kind_name[] = {"sum_rows_backward", "mean_rows_backward",
                                        "var_rows_backward", "norm2_rows_backward"};

static void test_rows(void)
{
    static const size_t ns[] = {1, 2, 3, 7, 64, 1023, 1024, 1025, 2100};
    enum { ROWS = 5, MAXN = 2100 };
    static float x[ROWS * MAXN], dx[ROWS * MAXN], want[ROWS * MAXN], xc[ROWS * MAXN];
    float y[ROWS], dy[ROWS];
    size_t t, r, i, d;
    int kind;
    for (t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        size_t n = ns[t];
        for (r = 0; r < ROWS; r++) {
            for (i = 0; i < n; i++) {
                uint32_t u = rnd();
                /* row 0 plain values; row 1 a special every 97th element;
                   row 2 all zero (norm2's y = 0); rows 3, 4 mixed scales */
                float v = from((u & 0x807fffffu) | (0x3c000000u + ((u >> 8) & 0x07800000u)));
                if (r == 1 && i % 97 == 5) v = from(specials[(u >> 3) % NSPEC]);
                if (r == 2) v = (i & 1) ? -0.0f : 0.0f;
                if (r == 4 && i % 11 == 0) v = from(rnd() & 0x807fffffu);
                x[r * n + i] = v;
            }
            y[r] = repdl_norm2_f32(n, x + r * n);
            dy[r] = r == 3 ? from(specials[(t + 3) % NSPEC]) : from((rnd() & 0x807fffffu) | 0x3f000000u);
        }
        y[4] = from(0x7fc00000u); /* a NaN forward output */
        for (kind = 0; kind < 4; kind++)
            for (d = 0; d < (kind == 2 ? 4u : 1u); d++) {
                size_t ddof = d < 2 ? d : (d == 2 ? n : n + 5);
                for (r = 0; r < ROWS; r++) ref_row(kind, n, ddof, x + r * n, y[r], dy[r], want + r * n);
                memset(dx, 0xa5, sizeof(float) * ROWS * n);
                checks++;
                if (lib_rows(kind, ROWS, n, ddof, x, y, dy, dx) != REPDL_OK) {
                    printf("FAIL %s status n=%zu\n", kind_name[kind], n);
                    fails++;
                }
                for (i = 0; i < ROWS * n; i++) same(dx[i], want[i], kind_name[kind], x[i], dy[i / n]);
                /* one row alone: the same bits (a row never depends on the others) */
                lib_rows(kind, 1, n, ddof, x + 3 * n, y + 3, dy + 3, dx);
                for (i = 0; i < n; i++) same(dx[i], want[3 * n + i], kind_name[kind], x[3 * n + i], dy[3]);
                /* in place, dx == x */
                if (kind >= 2) {
                    memcpy(xc, x, sizeof(float) * ROWS * n);
                    lib_rows(kind, ROWS, n, ddof, xc, y, dy, xc);
                    for (i = 0; i < ROWS * n; i++) same(xc[i], want[i], kind_name[kind], x[i], dy[i / n]);
                }
            }
    }
    /* empty: rows = 0 or n = 0 with NULL pointers, nothing written */
    for (kind = 0; kind < 4; kind++) {
        dx[0] = 7.0f;
        checks += 3;
        if (lib_rows(kind, 0, 5, 0, NULL, NULL, NULL, NULL) != REPDL_OK ||
            lib_rows(kind, 3, 0, 0, NULL, NULL, NULL, NULL) != REPDL_OK ||
            lib_rows(kind, 3, 0, 0, x, y, dy, dx) != REPDL_OK || bits(dx[0]) != bits(7.0f)) {
            printf("FAIL %s empty\n", kind_name[kind]);
            fails++;
        }
        /* NULL where data is read or written: REPDL_ERR_INVALID, nothing written */
        checks += 2;
        if (lib_rows(kind, 2, 3, 0, x, y, NULL, dx) != REPDL_ERR_INVALID ||
            lib_rows(kind, 2, 3, 0, x, y, dy, NULL) != REPDL_ERR_INVALID || bits(dx[0]) != bits(7.0f)) {
            printf("FAIL %s NULL\n", kind_name[kind]);
            fails++;
        }
        if (kind >= 2) {
            checks++;
            if (lib_rows(kind, 2, 3, 0, NULL, y, dy, dx) != REPDL_ERR_INVALID) {
                printf("FAIL %s NULL x\n", kind_name[kind]);
                fails++;
            }
        }
        /* rows * n floats overflow size_t bytes: REPDL_ERR_OVERFLOW */
        checks++;
        if (lib_rows(kind, (size_t)1 << 40, (size_t)1 << 30, 0, x, y, dy, dx) != REPDL_ERR_OVERFLOW ||
            bits(dx[0]) != bits(7.0f)) {
            printf("FAIL %s overflow\n", kind_name[kind]);
            fails++;
        }
    }
    checks++;
    if (repdl_norm2_rows_backward_f32(2, 3, x, NULL, dy, dx) != REPDL_ERR_INVALID) {
        printf("FAIL norm2_rows_backward NULL y\n");
        fails++;
    }
}

int main(void)
{
    test_elementwise("exp_backward", repdl_exp_backward_f32, f_exp, repdl_exp_backward_array_f32);
    test_elementwise("log_backward", repdl_log_backward_f32, f_log, repdl_log_backward_array_f32);
    test_elementwise("tanh_backward", repdl_tanh_backward_f32, f_tanh, repdl_tanh_backward_array_f32);
    test_elementwise("sqrt_backward", repdl_sqrt_backward_f32, f_sqrt, repdl_sqrt_backward_array_f32);
    test_rows();
    printf("backward: %ld checks, %ld failures\n", checks, fails);
    return fails != 0;
}
