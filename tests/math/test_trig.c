/* SPDX-License-Identifier: MIT */
/* tests/math/test_trig.c: repdl_rsqrt_f32, repdl_sin_f32 and repdl_cos_f32
   on the inputs whose results follow from the definition alone, and on
   every entry of their hard-case tables.  Built like test_elementary.c
   (tests/math/meson.build); every check compares bit patterns.

     test_trig exact F    F's exactly known results, expected values built
                          from the definition (no MPFR), scalar and array
                          forms:
                            rsqrtf: 1/sqrt(4^k) = 2^-k for every binary32
                              power of four (2^-148 ... 2^126), +0 -> +inf,
                              -0 -> -inf (IEEE 754 rSqrt), +inf -> +0,
                              x < 0 (-inf, -subnormals, -FLT_MAX) -> NaN;
                            sinf: +-0 -> +-0; 0 < |x| <= 2^-12 (every
                              251st bit pattern and 2^-12) -> x, since
                              x - x^3/6 < sin x < x and x^3/6 <= 2^-26 |x|
                              is below half the spacing under |x|
                              (>= 2^-25 |x|); +-inf -> NaN;
                            cosf: +-0 -> 1; 0 < |x| <= 2^-13 (every 251st
                              bit pattern and 2^-13) -> 1,
                              since 1 - x^2/2 < cos x < 1 and x^2/2 <= 2^-27
                              is below 2^-25 (half the spacing under 1);
                              +-inf -> NaN;
                          and NaN inputs (quiet, signalling, both signs,
                          payloads) -> the canonical NaN 0x7fc00000.
     test_trig table F    every entry {x, result} of
                          include/repdl/detail/F_hard.inc: the function
                          returns the tabulated result (scalar and array
                          forms), and, with MPFR, that result is MPFR's;
                          the table is sorted and ends with its sentinel.
     test_trig reduce sinf   detail/trig_reduce.h's two reductions agree:
                          for every binary32 x with 1/2 <= |x| < 2^28 (both
                          signs), repdl__trig_reduce(x) (Cody and Waite's
                          double reduction there) returns bit for bit the f
                          and q of the exact integer (Payne-Hanek)
                          reduction repdl__trig_reduce_large, negated for
                          negative x.  This, in each build, is why sinf's
                          and cosf's bound and hard-case tables, derived for
                          the integer reduction, hold for the double one.

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

/* x and -x for x = lo, lo + 251, ... <= hi and for hi (positive bit
   patterns): x itself (odd: sin) or even_want (cos) */
static void range_both_signs(uint32_t lo, uint32_t hi, int odd, uint32_t even_want)
{
    uint32_t u;
    for (u = lo; u <= hi; u = u + 251u > hi && u != hi ? hi : u + 251u) {
        check_both(u, odd ? u : even_want);
        check_both(u | 0x80000000u, odd ? (u | 0x80000000u) : even_want);
    }
}

static int test_exact(void)
{
    static const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
                                    0x7fffffffu, 0xffffffffu, 0x7fa00000u, 0xffa5a5a5u, 0x7fc00001u};
    size_t i;
    int k;
    for (i = 0; i < sizeof nans / sizeof nans[0]; i++) check_both(nans[i], REPDL_NAN_BITS);
    if (strcmp(fn->name, "rsqrtf") == 0) {
        uint32_t u;
        for (k = -74; k <= 63; k++) check_both(pow2_bits(2 * k), pow2_bits(-k));   /* 4^k -> 2^-k */
        check_both(0x00000000u, 0x7f800000u);
        check_both(0x80000000u, 0xff800000u);
        check_both(0x7f800000u, 0x00000000u);
        check_both(0xff800000u, REPDL_NAN_BITS);
        for (u = 0x80000001u; u < 0xff800000u; u += 0x00012345u) check_both(u, REPDL_NAN_BITS);
        check_both(0x80000001u, REPDL_NAN_BITS);
        check_both(0xff7fffffu, REPDL_NAN_BITS);
        check_both(0xbf800000u, REPDL_NAN_BITS);
    } else if (strcmp(fn->name, "sinf") == 0) {
        range_both_signs(0x00000000u, 0x39800000u, 1, 0);                 /* |x| <= 2^-12 */
        check_both(0x7f800000u, REPDL_NAN_BITS);
        check_both(0xff800000u, REPDL_NAN_BITS);
    } else if (strcmp(fn->name, "cosf") == 0) {
        range_both_signs(0x00000000u, 0x39000000u, 0, 0x3f800000u);       /* |x| <= 2^-13 */
        check_both(0x7f800000u, REPDL_NAN_BITS);
        check_both(0xff800000u, REPDL_NAN_BITS);
    } else {
        printf("exact: no exact cases listed for %s\n", fn->name);
        return 2;
    }
    printf("exact %s: %ld checks, %ld mismatches\n", fn->name, n_checked, n_fail);
    return n_fail ? 1 : 0;
}

/* the hard-case tables */
static const repdl__hardcase tab_rsqrtf[] = {
#include <repdl/detail/rsqrtf_hard.inc>
};
static const repdl__hardcase tab_sinf[] = {
#include <repdl/detail/sinf_hard.inc>
};
static const repdl__hardcase tab_cosf[] = {
#include <repdl/detail/cosf_hard.inc>
};

static int test_table(void)
{
    const repdl__hardcase *t = NULL;
    size_t n = 0;
    if (strcmp(fn->name, "rsqrtf") == 0) { t = tab_rsqrtf; n = sizeof tab_rsqrtf / sizeof tab_rsqrtf[0]; }
    if (strcmp(fn->name, "sinf") == 0) { t = tab_sinf; n = sizeof tab_sinf / sizeof tab_sinf[0]; }
    if (strcmp(fn->name, "cosf") == 0) { t = tab_cosf; n = sizeof tab_cosf / sizeof tab_cosf[0]; }
    return check_hard_table(t, n);
}

static uint64_t dbits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

static int test_reduce(void)
{
    long n = 0, bad = 0;
    for (uint32_t u = 0x3f000000u; u < 0x4d800000u; u++) {
        for (int neg = 0; neg < 2; neg++) {
            uint32_t sgn = neg ? 0x80000000u : 0u;
            float x = repdl__asfloat(u | sgn);
            uint32_t q, ql;
            double f = repdl__trig_reduce(x, &q);
            double fl = repdl__trig_reduce_large(u, &ql);
            if (sgn) { fl = -fl; ql = (0u - ql) & 3u; }
            n++;
            if (dbits(f) != dbits(fl) || q != ql) {
                if (++bad <= 20)
                    printf("reduce in=0x%08x f=%a q=%u, integer reduction f=%a q=%u\n",
                           (unsigned)(u | sgn), f, (unsigned)q, fl, (unsigned)ql);
            }
        }
    }
    printf("reduce: %ld inputs with 1/2 <= |x| < 2^28, %ld differ from the integer reduction\n", n, bad);
    return bad || n != 2L * (0x4d800000L - 0x3f000000L) ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "reduce") == 0 && strcmp(argv[2], "sinf") == 0) return test_reduce();
    if (argc < 3) {
        fprintf(stderr, "usage: test_trig exact|table F\n");
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
    fprintf(stderr, "usage: test_trig exact|table F | reduce sinf\n");
    return 2;
}
