/* SPDX-License-Identifier: MIT */
/* tests/rng_optim/test_rng_optim.c: rng.h, elementwise.h, optim.h
   against independent references, bit for bit.

     test_rng_optim rng          Philox known answers, streams, fills,
                                    normals (MPFR), permutation
     test_rng_optim elementwise  add, mul, scale, dropout fwd/bwd
     test_rng_optim optim        SGD, Adam, AdamW, checkpoint/resume
     test_rng_optim stats        tolerance checks: moments of uniform and
                                    normal, permutation frequencies

   Expected values: reference/rng_optim_ref.h (plain definitions, every
   rounding stored to a volatile float), MPFR (the correctly rounded pieces
   of the polar method), and Random123's published known-answer vectors.  The same source is built
   uncontracted and with -ffp-contract=fast -march=native, baseline x86-64,
   C++ and clang (meson.build): every build equals the same references, so
   the builds equal each other. */
#include <repdl/elementwise.h>
#include <repdl/optim.h>
#include <repdl/rng.h>

#include <stdio.h>
#include <stdlib.h>

#include "../common/check.h"
#include "../common/splitmix64.h"
#include "rng_optim_ref.h"

#ifdef REPDL_TEST_HAVE_MPFR
#include <mpfr.h>
#endif

static int same(float a, float b) { return asuint(a) == asuint(b); }

/* test data only */
static splitmix64 rng = {0x0123456789abcdefull};
static uint64_t next64(void) { return splitmix64_next(&rng); }

/* A float of one of several kinds: moderate, any finite, subnormal,
   special (0, -0, inf, -inf, NaN with payload, max, min normal). */
static float gen(int kind)
{
    uint64_t r = next64();
    uint32_t sign = (uint32_t)(r >> 63) << 31;
    switch (kind % 4) {
    case 0: return asfloat(sign | (uint32_t)(117 + (r >> 8) % 20) << 23 | (uint32_t)(r & 0x7fffff));
    case 1: return asfloat(sign | (uint32_t)((r >> 8) % 0x7f800000u));
    case 2: return asfloat(sign | (uint32_t)((r >> 8) % 0x00800000u));
    default: {
        static const uint32_t sp[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                      0x7fc00000u, 0xffc00001u, 0x7f800123u, 0x7f7fffffu,
                                      0x00800000u, 0x00000001u, 0x3f800000u, 0xbf800000u};
        return asfloat(sp[(r >> 8) % (sizeof sp / sizeof sp[0])]);
    }
    }
}

static float *falloc(size_t n) { float *p = (float *)malloc((n ? n : 1) * sizeof(float)); if (!p) exit(2); return p; }

/* ================================================================ rng */

/* Random123, tests/kat_vectors (https://github.com/DEShawResearch/random123,
   the "philox4x32 7" and "philox4x32 10" lines): counter[4] key[2] ->
   output[4].  Published by the generator's authors; quoted identically by
   several independent ports. */
