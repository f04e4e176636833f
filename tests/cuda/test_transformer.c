/* SPDX-License-Identifier: MIT */
/* tests/cuda/test_transformer.c: the transformer ops' launchers against
   the host functions, bit for bit (cuda/attention.cu, rope.cu,
   embedding.cu, mse_loss.cu; include/repdl/attention.h, rope.h,
   embedding.h, mse_loss.h).  Both sides run the same header code in the
   same canonical order, so any difference is a bug.

   Checked, on random data of moderate range with NaN / inf / +-0 sprinkled
   in one kind of case:
     attention  forward (out, lse) and backward (dq, dk, dv) over random
                shapes: batch 1-2, hq 1-4 with grouped heads (hkv | hq),
                nq 1-40, nk up to 300 (several key leaves), d 1-80,
                causal or not with q_pos0 > 0, kv_stride > nk, an additive
                mask, key padding; plus shapes with nk = 0 and nq = 0
     rope       the table (positions 1-200, d 2-128, bases 10000 / 500 /
                1e6) and forward / backward at pos0 > 0, in place too
     embedding  forward and the batch-order backward with repeated ids
                (n 0-300, vocab 1-60, dim 1-70)
     mse_loss   forward and backward, mean and sum, n 0-5000
   and the bad arguments each launcher refuses before touching the GPU.
     test_transformer [--seed S] [--small]
   No GPU: prints "skipped: no GPU" and exits 77. */
#include <repdl/attention.h>
#include <repdl/embedding.h>
#include <repdl/mse_loss.h>
#include <repdl/rope.h>

#include "gpu_test.h"

static int failures = 0, checks = 0;

/* A value of moderate range; kind 1 adds NaN, inf and signed zeros. */
static float gen(int kind)
{
    uint64_t r = rng_next();
    uint32_t sign = (uint32_t)(r >> 63) << 31, m = (uint32_t)(r & 0x7fffff);
    if (kind == 1)
        switch ((r >> 40) % 64) {
        case 0: return u2f(sign | 0x7f800000u);
        case 1: return u2f(0x7fc00001u | (uint32_t)(r & 0x3fffff) | sign);
        case 2: return u2f(sign);
        default: break;
        }
    return u2f(sign | (uint32_t)(122 + (r >> 30) % 6) << 23 | m);
}

static void *dev_alloc(size_t bytes)
{
    void *d;
    CU(cudaMalloc(&d, bytes ? bytes : 1));
    return d;
}

static float *gen_array(size_t n, int kind)
{
    float *a = (float *)xmalloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) a[i] = gen(kind);
    return a;
}

/* A host array of n canaries and its device copy's result, compared. */
static float *canaries(size_t n)
{
    float *a = (float *)xmalloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) a[i] = u2f(0x7fbadbadu);
    return a;
}

