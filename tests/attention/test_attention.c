/* SPDX-License-Identifier: MIT */
/* tests/attention/test_attention.c: attention.h and attention_threads.h.

   - reference: forward (out, lse) and backward (dq, dk, dv) against
     reference/attention_ref.h, bit for bit, over shapes that cover grouped
     heads, causal offsets, key strides, additive and -inf masks, key
     padding, one and several leaves over keys, over queries and over the
     head dimension, nk = 0, nq = 0, NaN and infinite scores, -0 inputs;
   - threads: 1 .. 4 threads give the bits of the plain call;
   - scores: the _scores forms save the reference's scores and give the
     plain forms' bits (plain and threaded), and the backward reads them;
   - chunks: a prompt's queries in one call or in chunks of 1, 7 and 32
     (with all keys, and with only the keys seen so far);
   - cache: appending a token (or 7) at a time and attending gives the
     rows of the whole forward;
   - batch: 8 prompts of different lengths, right-padded with NaN keys and
     values, give each prompt's bits alone (forward; backward with the
     padded query rows masked);
   - a -inf mask entry and a key_keep 0 give the same bits;
   - finite differences in double: the backward's formulas (a tolerance,
     the one place);
   - bad input: status, nothing written; empty extents;
   - the exp kernel of the ISA the build runs (AVX-512F, AVX2 or the
     portable lane) against repdl_exp_f32: every 4093rd binary32, the
     thresholds of exp.h's lane, its hard cases (against their MPFR
     results), rows with a subtrahend and unseen keys. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* every thread count asked for, whatever the work (attention_threads.h's
   grain would run these small shapes on one thread) */
#define REPDL_ATTENTION_GRAIN 0
#include <repdl/attention_threads.h>

#include "../common/bits.h"
#include "../common/check.h"
#include "../common/splitmix64.h"
#include "attention_ref.h"

static splitmix64 rng;

static float rnd(void) /* in [-2, 2), 24 random bits */
{
    return (float)(splitmix64_next(&rng) >> 40) * (4.0f / 16777216.0f) - 2.0f;
}

static float *falloc(size_t n)
{
    float *p = (float *)malloc((n ? n : 1) * sizeof(float));
    if (!p) abort();
    return p;
}

static void fill(float *x, size_t n, int zeros)
{
    size_t i;
    for (i = 0; i < n; i++) {
        x[i] = rnd();
        if (zeros && splitmix64_next(&rng) % 16 == 0) x[i] = -0.0f;
    }
}

/* One problem: the arrays of a shape, filled. */
typedef struct prob {
    repdl_attention_shape s;
    size_t nrows, nkv, nmask;
    float scale, *q, *k, *v, *mask, *dout;
    unsigned char *keep;
} prob;

/* mask_kind: 0 none; 1 finite with -inf (1/8) and -1e30 (1/8) entries;
   2 as 1 plus one +inf entry.  keep_kind: 0 none; 1 about 1/6 padding. */
static void prob_make(prob *p, repdl_attention_shape s, int mask_kind, int keep_kind)
{
    size_t R = s.kv_stride ? s.kv_stride : s.nk, i;
    p->s = s;
    p->nrows = s.batch * s.hq * s.nq;
    p->nkv = s.batch * s.hkv * R;
    p->nmask = s.batch * s.nq * s.nk;
    p->scale = 0.35f;
    p->q = falloc(p->nrows * s.d);
    p->dout = falloc(p->nrows * s.d);
    p->k = falloc(p->nkv * s.d);
    p->v = falloc(p->nkv * s.d);
    fill(p->q, p->nrows * s.d, 1);
    fill(p->dout, p->nrows * s.d, 1);
    fill(p->k, p->nkv * s.d, 1);
    fill(p->v, p->nkv * s.d, 1);
    p->mask = NULL;
    p->keep = NULL;
    if (mask_kind) {
        p->mask = falloc(p->nmask);
        for (i = 0; i < p->nmask; i++) {
            unsigned r = (unsigned)(splitmix64_next(&rng) % 8);
            p->mask[i] = r == 0 ? -INFINITY : r == 1 ? -1e30f : rnd();
        }
        if (mask_kind == 2 && p->nmask) p->mask[p->nmask / 2] = INFINITY;
    }
    if (keep_kind) {
        p->keep = (unsigned char *)malloc(s.batch * s.nk + 1);
        for (i = 0; i < s.batch * s.nk; i++)
            p->keep[i] = (unsigned char)(splitmix64_next(&rng) % 6 != 0 ? 1 + i % 3 : 0);
    }
}

static void prob_free(prob *p)
{
    free(p->q);
    free(p->k);
    free(p->v);
    free(p->dout);
    free(p->mask);
    free(p->keep);
}

static ref_attn_shape ref_shape(const repdl_attention_shape *s)
{
    ref_attn_shape r;
    r.batch = s->batch;
    r.hq = s->hq;
    r.hkv = s->hkv;
    r.nq = s->nq;
    r.nk = s->nk;
    r.d = s->d;
    r.q_pos0 = s->q_pos0;
    r.R = s->kv_stride ? s->kv_stride : s->nk;
    r.causal = s->causal;
    return r;
}

/* The _scores forms (attention.h, "Saved scores") against the plain ones
   (out, lse, dq, dk, dv of p, from check_ref), plain and at 1 .. 3
   threads: the saved scores are the reference's s_ij where key j is seen
   (a NaN as 0x7fc00000) and -inf elsewhere, up to nk; the forward's out
   and lse and the backward's dq, dk, dv from them are the plain forms'
   bits; and the backward reads them (a row's largest saved score made
   larger changes dq, dk or dv). */
