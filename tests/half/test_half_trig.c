/* SPDX-License-Identifier: MIT */
/* tests/half/test_half_trig.c: the bfloat16 and float16 forms of rsqrt,
   sin and cos (include/repdl/rsqrt.h, sin.h, cos.h) against MPFR, as
   tests/half/test_half.c checks half_math.h's.  One source, built in every
   build of the test matrix (tests/half/meson.build); every check compares
   bit patterns.

     test_half_trig func F   F in rsqrt sin cos, both formats, all 2^16
                             inputs each:
                               - the result equals MPFR's F(x) rounded once
                                 to the format (rsqrt(-0) = -inf, IEEE 754
                                 rSqrt, where MPFR gives +inf);
                               - the margin: where the function rounds its
                                 approximation y (repdl__Ff_y returns 1),
                                 F(x) lies farther than E = REPDL__Ff_ERR
                                 (relative) from every rounding boundary of
                                 the format, so that any y within E, in any
                                 build, rounds the same way, and this
                                 build's y is within E of F(x); or F(x) is
                                 exact and y equals it, sign included
                                 (rsqrt(4^k) = 2^-k, sin(+-0) = +-0,
                                 cos(+-0) = 1);
                               - double rounding: MPFR's binary32 result
                                 rounded again to the format differs from
                                 the correct result on exactly the inputs
                                 where repdl_F_f32 and the conversion do,
                                 and their number is the one listed below
                                 (docs/functions/half.md);
                               - the array form equals the scalar form on
                                 all inputs, in place too;
     test_half_trig array    the array forms against their scalar forms:
                             lengths 0 to 300, unaligned, in place, n = 0
                             with NULL pointers (no MPFR needed).

   Exit status 0: pass; 1: a failure (the first ones printed); 77: skipped
   (MPFR absent for func). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <repdl/rsqrt.h>
#include <repdl/sin.h>
#include <repdl/cos.h>
#ifdef REPDL_TEST_HAVE_MPFR
#define REPDL_HR_MPFR 1
#endif
#include "half_ref.h"

#define SKIP 77

/* Inputs on which the binary32 result rounded again to the format is
   wrong (double rounding), counted by this test with MPFR (2026-11-27). */
#define HX_DR_RSQRT_BF16 0
#define HX_DR_RSQRT_F16 0
#define HX_DR_SIN_BF16 0
#define HX_DR_SIN_F16 4    /* 0x32b3 0x5cb0 0xb2b3 0xdcb0 */
#define HX_DR_COS_BF16 0
#define HX_DR_COS_F16 2    /* 0x2b7c 0xab7c */

static long n_checked, n_fail;

