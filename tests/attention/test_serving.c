/* SPDX-License-Identifier: MIT */
/* tests/attention/test_serving.c: serving invariance of a small decoder
   (issue 30, item 6), end to end through repdl's layers: token embedding
   (a row copy), 2 blocks of RMS norm, linear q/k/v (4 query heads over 2
   key/value heads, head_dim 8), attention, output projection, residual,
   RMS norm, GELU MLP, residual; final RMS norm and the logits.

   The logits of each of 8 prompts (lengths 1 .. 34) are computed
     alone, whole, without a cache               (the reference)
   and must be the same bits
     alone, prefilled through the key/value cache in chunks of 1, 7, 32;
     in a right-padded batch of the 8 prompts, whole, without a cache;
     in that batch through the cache in chunks of 1, 7, 32,
   then for 6 greedy decode steps (a token at a time through the cache)
   alone and in the batch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/repdl.h>

#include "../common/check.h"
#include "../common/splitmix64.h"

enum { V = 37, C = 32, HQ = 4, HKV = 2, HD = 8, L = 2, FF = 64, CAP = 48, NP = 8, STEPS = 6 };

typedef struct model {
    float emb[V * C], g1[L][C], g2[L][C], gf[C];
    float wq[L][HQ * HD * C], wk[L][HKV * HD * C], wv[L][HKV * HD * C], wo[L][C * HQ * HD];
    float w1[L][FF * C], w2[L][C * FF], wl[V * C];
} model;

static model M;
static splitmix64 rng;

static float rnd(float a) { return ((float)(splitmix64_next(&rng) >> 40) * (2.0f / 16777216.0f) - 1.0f) * a; }

static void init_model(void)
{
    size_t i, l;
    for (i = 0; i < V * C; i++) M.emb[i] = rnd(1.0f), M.wl[i] = rnd(0.2f);
    for (i = 0; i < C; i++) M.gf[i] = 1.0f + rnd(0.1f);
    for (l = 0; l < L; l++) {
        for (i = 0; i < C; i++) M.g1[l][i] = 1.0f + rnd(0.1f), M.g2[l][i] = 1.0f + rnd(0.1f);
        for (i = 0; i < HQ * HD * C; i++) M.wq[l][i] = rnd(0.3f), M.wo[l][i] = rnd(0.2f);
        for (i = 0; i < HKV * HD * C; i++) M.wk[l][i] = rnd(0.3f), M.wv[l][i] = rnd(0.3f);
        for (i = 0; i < FF * C; i++) M.w1[l][i] = rnd(0.2f), M.w2[l][i] = rnd(0.2f);
    }
}

static float *falloc(size_t n)
{
    float *p = (float *)calloc(n ? n : 1, sizeof(float));
    if (!p) abort();
    return p;
}

/* [B][T][H HD] (rows of a linear) -> [B][H][T][HD]. */
static void to_heads(const float *x, size_t B, size_t T, size_t H, float *y)
{
    size_t b, t, h;
    for (b = 0; b < B; b++)
        for (t = 0; t < T; t++)
            for (h = 0; h < H; h++)
                memcpy(y + ((b * H + h) * T + t) * HD, x + (b * T + t) * H * HD + h * HD, HD * sizeof(float));
}

static void from_heads(const float *y, size_t B, size_t T, size_t H, float *x)
{
    size_t b, t, h;
    for (b = 0; b < B; b++)
        for (t = 0; t < T; t++)
            for (h = 0; h < H; h++)
                memcpy(x + (b * T + t) * H * HD + h * HD, y + ((b * H + h) * T + t) * HD, HD * sizeof(float));
}

/* T new tokens of B sequences (positions pos0 .. pos0 + T - 1): logits
   [B][T][V].  With caches (one per layer) the new keys and values are
   appended (wpos NULL) or written at each sequence's own position wpos[b]
   and attended; without, the call holds the whole sequences (pos0 = 0).
   keep: [B][keys] or NULL. */