static void check_scores(const char *name, const prob *p, const float *out, const float *lse,
                         const float *dq, const float *dk, const float *dv)
{
    const repdl_attention_shape *s = &p->s;
    ref_attn_shape rs = ref_shape(s);
    size_t d = s->d, nq = p->nrows * d, nkv = p->nkv * d, ns = p->nrows * s->nk, b, hh, i, j, at;
    float *sc = falloc(ns + 1), *want = falloc(ns + 1), *o = falloc(nq), *l = falloc(p->nrows),
          *gq = falloc(nq), *gk = falloc(nkv), *gv = falloc(nkv);
    int T;
    for (b = 0, at = 0; b < s->batch; b++)
        for (hh = 0; hh < s->hq; hh++)
            for (i = 0; i < s->nq; i++)
                for (j = 0; j < s->nk; j++, at++) {
                    float x = ref_attn_score(&rs, p->scale, p->q, p->k, p->mask, b, hh, i, j);
                    want[at] = !ref_attn_seen(&rs, p->mask, p->keep, b, i, j) ? -INFINITY
                               : x != x                                     ? asfloat(0x7fc00000u)
                                                                             : x;
                }
    for (T = 0; T <= 3; T++) { /* 0: the plain _scores forms */
        memset(sc, 0x5a, (ns + 1) * sizeof(float));
        memcpy(gk, dk, nkv * sizeof(float)); /* rows nk .. R-1: as the plain call left them */
        memcpy(gv, dv, nkv * sizeof(float));
        CHECK((T ? repdl_attention_forward_scores_threads_f32(s, T, p->scale, p->q, p->k, p->v, p->mask,
                                                              p->keep, o, l, sc)
                 : repdl_attention_forward_scores_f32(s, p->scale, p->q, p->k, p->v, p->mask, p->keep, o,
                                                      l, sc)) == REPDL_OK,
              "%s: forward scores status (threads %d)", name, T);
        CHECK_SAME(o, out, nq, "%s: out with scores saved (threads %d)", name, T);
        CHECK_SAME(l, lse, p->nrows, "%s: lse with scores saved (threads %d)", name, T);
        CHECK_SAME(sc, want, ns, "%s: saved scores vs reference (threads %d)", name, T);
        CHECK(asuint(sc[ns]) == 0x5a5a5a5au, "%s: saved scores: wrote past the end", name);
        CHECK((T ? repdl_attention_backward_scores_threads_f32(s, T, p->scale, p->q, p->k, p->v, p->mask,
                                                               p->keep, out, lse, sc, p->dout, gq, gk, gv)
                 : repdl_attention_backward_scores_f32(s, p->scale, p->q, p->k, p->v, p->mask, p->keep, out,
                                                       lse, sc, p->dout, gq, gk, gv)) == REPDL_OK,
              "%s: backward scores status (threads %d)", name, T);
        CHECK_SAME(gq, dq, nq, "%s: dq from saved scores (threads %d)", name, T);
        CHECK_SAME(gk, dk, nkv, "%s: dk from saved scores (threads %d)", name, T);
        CHECK_SAME(gv, dv, nkv, "%s: dv from saved scores (threads %d)", name, T);
    }
    /* the backward reads the scores: the largest seen score of the first
       row with a finite lse and a nonzero dout, made larger by 1: its P
       grows from at least 1 / nk (exp(s - lse) at the row's max), so its
       dS and P change, and with them dq, dk or dv */
    for (i = 0, at = ns; i < p->nrows && at == ns && s->nk; i++) {
        size_t c, best = ns;
        int g = 0;
        for (c = 0; c < d; c++) g |= p->dout[i * d + c] != 0.0f && p->dout[i * d + c] == p->dout[i * d + c];
        if (!g || !(lse[i] > -1e30f && lse[i] < 1e30f)) continue;
        for (j = 0; j < s->nk; j++) {
            float x = sc[i * s->nk + j];
            if (x > -1e30f && x < 1e30f && (best == ns || x > sc[best])) best = i * s->nk + j;
        }
        at = best;
    }
    if (at < ns) {
        int same;
        sc[at] = sc[at] + 1.0f;
        CHECK(repdl_attention_backward_scores_f32(s, p->scale, p->q, p->k, p->v, p->mask, p->keep, out, lse,
                                                  sc, p->dout, gq, gk, gv) == REPDL_OK,
              "%s: backward, changed score: status", name);
        same = !memcmp(gq, dq, nq * sizeof(float)) && !memcmp(gk, dk, nkv * sizeof(float)) &&
               !memcmp(gv, dv, nkv * sizeof(float));
        CHECK(!same, "%s: the backward ignored a changed saved score", name);
    }
    free(sc); free(want); free(o); free(l); free(gq); free(gk); free(gv);
}

/* Forward and backward against the reference, and the threaded forms
   against the plain ones.  specials: 0 none; 1 a NaN query; 2 zero rows of
   dout and infinities in a query, a key and a value (where a causal row
   or key does not look). */
static void check_ref(const char *name, repdl_attention_shape s, int mask_kind, int keep_kind,
                      int specials)
{
    prob p;
    ref_attn_shape rs = ref_shape(&s);
    size_t nq = 0, nkv, d = s.d;
    float *out, *lse, *rout, *rlse, *dq, *dk, *dv, *rdq, *rdk, *rdv, *t1, *t2, *t3, *t4;
    int T;
    prob_make(&p, s, mask_kind, keep_kind);
    if (specials == 1 && p.nrows) p.q[d * (p.nrows / 2)] = NAN;
    if (specials == 2) {
        size_t i, c, R = s.kv_stride ? s.kv_stride : s.nk;
        for (i = 0; i < p.nrows; i++)
            for (c = 0; c < d; c++) {
                if (i % 5 == 1) p.dout[i * d + c] = -0.0f; /* ds all +-0: dq sums of zeros */
                if (i % 7 == 3) p.dout[i * d + c] = 0.0f;
            }
        for (i = 0; i < p.nrows; i += s.nq) p.q[i * d + 1] = INFINITY; /* query 0 of each head */
        for (i = 0; s.nk && i < p.nkv; i += R) p.k[(i + s.nk - 1) * d] = INFINITY; /* the last key */
        for (i = 0; s.nk > 2 && i < p.nkv; i += R) p.v[(i + s.nk - 2) * d + 2] = -INFINITY;
    }
    nq = p.nrows * d;
    nkv = p.nkv * d;
    out = falloc(nq); lse = falloc(p.nrows); rout = falloc(nq); rlse = falloc(p.nrows);
    dq = falloc(nq); dk = falloc(nkv); dv = falloc(nkv);
    rdq = falloc(nq); rdk = falloc(nkv); rdv = falloc(nkv);
    t1 = falloc(nq); t2 = falloc(p.nrows); t3 = falloc(nkv); t4 = falloc(nkv);
    /* rows nk .. R-1 of dk, dv: never written */
    memset(dk, 0x5a, nkv * sizeof(float)); memcpy(rdk, dk, nkv * sizeof(float));
    memset(dv, 0x5a, nkv * sizeof(float)); memcpy(rdv, dv, nkv * sizeof(float));
    CHECK(repdl_attention_forward_f32(&s, p.scale, p.q, p.k, p.v, p.mask, p.keep, out, lse) ==
              REPDL_OK, "%s: forward status", name);
    ref_attention_forward(&rs, p.scale, p.q, p.k, p.v, p.mask, p.keep, rout, rlse);
    CHECK_SAME(out, rout, nq, "%s: out vs reference", name);
    CHECK_SAME(lse, rlse, p.nrows, "%s: lse vs reference", name);
    CHECK(repdl_attention_backward_f32(&s, p.scale, p.q, p.k, p.v, p.mask, p.keep, out, lse,
                                       p.dout, dq, dk, dv) == REPDL_OK,
          "%s: backward status", name);
    ref_attention_backward(&rs, p.scale, p.q, p.k, p.v, p.mask, p.keep, out, lse, p.dout, rdq,
                           rdk, rdv);
    CHECK_SAME(dq, rdq, nq, "%s: dq vs reference", name);
    CHECK_SAME(dk, rdk, nkv, "%s: dk vs reference", name);
    CHECK_SAME(dv, rdv, nkv, "%s: dv vs reference", name);
    for (T = 1; T <= 4; T++) {
        memcpy(t3, rdk, nkv * sizeof(float));
        memcpy(t4, rdv, nkv * sizeof(float));
        CHECK(repdl_attention_forward_threads_f32(&s, T, p.scale, p.q, p.k, p.v, p.mask, p.keep,
                                                  t1, t2) == REPDL_OK,
              "%s: threads %d status", name, T);
        CHECK_SAME(t1, out, nq, "%s: out, %d threads", name, T);
        CHECK_SAME(t2, lse, p.nrows, "%s: lse, %d threads", name, T);
        CHECK(repdl_attention_backward_threads_f32(&s, T, p.scale, p.q, p.k, p.v, p.mask,
                                                   p.keep, out, lse, p.dout, t1, t3,
                                                   t4) == REPDL_OK,
              "%s: backward threads %d status", name, T);
        CHECK_SAME(t1, dq, nq, "%s: dq, %d threads", name, T);
        CHECK_SAME(t3, dk, nkv, "%s: dk, %d threads", name, T);
        CHECK_SAME(t4, dv, nkv, "%s: dv, %d threads", name, T);
    }
    check_scores(name, &p, out, lse, dq, dk, dv);
    free(out); free(lse); free(rout); free(rlse); free(dq); free(dk); free(dv);
    free(rdq); free(rdk); free(rdv); free(t1); free(t2); free(t3); free(t4);
    prob_free(&p);
}

