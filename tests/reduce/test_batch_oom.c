/* SPDX-License-Identifier: MIT */
/* tests/reduce/test_batch_oom.c: the out-of-memory rule of the batch order
   (detail/accum.h, docs/canonical-order.md "The batch order"), for every
   function whose batch-order tree or workspace is on the heap: linear,
   layer and RMS norm backward, conv2d forward and backward (serial and
   threaded: conv2d_threads.h takes every thread's workspace before it
   starts one), and reduce_units.h's node vectors and combine.

   The rule: a function that cannot have its scratch returns
   REPDL_ERR_NOMEM having written no output; on success its bits are those
   of a call that had all the memory it asked for.

   The heap scratch of the batch order is taken through REPDL__ALLOC,
   defined here before the first include as a counting allocator that fails
   on demand.  Each case is first run with every allocation granted (the
   reference bits, A allocations); then for k = 0 .. A-1, twice: only the
   k-th allocation refused, and every allocation from the k-th on refused,
   each time on outputs filled with a sentinel.  Each such call must either
   return REPDL_ERR_NOMEM with every output byte still the sentinel, or
   return REPDL_OK with the reference bits; a call whose every allocation
   is refused (k = 0, all from k) must be REPDL_ERR_NOMEM (none of these
   functions has a path without the heap once a tree is needed: more than
   REPDL_MICROBATCH samples). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/oom_alloc.h" /* REPDL__ALLOC: fails on demand */
/* threads for these small shapes too */
#define REPDL_CONV_THREADS_MIN 0.0

#include <repdl/conv2d.h>
#include <repdl/conv2d_threads.h>
#include <repdl/linear.h>
#include <repdl/norm.h>
#include <repdl/reduce_units.h>

#include "../common/check.h"
#include "../common/splitmix64.h"

#define MAXOUT 4

/* A case: its inputs, up to MAXOUT outputs of the given sizes, a run. */
typedef struct oom_case {
    const char *name;
    int variant;
    size_t nout, len[MAXOUT];
    float *out[MAXOUT];
    repdl_status (*run)(const struct oom_case *c);
} oom_case;

static float *in_a, *in_b, *in_c, *in_d, *in_e;

/* ---- the calls (sizes: more than one micro-batch, G = 3 to 17) ---- */

/* linear: 17 micro-batches (dW's tile trees hold 16 in registers; past
   that their groups' nodes go to the heap tree, as db's micro-batches) */
enum { LM = 264, LK = 5, LN = 7 };
static repdl_status run_linear(const oom_case *c)
{
    /* variant: 0 dx dW db, 1 dW, 2 db, 3 dW db */
    float *dx = c->variant == 0 ? c->out[0] : NULL;
    float *dW = c->variant == 0 ? c->out[1] : c->variant == 1 || c->variant == 3 ? c->out[0] : NULL;
    float *db = c->variant == 0 ? c->out[2] : c->variant == 2 ? c->out[0] : c->variant == 3 ? c->out[1] : NULL;
    return repdl_linear_backward_f32(LM, LK, LN, in_a, in_b, in_c, dx, dW, db);
}

enum { NR = 70, NC = 600 }; /* two column strips of norm.h */
static repdl_status run_layer_norm(const oom_case *c)
{
    /* variant: 0 dx dgamma dbeta (the fused pass), 1 dgamma dbeta, 2 dbeta,
       3 dx dbeta */
    float *dx = c->variant == 0 || c->variant == 3 ? c->out[0] : NULL;
    float *dg = c->variant == 0 ? c->out[1] : c->variant == 1 ? c->out[0] : NULL;
    float *dbt = c->variant == 0 ? c->out[2] : c->variant == 1 ? c->out[1] : c->out[c->variant == 3];
    return repdl_layer_norm_backward_f32(NR, NC, in_a, in_b, in_d, in_e, in_c, dx, dg, dbt);
}

