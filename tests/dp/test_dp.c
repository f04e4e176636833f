/* SPDX-License-Identifier: MIT */
/* tests/dp/test_dp.c: include/repdl/data_parallel.h, the data-parallel
   step, in one process.

   The callback is a synthetic micro-batch gradient (dp_case.h: values of
   mixed magnitude and special values); the reference is the buddy tree
   over units written in dp_case.h from docs/mpi.md section 1.  Checked:
     - repdl_dp_step_f32 equals the reference bit for bit for batches
       B of 0 .. 1000 samples, micro-batches mb of 1, 3, 16, 64, gradients
       of V = 0, 1, 37 floats and 1, 2, 3, 4, 7 threads (more threads than
       micro-batches included), twice on the same plan (two seeds: nothing
       kept from a step to the next); every micro-batch called once, by the
       thread that owns it (contiguous shares in thread order), with its
       samples [u mb, min((u+1) mb, B)) and a buffer exactly when V > 0;
     - ranks simulated in one process: repdl_dp_step_nodes_f32 of each rank
       r of R (R = 2, 3, 5; 2 threads each), its node count that of
       repdl_dp_rank_units' range, and repdl_units_combine_f32 of the
       ranks' nodes equals the reference;
     - repdl_dp_for covers each item once, by the owning thread;
     - bad input: every invalid argument of repdl_dp_init, _step_f32,
       _step_nodes_f32, _for and _rank_units gives its documented status
       with nothing written; a failing callback's status is returned (the
       first in thread order) with grad not written; a refused allocation
       (REPDL__ALLOC, each one in turn and every one from it on) makes
       repdl_dp_init return REPDL_ERR_NOMEM with the plan zero, or
       REPDL_OK, and then the step allocates nothing and gives the
       reference's bits;
     - against a plain serial units computation too: every unit vector in
       one array, repdl_units_nodes_f32 over [0, G) (one node: the sum). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/oom_alloc.h" /* REPDL__ALLOC: fails on demand */

#include <repdl/data_parallel.h>

#include "../common/check.h"
#include "dp_case.h"

#define SENTINEL 0x5a5a5a5au

static void fill_sentinel(float *x, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) x[i] = asfloat(SENTINEL);
}

static int all_sentinel(const float *x, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (asuint(x[i]) != SENTINEL) return 0;
    return 1;
}

/* The calls of a step of plan dp: each unit once, by its owner, with the
   right arguments. */
static void check_calls(const dp_case *c, const repdl_dp *dp, const char *what)
{
    size_t u, n = dp->unit1 - dp->unit0;
    int t;
    for (t = 0; t < dp->nthreads; t++) {
        size_t w0 = dp->unit0 + n * (size_t)t / (size_t)dp->nthreads;
        size_t w1 = dp->unit0 + n * ((size_t)t + 1) / (size_t)dp->nthreads;
        for (u = w0; u < w1; u++)
            CHECK(c->thread_of[u] == t, "%s: unit %zu on thread %d, owner %d", what, u,
                  c->thread_of[u], t);
    }
    for (u = 0; u < c->G; u++) {
        int want = u >= dp->unit0 && u < dp->unit1;
        CHECK(c->calls[u] == want, "%s: unit %zu called %d times", what, u, c->calls[u]);
        CHECK(!c->bad[u], "%s: unit %zu: wrong arguments", what, u);
    }
}

static const size_t batches[] = {0, 1, 2, 15, 16, 17, 33, 50, 64, 100, 257, 1000};
static const size_t mbs[] = {1, 3, 16, 64};
static const size_t Vs[] = {0, 1, 37};
static const int threads[] = {1, 2, 3, 4, 7};