static void test_kat(void)
{
    static const struct { int rounds; uint32_t ctr[4], key[2], out[4]; } kat[] = {
        {7, {0, 0, 0, 0}, {0, 0}, {0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48}},
        {7, {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
         {0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662}},
        {7, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
         {0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a}},
        {10, {0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
        {10, {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
         {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
        {10, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
         {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    };
    size_t t;
    for (t = 0; t < sizeof kat / sizeof kat[0]; t++) {
        uint32_t o[4], r[4];
        int w;
        repdl__philox4x32_r(kat[t].rounds, kat[t].ctr, kat[t].key, o);
        for (w = 0; w < 4; w++)
            CHECK(o[w] == kat[t].out[w], "KAT %d rounds, vector %zu word %d: %08x != %08x",
                  kat[t].rounds, t, w, o[w], kat[t].out[w]);
        if (kat[t].rounds == 10) {
            repdl_philox4x32_10(kat[t].ctr, kat[t].key, o);
            ref_philox(kat[t].ctr, kat[t].key, r); /* the reference passes the KAT too */
            for (w = 0; w < 4; w++) {
                CHECK(o[w] == kat[t].out[w], "KAT philox4x32_10 vector %zu", t);
                CHECK(r[w] == kat[t].out[w], "KAT reference vector %zu", t);
            }
        }
    }
}

static void test_streams(void)
{
    /* offsets near 2^32 and 2^64 (carries into the high counter word,
       wrap-around), seeds with both halves set */
    static const uint64_t offs[] = {0, 1, 0xfffffffeull, 0xffffffffull, 0x100000000ull,
                                    0xfffffffffffffffeull, 0xffffffffffffffffull};
    static const uint64_t seeds[] = {0, 1, 0xffffffffull, 0x123456789abcdef0ull, ~0ull};
    size_t a, b;
    uint64_t i;
    for (a = 0; a < sizeof seeds / sizeof seeds[0]; a++)
        for (b = 0; b < sizeof offs / sizeof offs[0]; b++)
            for (i = 0; i < 64; i++) {
                uint64_t ii = i < 32 ? i : ~0ull - (i - 32); /* i near 2^64 too */
                uint32_t u = repdl_rng_u32(seeds[a], offs[b], ii);
                CHECK(u == ref_u32(seeds[a], offs[b], ii), "u32 seed %zu off %zu i %llu", a, b,
                      (unsigned long long)ii);
                CHECK(same(repdl_rng_uniform_f32(seeds[a], offs[b], ii),
                           ref_uniform(seeds[a], offs[b], ii)), "uniform");
            }
    /* uniform bounds: words 0 and ~0 */
    CHECK(repdl__rng_u01(0u) == 0.0f, "u01(0)");
    CHECK(asuint(repdl__rng_u01(0xffffffffu)) == asuint(1.0f - 0x1p-24f), "u01(max)");
    CHECK(repdl_rng_uniform_blocks(0) == 0 && repdl_rng_uniform_blocks(1) == 1 &&
          repdl_rng_uniform_blocks(4) == 1 && repdl_rng_uniform_blocks(5) == 2, "blocks");
}

#ifdef REPDL_TEST_HAVE_MPFR
/* The polar attempt in MPFR, 24-bit precision, round to nearest: each
   operation correctly rounded (all values are normal binary32 numbers). */
static int M_polar(uint32_t wx, uint32_t wy, float *z)
{
    mpfr_t x, y, s, t;
    int ok = 0;
    mpfr_inits2(24, x, y, s, t, (mpfr_ptr)0);
    mpfr_set_d(x, ((double)(wx >> 8) - 8388608.0) / 8388608.0, MPFR_RNDN); /* exact */
    mpfr_set_d(y, ((double)(wy >> 8) - 8388608.0) / 8388608.0, MPFR_RNDN);
    mpfr_mul(s, x, x, MPFR_RNDN);
    mpfr_mul(t, y, y, MPFR_RNDN);
    mpfr_add(s, s, t, MPFR_RNDN);
    if (mpfr_cmp_ui(s, 1) < 0 && mpfr_sgn(s) > 0) {
        mpfr_log(t, s, MPFR_RNDN);
        mpfr_mul_si(t, t, -2, MPFR_RNDN); /* exact */
        mpfr_div(t, t, s, MPFR_RNDN);
        mpfr_sqrt(t, t, MPFR_RNDN);
        mpfr_mul(t, t, x, MPFR_RNDN);
        *z = mpfr_get_flt(t, MPFR_RNDN);
        ok = 1;
    }
    mpfr_clears(x, y, s, t, (mpfr_ptr)0);
    return ok;
}

/* Normal element i: attempts (w0,w1), (w2,w3) of blocks a = 0..15 of
   space (a, 1); all rejected: +0. */
static float M_normal(uint64_t seed, uint64_t offset, uint64_t i, int *attempts)
{
    uint64_t b = offset + i;
    uint32_t a;
    for (a = 0; a < 16; a++) {
        uint32_t o[4];
        float z;
        ref_block(seed, (uint32_t)b, (uint32_t)(b >> 32), a, 1, o);
        (*attempts)++;
        if (M_polar(o[0], o[1], &z)) return z;
        (*attempts)++;
        if (M_polar(o[2], o[3], &z)) return z;
    }
    return 0.0f;
}

static void test_normal_mpfr(void)
{
    const size_t n = 100000;
    float *v = falloc(n);
    size_t i;
    int maxatt = 0;
    size_t retried = 0;
    repdl_rng_normal_fill_f32(n, 42, 7, 0.0f, 1.0f, v);
    for (i = 0; i < n; i++) {
        int a = 0;
        float z = M_normal(42, 7, i, &a);
        if (a > 1) retried++;
        if (a > maxatt) maxatt = a;
        CHECK(same(z, repdl_rng_normal_f32(42, 7, i)), "normal %zu: %a vs MPFR %a", i,
              repdl_rng_normal_f32(42, 7, i), z);
        CHECK(same(z, v[i]), "normal fill %zu", i); /* 0 + 1 * z == z exactly */
    }
    /* rejections happened (about 21% of elements), so the retry path ran */
    CHECK(retried > n / 10, "rejections %zu", retried);
    printf("normal vs MPFR: %zu elements, %zu needed a retry, most attempts %d\n", n, retried, maxatt);
    /* attempts by hand: s >= 1 and s == 0 rejected, s < 1 accepted */
    {
        float z = 7.0f;
        CHECK(!repdl__rng_polar(0x00000000u, 0x00000000u, &z), "x=y=-1 rejected");
        CHECK(!repdl__rng_polar(0x80000000u, 0x80000000u, &z), "x=y=0 rejected (s == 0)");
        CHECK(repdl__rng_polar(0xc0000000u, 0x80000000u, &z), "x=0.5, y=0 accepted");
        {
            float zm = 0;
            M_polar(0xc0000000u, 0x80000000u, &zm);
            CHECK(same(z, zm), "x=0.5, y=0: %a vs %a", z, zm);
        }
    }
    free(v);
}

/* repdl_init_bound_f32(fan_in) = RN(1 / RN(sqrt(RN(fan_in)))): each step
   rounded to 24 bits by MPFR. */
static void test_init_bound_mpfr(void)
{
    static const unsigned long long fans[] = {0, 1, 2, 3, 25, 75, 150, 784, 1000, 16777217ull,
                                              16777219ull, 1099511640121ull, 4611686018427387905ull,
                                              18446744073709551615ull};
    size_t i;
    mpfr_t t;
    mpfr_init2(t, 24);
    for (i = 0; i < sizeof fans / sizeof fans[0]; i++) {
        float want;
        mpfr_set_uj(t, (uintmax_t)fans[i], MPFR_RNDN);
        mpfr_sqrt(t, t, MPFR_RNDN);
        mpfr_ui_div(t, 1, t, MPFR_RNDN);
        want = mpfr_get_flt(t, MPFR_RNDN);
        CHECK(same(repdl_init_bound_f32((size_t)fans[i]), want), "init_bound(%llu): %a vs MPFR %a",
              fans[i], repdl_init_bound_f32((size_t)fans[i]), want);
    }
    mpfr_clear(t);
}
#endif

static void test_fills(void)
{
    static const float los[] = {0.0f, -1.0f, -0.05f, 3.0f, -3e38f, 0.0f};
    static const float his[] = {1.0f, 1.0f, 0.05f, 3.0f, 3e38f, -0.0f};
    const size_t n = 1000;
    float *a = falloc(n), *b = falloc(n);
    size_t c, j, k;
    for (c = 0; c < sizeof los / sizeof los[0]; c++) {
        float d = ref_sub(his[c], los[c]);
        repdl_rng_uniform_fill_f32(n, 9, 1234, los[c], his[c], a);
        for (j = 0; j < n; j++) {
            float e = ref_canon(ref_add(los[c], ref_mul(d, ref_uniform(9, 1234, j))));
            CHECK(same(a[j], e), "uniform fill case %zu j %zu: %a vs %a", c, j, a[j], e);
        }
        /* any split: [0, k) and [k, n) with first = k */
        for (k = 0; k <= n; k += 97) {
            repdl_rng_uniform_fill_range_f32(k, 9, 1234, 0, los[c], his[c], b);
            repdl_rng_uniform_fill_range_f32(n - k, 9, 1234, k, los[c], his[c], b + k);
            CHECK(memcmp(a, b, n * sizeof(float)) == 0, "uniform split %zu", k);
        }
        /* batch invariance: a prefix is the prefix */
        repdl_rng_uniform_fill_f32(13, 9, 1234, los[c], his[c], b);
        CHECK(memcmp(a, b, 13 * sizeof(float)) == 0, "uniform prefix");
    }
    /* normal fill with mean/std: RN(mean + RN(std * z)) */
    {
        static const float mean[] = {0.0f, 1.5f, -2.0f, 1e30f}, sd[] = {1.0f, 0.02f, 3.0f, 1e30f};
        for (c = 0; c < 4; c++) {
            repdl_rng_normal_fill_f32(n, 5, 99, mean[c], sd[c], a);
            for (j = 0; j < n; j++) {
                float z = repdl_rng_normal_f32(5, 99, j); /* z itself: against MPFR above */
                float e = ref_canon(ref_add(mean[c], ref_mul(sd[c], z)));
                CHECK(same(a[j], e), "normal fill case %zu j %zu", c, j);
            }
            for (k = 1; k <= n; k += 211) {
                repdl_rng_normal_fill_range_f32(k, 5, 99, 0, mean[c], sd[c], b);
                repdl_rng_normal_fill_range_f32(n - k, 5, 99, k, mean[c], sd[c], b + k);
                CHECK(memcmp(a, b, n * sizeof(float)) == 0, "normal split %zu", k);
            }
        }
    }
    /* NaN bounds: canonical NaN; inf - inf too */
    repdl_rng_uniform_fill_f32(8, 1, 0, asfloat(0x7fc12345u), 1.0f, a);
    for (j = 0; j < 8; j++) CHECK(asuint(a[j]) == 0x7fc00000u, "NaN lo");
    repdl_rng_uniform_fill_f32(8, 1, 0, -INFINITY, INFINITY, a);
    for (j = 0; j < 8; j++) CHECK(asuint(a[j]) == 0x7fc00000u, "inf bounds give NaN");
    /* n == 0 with NULL */
    repdl_rng_uniform_fill_f32(0, 1, 0, 0.0f, 1.0f, NULL);
    repdl_rng_normal_fill_f32(0, 1, 0, 0.0f, 1.0f, NULL);
    free(a);
    free(b);
}

static void test_permutation(void)
{
    static const size_t ns[] = {0, 1, 2, 3, 10, 1000, 65537};
    size_t c, k;
    for (c = 0; c < sizeof ns / sizeof ns[0]; c++) {
        size_t n = ns[c];
        uint32_t *p = (uint32_t *)malloc((n ? n : 1) * 4), *q = (uint32_t *)malloc((n ? n : 1) * 4);
        unsigned char *seen = (unsigned char *)calloc(n ? n : 1, 1);
        uint64_t off;
        for (off = 0; off < 3; off++) {
            repdl_rng_permutation(n, 77, off, p);
            ref_permutation(77, off, n, q);
            CHECK(n == 0 || memcmp(p, q, n * 4) == 0, "permutation n %zu off %llu", n,
                  (unsigned long long)off);
            memset(seen, 0, n ? n : 1);
            for (k = 0; k < n; k++) {
                CHECK(p[k] < n && !seen[p[k]], "not a permutation");
                if (p[k] < n) seen[p[k]] = 1;
            }
        }
        free(p);
        free(q);
        free(seen);
    }
    repdl_rng_permutation(0, 1, 2, NULL);
    /* the bounded draw at its extremes: r = 1 gives 0, r = 2^32 gives the
       word itself (no rejection) */
    {
        uint64_t c0 = 0, c1 = 0;
        CHECK(repdl__rng_bounded(3, 4, &c0, 1) == 0 && c0 == 1, "bounded(1)");
        CHECK(repdl__rng_bounded(3, 4, &c1, (uint64_t)1 << 32) == repdl__rng_perm_draw(3, 4, 0) &&
              c1 == 1, "bounded(2^32)");
        /* r = 2^31 + 1: rejection probability about 1/2; compare against a
           plain rejection loop over the same draws */
        for (c0 = 0, k = 0; k < 2000; k++) {
            uint64_t r = 0x80000001ull, c2 = c0, m;
            uint32_t got = repdl__rng_bounded(3, 4, &c0, r);
            for (;;) {
                m = (uint64_t)repdl__rng_perm_draw(3, 4, c2++) * r;
                if ((m & 0xffffffffu) >= 0x100000000ull % r) break;
            }
            CHECK(got == (uint32_t)(m >> 32) && c2 == c0, "bounded 2^31+1 #%zu", k);
        }
    }
}

/* ======================================================== elementwise */

static void test_elementwise(void)
{
    const size_t n = 4099;
    float *a = falloc(n), *b = falloc(n), *y = falloc(n), *z = falloc(n);
    size_t i;
    int kind;
    for (kind = 0; kind < 4; kind++) {
        float alpha = gen(kind);
        for (i = 0; i < n; i++) {
            a[i] = gen(kind + (int)(i % 3));
            b[i] = gen(kind + (int)(i % 5));
        }
        repdl_add_f32(n, a, b, y);
        for (i = 0; i < n; i++) CHECK(same(y[i], ref_canon(ref_add(a[i], b[i]))), "add %zu: %a + %a", i, a[i], b[i]);
        repdl_mul_f32(n, a, b, y);
        for (i = 0; i < n; i++) CHECK(same(y[i], ref_canon(ref_mul(a[i], b[i]))), "mul %zu", i);
        repdl_scale_f32(n, alpha, a, y);
        for (i = 0; i < n; i++) CHECK(same(y[i], ref_canon(ref_mul(alpha, a[i]))), "scale %zu", i);
        /* in place: y == a and y == b */
        memcpy(z, a, n * 4);
        repdl_add_f32(n, z, b, z);
        repdl_add_f32(n, a, b, y);
        CHECK(memcmp(y, z, n * 4) == 0, "add in place (a)");
        memcpy(z, b, n * 4);
        repdl_mul_f32(n, a, z, z);
        repdl_mul_f32(n, a, b, y);
        CHECK(memcmp(y, z, n * 4) == 0, "mul in place (b)");
        memcpy(z, a, n * 4);
        repdl_scale_f32(n, alpha, z, z);
        repdl_scale_f32(n, alpha, a, y);
        CHECK(memcmp(y, z, n * 4) == 0, "scale in place");
    }
    /* subnormal results are kept (no flush): 2^-149 * 0.5 rounds to 0,
       2^-126 * 0.5 is subnormal */
    {
        float s = asfloat(0x00800000u), h = 0.5f, r;
        repdl_mul_f32(1, &s, &h, &r);
        CHECK(asuint(r) == 0x00400000u, "subnormal product");
        s = -0.0f;
        h = 0.0f;
        repdl_add_f32(1, &s, &s, &r);
        CHECK(asuint(r) == 0x80000000u, "-0 + -0");
        repdl_add_f32(1, &s, &h, &r);
        CHECK(asuint(r) == 0, "-0 + 0");
    }
    repdl_add_f32(0, NULL, NULL, NULL);
    repdl_mul_f32(0, NULL, NULL, NULL);
    repdl_scale_f32(0, 2.0f, NULL, NULL);
    free(a);
    free(b);
    free(y);
    free(z);
}

static void test_dropout(void)
{
    static const float ps[] = {0.0f, 0.1f, 0.5f, 0.3333f, 0.9f, 1.0f, -0.5f, 2.0f, 1e-9f, 0x1p-24f};
    const size_t n = 3001;
    float *x = falloc(n), *y = falloc(n), *y2 = falloc(n), *dy = falloc(n), *dx = falloc(n);
    uint8_t *mask = (uint8_t *)malloc(n), *mask2 = (uint8_t *)malloc(n);
    size_t c, i, k;
    float nanp = asfloat(0x7fc00000u);
    for (i = 0; i < n; i++) {
        x[i] = gen((int)(i % 4));
        dy[i] = gen((int)(i % 3));
    }
    for (c = 0; c <= sizeof ps / sizeof ps[0]; c++) {
        float p = c < sizeof ps / sizeof ps[0] ? ps[c] : nanp;
        float pc = ref_dropout_p(p), sc = ref_dropout_scale(p);
        size_t kept = 0;
        repdl_dropout_forward_f32(n, p, 11, 22, x, y, mask);
        for (i = 0; i < n; i++) {
            int keep = ref_uniform(11, 22, i) >= pc;
            float e = keep ? ref_canon(ref_mul(x[i], sc)) : 0.0f;
            kept += (size_t)keep;
            CHECK(mask[i] == keep, "dropout mask p %g i %zu", p, i);
            CHECK(same(y[i], e), "dropout p %g i %zu: %a vs %a", p, i, y[i], e);
        }
        if (pc == 0.0f) CHECK(kept == n, "p = 0 keeps all");
        if (pc == 1.0f) CHECK(kept == 0, "p = 1 drops all");
        if (p == 0.0f)
            for (i = 0; i < n; i++) CHECK(same(y[i], ref_canon(x[i])), "p = 0: y == x");
        /* mask NULL gives the same y; in place too */
        repdl_dropout_forward_f32(n, p, 11, 22, x, y2, NULL);
        CHECK(memcmp(y, y2, n * 4) == 0, "mask NULL");
        memcpy(y2, x, n * 4);
        repdl_dropout_forward_f32(n, p, 11, 22, y2, y2, mask2);
        CHECK(memcmp(y, y2, n * 4) == 0 && memcmp(mask, mask2, n) == 0, "dropout in place");
        /* any split */
        for (k = 0; k <= n; k += 331) {
            repdl_dropout_forward_range_f32(k, p, 11, 22, 0, x, y2, mask2);
            repdl_dropout_forward_range_f32(n - k, p, 11, 22, k, x + k, y2 + k, mask2 + k);
            CHECK(memcmp(y, y2, n * 4) == 0 && memcmp(mask, mask2, n) == 0, "dropout split %zu", k);
        }
        /* backward */
        repdl_dropout_backward_f32(n, p, mask, dy, dx);
        for (i = 0; i < n; i++) {
            float e = mask[i] ? ref_canon(ref_mul(dy[i], sc)) : 0.0f;
            CHECK(same(dx[i], e), "dropout backward p %g i %zu", p, i);
        }
        memcpy(y2, dy, n * 4);
        repdl_dropout_backward_f32(n, p, mask, y2, y2);
        CHECK(memcmp(dx, y2, n * 4) == 0, "dropout backward in place");
    }
    repdl_dropout_forward_f32(0, 0.5f, 1, 2, NULL, NULL, NULL);
    repdl_dropout_backward_f32(0, 0.5f, NULL, NULL, NULL);
    free(x); free(y); free(y2); free(dy); free(dx); free(mask); free(mask2);
}

/* ============================================================== optim */

static void test_sgd(void)
{
    static const repdl_sgd_config cfgs[] = {
        {0.1f, 0.0f, 0.0f, 0.0f, 0},      {0.01f, 0.9f, 0.0f, 0.0f, 0},
        {0.01f, 0.9f, 0.1f, 1e-4f, 0},    {0.05f, 0.9f, 0.0f, 5e-4f, 1},
        {0.3f, 0.5f, 0.5f, 0.0f, 1},      {1e-3f, 0.99f, 0.0f, 1e-2f, 0},
    };
    const size_t n = 2053;
    float *w = falloc(n), *g = falloc(n), *b = falloc(n), *wr = falloc(n), *br = falloc(n),
          *w2 = falloc(n), *b2 = falloc(n);
    size_t c, i, k;
    for (c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        const repdl_sgd_config *cf = &cfgs[c];
        uint64_t step;
        for (i = 0; i < n; i++) {
            w[i] = wr[i] = gen(i % 17 == 0 ? (int)(i % 4) : 0);
            b[i] = br[i] = 0.0f;
        }
        for (step = 1; step <= 5; step++) {
            for (i = 0; i < n; i++) g[i] = gen(i % 13 == 0 ? (int)(i % 4) : 0);
            memcpy(w2, w, n * 4);
            memcpy(b2, b, n * 4);
            repdl_sgd_step_f32(n, cf, step, g, w, cf->momentum != 0.0f ? b : NULL);
            for (i = 0; i < n; i++)
                ref_sgd(cf->lr, cf->momentum, cf->dampening, cf->weight_decay, cf->nesterov, step,
                      &wr[i], g[i], cf->momentum != 0.0f ? &br[i] : NULL);
            CHECK(memcmp(w, wr, n * 4) == 0, "sgd w cfg %zu step %llu", c, (unsigned long long)step);
            CHECK(memcmp(b, br, n * 4) == 0, "sgd buf cfg %zu step %llu", c, (unsigned long long)step);
            /* any split gives the same bits */
            k = (size_t)(next64() % (n + 1));
            repdl_sgd_step_f32(k, cf, step, g, w2, cf->momentum != 0.0f ? b2 : NULL);
            repdl_sgd_step_f32(n - k, cf, step, g + k, w2 + k, cf->momentum != 0.0f ? b2 + k : NULL);
            CHECK(memcmp(w, w2, n * 4) == 0 && memcmp(b, b2, n * 4) == 0, "sgd split %zu", k);
        }
    }
    repdl_sgd_step_f32(0, &cfgs[1], 1, NULL, NULL, NULL);
    free(w); free(g); free(b); free(wr); free(br); free(w2); free(b2);
}

static void test_adam(void)
{
    static const repdl_adam_config cfgs[] = {
        {1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f, 0},  {1e-3f, 0.9f, 0.999f, 1e-8f, 1e-2f, 0},
        {1e-3f, 0.9f, 0.999f, 1e-8f, 1e-2f, 1}, {3e-4f, 0.8f, 0.99f, 1e-6f, 0.1f, 1},
        {0.1f, 0.5f, 0.5f, 1e-3f, 0.0f, 1},
    };
    const size_t n = 2053;
    float *w = falloc(n), *g = falloc(n), *m = falloc(n), *v = falloc(n);
    float *wr = falloc(n), *mr = falloc(n), *vr = falloc(n);
    float *w2 = falloc(n), *m2 = falloc(n), *v2 = falloc(n);
    size_t c, i, k;
    for (c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        const repdl_adam_config *cf = &cfgs[c];
        repdl_adam_state s, ckpt = {0, 0.0f, 0.0f};
        float p1 = 1.0f, p2 = 1.0f;
        int step;
        repdl_adam_state_init(&s);
        CHECK(s.t == 0 && s.beta1_pow == 1.0f && s.beta2_pow == 1.0f, "state init");
        for (i = 0; i < n; i++) {
            w[i] = wr[i] = gen(i % 17 == 0 ? (int)(i % 4) : 0);
            m[i] = mr[i] = v[i] = vr[i] = 0.0f;
        }
        /* t == 0: nothing happens */
        repdl_adam_step_f32(n, cf, &s, w, w, m, v);
        CHECK(memcmp(w, wr, n * 4) == 0, "adam t == 0 is a no-op");
        for (step = 1; step <= 8; step++) {
            for (i = 0; i < n; i++) g[i] = gen(i % 13 == 0 ? (int)(i % 4) : 0);
            repdl_adam_begin_step(&s, cf);
            p1 = ref_mul(p1, cf->beta1);
            p2 = ref_mul(p2, cf->beta2);
            CHECK(s.t == (uint64_t)step && same(s.beta1_pow, p1) && same(s.beta2_pow, p2), "powers");
            if (step == 4) { /* checkpoint: the state and the arrays */
                ckpt = s;
                memcpy(w2, w, n * 4); memcpy(m2, m, n * 4); memcpy(v2, v, n * 4);
            }
            repdl_adam_step_f32(n, cf, &s, g, w, m, v);
            for (i = 0; i < n; i++)
                ref_adam(cf->lr, cf->beta1, cf->beta2, cf->eps, cf->weight_decay, cf->decoupled, p1,
                       p2, &wr[i], g[i], &mr[i], &vr[i]);
            CHECK(memcmp(w, wr, n * 4) == 0, "adam w cfg %zu step %d", c, step);
            CHECK(memcmp(m, mr, n * 4) == 0, "adam m cfg %zu step %d", c, step);
            CHECK(memcmp(v, vr, n * 4) == 0, "adam v cfg %zu step %d", c, step);
            if (step == 4) { /* resume from the checkpoint, split anywhere */
                k = (size_t)(next64() % (n + 1));
                repdl_adam_step_f32(k, cf, &ckpt, g, w2, m2, v2);
                repdl_adam_step_f32(n - k, cf, &ckpt, g + k, w2 + k, m2 + k, v2 + k);
                CHECK(memcmp(w, w2, n * 4) == 0 && memcmp(m, m2, n * 4) == 0 &&
                      memcmp(v, v2, n * 4) == 0, "adam resume + split %zu", k);
            }
        }
        repdl_adam_step_f32(0, cf, &s, NULL, NULL, NULL, NULL);
    }
    free(w); free(g); free(m); free(v); free(wr); free(mr); free(vr); free(w2); free(m2); free(v2);
}

/* ============================================================== bad input */

/* NULL arrays with a nonzero extent, a NULL config or state, a
   permutation longer than uint32 can index: REPDL_ERR_INVALID with
   nothing written (the canary words keep their bits); n = 0 with NULL:
   REPDL_OK. */
static void test_bad_input(void)
{
    static const repdl_sgd_config sc = {0.1f, 0.9f, 0.0f, 0.0f, 0};
    static const repdl_adam_config ac = {1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f, 0};
    const uint32_t canary = 0xa5a5a5a5u;
    float w[4], g[4] = {1.0f, 2.0f, 3.0f, 4.0f}, m[4], v[4];
    uint32_t perm[4];
    repdl_adam_state s;
    size_t i;
    for (i = 0; i < 4; i++) {
        memcpy(&w[i], &canary, 4); memcpy(&m[i], &canary, 4); memcpy(&v[i], &canary, 4);
        perm[i] = canary;
    }
    CHECK(repdl_rng_uniform_fill_f32(3, 1, 2, 0.0f, 1.0f, NULL) == REPDL_ERR_INVALID, "uniform NULL");
    CHECK(repdl_rng_normal_fill_f32(3, 1, 2, 0.0f, 1.0f, NULL) == REPDL_ERR_INVALID, "normal NULL");
    CHECK(repdl_rng_uniform_fill_range_f32(3, 1, 2, 5, 0.0f, 1.0f, NULL) == REPDL_ERR_INVALID,
          "uniform range NULL");
    CHECK(repdl_rng_normal_fill_range_f32(3, 1, 2, 5, 0.0f, 1.0f, NULL) == REPDL_ERR_INVALID,
          "normal range NULL");
    CHECK(repdl_rng_uniform_fill_f32(0, 1, 2, 0.0f, 1.0f, NULL) == REPDL_OK, "uniform n 0");
    CHECK(repdl_rng_normal_fill_f32(0, 1, 2, 0.0f, 1.0f, NULL) == REPDL_OK, "normal n 0");
    CHECK(repdl_rng_permutation(0, 1, 2, NULL) == REPDL_OK, "permutation n 0");
    CHECK(repdl_rng_permutation(3, 1, 2, NULL) == REPDL_ERR_INVALID, "permutation NULL");
    if ((size_t)-1 > 0xffffffffu) {
        size_t big = (size_t)((((uint64_t)1) << 32) + 1u);
        CHECK(repdl_rng_permutation(big, 1, 2, perm) == REPDL_ERR_INVALID, "permutation n > 2^32");
    }
    CHECK(repdl_rng_permutation(4, 1, 2, perm) == REPDL_OK, "permutation n 4");
    for (i = 0; i < 4; i++) perm[i] = canary;
    CHECK(repdl_sgd_step_f32(4, NULL, 1, g, w, NULL) == REPDL_ERR_INVALID, "sgd NULL config");
    CHECK(repdl_sgd_step_f32(4, &sc, 1, NULL, w, NULL) == REPDL_ERR_INVALID, "sgd NULL g");
    CHECK(repdl_sgd_step_f32(4, &sc, 1, g, NULL, NULL) == REPDL_ERR_INVALID, "sgd NULL w");
    repdl_adam_state_init(NULL);
    repdl_adam_state_init(&s);
    CHECK(repdl_adam_begin_step(NULL, &ac) == REPDL_ERR_INVALID, "adam begin NULL state");
    CHECK(repdl_adam_begin_step(&s, NULL) == REPDL_ERR_INVALID && s.t == 0, "adam begin NULL config");
    CHECK(repdl_adam_begin_step(&s, &ac) == REPDL_OK && s.t == 1, "adam begin");
    CHECK(repdl_adam_step_f32(4, NULL, &s, g, w, m, v) == REPDL_ERR_INVALID, "adam NULL config");
    CHECK(repdl_adam_step_f32(4, &ac, NULL, g, w, m, v) == REPDL_ERR_INVALID, "adam NULL state");
    CHECK(repdl_adam_step_f32(4, &ac, &s, NULL, w, m, v) == REPDL_ERR_INVALID, "adam NULL g");
    CHECK(repdl_adam_step_f32(4, &ac, &s, g, NULL, m, v) == REPDL_ERR_INVALID, "adam NULL w");
    CHECK(repdl_adam_step_f32(4, &ac, &s, g, w, NULL, v) == REPDL_ERR_INVALID, "adam NULL m");
    CHECK(repdl_adam_step_f32(4, &ac, &s, g, w, m, NULL) == REPDL_ERR_INVALID, "adam NULL v");
    CHECK(repdl_adam_step_f32(0, &ac, NULL, NULL, NULL, NULL, NULL) == REPDL_OK, "adam n 0");
    for (i = 0; i < 4; i++) {
        uint32_t a, b, c;
        memcpy(&a, &w[i], 4); memcpy(&b, &m[i], 4); memcpy(&c, &v[i], 4);
        CHECK(a == canary && b == canary && c == canary && perm[i] == canary,
              "refused calls wrote nothing (%zu)", i);
    }
}

/* ============================================================== stats */

/* Tolerance checks (not bit checks): the moments of 2^20 samples and the
   frequencies of the 6 permutations of 3 elements.  Bounds are loose
   (several standard errors), fixed seeds, so the test is deterministic. */
static void test_stats(void)
{
    const size_t n = (size_t)1 << 20;
    float *a = falloc(n);
    double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
    size_t i;
    repdl_rng_uniform_fill_f32(n, 2024, 0, 0.0f, 1.0f, a);
    for (i = 0; i < n; i++) { s1 += a[i]; s2 += (double)a[i] * a[i]; }
    s1 /= (double)n;
    s2 = s2 / (double)n - s1 * s1;
    printf("uniform: mean %.6f (1/2), var %.6f (1/12 = %.6f)\n", s1, s2, 1.0 / 12);
    CHECK(fabs(s1 - 0.5) < 3e-3 && fabs(s2 - 1.0 / 12) < 2e-3, "uniform moments");
    repdl_rng_normal_fill_f32(n, 2024, 0, 0.0f, 1.0f, a);
    s1 = s2 = 0;
    for (i = 0; i < n; i++) {
        double z = a[i];
        s1 += z; s2 += z * z; s3 += z * z * z; s4 += z * z * z * z;
    }
    s1 /= (double)n; s2 /= (double)n; s3 /= (double)n; s4 /= (double)n;
    printf("normal: mean %.5f, E z^2 %.5f, E z^3 %.5f, E z^4 %.5f (0, 1, 0, 3)\n", s1, s2, s3, s4);
    CHECK(fabs(s1) < 5e-3 && fabs(s2 - 1) < 1e-2 && fabs(s3) < 2e-2 && fabs(s4 - 3) < 6e-2,
          "normal moments");
    {
        long cnt[6] = {0};
        uint32_t p[3];
        uint64_t off;
        const long trials = 60000;
        double chi = 0;
        int j;
        for (off = 0; off < (uint64_t)trials; off++) {
            repdl_rng_permutation(3, 5, off, p);
            cnt[p[0] * 2 + (p[1] > p[2])]++;
        }
        for (j = 0; j < 6; j++) chi += (cnt[j] - trials / 6.0) * (cnt[j] - trials / 6.0) / (trials / 6.0);
        printf("permutations of 3: chi^2 %.2f (5 degrees of freedom)\n", chi);
        CHECK(chi < 25.0, "permutation chi^2 %.2f", chi);
    }
    free(a);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    int all = !strcmp(what, "all");
    if (!repdl_fpenv_ok(argc > 0 ? 1.0f : 0.0f)) {
        printf("floating-point environment flushes subnormals\n");
        return 1;
    }
    if (all || !strcmp(what, "rng")) {
        test_kat();
        test_streams();
#ifdef REPDL_TEST_HAVE_MPFR
        test_normal_mpfr();
        test_init_bound_mpfr();
#else
        printf("normal vs MPFR: not built (no MPFR)\n");
#endif
        test_fills();
        test_permutation();
        test_bad_input();
    }
    if (all || !strcmp(what, "elementwise")) {
        test_elementwise();
        test_dropout();
    }
    if (all || !strcmp(what, "optim")) {
        test_sgd();
        test_adam();
    }
    if (all || !strcmp(what, "stats")) test_stats();
    return check_summary(what);
}