static repdl_status run_rms_norm(const oom_case *c)
{
    /* variant: 0 dx dgamma, 1 dgamma */
    float *dx = c->variant == 0 ? c->out[0] : NULL;
    float *dg = c->out[c->variant == 0];
    return repdl_rms_norm_backward_f32(NR, NC, in_a, in_b, in_e, in_c, dx, dg);
}

static repdl_conv2d_shape conv_shape(int variant)
{
    repdl_conv2d_shape s;
    s.n = 40; s.c = 2; s.h = 7; s.w = 6; s.oc = 3; s.kh = 3; s.kw = 2;
    s.stride_h = variant == 1 ? 2 : 1; s.stride_w = 1; s.pad_h = 1; s.pad_w = 1;
    s.dil_h = 1; s.dil_w = 1;
    return s;
}

static repdl_status run_conv_fwd(const oom_case *c)
{
    repdl_conv2d_shape s = conv_shape(c->variant);
    return repdl_conv2d_forward_f32(&s, in_a, in_b, in_d, c->out[0]);
}

static repdl_status run_conv_bwd(const oom_case *c)
{
    /* variant 0, 1: dx dw db (two shapes), 2: dw db, 3: db, 4: dx dw */
    repdl_conv2d_shape s = conv_shape(c->variant == 1);
    float *dx = c->variant <= 1 || c->variant == 4 ? c->out[0] : NULL;
    float *dw = c->variant <= 1 ? c->out[1] : c->variant == 2 ? c->out[0] : c->variant == 4 ? c->out[1] : NULL;
    float *db = c->variant <= 1 ? c->out[2] : c->variant == 2 ? c->out[1] : c->variant == 3 ? c->out[0] : NULL;
    return repdl_conv2d_backward_f32(&s, in_a, in_b, in_c, dx, dw, db);
}

/* threaded: variant v = T - 2 + 3 b (T = 2, 3, 4 threads), b: 0 n = 40
   (G = 3: leaves on threads), 1 n = 10 (one micro-batch: dx by images,
   dw and db by channels), 2 n = 40 with dw db only */
static repdl_conv2d_shape conv_thr_shape(int variant)
{
    repdl_conv2d_shape s = conv_shape(0);
    s.oc = 9;
    if (variant / 3 == 1) s.n = 10;
    return s;
}

static repdl_status run_conv_bwd_thr(const oom_case *c)
{
    repdl_conv2d_shape s = conv_thr_shape(c->variant);
    int T = c->variant % 3 + 2;
    if (c->variant / 3 == 2)
        return repdl_conv2d_backward_threads_f32(&s, T, in_a, in_b, in_c, NULL, c->out[0], c->out[1]);
    return repdl_conv2d_backward_threads_f32(&s, T, in_a, in_b, in_c, c->out[0], c->out[1],
                                             c->out[2]);
}

enum { UU = 37, UV = 300 };
static repdl_status run_conv_fwd_thr(const oom_case *c)
{
    /* variant: T = 2, 3; b = 0: n = 40 (by images), 1: n = 1, oc = 20 (by channels) */
    repdl_conv2d_shape s = conv_shape(c->variant & 1);
    if (c->variant >= 4) {
        s.n = 1;
        s.oc = 20;
    }
    return repdl_conv2d_forward_threads_f32(&s, (c->variant >> 1 & 1) + 2, in_a, in_b, in_d,
                                            c->out[0]);
}

static repdl_status run_units_nodes(const oom_case *c)
{
    /* variant: the range [u0, 37), u0 = 0 or 5 */
    size_t u0 = c->variant ? 5 : 0;
    return repdl_units_nodes_f32(UU, u0, UU, UV, in_a + u0 * UV, UV, c->out[0]);
}

static repdl_status run_units_combine(const oom_case *c)
{
    static const size_t bounds[4] = {0, 5, 20, UU};
    const float *nodes[3];
    nodes[0] = in_b;
    nodes[1] = in_b + 8 * UV;
    nodes[2] = in_b + 16 * UV;
    (void)c;
    return repdl_units_combine_f32(UU, 3, bounds, UV, nodes, c->out[0]);
}

