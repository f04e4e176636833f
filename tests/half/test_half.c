/* SPDX-License-Identifier: MIT */
/* tests/half/test_half.c: bfloat16 and float16 in repdl: the conversions
   of half.h and the 16-bit exp, log, tanh, sqrt and sigmoid of
   half_math.h, against MPFR and the plain references of
   reference/half_ref.h.  One source, built in every build of the test
   matrix (tests/half/meson.build); every check compares bit patterns
   (+0 and -0 differ; a NaN result must be the canonical one).

     test_half func F      F in exp log tanh sqrt sigmoid, both formats, all
                           2^16 inputs each:
                             - the result equals MPFR's F(x) rounded once to
                               the format;
                             - the margin: where the function rounds its
                               approximation y (repdl__F_y returns 1), F(x)
                               lies farther than E = REPDL__F_ERR (relative)
                               from every rounding boundary of the format,
                               so that any y within E, in any build, rounds
                               the same way (the proof for builds not run);
                               and this build's y is within E of F(x);
                             - double rounding: MPFR's binary32 result
                               rounded again to the format differs from the
                               correct result on exactly the inputs where
                               repdl_F_f32 followed by the conversion does,
                               and their number is the documented one
                               (docs/functions/half.md);
                             - the array form equals the scalar form on all
                               inputs, in place too;
                           prints the smallest margin and the double-
                           rounding inputs.
     test_half conv        the conversions: all 2^16 bf16 and f16 patterns
                           to binary32 (exact; NaN canonical); binary32 to
                           both formats on every 2^12-th pattern and at and
                           around every rounding boundary of the formats
                           (each value, each midpoint, +-3 ulps), against
                           MPFR and the plain reference; array forms equal
                           scalar forms.
     test_half conv-all [--threads N] [--step S]   (S > 1: every S-th block of 4096)
                           all 2^32 binary32 patterns to bf16 and f16 against
                           the plain reference, scalar and array forms,
                           and half.h's roundings of a double on each
                           (suite exhaustive; no MPFR needed).
     test_half array       the ten 16-bit array forms against their scalar
                           forms: lengths 0 to 300, unaligned, in place,
                           n = 0 with NULL pointers (no MPFR needed).

   Exit status 0: pass; 1: a failure (the first ones printed); 77: skipped
   (a mode that needs MPFR in a build without it). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <repdl/half_math.h>
#ifdef REPDL_TEST_HAVE_MPFR
#define REPDL_HR_MPFR 1
#endif
#include "half_ref.h"

#define SKIP 77

#include "half_check.h"

/* ---- The functions under test ---- */

/* repdl__F_y by address (static inline functions; sqrt has none) */
static int y_exp(float x, double *y) { return repdl__expf_y(x, y); }
static int y_log(float x, double *y) { return repdl__logf_y(x, y); }
/* the calls round repdl__tanhf_y16's y (the fast path's on its domain),
   the array lane repdl__tanhf_y's: the margin proof takes the larger bound */
static int y_tanh(float x, double *y) { return repdl__tanhf_y16(x, y); }
static int y_sigmoid(float x, double *y) { return repdl__sigmoidf_y(x, y); }

typedef struct fn16 {
    const char *name;
    int id;                    /* enum repdl_hr_fn */
    fn16_scalar scalar[2];     /* bf16, f16 */
    fn16_array array[2];
    float (*f32)(float);       /* the binary32 function */
    int (*y)(float, double *); /* its approximation, NULL for sqrt */
    double err;                /* its bound E */
    long dr_expected[2];       /* double-rounding errors, bf16 and f16 (docs/functions/half.md) */
} fn16;

static float f32_exp(float x) { return repdl_exp_f32(x); }
static float f32_log(float x) { return repdl_log_f32(x); }
static float f32_tanh(float x) { return repdl_tanh_f32(x); }
static float f32_sqrt(float x) { return repdl_sqrt_f32(x); }
static float f32_sigmoid(float x) { return repdl_sigmoid_f32(x); }

