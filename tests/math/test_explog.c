/* SPDX-License-Identifier: MIT */
/* tests/math/test_explog.c: repdl_exp2_f32, repdl_log2_f32,
   repdl_expm1_f32 and repdl_log1p_f32 on the inputs whose results follow
   from the definition alone, and on every entry of their hard-case tables.
   Built like test_elementary.c (tests/math/meson.build); every check
   compares bit patterns.

     test_explog exact F    F's exactly known results, expected values
                            built from the definition (no MPFR): exp2 of
                            every integer (powers of two, the tie at -150,
                            overflow), log2 of every power of two, the
                            signed zeros, subnormals, +-inf, -1, NaN, ...
                            scalar and array forms
     test_explog table F    every entry {x, result} of
                            include/repdl/detail/F_hard.inc: the function
                            returns the tabulated result (scalar and array
                            forms), and, with MPFR, that result is MPFR's

   Exit status 0: pass; 1: a mismatch (printed as
   "F in=0x........ got=0x........ want=0x........"); 77: the header is
   absent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "funcs.h"
#ifdef REPDL_TEST_HAVE_MPFR
#include "oracle.h"
#endif

#define SKIP 77

#include "math_check.h"

/* the bits of the integer k as a binary32 (|k| < 2^24: exact) */
static uint32_t int_bits(int k)
{
    return repdl__asuint((float)k);
}

#define NAN_BITS 0x7fc00000u
#define PINF 0x7f800000u
#define NINF 0xff800000u

static const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
                                0x7fffffffu, 0xffffffffu, 0x7fa00000u, 0xffa5a5a5u};

static int test_exact(void)
{
    size_t i;
    int k;
    uint32_t u;
    uint64_t w;                          /* a counter that cannot wrap */
    for (i = 0; i < sizeof nans / sizeof nans[0]; i++) check_both(nans[i], NAN_BITS);
    if (fn->id == REPDL_REF_EXP2F) {
        /* 2^k exactly, for every k with a binary32 result, both ways of
           writing it (+-0 give 1) */
        for (k = -149; k <= 127; k++) check_both(int_bits(k), pow2_bits(k));
        check_both(0x00000000u, 0x3f800000u);
        check_both(0x80000000u, 0x3f800000u);
        /* 2^-150 = half of 2^-149: the tie goes to the even +0; below: +0 */
        check_both(int_bits(-150), 0u);
        for (k = -151; k >= -1000; k--) check_both(int_bits(k), 0u);
        check_both(NINF, 0u);
        check_both(0xff7fffffu, 0u);
        /* x in (-150, -149): 2^x in (2^-150, 2^-149): rounds up to 2^-149 */
        check_both(repdl__asuint(-149.5f), 1u);
        check_both(repdl__asuint(-150.0f) - 1u, 1u);
        /* 2^128 and above: +inf (beyond FLT_MAX + ulp/2) */
        for (k = 128; k <= 1000; k++) check_both(int_bits(k), PINF);
        check_both(PINF, PINF);
        check_both(0x7f7fffffu, PINF);
    } else if (fn->id == REPDL_REF_LOG2F) {
        /* log2(2^k) = k exactly, for every power of two, subnormals included */
        for (k = -149; k <= 127; k++) check_both(pow2_bits(k), int_bits(k));
        check_both(0x3f800000u, 0u);                   /* log2(1) = +0 */
        check_both(0x00000000u, NINF);                 /* log2(+-0) = -inf */
        check_both(0x80000000u, NINF);
        check_both(PINF, PINF);
        for (w = 0x80000001u; w < 0xff800000u; w += 0x00f0f0f1u) check_both((uint32_t)w, NAN_BITS);  /* x < 0 */
        check_both(0xbf800000u, NAN_BITS);
        check_both(NINF, NAN_BITS);
    } else if (fn->id == REPDL_REF_EXPM1F) {
        /* expm1(x) = x for |x| < 2^-25: +-0 and every subnormal (a sample),
           both signs */
        for (u = 0; u < 0x00800000u; u += 0x1001u) { check_both(u, u); check_both(u | 0x80000000u, u | 0x80000000u); }
        check_both(0x007fffffu, 0x007fffffu);
        check_both(0x807fffffu, 0x807fffffu);
        check_both(PINF, PINF);
        check_both(NINF, 0xbf800000u);                 /* expm1(-inf) = -1 */
        check_both(0xff7fffffu, 0xbf800000u);          /* -FLT_MAX: -1 */
        check_both(0xc2c80000u, 0xbf800000u);          /* -100: -1 */
        check_both(0x7f7fffffu, PINF);                 /* FLT_MAX: overflow */
        check_both(0x42c80000u, PINF);                 /* 100: overflow */
    } else if (fn->id == REPDL_REF_LOG1PF) {
        for (u = 0; u < 0x00800000u; u += 0x1001u) { check_both(u, u); check_both(u | 0x80000000u, u | 0x80000000u); }
        check_both(0x007fffffu, 0x007fffffu);
        check_both(0x807fffffu, 0x807fffffu);
        check_both(0xbf800000u, NINF);                 /* log1p(-1) = -inf */
        check_both(PINF, PINF);
        check_both(NINF, NAN_BITS);
        for (w = 0xbf800001u; w < 0xff800000u; w += 0x0070f0f1u) check_both((uint32_t)w, NAN_BITS);  /* x < -1 */
        check_both(0xbf800001u, NAN_BITS);
        check_both(0xff7fffffu, NAN_BITS);
    } else {
        printf("exact: no case for %s\n", fn->name);
        return 2;
    }
    printf("exact %s: %ld checks (results from the definition), %ld mismatches\n", fn->name, n_checked, n_fail);
    return n_fail ? 1 : 0;
}

