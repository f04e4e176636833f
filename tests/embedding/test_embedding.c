/* SPDX-License-Identifier: MIT */
/* tests/embedding/test_embedding.c: include/repdl/embedding.h against
   reference/embedding_ref.h (written from the definition, no sort, no
   stack), bit for bit, and the claims of its order:
     - forward and backward = the reference: vocab 1..50, dim 0..17,
       n 0..1000 (one to 63 micro-batches, sparse and dense ids), dout with
       +-0, subnormals, +-inf, NaN payloads and values that cancel;
     - every zero of dtable is +0, a row that no id hits is +0;
     - relabelling the vocabulary (a permutation of the table's rows)
       permutes dtable's rows and nothing else;
     - shuffling the positions inside each micro-batch, the k-th
       occurrence of each id keeping its gradient row, changes no bit (the
       visit order of the positions does not matter, only each id's own
       sequence);
     - batch split: runs of whole micro-batches cut into the nodes of
       reduce_units.h, each node's value the call on its positions alone,
       combined by repdl_units_combine_f32 = the call on the whole batch;
       the same with 1..4 threads, each pushing its micro-batches' values
       into a repdl_units_state;
     - bad input: ids outside [0, vocab) (-1, vocab, INT64_MIN,
       INT64_MAX, also with dim 0), NULL arrays with a nonzero extent,
       extents that overflow, every allocation refused: the documented
       status and not one output byte written; NULL with zero extents,
       n == 0 (dtable +0); flush-to-zero set (x86-64): REPDL_ERR_FPENV,
       nothing written.
   Exit 0 when every check passes. */
#include "../common/oom_alloc.h" /* before repdl: REPDL__ALLOC */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/embedding.h>
#include <repdl/reduce_units.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h> /* MXCSR: the flush-to-zero mode */
#endif

#include "../common/check.h"
#include "../common/splitmix64.h"
#include "embedding_ref.h"

#define CANARY 0x7f8abcdeu /* a signalling-NaN pattern no call writes */

static splitmix64 rng;

static uint64_t rnd(uint64_t m) { return m ? splitmix64_next(&rng) % m : 0; }

static float rnd_value(void)
{
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u,
                                       0x007fffffu, 0x7f800000u, 0xff800000u, 0x7fc00001u,
                                       0xffc12345u, 0x7f7fffffu, 0xff7fffffu, 0x3f800000u};
    uint64_t k = rnd(100);
    if (k < 8) return asfloat(special[rnd(sizeof special / sizeof special[0])]);
    if (k < 20) return (float)((int)rnd(7) - 3); /* small integers: exact cancellations */
    if (k < 30) return asfloat((uint32_t)rnd(1u << 23) | (rnd(2) << 31)); /* subnormal or 0 */
    return asfloat((uint32_t)((rnd(2) << 31) | ((uint64_t)(rnd(60) + 97) << 23) | rnd(1u << 23)));
}

static float *alloc_f(size_t n)
{
    float *p = (float *)malloc((n ? n : 1) * sizeof(float));
    if (!p) abort();
    return p;
}

static void fill_canary(float *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) p[i] = asfloat(CANARY);
}

static int untouched(const float *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (asuint(p[i]) != CANARY) return 0;
    return 1;
}

/* ---- one case: forward, backward, zeros, relabelling, visit order ---- */

