/* SPDX-License-Identifier: MIT */
/* tests/math/test_elementary.c: the quick tests of repdl_exp_f32,
   repdl_log_f32, repdl_tanh_f32 and repdl_sqrt_f32.  One source, built several ways
   (C -O2, C -O3 -march=native -ffp-contract=fast, C++, clang: see
   meson.build); every check compares bit patterns.

     test_elementary special F    special values and the inputs around every
                                  change of result class (overflow, underflow,
                                  subnormal, exactly 1, ...), against MPFR
     test_elementary stride F     every 2^12-th input (at a varying offset)
                                  and the neighbours of every power of two,
                                  both signs: every exponent, against MPFR
     test_elementary wc F FILE    replays a worst-case file (tests/math/
                                  F.wc); with MPFR, also re-derives each
                                  expected value
     test_elementary array F      repdl_F_array equals repdl_F bit for bit:
                                  lengths 0..300, unaligned, in place, n = 0
                                  with NULL pointers

   Exit status 0: pass; 1: a mismatch (each is printed as
   "F in=0x........ got=0x........ want=0x........"); 77: skipped (MPFR
   absent for a test that needs it, or the function's header is absent). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "funcs.h"
#ifdef REPDL_TEST_HAVE_MPFR
#include "oracle.h"
#endif

#define SKIP 77

#include "math_check.h"

/* A growable list of inputs. */
typedef struct { uint32_t *v; size_t n, cap; } list;
static void push(list *l, uint32_t x)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->v = (uint32_t *)realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) { perror("realloc"); exit(2); }
    }
    l->v[l->n++] = x;
}
static void push_around(list *l, uint32_t x, uint32_t k)
{
    uint32_t d;
    push(l, x);
    for (d = 1; d <= k; d++) { push(l, x + d); push(l, x - d); }
}

/* Checks the scalar form against the array form on the whole list, in
   blocks of up to 1000 (an array call per block). */
static void check_array_on(const list *l)
{
    char aname[32];
    size_t i, b;
    float in[1000], out[1000];
    snprintf(aname, sizeof aname, "%s_array", fn->name);
    for (b = 0; b < l->n; b += 1000) {
        size_t m = l->n - b < 1000 ? l->n - b : 1000;
        for (i = 0; i < m; i++) in[i] = repdl__asfloat(l->v[b + i]);
        fn->array(out, in, m);
        for (i = 0; i < m; i++)
            check(aname, l->v[b + i], repdl__asuint(out[i]), repdl__asuint(fn->scalar(in[i])));
    }
}

#ifdef REPDL_TEST_HAVE_MPFR
static enum repdl_ref_id fid;

static uint32_t want_of(uint32_t x) { return repdl_oracle_mpfr(fid, repdl__asfloat(x)); }

static void check_mpfr_on(const list *l)
{
    size_t i;
    for (i = 0; i < l->n; i++)
        check(fn->name, l->v[i], repdl__asuint(fn->scalar(repdl__asfloat(l->v[i]))), want_of(l->v[i]));
    check_array_on(l);
}

/* Class of a result, ordered as the values are (so monotone wherever the
   function is): -inf, <-1, -1, (-1,-FLT_MIN], -subnormal, -0, +0,
   +subnormal, [FLT_MIN,1), 1, (1,FLT_MAX], +inf, NaN. */
static int result_class(uint32_t r)
{
    float v = repdl__asfloat(r);
    int neg = (int)(r >> 31);
    uint32_t a = r & 0x7fffffffu;
    if (v != v) return 12;
    if (a == 0x7f800000u) return neg ? 0 : 11;
    if (a == 0) return neg ? 5 : 6;
    if (a < 0x00800000u) return neg ? 4 : 7;
    if (a < 0x3f800000u) return neg ? 3 : 8;
    if (a == 0x3f800000u) return neg ? 2 : 9;
    return neg ? 1 : 10;
}

/* Every x in [lo, hi) where the class of f(x) differs from that of f(x+1),
   by bisection (exact where f is monotone on [lo, hi]). */
static void transitions(list *out, uint32_t lo, uint32_t hi, int clo, int chi, int depth)
{
    uint32_t mid;
    int cm;
    if (clo == chi || depth > 40) return;
    if (hi - lo == 1) { push_around(out, lo, 16); return; }
    mid = lo + (hi - lo) / 2;
    cm = result_class(want_of(mid));
    transitions(out, lo, mid, clo, cm, depth + 1);
    transitions(out, mid, hi, cm, chi, depth + 1);
}

static int test_special(void)
{
    static const uint32_t fixed[] = {
        0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,             /* +-0, +-inf */
        0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,             /* NaNs, both signs, */
        0x7fffffffu, 0xffffffffu, 0x7fa00000u, 0xffa5a5a5u, 0x7fc00001u, /* quiet and signalling */
        0x00800000u, 0x80800000u, 0x00000001u, 0x80000001u,             /* +-FLT_MIN, +-FLT_TRUE_MIN */
        0x007fffffu, 0x807fffffu, 0x00400000u, 0x80400000u,             /* subnormals */
        0x7f7fffffu, 0xff7fffffu,                                       /* +-FLT_MAX */
        0x3f800000u, 0xbf800000u, 0x3f7fffffu, 0x3f800001u, 0xbf7fffffu, 0xbf800001u, /* +-1 and neighbours */
        0x3f000000u, 0x40000000u, 0x40800000u, 0x40490fdbu, 0x402df854u, 0x3f317218u, /* 0.5 2 4 pi e ln2 */
        0x42b17218u, 0xc2aeac50u, 0xc2cff1b5u, 0x41102cb4u, 0x33800000u, 0xb3800000u,
    };
    list l = {NULL, 0, 0};
    size_t i;
    for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++) push(&l, fixed[i]);
    /* every change of result class on each sign, with 16 neighbours each
       side: overflow and underflow thresholds, the last input with a
       subnormal result, the first with result 1, ... found with MPFR */
    transitions(&l, 0x00000000u, 0x7f800000u, result_class(want_of(0)), result_class(want_of(0x7f800000u)), 0);
    transitions(&l, 0x80000000u, 0xff800000u, result_class(want_of(0x80000000u)), result_class(want_of(0xff800000u)), 0);
    check_mpfr_on(&l);
    printf("special %s: %zu inputs (specials and class changes), %ld checks, %ld mismatches\n",
           fn->name, l.n, n_checked, n_fail);
    free(l.v);
    return n_fail ? 1 : 0;
}