static repdl_attention_shape shp(size_t batch, size_t hq, size_t hkv, size_t nq, size_t nk,
                                 size_t d, size_t q_pos0, size_t kv_stride, int causal)
{
    repdl_attention_shape s;
    s.batch = batch; s.hq = hq; s.hkv = hkv; s.nq = nq; s.nk = nk; s.d = d;
    s.q_pos0 = q_pos0; s.kv_stride = kv_stride; s.causal = causal;
    return s;
}

static void test_reference(void)
{
    check_ref("small causal", shp(1, 1, 1, 5, 5, 8, 0, 0, 1), 0, 0, 0);
    check_ref("gqa mask keep stride", shp(2, 4, 2, 7, 9, 16, 2, 12, 1), 1, 1, 0);
    check_ref("mqa offset d64", shp(1, 4, 1, 3, 40, 64, 37, 0, 1), 0, 0, 0);
    check_ref("noncausal d3 mask nan q", shp(2, 2, 2, 6, 6, 3, 0, 0, 0), 1, 0, 1);
    check_ref("inf mask", shp(1, 2, 2, 5, 7, 4, 0, 0, 0), 2, 1, 0);
    /* one query head a kv head, keys past the first 16 with holes in
       their seen rows (a -inf mask entry after a seen row: such a key is
       summed alone, after the others of its 4, whose dS and P columns its
       own packing would overwrite: their dk and dv would be other keys'
       sums) */
    check_ref("G 1 mask holes 48 keys", shp(1, 1, 1, 8, 48, 16, 0, 0, 0), 1, 0, 0);
    check_ref("G 1 mask keep holes causal", shp(2, 2, 2, 8, 48, 32, 40, 0, 1), 1, 1, 0);
    check_ref("two leaves of keys", shp(1, 2, 1, 2, 1100, 64, 1098, 0, 1), 0, 1, 0);
    check_ref("d 130", shp(1, 3, 3, 4, 20, 130, 16, 0, 1), 1, 0, 0);
    check_ref("three leaves of keys", shp(1, 1, 1, 1, 3000, 5, 2999, 3001, 1), 0, 1, 0);
    check_ref("nk 0", shp(1, 2, 2, 3, 0, 4, 0, 0, 0), 0, 0, 0);
    check_ref("nq 0", shp(1, 2, 1, 0, 5, 4, 0, 0, 0), 0, 0, 0);
    check_ref("d 2000", shp(1, 1, 1, 3, 3, 2000, 0, 0, 1), 0, 0, 0);
    check_ref("8 heads mask keep", shp(2, 8, 2, 33, 33, 64, 0, 0, 1), 1, 1, 0);
    check_ref("group rows over a leaf", shp(1, 6, 3, 600, 3, 4, 0, 0, 0), 1, 0, 0);
    /* every causal key count 1 .. 300, d 48: attention.h's vector leaves
       (rows of one head 4 at a time, 1 to 8 rows a lane) */
    check_ref("causal 300 d48", shp(1, 2, 1, 300, 300, 48, 0, 0, 1), 0, 0, 0);
    /* attention.h's 4-row and 4-key paths: the dots of 4 rows at a time
       (repdl__attn_vdots4 at d 16, 32, 64; also "gqa mask keep stride",
       "8 heads mask keep") and their dq together; the backward's keys 4
       at a time (repdl__attn_bwd_keys) over grouped rows (260 group rows,
       d 20: one vector and 4 columns more) and over one head's dS and P
       packed 16 keys at a time (kv_stride, d 64; "d 130": its last
       columns), the leading groups of 256 rows a key does not see
       skipped */
    check_ref("causal groups 260 rows d20", shp(1, 4, 2, 130, 140, 20, 10, 0, 1), 0, 0, 0);
    check_ref("causal 66 d32 groups", shp(1, 3, 1, 66, 86, 32, 20, 0, 1), 0, 0, 0);
    check_ref("causal 270 d64 stride", shp(1, 1, 1, 270, 270, 64, 0, 280, 1), 0, 0, 0);
    /* the 4-row and 4-key leaves over more than 768 rows (13 to 16 rows a
       lane: the lane's tree (x0 + x1) + (x2 + x3) over its 4 groups of 4),
       two vectors of columns a pass: dq of 4 queries seeing 797 to 800
       keys, and dk, dv over 8 x 100 grouped rows (causal: the first groups
       of 256 rows skipped for the later keys) */
    check_ref("dq over 800 keys d32", shp(1, 1, 1, 4, 800, 32, 796, 0, 1), 0, 0, 0);
    check_ref("causal 800 group rows d16", shp(1, 8, 1, 100, 100, 16, 0, 0, 1), 0, 0, 0);
    /* no mask, no padding, a power of two of rows (4 .. 512): the leaves
       of 4 rows and 4 keys as one counter over the rows in bit-reversed
       lane order (repdl__attn_vleafq_pow2_avx512 where the CPU has
       AVX-512F): 128 rows (two a lane), 256 and 512 (4 and 8 a lane), 16
       (one a lane); d 48 and 80 leave 16 columns to the generic leaf */
    check_ref("noncausal 128 d64", shp(1, 2, 2, 128, 128, 64, 0, 0, 0), 0, 0, 0);
    check_ref("noncausal 256 keys d48 gqa", shp(1, 4, 2, 64, 256, 48, 0, 0, 0), 0, 0, 0);
    check_ref("noncausal 512 keys d80", shp(1, 1, 1, 8, 512, 80, 0, 0, 0), 0, 0, 0);
    check_ref("noncausal 16 d32 nan q", shp(2, 2, 1, 16, 16, 32, 0, 0, 0), 0, 0, 1);
    /* the forward's P V through the counter leaf with the value rows
       copied in its tree order (repdl__attn_pv, AVX-512F, 256 .. 1024
       keys): 1024 keys (16 a lane), 2 batch entries x 2 kv heads (the copy
       redone for each), 6 queries (a group of 4 and one of 2); 256 keys at
       d 32 with 4 query heads on one kv head (the copy kept) */
    check_ref("noncausal 1024 keys d64 gqa", shp(2, 4, 2, 6, 1024, 64, 0, 0, 0), 0, 0, 0);
    check_ref("noncausal 256 keys d32 4 heads on 1", shp(1, 4, 1, 5, 256, 32, 0, 0, 0), 0, 0, 1);
    /* the backward's dk, dv (sums over a head's 256 .. 1024 query rows,
       one query head a kv head) through the counter leaf with the
       queries and output gradients copied in its tree order
       (repdl__attn_vleafq_rows): 1024 rows over 2 kv heads, and 256 rows
       at d 48 over 2 batch entries (16 columns to the generic leaf) */
    check_ref("noncausal 1024 rows d32", shp(1, 2, 2, 1024, 24, 32, 0, 0, 0), 0, 0, 0);
    check_ref("noncausal 256 rows d48", shp(2, 1, 1, 256, 40, 48, 0, 0, 0), 0, 0, 0);
    /* and the rows' dq over 256 keys with the key rows in tree order
       (repdl__attn_dq_sum; the rows' batched path takes d 16, 32 and 64),
       2 kv heads; with 256 query rows the forward's, dk's and dv's paths
       too */
    check_ref("noncausal 256 x 256 d32", shp(1, 2, 2, 256, 256, 32, 0, 0, 0), 0, 0, 0);
    /* causal: the dq sums of 4 rows and the dk, dv sums of 4 keys through
       the counter leaf over the power of two >= their rows, the rows a
       slot does not see padded with +-0 (attention.h,
       repdl__attn_zfix_avx512): without and with zero rows of dout (sums
       of +-0: -0 where the definition's terms are all -0, fixed up),
       an infinite query 0 and last key and a -inf value (NaN terms in the
       rows a slot does not see, fixed up); 64 and 256 rows (the tree-order
       copies of one head), 3 query heads on one kv head (the group rows of
       the keys' sums), and 100 keys (no power of two: the last rows' sums
       stay with the generic leaf) */
    check_ref("causal 64 d64", shp(1, 2, 2, 64, 64, 64, 0, 0, 1), 0, 0, 0);
    check_ref("causal zero-pad fix-ups 64 d64", shp(1, 2, 2, 64, 64, 64, 0, 0, 1), 0, 0, 2);
    check_ref("causal zero-pad fix-ups 256 d32", shp(1, 1, 1, 256, 256, 32, 0, 0, 1), 0, 0, 2);
    check_ref("causal zero-pad fix-ups gqa d64", shp(1, 3, 1, 40, 40, 64, 0, 0, 1), 0, 0, 2);
    check_ref("causal zero-pad fix-ups 100 d48", shp(2, 2, 1, 100, 100, 48, 0, 0, 1), 0, 0, 2);
}