static const fn16 fns[] = {
    {"exp", 0, {repdl_exp_bf16, repdl_exp_f16}, {repdl_exp_array_bf16, repdl_exp_array_f16},
     f32_exp, y_exp, REPDL__EXPF_ERR, {0, 2}},
    {"log", 1, {repdl_log_bf16, repdl_log_f16}, {repdl_log_array_bf16, repdl_log_array_f16},
     f32_log, y_log, REPDL__LOGF_ERR, {0, 1}},
    {"tanh", 2, {repdl_tanh_bf16, repdl_tanh_f16}, {repdl_tanh_array_bf16, repdl_tanh_array_f16},
     f32_tanh, y_tanh, REPDL__TANHF_Y16_ERR, {0, 0}},
    {"sqrt", 3, {repdl_sqrt_bf16, repdl_sqrt_f16}, {repdl_sqrt_array_bf16, repdl_sqrt_array_f16},
     f32_sqrt, NULL, 0.0, {0, 0}},
    {"sigmoid", 4, {repdl_sigmoid_bf16, repdl_sigmoid_f16},
     {repdl_sigmoid_array_bf16, repdl_sigmoid_array_f16}, f32_sigmoid, y_sigmoid,
     REPDL__SIGMOIDF_ERR, {0, 7}},
};
#define NFN ((int)(sizeof fns / sizeof fns[0]))

static int test_array(void)
{
    int f;
    for (f = 0; f < NFN; f++) check_array_forms(fns[f].name, fns[f].scalar, fns[f].array);
    printf("array: 10 array forms against their scalar forms (all 2^16 inputs, in place, "
           "lengths 0-300 unaligned, NULL): %ld checks, %ld failures\n", n_checked, n_fail);
    return n_fail ? 1 : 0;
}

/* ---- binary32 -> 16 bits, every input, plain reference (no MPFR) ---- */

static int g_threads = 2;
static uint64_t g_next, g_bad, g_step = 1; /* conv-all --step S: every S-th block of 4096 */
#define CONV_BLOCK 4096u

static void *conv_worker(void *arg)
{
    float x[CONV_BLOCK];
    uint16_t a[2][CONV_BLOCK];
    uint64_t bad = 0;
    (void)arg;
    for (;;) {
        uint64_t lo = __atomic_fetch_add(&g_next, CONV_BLOCK * g_step, __ATOMIC_RELAXED);
        uint32_t i;
        int k;
        if (lo >= (1ull << 32)) break;
        for (i = 0; i < CONV_BLOCK; i++) {
            uint32_t u = (uint32_t)lo + i;
            memcpy(&x[i], &u, 4);
        }
        repdl_f32_to_bf16_array(CONV_BLOCK, x, a[0]);
        repdl_f32_to_f16_array(CONV_BLOCK, x, a[1]);
        for (k = 0; k < 2; k++)
            for (i = 0; i < CONV_BLOCK; i++) {
                uint32_t want = repdl_hr_round_f32(fmts[k], x[i]);
                uint32_t got = f32_to_h(k, x[i]);
                /* half.h's rounding of a double (the functions' y), on x */
                uint32_t gotd = x[i] != x[i] ? want : repdl__d_to_h((double)x[i], k);
                uint32_t gotd1 = x[i] != x[i] ? want : repdl__d_to_h_1((double)x[i], k);
                if (got != want || a[k][i] != want || gotd != want || gotd1 != want) {
                    if (__atomic_fetch_add(&g_bad, 1, __ATOMIC_RELAXED) < 20)
                        printf("FAIL f32_to_%s in=0x%08x got=0x%04x array=0x%04x d_to_h=0x%04x want=0x%04x\n",
                               fmts[k]->name, (unsigned)((uint32_t)lo + i), (unsigned)got,
                               (unsigned)a[k][i], (unsigned)gotd, (unsigned)want);
                    bad++;
                }
            }
    }
    (void)bad;
    return NULL;
}

