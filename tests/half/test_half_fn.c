/* SPDX-License-Identifier: MIT */
/* tests/half/test_half_fn.c: the bfloat16 and float16 forms of the
   functions outside half_math.h, against MPFR, as tests/half/test_half.c
   checks half_math.h's: one table, a row per function (its 16-bit scalar
   and array forms, its binary32 function, its double approximation y with
   the proven bound E, its MPFR evaluation, its double-rounding counts).
   Groups (for the array test): explog: exp2 log2 expm1 log1p (exp2.h,
   log2.h, expm1.h, log1p.h); trig: rsqrt sin cos (rsqrt.h, sin.h, cos.h);
   act: erf silu softplus gelu gelu_tanh (erf.h, activation.h).  One
   source, built in every build of the test matrix (tests/half/meson.build);
   every check compares bit patterns.

     test_half_fn func F     F a row's name, both formats, all 2^16 inputs
                             each:
                               - the result equals F(x) rounded once to the
                                 format (MPFR: its own correct rounding, or
                                 for silu, softplus, gelu, gelu_tanh, which
                                 MPFR lacks, an enclosure from
                                 reference/mpfr_ref.h's evaluations that
                                 both ends round alike; rsqrt(-0) = -inf,
                                 IEEE 754 rSqrt, where MPFR gives +inf);
                               - the margin: where the function rounds its
                                 approximation y (repdl__Ff_y returns 1),
                                 F(x) lies farther than E = REPDL__Ff_ERR
                                 (relative) from every rounding boundary of
                                 the format, so that any y within E, in any
                                 build, rounds the same way, and this
                                 build's y is within E of F(x); or F(x) is
                                 exact and y equals it, sign included (the
                                 rows that allow it: exp2 of an integer,
                                 y = s on every path; rsqrt(4^k) = 2^-k;
                                 sin(+-0) = +-0, cos(+-0) = 1,
                                 erf(+-0) = +-0; zero results only for
                                 log2, expm1, log1p: log2(1) = +0);
                               - double rounding: F(x) rounded to binary32
                                 then again to the format differs from the
                                 correct result on exactly the inputs where
                                 repdl_F_f32 and the conversion do, and
                                 their number is the one in the table below
                                 (docs/functions/half.md);
                               - the array form equals the scalar form on
                                 all inputs, in place too;
     test_half_fn array G    the array forms of group G (explog, trig, act)
                             against their scalar forms: lengths 0 to 300,
                             unaligned, in place, n = 0 with NULL pointers
                             (no MPFR needed).

   Exit status 0: pass; 1: a failure (the first ones printed); 77: skipped
   (MPFR absent for func). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <repdl/exp2.h>
#include <repdl/log2.h>
#include <repdl/expm1.h>
#include <repdl/log1p.h>
#include <repdl/rsqrt.h>
#include <repdl/sin.h>
#include <repdl/cos.h>
#include <repdl/erf.h>
#include <repdl/activation.h>
#ifdef REPDL_TEST_HAVE_MPFR
#define REPDL_HR_MPFR 1
#include "mpfr_ref.h"
#endif
#include "half_ref.h"

#define SKIP 77

/* Inputs on which the binary32 result rounded again to the format is
   wrong (double rounding), counted by this test with MPFR and listed in
   docs/functions/half.md (rsqrt, sin, cos: 2026-11-27). */
#define HX_DR_EXP2_BF16 0
#define HX_DR_EXP2_F16 1    /* 0x11c5 */
#define HX_DR_LOG2_BF16 0
#define HX_DR_LOG2_F16 0
#define HX_DR_EXPM1_BF16 0
#define HX_DR_EXPM1_F16 1   /* 0x11a8 */
#define HX_DR_LOG1P_BF16 0
#define HX_DR_LOG1P_F16 2   /* 0x1e03 0x9dfd */
#define HX_DR_RSQRT_BF16 0
#define HX_DR_RSQRT_F16 0
#define HX_DR_SIN_BF16 0
#define HX_DR_SIN_F16 4    /* 0x32b3 0x5cb0 0xb2b3 0xdcb0 */
#define HX_DR_COS_BF16 0
#define HX_DR_COS_F16 2    /* 0x2b7c 0xab7c */
#define HX_DR_ERF_BF16 0
#define HX_DR_ERF_F16 2    /* 0x1612 0x9612 */
/* silu, gelu, gelu_tanh of bf16: 0x0001 + 4k and 0x8003 + 4k, k < 64:
   subnormal x, x/2 a midpoint that F(x) lies just above (activation.h's
   tiny rule), which the binary32 result x/2 loses and RNE moves away */