/* A query range [q0, q0 + c) of p's queries as a problem of its own: the
   queries (and mask rows) copied, the keys those of p, nk keys. */
static void forward_chunk(const prob *p, size_t q0, size_t c, size_t nk, float *out, float *lse)
{
    repdl_attention_shape s = p->s;
    size_t b, h, i, j, d = s.d;
    float *q = falloc(s.batch * s.hq * c * d), *m = p->mask ? falloc(s.batch * c * nk) : NULL;
    float *o = falloc(s.batch * s.hq * c * d), *l = falloc(s.batch * s.hq * c);
    unsigned char *kk = p->keep ? (unsigned char *)malloc(s.batch * nk + 1) : NULL;
    for (b = 0; b < s.batch; b++) {
        for (h = 0; h < s.hq; h++)
            memcpy(q + ((b * s.hq + h) * c) * d, p->q + ((b * s.hq + h) * s.nq + q0) * d,
                   c * d * sizeof(float));
        for (i = 0; m && i < c; i++)
            for (j = 0; j < nk; j++) m[(b * c + i) * nk + j] = p->mask[(b * s.nq + q0 + i) * s.nk + j];
        for (j = 0; kk && j < nk; j++) kk[b * nk + j] = p->keep[b * s.nk + j];
    }
    s.nq = c;
    s.q_pos0 = p->s.q_pos0 + q0;
    s.kv_stride = p->s.kv_stride ? p->s.kv_stride : p->s.nk;
    s.nk = nk;
    CHECK(repdl_attention_forward_f32(&s, p->scale, q, p->k, p->v, m, kk, o, l) == REPDL_OK,
          "chunk status");
    for (b = 0; b < s.batch; b++)
        for (h = 0; h < s.hq; h++) {
            memcpy(out + ((b * s.hq + h) * p->s.nq + q0) * d, o + ((b * s.hq + h) * c) * d,
                   c * d * sizeof(float));
            memcpy(lse + (b * s.hq + h) * p->s.nq + q0, l + (b * s.hq + h) * c,
                   c * sizeof(float));
        }
    free(q); free(m); free(o); free(l); free(kk);
}

static void test_chunks(void)
{
    static const size_t sizes[3] = {1, 7, 32};
    int mk, z;
    for (mk = 0; mk < 2; mk++) {
        prob p;
        size_t n = 70, nq, c, q0;
        float *out, *lse, *o2, *l2;
        prob_make(&p, shp(2, 4, 2, n, n, 64, 0, 0, 1), mk, 1);
        if (mk) /* a finite additive mask (a bias by distance), no -inf */
            for (c = 0; c < p.nmask; c++) p.mask[c] = rnd();
        nq = p.nrows * 64;
        out = falloc(nq); lse = falloc(p.nrows); o2 = falloc(nq); l2 = falloc(p.nrows);
        CHECK(repdl_attention_forward_f32(&p.s, p.scale, p.q, p.k, p.v, p.mask, p.keep, out,
                                          lse) == REPDL_OK, "whole status");
        for (z = 0; z < 3; z++) {
            int all_keys;
            for (all_keys = 0; all_keys < 2; all_keys++) {
                memset(o2, 0xa5, nq * sizeof(float));
                memset(l2, 0xa5, p.nrows * sizeof(float));
                for (q0 = 0; q0 < n; q0 += sizes[z]) {
                    c = n - q0 < sizes[z] ? n - q0 : sizes[z];
                    forward_chunk(&p, q0, c, all_keys ? n : q0 + c, o2, l2);
                }
                CHECK_SAME(o2, out, nq, "chunks of %zu (all keys %d, mask %d): out", sizes[z],
                           all_keys, mk);
                CHECK_SAME(l2, lse, p.nrows, "chunks of %zu (all keys %d, mask %d): lse",
                           sizes[z], all_keys, mk);
            }
        }
        free(out); free(lse); free(o2); free(l2);
        prob_free(&p);
    }
}