static void test_threads(void)
{
    size_t ib, im, iv, it;
    for (ib = 0; ib < sizeof batches / sizeof batches[0]; ib++)
        for (im = 0; im < sizeof mbs / sizeof mbs[0]; im++)
            for (iv = 0; iv < sizeof Vs / sizeof Vs[0]; iv++) {
                size_t B = batches[ib], mb = mbs[im], V = Vs[iv];
                float *want = (float *)malloc((V + 1) * sizeof(float));
                float *want2 = (float *)malloc((V + 1) * sizeof(float));
                float *got = (float *)malloc((V + 1) * sizeof(float));
                ref_sum(1, B / mb + (B % mb != 0), V, want);
                ref_sum(2, B / mb + (B % mb != 0), V, want2);
                {   /* the plain serial units computation agrees */
                    size_t G = B / mb + (B % mb != 0), u, e;
                    float *units = (float *)malloc((G * V + 1) * sizeof(float));
                    for (u = 0; u < G; u++)
                        for (e = 0; e < V; e++) units[u * V + e] = unit_value(1, u, e);
                    if (G > 0 && V > 0) {
                        CHECK(repdl_units_nodes_f32(G, 0, G, V, units, V, got) == REPDL_OK,
                              "units_nodes_f32");
                        CHECK_SAME(got, want, V, "serial units, B %zu mb %zu V %zu", B, mb, V);
                    }
                    free(units);
                }
                for (it = 0; it < sizeof threads / sizeof threads[0]; it++) {
                    int T = threads[it];
                    repdl_dp dp;
                    dp_case c;
                    repdl_status st;
                    char what[96];
                    snprintf(what, sizeof what, "B %zu mb %zu V %zu T %d", B, mb, V, T);
                    if (dp_case_init(&c, 1, B, mb, V, T)) { CHECK(0, "%s: no memory", what); continue; }
                    st = repdl_dp_init(&dp, B, mb, V, T, 1, 0);
                    CHECK(st == REPDL_OK, "%s: init %d", what, (int)st);
                    if (st != REPDL_OK) { dp_case_free(&c); continue; }
                    CHECK(dp.units == c.G && dp.unit0 == 0 && dp.unit1 == c.G && dp.row0 == 0 &&
                              dp.row1 == B && dp.nnodes == (c.G > 0),
                          "%s: plan fields", what);
                    fill_sentinel(got, V + 1);
                    st = repdl_dp_step_f32(&dp, case_unit, &c, got);
                    CHECK(st == REPDL_OK, "%s: step %d", what, (int)st);
                    CHECK_SAME(got, want, V, "%s", what);
                    CHECK(asuint(got[V]) == SENTINEL, "%s: wrote past V", what);
                    check_calls(&c, &dp, what);
                    /* the same plan, another batch */
                    dp_case_reset(&c);
                    c.seed = 2;
                    st = repdl_dp_step_f32(&dp, case_unit, &c, got);
                    CHECK(st == REPDL_OK, "%s: second step %d", what, (int)st);
                    CHECK_SAME(got, want2, V, "%s, second step", what);
                    check_calls(&c, &dp, what);
                    repdl_dp_free(&dp);
                    dp_case_free(&c);
                }
                free(want);
                free(want2);
                free(got);
            }
}

