/* SPDX-License-Identifier: MIT */
/* tests/half/half_check.h: what tests/half/test_half.c and test_half_fn.c
   share: bit-pattern checks that count and print their failures, the two
   16-bit formats, array forms against scalar forms, and (with MPFR) a
   value's distance from the format's rounding boundaries and a relative
   error.  Included once, by each of the two test sources, after
   reference/half_ref.h (and mpfr.h where REPDL_TEST_HAVE_MPFR is
   defined). */
#ifndef REPDL_TESTS_HALF_CHECK_H
#define REPDL_TESTS_HALF_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <repdl/half.h>

static long n_checked, n_fail;

static inline void fail_line(const char *what, uint32_t in, uint32_t got, uint32_t want)
{
    n_fail++;
    if (n_fail <= 40)
        printf("FAIL %s in=0x%08x got=0x%08x want=0x%08x\n", what, (unsigned)in, (unsigned)got,
               (unsigned)want);
}
static inline void check(const char *what, uint32_t in, uint32_t got, uint32_t want)
{
    n_checked++;
    if (got != want) fail_line(what, in, got, want);
}

static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef uint16_t (*fn16_scalar)(uint16_t);
typedef repdl_status (*fn16_array)(size_t, const uint16_t *, uint16_t *);

/* format k: 0 bfloat16, 1 float16 (reference/half_ref.h's descriptions) */
static const repdl_hr_fmt *const fmts[2] = {&repdl_hr_bf16, &repdl_hr_f16};

static inline float h_to_float(int k, uint32_t h) { return (float)repdl_hr_decode(fmts[k], h); }
static inline uint16_t f32_to_h(int k, float x)
{
    return k == 0 ? repdl_f32_to_bf16(x) : repdl_f32_to_f16(x);
}

/* The array form a of function name in format k equals its scalar form s
   on all 2^16 inputs, then in place. */
static inline void check_array_all(const char *name, fn16_scalar s, fn16_array a, int k)
{
    static uint16_t in[65536], out[65536];
    char what[64];
    uint32_t i;
    snprintf(what, sizeof what, "%s_array_%s", name, fmts[k]->name);
    for (i = 0; i < 65536; i++) in[i] = (uint16_t)i;
    a(65536, in, out);
    for (i = 0; i < 65536; i++) check(what, i, out[i], s((uint16_t)i));
    a(65536, in, in);                                    /* in place */
    snprintf(what, sizeof what, "%s_array_%s in place", name, fmts[k]->name);
    for (i = 0; i < 65536; i++) check(what, i, in[i], out[i]);
}

/* ... on lengths 0 to 300 with input and output at every offset mod 4
   (unaligned), in place, and n = 0 with NULL pointers. */
static inline void check_array_shapes(const char *name, fn16_scalar s, fn16_array a, int k)
{
    uint16_t buf[4 * 512], *in = buf, *out = buf + 512, *ref = buf + 1024;
    char what[64];
    size_t n, off, i;
    snprintf(what, sizeof what, "%s_array_%s shapes", name, fmts[k]->name);
    for (n = 0; n <= 300; n++)
        for (off = 0; off < 4; off++) {
            uint16_t *o = out + off, *x = in + (3 - off);
            for (i = 0; i < n; i++) x[i] = (uint16_t)((n * 7919u + i * 40503u) & 0xffffu);
            for (i = 0; i < n; i++) ref[i] = s(x[i]);
            a(n, x, o);
            for (i = 0; i < n; i++) check(what, x[i], o[i], ref[i]);
            a(n, x, x);
            for (i = 0; i < n; i++) check(what, (uint32_t)i, x[i], ref[i]);
        }
    a(0, NULL, NULL);                                    /* n = 0: no access */
}

/* Both checks, both formats. */
static inline void check_array_forms(const char *name, const fn16_scalar s[2], const fn16_array a[2])
{
    int k;
    for (k = 0; k < 2; k++) {
        check_array_all(name, s[k], a[k], k);
        check_array_shapes(name, s[k], a[k], k);
    }
}

#ifdef REPDL_TEST_HAVE_MPFR
/* The distance, relative to |v|, from |v| to the nearest rounding boundary
   of format f, v != 0 finite, want = v's correct rounding: the boundaries
   that matter are the midpoints on either side of want (the one above the
   largest finite number is that number plus half its ulp; the one below
   the smallest subnormal half of it). */
static inline double margin_of(const repdl_hr_fmt *f, mpfr_srcptr v, uint32_t want)
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

/* |y - v| / |v|, rounded up */
static inline double rel_err(double y, mpfr_srcptr v)
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
#endif /* REPDL_TEST_HAVE_MPFR */

#endif /* REPDL_TESTS_HALF_CHECK_H */