/* The cache: tokens appended `step` at a time; each attend's rows are the
   whole forward's rows. */
static void test_cache(void)
{
    static const size_t steps[3] = {1, 7, 32};
    size_t n = 75, cap = 80, d = 32, B = 2, HQ = 4, HKV = 2, z;
    prob p;
    float *out, *lse;
    prob_make(&p, shp(B, HQ, HKV, n, n, d, 0, 0, 1), 0, 0);
    out = falloc(p.nrows * d);
    lse = falloc(p.nrows);
    CHECK(repdl_attention_forward_f32(&p.s, p.scale, p.q, p.k, p.v, NULL, NULL, out, lse) ==
              REPDL_OK, "cache: whole status");
    for (z = 0; z < 3; z++) {
        repdl_kv_cache c;
        float *kb = falloc(B * HKV * cap * d), *vb = falloc(B * HKV * cap * d);
        float *kt = falloc(B * HKV * 32 * d), *vt = falloc(B * HKV * 32 * d);
        float *qt = falloc(B * HQ * 32 * d), *ot = falloc(B * HQ * 32 * d), *lt = falloc(B * HQ * 32);
        size_t t0, t, b, h, i, bad = 0;
        for (t = 0; t < B * HKV * cap * d; t++) kb[t] = vb[t] = NAN; /* never read */
        CHECK(repdl_kv_cache_init(&c, B, HKV, cap, d, kb, vb) == REPDL_OK, "cache init");
        for (t0 = 0; t0 < n; t0 += steps[z]) {
            size_t m = n - t0 < steps[z] ? n - t0 : steps[z];
            for (b = 0; b < B; b++) {
                for (h = 0; h < HKV; h++) {
                    memcpy(kt + (b * HKV + h) * m * d, p.k + ((b * HKV + h) * n + t0) * d, m * d * sizeof(float));
                    memcpy(vt + (b * HKV + h) * m * d, p.v + ((b * HKV + h) * n + t0) * d, m * d * sizeof(float));
                }
                for (h = 0; h < HQ; h++)
                    memcpy(qt + (b * HQ + h) * m * d, p.q + ((b * HQ + h) * n + t0) * d, m * d * sizeof(float));
            }
            CHECK(repdl_kv_cache_append_f32(&c, m, kt, vt) == REPDL_OK, "cache append");
            CHECK(repdl_kv_cache_attend_f32(&c, HQ, m, p.scale, qt, NULL, NULL, ot, lt) ==
                      REPDL_OK, "cache attend");
            for (b = 0; b < B; b++)
                for (h = 0; h < HQ; h++)
                    for (i = 0; i < m; i++) {
                        size_t u = (b * HQ + h) * n + t0 + i, w = (b * HQ + h) * m + i;
                        if (memcmp(ot + w * d, out + u * d, d * sizeof(float)) ||
                            asuint(lt[w]) != asuint(lse[u]))
                            bad++;
                    }
        }
        CHECK(bad == 0, "cache, %zu tokens a step: %zu rows differ from the whole forward",
              steps[z], bad);
        CHECK(c.len == n, "cache length");
        /* overflow: nothing written, the cache unchanged */
        memcpy(kt, kb, d * sizeof(float));
        CHECK(repdl_kv_cache_append_f32(&c, cap - n + 1, kt, vt) == REPDL_ERR_INVALID &&
                  c.len == n && asuint(kb[(cap - 1) * d]) == asuint(NAN),
              "cache overflow refused");
        CHECK(repdl_kv_cache_attend_f32(&c, HQ, n + 1, p.scale, qt, NULL, NULL, ot, lt) ==
                  REPDL_ERR_INVALID, "cache attend nq > len");
        CHECK(repdl_kv_cache_attend_f32(&c, 3, 1, p.scale, qt, NULL, NULL, ot, lt) ==
                  REPDL_ERR_INVALID, "cache attend hq not a multiple");
        free(kb); free(vb); free(kt); free(vt); free(qt); free(ot); free(lt);
    }
    {
        repdl_kv_cache c;
        float buf[4];
        CHECK(repdl_kv_cache_init(&c, 1, 1, 1, 0, buf, buf) == REPDL_ERR_INVALID, "cache d 0");
        CHECK(repdl_kv_cache_init(&c, 1, 0, 1, 4, buf, buf) == REPDL_ERR_INVALID, "cache hkv 0");
        CHECK(repdl_kv_cache_init(&c, 1, 1, 1, 4, NULL, buf) == REPDL_ERR_INVALID, "cache NULL");
        CHECK(repdl_kv_cache_init(&c, 1, 1, 0, 4, NULL, NULL) == REPDL_OK, "cache capacity 0");
        CHECK(repdl_kv_cache_append_f32(&c, 1, buf, buf) == REPDL_ERR_INVALID, "cache full");
        CHECK(repdl_kv_cache_init(&c, (size_t)1 << 40, 1, (size_t)1 << 40, 4, buf, buf) ==
                  REPDL_ERR_OVERFLOW, "cache overflow of the extent");
    }
    free(out); free(lse);
    prob_free(&p);
}