/* ---- the rule ---- */

static void fill_sentinel(const oom_case *c)
{
    size_t i;
    for (i = 0; i < c->nout; i++) memset(c->out[i], 0xa5, c->len[i] * sizeof(float));
}

static int is_sentinel(const oom_case *c)
{
    size_t i, j;
    for (i = 0; i < c->nout; i++)
        for (j = 0; j < c->len[i] * sizeof(float); j++)
            if (((const unsigned char *)c->out[i])[j] != 0xa5) return 0;
    return 1;
}

static int same_as(const oom_case *c, float *const *ref)
{
    size_t i;
    for (i = 0; i < c->nout; i++)
        if (check_first_diff(c->out[i], ref[i], c->len[i]) >= 0) return 0;
    return 1;
}

static void check_case(oom_case *c)
{
    float *ref[MAXOUT];
    long A, k;
    int from;
    size_t i;
    repdl_status st;
    fill_sentinel(c);
    oom_at = -1;
    oom_calls = 0;
    st = c->run(c);
    A = oom_calls;
    if (check_failed(st == REPDL_OK && A >= 1))
        printf("FAIL %s/%d: unlimited memory: status %d, %ld allocations\n", c->name, c->variant,
               (int)st, A);
    for (i = 0; i < c->nout; i++) {
        ref[i] = (float *)malloc(c->len[i] * sizeof(float));
        memcpy(ref[i], c->out[i], c->len[i] * sizeof(float));
    }
    for (from = 0; from < 2; from++)
        for (k = 0; k < A; k++) {
            int nomem, ok;
            fill_sentinel(c);
            oom_at = k;
            oom_from = from;
            oom_calls = 0;
            st = c->run(c);
            oom_at = -1;
            nomem = st == REPDL_ERR_NOMEM && is_sentinel(c);
            ok = st == REPDL_OK && same_as(c, ref);
            if (check_failed(nomem || ok))
                printf("FAIL %s/%d: allocation %ld%s refused: status %d, outputs %s\n", c->name,
                       c->variant, k, from ? " on" : "", (int)st,
                       st == REPDL_OK ? "differ from the reference" : "written");
            if (from && k == 0 && check_failed(nomem))
                printf("FAIL %s/%d: no memory at all: status %d (want REPDL_ERR_NOMEM, nothing "
                       "written)\n", c->name, c->variant, (int)st);
        }
    for (i = 0; i < c->nout; i++) free(ref[i]);
}

static float *rnd(size_t n, splitmix64 *r)
{
    float *p = (float *)malloc(n * sizeof(float));
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = (float)((double)(splitmix64_next(r) >> 40) / (double)(1 << 24)) - 0.5f;
    return p;
}