static int test_conv_all(void)
{
    pthread_t th[64];
    int t, n = g_threads < 1 ? 1 : g_threads > 64 ? 64 : g_threads;
    double t0 = now(), c0 = (double)clock() / CLOCKS_PER_SEC;
    repdl_hr_mag(fmts[0], 0);                            /* fill the reference's tables first */
    repdl_hr_mag(fmts[1], 0);
    for (t = 0; t < n; t++) pthread_create(&th[t], NULL, conv_worker, NULL);
    for (t = 0; t < n; t++) pthread_join(th[t], NULL);
    if (g_step > 1)
        printf("conv-all --step %llu: one block of 4096 binary32 patterns in %llu (%llu patterns)\n",
               (unsigned long long)g_step, (unsigned long long)g_step,
               (unsigned long long)(((1ull << 20) + g_step - 1) / g_step * CONV_BLOCK));
    printf("conv-all: %s binary32 patterns to bf16 and f16 (scalar and array forms, "
           "and half.h's roundings of a double, repdl__d_to_h and repdl__d_to_h_1) "
           "against the plain reference: %llu mismatches, %d threads, %.1f s wall, %.1f s CPU\n",
           g_step == 1 ? "all 2^32" : "the sampled",
           (unsigned long long)g_bad, n, now() - t0, (double)clock() / CLOCKS_PER_SEC - c0);
    return g_bad ? 1 : 0;
}

#ifdef REPDL_TEST_HAVE_MPFR

/* ---- conversions, quick ---- */

typedef struct { uint32_t *v; size_t n, cap; } list;
static void push(list *l, uint32_t x)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4096;
        l->v = (uint32_t *)realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) { perror("realloc"); exit(2); }
    }
    l->v[l->n++] = x;
}
static void push_around(list *l, float x, uint32_t k)
{
    uint32_t u, d;
    memcpy(&u, &x, 4);
    push(l, u);
    for (d = 1; d <= k; d++) { push(l, u + d); push(l, u - d); }
}

static uint32_t mpfr_conv(int k, float x)
{
    mpfr_t m;
    uint32_t r;
    mpfr_init2(m, 24);
    mpfr_set_flt(m, x, MPFR_RNDN);                       /* exact */
    r = repdl_hr_mpfr_round(fmts[k], m);
    mpfr_clear(m);
    return r;
}