/* 8 prompts of different lengths, right-padded in one batch. */
static void test_batch(void)
{
    static const size_t len[8] = {1, 3, 5, 8, 13, 21, 30, 34};
    size_t L = 34, B = 8, HQ = 4, HKV = 2, d = 64, b, h, i, j, bad = 0, badg = 0;
    float scale = 0.125f;
    float *q = falloc(B * HQ * L * d), *k = falloc(B * HKV * L * d), *v = falloc(B * HKV * L * d);
    float *g = falloc(B * HQ * L * d), *mask = falloc(B * L * L);
    float *out = falloc(B * HQ * L * d), *lse = falloc(B * HQ * L);
    float *dq = falloc(B * HQ * L * d), *dk = falloc(B * HKV * L * d), *dv = falloc(B * HKV * L * d);
    unsigned char keep[8 * 34];
    repdl_attention_shape s = shp(B, HQ, HKV, L, L, d, 0, 0, 1);
    fill(q, B * HQ * L * d, 1);
    fill(g, B * HQ * L * d, 1);
    fill(k, B * HKV * L * d, 1);
    fill(v, B * HKV * L * d, 1);
    for (b = 0; b < B; b++) {
        for (j = 0; j < L; j++) keep[b * L + j] = (unsigned char)(j < len[b]);
        for (h = 0; h < HKV; h++)
            for (j = len[b]; j < L; j++)
                for (i = 0; i < d; i++) k[((b * HKV + h) * L + j) * d + i] = v[((b * HKV + h) * L + j) * d + i] = NAN;
        /* padded query rows see nothing (so that they add no term to dk, dv) */
        for (i = 0; i < L; i++)
            for (j = 0; j < L; j++) mask[(b * L + i) * L + j] = i < len[b] ? 0.0f : -INFINITY;
    }
    /* one prompt's values all -0: its outputs are -0 sums */
    for (h = 0; h < HKV; h++)
        for (j = 0; j < len[3]; j++)
            for (i = 0; i < d; i++) v[((3 * HKV + h) * L + j) * d + i] = -0.0f;
    CHECK(repdl_attention_forward_f32(&s, scale, q, k, v, mask, keep, out, lse) == REPDL_OK, "batch fwd");
    CHECK(repdl_attention_backward_f32(&s, scale, q, k, v, mask, keep, out, lse, g, dq, dk, dv) ==
              REPDL_OK, "batch bwd");
    CHECK(asuint(out[(3 * HQ * L) * d]) == 0x80000000u, "the -0 prompt's output is -0");
    for (b = 0; b < B; b++) {
        size_t n = len[b];
        repdl_attention_shape s1 = shp(1, HQ, HKV, n, n, d, 0, 0, 1);
        float *q1 = falloc(HQ * n * d), *g1 = falloc(HQ * n * d), *k1 = falloc(HKV * n * d), *v1 = falloc(HKV * n * d);
        float *o1 = falloc(HQ * n * d), *l1 = falloc(HQ * n), *dq1 = falloc(HQ * n * d);
        float *dk1 = falloc(HKV * n * d), *dv1 = falloc(HKV * n * d);
        for (h = 0; h < HQ; h++) {
            memcpy(q1 + h * n * d, q + (b * HQ + h) * L * d, n * d * sizeof(float));
            memcpy(g1 + h * n * d, g + (b * HQ + h) * L * d, n * d * sizeof(float));
        }
        for (h = 0; h < HKV; h++) {
            memcpy(k1 + h * n * d, k + (b * HKV + h) * L * d, n * d * sizeof(float));
            memcpy(v1 + h * n * d, v + (b * HKV + h) * L * d, n * d * sizeof(float));
        }
        CHECK(repdl_attention_forward_f32(&s1, scale, q1, k1, v1, NULL, NULL, o1, l1) == REPDL_OK, "alone fwd");
        CHECK(repdl_attention_backward_f32(&s1, scale, q1, k1, v1, NULL, NULL, o1, l1, g1, dq1, dk1, dv1) == REPDL_OK, "alone bwd");
        for (h = 0; h < HQ; h++) {
            if (memcmp(o1 + h * n * d, out + (b * HQ + h) * L * d, n * d * sizeof(float)) ||
                memcmp(l1 + h * n, lse + (b * HQ + h) * L, n * sizeof(float)))
                bad++;
            if (memcmp(dq1 + h * n * d, dq + (b * HQ + h) * L * d, n * d * sizeof(float))) badg++;
        }
        for (h = 0; h < HKV; h++)
            if (memcmp(dk1 + h * n * d, dk + (b * HKV + h) * L * d, n * d * sizeof(float)) ||
                memcmp(dv1 + h * n * d, dv + (b * HKV + h) * L * d, n * d * sizeof(float)))
                badg++;
        free(q1); free(g1); free(k1); free(v1); free(o1); free(l1); free(dq1); free(dk1); free(dv1);
    }
    CHECK(bad == 0, "batch of 8 prompts: %zu forward heads differ from the prompt alone", bad);
    CHECK(badg == 0, "batch of 8 prompts: %zu backward heads differ from the prompt alone", badg);
    free(q); free(k); free(v); free(g); free(mask); free(out); free(lse); free(dq); free(dk); free(dv);
}

/* A -inf mask entry and a key_keep 0 are the same exclusion. */
static void test_mask_forms(void)
{
    prob p;
    size_t i, b, j, n = 40, d = 16;
    float *m, *o1, *o2, *l1, *l2, *g1, *g2, *k1, *k2, *v1, *v2;
    prob_make(&p, shp(2, 2, 1, n, n, d, 0, 0, 0), 0, 1);
    m = falloc(2 * n * n);
    for (b = 0; b < 2; b++)
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++) m[(b * n + i) * n + j] = p.keep[b * n + j] ? 0.0f : -INFINITY;
    o1 = falloc(p.nrows * d); o2 = falloc(p.nrows * d); l1 = falloc(p.nrows); l2 = falloc(p.nrows);
    g1 = falloc(p.nrows * d); g2 = falloc(p.nrows * d);
    k1 = falloc(p.nkv * d); k2 = falloc(p.nkv * d); v1 = falloc(p.nkv * d); v2 = falloc(p.nkv * d);
    CHECK(repdl_attention_forward_f32(&p.s, p.scale, p.q, p.k, p.v, NULL, p.keep, o1, l1) == REPDL_OK, "keep fwd");
    CHECK(repdl_attention_forward_f32(&p.s, p.scale, p.q, p.k, p.v, m, NULL, o2, l2) == REPDL_OK, "mask fwd");
    CHECK_SAME(o1, o2, p.nrows * d, "key_keep vs -inf mask: out");
    CHECK_SAME(l1, l2, p.nrows, "key_keep vs -inf mask: lse");
    CHECK(repdl_attention_backward_f32(&p.s, p.scale, p.q, p.k, p.v, NULL, p.keep, o1, l1, p.dout, g1, k1, v1) == REPDL_OK, "keep bwd");
    CHECK(repdl_attention_backward_f32(&p.s, p.scale, p.q, p.k, p.v, m, NULL, o1, l1, p.dout, g2, k2, v2) == REPDL_OK, "mask bwd");
    CHECK_SAME(g1, g2, p.nrows * d, "key_keep vs -inf mask: dq");
    CHECK_SAME(k1, k2, p.nkv * d, "key_keep vs -inf mask: dk");
    CHECK_SAME(v1, v2, p.nkv * d, "key_keep vs -inf mask: dv");
    free(m); free(o1); free(o2); free(l1); free(l2); free(g1); free(g2); free(k1); free(k2); free(v1); free(v2);
    prob_free(&p);
}