int main(void)
{
    splitmix64 seed;
    size_t big = 40 * 2 * 7 * 6 + NR * NC + UU * UV;
    float *o[MAXOUT];
    int v, i;
    splitmix64_seed(&seed, 29);
    in_a = rnd(big, &seed);
    in_b = rnd(big, &seed);
    in_c = rnd(big, &seed);
    in_d = rnd(big, &seed);
    in_e = rnd(big, &seed);
    for (i = 0; i < NR; i++) in_e[i] = 1.0f + in_e[i]; /* rstd > 0 */
    for (i = 0; i < MAXOUT; i++) o[i] = (float *)malloc(big * sizeof(float));

    for (v = 0; v < 4; v++) {
        oom_case c = {"linear_backward", v, 0, {0}, {o[0], o[1], o[2], o[3]}, run_linear};
        if (v == 0) { c.nout = 3; c.len[0] = LM * LK; c.len[1] = LN * LK; c.len[2] = LN; }
        else if (v == 1) { c.nout = 1; c.len[0] = LN * LK; }
        else if (v == 2) { c.nout = 1; c.len[0] = LN; }
        else { c.nout = 2; c.len[0] = LN * LK; c.len[1] = LN; }
        check_case(&c);
    }
    for (v = 0; v < 4; v++) {
        oom_case c = {"layer_norm_backward", v, 0, {0}, {o[0], o[1], o[2], o[3]}, run_layer_norm};
        if (v == 0) { c.nout = 3; c.len[0] = NR * NC; c.len[1] = NC; c.len[2] = NC; }
        else if (v == 1) { c.nout = 2; c.len[0] = NC; c.len[1] = NC; }
        else if (v == 2) { c.nout = 1; c.len[0] = NC; }
        else { c.nout = 2; c.len[0] = NR * NC; c.len[1] = NC; }
        check_case(&c);
    }
    for (v = 0; v < 2; v++) {
        oom_case c = {"rms_norm_backward", v, 0, {0}, {o[0], o[1], o[2], o[3]}, run_rms_norm};
        if (v == 0) { c.nout = 2; c.len[0] = NR * NC; c.len[1] = NC; }
        else { c.nout = 1; c.len[0] = NC; }
        check_case(&c);
    }
    for (v = 0; v < 2; v++) {
        repdl_conv2d_shape s = conv_shape(v);
        oom_case c = {"conv2d_forward", v, 1, {0}, {o[0], o[1], o[2], o[3]}, run_conv_fwd};
        c.len[0] = s.n * s.oc * repdl_conv2d_out_h(&s) * repdl_conv2d_out_w(&s);
        check_case(&c);
    }
    for (v = 0; v < 5; v++) {
        repdl_conv2d_shape s = conv_shape(v == 1);
        size_t dx = s.n * s.c * s.h * s.w, dw = s.oc * s.c * s.kh * s.kw, db = s.oc;
        oom_case c = {"conv2d_backward", v, 0, {0}, {o[0], o[1], o[2], o[3]}, run_conv_bwd};
        if (v <= 1) { c.nout = 3; c.len[0] = dx; c.len[1] = dw; c.len[2] = db; }
        else if (v == 2) { c.nout = 2; c.len[0] = dw; c.len[1] = db; }
        else if (v == 3) { c.nout = 1; c.len[0] = db; }
        else { c.nout = 2; c.len[0] = dx; c.len[1] = dw; }
        check_case(&c);
    }
    for (v = 0; v < 8; v++) {
        repdl_conv2d_shape s = conv_shape(v & 1);
        oom_case c = {"conv2d_forward_threads", v, 1, {0}, {o[0], o[1], o[2], o[3]},
                      run_conv_fwd_thr};
        if (v >= 4) {
            s.n = 1;
            s.oc = 20;
        }
        c.len[0] = s.n * s.oc * repdl_conv2d_out_h(&s) * repdl_conv2d_out_w(&s);
        check_case(&c);
    }
    for (v = 0; v < 9; v++) {
        repdl_conv2d_shape s = conv_thr_shape(v);
        size_t dx = s.n * s.c * s.h * s.w, dw = s.oc * s.c * s.kh * s.kw, db = s.oc;
        oom_case c = {"conv2d_backward_threads", v, 3, {dx, dw, db}, {o[0], o[1], o[2], o[3]},
                      run_conv_bwd_thr};
        if (v / 3 == 2) { c.nout = 2; c.len[0] = dw; c.len[1] = db; }
        check_case(&c);
    }
    for (v = 0; v < 2; v++) {
        oom_case c = {"units_nodes", v, 1, {0}, {o[0], o[1], o[2], o[3]}, run_units_nodes};
        c.len[0] = repdl_units_nodes(UU, v ? 5 : 0, UU, 0, NULL) * UV;
        check_case(&c);
    }
    {
        oom_case c = {"units_combine", 0, 1, {UV}, {o[0], o[1], o[2], o[3]}, run_units_combine};
        check_case(&c);
    }
    for (i = 0; i < MAXOUT; i++) free(o[i]);
    free(in_a);
    free(in_b);
    free(in_c);
    free(in_d);
    free(in_e);
    return check_summary("batch_oom");
}