#define HX_DR_SILU_BF16 128
#define HX_DR_SILU_F16 2   /* 0x0001 0xc173 */
#define HX_DR_SOFTPLUS_BF16 0
#define HX_DR_SOFTPLUS_F16 1   /* 0x8430 */
#define HX_DR_GELU_BF16 128 /* as silu */
#define HX_DR_GELU_F16 3   /* 0x0001 0x157c 0x957c */
#define HX_DR_GELU_TANH_BF16 128 /* as silu */
#define HX_DR_GELU_TANH_F16 5   /* 0x0001 0x157c 0x35a7 0x957c 0xb5a7 */

#include "half_check.h"

enum hx_fn { HX_EXP2, HX_LOG2, HX_EXPM1, HX_LOG1P, HX_RSQRT, HX_SIN, HX_COS,
             HX_ERF, HX_SILU, HX_SOFTPLUS, HX_GELU, HX_GELU_TANH };

#define HX_Y(F) static int y_##F(float x, double *y) { return repdl__##F##f_y(x, y); }
/* erf's 16-bit forms round the y of repdl__erff_y16 (the fast path's where
   it applies), bounded by REPDL__ERFF_Y16_ERR; */
static int y_erf(float x, double *y) { return repdl__erff_y16(x, y); }
/* so do sin's and cos's (detail/trigf.h), bounded by REPDL__TRIGF_FAST_ERR,
   log1p's (REPDL__LOG1PF_Y16_ERR) and expm1's calls (REPDL__EXPM1F_Y16_ERR,
   the larger of the call's and the array lane's bounds) */
static int y_log1p(float x, double *y) { return repdl__log1pf_y16(x, y); }
static int y_expm1(float x, double *y) { return repdl__expm1f_y16(x, y); }
static int y_sin(float x, double *y) { return repdl__trigf_y16(x, 0u, REPDL__SINF_LO, y); }
static int y_cos(float x, double *y) { return repdl__trigf_y16(x, 1u, REPDL__COSF_LO, y); }
#define HX_F32(F) static float f32_##F(float x) { return repdl_##F##_f32(x); }
HX_Y(exp2) HX_Y(log2) HX_Y(rsqrt)
HX_Y(silu) HX_Y(softplus) HX_Y(gelu) HX_Y(gelu_tanh)
HX_F32(exp2) HX_F32(log2) HX_F32(expm1) HX_F32(log1p) HX_F32(rsqrt) HX_F32(sin) HX_F32(cos)
HX_F32(erf) HX_F32(silu) HX_F32(softplus) HX_F32(gelu) HX_F32(gelu_tanh)

/* which exact values of F may take the exact route of the margin proof */
enum hx_exact { HX_EXACT_ZERO, HX_EXACT_ANY };

typedef struct fn16 {
    const char *name, *group;
    enum hx_fn id;
    fn16_scalar scalar[2];     /* bf16, f16 */
    fn16_array array[2];
    float (*f32)(float);
    int (*y)(float, double *);
    double err;
    enum hx_exact exact;
    long dr_expected[2];       /* double-rounding errors, bf16 and f16 (docs/functions/half.md) */
} fn16;

