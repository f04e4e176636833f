/* SPDX-License-Identifier: MIT */
/* tests/reduce/test_reduce_mpfr.c: the parts of the reductions that the
   MPFR oracle checks.

   1. Division by a count (mean, variance): repdl__div_exact_f32,
      repdl__div_count_f32 and repdl_div_count_f32 return RN(s / n), the exact quotient rounded
      once to binary32 (subnormals included), for n up to 2^64 - 1,
      against mpfr_div_ui in 24-bit precision with binary32's exponent
      range.
   2. repdl_mean_f32 and repdl_var_f32 on an array of 2^24 + 12345
      elements (the exact division path): the reference sum divided by
      MPFR.
   3. The error bound of docs/canonical-order.md, section 5:
        |sum - exact| <= g(d) * sum |x_i|,  g(d) = d u / (1 - d u),
        u = 2^-24, d = ceil(log2 n),
      with the exact sums computed by MPFR (mpfr_sum, exact), for finite
      data whose sum does not overflow.  Prints the largest observed
      |error| / (u * sum |x_i|) next to d. */
#include <repdl/reduce.h>

#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "gen.h"
#include "reduce_ref.h"

/* RN(s / n) in binary32, by MPFR. */
static float mpfr_div_count(float s, unsigned long n)
{
    mpfr_t m;
    float r;
    int t;
    mpfr_init2(m, 24);
    mpfr_set_flt(m, s, MPFR_RNDN); /* exact */
    t = mpfr_div_ui(m, m, n, MPFR_RNDN);
    t = mpfr_subnormalize(m, t, MPFR_RNDN);
    r = mpfr_get_flt(m, MPFR_RNDN);
    mpfr_clear(m);
    return r != r ? asfloat(0x7fc00000u) : r;
}

static void check_div(float s, size_t n)
{
    float want = mpfr_div_count(s, (unsigned long)n);
    float a = repdl__div_exact_f32(s, n), b = repdl__div_count_f32(s, n), c = repdl__nanf();
    if (repdl_div_count_f32(1, n, &s, &c) != REPDL_OK) c = repdl__nanf(); /* the public array form */
    if (check_failed(asuint(a) == asuint(want) && asuint(b) == asuint(want) && asuint(c) == asuint(want)))
        printf("FAIL div %a / %zu: exact %a count %a array %a want %a\n", s, n, a, b, c, want);
}

static void test_division(void)
{
    long i;
    int k;
    for (i = 0; i < 1000000; i++) {
        float s = gen_exp_range(0, 254);
        size_t n;
        switch (i % 5) {
        case 0: n = 1 + (size_t)gen_below(1u << 24); break;
        case 1: n = ((size_t)1 << 24) + (size_t)gen_below((uint64_t)1 << 30); break;
        case 2: n = (size_t)gen_u64() >> gen_below(40); break;
        case 3: n = ((size_t)1 << (24 + gen_below(40))) + (size_t)gen_below(5) - 2; break;
        default: n = (size_t)gen_u64(); break;
        }
        if (n == 0) n = 1;
        if (i % 7 == 0) s = gen_exp_range(0, 2); /* subnormal and tiny results */
        check_div(s, n);
    }
    /* exact powers of two: quotients that are exact, or ties */
    for (k = 0; k < 64; k++) {
        for (i = 0; i < 2000; i++) check_div(gen_exp_range(0, 254), (size_t)1 << k);
        check_div(asfloat(3), (size_t)1 << k);              /* 3 * 2^-149 */
        check_div(asfloat(0x00c00000u), (size_t)1 << k);    /* 1.5 * 2^-126 */
    }
    check_div(asfloat(0x7f7fffffu), (size_t)-1);
    check_div(asfloat(0x00000001u), (size_t)-1);
    check_div(asfloat(0x7f800000u), (size_t)1 << 40);
    check_div(-0.0f, (size_t)1 << 40);
    check_div(asfloat(0xff7fffffu), 3);
    printf("division: %ld checks\n", check_count);
}

/* MPFR value of RN(S / n) for the mean and variance checks */
static void test_mean_var(void)
{
    size_t n = ((size_t)1 << 24) + 12345, i;
    float *x = (float *)malloc(n * sizeof(float));
    float s, m, want, got, s2;
    for (i = 0; i < n; i++) x[i] = gen_exp_range(127 - 3, 127 + 3) + 10.0f;
    s = ref_sum(x, n);
    m = mpfr_div_count(s, (unsigned long)n);
    got = repdl_mean_f32(n, x);
    CHECK_BITS(got, m, "mean of %zu", n);
    s2 = ref_sum_sqdev(x, n, m);
    want = mpfr_div_count(s2, (unsigned long)(n - 1));
    got = repdl_var_f32(n, 1, x);
    CHECK_BITS(got, want, "var of %zu", n);
    printf("mean, var of %zu elements: %a, %a\n", n, m, got);
    free(x);
}