/* ---- finite differences: a plain double attention ---- */
static double fd_loss(const repdl_attention_shape *s, double scale, const double *q,
                      const double *k, const double *v, const float *mask, const double *w)
{
    size_t b, h, i, j, c, d = s->d, G = s->hq / s->hkv;
    double L = 0, sc[64];
    for (b = 0; b < s->batch; b++)
        for (h = 0; h < s->hq; h++)
            for (i = 0; i < s->nq; i++) {
                size_t u = (b * s->hq + h) * s->nq + i, kh = b * s->hkv + h / G;
                double m = -1e300, l = 0;
                for (j = 0; j < s->nk; j++) {
                    double x = 0;
                    if (s->causal && j > s->q_pos0 + i) continue;
                    for (c = 0; c < d; c++) x += q[u * d + c] * k[(kh * s->nk + j) * d + c];
                    sc[j] = x * scale + mask[(b * s->nq + i) * s->nk + j];
                    if (sc[j] > m) m = sc[j];
                }
                for (j = 0; j < s->nk && !(s->causal && j > s->q_pos0 + i); j++) l += exp(sc[j] - m);
                for (c = 0; c < d; c++) {
                    double o = 0;
                    for (j = 0; j < s->nk && !(s->causal && j > s->q_pos0 + i); j++)
                        o += exp(sc[j] - m) / l * v[(kh * s->nk + j) * d + c];
                    L += o * w[u * d + c];
                }
            }
    return L;
}

static void test_finite_differences(void)
{
    repdl_attention_shape s = shp(1, 4, 2, 4, 6, 5, 2, 0, 1);
    size_t nq = 4 * 4 * 5, nkv = 2 * 6 * 5, nm = 4 * 6, i, a;
    float q[80], k[60], v[60], mask[24], w[80], out[80], lse[16], dq[80], dk[60], dv[60];
    double Q[80], K[60], V[60], W[80], worst = 0;
    float scale = 0.45f;
    fill(q, nq, 0); fill(k, nkv, 0); fill(v, nkv, 0); fill(w, nq, 0);
    for (i = 0; i < nm; i++) mask[i] = rnd() * 0.5f;
    for (i = 0; i < nq; i++) { Q[i] = q[i]; W[i] = w[i]; }
    for (i = 0; i < nkv; i++) { K[i] = k[i]; V[i] = v[i]; }
    CHECK(repdl_attention_forward_f32(&s, scale, q, k, v, mask, NULL, out, lse) == REPDL_OK, "fd fwd");
    CHECK(repdl_attention_backward_f32(&s, scale, q, k, v, mask, NULL, out, lse, w, dq, dk, dv) == REPDL_OK, "fd bwd");
    for (a = 0; a < 3; a++) {
        double *X = a == 0 ? Q : a == 1 ? K : V;
        const float *gx = a == 0 ? dq : a == 1 ? dk : dv;
        size_t n = a == 0 ? nq : nkv;
        for (i = 0; i < n; i++) {
            double x0 = X[i], hstep = 1e-6, lp, lm, fd, err;
            X[i] = x0 + hstep; lp = fd_loss(&s, scale, Q, K, V, mask, W);
            X[i] = x0 - hstep; lm = fd_loss(&s, scale, Q, K, V, mask, W);
            X[i] = x0;
            fd = (lp - lm) / (2 * hstep);
            err = fabs(fd - gx[i]) / (1e-3 + fabs(fd));
            if (err > worst) worst = err;
            CHECK(fabs(fd - gx[i]) <= 2e-4 + 1e-3 * fabs(fd), "finite differences: array %zu element %zu: %g vs %g",
                  a, i, (double)gx[i], fd);
        }
    }
    printf("finite differences: worst relative error %.3g\n", worst);
}

