/* SPDX-License-Identifier: MIT */
/* tests/rope/test_rope.c: rotary position embeddings (include/repdl/rope.h)
   against reference/rope_ref.h, bit for bit:
     - tables for several head sizes, lengths and bases;
     - forward and backward on random data with specials (NaN, +-inf, +-0,
       subnormals), in place and out of place;
     - invariance: one (batch, head) at a time, the sequence in chunks at
       the matching position offsets (the KV-cache use), one row at a time;
     - the backward pass is the derivative: central finite differences of
       sum(dy * rope(x)) in double agree with it, and backward(forward(x))
       returns x to a few ulps (the rotation is orthogonal);
     - bad input: a status and nothing written. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/rope.h>

#include "rope_ref.h"
#include "../common/check.h"
#include "../common/splitmix64.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#endif

static splitmix64 rng;

static float rnd_value(void)
{
    uint64_t r = splitmix64_next(&rng);
    switch (r % 41) {
    case 0: return asfloat(0x7fc00001u);            /* NaN with a payload */
    case 1: return asfloat(0x7f800000u);
    case 2: return asfloat(0xff800000u);
    case 3: return -0.0f;
    case 4: return asfloat((uint32_t)(r >> 40) & 0x807fffffu); /* subnormal */
    case 5: return asfloat(0x7f7fffffu);                       /* overflows */
    default: return (float)((int32_t)(uint32_t)(r >> 32)) * 0x1p-29f;
    }
}

static float *alloc_fill(size_t n, int specials)
{
    float *p = (float *)malloc((n ? n : 1) * sizeof(float));
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = specials ? rnd_value()
                        : (float)((int32_t)(uint32_t)(splitmix64_next(&rng) >> 32)) * 0x1p-31f;
    return p;
}

static void test_tables(void)
{
    static const struct { size_t positions, d; float base; } cases[] = {
        {64, 8, 10000.0f}, {300, 64, 10000.0f}, {17, 2, 500000.0f}, {5, 128, 1.5f},
        {40, 6, 1.0f}, {9, 10, 0.25f}, {1, 4, 10000.0f}, {2048, 16, 10000.0f},
    };
    size_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t P = cases[k].positions, d = cases[k].d, cells = P * (d / 2);
        float *c = (float *)malloc(cells * sizeof(float)), *s = (float *)malloc(cells * sizeof(float));
        float *rc = (float *)malloc(cells * sizeof(float)), *rs = (float *)malloc(cells * sizeof(float));
        CHECK(repdl_rope_table_f32(P, d, cases[k].base, c, s) == REPDL_OK, "table %zu", k);
        ref_rope_table(P, d, cases[k].base, rc, rs);
        CHECK_SAME(c, rc, cells, "cos table case %zu", k);
        CHECK_SAME(s, rs, cells, "sin table case %zu", k);
        /* position 0: angle +0, cos 1, sin +0; frequency 0: theta = 1 */
        CHECK_BITS(c[0], 1.0f, "cos(0) case %zu", k);
        CHECK_BITS(s[0], 0.0f, "sin(0) case %zu", k);
        if (P > 3) CHECK_BITS(s[3 * (d / 2)], repdl_sin_f32(3.0f), "theta_0 = 1 case %zu", k);
        free(c); free(s); free(rc); free(rs);
    }
}

/* The table used by the application tests. */
#define TP 40
#define TD 16
static float tc[TP * TD / 2], ts[TP * TD / 2];

