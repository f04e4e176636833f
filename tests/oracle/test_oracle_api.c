/* SPDX-License-Identifier: MIT */
/* tests/oracle/test_oracle_api.c: reference/repdl_oracle.h's C entry point
   (tests/oracle/meson.build, case api). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/repdl.h>
#include "repdl_oracle.h"

static int failures;
#define CHECK(c, ...) do { if (!(c)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
                                       printf(__VA_ARGS__); printf("\n"); } } while (0)

/* Planted errors (their inputs are checked below by bit pattern). */
static float exp_plus_one(float x)
{
    float r = repdl_exp_f32(x);
    return repdl__asuint(x) == 0x3e8a3d71u ? repdl__asfloat(repdl__asuint(r) + 1u) : r;
}
static float log_two_errors(float x)   /* -3 ulps at 0x3fc00000 (1.5), +1 at 0x40000000 (2) */
{
    float r = repdl_log_f32(x);
    if (repdl__asuint(x) == 0x3fc00000u) return repdl__asfloat(repdl__asuint(r) - 3u);
    if (repdl__asuint(x) == 0x40000000u) return repdl__asfloat(repdl__asuint(r) + 1u);
    return r;
}
static uint16_t tanh_f16_planted(uint16_t x)   /* +0 for -0: a wrong sign */
{
    return x == 0x8000u ? 0u : repdl_tanh_f16(x);
}

/* The comparison rules, from their definition (repdl_oracle.h's header
   comment): any NaN right where NaN is correct, a NaN or a wrong zero
   sign of the wrong class, else the ordered distance with one zero. */
static void test_compare(void)
{
    static const struct { uint32_t got, want; int c; uint64_t ulps; } t[] = {
        {0x3f800000u, 0x3f800000u, 0, 0},
        {0xffc00001u, 0x7fc00000u, 0, 0},   /* any NaN for NaN */
        {0x7fc00000u, 0x3f800000u, 2, 0},   /* NaN for a number */
        {0x3f800000u, 0x7fc00000u, 2, 0},   /* a number for NaN */
        {0x7f800000u, 0x7fc00000u, 2, 0},   /* inf for NaN */
        {0x00000000u, 0x80000000u, 2, 0},   /* +0 for -0 */
        {0x80000000u, 0x00000000u, 2, 0},   /* -0 for +0 */
        {0x7f800000u, 0x7f7fffffu, 1, 1},   /* overflow past FLT_MAX: 1 ulp */
        {0x00000001u, 0x80000001u, 1, 2},   /* +-min subnormal: 2 steps over the one zero */
        {0x80000000u, 0x00000001u, 1, 1},   /* -0 for +min subnormal */
        {0x3f800001u, 0x3f7fffffu, 1, 2},   /* across a binade */
        {0xff800000u, 0x7f800000u, 1, 2u * 0x7f800000u},
    };
    size_t k;
    for (k = 0; k < sizeof t / sizeof t[0]; k++) {
        uint64_t u = 12345;
        int c = repdl_oracle_compare_fmt(0x80000000u, 0x7f800000u, t[k].got, t[k].want, &u);
        CHECK(c == t[k].c && u == t[k].ulps, "compare got %08x want %08x: %d %llu, expected %d %llu",
              t[k].got, t[k].want, c, (unsigned long long)u, t[k].c, (unsigned long long)t[k].ulps);
    }
    {   /* float16: +inf 0x7c00, sign 0x8000 */
        uint64_t u;
        CHECK(repdl_oracle_compare_fmt(0x8000u, 0x7c00u, 0x7c00u, 0x7bffu, &u) == 1 && u == 1, "f16 overflow");
        CHECK(repdl_oracle_compare_fmt(0x8000u, 0x7c00u, 0xfe00u, 0x7e00u, &u) == 0, "f16 NaN");
        CHECK(repdl_oracle_compare_fmt(0x8000u, 0x7c00u, 0x7c01u, 0x3c00u, &u) == 2, "f16 NaN for 1");
    }
}

static void test_planted(void)
{
    repdl_oracle_report *r = (repdl_oracle_report *)malloc(sizeof *r);
    int rc;
    rc = repdl_oracle_check_f32("exp", exp_plus_one, 0x3e000000u, 0x3f000000u, 1, 2, r);
    CHECK(rc == 1 && r->checked == 0x1000001u && r->wrong == 1 && r->wrong_class == 0 && r->max_ulps == 1 &&
          r->max_ulps_in == 0x3e8a3d71u && r->nfirst == 1 && r->first[0].in == 0x3e8a3d71u &&
          r->first[0].got == r->first[0].want + 1u && r->first[0].want == repdl__asuint(repdl_exp_f32(0.27f)),
          "planted exp: rc %d, %llu wrong", rc, (unsigned long long)r->wrong);
    rc = repdl_oracle_check_f32("log", log_two_errors, 0x3f800000u, 0x40800000u, 1, 3, r);
    CHECK(rc == 1 && r->wrong == 2 && r->max_ulps == 3 && r->max_ulps_in == 0x3fc00000u && r->nfirst == 2 &&
          r->first[0].in == 0x3fc00000u && r->first[0].ulps == 3 && r->first[1].in == 0x40000000u &&
          r->first[1].ulps == 1, "planted log: rc %d, %llu wrong, max %llu", rc, (unsigned long long)r->wrong,
          (unsigned long long)r->max_ulps);
    rc = repdl_oracle_check_f16("tanh", tanh_f16_planted, 0, 0xffffu, 1, 2, r);
    CHECK(rc == 1 && r->wrong == 1 && r->wrong_class == 1 && r->max_ulps == 0 && r->first[0].in == 0x8000u &&
          r->first[0].want == 0x8000u, "planted f16 tanh(-0) = +0: rc %d, %llu wrong", rc,
          (unsigned long long)r->wrong);
    free(r);
}