static void test_bad_input(void)
{
    float buf[64], out[64], lse[8], dk[64];
    unsigned char keep[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    repdl_attention_shape s;
    size_t i;
    for (i = 0; i < 64; i++) buf[i] = 0.5f;
#define BAD(st, expr, what)                                                                 \
    do {                                                                                 \
        for (i = 0; i < 64; i++) out[i] = dk[i] = 7.0f;                                  \
        for (i = 0; i < 8; i++) lse[i] = 7.0f;                                           \
        CHECK((expr) == (st), "bad input: %s: status", what);                           \
        for (i = 0; i < 64; i++) CHECK(out[i] == 7.0f && dk[i] == 7.0f, "bad input: %s wrote", what); \
        for (i = 0; i < 8; i++) CHECK(lse[i] == 7.0f, "bad input: %s wrote lse", what);  \
    } while (0)
    s = shp(1, 1, 1, 2, 2, 0, 0, 0, 0);
    BAD(REPDL_ERR_INVALID, repdl_attention_forward_f32(&s, 1, buf, buf, buf, NULL, NULL, out, lse), "d 0");
    BAD(REPDL_ERR_INVALID, repdl_attention_backward_f32(&s, 1, buf, buf, buf, NULL, NULL, buf, buf, buf, out, dk, dk), "d 0 backward");
    s = shp(1, 1, 1, 3, 2, 4, 0, 0, 1);
    BAD(REPDL_ERR_INVALID, repdl_attention_forward_f32(&s, 1, buf, buf, buf, NULL, NULL, out, lse), "causal, nk < nq");
    s = shp(1, 1, 1, 2, 3, 4, 2, 0, 1);
    BAD(REPDL_ERR_INVALID, repdl_attention_forward_f32(&s, 1, buf, buf, buf, NULL, NULL, out, lse), "causal, nk < q_pos0 + nq");
    BAD(REPDL_ERR_INVALID, repdl_attention_forward_threads_f32(&s, 2, 1, buf, buf, buf, NULL, NULL, out, lse), "threads, causal, nk < q_pos0 + nq");
    s = shp(1, 3, 2, 2, 2, 4, 0, 0, 0);
    BAD(REPDL_ERR_INVALID, repdl_attention_forward_f32(&s, 1, buf, buf, buf, NULL, NULL, out, lse), "hq not a multiple of hkv");
    s = shp(1, 0, 0, 2, 2, 4, 0, 0, 0);
    BAD(REPDL_ERR_INVALID, repdl_attention_forward_f32(&s, 1, buf, buf, buf, NULL, NULL, out, lse), "hkv 0");
    s = shp(1, 1, 1, 2, 3, 4, 0, 2, 0);
    BAD(REPDL_ERR_INVALID, repdl_attention_forward_f32(&s, 1, buf, buf, buf, NULL, NULL, out, lse), "kv_stride < nk");
    BAD(REPDL_ERR_INVALID, repdl_attention_forward_f32(NULL, 1, buf, buf, buf, NULL, NULL, out, lse), "shape NULL");
    s = shp(1, 1, 1, 2, 3, 4, 0, 0, 0);
    BAD(REPDL_ERR_INVALID, repdl_attention_forward_f32(&s, 1, NULL, buf, buf, NULL, keep, out, lse), "q NULL");
    BAD(REPDL_ERR_INVALID, repdl_attention_forward_f32(&s, 1, buf, NULL, buf, NULL, keep, out, lse), "k NULL");
    BAD(REPDL_ERR_INVALID, repdl_attention_forward_f32(&s, 1, buf, buf, NULL, NULL, keep, out, lse), "v NULL");
    BAD(REPDL_ERR_INVALID, repdl_attention_forward_f32(&s, 1, buf, buf, buf, NULL, keep, NULL, lse), "out NULL");
    BAD(REPDL_ERR_INVALID, repdl_attention_backward_f32(&s, 1, buf, buf, buf, NULL, NULL, buf, NULL, buf, out, dk, dk), "lse NULL in the backward");
    BAD(REPDL_ERR_INVALID, repdl_attention_backward_f32(&s, 1, buf, buf, buf, NULL, NULL, buf, buf, NULL, out, dk, dk), "dout NULL");
    BAD(REPDL_ERR_INVALID, repdl_attention_backward_f32(&s, 1, buf, buf, buf, NULL, NULL, NULL, buf, buf, out, dk, dk), "out NULL in the backward");
    s = shp((size_t)1 << 33, 1 << 16, 1, (size_t)1 << 33, 2, 4, 0, 0, 0);
    BAD(REPDL_ERR_OVERFLOW, repdl_attention_forward_f32(&s, 1, buf, buf, buf, NULL, NULL, out, lse), "extent overflow");
    s = shp(1, 1, 1, 1, (size_t)1 << 62, 4, 0, 0, 0);
    BAD(REPDL_ERR_OVERFLOW, repdl_attention_forward_f32(&s, 1, buf, buf, buf, NULL, NULL, out, lse), "key extent overflow");
#undef BAD
    /* empty extents: nothing read or written, NULL fine */
    s = shp(0, 4, 2, 5, 5, 8, 0, 0, 1);
    CHECK(repdl_attention_forward_f32(&s, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == REPDL_OK, "batch 0");
    CHECK(repdl_attention_backward_f32(&s, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == REPDL_OK, "batch 0 backward");
    s = shp(1, 0, 2, 5, 5, 8, 0, 0, 1);
    CHECK(repdl_attention_forward_f32(&s, 1, NULL, buf, buf, NULL, NULL, NULL, NULL) == REPDL_OK, "hq 0");
    s = shp(1, 2, 2, 0, 0, 8, 0, 0, 1);
    CHECK(repdl_attention_forward_f32(&s, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == REPDL_OK, "nq 0 nk 0");
    CHECK(repdl_attention_forward_threads_f32(&s, 3, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == REPDL_OK, "threads nq 0 nk 0");
    /* nq 0, nk > 0: dk, dv are the empty sums RN(scale * -0), -0 */
    s = shp(1, 1, 1, 0, 2, 4, 0, 0, 0);
    for (i = 0; i < 8; i++) out[i] = dk[i] = 7.0f;
    CHECK(repdl_attention_backward_f32(&s, -2.0f, NULL, buf, buf, NULL, NULL, NULL, NULL, NULL, NULL, dk, out) == REPDL_OK, "nq 0 backward");
    for (i = 0; i < 8; i++)
        CHECK(asuint(dk[i]) == 0x00000000u && asuint(out[i]) == 0x80000000u, "nq 0: dk +0 (scale -2), dv -0");
}

#if REPDL__ATTN_VEC
/* repdl__attn_exp(n, x, sub, use): x[i] = repdl_exp_f32(RN(x[i] - sub)),
   or -0 where use[i] == 0, bit for bit.  The comparison over all 2^32
   inputs (AVX-512F and AVX2 kernels) is in docs/attention.md ("Speed"). */
static void test_exp_kernel(void)
{
    static const uint32_t edge[] = {0x42b17217u, 0x42b17218u, 0x42b17216u, 0xc2cff1b4u, 0xc2cff1b5u,
                                    0xc2cff1b3u, 0x42ae0000u, 0x42ae0001u, 0xc2ae0000u, 0xc2ae0001u,
                                    0x7f800000u, 0xff800000u, 0x7f800001u, 0xffc00001u, 0x7fc00000u,
                                    0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu,
                                    0x33800000u, 0xb3800000u, 0x3f800000u, 0xbf800000u, 0x42b00000u};
    static float x[4096], want[4096];
    unsigned char use[256];
    uint64_t u;
    size_t n = 0, i, t;
    long bad = 0, total = 0;
    int all;
    for (u = 0; u < ((uint64_t)1 << 32); u += 4093) {
        x[n] = asfloat((uint32_t)u);
        want[n] = repdl_exp_f32(x[n]);
        if (++n == 4096 || u + 4093 >= ((uint64_t)1 << 32)) {
            repdl__attn_exp(n, x, 0.0f, NULL);
            for (i = 0; i < n; i++) bad += asuint(x[i]) != asuint(want[i]);
            total += (long)n;
            n = 0;
        }
    }
    CHECK(bad == 0, "exp kernel: %ld of %ld inputs differ from repdl_exp_f32", bad, total);
    n = sizeof edge / sizeof edge[0];
    for (i = 0; i < n; i++) {
        x[i] = asfloat(edge[i]);
        want[i] = repdl_exp_f32(x[i]);
    }
    repdl__attn_exp(n, x, 0.0f, NULL);
    CHECK_SAME(x, want, n, "exp kernel: thresholds");
    { /* the hard cases, where the lane's rounding test must fail and the
         answer come from repdl_exp_f32: their MPFR results */
        static const repdl__hardcase hard[] = {
#include <repdl/detail/expf_hard.inc>
        };
        n = sizeof hard / sizeof hard[0] - 1; /* the sentinel */
        for (i = 0; i < n; i++) {
            x[i] = asfloat(hard[i].x);
            want[i] = asfloat(hard[i].r);
        }
        repdl__attn_exp(n, x, 0.0f, NULL);
        CHECK_SAME(x, want, n, "exp kernel: hard cases");
    }
    for (t = 0; t < 300; t++) { /* rows of 1 .. 200 with a subtrahend and unseen keys */
        float sub;
        n = 1 + (size_t)(splitmix64_next(&rng) % 200);
        all = t % 3 == 0;
        for (i = 0; i < n; i++) {
            x[i] = rnd() * (float)(1 + t % 40);
            use[i] = (unsigned char)(all || splitmix64_next(&rng) % 4 != 0);
        }
        sub = t % 7 == 0 ? asfloat(0x80000000u) : x[splitmix64_next(&rng) % n];
        for (i = 0; i < n; i++) want[i] = use[i] ? repdl_exp_f32(x[i] - sub) : asfloat(0x80000000u);
        repdl__attn_exp(n, x, sub, all ? NULL : use);
        CHECK_SAME(x, want, n, "exp kernel: row %zu (n %zu, all seen %d)", t, n, all);
    }
}
#endif

int main(void)
{
    splitmix64_seed(&rng, 20261129);
    test_reference();
    test_chunks();
    test_cache();
    test_batch();
    test_mask_forms();
    test_finite_differences();
    test_bad_input();
#if REPDL__ATTN_VEC
    test_exp_kernel();
#endif
    return check_summary("attention");
}