static void test_apply(void)
{
    static const struct { size_t B, H, n, d, pos0; } cases[] = {
        {2, 3, 5, 8, 3}, {1, 1, 40, 16, 0}, {3, 2, 1, 16, 39}, {1, 4, 7, 2, 33}, {2, 2, 0, 8, 40},
    };
    size_t k;
    int back;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (back = 0; back < 2; back++) {
            size_t B = cases[k].B, H = cases[k].H, n = cases[k].n, d = cases[k].d;
            size_t p0 = cases[k].pos0, len = B * H * n * d, P = TP;
            /* a table of head size d: rows of d/2 */
            float *c = (float *)malloc(P * d / 2 * sizeof(float)), *s = (float *)malloc(P * d / 2 * sizeof(float));
            float *x = alloc_fill(len, 1), *y = alloc_fill(len, 0), *r = alloc_fill(len, 0);
            float *ip = (float *)malloc((len ? len : 1) * sizeof(float));
            repdl_status st;
            CHECK(repdl_rope_table_f32(P, d, 10000.0f, c, s) == REPDL_OK, "table");
            st = back ? repdl_rope_backward_f32(B, H, n, d, p0, P, c, s, x, y)
                      : repdl_rope_forward_f32(B, H, n, d, p0, P, c, s, x, y);
            CHECK(st == REPDL_OK, "apply case %zu back %d", k, back);
            ref_rope_apply(B, H, n, d, p0, back, c, s, x, r);
            CHECK_SAME(y, r, len, "apply case %zu back %d", k, back);
            memcpy(ip, x, len * sizeof(float));
            st = back ? repdl_rope_backward_f32(B, H, n, d, p0, P, c, s, ip, ip)
                      : repdl_rope_forward_f32(B, H, n, d, p0, P, c, s, ip, ip);
            CHECK(st == REPDL_OK, "in place");
            CHECK_SAME(ip, r, len, "in place case %zu back %d", k, back);
            free(c); free(s); free(x); free(y); free(r); free(ip);
        }
}

/* The same bits whatever is processed together: one (batch, head) at a
   time, the sequence cut into chunks at their own offsets, one row. */
static void test_invariance(void)
{
    enum { B = 2, H = 3, N = 23, D = TD };
    size_t len = (size_t)B * H * N * D, bh, cut;
    float *x = alloc_fill(len, 1), *full = alloc_fill(len, 0), *part = alloc_fill(len, 0);
    int back;
    for (back = 0; back < 2; back++) {
        repdl_status (*f)(size_t, size_t, size_t, size_t, size_t, size_t, const float *,
                          const float *, const float *, float *) =
            back ? repdl_rope_backward_f32 : repdl_rope_forward_f32;
        size_t p0 = 11;
        CHECK(f(B, H, N, D, p0, TP, tc, ts, x, full) == REPDL_OK, "full");
        for (bh = 0; bh < (size_t)B * H; bh++)
            CHECK(f(1, 1, N, D, p0, TP, tc, ts, x + bh * N * D, part + bh * N * D) == REPDL_OK, "one");
        CHECK_SAME(part, full, len, "one (batch, head) at a time, back %d", back);
        for (cut = 1; cut <= 7; cut += 3) { /* chunks of 1, 4, 7 rows */
            memset(part, 0, len * sizeof(float));
            for (bh = 0; bh < (size_t)B * H; bh++) {
                size_t t;
                for (t = 0; t < N; t += cut) {
                    size_t m = N - t < cut ? N - t : cut, off = (bh * N + t) * D;
                    CHECK(f(1, 1, m, D, p0 + t, TP, tc, ts, x + off, part + off) == REPDL_OK, "chunk");
                }
            }
            CHECK_SAME(part, full, len, "chunks of %zu rows, back %d", cut, back);
        }
    }
    free(x); free(full); free(part);
}

/* Finite differences of F(x) = sum_j dy_j rope(x)_j in double: the
   forward in double is the exact rotation of x by the table entries
   (the table is fixed data), so (F(x + h e_k) - F(x - h e_k)) / 2h =
   dx_k exactly in real arithmetic; the binary32 backward agrees to its
   rounding.  Also backward(forward(x)) ~ x. */
static double rot_sum(size_t n, size_t d, size_t p0, const double *x, const float *dy)
{
    size_t t, i, h = d / 2;
    double acc = 0;
    for (t = 0; t < n; t++)
        for (i = 0; i < h; i++) {
            double c = tc[(p0 + t) * h + i], s = ts[(p0 + t) * h + i];
            double u = x[t * d + i], v = x[t * d + i + h];
            acc += (double)dy[t * d + i] * (u * c - v * s) + (double)dy[t * d + i + h] * (v * c + u * s);
        }
    return acc;
}