static void one_case(size_t vocab, size_t dim, size_t n, int sparse)
{
    int64_t *ids = (int64_t *)malloc((n ? n : 1) * sizeof(int64_t));
    int64_t *ids2 = (int64_t *)malloc((n ? n : 1) * sizeof(int64_t));
    size_t *perm = (size_t *)malloc(vocab * sizeof(size_t));
    float *table = alloc_f(vocab * dim), *out = alloc_f(n * dim), *want = alloc_f(n * dim);
    float *dout = alloc_f(n * dim), *dout2 = alloc_f(n * dim);
    float *dt = alloc_f(vocab * dim), *dw = alloc_f(vocab * dim), *dt2 = alloc_f(vocab * dim);
    size_t i, d, v, hot = 1 + rnd(vocab < 4 ? vocab : 4);
    if (!ids || !ids2 || !perm) abort();
    for (i = 0; i < vocab * dim; i++) table[i] = rnd_value();
    for (i = 0; i < n * dim; i++) dout[i] = rnd_value();
    for (i = 0; i < n; i++) /* sparse: a few hot ids, many repeats */
        ids[i] = (int64_t)(sparse ? rnd(hot) * (vocab / hot) : rnd(vocab));

    /* forward */
    fill_canary(out, n * dim);
    CHECK(repdl_embedding_forward_f32(table, vocab, dim, ids, n, out) == REPDL_OK, "fwd status");
    ref_embedding_forward(table, dim, ids, n, want);
    CHECK_SAME(out, want, n * dim, "forward vocab %zu dim %zu n %zu", vocab, dim, n);

    /* backward */
    fill_canary(dt, vocab * dim);
    CHECK(repdl_embedding_backward_f32(dout, ids, n, vocab, dim, dt) == REPDL_OK, "bwd status");
    if (ref_embedding_backward(dout, ids, n, vocab, dim, dw)) abort();
    CHECK_SAME(dt, dw, vocab * dim, "backward vocab %zu dim %zu n %zu sparse %d", vocab, dim, n,
               sparse);
    for (v = 0; v < vocab; v++) {
        int hit = 0;
        for (i = 0; i < n; i++) hit |= (size_t)ids[i] == v;
        for (d = 0; d < dim; d++) {
            CHECK(asuint(dt[v * dim + d]) != 0x80000000u, "a -0 in dtable[%zu][%zu]", v, d);
            if (!hit) CHECK_BITS(dt[v * dim + d], 0.0f, "row %zu hit by no id", v);
        }
    }

    /* relabelling: id v -> perm[v], table row v -> perm[v] */
    for (v = 0; v < vocab; v++) perm[v] = v;
    for (v = vocab; v > 1; v--) {
        size_t j = (size_t)rnd(v), t = perm[v - 1];
        perm[v - 1] = perm[j];
        perm[j] = t;
    }
    for (i = 0; i < n; i++) ids2[i] = (int64_t)perm[ids[i]];
    CHECK(repdl_embedding_backward_f32(dout, ids2, n, vocab, dim, dt2) == REPDL_OK, "relabel status");
    for (v = 0; v < vocab; v++)
        CHECK_SAME(dt2 + perm[v] * dim, dt + v * dim, dim, "relabel row %zu", v);

    /* visit order: shuffle the positions of each micro-batch; the k-th
       position holding id v (in the micro-batch) gets the gradient row of
       the k-th position that held v before */
    if (dim > 0) {
        size_t g0;
        for (g0 = 0; g0 < n; g0 += REPDL_MICROBATCH) {
            size_t len = n - g0 < REPDL_MICROBATCH ? n - g0 : REPDL_MICROBATCH, a, b;
            int64_t sh[REPDL_MICROBATCH];
            for (a = 0; a < len; a++) sh[a] = ids[g0 + a];
            for (a = len; a > 1; a--) {
                size_t j = (size_t)rnd(a);
                int64_t t = sh[a - 1];
                sh[a - 1] = sh[j];
                sh[j] = t;
            }
            for (a = 0; a < len; a++) ids2[g0 + a] = sh[a];
            /* the k-th occurrence of each id, before and after */
            for (a = 0; a < len; a++) {
                size_t k = 0, src = 0, c = 0;
                for (b = 0; b < a; b++) k += ids2[g0 + b] == ids2[g0 + a];
                for (b = 0; b < len; b++)
                    if (ids[g0 + b] == ids2[g0 + a] && c++ == k) {
                        src = b;
                        break;
                    }
                memcpy(dout2 + (g0 + a) * dim, dout + (g0 + src) * dim, dim * sizeof(float));
            }
        }
        CHECK(repdl_embedding_backward_f32(dout2, ids2, n, vocab, dim, dt2) == REPDL_OK, "shuffle");
        CHECK_SAME(dt2, dt, vocab * dim, "shuffled positions vocab %zu dim %zu n %zu", vocab, dim, n);
    }
    free(ids); free(ids2); free(perm); free(table); free(out); free(want);
    free(dout); free(dout2); free(dt); free(dw); free(dt2);
}