static void fail_line(const char *what, uint32_t in, uint32_t got, uint32_t want)
{
    n_fail++;
    if (n_fail <= 40)
        printf("FAIL %s in=0x%08x got=0x%08x want=0x%08x\n", what, (unsigned)in, (unsigned)got,
               (unsigned)want);
}
static void check(const char *what, uint32_t in, uint32_t got, uint32_t want)
{
    n_checked++;
    if (got != want) fail_line(what, in, got, want);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef uint16_t (*fn16_scalar)(uint16_t);
typedef void (*fn16_array)(size_t, const uint16_t *, uint16_t *);

enum hx_fn { HX_RSQRT, HX_SIN, HX_COS };

static int y_rsqrt(float x, double *y) { return repdl__rsqrtf_y(x, y); }
static int y_sin(float x, double *y) { return repdl__sinf_y(x, y); }
static int y_cos(float x, double *y) { return repdl__cosf_y(x, y); }
static float f32_rsqrt(float x) { return repdl_rsqrt_f32(x); }
static float f32_sin(float x) { return repdl_sin_f32(x); }
static float f32_cos(float x) { return repdl_cos_f32(x); }

typedef struct fn16 {
    const char *name;
    enum hx_fn id;
    fn16_scalar scalar[2];     /* bf16, f16 */
    fn16_array array[2];
    float (*f32)(float);
    int (*y)(float, double *);
    double err;
    long dr_expected[2];       /* double-rounding errors, bf16 and f16 */
} fn16;

static const fn16 fns[] = {
    {"rsqrt", HX_RSQRT, {repdl_rsqrt_bf16, repdl_rsqrt_f16}, {repdl_rsqrt_array_bf16, repdl_rsqrt_array_f16},
     f32_rsqrt, y_rsqrt, REPDL__RSQRTF_ERR, {HX_DR_RSQRT_BF16, HX_DR_RSQRT_F16}},
    {"sin", HX_SIN, {repdl_sin_bf16, repdl_sin_f16}, {repdl_sin_array_bf16, repdl_sin_array_f16},
     f32_sin, y_sin, REPDL__SINF_ERR, {HX_DR_SIN_BF16, HX_DR_SIN_F16}},
    {"cos", HX_COS, {repdl_cos_bf16, repdl_cos_f16}, {repdl_cos_array_bf16, repdl_cos_array_f16},
     f32_cos, y_cos, REPDL__COSF_ERR, {HX_DR_COS_BF16, HX_DR_COS_F16}},
};
#define NFN ((int)(sizeof fns / sizeof fns[0]))

static const repdl_hr_fmt *const fmts[2] = {&repdl_hr_bf16, &repdl_hr_f16};

static float h_to_float(int k, uint32_t h) { return (float)repdl_hr_decode(fmts[k], h); }
static uint16_t f32_to_h(int k, float x) { return k == 0 ? repdl_f32_to_bf16(x) : repdl_f32_to_f16(x); }

static void check_array_all(const fn16 *F, int k)
{
    static uint16_t in[65536], out[65536];
    char what[64];
    uint32_t i;
    snprintf(what, sizeof what, "%s_array_%s", F->name, fmts[k]->name);
    for (i = 0; i < 65536; i++) in[i] = (uint16_t)i;
    F->array[k](65536, in, out);
    for (i = 0; i < 65536; i++) check(what, i, out[i], F->scalar[k]((uint16_t)i));
    F->array[k](65536, in, in);                          /* in place */
    snprintf(what, sizeof what, "%s_array_%s in place", F->name, fmts[k]->name);
    for (i = 0; i < 65536; i++) check(what, i, in[i], out[i]);
}

static void check_array_shapes(const fn16 *F, int k)
{
    uint16_t buf[4 * 512], *in = buf, *out = buf + 512, *ref = buf + 1024;
    char what[64];
    size_t n, off, i;
    snprintf(what, sizeof what, "%s_array_%s shapes", F->name, fmts[k]->name);
    for (n = 0; n <= 300; n++)
        for (off = 0; off < 4; off++) {
            uint16_t *o = out + off, *x = in + (3 - off);
            for (i = 0; i < n; i++) x[i] = (uint16_t)((n * 7919u + i * 40503u) & 0xffffu);
            for (i = 0; i < n; i++) ref[i] = F->scalar[k](x[i]);
            F->array[k](n, x, o);
            for (i = 0; i < n; i++) check(what, x[i], o[i], ref[i]);
            F->array[k](n, x, x);
            for (i = 0; i < n; i++) check(what, (uint32_t)i, x[i], ref[i]);
        }
    F->array[k](0, NULL, NULL);                         /* n = 0: no access */
}

static int test_array(void)
{
    int f, k;
    for (f = 0; f < NFN; f++)
        for (k = 0; k < 2; k++) {
            check_array_all(&fns[f], k);
            check_array_shapes(&fns[f], k);
        }
    printf("array: %d array forms against their scalar forms (all 2^16 inputs, in place, "
           "lengths 0-300 unaligned, NULL): %ld checks, %ld failures\n", 2 * NFN, n_checked, n_fail);
    return n_fail ? 1 : 0;
}

#ifdef REPDL_TEST_HAVE_MPFR

/* F(x) into v (its precision), rounded to nearest, wide exponent range;
   returns MPFR's ternary value (0: exact). */
static int hx_eval(mpfr_ptr v, enum hx_fn id, float x)
{
    mpfr_t xm;
    int t;
    mpfr_init2(xm, 24);
    mpfr_set_flt(xm, x, MPFR_RNDN);              /* exact */
    switch (id) {
    case HX_RSQRT:
        if (mpfr_zero_p(xm) && mpfr_signbit(xm)) { mpfr_set_inf(v, -1); t = 0; }  /* IEEE rSqrt(-0) */
        else t = mpfr_rec_sqrt(v, xm, MPFR_RNDN);
        break;
    case HX_SIN: t = mpfr_sin(v, xm, MPFR_RNDN); break;
    default: t = mpfr_cos(v, xm, MPFR_RNDN); break;
    }
    mpfr_clear(xm);
    return t;
}

/* F(x) rounded once to format f (p + 1 bits, f's range, subnormalized:
   MPFR rounds correctly, ties to even included). */
static uint32_t hx_mpfr_fn(const repdl_hr_fmt *f, enum hx_fn id, float x)
{
    mpfr_t m;
    uint32_t r;
    int t;
    mpfr_init2(m, f->p + 1);
    repdl_hr_set_range(f);
    t = hx_eval(m, id, x);
    t = mpfr_subnormalize(m, t, MPFR_RNDN);
    (void)t;
    r = mpfr_nan_p(m) ? f->nan : repdl_hr_encode(f, mpfr_get_d(m, MPFR_RNDN));
    repdl_hr_wide_range();
    mpfr_clear(m);
    return r;
}

/* as test_half.c: the distance, relative to |v|, from |v| to the nearest
   rounding boundary of format f, want = v's correct rounding */
static double margin_of(const repdl_hr_fmt *f, mpfr_srcptr v, uint32_t want)
{
    uint32_t a = want & (repdl_hr_sign(f) - 1u), inf = repdl_hr_inf(f);
    double best = 1.0;
    mpfr_t av, d;
    int side;
    mpfr_inits2(256, av, d, (mpfr_ptr)0);
    mpfr_abs(av, v, MPFR_RNDN);
    for (side = 0; side < 2; side++) {
        double mid, r;
        if (side == 0 && a == 0) continue;
        if (side == 1 && a >= inf) continue;
        mid = side == 0 ? (repdl_hr_mag(f, a - 1) + repdl_hr_mag(f, a)) / 2
                        : (repdl_hr_mag(f, a) + repdl_hr_mag(f, a + 1)) / 2;  /* exact */
        mpfr_sub_d(d, av, mid, MPFR_RNDN);
        mpfr_abs(d, d, MPFR_RNDN);
        mpfr_div(d, d, av, MPFR_RNDN);
        r = mpfr_get_d(d, MPFR_RNDD);
        if (r < best) best = r;
    }
    mpfr_clears(av, d, (mpfr_ptr)0);
    return best;
}

static double rel_err(double y, mpfr_srcptr v)
{
    mpfr_t d;
    double r;
    mpfr_init2(d, 256);
    mpfr_set_d(d, y, MPFR_RNDN);
    mpfr_sub(d, d, v, MPFR_RNDN);
    mpfr_div(d, d, v, MPFR_RNDN);
    mpfr_abs(d, d, MPFR_RNDN);
    r = mpfr_get_d(d, MPFR_RNDU);
    mpfr_clear(d);
    return r;
}

static int test_func(const fn16 *F)
{
    int k;
    mpfr_t v;
    mpfr_init2(v, 256);
    for (k = 0; k < 2; k++) {
        const repdl_hr_fmt *f = fmts[k];
        char what[40], whatd[64];
        double min_margin = 1.0, max_yerr = 0.0, t0 = now();
        uint32_t min_in = 0, h;
        long n_y = 0, n_special = 0, n_dr = 0, n_exact = 0;
        uint32_t dr_in[64];
        snprintf(what, sizeof what, "%s_%s", F->name, f->name);
        snprintf(whatd, sizeof whatd, "%s double rounding", what);
        for (h = 0; h < 65536; h++) {
            float x = h_to_float(k, h);
            uint32_t want = hx_mpfr_fn(f, F->id, x);
            uint32_t r32 = hx_mpfr_fn(&repdl_hr_f32, F->id, x);
            uint32_t dr = repdl_hr_round_f32(f, repdl__asfloat(r32));
            double y = 0.0;
            check(what, h, F->scalar[k]((uint16_t)h), want);
            check(whatd, h, f32_to_h(k, F->f32(x)), dr);
            if (dr != want) {
                if (n_dr < 64) dr_in[n_dr] = h;
                n_dr++;
            }
            if (F->y(x, &y)) {
                double m;
                int t = hx_eval(v, F->id, x);
                if (t == 0) {
                    /* exact: rsqrt(4^k) = 2^-k (y exact: rsqrt.h), sin(+-0)
                       = +-0, cos(+-0) = 1 (y = f S(f^2) = +-0, C(0) = 1) */
                    n_exact++;
                    n_checked++;
                    if (mpfr_cmp_d(v, y) != 0 || (!signbit(y)) != (!mpfr_signbit(v)))
                        fail_line("exact result, y differs", h, 0, 0);
                    continue;
                }
                n_y++;
                m = margin_of(f, v, want);
                if (m < min_margin) { min_margin = m; min_in = h; }
                {
                    double e = rel_err(y, v);
                    if (e > max_yerr) max_yerr = e;
                    n_checked += 2;
                    if (!(e < F->err)) fail_line("y beyond E", h, 0, 0);
                    if (!(m > F->err)) fail_line("margin not above E", h, 0, 0);
                }
            } else {
                n_special++;
            }
        }
        n_checked++;
        if (n_dr != F->dr_expected[k]) {
            printf("FAIL %s: %ld double-rounding errors, this file says %ld\n", what,
                   n_dr, F->dr_expected[k]);
            n_fail++;
        }
        check_array_all(F, k);
        printf("%s: all 65536 inputs == MPFR; %ld rounded from y (%ld exact), %ld special path; "
               "smallest margin 2^%.2f at in=0x%04x (E = 2^%.2f); max |y/F - 1| = 2^%.2f",
               what, n_y, n_exact, n_special, log2(min_margin), (unsigned)min_in, log2(F->err),
               log2(max_yerr));
        printf("; double rounding wrong on %ld input%s", n_dr, n_dr == 1 ? "" : "s");
        {
            long j;
            for (j = 0; j < n_dr && j < 64; j++)
                printf("%s0x%04x", j ? " " : ": ", (unsigned)dr_in[j]);
        }
        printf("; %.1f s\n", now() - t0);
    }
    mpfr_clear(v);
    printf("%s: %ld checks, %ld failures\n", F->name, n_checked, n_fail);
    return n_fail ? 1 : 0;
}
#endif /* REPDL_TEST_HAVE_MPFR */

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_half_trig func F | array\n");
        return 2;
    }
    if (!repdl_fpenv_ok(1.0f)) { printf("the floating-point environment flushes subnormals\n"); return 1; }
    if (strcmp(argv[1], "array") == 0) return test_array();
#ifdef REPDL_TEST_HAVE_MPFR
    repdl_hr_wide_range();
    if (strcmp(argv[1], "func") == 0 && argc >= 3) {
        int f;
        for (f = 0; f < NFN; f++)
            if (strcmp(argv[2], fns[f].name) == 0) return test_func(&fns[f]);
        printf("SKIP: %s: absent\n", argv[2]);
        return SKIP;
    }
#else
    if (strcmp(argv[1], "func") == 0) {
        printf("SKIP: built without MPFR, which func needs\n");
        return SKIP;
    }
#endif
    fprintf(stderr, "usage: test_half_trig func F | array\n");
    return 2;
}