/* The device array d of n floats against the host's h: counts a failure. */
static void compare(const char *what, const char *ctx, const float *h, const float *d_dev, size_t n)
{
    float *d = (float *)xmalloc(n * sizeof(float));
    if (n) CU(cudaMemcpy(d, d_dev, n * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (f2u(d[i]) != f2u(h[i]) && bad++ < 3)
            printf("  %s %s: [%zu] device 0x%08x host 0x%08x\n", what, ctx, i, f2u(d[i]),
                   f2u(h[i]));
    checks++;
    if (bad) {
        failures++;
        printf("FAIL %s %s: %zu of %zu differ\n", what, ctx, bad, n);
    }
    free(d);
}

static void status_eq(const char *what, int got, int want)
{
    checks++;
    if (got != want) {
        failures++;
        printf("FAIL %s: status %d (%s), host %d\n", what, got, repdl_status_string((repdl_status)got), want);
    }
}

/* ---- attention ---- */
static void attention_case(repdl_attention_shape s, int kind, int with_mask, int with_keep)
{
    char ctx[160];
    size_t R = s.kv_stride ? s.kv_stride : s.nk;
    size_t nq_el = s.batch * s.hq * s.nq * s.d, nkv = s.batch * s.hkv * R * s.d;
    size_t nrow = s.batch * s.hq * s.nq, nm = s.batch * s.nq * s.nk, nkeep = s.batch * s.nk;
    float scale = 0.125f + (float)rng_below(8) / 16.0f;
    snprintf(ctx, sizeof ctx, "b%zu hq%zu hkv%zu nq%zu nk%zu d%zu pos0 %zu R%zu causal %d kind %d "
             "mask %d keep %d", s.batch, s.hq, s.hkv, s.nq, s.nk, s.d, s.q_pos0, R, s.causal, kind,
             with_mask, with_keep);
    float *q = gen_array(nq_el, kind), *k = gen_array(nkv, kind), *v = gen_array(nkv, kind);
    float *dout = gen_array(nq_el, kind);
    float *mask = NULL;
    unsigned char *keep = NULL;
    if (with_mask) mask = gen_array(nm, 0);
    if (with_keep) {
        keep = (unsigned char *)xmalloc(nkeep ? nkeep : 1);
        for (size_t i = 0; i < nkeep; i++) keep[i] = rng_below(5) != 0;
    }
    float *out = canaries(nq_el), *lse = canaries(nrow);
    float *dq = canaries(nq_el), *dk = canaries(nkv), *dv = canaries(nkv);
    int hf = repdl_attention_forward_f32(&s, scale, q, k, v, mask, keep, out, lse);
    int hb = repdl_attention_backward_f32(&s, scale, q, k, v, mask, keep, out, lse, dout, dq, dk,
                                          dv);

    float *gq = dev_copy(q, nq_el), *gk = dev_copy(k, nkv), *gv = dev_copy(v, nkv);
    float *gdout = dev_copy(dout, nq_el), *gmask = mask ? dev_copy(mask, nm) : NULL;
    unsigned char *gkeep = NULL;
    if (keep) {
        gkeep = (unsigned char *)dev_alloc(nkeep);
        if (nkeep) CU(cudaMemcpy(gkeep, keep, nkeep, cudaMemcpyHostToDevice));
    }
    float *c0 = canaries(nkv > nq_el ? nkv : nq_el);
    float *gout = dev_copy(c0, nq_el), *glse = dev_copy(c0, nrow);
    float *gdq = dev_copy(c0, nq_el), *gdk = dev_copy(c0, nkv), *gdv = dev_copy(c0, nkv);
    int df = repdl_cuda_attention_forward_f32(&s, scale, gq, gk, gv, gmask, gkeep, gout, glse, NULL);
    status_eq("attention forward status", df, hf);
    if (df == REPDL_OK) {
        CU(cudaDeviceSynchronize());
        compare("attention out", ctx, out, gout, nq_el);
        compare("attention lse", ctx, lse, glse, nrow);
    }
    /* The backward from the host's out and lse, so that it is checked
       alone. */
    float *gout_h = dev_copy(out, nq_el), *glse_h = dev_copy(lse, nrow);
    int db = repdl_cuda_attention_backward_f32(&s, scale, gq, gk, gv, gmask, gkeep, gout_h, glse_h,
                                               gdout, gdq, gdk, gdv, NULL);
    status_eq("attention backward status", db, hb);
    if (db == REPDL_OK) {
        CU(cudaDeviceSynchronize());
        compare("attention dq", ctx, dq, gdq, nq_el);
        /* Only the nk stored rows of each head are outputs. */
        for (size_t h = 0; h < s.batch * s.hkv; h++) {
            compare("attention dk", ctx, dk + h * R * s.d, gdk + h * R * s.d, s.nk * s.d);
            compare("attention dv", ctx, dv + h * R * s.d, gdv + h * R * s.d, s.nk * s.d);
        }
    }
    float *dev[] = {gq, gk, gv, gdout, gmask, gout, glse, gdq, gdk, gdv, gout_h, glse_h};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i]) CU(cudaFree(dev[i]));
    if (gkeep) CU(cudaFree(gkeep));
    free(q), free(k), free(v), free(dout), free(mask), free(keep), free(out), free(lse);
    free(dq), free(dk), free(dv), free(c0);
}