static int test_conv(void)
{
    list l = {NULL, 0, 0};
    static const uint32_t fixed[] = {
        0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
        0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu, 0x7fa00000u, 0x7fc00001u,
        0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu, 0xff7fffffu,
    };
    uint32_t i, h;
    int k;
    size_t j;
    long bound_inputs;
    /* 16 -> 32, every pattern, against the plain decoding */
    for (k = 0; k < 2; k++) {
        static uint16_t hs[65536];
        static float outs[65536];
        char what[32];
        snprintf(what, sizeof what, "%s_to_f32", fmts[k]->name);
        for (h = 0; h < 65536; h++) hs[h] = (uint16_t)h;
        if (k == 0) repdl_bf16_to_f32_array(65536, hs, outs);
        else repdl_f16_to_f32_array(65536, hs, outs);
        for (h = 0; h < 65536; h++) {
            double d = repdl_hr_decode(fmts[k], h);
            uint32_t want = d != d ? 0x7fc00000u : repdl__asuint((float)d);
            float got = k == 0 ? repdl_bf16_to_f32((uint16_t)h) : repdl_f16_to_f32((uint16_t)h);
            check(what, h, repdl__asuint(got), want);
            check(what, h, repdl__asuint(outs[h]), want);
            /* and back: every non-NaN value converts to itself */
            if (d == d) check(what, h, f32_to_h(k, got), h);
        }
    }
    /* 32 -> 16: a stride over all patterns, and every rounding boundary */
    for (j = 0; j < sizeof fixed / sizeof fixed[0]; j++) push(&l, fixed[j]);
    for (i = 0; i < (1u << 20); i++) push(&l, (i << 12) | ((i * 2654435761u) >> 20));
    bound_inputs = -(long)l.n;
    for (k = 0; k < 2; k++) {
        uint32_t inf = repdl_hr_inf(fmts[k]), a;
        for (a = 0; a <= inf; a++) {
            double v = repdl_hr_mag(fmts[k], a);
            int s;
            for (s = 0; s < 2; s++) {
                double sg = s ? -1.0 : 1.0;
                if (v < 0x1p128) push_around(&l, (float)(sg * v), 3);
                if (a < inf) push_around(&l, (float)(sg * (v + repdl_hr_mag(fmts[k], a + 1)) / 2), 3);
            }
        }
    }
    bound_inputs += (long)l.n;
    for (k = 0; k < 2; k++) {
        char what[32], whatr[64], whata[64];
        uint16_t *arr = (uint16_t *)malloc(l.n * sizeof *arr);
        float *xs = (float *)malloc(l.n * sizeof *xs);
        if (!arr || !xs) { perror("malloc"); return 2; }
        snprintf(what, sizeof what, "f32_to_%s", fmts[k]->name);
        snprintf(whatr, sizeof whatr, "%s plain-reference", what);
        snprintf(whata, sizeof whata, "%s_array", what);
        for (j = 0; j < l.n; j++) xs[j] = repdl__asfloat(l.v[j]);
        if (k == 0) repdl_f32_to_bf16_array(l.n, xs, arr);
        else repdl_f32_to_f16_array(l.n, xs, arr);
        for (j = 0; j < l.n; j++) {
            uint32_t want = mpfr_conv(k, xs[j]);
            check(whatr, l.v[j], repdl_hr_round_f32(fmts[k], xs[j]), want);
            check(what, l.v[j], f32_to_h(k, xs[j]), want);
            check(whata, l.v[j], arr[j], want);
            /* half.h's rounding of a double (the functions' y; ties too) */
            if (xs[j] == xs[j]) {
                check("d_to_h", l.v[j], repdl__d_to_h((double)xs[j], k), want);
                check("d_to_h_1", l.v[j], repdl__d_to_h_1((double)xs[j], k), want);
            }
        }
        free(arr);
        free(xs);
    }
    {
        float nothing = 0.0f;
        repdl_f32_to_bf16_array(0, NULL, NULL);
        repdl_f32_to_f16_array(0, NULL, NULL);
        repdl_bf16_to_f32_array(0, NULL, NULL);
        repdl_f16_to_f32_array(0, NULL, NULL);
        (void)nothing;
    }
    printf("conv: bf16/f16 -> f32 on all 2^16 patterns each (and back); f32 -> bf16/f16 on %zu inputs "
           "(every 2^12-th pattern, %ld at and around every rounding boundary, specials) against "
           "MPFR and the plain reference, and half.h's rounding of a double on them; array forms: %ld checks, %ld failures\n",
           l.n, bound_inputs, n_checked, n_fail);
    free(l.v);
    return n_fail ? 1 : 0;
}

