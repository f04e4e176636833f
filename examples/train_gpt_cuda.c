/* SPDX-License-Identifier: MIT */
/* examples/train_gpt_cuda.c: the CUDA side of examples/train_gpt.c
   (--device cuda), built only when nvcc is found (cuda/meson.build, target
   train_gpt_cuda).

   One call computes what train_gpt.c's unit_grad computes on the host for
   S sequences of N tokens: the forward pass, each token's cross-entropy
   (REPDL_REDUCTION_SUM of one row), dlogits divided by the step's token
   count once, the backward pass into a flat gradient; or the forward's
   logits alone (validation).  Every operation is the repdl_cuda_* launcher
   of the host function train_gpt.c calls at the same place (same
   arguments, same order), so the results are the host's bits; the
   sequences' gradients are added on the host by the same buddy tree
   (repdl/data_parallel.h), and clipping and AdamW stay on the host.  The
   head layout copies ([S][N][3D] <-> [S][H][N][hd]) are cudaMemcpy2D
   moves.  The legacy default stream orders everything; copies to and from
   the host are synchronous.

   The flat parameter vector's layout is train_gpt.c's (gpt_dev_model.off:
   tensor 0 the table wte, tensor 1 + 12 l + k the k-th of block l in the
   order ln1.g ln1.b qkv.w qkv.b proj.w proj.b ln2.g ln2.b fc.w fc.b out.w
   out.b, then lnf.g, lnf.b). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include <repdl/attention.h>
#include <repdl/softmax.h>

#include <repdl/cuda.h>

#include "train_gpt_cuda.h"

enum { G_LN1G, G_LN1B, G_QKVW, G_QKVB, G_PROJW, G_PROJB, G_LN2G, G_LN2B, G_FCW, G_FCB,
       G_OUTW, G_OUTB, G_PER_LAYER };
#define G_VOCAB 256

typedef struct dev_layer {
    float *x, *h1, *mean1, *rstd1, *qkv, *q, *k, *v, *o, *lse, *a, *x2, *h2, *mean2, *rstd2, *f, *g;
} dev_layer;

struct gpt_dev {
    gpt_dev_model m;
    size_t S; /* capacity in sequences */
    size_t *off;
    float *P, *G, *cos_tab, *sin_tab;
    dev_layer *la;
    float *xL, *hf, *meanf, *rstdf, *logits;
    float *dx, *dx2, *dh, *dbig, *dqkv, *dq, *dk, *dv, *dout, *da, *dwte, *tokloss;
    float *ones; /* S N ones: db = dy^T ones under --gemm cr */
    int64_t *ids;
    size_t *tgt;
    char err[256];
};

static int dev_fail(gpt_dev *d, const char *what, int status)
{
    snprintf(d->err, sizeof d->err, "%s: %s (cuda error %d)", what, repdl_status_string((repdl_status)status),
             repdl_cuda_last_cuda_error());
    return -1;
}