static void attention_random(int small_run)
{
    int cases = small_run ? 12 : 120;
    for (int c = 0; c < cases; c++) {
        repdl_attention_shape s;
        memset(&s, 0, sizeof s);
        s.batch = 1 + rng_below(2);
        s.hkv = 1 + rng_below(2);
        s.hq = s.hkv * (1 + rng_below(2));
        s.nq = 1 + rng_below(40);
        s.d = 1 + rng_below(80);
        s.causal = (int)rng_below(2);
        s.nk = s.nq + rng_below(c % 4 == 0 ? 300 : 60);
        s.q_pos0 = s.causal ? s.nk - s.nq - rng_below(s.nk - s.nq + 1) : rng_below(5);
        s.kv_stride = rng_below(3) == 0 ? s.nk + rng_below(9) : 0;
        attention_case(s, c % 7 == 3, c % 3 == 1, c % 5 == 2);
    }
    /* Empty extents: no key (every row's lse -inf, out 0), no query. */
    repdl_attention_shape e = {1, 2, 1, 3, 0, 8, 0, 0, 0};
    attention_case(e, 0, 0, 0);
    repdl_attention_shape f = {2, 2, 2, 0, 9, 8, 0, 0, 0};
    attention_case(f, 0, 1, 1);
}

/* ---- rope ---- */
static void rope_case(size_t positions, size_t d, float base, size_t batch, size_t heads, size_t n,
                      size_t pos0, int in_place)
{
    char ctx[128];
    size_t h = d / 2, nt = positions * h, nx = batch * heads * n * d;
    snprintf(ctx, sizeof ctx, "positions %zu d %zu base %g b %zu h %zu n %zu pos0 %zu in_place %d",
             positions, d, (double)base, batch, heads, n, pos0, in_place);
    float *ct = canaries(nt), *st = canaries(nt);
    int ht = repdl_rope_table_f32(positions, d, base, ct, st);
    float *gct = dev_copy(NULL, nt), *gst = dev_copy(NULL, nt);
    int dt = repdl_cuda_rope_table_f32(positions, d, base, gct, gst, NULL);
    status_eq("rope table status", dt, ht);
    if (dt != REPDL_OK || ht != REPDL_OK) goto out;
    CU(cudaDeviceSynchronize());
    compare("rope cos table", ctx, ct, gct, nt);
    compare("rope sin table", ctx, st, gst, nt);
    for (int dir = 0; dir < 2; dir++) {
        float *x = gen_array(nx, 0), *y = canaries(nx);
        int hs = dir ? repdl_rope_backward_f32(batch, heads, n, d, pos0, positions, ct, st, x, y)
                     : repdl_rope_forward_f32(batch, heads, n, d, pos0, positions, ct, st, x, y);
        /* The device uses its own table: equal bits were checked above. */
        float *gx = dev_copy(x, nx), *gy = in_place ? gx : dev_copy(NULL, nx);
        int ds = dir ? repdl_cuda_rope_backward_f32(batch, heads, n, d, pos0, positions, gct, gst,
                                                    gx, gy, NULL)
                     : repdl_cuda_rope_forward_f32(batch, heads, n, d, pos0, positions, gct, gst,
                                                   gx, gy, NULL);
        status_eq(dir ? "rope backward status" : "rope forward status", ds, hs);
        if (ds == REPDL_OK) {
            CU(cudaDeviceSynchronize());
            compare(dir ? "rope backward" : "rope forward", ctx, y, gy, nx);
        }
        CU(cudaFree(gx));
        if (!in_place) CU(cudaFree(gy));
        free(x), free(y);
    }
out:
    CU(cudaFree(gct));
    CU(cudaFree(gst));
    free(ct), free(st);
}