/* ---- batch split: nodes of runs, combined ---- */

/* The nodes of units [u0, u1) of U, each the call on its positions. */
static size_t run_nodes(const float *dout, const int64_t *ids, size_t n, size_t vocab, size_t dim,
                        size_t U, size_t u0, size_t u1, float *nodes)
{
    size_t k = 0, u = u0, V = vocab * dim;
    while (u < u1) {
        size_t b = repdl_units_block_size(u, u1, U);
        size_t p0 = u * REPDL_MICROBATCH, p1 = (u + b) * REPDL_MICROBATCH;
        if (p1 > n) p1 = n;
        CHECK(repdl_embedding_backward_f32(dout + p0 * dim, ids + p0, p1 - p0, vocab, dim,
                                           nodes + k * V) == REPDL_OK, "node call");
        k++;
        u += b;
    }
    return k;
}

typedef struct {
    const float *dout;
    const int64_t *ids;
    size_t n, vocab, dim, U, u0, u1;
    float *nodes;
    float *mb; /* one micro-batch's value */
    int status;
} worker;

static void *work(void *arg)
{
    worker *w = (worker *)arg;
    repdl_units_state s;
    size_t u, V = w->vocab * w->dim;
    w->status = repdl_units_state_init(&s, w->U, w->u0, w->u1, V, w->nodes);
    if (w->status != REPDL_OK) return NULL;
    for (u = w->u0; u < w->u1 && w->status == REPDL_OK; u++) {
        size_t p0 = u * REPDL_MICROBATCH, p1 = p0 + REPDL_MICROBATCH;
        if (p1 > w->n) p1 = w->n;
        w->status = repdl_embedding_backward_f32(w->dout + p0 * w->dim, w->ids + p0, p1 - p0,
                                                 w->vocab, w->dim, w->mb);
        if (w->status == REPDL_OK) w->status = repdl_units_state_push(&s, w->mb);
    }
    repdl_units_state_free(&s);
    return NULL;
}

static void split_case(size_t vocab, size_t dim, size_t n)
{
    size_t V = vocab * dim, U = (n + REPDL_MICROBATCH - 1) / REPDL_MICROBATCH, i, P, T;
    int64_t *ids = (int64_t *)malloc((n ? n : 1) * sizeof(int64_t));
    float *dout = alloc_f(n * dim), *whole = alloc_f(V), *got = alloc_f(V);
    float *store = alloc_f((U + 1) * V + 1);
    if (!ids) abort();
    for (i = 0; i < n; i++) ids[i] = (int64_t)rnd(vocab);
    for (i = 0; i < n * dim; i++) dout[i] = rnd_value();
    CHECK(repdl_embedding_backward_f32(dout, ids, n, vocab, dim, whole) == REPDL_OK, "whole");
    /* runs at random bounds, nodes by calls */
    for (P = 1; P <= 4 && P <= U; P++) {
        size_t bounds[5], p, used = 0;
        const float *np[4];
        bounds[0] = 0;
        bounds[P] = U;
        for (p = 1; p < P; p++) bounds[p] = bounds[p - 1] + 1 + rnd(U - bounds[p - 1] - (P - p));
        for (p = 0; p < P; p++) {
            np[p] = store + used * V;
            used += run_nodes(dout, ids, n, vocab, dim, U, bounds[p], bounds[p + 1],
                              store + used * V);
        }
        fill_canary(got, V);
        CHECK(repdl_units_combine_f32(U, P, bounds, V, np, got) == REPDL_OK, "combine");
        CHECK_SAME(got, whole, V, "split into %zu runs, n %zu", P, n);
    }
    /* 1..4 threads, each a run of micro-batches pushed into a units state */
    for (T = 1; T <= 4 && T <= U; T++) {
        pthread_t th[4];
        worker w[4];
        size_t bounds[5], t, used = 0;
        const float *np[4];
        for (t = 0; t <= T; t++) bounds[t] = U * t / T;
        for (t = 0; t < T; t++) {
            size_t cnt = 0, u = bounds[t];
            while (u < bounds[t + 1]) {
                u += repdl_units_block_size(u, bounds[t + 1], U);
                cnt++;
            }
            w[t].dout = dout; w[t].ids = ids; w[t].n = n; w[t].vocab = vocab; w[t].dim = dim;
            w[t].U = U; w[t].u0 = bounds[t]; w[t].u1 = bounds[t + 1];
            w[t].nodes = store + used * V;
            w[t].mb = alloc_f(V);
            np[t] = w[t].nodes;
            used += cnt;
            if (pthread_create(&th[t], NULL, work, &w[t])) abort();
        }
        for (t = 0; t < T; t++) {
            pthread_join(th[t], NULL);
            CHECK(w[t].status == REPDL_OK, "thread %zu status %d", t, w[t].status);
            free(w[t].mb);
        }
        fill_canary(got, V);
        CHECK(repdl_units_combine_f32(U, T, bounds, V, np, got) == REPDL_OK, "combine threads");
        CHECK_SAME(got, whole, V, "%zu threads, n %zu", T, n);
    }
    free(ids); free(dout); free(whole); free(got); free(store);
}