static void test_backward_fd(void)
{
    enum { N = 6, D = TD };
    size_t p0 = 20, k, len = N * D;
    float *x = alloc_fill(len, 0), *dy = alloc_fill(len, 0), *dx = alloc_fill(len, 0);
    float *y = alloc_fill(len, 0), *back = alloc_fill(len, 0);
    double xd[N * D], worst = 0;
    for (k = 0; k < len; k++) xd[k] = x[k];
    CHECK(repdl_rope_backward_f32(1, 1, N, D, p0, TP, tc, ts, dy, dx) == REPDL_OK, "backward");
    for (k = 0; k < len; k++) {
        double h = 1e-3, fp, fm, fd, e;
        xd[k] = (double)x[k] + h;
        fp = rot_sum(N, D, p0, xd, dy);
        xd[k] = (double)x[k] - h;
        fm = rot_sum(N, D, p0, xd, dy);
        xd[k] = x[k];
        fd = (fp - fm) / (2 * h);
        e = fd - dx[k];
        if (e < 0) e = -e;
        if (e > worst) worst = e;
        /* |dx_k| <= 2 max|dy| < 2; binary32 rounding of two products and a
           sum: below 2^-22, the difference quotient's own error ~1e-13 */
        CHECK(e < 0x1p-21, "finite difference k %zu: fd %.9g backward %.9g", k, fd, (double)dx[k]);
    }
    CHECK(repdl_rope_forward_f32(1, 1, N, D, p0, TP, tc, ts, x, y) == REPDL_OK, "forward");
    CHECK(repdl_rope_backward_f32(1, 1, N, D, p0, TP, tc, ts, y, back) == REPDL_OK, "backward");
    for (k = 0; k < len; k++) {
        double e = (double)back[k] - x[k];
        if (e < 0) e = -e;
        CHECK(e < 0x1p-22, "backward(forward(x)) k %zu: %a vs %a", k, back[k], x[k]);
    }
    (void)worst;
    free(x); free(dy); free(dx); free(y); free(back);
}

