/* SPDX-License-Identifier: MIT */
/* tests/reduce/gen.h: reproducible test data for the reduction tests:
   a seeded generator (splitmix64, tests/common/splitmix64.h) and arrays rich in the values that break reductions
   (signed zeros, subnormals, infinities, NaNs with payloads, huge and tiny
   magnitudes side by side, exact cancellation). */
#ifndef REPDL_TESTS_REDUCE_GEN_H
#define REPDL_TESTS_REDUCE_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/bits.h"
#include "../common/splitmix64.h"

/* The generator of the test data; a test reseeds it with
   splitmix64_seed(&gen_rng, seed). */
static splitmix64 gen_rng = {SPLITMIX64_GAMMA};

static inline uint64_t gen_u64(void) { return splitmix64_next(&gen_rng); }
static inline uint64_t gen_below(uint64_t m) { return m ? gen_u64() % m : 0; }

/* A float with random sign and mantissa, biased exponent in [lo, hi]
   (0 gives a subnormal or zero). */
static inline float gen_exp_range(int lo, int hi)
{
    uint32_t e = (uint32_t)(lo + (int)gen_below((uint64_t)(hi - lo + 1)));
    uint32_t u = ((uint32_t)gen_u64() & 0x807fffffu) | (e << 23);
    return asfloat(u);
}

static inline float gen_nan(void) /* random sign and payload, quiet or signalling */
{
    uint32_t pay = (uint32_t)gen_u64() & 0x007fffffu;
    if (pay == 0) pay = 1;
    return asfloat(((uint32_t)gen_u64() & 0x80000000u) | 0x7f800000u | pay);
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
            x[gen_below(n)] = r == 2 ? gen_nan() : asfloat(r ? 0x7f800000u : 0xff800000u);
        }
    }
}


#endif /* REPDL_TESTS_REDUCE_GEN_H */