/* ---- bad input ---- */

static void bad_input(void)
{
    float table[12], out[12], dout[12], dt[12];
    int64_t ids[4] = {0, 1, 2, 1};
    const int64_t bad[] = {-1, 3, INT64_MIN, INT64_MAX};
    size_t k, i;
    for (i = 0; i < 12; i++) table[i] = dout[i] = (float)i;
    for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        size_t dim;
        for (dim = 0; dim <= 3; dim += 3) {
            ids[2] = bad[k];
            fill_canary(out, 12);
            fill_canary(dt, 12);
            CHECK(repdl_embedding_forward_f32(table, 3, dim, ids, 4, out) == REPDL_ERR_INVALID,
                  "fwd id %lld", (long long)bad[k]);
            CHECK(repdl_embedding_backward_f32(dout, ids, 4, 3, dim, dt) == REPDL_ERR_INVALID,
                  "bwd id %lld", (long long)bad[k]);
            CHECK(untouched(out, 12) && untouched(dt, 12), "written on a bad id");
        }
    }
    ids[2] = 2;
    /* vocab 0 with ids: every id is out of range */
    CHECK(repdl_embedding_forward_f32(table, 0, 3, ids, 4, out) == REPDL_ERR_INVALID, "vocab 0");
    CHECK(repdl_embedding_backward_f32(dout, ids, 4, 0, 3, dt) == REPDL_ERR_INVALID, "vocab 0 bwd");
    /* NULL with a nonzero extent */
    fill_canary(out, 12);
    fill_canary(dt, 12);
    CHECK(repdl_embedding_forward_f32(NULL, 3, 3, ids, 4, out) == REPDL_ERR_INVALID, "NULL table");
    CHECK(repdl_embedding_forward_f32(table, 3, 3, NULL, 4, out) == REPDL_ERR_INVALID, "NULL ids");
    CHECK(repdl_embedding_forward_f32(table, 3, 3, ids, 4, NULL) == REPDL_ERR_INVALID, "NULL out");
    CHECK(repdl_embedding_backward_f32(NULL, ids, 4, 3, 3, dt) == REPDL_ERR_INVALID, "NULL dout");
    CHECK(repdl_embedding_backward_f32(dout, NULL, 4, 3, 3, dt) == REPDL_ERR_INVALID, "NULL ids b");
    CHECK(repdl_embedding_backward_f32(dout, ids, 4, 3, 3, NULL) == REPDL_ERR_INVALID, "NULL dt");
    CHECK(untouched(out, 12) && untouched(dt, 12), "written on NULL");
    /* NULL with zero extents */
    CHECK(repdl_embedding_forward_f32(NULL, 0, 3, NULL, 0, NULL) == REPDL_OK, "all empty");
    CHECK(repdl_embedding_forward_f32(NULL, 3, 0, ids, 4, NULL) == REPDL_OK, "dim 0");
    CHECK(repdl_embedding_backward_f32(NULL, ids, 4, 3, 0, NULL) == REPDL_OK, "dim 0 bwd");
    CHECK(repdl_embedding_backward_f32(NULL, NULL, 0, 0, 3, NULL) == REPDL_OK, "vocab 0 n 0");
    /* n == 0: dtable all +0 */
    fill_canary(dt, 12);
    CHECK(repdl_embedding_backward_f32(NULL, NULL, 0, 4, 3, dt) == REPDL_OK, "n 0");
    for (i = 0; i < 12; i++) CHECK_BITS(dt[i], 0.0f, "n 0: dtable[%zu]", i);
    /* overflow: vocab dim or n dim floats beyond size_t bytes */
    fill_canary(out, 12);
    CHECK(repdl_embedding_forward_f32(table, (size_t)1 << 62, 4, ids, 1, out) == REPDL_ERR_OVERFLOW,
          "vocab dim overflow");
    CHECK(repdl_embedding_forward_f32(table, 3, (size_t)1 << 62, ids, 4, out) == REPDL_ERR_OVERFLOW,
          "n dim overflow");
    CHECK(repdl_embedding_backward_f32(dout, ids, 4, (size_t)1 << 62, 4, dt) == REPDL_ERR_OVERFLOW,
          "bwd overflow");
    CHECK(untouched(out, 12), "written on overflow");
    /* no memory: REPDL_ERR_NOMEM, nothing written; then the full bits */
    {
        float want[12];
        CHECK(repdl_embedding_backward_f32(dout, ids, 4, 3, 3, want) == REPDL_OK, "with memory");
        fill_canary(dt, 12);
        oom_at = oom_calls;
        CHECK(repdl_embedding_backward_f32(dout, ids, 4, 3, 3, dt) == REPDL_ERR_NOMEM, "nomem");
        oom_at = -1;
        CHECK(untouched(dt, 12), "written without memory");
        CHECK(repdl_embedding_backward_f32(dout, ids, 4, 3, 3, dt) == REPDL_OK, "after nomem");
        CHECK_SAME(dt, want, 9, "after nomem");
    }
}