/* repdl's own functions: correctly rounded, so 0 wrong; binary32 on a
   1/65521 sample, the 16-bit forms on every 3rd input. */
#define ALL(X) X(exp) X(log) X(tanh) X(sqrt) X(sigmoid) X(exp2) X(expm1) X(log2) X(log1p) X(erf) X(silu) \
               X(softplus) X(gelu) X(gelu_tanh) X(rsqrt) X(sin) X(cos)
static float (*const fns32[])(float) = {
#define F32(f) repdl_##f##_f32,
    ALL(F32)
};
static uint16_t (*const fnsbf[])(uint16_t) = {
#define BF(f) repdl_##f##_bf16,
    ALL(BF)
};
static uint16_t (*const fnsh[])(uint16_t) = {
#define H(f) repdl_##f##_f16,
    ALL(H)
};

static void test_repdl(void)
{
    repdl_oracle_report *r = (repdl_oracle_report *)malloc(sizeof *r);
    int k, rc;
    for (k = 0; k < REPDL_ORACLE_NFUNCS; k++) {
        const char *n = repdl_oracle_names[k];
        rc = repdl_oracle_check_f32(n, fns32[k], 0, 0xffffffffu, 65521, 2, r);
        CHECK(rc == 0 && r->wrong == 0 && r->checked == 0xffffffffu / 65521 + 1, "repdl_%s_f32: rc %d, %llu wrong", n, rc,
              (unsigned long long)r->wrong);
        rc = repdl_oracle_check_bf16(n, fnsbf[k], 0, 0xffffu, 3, 2, r);
        CHECK(rc == 0 && r->wrong == 0, "repdl_%s_bf16: rc %d, %llu wrong (first 0x%04x got 0x%04x want 0x%04x)",
              n, rc, (unsigned long long)r->wrong, r->nfirst ? r->first[0].in : 0, r->nfirst ? r->first[0].got : 0,
              r->nfirst ? r->first[0].want : 0);
        rc = repdl_oracle_check_f16(n, fnsh[k], 0, 0xffffu, 3, 2, r);
        CHECK(rc == 0 && r->wrong == 0, "repdl_%s_f16: rc %d, %llu wrong (first 0x%04x got 0x%04x want 0x%04x)",
              n, rc, (unsigned long long)r->wrong, r->nfirst ? r->first[0].in : 0, r->nfirst ? r->first[0].got : 0,
              r->nfirst ? r->first[0].want : 0);
    }
    free(r);
}

static void test_bad_args(void)
{
    repdl_oracle_report *r = (repdl_oracle_report *)malloc(sizeof *r);
    repdl_oracle_args a;
    CHECK(repdl_oracle_check_f32("expo", repdl_exp_f32, 0, 10, 1, 1, r) == 2, "unknown name");
    CHECK(repdl_oracle_check_f32(NULL, repdl_exp_f32, 0, 10, 1, 1, r) == 2, "NULL name");
    CHECK(repdl_oracle_check_f32("exp", NULL, 0, 10, 1, 1, r) == 2, "NULL function");
    CHECK(repdl_oracle_check_f32("exp", repdl_exp_f32, 10, 0, 1, 1, r) == 2, "lo > hi");
    CHECK(repdl_oracle_check_f32("exp", repdl_exp_f32, 0, 10, 0, 1, r) == 2, "stride 0");
    CHECK(repdl_oracle_check_f32("exp", repdl_exp_f32, 0, 10, 1, 1, NULL) == 2, "NULL report");
    CHECK(repdl_oracle_check_bf16("exp", repdl_exp_bf16, 0, 0x10000u, 1, 1, r) == 2, "hi beyond bf16");
    memset(&a, 0, sizeof a);
    a.function = "exp"; a.format = 7; a.fn32 = repdl_exp_f32; a.hi = 10; a.stride = 1;
    CHECK(repdl_oracle_check(&a, r) == 2, "unknown format");
    a.format = REPDL_ORACLE_F32; a.show = REPDL_ORACLE_FIRST_MAX + 1;
    CHECK(repdl_oracle_check(&a, r) == 2, "show beyond the maximum");
    CHECK(repdl_oracle_function_id("gelu_tanh") == REPDL_REF_GELU_TANHF && repdl_oracle_function_id("expf") == -1,
          "names");
    /* the probe: repdl's exp passes, its log as exp fails every probe */
    a.show = 0;
    CHECK(repdl_oracle_probe(&a, NULL) == 0, "probe of exp as exp");
    a.fn32 = repdl_log_f32;
    CHECK(repdl_oracle_probe(&a, NULL) == 8, "probe of log as exp");
    free(r);
}

int main(void)
{
    test_compare();
    test_planted();
    test_repdl();
    test_bad_args();
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
