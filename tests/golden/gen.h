/* SPDX-License-Identifier: MIT */
/* tests/golden/gen.h: the fixed inputs of the golden hashes, from a
   fixed-seed integer generator, so every machine builds the same bits.

   Integer arithmetic only (no float operation creates an input: every float
   is assembled from its bit pattern), plain C99, also valid C++.

   Generator: splitmix64 (tests/common/splitmix64.h): a 64-bit counter
   advanced by the odd constant 0x9e3779b97f4a7c15 (2^64 / golden ratio),
   each state passed through the finaliser splitmix64_mix (Stafford's
   "Mix13").

   What is generated (docs/matrix.md has the same list):
   - function inputs: sample i of stride S = 2^s (S = 1: the full table) is
       x_i = i * S + (splitmix64_mix(i ^ GOLDEN_SEED_INPUT) mod S),
     i = 0 .. 2^32/S - 1: one pseudo-random input in each aligned block of S
     bit patterns, in increasing order.  For S <= 2^16 every sign and
     exponent gets 2^(24-s) inputs or more, the low mantissa bits vary.
   - reduction data: kinds mixed, specials, nonfinite, zeros (golden_fill);
   - reduction lengths: golden_lengths (0..1100, powers of two and their
     neighbours up to 2^19, 999999, 10^6, and 8 pseudo-random lengths);
   - batched shapes: golden_shapes. */
#ifndef REPDL_TESTS_GOLDEN_GEN_H
#define REPDL_TESTS_GOLDEN_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../common/splitmix64.h"

#define GOLDEN_SEED_INPUT 0x7265706466756e63ull   /* "repdfunc" */
#define GOLDEN_SEED_DATA 0x7265706464617461ull    /* "repddata" */
#define GOLDEN_SEED_LEN 0x726570646c656e73ull     /* "repdlens" */

/* Uniform in [0, m), m >= 1 (modulo bias below 2^-40 for m < 2^24: fine
   for test data, and identical everywhere). */
static uint64_t golden_below(splitmix64 *r, uint64_t m) { return splitmix64_next(r) % m; }

/* Input bits of sample i at stride 2^log2s. */
static uint32_t golden_input(uint64_t i, unsigned log2s)
{
    uint32_t mask = (uint32_t)((1ull << log2s) - 1);
    return (uint32_t)(i << log2s) | ((uint32_t)splitmix64_mix(i ^ GOLDEN_SEED_INPUT) & mask);
}

static float golden_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* ---- Reduction data ---- */

enum golden_kind {
    GOLDEN_MIXED,     /* finite, |x| in [2^-20, 2^21), both signs: rounding in every add */
    GOLDEN_SPECIALS,  /* 1 in 16 replaced by +-0, subnormal, +-min normal, +-FLT_MAX,
                         huge (2^73..2^127) or tiny (2^-126..2^-87); others |x| in
                         [2^-60, 2^61); sums may overflow */
    GOLDEN_NONFINITE, /* mixed, with 1 in 4096 replaced by +-inf or a NaN of random
                         sign and payload (quiet or signalling) */
    GOLDEN_ZEROS,     /* -0 (7 in 8), +0 (1 in 16), +-subnormal (1 in 16) */
    GOLDEN_NKINDS
};

static const char *const golden_kind_name[GOLDEN_NKINDS] = {"mixed", "specials", "nonfinite", "zeros"};

/* bits of sign s, biased exponent e, mantissa m */
static uint32_t golden_bits(uint64_t s, uint64_t e, uint64_t m)
{
    return (uint32_t)((s & 1) << 31 | (e & 0xff) << 23 | (m & 0x7fffff));
}

static uint32_t golden_special(splitmix64 *r)
{
    uint64_t v = splitmix64_next(r), s = v >> 63, m = v >> 8;
    switch ((v >> 3) % 7) {
    case 0: return golden_bits(s, 0, 0);                          /* +-0 */
    case 1: return golden_bits(s, 0, m | 1);                      /* subnormal */
    case 2: return golden_bits(s, 1, 0);                          /* +-2^-126 */
    case 3: return golden_bits(s, 254, 0x7fffff);                 /* +-FLT_MAX */
    case 4: return golden_bits(s, 200 + (v >> 40) % 55, m);       /* huge */
    case 5: return golden_bits(s, 1 + (v >> 40) % 40, m);         /* tiny */
    default: return golden_bits(s, 0, m & 0xff);                  /* tiny subnormal */
    }
}