static void run(const int *tok, size_t B, size_t T, size_t pos0, repdl_kv_cache *cache,
                const size_t *wpos, const unsigned char *keep, float *logits)
{
    size_t n = B * T, l, i, b;
    float *x = falloc(n * C), *h = falloc(n * C), *r = falloc(n), *q = falloc(n * HQ * HD);
    float *k = falloc(n * HKV * HD), *v = falloc(n * HKV * HD), *qh = falloc(n * HQ * HD);
    float *kh = falloc(n * HKV * HD), *vh = falloc(n * HKV * HD), *oh = falloc(n * HQ * HD);
    float *o = falloc(n * HQ * HD), *u = falloc(n * FF);
    float scale = repdl_rsqrt_f32((float)HD);
    for (i = 0; i < n; i++) memcpy(x + i * C, M.emb + (size_t)tok[i] * C, C * sizeof(float));
    for (l = 0; l < L; l++) {
        CHECK(repdl_rms_norm_forward_f32(n, C, 1e-5f, x, M.g1[l], h, r) == REPDL_OK, "norm");
        CHECK(repdl_linear_forward_f32(n, C, HQ * HD, h, M.wq[l], NULL, q) == REPDL_OK, "wq");
        CHECK(repdl_linear_forward_f32(n, C, HKV * HD, h, M.wk[l], NULL, k) == REPDL_OK, "wk");
        CHECK(repdl_linear_forward_f32(n, C, HKV * HD, h, M.wv[l], NULL, v) == REPDL_OK, "wv");
        to_heads(q, B, T, HQ, qh);
        to_heads(k, B, T, HKV, kh);
        to_heads(v, B, T, HKV, vh);
        if (cache) {
            if (wpos) {
                for (b = 0; b < B; b++)
                    CHECK(repdl_kv_cache_write_f32(&cache[l], b, wpos[b], T, kh + b * HKV * T * HD,
                                                   vh + b * HKV * T * HD) == REPDL_OK, "write");
            } else {
                CHECK(cache[l].len == pos0, "cache position");
                CHECK(repdl_kv_cache_append_f32(&cache[l], T, kh, vh) == REPDL_OK, "append");
            }
            CHECK(repdl_kv_cache_attend_f32(&cache[l], HQ, T, scale, qh, NULL, keep, oh, NULL) ==
                      REPDL_OK, "attend");
        } else {
            repdl_attention_shape s;
            s.batch = B; s.hq = HQ; s.hkv = HKV; s.nq = T; s.nk = T; s.d = HD;
            s.q_pos0 = 0; s.kv_stride = 0; s.causal = 1;
            CHECK(pos0 == 0, "whole sequences without a cache");
            CHECK(repdl_attention_forward_f32(&s, scale, qh, kh, vh, NULL, keep, oh, NULL) == REPDL_OK,
                  "attention");
        }
        from_heads(oh, B, T, HQ, o);
        CHECK(repdl_linear_forward_f32(n, HQ * HD, C, o, M.wo[l], NULL, h) == REPDL_OK, "wo");
        for (i = 0; i < n * C; i++) x[i] = x[i] + h[i];
        CHECK(repdl_rms_norm_forward_f32(n, C, 1e-5f, x, M.g2[l], h, r) == REPDL_OK, "norm2");
        CHECK(repdl_linear_forward_f32(n, C, FF, h, M.w1[l], NULL, u) == REPDL_OK, "w1");
        CHECK(repdl_gelu_array_f32(n * FF, u, u) == REPDL_OK, "gelu");
        CHECK(repdl_linear_forward_f32(n, FF, C, u, M.w2[l], NULL, h) == REPDL_OK, "w2");
        for (i = 0; i < n * C; i++) x[i] = x[i] + h[i];
    }
    CHECK(repdl_rms_norm_forward_f32(n, C, 1e-5f, x, M.gf, h, r) == REPDL_OK, "final norm");
    CHECK(repdl_linear_forward_f32(n, C, V, h, M.wl, NULL, logits) == REPDL_OK, "logits");
    free(x); free(h); free(r); free(q); free(k); free(v); free(qh); free(kh); free(vh);
    free(oh); free(o); free(u);
}

static const size_t len[NP] = {1, 3, 5, 8, 13, 21, 30, 34};
static int prompt[NP][CAP];

static size_t argmax(const float *x)
{
    size_t i, b = 0;
    for (i = 1; i < V; i++)
        if (x[i] > x[b]) b = i;
    return b;
}

/* A set of caches (one per layer) for B sequences. */
typedef struct caches {
    repdl_kv_cache c[L];
    float *buf;
} caches;

static void caches_init(caches *k, size_t B)
{
    size_t l, per = B * HKV * CAP * HD;
    k->buf = falloc(2 * L * per);
    for (l = 0; l < L; l++)
        CHECK(repdl_kv_cache_init(&k->c[l], B, HKV, CAP, HD, k->buf + 2 * l * per,
                                  k->buf + (2 * l + 1) * per) == REPDL_OK, "cache init");
}

/* Prompts (B = 1: prompt p0 alone; B = NP: all, right-padded to 34), in
   chunks of `chunk` tokens through a cache (chunk 0: whole, no cache; the
   cache is then prefilled whole for the decode), then STEPS greedy tokens
   through the cache, each sequence at its own position.  out[p][t]: the
   logits of prompt p's position t < len + STEPS. */