/* R ranks in one process: each rank's nodes, then the combine of all. */
static void test_ranks(void)
{
    static const int Rs[] = {2, 3, 5};
    size_t ib, ir;
    const size_t mb = 16, V = 37;
    for (ib = 0; ib < sizeof batches / sizeof batches[0]; ib++)
        for (ir = 0; ir < sizeof Rs / sizeof Rs[0]; ir++) {
            size_t B = batches[ib], G = B / mb + (B % mb != 0);
            int R = Rs[ir], r;
            float *want = (float *)malloc(V * sizeof(float));
            float *got = (float *)malloc(V * sizeof(float));
            float **nodes = (float **)calloc((size_t)R, sizeof(float *));
            size_t *bounds = (size_t *)calloc((size_t)R + 1, sizeof(size_t));
            char what[64];
            snprintf(what, sizeof what, "B %zu ranks %d", B, R);
            ref_sum(3, G, V, want);
            for (r = 0; r < R; r++) {
                repdl_dp dp;
                dp_case c;
                size_t u0 = 0, u1 = 0, r0 = 0, r1 = 0, N;
                repdl_status st;
                dp_case_init(&c, 3, B, mb, V, 2);
                st = repdl_dp_init(&dp, B, mb, V, 2, R, r);
                CHECK(st == REPDL_OK, "%s: init rank %d", what, r);
                if (st != REPDL_OK) { dp_case_free(&c); continue; }
                CHECK(repdl_dp_rank_units(&dp, r, &u0, &u1, &r0, &r1) == REPDL_OK &&
                          u0 == dp.unit0 && u1 == dp.unit1 && r0 == dp.row0 && r1 == dp.row1,
                      "%s: rank %d's units", what, r);
                CHECK(u0 == G * (size_t)r / (size_t)R && u1 == G * (size_t)(r + 1) / (size_t)R &&
                          r0 == (u0 * mb < B ? u0 * mb : B) && r1 == (u1 * mb < B ? u1 * mb : B),
                      "%s: rank %d: units [%zu, %zu) rows [%zu, %zu)", what, r, u0, u1, r0, r1);
                N = repdl_units_nodes(G, u0, u1, 0, NULL);
                CHECK(dp.nnodes == N, "%s: rank %d: %zu nodes, want %zu", what, r, dp.nnodes, N);
                bounds[r] = u0;
                bounds[r + 1] = u1;
                nodes[r] = (float *)malloc((N * V + 1) * sizeof(float));
                CHECK(repdl_dp_step_f32(&dp, case_unit, &c, got) == REPDL_ERR_INVALID,
                      "%s: step_f32 on a rank of %d", what, R);
                dp_case_reset(&c);
                st = repdl_dp_step_nodes_f32(&dp, case_unit, &c, nodes[r]);
                CHECK(st == REPDL_OK, "%s: rank %d step %d", what, r, (int)st);
                check_calls(&c, &dp, what);
                repdl_dp_free(&dp);
                dp_case_free(&c);
            }
            fill_sentinel(got, V);
            CHECK(repdl_units_combine_f32(G, (size_t)R, bounds, V, (const float *const *)nodes,
                                          got) == REPDL_OK,
                  "%s: combine", what);
            CHECK_SAME(got, want, V, "%s", what);
            for (r = 0; r < R; r++) free(nodes[r]);
            free(nodes);
            free(bounds);
            free(want);
            free(got);
        }
}

typedef struct for_case {
    size_t begin, end;
    int T;
    int *seen;  /* [end]: calls per item */
    int *owner; /* [end] */
    size_t fail_begin;
} for_case;

static repdl_status for_fn(void *ctx, int t, size_t b, size_t e)
{
    for_case *f = (for_case *)ctx;
    size_t i;
    if (b >= e || b < f->begin || e > f->end) return REPDL_ERR_OVERFLOW;
    for (i = b; i < e; i++) {
        f->seen[i]++;
        f->owner[i] = t;
    }
    return b == f->fail_begin ? REPDL_ERR_NOMEM : REPDL_OK;
}