/* Flush-to-zero set: both passes REPDL_ERR_FPENV, nothing written. */
static void fpenv(void)
{
#if defined(__x86_64__) || defined(_M_X64)
    float table[6] = {1, 2, 3, 4, 5, 6}, out[6], dt[6];
    int64_t ids[2] = {1, 0};
    unsigned csr = _mm_getcsr();
    int a, b;
    fill_canary(out, 6);
    fill_canary(dt, 6);
    _mm_setcsr(csr | 0x8000u); /* FTZ */
    a = repdl_embedding_forward_f32(table, 3, 2, ids, 2, out);
    b = repdl_embedding_backward_f32(table, ids, 2, 3, 2, dt);
    _mm_setcsr(csr);
    CHECK(a == REPDL_ERR_FPENV && b == REPDL_ERR_FPENV, "FTZ: %d %d", a, b);
    CHECK(untouched(out, 6) && untouched(dt, 6), "written under FTZ");
#endif
}

int main(void)
{
    static const size_t ns[] = {0, 1, 2, 5, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 100,
                                127, 128, 129, 255, 257, 1000};
    static const size_t vocabs[] = {1, 2, 3, 7, 50};
    static const size_t dims[] = {0, 1, 3, 17};
    size_t a, b, c;
    splitmix64_seed(&rng, 0x656d62u);
    for (a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (b = 0; b < sizeof vocabs / sizeof vocabs[0]; b++)
            for (c = 0; c < sizeof dims / sizeof dims[0]; c++) {
                one_case(vocabs[b], dims[c], ns[a], 0);
                one_case(vocabs[b], dims[c], ns[a], 1);
            }
    for (a = 0; a < sizeof ns / sizeof ns[0]; a++) {
        split_case(3, 5, ns[a]);
        split_case(50, 2, ns[a]);
    }
    split_case(7, 3, 16 * 37 + 5);
    bad_input();
    fpenv();
    return check_summary("embedding");
}