/* ---- the functions, all inputs ---- */

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
            uint32_t want = repdl_hr_mpfr_fn(f, (enum repdl_hr_fn)F->id, x);
            uint32_t r32 = repdl_hr_mpfr_fn(&repdl_hr_f32, (enum repdl_hr_fn)F->id, x);
            uint32_t dr = repdl_hr_round_f32(f, repdl__asfloat(r32));
            double y = 0.0;
            check(what, h, F->scalar[k]((uint16_t)h), want);
            /* the library's binary32 result is MPFR's (repdl's proven claim),
               and converted it double-rounds exactly where MPFR's does */
            check(whatd, h, f32_to_h(k, F->f32(x)), dr);
            if (dr != want) {
                if (n_dr < 64) dr_in[n_dr] = h;
                n_dr++;
            }
            /* the margin, on the inputs where y is rounded */
            if (F->id == REPDL_HR_SQRT ? (x > 0.0f && x - x == 0.0f) : F->y(x, &y)) {
                double m;
                repdl_hr_mpfr_eval(v, (enum repdl_hr_fn)F->id, x);
                if (mpfr_zero_p(v)) {
                    /* log(1) = 0: y is +0 exactly (log.h), no relative margin */
                    n_exact++;
                    n_checked++;
                    if (!(y == 0.0 && !signbit(y))) fail_line("exact zero y", h, (uint32_t)(y != 0.0), 0);
                    continue;
                }
                n_y++;
                m = margin_of(f, v, want);
                if (m < min_margin) { min_margin = m; min_in = h; }
                if (F->y) {
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
        /* the tanh lane's clamp point (repdl__tanh_h_lane): saturated
           inputs get y ~ tanh(0x1.205966p3), which must round to 1 with a
           margin above E as well */
        if (F->id == REPDL_HR_TANH) {
            float xc = repdl__asfloat(0x41102cb3u);
            uint32_t want = repdl_hr_mpfr_fn(f, REPDL_HR_TANH, xc);
            double m;
            repdl_hr_mpfr_eval(v, REPDL_HR_TANH, xc);
            m = margin_of(f, v, want);
            check("tanh clamp point rounds to 1", 0x41102cb3u, want, repdl_hr_encode(f, 1.0));
            n_checked++;
            if (!(m > F->err)) fail_line("tanh clamp point margin", 0x41102cb3u, 0, 0);
        }
        n_checked++;
        if (n_dr != F->dr_expected[k]) {
            printf("FAIL %s: %ld double-rounding errors, docs/functions/half.md says %ld\n", what,
                   n_dr, F->dr_expected[k]);
            n_fail++;
        }
        check_array_all(F->name, F->scalar[k], F->array[k], k);
        printf("%s: all 65536 inputs == MPFR; %ld %s (%ld exact zero), %ld special path; "
               "smallest margin 2^%.2f at in=0x%04x", what, n_y, F->y ? "rounded from y" : "positive finite",
               n_exact, n_special, log2(min_margin), (unsigned)min_in);
        if (F->y)
            printf(" (E = 2^%.0f); max |y/F - 1| = 2^%.2f", log2(F->err), log2(max_yerr));
        else
            printf(" (no y: the binary32 square root, rounded again; see half_math.h)");
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
    int i;
    if (argc < 2) {
        fprintf(stderr, "usage: test_half func F | conv | conv-all [--threads N] [--step S] | array\n");
        return 2;
    }
    for (i = 2; i + 1 < argc; i++)
        if (strcmp(argv[i], "--step") == 0) g_step = (uint64_t)strtoull(argv[i + 1], NULL, 0);
    if (g_step < 1) g_step = 1;
    if (strcmp(argv[1], "conv-all") == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        g_threads = c > 0 ? (int)c : 1;
    }
    for (i = 2; i + 1 < argc; i++)
        if (strcmp(argv[i], "--threads") == 0) g_threads = atoi(argv[i + 1]);
    if (!repdl_fpenv_ok(1.0f)) { printf("the floating-point environment flushes subnormals\n"); return 1; }
    if (strcmp(argv[1], "conv-all") == 0) return test_conv_all();
    if (strcmp(argv[1], "array") == 0) return test_array();
#ifdef REPDL_TEST_HAVE_MPFR
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    if (strcmp(argv[1], "conv") == 0) return test_conv();
    if (strcmp(argv[1], "func") == 0 && argc >= 3) {
        int f;
        for (f = 0; f < NFN; f++)
            if (strcmp(argv[2], fns[f].name) == 0) return test_func(&fns[f]);
        fprintf(stderr, "unknown function %s\n", argv[2]);
        return 2;
    }
#else
    if (strcmp(argv[1], "conv") == 0 || strcmp(argv[1], "func") == 0) {
        printf("SKIP: built without MPFR, which %s needs\n", argv[1]);
        return SKIP;
    }
#endif
    fprintf(stderr, "usage: test_half func F | conv | conv-all [--threads N] [--step S] | array\n");
    return 2;
}