static void test_for(void)
{
    static const size_t ranges[][2] = {{0, 0}, {5, 5}, {0, 1}, {3, 10}, {0, 100}, {7, 1000}};
    size_t ir, it, i;
    for (ir = 0; ir < sizeof ranges / sizeof ranges[0]; ir++)
        for (it = 0; it < sizeof threads / sizeof threads[0]; it++) {
            repdl_dp dp;
            for_case f;
            int T = threads[it];
            repdl_status st;
            f.begin = ranges[ir][0];
            f.end = ranges[ir][1];
            f.T = T;
            f.fail_begin = (size_t)-1;
            f.seen = (int *)calloc(f.end + 1, sizeof(int));
            f.owner = (int *)calloc(f.end + 1, sizeof(int));
            CHECK(repdl_dp_init(&dp, 64, 16, 3, T, 1, 0) == REPDL_OK, "for: init");
            st = repdl_dp_for(&dp, f.begin, f.end, for_fn, &f);
            CHECK(st == REPDL_OK, "for [%zu, %zu) T %d: %d", f.begin, f.end, T, (int)st);
            for (i = 0; i < f.end; i++) {
                size_t n = f.end - f.begin;
                int want = i >= f.begin;
                CHECK(f.seen[i] == want, "for [%zu, %zu) T %d: item %zu seen %d", f.begin, f.end,
                      T, i, f.seen[i]);
                if (want) {
                    int t = 0;
                    while ((size_t)t + 1 < (size_t)T + 1 &&
                           f.begin + n * ((size_t)t + 1) / (size_t)T <= i)
                        t++;
                    CHECK(f.owner[i] == t, "for: item %zu on thread %d, want %d", i, f.owner[i],
                          t);
                }
            }
            if (f.end - f.begin >= (size_t)T && T > 1) { /* thread 1's share fails */
                f.fail_begin = f.begin + (f.end - f.begin) / (size_t)T;
                CHECK(repdl_dp_for(&dp, f.begin, f.end, for_fn, &f) == REPDL_ERR_NOMEM,
                      "for: a failing share");
            }
            CHECK(repdl_dp_for(&dp, 2, 1, for_fn, &f) == REPDL_ERR_INVALID, "for: begin > end");
            CHECK(repdl_dp_for(&dp, 0, 1, NULL, &f) == REPDL_ERR_INVALID, "for: NULL fn");
            CHECK(repdl_dp_for(NULL, 0, 1, for_fn, &f) == REPDL_ERR_INVALID, "for: NULL plan");
            repdl_dp_free(&dp);
            free(f.seen);
            free(f.owner);
        }
}

static int plan_is_zero(const repdl_dp *dp)
{
    repdl_dp z;
    memset(&z, 0, sizeof z);
    return memcmp(dp, &z, sizeof z) == 0;
}