#define HX_ROW(F, G, ID, ERR, EXACT, DRB, DRH)                                                  \
    {#F, G, ID, {repdl_##F##_bf16, repdl_##F##_f16}, {repdl_##F##_array_bf16, repdl_##F##_array_f16}, \
     f32_##F, y_##F, ERR, EXACT, {DRB, DRH}}
static const fn16 fns[] = {
    HX_ROW(exp2, "explog", HX_EXP2, REPDL__EXP2F_ERR, HX_EXACT_ANY, HX_DR_EXP2_BF16, HX_DR_EXP2_F16),
    HX_ROW(log2, "explog", HX_LOG2, REPDL__LOG2F_ERR, HX_EXACT_ZERO, HX_DR_LOG2_BF16, HX_DR_LOG2_F16),
    HX_ROW(expm1, "explog", HX_EXPM1, REPDL__EXPM1F_Y16_ERR, HX_EXACT_ZERO, HX_DR_EXPM1_BF16, HX_DR_EXPM1_F16),
    HX_ROW(log1p, "explog", HX_LOG1P, REPDL__LOG1PF_Y16_ERR, HX_EXACT_ZERO, HX_DR_LOG1P_BF16, HX_DR_LOG1P_F16),
    HX_ROW(rsqrt, "trig", HX_RSQRT, REPDL__RSQRTF_ERR, HX_EXACT_ANY, HX_DR_RSQRT_BF16, HX_DR_RSQRT_F16),
    HX_ROW(sin, "trig", HX_SIN, REPDL__TRIGF_FAST_ERR, HX_EXACT_ANY, HX_DR_SIN_BF16, HX_DR_SIN_F16),
    HX_ROW(cos, "trig", HX_COS, REPDL__TRIGF_FAST_ERR, HX_EXACT_ANY, HX_DR_COS_BF16, HX_DR_COS_F16),
    HX_ROW(erf, "act", HX_ERF, REPDL__ERFF_Y16_ERR, HX_EXACT_ANY, HX_DR_ERF_BF16, HX_DR_ERF_F16),
    HX_ROW(silu, "act", HX_SILU, REPDL__SILUF_ERR, HX_EXACT_ANY, HX_DR_SILU_BF16, HX_DR_SILU_F16),
    HX_ROW(softplus, "act", HX_SOFTPLUS, REPDL__SOFTPLUSF_ERR, HX_EXACT_ANY, HX_DR_SOFTPLUS_BF16,
           HX_DR_SOFTPLUS_F16),
    HX_ROW(gelu, "act", HX_GELU, REPDL__GELUF_ERR, HX_EXACT_ANY, HX_DR_GELU_BF16, HX_DR_GELU_F16),
    HX_ROW(gelu_tanh, "act", HX_GELU_TANH, REPDL__GELU_TANHF_ERR, HX_EXACT_ANY, HX_DR_GELU_TANH_BF16,
           HX_DR_GELU_TANH_F16),
};
#define NFN ((int)(sizeof fns / sizeof fns[0]))

static int test_array(const char *group)
{
    int f, nf = 0;
    for (f = 0; f < NFN; f++)
        if (strcmp(fns[f].group, group) == 0) {
            nf++;
            check_array_forms(fns[f].name, fns[f].scalar, fns[f].array);
        }
    if (nf == 0) {
        printf("FAIL: no function in group %s\n", group);
        return 1;
    }
    printf("array %s: %d array forms against their scalar forms (all 2^16 inputs, in place, "
           "lengths 0-300 unaligned, NULL): %ld checks, %ld failures\n", group, 2 * nf, n_checked,
           n_fail);
    return n_fail ? 1 : 0;
}

#ifdef REPDL_TEST_HAVE_MPFR

/* The functions MPFR lacks: reference/mpfr_ref.h's evaluations, t at
   precision q within 2^(c - q) (relative) of F(x), c proven there. */
static int hx_composite(enum hx_fn id, repdl_ref_ziv_fn *eval, int *c)
{
    switch (id) {
    case HX_SILU: *eval = repdl_ref_silu_eval_; *c = 2; return 1;
    case HX_SOFTPLUS: *eval = repdl_ref_softplus_eval_; *c = 2; return 1;
    case HX_GELU: *eval = repdl_ref_gelu_eval_; *c = 9; return 1;
    case HX_GELU_TANH: *eval = repdl_ref_gelu_tanh_eval_; *c = 12; return 1;
    default: return 0;
    }
}

/* F(x) into v (its precision), rounded to nearest, wide exponent range;
   returns MPFR's ternary value (0: exact).  The composite functions: v
   within 2^(c - prec) of F(x) (relative), returned as inexact (their
   exact values, F(+-0) = +-0, are outside every repdl__Ff_y's domain). */
static int hx_eval(mpfr_ptr v, enum hx_fn id, float x)
{
    mpfr_t xm;
    repdl_ref_ziv_fn eval;
    int t, c;
    if (hx_composite(id, &eval, &c)) {
        eval(v, x);
        return 1;
    }
    mpfr_init2(xm, 24);
    mpfr_set_flt(xm, x, MPFR_RNDN);              /* exact */
    switch (id) {
    case HX_EXP2: t = mpfr_exp2(v, xm, MPFR_RNDN); break;
    case HX_LOG2: t = mpfr_log2(v, xm, MPFR_RNDN); break;
    case HX_EXPM1: t = mpfr_expm1(v, xm, MPFR_RNDN); break;
    case HX_LOG1P: t = mpfr_log1p(v, xm, MPFR_RNDN); break;
    case HX_RSQRT:
        if (mpfr_zero_p(xm) && mpfr_signbit(xm)) { mpfr_set_inf(v, -1); t = 0; }  /* IEEE rSqrt(-0) */
        else t = mpfr_rec_sqrt(v, xm, MPFR_RNDN);
        break;
    case HX_SIN: t = mpfr_sin(v, xm, MPFR_RNDN); break;
    case HX_COS: t = mpfr_cos(v, xm, MPFR_RNDN); break;
    default: t = mpfr_erf(v, xm, MPFR_RNDN); break;
    }
    mpfr_clear(xm);
    return t;
}

/* F(x) rounded once to format f (p + 1 bits, f's range, subnormalized:
   MPFR rounds correctly, ties to even included).  The composite functions:
   NaN; the mathematical shortcuts of reference/mpfr_ref.h (F(+-0) = +-0;
   x at or above 17.5 (silu), 16 (softplus), 6 (gelu, gelu_tanh): F(x)
   within 2^-20 x of x, which every format here holds (x is one of its
   values), so x; x at or below -110, -104, -15, -11: |F(x)| < 2^-150:
   -0 (softplus +0)); otherwise an enclosure t (1 -+ 2^(c+1-q)) whose
   two ends round alike (rounding is monotonic), q = 64, 128, ... (F(x)
   is transcendental, never a midpoint: the loop ends; it aborts past
   2^16 bits). */
static uint32_t hx_mpfr_fn(const repdl_hr_fmt *f, enum hx_fn id, float x)
{
    mpfr_t m;
    uint32_t r;
    int t, c;
    repdl_ref_ziv_fn eval;
    if (hx_composite(id, &eval, &c)) {
        mpfr_prec_t q;
        float hi_x = id == HX_SILU ? 17.5f : id == HX_SOFTPLUS ? 16.0f : 6.0f;
        float lo_x = id == HX_SILU ? -110.0f : id == HX_SOFTPLUS ? -104.0f : id == HX_GELU ? -15.0f : -11.0f;
        if (x != x) return f->nan;
        if (x == 0.0f && id != HX_SOFTPLUS) return repdl_hr_encode(f, (double)x);
        if (x >= hi_x) return repdl_hr_encode(f, (double)x);
        if (x <= lo_x) return id == HX_SOFTPLUS ? 0u : repdl_hr_sign(f);
        for (q = 64;; q *= 2) {
            mpfr_t v, d, lo, hi;
            uint32_t a, b;
            if (q > 65536) abort();
            mpfr_init2(v, q);
            mpfr_inits2(q + 64, d, lo, hi, (mpfr_ptr)0);
            eval(v, x);
            mpfr_mul_2si(d, v, c + 1 - (long)q, MPFR_RNDN);   /* exact */
            mpfr_sub(lo, v, d, MPFR_RNDN);                   /* exact: q + 64 bits */
            mpfr_add(hi, v, d, MPFR_RNDN);
            a = repdl_hr_mpfr_round(f, lo);
            b = repdl_hr_mpfr_round(f, hi);
            mpfr_clear(v);
            mpfr_clears(d, lo, hi, (mpfr_ptr)0);
            if (a == b) return a;
        }
    }
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

#define HX_SLACK 0x1p-200

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
        uint32_t dr_in[256];
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
                if (n_dr < 256) dr_in[n_dr] = h;
                n_dr++;
            }
            if (F->y(x, &y)) {
                double m;
                int t = hx_eval(v, F->id, x);
                if (t == 0 && (F->exact == HX_EXACT_ANY || mpfr_zero_p(v))) {
                    /* exact: exp2 of an integer (y = s, exactly, on every
                       path: exp2.h), log2(1) = +0 (y = +0: log.h),
                       rsqrt(4^k) = 2^-k (y exact: rsqrt.h), sin(+-0) = +-0,
                       cos(+-0) = 1 (y = f S(f^2) = +-0, C(0) = 1),
                       erf(+-0) = +-0 (y = +-0 P0(0)) */
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
                    /* HX_SLACK: the composite functions' v is within
                       2^(c - 256) <= 2^-244 of F(x), the others' within
                       2^-256 */
                    if (!(e + HX_SLACK < F->err)) fail_line("y beyond E", h, 0, 0);
                    if (!(m - HX_SLACK > F->err)) fail_line("margin not above E", h, 0, 0);
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
        check_array_all(F->name, F->scalar[k], F->array[k], k);
        printf("%s: all 65536 inputs == MPFR; %ld rounded from y (%ld exact), %ld special path; "
               "smallest margin 2^%.2f at in=0x%04x (E = 2^%.2f); max |y/F - 1| = 2^%.2f",
               what, n_y, n_exact, n_special, log2(min_margin), (unsigned)min_in, log2(F->err),
               log2(max_yerr));
        printf("; double rounding wrong on %ld input%s", n_dr, n_dr == 1 ? "" : "s");
        {
            long j;
            for (j = 0; j < n_dr && j < 256; j++)
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
        fprintf(stderr, "usage: test_half_fn func F | array G\n");
        return 2;
    }
    if (!repdl_fpenv_ok(1.0f)) { printf("the floating-point environment flushes subnormals\n"); return 1; }
    if (strcmp(argv[1], "array") == 0 && argc >= 3) return test_array(argv[2]);
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
    fprintf(stderr, "usage: test_half_fn func F | array G\n");
    return 2;
}