static int test_stride(void)
{
    list l = {NULL, 0, 0};
    uint32_t i, e;
    for (i = 0; i < (1u << 20); i++)      /* every 2^12-th input, offset varies */
        push(&l, (i << 12) | ((i * 2654435761u) >> 20));
    for (e = 0; e < 256; e++) {           /* neighbours of every power of two */
        push_around(&l, e << 23, 2);
        push_around(&l, 0x80000000u | (e << 23), 2);
    }
    check_mpfr_on(&l);
    printf("stride %s: %zu inputs (every exponent, both signs), %ld checks, %ld mismatches\n",
           fn->name, l.n, n_checked, n_fail);
    free(l.v);
    return n_fail ? 1 : 0;
}
#endif /* REPDL_TEST_HAVE_MPFR */

static int test_wc(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512], name[32];
    unsigned in, want;
    long lines = 0;
    if (!f) { perror(path); return 1; }
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        if (sscanf(line, "%31s in=0x%x want=0x%x", name, &in, &want) != 3 || strcmp(name, fn->name) != 0) {
            printf("%s: malformed line: %s", path, line);
            n_fail++;
            continue;
        }
        lines++;
        check(fn->name, in, repdl__asuint(fn->scalar(repdl__asfloat(in))), want);
        {
            float x = repdl__asfloat(in), r;
            char aname[32];
            fn->array(&r, &x, 1);
            snprintf(aname, sizeof aname, "%s_array", fn->name);
            check(aname, in, repdl__asuint(r), want);
        }
#ifdef REPDL_TEST_HAVE_MPFR
        /* the file itself: its expected value is MPFR's */
        check("wc-file-vs-mpfr", in, want, repdl_oracle_mpfr(fid, repdl__asfloat(in)));
#endif
    }
    fclose(f);
    if (lines == 0) { printf("%s: no test lines\n", path); return 1; }
#ifdef REPDL_TEST_HAVE_MPFR
    printf("wc %s: %ld inputs from %s, expected values re-derived with MPFR, %ld mismatches\n",
           fn->name, lines, path, n_fail);
#else
    printf("wc %s: %ld inputs from %s (MPFR absent: expected values not re-derived), %ld mismatches\n",
           fn->name, lines, path, n_fail);
#endif
    return n_fail ? 1 : 0;
}

static int test_array(void)
{
    list l = {NULL, 0, 0};
    float *buf, *in, *out, *ref;
    size_t n, off, i;
    uint32_t k;
    /* a mix: specials, subnormals, ordinary values, spread over all exponents */
    for (k = 0; k < 4096; k++) push(&l, k * 1048573u);
    push(&l, 0x7fc00000u); push(&l, 0xff800001u); push(&l, 0x00000001u); push(&l, 0x80000000u);
    check_array_on(&l);
    buf = (float *)malloc(4 * 512 * sizeof *buf);
    in = buf; out = buf + 512; ref = buf + 1024;
    for (n = 0; n <= 300; n++)
        for (off = 0; off < 4; off++) {
            float *o = out + off, *x = in + (3 - off);
            for (i = 0; i < n; i++) x[i] = repdl__asfloat(l.v[(n * 7 + i) % l.n]);
            for (i = 0; i < n; i++) ref[i] = fn->scalar(x[i]);
            fn->array(o, x, n);
            for (i = 0; i < n; i++) check("array-unaligned", repdl__asuint(x[i]), repdl__asuint(o[i]), repdl__asuint(ref[i]));
            fn->array(x, x, n);           /* in place */
            for (i = 0; i < n; i++) check("array-in-place", l.v[(n * 7 + i) % l.n], repdl__asuint(x[i]), repdl__asuint(ref[i]));
        }
    fn->array(NULL, NULL, 0);             /* n = 0: no access */
    printf("array %s: %ld checks, %ld mismatches\n", fn->name, n_checked, n_fail);
    free(buf);
    free(l.v);
    return n_fail ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_elementary special|stride|array F | wc F FILE\n");
        return 2;
    }
    fn = repdl_ref_find(argv[2]);
    if (!fn) { printf("SKIP: %s: header absent from include/repdl\n", argv[2]); return 1; }
    if (!repdl_fpenv_ok(1.0f)) { printf("the floating-point environment flushes subnormals\n"); return 1; }
#ifdef REPDL_TEST_HAVE_MPFR
    fid = fn->id;
    repdl_ref_init();
    if (strcmp(argv[1], "special") == 0) return test_special();
    if (strcmp(argv[1], "stride") == 0) return test_stride();
#else
    if (strcmp(argv[1], "special") == 0 || strcmp(argv[1], "stride") == 0) {
        printf("SKIP: built without MPFR, which %s needs\n", argv[1]);
        return SKIP;
    }
#endif
    if (strcmp(argv[1], "wc") == 0 && argc >= 4) return test_wc(argv[3]);
    if (strcmp(argv[1], "array") == 0) return test_array();
    fprintf(stderr, "usage: test_elementary special|stride|array F | wc F FILE\n");
    return 2;
}