static void test_bad_input(void)
{
    repdl_dp dp, zero;
    dp_case c;
    float g[40], want[37];
    size_t u0 = 7, u1 = 7;
    repdl_status st;
    memset(&zero, 0, sizeof zero);

    /* repdl_dp_init */
    CHECK(repdl_dp_init(NULL, 64, 16, 37, 2, 1, 0) == REPDL_ERR_INVALID, "init NULL");
#define BAD_INIT(B, mb, V, T, R, r, want)                                             \
    do {                                                                              \
        memset(&dp, 0x5a, sizeof dp);                                                 \
        st = repdl_dp_init(&dp, B, mb, V, T, R, r);                                   \
        CHECK(st == (want), "init(%zu, %zu, %zu, %d, %d, %d): %d", (size_t)(B),       \
              (size_t)(mb), (size_t)(V), (int)(T), (int)(R), (int)(r), (int)st);      \
        CHECK(plan_is_zero(&dp), "init: plan not zero after an error");               \
        repdl_dp_free(&dp);                                                           \
    } while (0)
    BAD_INIT(64, 0, 37, 2, 1, 0, REPDL_ERR_INVALID);
    BAD_INIT(64, 16, 37, 0, 1, 0, REPDL_ERR_INVALID);
    BAD_INIT(64, 16, 37, -1, 1, 0, REPDL_ERR_INVALID);
    BAD_INIT(64, 16, 37, REPDL_DP_THREADS_MAX + 1, 1, 0, REPDL_ERR_INVALID);
    BAD_INIT(64, 16, 37, 2, 0, 0, REPDL_ERR_INVALID);
    BAD_INIT(64, 16, 37, 2, 3, 3, REPDL_ERR_INVALID);
    BAD_INIT(64, 16, 37, 2, 3, -1, REPDL_ERR_INVALID);
    BAD_INIT((size_t)-1, 1, 37, 2, 1, 0, REPDL_ERR_INVALID);        /* 2^64 - 1 units */
    BAD_INIT(REPDL_UNITS_MAX + 1, 1, 1, 1, 1, 0, REPDL_ERR_INVALID);
    BAD_INIT(64, 16, (size_t)-1 / 2, 1, 1, 0, REPDL_ERR_OVERFLOW);   /* V floats */
    BAD_INIT(64, 16, (size_t)1 << 62, 2, 1, 0, REPDL_ERR_OVERFLOW); /* 2^64 bytes */
    BAD_INIT(1000, 16, (size_t)-1 / 4 / 8, 3, 1, 0, REPDL_ERR_OVERFLOW); /* pieces' nodes */
    /* valid extremes: 2^62 units (nothing allocated per unit) */
    st = repdl_dp_init(&dp, REPDL_UNITS_MAX, 1, 0, 1, 4, 3);
    CHECK(st == REPDL_OK && dp.units == REPDL_UNITS_MAX && dp.unit0 == REPDL_UNITS_MAX / 4 * 3 &&
              dp.unit1 == REPDL_UNITS_MAX,
          "init with 2^62 units: %d", (int)st);
    repdl_dp_free(&dp);
    CHECK(plan_is_zero(&dp), "free zeroes the plan");
    repdl_dp_free(&dp); /* twice: nothing */
    repdl_dp_free(NULL);

    /* the steps on a valid plan */
    ref_sum(5, 4, 37, want);
    dp_case_init(&c, 5, 64, 16, 37, 3);
    CHECK(repdl_dp_init(&dp, 64, 16, 37, 3, 1, 0) == REPDL_OK, "init");
    fill_sentinel(g, 40);
    CHECK(repdl_dp_step_f32(&dp, NULL, &c, g) == REPDL_ERR_INVALID && all_sentinel(g, 40),
          "step: NULL callback");
    CHECK(repdl_dp_step_f32(&dp, case_unit, &c, NULL) == REPDL_ERR_INVALID, "step: NULL grad");
    CHECK(repdl_dp_step_f32(NULL, case_unit, &c, g) == REPDL_ERR_INVALID, "step: NULL plan");
    CHECK(repdl_dp_step_f32(&zero, case_unit, &c, g) == REPDL_ERR_INVALID && all_sentinel(g, 40),
          "step: a plan never initialised (zero)");
    CHECK(repdl_dp_step_nodes_f32(&dp, case_unit, &c, NULL) == REPDL_ERR_INVALID,
          "step_nodes: NULL nodes");
    CHECK(repdl_dp_step_nodes_f32(&dp, NULL, &c, g) == REPDL_ERR_INVALID, "step_nodes: NULL fn");
    CHECK(repdl_dp_rank_units(&dp, 1, &u0, &u1, NULL, NULL) == REPDL_ERR_INVALID && u0 == 7 &&
              u1 == 7,
          "rank_units: rank 1 of 1");
    CHECK(repdl_dp_rank_units(&dp, -1, &u0, NULL, NULL, NULL) == REPDL_ERR_INVALID,
          "rank_units: rank -1");
    CHECK(repdl_dp_rank_units(NULL, 0, &u0, NULL, NULL, NULL) == REPDL_ERR_INVALID,
          "rank_units: NULL plan");
    CHECK(c.calls[0] + c.calls[1] + c.calls[2] + c.calls[3] == 0,
          "a refused step called the callback");
    /* a failing callback: its status, grad not written; two failures on
       threads 0 and 2 (units 0 and 3 of 4 on 3 threads): thread 0's */
    c.fail_unit[0] = 2;
    c.fail_status[0] = REPDL_ERR_OVERFLOW;
    CHECK(repdl_dp_step_f32(&dp, case_unit, &c, g) == REPDL_ERR_OVERFLOW && all_sentinel(g, 40),
          "step: the callback's status, grad untouched");
    c.fail_unit[0] = 3;
    c.fail_status[0] = REPDL_ERR_NOMEM;
    c.fail_unit[1] = 0;
    c.fail_status[1] = REPDL_ERR_CUDA;
    CHECK(repdl_dp_step_f32(&dp, case_unit, &c, g) == REPDL_ERR_CUDA && all_sentinel(g, 40),
          "step: thread 0's failure first");
    /* and the plan still works */
    c.fail_unit[0] = c.fail_unit[1] = c.G;
    dp_case_reset(&c);
    CHECK(repdl_dp_step_f32(&dp, case_unit, &c, g) == REPDL_OK, "step after failures");
    CHECK_SAME(g, want, 37, "step after failures");
    repdl_dp_free(&dp);
    dp_case_free(&c);

    /* batch 0: -0.0 everywhere, no call */
    dp_case_init(&c, 5, 0, 16, 37, 2);
    CHECK(repdl_dp_init(&dp, 0, 16, 37, 2, 1, 0) == REPDL_OK && dp.units == 0 && dp.nnodes == 0,
          "batch 0: init");
    fill_sentinel(g, 40);
    CHECK(repdl_dp_step_f32(&dp, case_unit, &c, g) == REPDL_OK, "batch 0: step");
    {
        size_t i;
        int ok = 1;
        for (i = 0; i < 37; i++) ok &= asuint(g[i]) == 0x80000000u;
        CHECK(ok && asuint(g[37]) == SENTINEL, "batch 0: grad is -0.0");
    }
    CHECK(repdl_dp_step_nodes_f32(&dp, case_unit, &c, NULL) == REPDL_OK,
          "batch 0: nodes NULL (none)");
    repdl_dp_free(&dp);
    dp_case_free(&c);
}