static int rt_fail(gpt_dev *d, const char *what, cudaError_t e)
{
    snprintf(d->err, sizeof d->err, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

#define LAUNCH(call)                                    \
    do {                                                \
        int s_ = (call);                                \
        if (s_ != REPDL_OK) return dev_fail(d, #call, s_); \
    } while (0)

#define RT(call)                                        \
    do {                                                \
        cudaError_t e_ = (call);                        \
        if (e_ != cudaSuccess) return rt_fail(d, #call, e_); \
    } while (0)

static int dalloc(gpt_dev *d, void **p, size_t bytes)
{
    RT(cudaMalloc(p, bytes ? bytes : 1));
    RT(cudaMemset(*p, 0, bytes ? bytes : 1));
    return 0;
}

#define DAL(p, cnt) \
    if (dalloc(d, (void **)&(p), (cnt) * sizeof(*(p)))) return -1

static size_t t_layer(size_t l, int k) { return 1 + l * G_PER_LAYER + (size_t)k; }

int train_gpt_cuda_init(gpt_dev **out, const gpt_dev_model *m, size_t S, char *err, size_t errlen)
{
    gpt_dev *d;
    size_t T = S * m->N, D = m->D, l, ntensors = 1 + m->L * G_PER_LAYER + 2;
    int st = repdl_cuda_check_device();
    *out = NULL;
    if (st != REPDL_OK) {
        snprintf(err, errlen, "no usable CUDA device (%s, cuda error %d)", repdl_status_string((repdl_status)st),
                 repdl_cuda_last_cuda_error());
        return -1;
    }
    d = (gpt_dev *)calloc(1, sizeof *d);
    if (!d) { snprintf(err, errlen, "out of memory"); return -1; }
    *out = d;
    d->m = *m;
    d->S = S;
    d->off = (size_t *)malloc((ntensors + 1) * sizeof(size_t));
    d->la = (dev_layer *)calloc(m->L, sizeof *d->la);
    if (!d->off || !d->la) { snprintf(err, errlen, "out of memory"); return -1; }
    memcpy(d->off, m->off, (ntensors + 1) * sizeof(size_t));
    d->m.off = d->off;
    if (dalloc(d, (void **)&d->P, m->total * sizeof(float)) ||
        dalloc(d, (void **)&d->G, m->total * sizeof(float)) ||
        dalloc(d, (void **)&d->cos_tab, m->N * (m->hd / 2) * sizeof(float)) ||
        dalloc(d, (void **)&d->sin_tab, m->N * (m->hd / 2) * sizeof(float)))
        goto fail;
    for (l = 0; l < m->L; l++) {
        dev_layer *a = &d->la[l];
        float **p[] = {&a->x, &a->h1, &a->qkv, &a->q, &a->k, &a->v, &a->o, &a->a, &a->x2, &a->h2,
                       &a->f, &a->g, &a->mean1, &a->rstd1, &a->mean2, &a->rstd2, &a->lse};
        size_t cnt[] = {T * D, T * D, T * 3 * D, T * D, T * D, T * D, T * D, T * D, T * D, T * D,
                        T * 4 * D, T * 4 * D, T, T, T, T, T * m->H};
        size_t i;
        for (i = 0; i < sizeof p / sizeof p[0]; i++)
            if (dalloc(d, (void **)p[i], cnt[i] * sizeof(float))) goto fail;
    }
    {
        float **p[] = {&d->xL, &d->hf, &d->meanf, &d->rstdf, &d->logits, &d->dx, &d->dx2, &d->dh,
                       &d->dbig, &d->dqkv, &d->dq, &d->dk, &d->dv, &d->dout, &d->da, &d->dwte,
                       &d->tokloss, &d->ones};
        size_t cnt[] = {T * D, T * D, T, T, T * G_VOCAB, T * D, T * D, T * D, T * 4 * D,
                        T * 3 * D, T * D, T * D, T * D, T * D, T * D, G_VOCAB * D, T, T};
        size_t i;
        for (i = 0; i < sizeof p / sizeof p[0]; i++)
            if (dalloc(d, (void **)p[i], cnt[i] * sizeof(float))) goto fail;
    }
    if (dalloc(d, (void **)&d->ids, T * sizeof(int64_t)) ||
        dalloc(d, (void **)&d->tgt, T * sizeof(size_t)))
        goto fail;
    {
        cudaError_t e = cudaMemcpy(d->cos_tab, m->cos_tab, m->N * (m->hd / 2) * sizeof(float),
                                   cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaMemcpy(d->sin_tab, m->sin_tab, m->N * (m->hd / 2) * sizeof(float),
                           cudaMemcpyHostToDevice);
        if (e != cudaSuccess) { rt_fail(d, "cudaMemcpy (the RoPE table)", e); goto fail; }
    }
    {
        float *h = (float *)malloc((T ? T : 1) * sizeof(float));
        size_t i;
        cudaError_t e;
        if (!h) { snprintf(d->err, sizeof d->err, "out of memory"); goto fail; }
        for (i = 0; i < T; i++) h[i] = 1.0f;
        e = cudaMemcpy(d->ones, h, T * sizeof(float), cudaMemcpyHostToDevice);
        free(h);
        if (e != cudaSuccess) { rt_fail(d, "cudaMemcpy (ones)", e); goto fail; }
    }
    return 0;
fail:
    snprintf(err, errlen, "%s", d->err);
    return -1;
}

void train_gpt_cuda_free(gpt_dev *d)
{
    size_t l;
    if (!d) return;
    if (d->la)
        for (l = 0; l < d->m.L; l++) {
            dev_layer *a = &d->la[l];
            float *p[] = {a->x, a->h1, a->mean1, a->rstd1, a->qkv, a->q, a->k, a->v, a->o,
                          a->lse, a->a, a->x2, a->h2, a->mean2, a->rstd2, a->f, a->g};
            size_t i;
            for (i = 0; i < sizeof p / sizeof p[0]; i++) cudaFree(p[i]);
        }
    {
        void *p[] = {d->P, d->G, d->cos_tab, d->sin_tab, d->xL, d->hf, d->meanf, d->rstdf,
                     d->logits, d->dx, d->dx2, d->dh, d->dbig, d->dqkv, d->dq, d->dk, d->dv,
                     d->dout, d->da, d->dwte, d->tokloss, d->ones, d->ids, d->tgt};
        size_t i;
        for (i = 0; i < sizeof p / sizeof p[0]; i++) cudaFree(p[i]);
    }
    free(d->la);
    free(d->off);
    free(d);
}

const char *train_gpt_cuda_error(const gpt_dev *d)
{
    return d && d->err[0] ? d->err : "unknown error";
}

int train_gpt_cuda_set_params(gpt_dev *d, const float *P)
{
    RT(cudaMemcpy(d->P, P, d->m.total * sizeof(float), cudaMemcpyHostToDevice));
    return 0;
}

/* The linear products: the FMA chain (repdl_cuda_linear_*) or, with
   --gemm cr, the correctly rounded product (train_linear_cr.h's calls,
   through repdl_cuda_gemm_cr_f32; db = dy^T times a column of ones). */
static int lin_fwd(gpt_dev *d, size_t M, size_t K, size_t N, const float *x, const float *W,
                   const float *b, float *y)
{
    if (d->m.gemm_cr) LAUNCH(repdl_cuda_gemm_cr_f32(0, 1, M, N, K, x, K, W, K, b, y, N, NULL));
    else LAUNCH(repdl_cuda_linear_forward_f32(M, K, N, x, W, b, y, NULL));
    return 0;
}

static int lin_bwd(gpt_dev *d, size_t M, size_t K, size_t N, const float *x, const float *W,
                   const float *dy, float *dx, float *dW, float *db)
{
    if (!d->m.gemm_cr) {
        LAUNCH(repdl_cuda_linear_backward_f32(M, K, N, x, W, dy, dx, dW, db, NULL));
        return 0;
    }
    if (dx) LAUNCH(repdl_cuda_gemm_cr_f32(0, 0, M, K, N, dy, N, W, K, NULL, dx, K, NULL));
    if (dW) LAUNCH(repdl_cuda_gemm_cr_f32(1, 0, N, K, M, dy, N, x, K, NULL, dW, K, NULL));
    if (db) /* M <= S N: the first M of d->ones */
        LAUNCH(repdl_cuda_gemm_cr_f32(1, 0, N, 1, M, dy, N, d->ones, 1, NULL, db, 1, NULL));
    return 0;
}

/* train_gpt.c's heads_copy on device memory: [S][n][width] rows, part
   0/1/2 (q/k/v) at column part D + h hd <-> [S][H][n][hd]. */
static int heads_copy(gpt_dev *d, size_t S, size_t n, int part, float *rows, float *heads,
                      int to_heads, size_t width)
{
    size_t s, h, D = d->m.D, hd = d->m.hd, H = d->m.H;
    for (s = 0; s < S; s++)
        for (h = 0; h < H; h++) {
            float *r = rows + s * n * width + (size_t)part * D + h * hd;
            float *q = heads + (s * H + h) * n * hd;
            if (to_heads)
                RT(cudaMemcpy2D(q, hd * sizeof(float), r, width * sizeof(float), hd * sizeof(float), n,
                                cudaMemcpyDeviceToDevice));
            else
                RT(cudaMemcpy2D(r, width * sizeof(float), q, hd * sizeof(float), hd * sizeof(float), n,
                                cudaMemcpyDeviceToDevice));
        }
    return 0;
}

static repdl_attention_shape attn_shape(const gpt_dev *d, size_t S, size_t n)
{
    repdl_attention_shape s;
    memset(&s, 0, sizeof s);
    s.batch = S; s.hq = d->m.H; s.hkv = d->m.H; s.nq = n; s.nk = n; s.d = d->m.hd;
    s.q_pos0 = 0; s.kv_stride = 0; s.causal = 1;
    return s;
}

#define TRY(call) \
    if ((call) != 0) return -1

/* train_gpt.c's forward: logits [S n][256] of d->ids. */
static int forward(gpt_dev *d, size_t S, size_t n)
{
    size_t T = S * n, D = d->m.D, l;
    const float *P = d->P;
    const size_t *off = d->m.off;
    repdl_attention_shape as = attn_shape(d, S, n);
    LAUNCH(repdl_cuda_embedding_forward_f32(P + off[0], G_VOCAB, D, d->ids, T, d->la[0].x, NULL));
    for (l = 0; l < d->m.L; l++) {
        dev_layer *a = &d->la[l];
        float *next = l + 1 < d->m.L ? d->la[l + 1].x : d->xL;
        const float *x = a->x;
#define TP(k) (P + off[t_layer(l, k)])
        LAUNCH(repdl_cuda_layer_norm_forward_f32(T, D, 1e-5f, x, TP(G_LN1G), TP(G_LN1B), a->h1,
                                                 a->mean1, a->rstd1, NULL));
        TRY(lin_fwd(d, T, D, 3 * D, a->h1, TP(G_QKVW), TP(G_QKVB), a->qkv));
        TRY(heads_copy(d, S, n, 0, a->qkv, a->q, 1, 3 * D));
        TRY(heads_copy(d, S, n, 1, a->qkv, a->k, 1, 3 * D));
        TRY(heads_copy(d, S, n, 2, a->qkv, a->v, 1, 3 * D));
        LAUNCH(repdl_cuda_rope_forward_f32(S, d->m.H, n, d->m.hd, 0, d->m.N, d->cos_tab, d->sin_tab,
                                           a->q, a->q, NULL));
        LAUNCH(repdl_cuda_rope_forward_f32(S, d->m.H, n, d->m.hd, 0, d->m.N, d->cos_tab, d->sin_tab,
                                           a->k, a->k, NULL));
        LAUNCH(repdl_cuda_attention_forward_f32(&as, d->m.scale, a->q, a->k, a->v, NULL, NULL, a->o,
                                                a->lse, NULL));
        TRY(heads_copy(d, S, n, 0, a->a, a->o, 0, D));
        TRY(lin_fwd(d, T, D, D, a->a, TP(G_PROJW), TP(G_PROJB), a->x2));
        LAUNCH(repdl_cuda_add_f32(T * D, x, a->x2, a->x2, NULL));
        LAUNCH(repdl_cuda_layer_norm_forward_f32(T, D, 1e-5f, a->x2, TP(G_LN2G), TP(G_LN2B), a->h2,
                                                 a->mean2, a->rstd2, NULL));
        TRY(lin_fwd(d, T, D, 4 * D, a->h2, TP(G_FCW), TP(G_FCB), a->f));
        LAUNCH(repdl_cuda_gelu_array_f32(T * 4 * D, a->f, a->g, NULL));
        TRY(lin_fwd(d, T, 4 * D, D, a->g, TP(G_OUTW), TP(G_OUTB), next));
        LAUNCH(repdl_cuda_add_f32(T * D, a->x2, next, next, NULL));
#undef TP
    }
    {
        size_t lnf = 1 + d->m.L * G_PER_LAYER;
        LAUNCH(repdl_cuda_layer_norm_forward_f32(T, D, 1e-5f, d->xL, P + off[lnf], P + off[lnf + 1],
                                                 d->hf, d->meanf, d->rstdf, NULL));
    }
    TRY(lin_fwd(d, T, D, G_VOCAB, d->hf, P + off[0], NULL, d->logits));
    return 0;
}

/* train_gpt.c's backward: dlogits in d->logits, the gradient into d->G. */
static int backward(gpt_dev *d, size_t S, size_t n)
{
    size_t T = S * n, D = d->m.D, l, lnf = 1 + d->m.L * G_PER_LAYER;
    const float *P = d->P;
    float *G = d->G;
    const size_t *off = d->m.off;
    repdl_attention_shape as = attn_shape(d, S, n);
    TRY(lin_bwd(d, T, D, G_VOCAB, d->hf, P + off[0], d->logits, d->dh, d->dwte, NULL));
    LAUNCH(repdl_cuda_layer_norm_backward_f32(T, D, d->xL, P + off[lnf], d->meanf, d->rstdf, d->dh,
                                              d->dx, G + off[lnf], G + off[lnf + 1], NULL));
    for (l = d->m.L; l-- > 0;) {
        dev_layer *a = &d->la[l];
#define TP(k) (P + off[t_layer(l, k)])
#define TG(k) (G + off[t_layer(l, k)])
        TRY(lin_bwd(d, T, 4 * D, D, a->g, TP(G_OUTW), d->dx, d->dbig, TG(G_OUTW), TG(G_OUTB)));
        LAUNCH(repdl_cuda_gelu_backward_array_f32(T * 4 * D, a->f, d->dbig, d->dbig, NULL));
        TRY(lin_bwd(d, T, D, 4 * D, a->h2, TP(G_FCW), d->dbig, d->dh, TG(G_FCW), TG(G_FCB)));
        LAUNCH(repdl_cuda_layer_norm_backward_f32(T, D, a->x2, TP(G_LN2G), a->mean2, a->rstd2, d->dh,
                                                  d->dx2, TG(G_LN2G), TG(G_LN2B), NULL));
        LAUNCH(repdl_cuda_add_f32(T * D, d->dx, d->dx2, d->dx2, NULL));
        TRY(lin_bwd(d, T, D, D, a->a, TP(G_PROJW), d->dx2, d->da, TG(G_PROJW), TG(G_PROJB)));
        TRY(heads_copy(d, S, n, 0, d->da, d->dout, 1, D));
        LAUNCH(repdl_cuda_attention_backward_f32(&as, d->m.scale, a->q, a->k, a->v, NULL, NULL, a->o,
                                                 a->lse, d->dout, d->dq, d->dk, d->dv, NULL));
        LAUNCH(repdl_cuda_rope_backward_f32(S, d->m.H, n, d->m.hd, 0, d->m.N, d->cos_tab, d->sin_tab,
                                            d->dq, d->dq, NULL));
        LAUNCH(repdl_cuda_rope_backward_f32(S, d->m.H, n, d->m.hd, 0, d->m.N, d->cos_tab, d->sin_tab,
                                            d->dk, d->dk, NULL));
        TRY(heads_copy(d, S, n, 0, d->dqkv, d->dq, 0, 3 * D));
        TRY(heads_copy(d, S, n, 1, d->dqkv, d->dk, 0, 3 * D));
        TRY(heads_copy(d, S, n, 2, d->dqkv, d->dv, 0, 3 * D));
        TRY(lin_bwd(d, T, D, 3 * D, a->h1, TP(G_QKVW), d->dqkv, d->dh, TG(G_QKVW), TG(G_QKVB)));
        LAUNCH(repdl_cuda_layer_norm_backward_f32(T, D, a->x, TP(G_LN1G), a->mean1, a->rstd1, d->dh,
                                                  d->dx, TG(G_LN1G), TG(G_LN1B), NULL));
        LAUNCH(repdl_cuda_add_f32(T * D, d->dx2, d->dx, d->dx, NULL));
#undef TP
#undef TG
    }
    LAUNCH(repdl_cuda_embedding_backward_f32(d->dx, d->ids, T, G_VOCAB, D, G + off[0], NULL));
    LAUNCH(repdl_cuda_add_f32(G_VOCAB * D, d->dwte, G + off[0], G + off[0], NULL));
    return 0;
}

static int put_ids(gpt_dev *d, const int64_t *ids, const size_t *tgt, size_t S)
{
    size_t T = S * d->m.N;
    if (S > d->S) {
        snprintf(d->err, sizeof d->err, "%zu sequences in one call, capacity %zu", S, d->S);
        return -1;
    }
    RT(cudaMemcpy(d->ids, ids, T * sizeof(int64_t), cudaMemcpyHostToDevice));
    if (tgt) RT(cudaMemcpy(d->tgt, tgt, T * sizeof(size_t), cudaMemcpyHostToDevice));
    return 0;
}

int train_gpt_cuda_grad(gpt_dev *d, const int64_t *ids, const size_t *tgt, size_t S, size_t count,
                        float *tokloss, float *grad)
{
    size_t N = d->m.N, T = S * N, r;
    TRY(put_ids(d, ids, tgt, S));
    TRY(forward(d, S, N));
    /* train_gpt.c's token_losses: each token's own cross-entropy (SUM of
       one row), dlogits in place */
    for (r = 0; r < T; r++) {
        float *z = d->logits + r * G_VOCAB;
        LAUNCH(repdl_cuda_cross_entropy_f32(1, G_VOCAB, REPDL_REDUCTION_SUM, z, d->tgt + r,
                                            d->tokloss + r, z, NULL));
    }
    RT(cudaMemcpy(tokloss, d->tokloss, T * sizeof(float), cudaMemcpyDeviceToHost));
    /* the mean over the step's tokens: one division */
    LAUNCH(repdl_cuda_div_count_f32(T * G_VOCAB, count, d->logits, d->logits, NULL));
    TRY(backward(d, S, N));
    RT(cudaMemcpy(grad, d->G, d->m.total * sizeof(float), cudaMemcpyDeviceToHost));
    return 0;
}

int train_gpt_cuda_logits(gpt_dev *d, const int64_t *ids, size_t S, float *logits)
{
    TRY(put_ids(d, ids, NULL, S));
    TRY(forward(d, S, d->m.N));
    RT(cudaMemcpy(logits, d->logits, S * d->m.N * G_VOCAB * sizeof(float), cudaMemcpyDeviceToHost));
    return 0;
}
