/* SPDX-License-Identifier: MIT */
/* tests/math/math_check.h: what test_elementary.c, test_explog.c and
   test_trig.c share: the function under test (a row of
   reference/funcs.h), bit-pattern checks that count and print their
   failures, the scalar and array forms on one input, the bits of 2^k, and
   the check of a hard-case table.  Included once by each, after
   reference/funcs.h (and reference/oracle.h where REPDL_TEST_HAVE_MPFR is
   defined). */
#ifndef REPDL_TESTS_MATH_CHECK_H
#define REPDL_TESTS_MATH_CHECK_H

#include <stdio.h>

static const repdl_ref_fn *fn;
static long n_checked, n_fail;

static inline void check(const char *what, uint32_t x, uint32_t got, uint32_t want)
{
    n_checked++;
    if (got != want) {
        n_fail++;
        if (n_fail <= 50)
            printf("%s in=0x%08x got=0x%08x want=0x%08x\n", what, (unsigned)x, (unsigned)got, (unsigned)want);
    }
}

/* scalar and array forms on x against want */
static inline void check_both(uint32_t x, uint32_t want)
{
    float in = repdl__asfloat(x), out;
    char aname[32];
    check(fn->name, x, repdl__asuint(fn->scalar(in)), want);
    fn->array(&out, &in, 1);
    snprintf(aname, sizeof aname, "%s_array", fn->name);
    check(aname, x, repdl__asuint(out), want);
}

/* the bits of 2^k, -149 <= k <= 127, built from the format's definition */
static inline uint32_t pow2_bits(int k)
{
    return k >= -126 ? (uint32_t)(k + 127) << 23 : 1u << (k + 149);
}

/* Every entry {x, result} of fn's hard-case table t (n entries, the last
   the sentinel 0xffffffff), sorted by x: the scalar and array forms return
   the tabulated result, and, with MPFR, that result is MPFR's. */
static inline int check_hard_table(const repdl__hardcase *t, size_t n)
{
    size_t i;
    if (!t || n < 1 || t[n - 1].x != 0xffffffffu) { printf("table %s: no table or no sentinel\n", fn->name); return 1; }
    for (i = 0; i + 1 < n; i++) {
        if (i > 0 && !(t[i - 1].x < t[i].x)) { printf("table %s: not sorted at %zu\n", fn->name, i); n_fail++; }
        check_both(t[i].x, t[i].r);
#ifdef REPDL_TEST_HAVE_MPFR
        check("table-vs-mpfr", t[i].x, t[i].r, repdl_oracle_mpfr(fn->id, repdl__asfloat(t[i].x)));
#endif
    }
    printf("table %s: %zu entries%s, %ld checks, %ld mismatches\n", fn->name, n - 1,
#ifdef REPDL_TEST_HAVE_MPFR
           " (results re-derived with MPFR)",
#else
           " (MPFR absent: results not re-derived)",
#endif
           n_checked, n_fail);
    return n_fail ? 1 : 0;
}

#endif /* REPDL_TESTS_MATH_CHECK_H */