static int ceil_log2(size_t n)
{
    int k = 0;
    while (((size_t)1 << k) < n) k++;
    return k;
}

static double worst_ratio[64];

static void check_bound(const float *x, size_t n, const char *what)
{
    /* floats span 2^-149 .. 2^128 and n < 2^21: 300 bits hold every sum
       exactly; the products below need twice that */
    const mpfr_prec_t P = 1200;
    mpfr_t *v = (mpfr_t *)malloc(n * sizeof(mpfr_t));
    mpfr_ptr *pv = (mpfr_ptr *)malloc(n * sizeof(mpfr_ptr));
    mpfr_t exact, absum, err, lhs, rhs, t;
    float got = repdl_sum_f32(n, x);
    size_t i;
    int d = ceil_log2(n), ok;
    if (got - got != 0) { /* overflowed (inf or NaN): no bound to check */
        free(v);
        free(pv);
        return;
    }
    mpfr_inits2(P, exact, absum, err, lhs, rhs, t, (mpfr_ptr)0);
    for (i = 0; i < n; i++) {
        mpfr_init2(v[i], 24);
        mpfr_set_flt(v[i], x[i], MPFR_RNDN);
        pv[i] = v[i];
    }
    mpfr_sum(exact, pv, n, MPFR_RNDN); /* exact at P bits */
    for (i = 0; i < n; i++) mpfr_abs(v[i], v[i], MPFR_RNDN);
    mpfr_sum(absum, pv, n, MPFR_RNDN);
    mpfr_set_flt(err, got, MPFR_RNDN);
    mpfr_sub(err, err, exact, MPFR_RNDN);
    mpfr_abs(err, err, MPFR_RNDN);
    /* |err| (1 - d u) <= d u sum|x|, all exact at P bits */
    mpfr_set_ui(t, 1, MPFR_RNDN);
    mpfr_div_2ui(t, t, 24, MPFR_RNDN); /* u */
    mpfr_mul_ui(t, t, (unsigned long)d, MPFR_RNDN); /* d u */
    mpfr_mul(rhs, t, absum, MPFR_RNDN);
    mpfr_ui_sub(t, 1, t, MPFR_RNDN);
    mpfr_mul(lhs, err, t, MPFR_RNDN);
    ok = mpfr_lessequal_p(lhs, rhs);
    CHECK(ok, "bound %s n=%zu: got %a", what, n, got);
    if (!mpfr_zero_p(absum)) {
        mpfr_div(t, err, absum, MPFR_RNDN);
        mpfr_mul_2ui(t, t, 24, MPFR_RNDN);
        if (mpfr_get_d(t, MPFR_RNDU) > worst_ratio[d]) worst_ratio[d] = mpfr_get_d(t, MPFR_RNDU);
    }
    for (i = 0; i < n; i++) mpfr_clear(v[i]);
    mpfr_clears(exact, absum, err, lhs, rhs, t, (mpfr_ptr)0);
    free(v);
    free(pv);
}

static void test_bound(void)
{
    size_t nmax = (size_t)1 << 20, n;
    float *x = (float *)malloc(nmax * sizeof(float));
    int kind, d, rep;
    static const int kinds[] = {GEN_MIXED, GEN_SPECIAL, GEN_CANCEL, GEN_WIDE};
    for (kind = 0; kind < 4; kind++) {
        for (rep = 0; rep < 12; rep++) {
            n = rep < 11 ? (size_t)1 << (2 * rep) : nmax;
            n += gen_below(n / 2 + 1);
            if (n > nmax) n = nmax;
            gen_fill(x, n, kinds[kind]);
            if (kinds[kind] == GEN_WIDE) /* keep clear of overflow */
                for (size_t i = 0; i < n; i++)
                    if ((asuint(x[i]) & 0x7f800000u) > 0x60000000u) x[i] = 1.0f;
            /* all positive: no cancellation, the bound is tightest */
            if (rep % 3 == 2)
                for (size_t i = 0; i < n; i++) x[i] = asfloat(asuint(x[i]) & 0x7fffffffu);
            check_bound(x, n, gen_kind_name[kinds[kind]]);
        }
    }
    printf("error bound: largest |err| / (u sum|x|) by d = ceil(log2 n):");
    for (d = 0; d < 64; d++)
        if (worst_ratio[d] > 0) printf(" d=%d: %.3f", d, worst_ratio[d]);
    printf("\n");
    free(x);
}

int main(void)
{
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    splitmix64_seed(&gen_rng, 7);
    test_division();
    /* the mean, variance and bound checks work in MPFR's full range */
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    test_bound();
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    test_mean_var();
    return check_summary("test_reduce_mpfr");
}