static void rope_random(int small_run)
{
    static const float bases[] = {10000.0f, 500.0f, 1e6f};
    int cases = small_run ? 6 : 40;
    for (int c = 0; c < cases; c++) {
        size_t positions = 1 + rng_below(200), d = 2 * (1 + rng_below(64));
        size_t n = 1 + rng_below(positions < 20 ? positions : 20);
        size_t pos0 = rng_below(positions - n + 1);
        rope_case(positions, d, bases[c % 3], 1 + rng_below(2), 1 + rng_below(3), n, pos0, c & 1);
    }
}

/* ---- embedding ---- */
static void embedding_case(size_t vocab, size_t dim, size_t n)
{
    char ctx[96];
    snprintf(ctx, sizeof ctx, "vocab %zu dim %zu n %zu", vocab, dim, n);
    float *table = gen_array(vocab * dim, 1), *dout = gen_array(n * dim, 0);
    int64_t *ids = (int64_t *)xmalloc((n ? n : 1) * sizeof(int64_t));
    /* Few distinct ids, so that rows repeat across micro-batches. */
    size_t distinct = 1 + rng_below(vocab < 6 ? vocab : 6);
    for (size_t i = 0; i < n; i++) ids[i] = (int64_t)((rng_below(distinct) * 7) % vocab);
    float *out = canaries(n * dim), *dt = canaries(vocab * dim);
    int hf = repdl_embedding_forward_f32(table, vocab, dim, ids, n, out);
    int hb = repdl_embedding_backward_f32(dout, ids, n, vocab, dim, dt);
    int64_t *gids = (int64_t *)dev_alloc((n ? n : 1) * sizeof(int64_t));
    if (n) CU(cudaMemcpy(gids, ids, n * sizeof(int64_t), cudaMemcpyHostToDevice));
    float *gtable = dev_copy(table, vocab * dim), *gdout = dev_copy(dout, n * dim);
    float *gout = dev_copy(NULL, n * dim), *gdt = dev_copy(NULL, vocab * dim);
    int df = repdl_cuda_embedding_forward_f32(gtable, vocab, dim, gids, n, gout, NULL);
    status_eq("embedding forward status", df, hf);
    if (df == REPDL_OK) {
        CU(cudaDeviceSynchronize());
        compare("embedding forward", ctx, out, gout, n * dim);
    }
    int db = repdl_cuda_embedding_backward_f32(gdout, gids, n, vocab, dim, gdt, NULL);
    status_eq("embedding backward status", db, hb);
    if (db == REPDL_OK) {
        CU(cudaDeviceSynchronize());
        compare("embedding backward", ctx, dt, gdt, vocab * dim);
    }
    CU(cudaFree(gids));
    CU(cudaFree(gtable));
    CU(cudaFree(gdout));
    CU(cudaFree(gout));
    CU(cudaFree(gdt));
    free(table), free(dout), free(ids), free(out), free(dt);
}

/* ---- mse_loss ---- */
static void mse_case(size_t n, int reduction, int kind)
{
    char ctx[64];
    snprintf(ctx, sizeof ctx, "n %zu reduction %d kind %d", n, reduction, kind);
    float *x = gen_array(n, kind), *t = gen_array(n, 0), dloss = gen(0);
    float loss = u2f(0x7fbadbadu), *dx = canaries(n);
    int hf = repdl_mse_loss_forward_f32(n, reduction, x, t, &loss);
    int hb = repdl_mse_loss_backward_f32(n, reduction, x, t, dloss, dx);
    float *gx = dev_copy(x, n), *gt = dev_copy(t, n), *gloss = dev_copy(NULL, 1);
    float *gdx = dev_copy(NULL, n);
    int df = repdl_cuda_mse_loss_forward_f32(n, reduction, gx, gt, gloss, NULL);
    status_eq("mse_loss forward status", df, hf);
    if (df == REPDL_OK) {
        CU(cudaDeviceSynchronize());
        compare("mse_loss forward", ctx, &loss, gloss, 1);
    }
    int db = repdl_cuda_mse_loss_backward_f32(n, reduction, gx, gt, dloss, gdx, NULL);
    status_eq("mse_loss backward status", db, hb);
    if (db == REPDL_OK) {
        CU(cudaDeviceSynchronize());
        compare("mse_loss backward", ctx, dx, gdx, n);
    }
    CU(cudaFree(gx));
    CU(cudaFree(gt));
    CU(cudaFree(gloss));
    CU(cudaFree(gdx));
    free(x), free(t), free(dx);
}