/* the hard-case tables */
#ifdef REPDL_REF_HAVE_EXP2F
static const repdl__hardcase tab_exp2f[] = {
#include <repdl/detail/exp2f_hard.inc>
};
#endif
#ifdef REPDL_REF_HAVE_LOG2F
static const repdl__hardcase tab_log2f[] = {
#include <repdl/detail/log2f_hard.inc>
};
#endif
#ifdef REPDL_REF_HAVE_EXPM1F
static const repdl__hardcase tab_expm1f[] = {
#include <repdl/detail/expm1f_hard.inc>
};
#endif
#ifdef REPDL_REF_HAVE_LOG1PF
static const repdl__hardcase tab_log1pf[] = {
#include <repdl/detail/log1pf_hard.inc>
};
#endif

static int test_table(void)
{
    const repdl__hardcase *t = NULL;
    size_t n = 0;
#define PICK(ID, T) if (fn->id == ID) { t = T; n = sizeof T / sizeof T[0]; }
#ifdef REPDL_REF_HAVE_EXP2F
    PICK(REPDL_REF_EXP2F, tab_exp2f)
#endif
#ifdef REPDL_REF_HAVE_LOG2F
    PICK(REPDL_REF_LOG2F, tab_log2f)
#endif
#ifdef REPDL_REF_HAVE_EXPM1F
    PICK(REPDL_REF_EXPM1F, tab_expm1f)
#endif
#ifdef REPDL_REF_HAVE_LOG1PF
    PICK(REPDL_REF_LOG1PF, tab_log1pf)
#endif
#undef PICK
    return check_hard_table(t, n);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_explog exact|table F\n");
        return 2;
    }
    fn = repdl_ref_find(argv[2]);
    if (!fn) { printf("SKIP: %s: header absent from include/repdl\n", argv[2]); return SKIP; }
    if (!repdl_fpenv_ok(1.0f)) { printf("the floating-point environment flushes subnormals\n"); return 1; }
#ifdef REPDL_TEST_HAVE_MPFR
    repdl_ref_init();
#endif
    if (strcmp(argv[1], "exact") == 0) return test_exact();
    if (strcmp(argv[1], "table") == 0) return test_table();
    fprintf(stderr, "usage: test_explog exact|table F\n");
    return 2;
}
