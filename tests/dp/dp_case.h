/* SPDX-License-Identifier: MIT */
/* tests/dp/dp_case.h: what test_dp.c and test_dp_mpi.c share: a synthetic
   micro-batch gradient (the callback of repdl_dp_step_*) and the sum it
   must give, written here from docs/mpi.md section 1 (a recursive
   node(k, j), one element at a time), not through reduce_units.h.

   unit_value(seed, u, e): element e of micro-batch u's gradient, from a
   hash: mostly values of mixed magnitude and sign (so the order of the
   additions shows in the bits), sometimes a special value (NaN with
   several payloads and signs, +-inf, +-0, subnormals, +-FLT_MAX, whose
   sums overflow). */
#ifndef TESTS_DP_DP_CASE_H
#define TESTS_DP_DP_CASE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/bits.h"
#include "../common/splitmix64.h"

static float unit_value(uint64_t seed, size_t u, size_t e)
{
    uint64_t h = splitmix64_mix(seed ^ splitmix64_mix((uint64_t)u * 0x10001u + (uint64_t)e));
    static const uint32_t special[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7f800000u,
                                       0xff800000u, 0x00000000u, 0x80000000u, 0x00000001u,
                                       0x807fffffu, 0x7f7fffffu, 0xff7fffffu};
    if ((h & 63) == 0) return asfloat(special[(h >> 6) % (sizeof special / sizeof special[0])]);
    /* sign, exponent in [-20, 20] around 1, 23 random mantissa bits */
    return asfloat((uint32_t)((h >> 8) & 0x80000000u) |
                   (uint32_t)(127 - 20 + (int)((h >> 16) % 41)) << 23 |
                   (uint32_t)((h >> 32) & 0x7fffffu));
}

/* node(k, j) of docs/mpi.md section 1 over the U values x[0..U). */
static float ref_node(const float *x, size_t U, unsigned k, size_t j)
{
    volatile float l, r;
    if (k == 0) return x[j];
    l = ref_node(x, U, k - 1, 2 * j);
    if ((2 * j + 1) * ((size_t)1 << (k - 1)) >= U) return l;
    r = ref_node(x, U, k - 1, 2 * j + 1);
    return l + r;
}

/* The canonical sum over units of element e, for each e < V, into out:
   -0 when U = 0, every NaN 0x7fc00000. */
static void ref_sum(uint64_t seed, size_t U, size_t V, float *out)
{
    float *x = (float *)malloc((U + 1) * sizeof(float));
    size_t e, u;
    unsigned K = 0;
    while (((size_t)1 << K) < U) K++;
    for (e = 0; e < V; e++) {
        float s;
        for (u = 0; u < U; u++) x[u] = unit_value(seed, u, e);
        s = U == 0 ? -0.0f : ref_node(x, U, K, 0);
        out[e] = s != s ? asfloat(0x7fc00000u) : s;
    }
    free(x);
}

/* The callback's context.  Each unit is written by the one thread that
   owns it, so the per-unit records need no lock. */
typedef struct dp_case {
    uint64_t seed;
    size_t B, mb, V, G;
    int T;
    size_t fail_unit[2];       /* units whose call fails (G: none) */
    repdl_status fail_status[2];
    int *calls;                /* [G]: calls per unit */
    int *thread_of;            /* [G]: the thread that ran it */
    int *bad;                  /* [G]: an argument that was wrong */
} dp_case;

static int dp_case_init(dp_case *c, uint64_t seed, size_t B, size_t mb, size_t V, int T)
{
    c->seed = seed;
    c->B = B;
    c->mb = mb;
    c->V = V;
    c->G = B / mb + (B % mb != 0);
    c->T = T;
    c->fail_unit[0] = c->fail_unit[1] = c->G;
    c->fail_status[0] = c->fail_status[1] = REPDL_OK;
    c->calls = (int *)calloc(c->G + 1, sizeof(int));
    c->thread_of = (int *)calloc(c->G + 1, sizeof(int));
    c->bad = (int *)calloc(c->G + 1, sizeof(int));
    return c->calls && c->thread_of && c->bad ? 0 : -1;
}

static void dp_case_reset(dp_case *c)
{
    memset(c->calls, 0, (c->G + 1) * sizeof(int));
    memset(c->thread_of, 0, (c->G + 1) * sizeof(int));
    memset(c->bad, 0, (c->G + 1) * sizeof(int));
}

static void dp_case_free(dp_case *c)
{
    free(c->calls);
    free(c->thread_of);
    free(c->bad);
}

static repdl_status case_unit(void *ctx, int thread, size_t unit, size_t first, size_t rows,
                              float *grad)
{
    dp_case *c = (dp_case *)ctx;
    size_t e;
    if (unit >= c->G) return REPDL_ERR_INVALID; /* never: checked below by the counts */
    c->calls[unit]++;
    c->thread_of[unit] = thread;
    if (thread < 0 || thread >= c->T || first != unit * c->mb ||
        rows != (c->B - first < c->mb ? c->B - first : c->mb) || rows == 0 ||
        (c->V > 0) != (grad != NULL))
        c->bad[unit] = 1;
    if (unit == c->fail_unit[0]) return c->fail_status[0];
    if (unit == c->fail_unit[1]) return c->fail_status[1];
    for (e = 0; e < c->V; e++) grad[e] = unit_value(c->seed, unit, e);
    return REPDL_OK;
}

#endif