static void serve(size_t B, size_t p0, size_t chunk, float (*out)[CAP][V])
{
    size_t T = B == 1 ? len[p0] : 34, b, t, t0, s, P[NP], wpos[NP];
    int *tok = (int *)malloc(B * CAP * sizeof(int)), *seq = (int *)malloc(B * CAP * sizeof(int));
    unsigned char *keep = (unsigned char *)malloc(B * CAP), *kk = (unsigned char *)malloc(B * CAP);
    float *lg = falloc(B * CAP * V);
    caches k;
    caches_init(&k, B);
    for (b = 0; b < B; b++) {
        P[b] = B == 1 ? p0 : b;
        for (t = 0; t < CAP; t++) {
            seq[b * CAP + t] = t < len[P[b]] ? prompt[P[b]][t] : 0;
            keep[b * CAP + t] = (unsigned char)(t < len[P[b]]);
        }
    }
    if (chunk == 0) {
        for (b = 0; b < B; b++) {
            for (t = 0; t < T; t++) tok[b * T + t] = seq[b * CAP + t];
            memcpy(kk + b * T, keep + b * CAP, T);
        }
        run(tok, B, T, 0, NULL, NULL, B == 1 ? NULL : kk, lg);
        for (b = 0; b < B; b++)
            for (t = 0; t < len[P[b]]; t++) memcpy(out[P[b]][t], lg + (b * T + t) * V, V * sizeof(float));
    }
    for (t0 = 0; t0 < T; t0 += chunk ? chunk : T) {
        size_t c = chunk == 0 || T - t0 < chunk ? T - t0 : chunk;
        for (b = 0; b < B; b++) {
            for (t = 0; t < c; t++) tok[b * c + t] = seq[b * CAP + t0 + t];
            memcpy(kk + b * (t0 + c), keep + b * CAP, t0 + c);
        }
        run(tok, B, c, t0, k.c, NULL, B == 1 ? NULL : kk, lg);
        if (chunk)
            for (b = 0; b < B; b++)
                for (t = 0; t < c && t0 + t < len[P[b]]; t++)
                    memcpy(out[P[b]][t0 + t], lg + (b * c + t) * V, V * sizeof(float));
    }
    for (s = 0; s < STEPS; s++) {
        size_t nk = k.c[0].len;
        for (b = 0; b < B; b++) {
            wpos[b] = len[P[b]] + s;
            tok[b] = (int)argmax(out[P[b]][wpos[b] - 1]);
            keep[b * CAP + wpos[b]] = 1;
            if (wpos[b] + 1 > nk) nk = wpos[b] + 1;
        }
        for (b = 0; b < B; b++) memcpy(kk + b * nk, keep + b * CAP, nk);
        run(tok, B, 1, len[P[0]] + s, k.c, B == 1 ? NULL : wpos, B == 1 ? NULL : kk, lg);
        for (b = 0; b < B; b++) memcpy(out[P[b]][wpos[b]], lg + b * V, V * sizeof(float));
    }
    free(tok); free(seq); free(keep); free(kk); free(lg); free(k.buf);
}

int main(void)
{
    static float ref[NP][CAP][V], got[NP][CAP][V];
    static const size_t chunks[3] = {1, 7, 32};
    size_t p, z, t, bad;
    splitmix64_seed(&rng, 30);
    init_model();
    for (p = 0; p < NP; p++)
        for (t = 0; t < CAP; t++) prompt[p][t] = (int)(splitmix64_next(&rng) % V);
    for (p = 0; p < NP; p++) serve(1, p, 0, ref);
    for (z = 0; z < 4; z++) {
        memset(got, 0, sizeof got);
        for (p = 0; p < NP; p++) serve(1, p, z < 3 ? chunks[z] : 0, got);
        for (p = 0, bad = 0; p < NP; p++)
            bad += memcmp(ref[p], got[p], (len[p] + STEPS) * V * sizeof(float)) != 0;
        CHECK(bad == 0, "alone, %s %zu: %zu prompts differ", z < 3 ? "cache chunks of" : "whole again", z < 3 ? chunks[z] : 0, bad);
    }
    for (z = 0; z < 4; z++) {
        memset(got, 0, sizeof got);
        serve(NP, 0, z < 3 ? chunks[z] : 0, got);
        for (p = 0, bad = 0; p < NP; p++)
            bad += memcmp(ref[p], got[p], (len[p] + STEPS) * V * sizeof(float)) != 0;
        CHECK(bad == 0, "batch of 8, %s %zu: %zu prompts differ from alone", z < 3 ? "cache chunks of" : "whole, no cache,", z < 3 ? chunks[z] : 0, bad);
    }
    printf("serving: 8 prompts x (%d prompt + %d decoded) positions, logits compared in 7 ways\n", 34, STEPS);
    return check_summary("serving");
}