/* Fills a[0..n) with data of the given kind from stream `seed`. */
static void golden_fill(float *a, size_t n, int kind, uint64_t seed)
{
    splitmix64 r;
    size_t i;
    splitmix64_seed(&r, seed ^ ((uint64_t)kind << 56));
    for (i = 0; i < n; i++) {
        uint64_t v = splitmix64_next(&r), s = v >> 63, m = v >> 9;
        uint32_t u;
        switch (kind) {
        case GOLDEN_MIXED:
            u = golden_bits(s, 107 + (v >> 40) % 41, m);
            break;
        case GOLDEN_SPECIALS:
            u = (v & 15) == 0 ? golden_special(&r) : golden_bits(s, 67 + (v >> 40) % 121, m);
            break;
        case GOLDEN_NONFINITE:
            if ((v & 4095) == 0) {
                uint64_t w = splitmix64_next(&r);
                u = (w & 3) == 0 ? golden_bits(w >> 63, 255, 0)             /* +-inf */
                                 : golden_bits(w >> 63, 255, (w >> 8) | 1); /* NaN */
            } else {
                u = golden_bits(s, 107 + (v >> 40) % 41, m);
            }
            break;
        default: /* GOLDEN_ZEROS */
            u = (v & 7) != 0 ? golden_bits(1, 0, 0)
                : (v & 8) == 0 ? golden_bits(s, 0, 0) : golden_bits(s, 0, m | 1);
            break;
        }
        memcpy(&a[i], &u, 4);
    }
}

/* ---- Lengths and shapes ---- */

#define GOLDEN_MAXLEN 1000000u
#define GOLDEN_SLACK 4096u                        /* windows start at 0..4096 */
#define GOLDEN_DATALEN (GOLDEN_MAXLEN + GOLDEN_SLACK)
#define GOLDEN_NLENGTHS_MAX 1300

/* Writes the list of reduction lengths into len[] (room for
   GOLDEN_NLENGTHS_MAX) and returns how many: every n in 0..1100; 2^k - 1,
   2^k, 2^k + 1 for k = 11..19; 999999 and 1000000; 8 pseudo-random n in
   [1101, 10^6]. */
static size_t golden_lengths(size_t *len)
{
    size_t c = 0, n;
    int k;
    splitmix64 r;
    for (n = 0; n <= 1100; n++) len[c++] = n;
    for (k = 11; k <= 19; k++) {
        len[c++] = ((size_t)1 << k) - 1;
        len[c++] = (size_t)1 << k;
        len[c++] = ((size_t)1 << k) + 1;
    }
    len[c++] = 999999;
    len[c++] = 1000000;
    splitmix64_seed(&r, GOLDEN_SEED_LEN);
    for (k = 0; k < 8; k++) len[c++] = 1101 + (size_t)golden_below(&r, GOLDEN_MAXLEN - 1100);
    return c;
}

/* Start of the window of length n used for case (n, which): 0..4096, so
   the arrays are read at every alignment. */
static size_t golden_window(size_t n, unsigned which)
{
    return (size_t)(splitmix64_mix(GOLDEN_SEED_DATA ^ ((uint64_t)n << 8) ^ which) % (GOLDEN_SLACK + 1));
}

/* Batched (row-wise) shapes: rows x cols (golden_core.h's golden_rows
   gives the row strides); (rows - 1) * (cols + 3) + cols <= 10^6. */
typedef struct golden_shape { size_t rows, cols; } golden_shape;
#define GOLDEN_NSHAPES 14
static const golden_shape golden_shapes[GOLDEN_NSHAPES] = {
    {0, 5}, {5, 0}, {1, 1}, {3, 7}, {2, 64}, {7, 1000}, {64, 65}, {100, 1025},
    {1000, 100}, {33, 4097}, {4, 65537}, {1, 1000000}, {1000, 990}, {3000, 17}};

#endif /* REPDL_TESTS_GOLDEN_GEN_H */
