/* SPDX-License-Identifier: MIT */
/* tests/reduce/gen.h: reproducible test data for the reduction tests:
   a seeded generator and arrays rich in the values that break reductions
   (signed zeros, subnormals, infinities, NaNs with payloads, huge and tiny
   magnitudes side by side, exact cancellation). */
#ifndef REPDL_TESTS_REDUCE_GEN_H
#define REPDL_TESTS_REDUCE_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t gen_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t gen_u64(void) /* splitmix64 */
{
    uint64_t z = (gen_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline uint64_t gen_below(uint64_t m) { return m ? gen_u64() % m : 0; }

static inline float gen_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint32_t gen_asu(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* A float with random sign and mantissa, biased exponent in [lo, hi]
   (0 gives a subnormal or zero). */
static inline float gen_exp_range(int lo, int hi)
{
    uint32_t e = (uint32_t)(lo + (int)gen_below((uint64_t)(hi - lo + 1)));
    uint32_t u = ((uint32_t)gen_u64() & 0x807fffffu) | (e << 23);
    return gen_bits(u);
}

static inline float gen_nan(void) /* random sign and payload, quiet or signalling */
{
    uint32_t pay = (uint32_t)gen_u64() & 0x007fffffu;
    if (pay == 0) pay = 1;
    return gen_bits(((uint32_t)gen_u64() & 0x80000000u) | 0x7f800000u | pay);
}

enum {
    GEN_MIXED,     /* exponents 2^-40 .. 2^40, both signs */
    GEN_SPECIAL,   /* mixed plus +-0, subnormals, near-FLT_MAX values */
    GEN_NONFINITE, /* special plus a few +-inf and NaNs */
    GEN_ZEROS,     /* all -0, one +0 in odd-seeded arrays */
    GEN_CANCEL,    /* x, -x pairs and tiny values: order-sensitive sums */
    GEN_WIDE,      /* every exponent, subnormals included: overflow, inf - inf */
    GEN_KINDS
};
static const char *const gen_kind_name[GEN_KINDS] = {"mixed", "special", "nonfinite",
                                                     "zeros", "cancel", "wide"};

static inline void gen_fill(float *x, size_t n, int kind)
{
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t r = gen_below(1000);
        float v = gen_exp_range(127 - 40, 127 + 40);
        switch (kind) {
        case GEN_SPECIAL:
        case GEN_NONFINITE:
            if (r < 10) v = 0.0f;
            else if (r < 20) v = -0.0f;
            else if (r < 35) v = gen_exp_range(0, 0);       /* subnormal */
            else if (r < 45) v = gen_exp_range(1, 3);       /* tiny normal */
            else if (r < 50) v = gen_exp_range(253, 254);   /* huge */
            break;
        case GEN_ZEROS:
            v = -0.0f;
            break;
        case GEN_CANCEL:
            if (r < 50) v = gen_exp_range(127 - 60, 127 - 30);
            else if (i > 0 && (i & 1)) v = -x[i - 1];
            break;
        case GEN_WIDE:
            v = gen_exp_range(0, 254);
            break;
        default:
            break;
        }
        x[i] = v;
    }
    if (kind == GEN_ZEROS && n > 0 && (gen_u64() & 1)) x[gen_below(n)] = 0.0f;
    if (kind == GEN_NONFINITE && n > 0) { /* one to three of +inf, -inf, NaN */
        int k, c = 1 + (int)gen_below(3);
        for (k = 0; k < c; k++) {
            uint64_t r = gen_below(3);
            x[gen_below(n)] = r == 2 ? gen_nan() : gen_bits(r ? 0x7f800000u : 0xff800000u);
        }
    }
}

/* Where a NaN result is not expected to be bit-identical to an input it
   must be the canonical one. */
static inline int same_bits(float a, float b) { return gen_asu(a) == gen_asu(b); }

#endif /* REPDL_TESTS_REDUCE_GEN_H */