/* ---- bad arguments: the status, before any device work ---- */
static void bad_args(void)
{
    repdl_attention_shape s = {1, 3, 2, 1, 1, 4, 0, 0, 0}; /* hq not a multiple of hkv */
    repdl_attention_shape z = {1, 1, 1, 1, 1, 0, 0, 0, 0}; /* d == 0 */
    repdl_attention_shape c = {1, 1, 1, 4, 2, 4, 0, 0, 1}; /* causal, fewer keys than queries */
    float x[8] = {0};
    struct {
        int rc, want;
        const char *what;
    } cases[] = {
        {repdl_cuda_attention_forward_f32(&s, 1, x, x, x, NULL, NULL, x, x, NULL),
         REPDL_ERR_INVALID, "attention hq % hkv"},
        {repdl_cuda_attention_forward_f32(&z, 1, x, x, x, NULL, NULL, x, x, NULL),
         REPDL_ERR_INVALID, "attention d 0"},
        {repdl_cuda_attention_forward_f32(&c, 1, x, x, x, NULL, NULL, x, x, NULL),
         REPDL_ERR_INVALID, "attention causal nk < nq"},
        {repdl_cuda_attention_forward_f32(NULL, 1, x, x, x, NULL, NULL, x, x, NULL),
         REPDL_ERR_INVALID, "attention shape NULL"},
        {repdl_cuda_rope_table_f32(4, 3, 10000.0f, x, x, NULL), REPDL_ERR_INVALID, "rope d odd"},
        {repdl_cuda_rope_forward_f32(1, 1, 4, 2, 1, 4, x, x, x, x, NULL), REPDL_ERR_INVALID,
         "rope past the table"},
        {repdl_cuda_mse_loss_forward_f32(4, 7, x, x, x + 4, NULL), REPDL_ERR_INVALID,
         "mse_loss reduction"},
        {repdl_cuda_mse_loss_forward_f32(4, REPDL_REDUCTION_SUM, NULL, x, x + 4, NULL),
         REPDL_ERR_INVALID, "mse_loss x NULL"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        checks++;
        if (cases[i].rc != cases[i].want) {
            failures++;
            printf("FAIL %s: status %d, want %d\n", cases[i].what, cases[i].rc, cases[i].want);
        }
    }
}

int main(int argc, char **argv)
{
    int small_run = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) rng_state = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--small") == 0) small_run = 1;
        else {
            fprintf(stderr, "usage: %s [--seed S] [--small]\n", argv[0]);
            return 2;
        }
    }
    gpu_require("test_transformer");
    bad_args();
    attention_random(small_run);
    rope_random(small_run);
    for (int c = 0; c < (small_run ? 6 : 40); c++)
        embedding_case(1 + rng_below(60), 1 + rng_below(70), c == 0 ? 0 : rng_below(300));
    static const size_t mse_n[] = {0, 1, 7, 255, 256, 257, 1000, 4096, 5000};
    for (size_t i = 0; i < sizeof mse_n / sizeof mse_n[0]; i++)
        for (int red = 0; red < 2; red++)
            mse_case(mse_n[i], red ? REPDL_REDUCTION_MEAN : REPDL_REDUCTION_SUM, (int)(i & 1));
    printf("test_transformer: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