/* Every allocation of init refused in turn (and every one from it on):
   REPDL_ERR_NOMEM with the plan zero, or REPDL_OK; the step then
   allocates nothing and gives the reference bits. */
static void test_oom(void)
{
    static const int Ts[] = {1, 3};
    size_t it;
    const size_t B = 100, mb = 16, V = 37, G = 7;
    float want[37], g[38];
    ref_sum(9, G, V, want);
    for (it = 0; it < sizeof Ts / sizeof Ts[0]; it++) {
        int T = Ts[it], from;
        long A, k;
        repdl_dp dp;
        dp_case c;
        dp_case_init(&c, 9, B, mb, V, T);
        oom_at = -1;
        oom_calls = 0;
        CHECK(repdl_dp_init(&dp, B, mb, V, T, 1, 0) == REPDL_OK, "oom: init");
        CHECK(repdl_dp_step_f32(&dp, case_unit, &c, g) == REPDL_OK, "oom: step");
        A = oom_calls;
        repdl_dp_free(&dp);
        CHECK(A >= 2, "oom: %ld allocations", A);
        for (from = 0; from < 2; from++)
            for (k = 0; k < A; k++) {
                repdl_status st;
                oom_from = from;
                oom_at = k;
                oom_calls = 0;
                fill_sentinel(g, 38);
                dp_case_reset(&c);
                st = repdl_dp_init(&dp, B, mb, V, T, 1, 0);
                if (st != REPDL_OK) {
                    CHECK(st == REPDL_ERR_NOMEM && plan_is_zero(&dp),
                          "oom T %d k %ld from %d: init %d", T, k, from, (int)st);
                    continue;
                }
                {
                    long before = oom_calls;
                    st = repdl_dp_step_f32(&dp, case_unit, &c, g);
                    CHECK(oom_calls == before, "oom: the step allocated %ld times",
                          oom_calls - before);
                }
                CHECK(st == REPDL_OK, "oom T %d k %ld from %d: step %d", T, k, from, (int)st);
                CHECK_SAME(g, want, V, "oom T %d k %ld from %d", T, k, from);
                CHECK(asuint(g[V]) == SENTINEL, "oom: past V");
                repdl_dp_free(&dp);
            }
        oom_at = -1;
        dp_case_free(&c);
    }
}

int main(void)
{
    test_threads();
    test_ranks();
    test_for();
    test_bad_input();
    test_oom();
    return check_summary("test_dp");
}