/* Bad input: the status, and the output untouched. */
static void test_bad_input(void)
{
    float x[64], y[64], c[64], s[64];
    size_t k;
    const float sentinel = asfloat(0x7fa5a5a5u);
    struct { size_t B, H, n, d, p0, P; int null_arg; repdl_status want; } cases[] = {
        {1, 1, 2, 0, 0, 4, 0, REPDL_ERR_INVALID},                    /* head size 0 */
        {1, 1, 2, 3, 0, 4, 0, REPDL_ERR_INVALID},                    /* odd */
        {1, 1, 5, 4, 0, 4, 0, REPDL_ERR_INVALID},                    /* longer than the table */
        {1, 1, 2, 4, 3, 4, 0, REPDL_ERR_INVALID},                    /* pos0 + n past it */
        {1, 1, 0, 4, 5, 4, 0, REPDL_ERR_INVALID},                    /* pos0 past it */
        {1, 1, 1, 4, (size_t)-1, 4, 0, REPDL_ERR_INVALID},           /* pos0 + n wraps */
        {1, 1, 1, 4, 0, ((size_t)1 << 24) + 1, 0, REPDL_ERR_INVALID}, /* table too long */
        {(size_t)-1, 3, 2, 4, 0, 4, 0, REPDL_ERR_OVERFLOW},          /* B H n d */
        {1, 1, 2, 4, 0, 4, 1, REPDL_ERR_INVALID},                    /* cos NULL */
        {1, 1, 2, 4, 0, 4, 2, REPDL_ERR_INVALID},                    /* sin NULL */
        {1, 1, 2, 4, 0, 4, 3, REPDL_ERR_INVALID},                    /* in NULL */
        {1, 1, 2, 4, 0, 4, 4, REPDL_ERR_INVALID},                    /* out NULL */
    };
    for (k = 0; k < 64; k++) x[k] = c[k] = s[k] = 0.5f;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int back;
        for (back = 0; back < 2; back++) {
            size_t i;
            int same = 1;
            repdl_status st;
            const float *cc = cases[k].null_arg == 1 ? NULL : c, *ss = cases[k].null_arg == 2 ? NULL : s;
            const float *in = cases[k].null_arg == 3 ? NULL : x;
            float *out = cases[k].null_arg == 4 ? NULL : y;
            for (i = 0; i < 64; i++) y[i] = sentinel;
            st = back ? repdl_rope_backward_f32(cases[k].B, cases[k].H, cases[k].n, cases[k].d,
                                                cases[k].p0, cases[k].P, cc, ss, in, out)
                      : repdl_rope_forward_f32(cases[k].B, cases[k].H, cases[k].n, cases[k].d,
                                               cases[k].p0, cases[k].P, cc, ss, in, out);
            CHECK(st == cases[k].want, "bad case %zu back %d: status %d", k, back, (int)st);
            for (i = 0; i < 64; i++) same &= asuint(y[i]) == asuint(sentinel);
            CHECK(same, "bad case %zu back %d wrote", k, back);
        }
    }
    /* empty: n = 0 or batch = 0 with NULL arrays is fine */
    CHECK(repdl_rope_forward_f32(0, 4, 3, 4, 0, 4, NULL, NULL, NULL, NULL) == REPDL_OK, "empty batch");
    CHECK(repdl_rope_backward_f32(2, 4, 0, 4, 4, 4, NULL, NULL, NULL, NULL) == REPDL_OK, "empty n");
    /* the table */
    {
        const float bases[] = {0.0f, -1.0f, asfloat(0x7f800000u), -0.0f};
        float nanb = asfloat(0x7fc00000u);
        size_t i;
        int same = 1;
        for (i = 0; i < 64; i++) c[i] = s[i] = sentinel;
        for (k = 0; k < 4; k++)
            CHECK(repdl_rope_table_f32(4, 4, bases[k], c, s) == REPDL_ERR_INVALID, "base %a", bases[k]);
        CHECK(repdl_rope_table_f32(4, 4, nanb, c, s) == REPDL_ERR_INVALID, "base NaN");
        CHECK(repdl_rope_table_f32(4, 3, 10.0f, c, s) == REPDL_ERR_INVALID, "odd d");
        CHECK(repdl_rope_table_f32(4, 0, 10.0f, c, s) == REPDL_ERR_INVALID, "d 0");
        CHECK(repdl_rope_table_f32(((size_t)1 << 24) + 1, 4, 10.0f, c, s) == REPDL_ERR_INVALID, "long");
        CHECK(repdl_rope_table_f32(4, ((size_t)1 << 24) + 2, 10.0f, c, s) == REPDL_ERR_INVALID, "wide");
        CHECK(repdl_rope_table_f32(4, 4, 10.0f, NULL, s) == REPDL_ERR_INVALID, "cos NULL");
        CHECK(repdl_rope_table_f32(4, 4, 10.0f, c, NULL) == REPDL_ERR_INVALID, "sin NULL");
        for (i = 0; i < 64; i++) same &= asuint(c[i]) == asuint(sentinel) && asuint(s[i]) == asuint(sentinel);
        CHECK(same, "a refused table call wrote");
        CHECK(repdl_rope_table_f32(0, 4, 10.0f, NULL, NULL) == REPDL_OK, "empty table");
    }
}

/* Under flush-to-zero (MXCSR's FTZ bit): REPDL_ERR_FPENV, nothing written. */
static void test_fpenv(void)
{
#ifdef HAVE_MXCSR
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8], c[8], s[8];
    unsigned old = _mm_getcsr(), k;
    repdl_status a, b, t;
    int same = 1;
    for (k = 0; k < 8; k++) y[k] = c[k] = s[k] = -7.0f;
    _mm_setcsr(old | 0x8000u);
    t = repdl_rope_table_f32(4, 4, 10000.0f, c, s);
    a = repdl_rope_forward_f32(1, 1, 2, 4, 0, 4, tc, ts, x, y);
    b = repdl_rope_backward_f32(1, 1, 2, 4, 0, 4, tc, ts, x, y);
    _mm_setcsr(old);
    CHECK(t == REPDL_ERR_FPENV && a == REPDL_ERR_FPENV && b == REPDL_ERR_FPENV, "FTZ: %d %d %d",
          (int)t, (int)a, (int)b);
    for (k = 0; k < 8; k++) same &= y[k] == -7.0f && c[k] == -7.0f && s[k] == -7.0f;
    CHECK(same, "FTZ: written");
#endif
}

int main(void)
{
    splitmix64_seed(&rng, 30);
    CHECK(repdl_rope_table_f32(TP, TD, 10000.0f, tc, ts) == REPDL_OK, "table");
    test_tables();
    test_apply();
    test_invariance();
    test_backward_fd();
    test_bad_input();
    test_fpenv();
    return check_summary("test_rope");
}
