/* SPDX-License-Identifier: MIT */
/* examples/train_gpt.c: a character-level GPT trained on the Jargon File
   with repdl only, the same SHA-256 hashes on every machine (docs/train.md,
   "The GPT example").

     train_gpt [--layers L] [--dmodel D] [--heads H] [--ctx N] [--batch B]
               [--steps K] [--seed S] [--lr LR] [--wd WD] [--clip C]
               [--val-seqs K] [--threads T] [--data FILE]
               [--save CKPT] [--stop-at K] [--resume CKPT] [--gemm fma|cr] [--quiet]
               [--time]
     train_gpt --generate --resume CKPT [--prompt TEXT] [--no-cache] [--threads T]
               [--gemm fma|cr]
     train_gpt --serve-check --resume CKPT [--data FILE] [--gemm fma|cr]
     mpirun -np R train_gpt ...        (a build with MPI: -DTRAIN_HAVE_MPI)

   The model (defaults: 4 layers, d_model 128, 4 heads, context 128):
     tokens      the bytes of the text (vocabulary 256)
     embedding   wte [256][D] (repdl_embedding_forward_f32), no position
                 table: rotary embeddings (repdl/rope.h, base 10000) on the
                 queries and keys of every head
     block       pre-LN: x += proj(attention(rope(q), rope(k), v)) of
                 LN1(x); x += W2 gelu(W1 LN2(x)) (4D hidden units); layer
                 norms with eps 1e-5; causal attention (repdl/attention.h),
                 scale RN(1 / RN(sqrt(D / H)))
     head        LNf, then logits = LNf(x) wte^T: the embedding table tied
                 to the output projection
   Weight tying: the table's gradient is RN(d_out + d_emb), element by
   element, d_out the output projection's (repdl_linear_backward_f32's dW)
   and d_emb the embedding's (repdl_embedding_backward_f32), each in its
   own canonical order; the sum of two terms is the same bits in either
   order.

   Every number that reaches the weights comes from a repdl operation:
     init        repdl_rng_normal_fill_f32: N(0, 0.02), the two residual
                 projections of each block N(0, RN(0.02 / RN(sqrt(2 L)))),
                 biases and layer-norm beta 0, gamma 1; tensor t from the
                 stream (seed, t * 2^32)
     data        the text's first 90% (bytes) trains, the rest validates;
                 training windows of N + 1 bytes start at multiples of N;
                 epoch e visits them in the order of
                 repdl_rng_permutation(W, seed, e), B windows a step
     gradient    the data-parallel step (repdl/data_parallel.h), one
                 sequence a micro-batch: the buddy tree over the sequences'
                 gradients, whatever the thread and rank counts; the loss
                 is the mean over the B N tokens (each token's
                 cross-entropy, dlogits divided by B N once)
     clipping    repdl_clip_grad_norm_f32 over the tensors in the hash
                 order, max norm --clip (1.0), eps 1e-6
     update      AdamW (repdl_adam_step_f32, decoupled), lr --lr (1e-3),
                 betas 0.9, 0.95, eps 1e-8, weight decay --wd (0.1) on the
                 five matrices of each block and on wte, 0 elsewhere; the
                 elements shared among the threads (elementwise: any split
                 gives the same bits)
   so the trained weights, the validation logits and the sample are the
   same bits for any compiler, flags, thread count or MPI rank count.

   --device cuda (the build with CUDA: cuda/meson.build's train_gpt_cuda):
   each sequence's forward, losses and backward, and the validation
   logits, on the GPU (examples/train_gpt_cuda.c: the repdl_cuda_*
   launchers of the same operations, the host's bits); the sequences'
   gradients added, clipped and applied by AdamW on the host as above; the
   sample, --generate and --serve-check on the host.  One host thread; not
   under mpirun.  Without a usable GPU (or in a build without CUDA): exit
   status 3, before the data is read.

   --gemm cr: every linear product (the four of each block and the tied
   output projection: y = x W^T + b, dx = dy W, dW = dy^T x, db = dy^T 1)
   correctly rounded (repdl_gemm_cr_f32, train_linear_cr.h), dW and db over
   the N tokens of one sequence (the micro-batch), added by the same buddy
   tree; in training, generation and --serve-check alike.  Its own hashes
   (tests/train/expected.txt [gpt-short-cr]).  A checkpoint does not
   record it: resume (and --generate) with the --gemm the model was
   trained with.

   Printed (SHA-256 of little-endian binary32 bytes):
     init_weights_sha256     the tensors in the order wte, then per block
                             ln1.g ln1.b qkv.w qkv.b proj.w proj.b ln2.g
                             ln2.b fc.w fc.b out.w out.b, then lnf.g lnf.b
     trained_weights_sha256  the same after training
     val_logits_sha256       logits [K][N][256] of the first K validation
                             windows (--val-seqs, windows of N + 1 bytes at
                             multiples of N of the validation text)
     val_loss                their mean cross-entropy over the K N tokens
                             (the canonical sum, one division), decimal and
                             the bits
     sample_sha256, sample   200 bytes of greedy decoding (each next byte the
                             first argmax of the last position's logits over
                             the last at most N bytes, positions from 0),
                             from a prompt of the first N / 2 (at most 32)
                             bytes of the validation text or --prompt;
                             printed C-escaped.  Decoded through a
                             key/value cache per layer (RoPE at each
                             token's position); past the context each step
                             prefills the window of the last N bytes anew
                             (positions 0 .. N - 1): the bits of the
                             recomputation, which --no-cache runs instead

   --serve-check --resume CKPT: the logits of 8 prompts of different
   lengths, alone and in one batch of 8, prefilled whole or in chunks of 1,
   7 and 32 tokens, then decoded a token at a time through the cache, and
   recomputed without it: a SHA-256 a way (serve_logits_sha256), the same
   for all 9 ways, and the sample's logits both ways; exit status 1 when
   any differ (serve_check below).

   Checkpoints (--save, at the end or at --stop-at): the configuration, the
   step, the parameters and AdamW's moments and state, a SHA-256 trailer,
   written to a temporary file and renamed.  A run resumed from one prints
   the hashes of the uninterrupted run.

   --time: each training step's wall and process CPU time (all threads) on
   stderr, "step_time K WALL_MS CPU_MS" (bench/attention/gpt_step.sh reads
   them); stdout and the hashes are unchanged.

   Exit status: 0 done; 1 other failure; 2 bad usage; 3 --device cuda
   without CUDA; 4 the data file is
   missing or unreadable; 5 bad checkpoint; 6 the floating-point
   environment flushes subnormals. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#ifdef TRAIN_HAVE_MPI
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#define REPDL_DP_MPI 1
#endif
#include <repdl/repdl.h>
#include <repdl/attention.h>
#include <repdl/clip.h>
#include <repdl/data_parallel.h>
#include <repdl/embedding.h>
#include <repdl/rope.h>

#include "../tests/golden/sha256.h"
#include "train_gpt_cuda.h"
#include "train_linear_cr.h"
#include "train_args.h"

#define EXIT_USAGE 2
#define EXIT_NO_CUDA 3
#define EXIT_DATA 4
#define EXIT_CKPT 5
#define EXIT_FPENV 6

#define VOCAB 256
#define SAMPLE_LEN 200
#define DATA_MAX ((size_t)64 << 20) /* the text read, at most */
#define DEFAULT_DATA "/usr/share/doc/jargon-text/jargon.txt.gz"

#ifdef TRAIN_HAVE_MPI
static int g_mpi = 0;
#endif
static int g_rank = 0, g_size = 1;
#ifndef TRAIN_HAVE_CUDA
/* The build without CUDA: --device cuda always refuses (exit status 3). */
int train_gpt_cuda_init(gpt_dev **dev, const gpt_dev_model *m, size_t S, char *err, size_t errlen)
{
    (void)m;
    (void)S;
    *dev = NULL;
    snprintf(err, errlen, "this build of train_gpt has no CUDA support (nvcc was not found "
             "when it was built)");
    return -1;
}
int train_gpt_cuda_set_params(gpt_dev *d, const float *P) { (void)d; (void)P; return -1; }
int train_gpt_cuda_grad(gpt_dev *d, const int64_t *ids, const size_t *tgt, size_t S, size_t count,
                        float *tokloss, float *grad)
{
    (void)d; (void)ids; (void)tgt; (void)S; (void)count; (void)tokloss; (void)grad;
    return -1;
}
int train_gpt_cuda_logits(gpt_dev *d, const int64_t *ids, size_t S, float *logits)
{
    (void)d; (void)ids; (void)S; (void)logits;
    return -1;
}
const char *train_gpt_cuda_error(const gpt_dev *d) { (void)d; return "no CUDA in this build"; }
void train_gpt_cuda_free(gpt_dev *d) { (void)d; }
#endif

/* --gemm cr: the linear products through train_linear_cr.h */
static int g_gemm_cr = 0;

static repdl_status lin_fwd(size_t M, size_t K, size_t N, const float *x, const float *W,
                            const float *b, float *y)
{
    return g_gemm_cr ? train_linear_cr_forward(M, K, N, x, W, b, y)
                     : repdl_linear_forward_f32(M, K, N, x, W, b, y);
}

static repdl_status lin_bwd(size_t M, size_t K, size_t N, const float *x, const float *W,
                            const float *dy, float *dx, float *dW, float *db)
{
    return g_gemm_cr ? train_linear_cr_backward(M, K, N, x, W, dy, dx, dW, db)
                     : repdl_linear_backward_f32(M, K, N, x, W, dy, dx, dW, db);
}

/* ---- options ---- */
typedef struct options {
    uint64_t layers, dmodel, heads, ctx, batch, steps, seed, val_seqs, stop_at;
    float lr, wd, clip;
    int threads, quiet, generate, have_stop, no_cache, serve_check, gemm_cr, cuda, timing;
    const char *data, *save, *resume, *prompt;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: train_gpt [--layers L] [--dmodel D] [--heads H] [--ctx N] [--batch B]\n"
            "                 [--steps K] [--seed S] [--lr LR] [--wd WD] [--clip C]\n"
            "                 [--val-seqs K] [--threads T] [--data FILE]\n"
            "                 [--save CKPT] [--stop-at K] [--resume CKPT] [--quiet] [--time]\n"
            "       train_gpt --generate --resume CKPT [--prompt TEXT] [--no-cache] [--threads T]\n"
            "       train_gpt --serve-check --resume CKPT [--data FILE]\n"
            "--gemm fma|cr: the linear products, fma (default) the FMA chain of repdl_linear_*,\n"
            "cr correctly rounded (repdl_gemm_cr_f32; its own hashes; not in the checkpoint)\n"
            "--device cpu|cuda: where training and validation compute (a build with CUDA;\n"
            "the same hashes; --threads is then 1; exit status 3 without a usable GPU)\n"
            "defaults: 4 layers, d_model 128, 4 heads, context 128, batch 16, 100 steps,\n"
            "seed 1, lr 1e-3, weight decay 0.1, clip 1.0, 8 validation windows,\n"
            "data " DEFAULT_DATA " (Debian's jargon-text)\n");
}

static int parse_f32(const char *s, float *v)
{
    char *end;
    float x;
    if (!s || !*s) return -1;
    errno = 0;
    x = strtof(s, &end);
    if (errno || *end || !(x >= 0.0f) || !(x <= 3.4e38f)) return -1;
    *v = x;
    return 0;
}

static int parse_args(int argc, char **argv, options *o)
{
    int i;
    memset(o, 0, sizeof *o);
    o->layers = 4; o->dmodel = 128; o->heads = 4; o->ctx = 128; o->batch = 16;
    o->steps = 100; o->seed = 1; o->val_seqs = 8;
    o->lr = 1e-3f; o->wd = 0.1f; o->clip = 1.0f;
    o->threads = 1;
    o->data = DEFAULT_DATA;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t t;
        int bad = 0, takes = 1;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); exit(0); }
        else if (!strcmp(a, "--quiet")) { o->quiet = 1; takes = 0; }
        else if (!strcmp(a, "--time")) { o->timing = 1; takes = 0; }
        else if (!strcmp(a, "--generate")) { o->generate = 1; takes = 0; }
        else if (!strcmp(a, "--no-cache")) { o->no_cache = 1; takes = 0; }
        else if (!strcmp(a, "--serve-check")) { o->serve_check = o->generate = 1; takes = 0; }
        else if (!strcmp(a, "--layers")) bad = parse_u64(v, &o->layers) || o->layers < 1 || o->layers > 64;
        else if (!strcmp(a, "--dmodel")) bad = parse_u64(v, &o->dmodel) || o->dmodel < 2 || o->dmodel > 4096;
        else if (!strcmp(a, "--heads")) bad = parse_u64(v, &o->heads) || o->heads < 1 || o->heads > 4096;
        else if (!strcmp(a, "--ctx")) bad = parse_u64(v, &o->ctx) || o->ctx < 2 || o->ctx > 4096;
        else if (!strcmp(a, "--batch")) bad = parse_u64(v, &o->batch) || o->batch < 1 || o->batch > 65536;
        else if (!strcmp(a, "--steps")) bad = parse_u64(v, &o->steps);
        else if (!strcmp(a, "--seed")) bad = parse_u64(v, &o->seed);
        else if (!strcmp(a, "--val-seqs")) bad = parse_u64(v, &o->val_seqs) || o->val_seqs > 65536;
        else if (!strcmp(a, "--stop-at")) { bad = parse_u64(v, &o->stop_at); o->have_stop = 1; }
        else if (!strcmp(a, "--lr")) bad = parse_f32(v, &o->lr);
        else if (!strcmp(a, "--wd")) bad = parse_f32(v, &o->wd);
        else if (!strcmp(a, "--clip")) bad = parse_f32(v, &o->clip);
        else if (!strcmp(a, "--threads")) {
            bad = parse_u64(v, &t) || t < 1 || t > 256;
            o->threads = (int)t;
        } else if (!strcmp(a, "--data")) bad = !v, o->data = v;
        else if (!strcmp(a, "--save")) bad = !v, o->save = v;
        else if (!strcmp(a, "--resume")) bad = !v, o->resume = v;
        else if (!strcmp(a, "--prompt")) bad = !v, o->prompt = v;
        else if (!strcmp(a, "--device")) {
            bad = !v || (strcmp(v, "cpu") && strcmp(v, "cuda"));
            o->cuda = !bad && !strcmp(v, "cuda");
        } else if (!strcmp(a, "--gemm")) {
            bad = !v || (strcmp(v, "fma") && strcmp(v, "cr"));
            o->gemm_cr = !bad && !strcmp(v, "cr");
        }
        else {
            fprintf(stderr, "train_gpt: unknown argument '%s'\n", a);
            usage(stderr);
            return -1;
        }
        if (bad) {
            fprintf(stderr, "train_gpt: %s needs a valid value\n", a);
            return -1;
        }
        i += takes;
    }
    if (o->dmodel % o->heads || (o->dmodel / o->heads) % 2) {
        fprintf(stderr, "train_gpt: --dmodel must be --heads times an even head size\n");
        return -1;
    }
    if (o->generate && !o->resume) {
        fprintf(stderr, "train_gpt: --generate (or --serve-check) needs --resume CKPT (a trained model)\n");
        return -1;
    }
    if (o->have_stop && (!o->save || o->stop_at > o->steps)) {
        fprintf(stderr, "train_gpt: --stop-at K needs --save and K <= --steps\n");
        return -1;
    }
    return 0;
}

/* ---- the text ---- */
/* The gzip file (or a plain file: zlib reads both) into *buf, at most
   DATA_MAX bytes; 0, or -1 with a message. */
static int read_text(const char *path, unsigned char **buf, size_t *len)
{
    gzFile f = gzopen(path, "rb");
    size_t cap = (size_t)1 << 20, n = 0;
    unsigned char *p;
    if (!f) {
        fprintf(stderr,
                "train_gpt: cannot open %s: %s\n"
                "  The corpus is the Jargon File of Debian's package jargon-text\n"
                "  (apt-get install jargon-text; scripts/deps.sh installs it).  A system\n"
                "  that strips /usr/share/doc (Docker's minimal images do) removes it:\n"
                "  give a copy with --data FILE.\n",
                path, strerror(errno ? errno : ENOENT));
        return -1;
    }
    p = (unsigned char *)malloc(cap);
    for (;;) {
        int got;
        if (!p) break;
        if (n == cap) {
            unsigned char *q;
            if (cap >= DATA_MAX) {
                fprintf(stderr, "train_gpt: %s: more than %zu bytes\n", path, DATA_MAX);
                free(p);
                gzclose(f);
                return -1;
            }
            q = (unsigned char *)realloc(p, cap * 2);
            if (!q) { free(p); p = NULL; break; }
            p = q;
            cap *= 2;
        }
        got = gzread(f, p + n, (unsigned)(cap - n));
        if (got < 0) {
            int e;
            fprintf(stderr, "train_gpt: %s: %s\n", path, gzerror(f, &e));
            free(p);
            gzclose(f);
            return -1;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    gzclose(f);
    if (!p) {
        fprintf(stderr, "train_gpt: out of memory reading %s\n", path);
        return -1;
    }
    *buf = p;
    *len = n;
    return 0;
}

/* ---- the model ---- */
enum { T_LN1G, T_LN1B, T_QKVW, T_QKVB, T_PROJW, T_PROJB, T_LN2G, T_LN2B, T_FCW, T_FCB,
       T_OUTW, T_OUTB, T_PER_LAYER };

typedef struct model {
    size_t L, D, H, hd, N;
    size_t ntensors;
    size_t *off, *count;  /* [ntensors] offsets into the flat vector, sizes */
    size_t total;
    float scale;          /* RN(1 / RN(sqrt(hd))) */
    float *cos_tab, *sin_tab; /* the RoPE table, [N][hd / 2] */
} model;

static size_t t_wte(void) { return 0; }
static size_t t_layer(size_t l, int k) { return 1 + l * T_PER_LAYER + (size_t)k; }
static size_t t_lnfg(const model *m) { return 1 + m->L * T_PER_LAYER; }

static int model_init(model *m, const options *o)
{
    size_t t, l, D;
    memset(m, 0, sizeof *m);
    m->L = (size_t)o->layers;
    m->D = D = (size_t)o->dmodel;
    m->H = (size_t)o->heads;
    m->hd = D / m->H;
    m->N = (size_t)o->ctx;
    m->ntensors = 1 + m->L * T_PER_LAYER + 2;
    m->off = (size_t *)calloc(m->ntensors + 1, sizeof(size_t));
    m->count = (size_t *)calloc(m->ntensors, sizeof(size_t));
    m->cos_tab = (float *)malloc(m->N * (m->hd / 2) * sizeof(float));
    m->sin_tab = (float *)malloc(m->N * (m->hd / 2) * sizeof(float));
    if (!m->off || !m->count || !m->cos_tab || !m->sin_tab) return -1;
    m->count[t_wte()] = VOCAB * D;
    for (l = 0; l < m->L; l++) {
        static const size_t mult[T_PER_LAYER][2] = {{1, 0}, {1, 0}, {3, 1}, {3, 0}, {1, 1}, {1, 0},
                                                    {1, 0}, {1, 0}, {4, 1}, {4, 0}, {4, 1}, {1, 0}};
        int k;
        for (k = 0; k < T_PER_LAYER; k++)
            m->count[t_layer(l, k)] = mult[k][0] * D * (mult[k][1] ? D : 1);
    }
    m->count[t_lnfg(m)] = D;
    m->count[t_lnfg(m) + 1] = D;
    for (t = 0; t < m->ntensors; t++) m->off[t + 1] = m->off[t] + m->count[t];
    m->total = m->off[m->ntensors];
    m->scale = repdl__fdiv(1.0f, repdl_sqrt_f32((float)m->hd));
    if (repdl_rope_table_f32(m->N, m->hd, 10000.0f, m->cos_tab, m->sin_tab) != REPDL_OK) return -1;
    return 0;
}

static void model_free(model *m)
{
    free(m->off);
    free(m->count);
    free(m->cos_tab);
    free(m->sin_tab);
}

/* 1 for the matrices that take weight decay (wte, qkv.w, proj.w, fc.w, out.w). */
static int tensor_decays(const model *m, size_t t)
{
    size_t k;
    if (t == t_wte()) return 1;
    if (t >= t_lnfg(m)) return 0;
    k = (t - 1) % T_PER_LAYER;
    return k == T_QKVW || k == T_PROJW || k == T_FCW || k == T_OUTW;
}

static void model_init_weights(const model *m, uint64_t seed, float *P)
{
    float std_res = repdl__fdiv(0.02f, repdl_sqrt_f32((float)(2 * m->L)));
    size_t t;
    for (t = 0; t < m->ntensors; t++) {
        float *w = P + m->off[t];
        size_t n = m->count[t], i, k = (t - 1) % T_PER_LAYER;
        int ln_gain = t == t_lnfg(m) || (t != t_wte() && t < t_lnfg(m) && (k == T_LN1G || k == T_LN2G));
        int bias = t == t_lnfg(m) + 1 || (t != t_wte() && t < t_lnfg(m) && (k == T_LN1B || k == T_LN2B ||
                                                                     k == T_QKVB || k == T_PROJB ||
                                                                     k == T_FCB || k == T_OUTB));
        if (ln_gain) for (i = 0; i < n; i++) w[i] = 1.0f;
        else if (bias) for (i = 0; i < n; i++) w[i] = 0.0f;
        else {
            int res = t != t_wte() && (k == T_PROJW || k == T_OUTW);
            repdl_rng_normal_fill_f32(n, seed, (uint64_t)t << 32, 0.0f, res ? std_res : 0.02f, w);
        }
    }
}

/* ---- activations of one micro-batch (S sequences of n tokens) ---- */
typedef struct layer_acts {
    float *x, *h1, *mean1, *rstd1, *qkv, *q, *k, *v, *o, *lse, *a, *x2, *h2, *mean2, *rstd2, *f, *g;
    float *sc; /* the attention's saved scores [S][H][n][n] (GPT_SCORES_MAX), or NULL: recomputed */
} layer_acts;

/* The most bytes of one layer's saved attention scores: up to this the
   forward keeps them for the backward (repdl_attention_forward_scores_f32,
   the backward then skips Q K^T), past it the backward recomputes them;
   the same bits either way (docs/attention.md, "Saved scores"). */
#ifndef GPT_SCORES_MAX
#define GPT_SCORES_MAX ((size_t)16 << 20)
#endif

typedef struct ws {
    size_t S, n; /* capacity: sequences, tokens each */
    layer_acts *la;
    float *xL, *hf, *meanf, *rstdf, *logits;
    /* backward scratch */
    float *dx, *dx2, *dh, *dbig, *dqkv, *dq, *dk, *dv, *dout, *da, *dwte;
    int64_t *ids;
    size_t *tgt;
} ws;

static int ws_alloc(ws *w, const model *m, size_t S)
{
    size_t T = S * m->N, D = m->D, l;
    memset(w, 0, sizeof *w);
    w->S = S;
    w->n = m->N;
    w->la = (layer_acts *)calloc(m->L, sizeof *w->la);
    if (!w->la) return -1;
#define AL(p, cnt)                                                     \
    do {                                                               \
        (p) = (float *)malloc((cnt) * sizeof(float));                  \
        if (!(p)) return -1;                                           \
    } while (0)
    for (l = 0; l < m->L; l++) {
        layer_acts *a = &w->la[l];
        AL(a->x, T * D); AL(a->h1, T * D); AL(a->mean1, T); AL(a->rstd1, T);
        AL(a->qkv, T * 3 * D); AL(a->q, T * D); AL(a->k, T * D); AL(a->v, T * D);
        AL(a->o, T * D); AL(a->lse, T * m->H); AL(a->a, T * D); AL(a->x2, T * D);
        AL(a->h2, T * D); AL(a->mean2, T); AL(a->rstd2, T); AL(a->f, T * 4 * D); AL(a->g, T * 4 * D);
        if (m->H <= GPT_SCORES_MAX / sizeof(float) / T / m->N) AL(a->sc, T * m->H * m->N);
    }
    AL(w->xL, T * D); AL(w->hf, T * D); AL(w->meanf, T); AL(w->rstdf, T);
    AL(w->logits, T * VOCAB);
    AL(w->dx, T * D); AL(w->dx2, T * D); AL(w->dh, T * D); AL(w->dbig, T * 4 * D);
    AL(w->dqkv, T * 3 * D); AL(w->dq, T * D); AL(w->dk, T * D); AL(w->dv, T * D);
    AL(w->dout, T * D); AL(w->da, T * D); AL(w->dwte, VOCAB * D);
#undef AL
    w->ids = (int64_t *)malloc(T * sizeof(int64_t));
    w->tgt = (size_t *)malloc(T * sizeof(size_t));
    return w->ids && w->tgt ? 0 : -1;
}

static void ws_free(ws *w, const model *m)
{
    size_t l;
    if (w->la)
        for (l = 0; l < m->L; l++) {
            layer_acts *a = &w->la[l];
            float *p[] = {a->x, a->h1, a->mean1, a->rstd1, a->qkv, a->q, a->k, a->v, a->o,
                          a->lse, a->a, a->x2, a->h2, a->mean2, a->rstd2, a->f, a->g, a->sc};
            size_t i;
            for (i = 0; i < sizeof p / sizeof p[0]; i++) free(p[i]);
        }
    free(w->la);
    {
        float *p[] = {w->xL, w->hf, w->meanf, w->rstdf, w->logits, w->dx, w->dx2, w->dh, w->dbig,
                      w->dqkv, w->dq, w->dk, w->dv, w->dout, w->da, w->dwte};
        size_t i;
        for (i = 0; i < sizeof p / sizeof p[0]; i++) free(p[i]);
    }
    free(w->ids);
    free(w->tgt);
    memset(w, 0, sizeof *w);
}

/* [S][n][3D] (q | k | v, head h at columns h hd) <-> [S][H][n][hd], part
   0, 1, 2 = q, k, v; to_heads = 0 copies back. */
static void heads_copy(const model *m, size_t S, size_t n, int part, float *rows, float *heads,
                       int to_heads, size_t width)
{
    size_t s, h, i, D = m->D, hd = m->hd;
    for (s = 0; s < S; s++)
        for (h = 0; h < m->H; h++)
            for (i = 0; i < n; i++) {
                float *r = rows + (s * n + i) * width + (size_t)part * D + h * hd;
                float *q = heads + ((s * m->H + h) * n + i) * hd;
                if (to_heads) memcpy(q, r, hd * sizeof(float));
                else memcpy(r, q, hd * sizeof(float));
            }
}

/* The same layouts for `parts` (1 or 3) parts at once, a token's row read
   or written once: heads_split copies rows [S][n][parts D] into heads[p]
   [S][H][n][hd], heads_merge back.  Pure copies (no value changes), so
   the bits are heads_copy's part by part. */
static void heads_split(const model *m, size_t S, size_t n, size_t parts,
                        const float *rows, float *const *heads)
{
    size_t s, i, p, h, k, D = m->D, H = m->H, hd = m->hd;
    for (s = 0; s < S; s++)
        for (i = 0; i < n; i++) {
            const float *r = rows + (s * n + i) * parts * D;
            for (p = 0; p < parts; p++)
                for (h = 0; h < H; h++) {
                    const float *src = r + p * D + h * hd;
                    float *dst = heads[p] + ((s * H + h) * n + i) * hd;
                    for (k = 0; k < hd; k++) dst[k] = src[k];
                }
        }
}

static void heads_merge(const model *m, size_t S, size_t n, size_t parts, float *rows,
                        float *const *heads)
{
    size_t s, i, p, h, k, D = m->D, H = m->H, hd = m->hd;
    for (s = 0; s < S; s++)
        for (i = 0; i < n; i++) {
            float *r = rows + (s * n + i) * parts * D;
            for (p = 0; p < parts; p++)
                for (h = 0; h < H; h++) {
                    const float *src = heads[p] + ((s * H + h) * n + i) * hd;
                    float *dst = r + p * D + h * hd;
                    for (k = 0; k < hd; k++) dst[k] = src[k];
                }
        }
}

#define TRY(call)                              \
    do {                                       \
        repdl_status st_ = (call);             \
        if (st_ != REPDL_OK) return st_;       \
    } while (0)

static repdl_attention_shape attn_shape(const model *m, size_t S, size_t n)
{
    repdl_attention_shape s;
    memset(&s, 0, sizeof s);
    s.batch = S; s.hq = m->H; s.hkv = m->H; s.nq = n; s.nk = n; s.d = m->hd;
    s.q_pos0 = 0; s.kv_stride = 0; s.causal = 1;
    return s;
}

/* Logits [S n][256] of S sequences of n tokens (w->ids). */
static repdl_status forward(const model *m, const float *P, ws *w, size_t S, size_t n)
{
    size_t T = S * n, D = m->D, l;
    const float *x = NULL;
    repdl_attention_shape as = attn_shape(m, S, n);
    TRY(repdl_embedding_forward_f32(P + m->off[t_wte()], VOCAB, D, w->ids, T, w->la[0].x));
    for (l = 0; l < m->L; l++) {
        layer_acts *a = &w->la[l];
        const float *W = P;
        float *next = l + 1 < m->L ? w->la[l + 1].x : w->xL;
#define TP(k) (W + m->off[t_layer(l, k)])
        x = a->x;
        TRY(repdl_layer_norm_forward_f32(T, D, 1e-5f, x, TP(T_LN1G), TP(T_LN1B), a->h1, a->mean1, a->rstd1));
        TRY(lin_fwd(T, D, 3 * D, a->h1, TP(T_QKVW), TP(T_QKVB), a->qkv));
        {
            float *const qkv[3] = {a->q, a->k, a->v};
            heads_split(m, S, n, 3, a->qkv, qkv);
        }
        TRY(repdl_rope_forward_f32(S, m->H, n, m->hd, 0, m->N, m->cos_tab, m->sin_tab, a->q, a->q));
        TRY(repdl_rope_forward_f32(S, m->H, n, m->hd, 0, m->N, m->cos_tab, m->sin_tab, a->k, a->k));
        TRY(repdl_attention_forward_scores_f32(&as, m->scale, a->q, a->k, a->v, NULL, NULL, a->o,
                                               a->lse, a->sc));
        heads_merge(m, S, n, 1, a->a, &a->o);
        TRY(lin_fwd(T, D, D, a->a, TP(T_PROJW), TP(T_PROJB), a->x2));
        TRY(repdl_add_f32(T * D, x, a->x2, a->x2));
        TRY(repdl_layer_norm_forward_f32(T, D, 1e-5f, a->x2, TP(T_LN2G), TP(T_LN2B), a->h2, a->mean2, a->rstd2));
        TRY(lin_fwd(T, D, 4 * D, a->h2, TP(T_FCW), TP(T_FCB), a->f));
        TRY(repdl_gelu_array_f32(T * 4 * D, a->f, a->g));
        TRY(lin_fwd(T, 4 * D, D, a->g, TP(T_OUTW), TP(T_OUTB), next));
        TRY(repdl_add_f32(T * D, a->x2, next, next));
#undef TP
    }
    TRY(repdl_layer_norm_forward_f32(T, D, 1e-5f, w->xL, P + m->off[t_lnfg(m)],
                                     P + m->off[t_lnfg(m) + 1], w->hf, w->meanf, w->rstdf));
    TRY(lin_fwd(T, D, VOCAB, w->hf, P + m->off[t_wte()], NULL, w->logits));
    return REPDL_OK;
}

/* The gradient of every parameter into G (every element written), from
   dlogits in w->logits (forward's activations still in w). */
static repdl_status backward(const model *m, const float *P, ws *w, size_t S, size_t n, float *G)
{
    size_t T = S * n, D = m->D, l;
    repdl_attention_shape as = attn_shape(m, S, n);
    TRY(lin_bwd(T, D, VOCAB, w->hf, P + m->off[t_wte()], w->logits, w->dh,
                                  w->dwte, NULL));
    TRY(repdl_layer_norm_backward_f32(T, D, w->xL, P + m->off[t_lnfg(m)], w->meanf, w->rstdf,
                                      w->dh, w->dx, G + m->off[t_lnfg(m)],
                                      G + m->off[t_lnfg(m) + 1]));
    for (l = m->L; l-- > 0;) {
        layer_acts *a = &w->la[l];
#define TP(k) (P + m->off[t_layer(l, k)])
#define TG(k) (G + m->off[t_layer(l, k)])
        /* x_out = x2 + out(gelu(fc(LN2(x2)))) */
        TRY(lin_bwd(T, 4 * D, D, a->g, TP(T_OUTW), w->dx, w->dbig, TG(T_OUTW), TG(T_OUTB)));
        TRY(repdl_gelu_backward_array_f32(T * 4 * D, a->f, w->dbig, w->dbig));
        TRY(lin_bwd(T, D, 4 * D, a->h2, TP(T_FCW), w->dbig, w->dh, TG(T_FCW), TG(T_FCB)));
        TRY(repdl_layer_norm_backward_f32(T, D, a->x2, TP(T_LN2G), a->mean2, a->rstd2, w->dh, w->dx2,
                                          TG(T_LN2G), TG(T_LN2B)));
        TRY(repdl_add_f32(T * D, w->dx, w->dx2, w->dx2)); /* residual, then the branch */
        /* x2 = x + proj(attention(...)) */
        TRY(lin_bwd(T, D, D, a->a, TP(T_PROJW), w->dx2, w->da, TG(T_PROJW), TG(T_PROJB)));
        heads_split(m, S, n, 1, w->da, &w->dout);
        TRY(repdl_attention_backward_scores_f32(&as, m->scale, a->q, a->k, a->v, NULL, NULL, a->o,
                                                a->lse, a->sc, w->dout, w->dq, w->dk, w->dv));
        TRY(repdl_rope_backward_f32(S, m->H, n, m->hd, 0, m->N, m->cos_tab, m->sin_tab, w->dq, w->dq));
        TRY(repdl_rope_backward_f32(S, m->H, n, m->hd, 0, m->N, m->cos_tab, m->sin_tab, w->dk, w->dk));
        {
            float *const dqkv[3] = {w->dq, w->dk, w->dv};
            heads_merge(m, S, n, 3, w->dqkv, dqkv);
        }
        TRY(lin_bwd(T, D, 3 * D, a->h1, TP(T_QKVW), w->dqkv, w->dh, TG(T_QKVW), TG(T_QKVB)));
        TRY(repdl_layer_norm_backward_f32(T, D, a->x, TP(T_LN1G), a->mean1, a->rstd1, w->dh, w->dx,
                                          TG(T_LN1G), TG(T_LN1B)));
        TRY(repdl_add_f32(T * D, w->dx2, w->dx, w->dx)); /* residual, then the branch */
#undef TP
#undef TG
    }
    /* the tied table: RN(d_out + d_emb) */
    TRY(repdl_embedding_backward_f32(w->dx, w->ids, T, VOCAB, D, G + m->off[t_wte()]));
    TRY(repdl_add_f32(VOCAB * D, w->dwte, G + m->off[t_wte()], G + m->off[t_wte()]));
    return REPDL_OK;
}

/* ---- data-parallel training ---- */
typedef struct job {
    const model *m;
    const float *P;
    ws *w;                     /* [threads] */
    const unsigned char *text; /* the training or validation text */
    const uint32_t *perm;      /* window order, NULL: in order */
    size_t first;              /* the step's first window in perm */
    size_t B;                  /* global batch (sequences) */
    float *tokloss;            /* [B N] or [K N] */
    float *logits;             /* evaluation: [K][N][256] */
    gpt_dev *dev;              /* --device cuda, else NULL */
} job;

static void load_window(const job *j, size_t win, ws *w, size_t slot)
{
    size_t N = j->m->N, i;
    const unsigned char *s = j->text + win * N;
    for (i = 0; i < N; i++) {
        w->ids[slot * N + i] = s[i];
        w->tgt[slot * N + i] = s[i + 1];
    }
}

/* The per-token losses of w's S n logits into loss (SUM: each token's own
   cross-entropy); dlogits in place when grad. */
static repdl_status token_losses(const job *j, ws *w, size_t T, float *loss, int grad)
{
    size_t r;
    for (r = 0; r < T; r++) {
        float *z = w->logits + r * VOCAB;
        TRY(repdl_cross_entropy_f32(1, VOCAB, REPDL_REDUCTION_SUM, z, w->tgt + r, loss + r,
                                    grad ? z : NULL));
    }
    (void)j;
    return REPDL_OK;
}

static repdl_status unit_grad(void *ctx, int t, size_t unit, size_t s0, size_t rows, float *grad)
{
    job *j = (job *)ctx;
    ws *w = &j->w[t];
    size_t N = j->m->N, s;
    (void)unit;
    for (s = 0; s < rows; s++) load_window(j, j->perm[j->first + s0 + s], w, s);
    if (j->dev) { /* the same operations on the GPU (train_gpt_cuda.c) */
        if (train_gpt_cuda_grad(j->dev, w->ids, w->tgt, rows, j->B * N, j->tokloss + s0 * N, grad)) {
            fprintf(stderr, "train_gpt: --device cuda: %s\n", train_gpt_cuda_error(j->dev));
            return REPDL_ERR_INVALID;
        }
        return REPDL_OK;
    }
    TRY(forward(j->m, j->P, w, rows, N));
    TRY(token_losses(j, w, rows * N, j->tokloss + s0 * N, 1));
    /* the mean over the B N tokens of the step: one division */
    TRY(repdl_div_count_f32(rows * N * VOCAB, j->B * N, w->logits, w->logits));
    return backward(j->m, j->P, w, rows, N, grad);
}

static repdl_status eval_range(void *ctx, int t, size_t b, size_t e)
{
    job *j = (job *)ctx;
    ws *w = &j->w[t];
    size_t N = j->m->N, s;
    for (s = b; s < e; s++) {
        load_window(j, s, w, 0);
        if (j->dev) {
            if (train_gpt_cuda_logits(j->dev, w->ids, 1, w->logits)) {
                fprintf(stderr, "train_gpt: --device cuda: %s\n", train_gpt_cuda_error(j->dev));
                return REPDL_ERR_INVALID;
            }
        } else
            TRY(forward(j->m, j->P, w, 1, N));
        memcpy(j->logits + s * N * VOCAB, w->logits, N * VOCAB * sizeof(float));
        TRY(token_losses(j, w, N, j->tokloss + s * N, 0));
    }
    return REPDL_OK;
}

/* AdamW over the flat parameter vector, elements [b, e) on thread t
   (repdl_dp_for): each tensor's part in the range with its weight decay.
   Elementwise, so the bits do not depend on the split. */
typedef struct adam_job {
    const model *m;
    const repdl_adam_config *cfg; /* weight_decay: set per tensor here */
    const repdl_adam_state *st;   /* after repdl_adam_begin_step */
    float wd;                     /* --wd, for the tensors that decay */
    const float *G;
    float *P, *Mo, *Vo;
} adam_job;

static repdl_status adam_range(void *ctx, int t, size_t b, size_t e)
{
    const adam_job *a = (const adam_job *)ctx;
    const model *m = a->m;
    size_t k;
    (void)t;
    for (k = 0; k < m->ntensors; k++) {
        size_t lo = m->off[k] > b ? m->off[k] : b, hi = m->off[k + 1] < e ? m->off[k + 1] : e;
        repdl_adam_config c = *a->cfg;
        if (lo >= hi) continue;
        c.weight_decay = tensor_decays(m, k) ? a->wd : 0.0f;
        TRY(repdl_adam_step_f32(hi - lo, &c, a->st, a->G + lo, a->P + lo, a->Mo + lo, a->Vo + lo));
    }
    return REPDL_OK;
}

/* ---- printing ---- */
static void print_escaped(const char *label, const unsigned char *s, size_t n)
{
    size_t i;
    printf("%s \"", label);
    for (i = 0; i < n; i++) {
        unsigned c = s[i];
        if (c == '\n') printf("\\n");
        else if (c == '\t') printf("\\t");
        else if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 32 || c > 126) printf("\\x%02x", c);
        else putchar((int)c);
    }
    printf("\"\n");
}

/* Greedy decoding of SAMPLE_LEN bytes after the prompt by recomputation,
   on workspace w (capacity one sequence of N): each byte is the first
   argmax of the last position's logits of forward() over the last at most
   N bytes, positions from 0 (--no-cache).  lg (NULL: none) receives
   those logits, [SAMPLE_LEN][256]. */
static int greedy_recompute(const model *m, const float *P, ws *w, const unsigned char *prompt,
                            size_t plen, unsigned char *out, float *lg)
{
    size_t N = m->N, cap = plen + SAMPLE_LEN, len = plen, k;
    unsigned char *seq = (unsigned char *)malloc(cap);
    if (!seq) return -1;
    memcpy(seq, prompt, plen);
    for (k = 0; k < SAMPLE_LEN; k++) {
        size_t n = len < N ? len : N, i, a;
        const unsigned char *win = seq + len - n;
        for (i = 0; i < n; i++) w->ids[i] = win[i];
        if (forward(m, P, w, 1, n) != REPDL_OK) { free(seq); return -1; }
        a = repdl_argmax_f32(VOCAB, w->logits + (n - 1) * VOCAB);
        if (lg) memcpy(lg + k * VOCAB, w->logits + (n - 1) * VOCAB, VOCAB * sizeof(float));
        if (a >= VOCAB) a = 0; /* no index (all NaN): byte 0 */
        seq[len++] = (unsigned char)a;
    }
    memcpy(out, seq + plen, SAMPLE_LEN);
    free(seq);
    return 0;
}

/* ---- decoding through the key/value cache ----
   One cache per layer (repdl_kv_cache: [B][H][N][hd] keys and values, the
   capacity the context N).  kvdec_step runs c new tokens of each of the B
   sequences (d->w.ids, [B][c]) through the model:
     pos == NULL   every sequence at positions pos0 .. pos0 + c - 1, pos0
                   the caches' length: the keys and values are appended;
     pos != NULL   one token each (c == 1), sequence b at its own position
                   pos[b]: written there (repdl_kv_cache_write_f32).
   RoPE rotates each query and key at its position; the attention reads
   the cache, keep ([B][cache length]: the slots each sequence has written;
   NULL: all) marking what each sequence may see.  The logits [B c][256]
   land in d->w.logits.  A row's bits are those of forward() over its
   whole sequence: an attention row depends only on its query, the keys it
   sees and their positions (include/repdl/attention.h), and every other
   operation works row by row, whatever the number of rows. */
typedef struct kvdec {
    size_t B;
    repdl_kv_cache *c; /* [L] */
    float *buf;        /* keys and values of every layer */
    ws w;              /* activations of B sequences of at most N tokens */
    float **pw;        /* [4 L + 1]: the packed weights (kvdec_pack), or NULL */
} kvdec;

/* The weights of a product of kvdec_step: layer l's qkv, proj, fc and out
   (4 l + 0..3), the tied head (4 L). */
static const int kv_pw_kind[4] = { T_QKVW, T_PROJW, T_FCW, T_OUTW };

static void kvdec_unpack(kvdec *d, const model *m)
{
    size_t i;
    if (!d->pw) return;
    for (i = 0; i < 4 * m->L + 1; i++) free(d->pw[i]);
    free(d->pw);
    d->pw = NULL;
}

/* Packs every weight of kvdec_step from P (repdl/linear_pack.h), so that
   decoding one token reads each weight as one sequential stream; the
   packed forward gives repdl_linear_forward_f32's bits for any M.  Called
   at the start of each decoding (P may change between them); with --gemm
   cr, or when memory is short, nothing is packed and the products run
   unpacked (the same bits). */
static void kvdec_pack(kvdec *d, const model *m, const float *P)
{
    size_t i, n = 4 * m->L + 1, D = m->D;
    kvdec_unpack(d, m);
    if (g_gemm_cr) return;
    d->pw = (float **)calloc(n, sizeof *d->pw);
    if (!d->pw) return;
    for (i = 0; i < n; i++) {
        size_t K = D, N = D, floats;
        const float *W = P + m->off[t_wte()];
        if (i < 4 * m->L) {
            int k = kv_pw_kind[i % 4];
            W = P + m->off[t_layer(i / 4, k)];
            if (k == T_QKVW) N = 3 * D;
            else if (k == T_FCW) N = 4 * D;
            else if (k == T_OUTW) K = 4 * D;
        } else {
            N = VOCAB;
        }
        if (repdl_linear_pack_size_f32(K, N, &floats) != REPDL_OK ||
            !(d->pw[i] = (float *)malloc(floats * sizeof(float))) ||
            repdl_linear_pack_f32(K, N, W, d->pw[i], floats) != REPDL_OK) {
            kvdec_unpack(d, m);
            return;
        }
    }
}

/* lin_fwd through the packed weight i where it pays: at most 4 rows
   (docs/bench-linalg.md: more rows run the blocked product panel by
   panel) */
static repdl_status kv_lin(const kvdec *d, size_t i, size_t M, size_t K, size_t N,
                           const float *x, const float *W, const float *b, float *y)
{
    if (d->pw && M <= 4) return repdl_linear_forward_packed_f32(M, K, N, x, d->pw[i], b, y);
    return lin_fwd(M, K, N, x, W, b, y);
}

static void kvdec_free(kvdec *d, const model *m)
{
    kvdec_unpack(d, m);
    ws_free(&d->w, m);
    free(d->c);
    free(d->buf);
    memset(d, 0, sizeof *d);
}

/* Empties the caches (length 0). */
static int kvdec_reset(kvdec *d, const model *m)
{
    size_t per = d->B * m->H * m->N * m->hd, l;
    for (l = 0; l < m->L; l++)
        if (repdl_kv_cache_init(&d->c[l], d->B, m->H, m->N, m->hd, d->buf + 2 * l * per,
                                d->buf + (2 * l + 1) * per) != REPDL_OK)
            return -1;
    return 0;
}

static int kvdec_init(kvdec *d, const model *m, size_t B)
{
    size_t per = B * m->H * m->N * m->hd;
    memset(d, 0, sizeof *d);
    d->B = B;
    d->c = (repdl_kv_cache *)calloc(m->L, sizeof *d->c);
    d->buf = (float *)malloc(2 * m->L * per * sizeof(float));
    if (!d->c || !d->buf || ws_alloc(&d->w, m, B) || kvdec_reset(d, m)) {
        kvdec_free(d, m);
        return -1;
    }
    return 0;
}

static repdl_status kvdec_step(const model *m, const float *P, kvdec *d, size_t c, size_t pos0,
                               const size_t *pos, const unsigned char *keep)
{
    ws *w = &d->w;
    size_t B = d->B, T = B * c, D = m->D, H = m->H, hd = m->hd, l, b;
    if (c == 0 || c > m->N || (pos && c != 1) || (!pos && d->c[0].len != pos0))
        return REPDL_ERR_INVALID;
    TRY(repdl_embedding_forward_f32(P + m->off[t_wte()], VOCAB, D, w->ids, T, w->la[0].x));
    for (l = 0; l < m->L; l++) {
        layer_acts *a = &w->la[l];
        float *next = l + 1 < m->L ? w->la[l + 1].x : w->xL;
#define TP(k) (P + m->off[t_layer(l, k)])
        TRY(repdl_layer_norm_forward_f32(T, D, 1e-5f, a->x, TP(T_LN1G), TP(T_LN1B), a->h1, a->mean1, a->rstd1));
        TRY(kv_lin(d, 4 * l, T, D, 3 * D, a->h1, TP(T_QKVW), TP(T_QKVB), a->qkv));
        heads_copy(m, B, c, 0, a->qkv, a->q, 1, 3 * D);
        heads_copy(m, B, c, 1, a->qkv, a->k, 1, 3 * D);
        heads_copy(m, B, c, 2, a->qkv, a->v, 1, 3 * D);
        if (!pos) {
            TRY(repdl_rope_forward_f32(B, H, c, hd, pos0, m->N, m->cos_tab, m->sin_tab, a->q, a->q));
            TRY(repdl_rope_forward_f32(B, H, c, hd, pos0, m->N, m->cos_tab, m->sin_tab, a->k, a->k));
            TRY(repdl_kv_cache_append_f32(&d->c[l], c, a->k, a->v));
        } else {
            for (b = 0; b < B; b++) {
                float *qb = a->q + b * H * hd, *kb = a->k + b * H * hd;
                TRY(repdl_rope_forward_f32(1, H, 1, hd, pos[b], m->N, m->cos_tab, m->sin_tab, qb, qb));
                TRY(repdl_rope_forward_f32(1, H, 1, hd, pos[b], m->N, m->cos_tab, m->sin_tab, kb, kb));
                TRY(repdl_kv_cache_write_f32(&d->c[l], b, pos[b], 1, kb, a->v + b * H * hd));
            }
        }
        TRY(repdl_kv_cache_attend_f32(&d->c[l], H, c, m->scale, a->q, NULL, keep, a->o, NULL));
        heads_copy(m, B, c, 0, a->a, a->o, 0, D);
        TRY(kv_lin(d, 4 * l + 1, T, D, D, a->a, TP(T_PROJW), TP(T_PROJB), a->x2));
        TRY(repdl_add_f32(T * D, a->x, a->x2, a->x2));
        TRY(repdl_layer_norm_forward_f32(T, D, 1e-5f, a->x2, TP(T_LN2G), TP(T_LN2B), a->h2, a->mean2, a->rstd2));
        TRY(kv_lin(d, 4 * l + 2, T, D, 4 * D, a->h2, TP(T_FCW), TP(T_FCB), a->f));
        TRY(repdl_gelu_array_f32(T * 4 * D, a->f, a->g));
        TRY(kv_lin(d, 4 * l + 3, T, 4 * D, D, a->g, TP(T_OUTW), TP(T_OUTB), next));
        TRY(repdl_add_f32(T * D, a->x2, next, next));
#undef TP
    }
    TRY(repdl_layer_norm_forward_f32(T, D, 1e-5f, w->xL, P + m->off[t_lnfg(m)],
                                     P + m->off[t_lnfg(m) + 1], w->hf, w->meanf, w->rstdf));
    TRY(kv_lin(d, 4 * m->L, T, D, VOCAB, w->hf, P + m->off[t_wte()], NULL, w->logits));
    return REPDL_OK;
}

/* Greedy decoding through the cache, the bytes of greedy_recompute: the
   prompt's last at most N bytes are prefilled whole, then each new byte
   is appended at its position while the sequence fits the context.  Past
   the context (more than N bytes) the window of the last N bytes has
   positions 0 .. N - 1, so every key moves: each step empties the caches
   and prefills that window anew (a sliding-window recomputation through
   the cache, the same bits as forward() over it).  lg as greedy_recompute's. */
static int greedy_cached(const model *m, const float *P, kvdec *d, const unsigned char *prompt,
                         size_t plen, unsigned char *out, float *lg)
{
    size_t N = m->N, cap = plen + SAMPLE_LEN, len = plen, k;
    unsigned char *seq = (unsigned char *)malloc(cap);
    if (!seq) return -1;
    kvdec_pack(d, m, P);
    memcpy(seq, prompt, plen);
    for (k = 0; k < SAMPLE_LEN; k++) {
        size_t rows, i, a;
        repdl_status st;
        if (k == 0 || len > N) {
            rows = len < N ? len : N;
            for (i = 0; i < rows; i++) d->w.ids[i] = seq[len - rows + i];
            st = kvdec_reset(d, m) ? REPDL_ERR_INVALID : kvdec_step(m, P, d, rows, 0, NULL, NULL);
        } else {
            rows = 1;
            d->w.ids[0] = seq[len - 1];
            st = kvdec_step(m, P, d, 1, len - 1, NULL, NULL);
        }
        if (st != REPDL_OK) { free(seq); return -1; }
        a = repdl_argmax_f32(VOCAB, d->w.logits + (rows - 1) * VOCAB);
        if (lg) memcpy(lg + k * VOCAB, d->w.logits + (rows - 1) * VOCAB, VOCAB * sizeof(float));
        if (a >= VOCAB) a = 0; /* no index (all NaN): byte 0 */
        seq[len++] = (unsigned char)a;
    }
    memcpy(out, seq + plen, SAMPLE_LEN);
    free(seq);
    return 0;
}

/* The sample: through the key/value cache, or (no_cache) by recomputation;
   the same bytes. */
static int greedy(const model *m, const float *P, ws *w, const unsigned char *prompt, size_t plen,
                  unsigned char *out, int no_cache)
{
    kvdec d;
    int r;
    if (no_cache) return greedy_recompute(m, P, w, prompt, plen, out, NULL);
    if (kvdec_init(&d, m, 1)) return -1;
    r = greedy_cached(m, P, &d, prompt, plen, out, NULL);
    kvdec_free(&d, m);
    return r;
}

/* ---- serving invariance (--serve-check) ----
   SERVE_P prompts of different lengths len_p = 1 + p (Lmax - 1) / 7 (Lmax =
   N - S, S = max(1, N / 4) greedy steps after each), prompt p the bytes at
   p N of the text given; the logits of each prompt's len_p + S positions
   (the prompt's, then one a decoded byte, each byte the argmax of the
   previous position) in SERVE_CONFIGS ways:
     recompute            alone, forward() over the whole sequence so far
                          (the reference: no cache);
     alone-cache-*        alone through the cache, the prompt prefilled
                          whole or in chunks of 1, 7, 32, then a byte at a
                          time (append);
     batch8-cache-*       the 8 prompts in one batch, right-padded to Lmax
                          with byte 0 (the padding slots not kept), the
                          same chunks, then a byte at a time, each
                          sequence written at its own position.
   Each way must give the reference's bits for every prompt.  Then the
   sample's decoding (the prompt of the first min(N / 2, 32) bytes, 200
   bytes: past the context when N < 232) through the cache and by
   recomputation: the 200 rows of logits it took its bytes from, the same
   bits. */
#define SERVE_P 8
#define SERVE_CONFIGS 9
static const char *const serve_names[SERVE_CONFIGS] = {
    "recompute",          "alone-cache-whole",  "alone-cache-chunk1",
    "alone-cache-chunk7", "alone-cache-chunk32", "batch8-cache-whole",
    "batch8-cache-chunk1", "batch8-cache-chunk7", "batch8-cache-chunk32"};

typedef struct serve_set {
    size_t N, S, len[SERVE_P];
    const unsigned char *prompt[SERVE_P];
} serve_set;

/* Runs prompts first .. first + d->B - 1 through the cache (chunk 0:
   whole); got[p] receives [len_p + S][256]. */
static repdl_status serve_cached(const model *m, const float *P, kvdec *d, const serve_set *ss,
                                 size_t first, size_t chunk, float *got, unsigned char *keep,
                                 unsigned char *kk)
{
    size_t B = d->B, N = ss->N, T = 0, b, t, t0, s, wpos[SERVE_P];
    for (b = 0; b < B; b++)
        if (ss->len[first + b] > T) T = ss->len[first + b];
    if (kvdec_reset(d, m)) return REPDL_ERR_INVALID;
    kvdec_pack(d, m, P);
    for (b = 0; b < B; b++)
        for (t = 0; t < N; t++) keep[b * N + t] = (unsigned char)(t < ss->len[first + b]);
    for (t0 = 0; t0 < T; t0 += chunk ? chunk : T) {
        size_t c = chunk == 0 || T - t0 < chunk ? T - t0 : chunk;
        for (b = 0; b < B; b++) {
            size_t p = first + b;
            for (t = 0; t < c; t++)
                d->w.ids[b * c + t] = t0 + t < ss->len[p] ? ss->prompt[p][t0 + t] : 0;
            memcpy(kk + b * (t0 + c), keep + b * N, t0 + c);
        }
        TRY(kvdec_step(m, P, d, c, t0, NULL, B == 1 ? NULL : kk));
        for (b = 0; b < B; b++) {
            size_t p = first + b;
            for (t = 0; t < c && t0 + t < ss->len[p]; t++)
                memcpy(got + (p * N + t0 + t) * VOCAB, d->w.logits + (b * c + t) * VOCAB,
                       VOCAB * sizeof(float));
        }
    }
    for (s = 0; s < ss->S; s++) {
        size_t nk = d->c[0].len;
        for (b = 0; b < B; b++) {
            size_t p = first + b, a;
            wpos[b] = ss->len[p] + s;
            a = repdl_argmax_f32(VOCAB, got + (p * N + wpos[b] - 1) * VOCAB);
            d->w.ids[b] = a < VOCAB ? (int64_t)a : 0;
            keep[b * N + wpos[b]] = 1;
            if (wpos[b] + 1 > nk) nk = wpos[b] + 1;
        }
        if (B == 1) {
            TRY(kvdec_step(m, P, d, 1, wpos[0], NULL, NULL));
        } else {
            for (b = 0; b < B; b++) memcpy(kk + b * nk, keep + b * N, nk);
            TRY(kvdec_step(m, P, d, 1, 0, wpos, kk));
        }
        for (b = 0; b < B; b++)
            memcpy(got + ((first + b) * N + wpos[b]) * VOCAB, d->w.logits + b * VOCAB,
                   VOCAB * sizeof(float));
    }
    return REPDL_OK;
}

/* The reference: forward() over each whole sequence so far. */
static repdl_status serve_recompute(const model *m, const float *P, ws *w, const serve_set *ss,
                                    float *ref)
{
    size_t N = ss->N, p, t, s;
    for (p = 0; p < SERVE_P; p++) {
        size_t len = ss->len[p];
        float *r = ref + p * N * VOCAB;
        for (t = 0; t < len; t++) w->ids[t] = ss->prompt[p][t];
        TRY(forward(m, P, w, 1, len));
        memcpy(r, w->logits, len * VOCAB * sizeof(float));
        for (s = 0; s < ss->S; s++) {
            size_t a = repdl_argmax_f32(VOCAB, r + (len - 1) * VOCAB);
            w->ids[len] = a < VOCAB ? (int64_t)a : 0;
            len++;
            TRY(forward(m, P, w, 1, len));
            memcpy(r + (len - 1) * VOCAB, w->logits + (len - 1) * VOCAB, VOCAB * sizeof(float));
        }
    }
    return REPDL_OK;
}

/* Prints each prompt's reference hash and, for every way, the hash of the
   8 prompts' logits and how many prompts match the reference bit for bit;
   0 when all do, 1 otherwise (-1: failure, with a message). */
static int serve_check(const model *m, const float *P, ws *w, const unsigned char *text,
                       size_t tlen)
{
    serve_set ss;
    size_t N = m->N, p, cfg, lmax;
    float *ref = NULL, *got = NULL;
    unsigned char *keep = NULL, *kk = NULL;
    kvdec d1, d8;
    int rc = -1, ok = 1, have1 = 0, have8 = 0;
    char hex[65];
    ss.N = N;
    ss.S = N / 4 ? N / 4 : 1;
    lmax = N - ss.S;
    if (tlen < SERVE_P * N) {
        fprintf(stderr, "train_gpt: --serve-check: the validation text has %zu bytes, fewer "
                        "than %d windows of %zu\n", tlen, SERVE_P, N);
        return -1;
    }
    for (p = 0; p < SERVE_P; p++) {
        ss.len[p] = 1 + p * (lmax - 1) / (SERVE_P - 1);
        ss.prompt[p] = text + p * N;
    }
    ref = (float *)calloc(SERVE_P * N * VOCAB, sizeof(float));
    got = (float *)calloc(SERVE_P * N * VOCAB, sizeof(float));
    keep = (unsigned char *)malloc(SERVE_P * N);
    kk = (unsigned char *)malloc(SERVE_P * N);
    if (!ref || !got || !keep || !kk || kvdec_init(&d1, m, 1)) goto oom;
    have1 = 1;
    if (kvdec_init(&d8, m, SERVE_P)) goto oom;
    have8 = 1;
    if (serve_recompute(m, P, w, &ss, ref) != REPDL_OK) goto failed;
    printf("serve prompts %d steps %zu context %zu\n", SERVE_P, ss.S, N);
    for (p = 0; p < SERVE_P; p++) {
        golden_sha256_hex_f32(ref + p * N * VOCAB, (ss.len[p] + ss.S) * VOCAB, hex);
        printf("serve_prompt %zu len %zu logits_sha256 %s\n", p, ss.len[p], hex);
    }
    for (cfg = 0; cfg < SERVE_CONFIGS; cfg++) {
        static const size_t chunks[4] = {0, 1, 7, 32};
        size_t same = 0;
        golden_sha256 h;
        unsigned char dg[32];
        if (cfg == 0) {
            memcpy(got, ref, SERVE_P * N * VOCAB * sizeof(float));
        } else if (cfg < 5) {
            memset(got, 0, SERVE_P * N * VOCAB * sizeof(float));
            for (p = 0; p < SERVE_P; p++)
                if (serve_cached(m, P, &d1, &ss, p, chunks[cfg - 1], got, keep, kk) != REPDL_OK)
                    goto failed;
        } else {
            memset(got, 0, SERVE_P * N * VOCAB * sizeof(float));
            if (serve_cached(m, P, &d8, &ss, 0, chunks[cfg - 5], got, keep, kk) != REPDL_OK)
                goto failed;
        }
        golden_sha256_init(&h);
        for (p = 0; p < SERVE_P; p++) {
            size_t n = (ss.len[p] + ss.S) * VOCAB;
            golden_sha256_update_f32(&h, got + p * N * VOCAB, n);
            same += memcmp(got + p * N * VOCAB, ref + p * N * VOCAB, n * sizeof(float)) == 0;
        }
        golden_sha256_final(&h, dg);
        golden_sha256_hex(dg, hex);
        printf("serve_logits_sha256 %s %s same %zu/%d\n", serve_names[cfg], hex, same, SERVE_P);
        if (same != SERVE_P) ok = 0;
    }
    {
        size_t plen = N / 2 < 32 ? N / 2 : 32, k;
        unsigned char out[2][SAMPLE_LEN];
        float *lg = (float *)malloc(2 * SAMPLE_LEN * VOCAB * sizeof(float));
        if (!lg) goto oom;
        if (greedy_recompute(m, P, w, text, plen, out[0], lg) ||
            greedy_cached(m, P, &d1, text, plen, out[1], lg + SAMPLE_LEN * VOCAB)) {
            free(lg);
            goto failed;
        }
        for (k = 0; k < 2; k++) {
            golden_sha256_hex_f32(lg + k * SAMPLE_LEN * VOCAB, SAMPLE_LEN * VOCAB, hex);
            printf("serve_sample_logits_sha256 %s %s\n", k ? "cache" : "recompute", hex);
        }
        if (memcmp(lg, lg + SAMPLE_LEN * VOCAB, SAMPLE_LEN * VOCAB * sizeof(float)) ||
            memcmp(out[0], out[1], SAMPLE_LEN))
            ok = 0;
        free(lg);
    }
    printf("serve_invariance %s\n", ok ? "ok" : "FAILED");
    rc = ok ? 0 : 1;
    goto done;
oom:
    fprintf(stderr, "train_gpt: out of memory\n");
    goto done;
failed:
    fprintf(stderr, "train_gpt: --serve-check: a decoding call failed\n");
done:
    if (have1) kvdec_free(&d1, m);
    if (have8) kvdec_free(&d8, m);
    free(ref); free(got); free(keep); free(kk);
    return rc;
}

/* ---- checkpoints ---- */
#define CKPT_MAGIC "RPDLGPT1"
typedef struct ckpt_hdr {
    uint64_t layers, dmodel, heads, ctx, batch, seed, step, adam_t;
    float lr, wd, clip, beta1_pow, beta2_pow;
} ckpt_hdr;

static void put_u64(golden_sha256 *h, FILE *f, uint64_t v, int *err)
{
    unsigned char b[8];
    int i;
    for (i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
    golden_sha256_update(h, b, 8);
    if (fwrite(b, 1, 8, f) != 8) *err = 1;
}

static void put_f32s(golden_sha256 *h, FILE *f, const float *x, size_t n, int *err)
{
    size_t i;
    for (i = 0; i < n; i++) {
        uint32_t u;
        unsigned char b[4];
        memcpy(&u, &x[i], 4);
        b[0] = (unsigned char)u; b[1] = (unsigned char)(u >> 8);
        b[2] = (unsigned char)(u >> 16); b[3] = (unsigned char)(u >> 24);
        golden_sha256_update(h, b, 4);
        if (fwrite(b, 1, 4, f) != 4) { *err = 1; return; }
    }
}

static int ckpt_save(const char *path, const ckpt_hdr *c, size_t total, const float *P,
                     const float *Mo, const float *Vo)
{
    size_t plen = strlen(path);
    char *tmp = (char *)malloc(plen + 16);
    golden_sha256 h;
    unsigned char d[32];
    float sc[5];
    int err = 0, fd;
    FILE *f;
    if (!tmp) return -1;
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", 12);
    fd = mkstemp(tmp);
    if (fd < 0 || !(f = fdopen(fd, "wb"))) {
        fprintf(stderr, "train_gpt: --save %s: %s\n", path, strerror(errno));
        if (fd >= 0) { close(fd); unlink(tmp); }
        free(tmp);
        return -1;
    }
    golden_sha256_init(&h);
    golden_sha256_update(&h, (const unsigned char *)CKPT_MAGIC, 8);
    if (fwrite(CKPT_MAGIC, 1, 8, f) != 8) err = 1;
    put_u64(&h, f, c->layers, &err); put_u64(&h, f, c->dmodel, &err);
    put_u64(&h, f, c->heads, &err); put_u64(&h, f, c->ctx, &err);
    put_u64(&h, f, c->batch, &err); put_u64(&h, f, c->seed, &err);
    put_u64(&h, f, c->step, &err); put_u64(&h, f, c->adam_t, &err);
    sc[0] = c->lr; sc[1] = c->wd; sc[2] = c->clip; sc[3] = c->beta1_pow; sc[4] = c->beta2_pow;
    put_f32s(&h, f, sc, 5, &err);
    put_f32s(&h, f, P, total, &err);
    put_f32s(&h, f, Mo, total, &err);
    put_f32s(&h, f, Vo, total, &err);
    golden_sha256_final(&h, d);
    if (fwrite(d, 1, 32, f) != 32) err = 1;
    if (fflush(f) || fsync(fileno(f))) err = 1;
    if (fclose(f)) err = 1;
    if (!err && rename(tmp, path)) err = 1;
    if (err) {
        fprintf(stderr, "train_gpt: --save %s: %s\n", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return err ? -1 : 0;
}

static int get_bytes(golden_sha256 *h, FILE *f, unsigned char *b, size_t n)
{
    if (fread(b, 1, n, f) != n) return -1;
    if (h) golden_sha256_update(h, b, n);
    return 0;
}

static int get_u64(golden_sha256 *h, FILE *f, uint64_t *v)
{
    unsigned char b[8];
    int i;
    if (get_bytes(h, f, b, 8)) return -1;
    *v = 0;
    for (i = 0; i < 8; i++) *v |= (uint64_t)b[i] << (8 * i);
    return 0;
}

static int get_f32s(golden_sha256 *h, FILE *f, float *x, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char b[4];
        uint32_t u;
        if (get_bytes(h, f, b, 4)) return -1;
        u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        memcpy(&x[i], &u, 4);
    }
    return 0;
}

/* Reads the checkpoint's header (P, Mo, Vo NULL) or everything; 0, or -1
   with a message. */
static int ckpt_load(const char *path, ckpt_hdr *c, size_t total, float *P, float *Mo, float *Vo)
{
    FILE *f = fopen(path, "rb");
    golden_sha256 h;
    unsigned char magic[8], d[32], want[32];
    float sc[5];
    int bad;
    if (!f) {
        fprintf(stderr, "train_gpt: --resume %s: %s\n", path, strerror(errno));
        return -1;
    }
    golden_sha256_init(&h);
    bad = get_bytes(&h, f, magic, 8) || memcmp(magic, CKPT_MAGIC, 8) ||
          get_u64(&h, f, &c->layers) || get_u64(&h, f, &c->dmodel) || get_u64(&h, f, &c->heads) ||
          get_u64(&h, f, &c->ctx) || get_u64(&h, f, &c->batch) || get_u64(&h, f, &c->seed) ||
          get_u64(&h, f, &c->step) || get_u64(&h, f, &c->adam_t) || get_f32s(&h, f, sc, 5);
    if (!bad && P) {
        bad = get_f32s(&h, f, P, total) || get_f32s(&h, f, Mo, total) || get_f32s(&h, f, Vo, total) ||
              get_bytes(NULL, f, want, 32) || fgetc(f) != EOF;
        golden_sha256_final(&h, d);
        if (!bad && memcmp(d, want, 32)) bad = 1;
    }
    fclose(f);
    if (bad) {
        fprintf(stderr, "train_gpt: --resume %s: not a train_gpt checkpoint of this model, "
                        "truncated or corrupt\n", path);
        return -1;
    }
    c->lr = sc[0]; c->wd = sc[1]; c->clip = sc[2]; c->beta1_pow = sc[3]; c->beta2_pow = sc[4];
    return 0;
}

/* ---- the run ---- */
/* Seconds of the clock (--time): CLOCK_MONOTONIC (wall) or
   CLOCK_PROCESS_CPUTIME_ID (every thread of the process); 0 if unreadable. */
static double clock_s(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts)) return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int run(int argc, char **argv)
{
    options o;
    model m;
    unsigned char *text = NULL;
    size_t tlen = 0, ntrain, nval, W, K, N, B, t, total;
    float *P = NULL, *Mo = NULL, *Vo = NULL, *gradbuf = NULL, *tokloss = NULL, *vlogits = NULL, *vloss = NULL;
    uint32_t *perm = NULL;
    ws *w = NULL;
    gpt_dev *dev = NULL;
    repdl_dp plan;
    int T, rc = 1, have_plan = 0;
    uint64_t step = 0, cur_epoch = (uint64_t)-1;
    repdl_adam_config acfg;
    repdl_adam_state ast;
    size_t *sizes = NULL;
    float **gptr = NULL;
    char hex[65];
    job j;

    if (parse_args(argc, argv, &o)) return EXIT_USAGE;
    g_gemm_cr = o.gemm_cr;
    if (golden_sha256_selftest() != 0) {
        fprintf(stderr, "train_gpt: SHA-256 self-test failed\n");
        return 1;
    }
    if (o.generate) { /* the model's shape comes from the checkpoint */
        ckpt_hdr c;
        if (ckpt_load(o.resume, &c, 0, NULL, NULL, NULL)) return EXIT_CKPT;
        o.layers = c.layers; o.dmodel = c.dmodel; o.heads = c.heads; o.ctx = c.ctx;
        o.batch = c.batch; o.seed = c.seed;
        if (!c.layers || c.layers > 64 || c.dmodel < 2 || c.dmodel > 4096 || !c.heads ||
            c.dmodel % c.heads || (c.dmodel / c.heads) % 2 || c.ctx < 2 || c.ctx > 4096) {
            fprintf(stderr, "train_gpt: --resume %s: impossible model shape\n", o.resume);
            return EXIT_CKPT;
        }
    }
    memset(&m, 0, sizeof m);
    memset(&j, 0, sizeof j);
    if (model_init(&m, &o)) { fprintf(stderr, "train_gpt: out of memory\n"); goto out; }
    N = m.N;
    B = (size_t)o.batch;
    T = o.cuda ? 1 : o.threads;
    total = m.total;
    /* --device cuda: the GPU first (exit status 3 without one, before the
       data is read) */
    if (o.cuda && !o.generate) {
        gpt_dev_model dm;
        char err[512];
#ifdef TRAIN_HAVE_MPI
        if (g_mpi) {
            fprintf(stderr, "train_gpt: --device cuda does not run under mpirun (one process only)\n");
            rc = EXIT_USAGE;
            goto out;
        }
#endif
        memset(&dm, 0, sizeof dm);
        dm.L = m.L; dm.D = m.D; dm.H = m.H; dm.hd = m.hd; dm.N = m.N;
        dm.off = m.off; dm.total = m.total; dm.scale = m.scale;
        dm.cos_tab = m.cos_tab; dm.sin_tab = m.sin_tab; dm.gemm_cr = o.gemm_cr;
        if (train_gpt_cuda_init(&dev, &dm, 1, err, sizeof err)) {
            fprintf(stderr, "train_gpt: --device cuda: %s\n", err);
            rc = EXIT_NO_CUDA;
            goto out;
        }
    }
    if (!o.generate || !o.prompt || o.serve_check) {
        if (read_text(o.data, &text, &tlen)) { rc = EXIT_DATA; goto out; }
    }
    ntrain = tlen - tlen / 10;
    nval = tlen - ntrain;
    W = ntrain > N ? (ntrain - 1) / N : 0;
    K = nval > N ? (nval - 1) / N : 0;
    if (K > (size_t)o.val_seqs) K = (size_t)o.val_seqs;
    if (!o.generate && W < B) {
        fprintf(stderr, "train_gpt: %s: %zu training windows of %zu bytes, fewer than --batch %zu\n",
                o.data, W, N + 1, B);
        rc = EXIT_DATA;
        goto out;
    }
    P = (float *)malloc(total * sizeof(float));
    Mo = (float *)calloc(total, sizeof(float));
    Vo = (float *)calloc(total, sizeof(float));
    gradbuf = (float *)malloc(total * sizeof(float));
    tokloss = (float *)malloc((B > K ? B : K) * N * sizeof(float) + 1);
    vlogits = (float *)malloc(K * N * VOCAB * sizeof(float) + 1);
    vloss = (float *)malloc(K * N * sizeof(float) + 1);
    perm = (uint32_t *)malloc((W ? W : 1) * sizeof(uint32_t));
    w = (ws *)calloc((size_t)T, sizeof *w);
    sizes = (size_t *)malloc(m.ntensors * sizeof(size_t));
    gptr = (float **)malloc(m.ntensors * sizeof(float *));
    if (!P || !Mo || !Vo || !gradbuf || !tokloss || !vlogits || !vloss || !perm || !w || !sizes || !gptr) {
        fprintf(stderr, "train_gpt: out of memory\n");
        goto out;
    }
    for (t = 0; t < (size_t)T; t++)
        if (ws_alloc(&w[t], &m, 1)) { fprintf(stderr, "train_gpt: out of memory\n"); goto out; }
    if (repdl_dp_init(&plan, B, 1, total, T, g_size, g_rank) != REPDL_OK) {
        fprintf(stderr, "train_gpt: cannot start the data-parallel step\n");
        goto out;
    }
    have_plan = 1;

    model_init_weights(&m, o.seed, P);
    golden_sha256_hex_f32(P, total, hex);
    if (g_rank == 0 && !o.generate) printf("init_weights_sha256 %s\n", hex);
    memset(&acfg, 0, sizeof acfg);
    acfg.lr = o.lr; acfg.beta1 = 0.9f; acfg.beta2 = 0.95f; acfg.eps = 1e-8f;
    acfg.decoupled = 1;
    repdl_adam_state_init(&ast);
    if (o.resume) {
        ckpt_hdr c;
        if (ckpt_load(o.resume, &c, total, P, Mo, Vo)) { rc = EXIT_CKPT; goto out; }
        if (c.layers != o.layers || c.dmodel != o.dmodel || c.heads != o.heads || c.ctx != o.ctx ||
            c.batch != o.batch || c.seed != o.seed || memcmp(&c.lr, &o.lr, 4) ||
            memcmp(&c.wd, &o.wd, 4) || memcmp(&c.clip, &o.clip, 4) || c.step > o.steps) {
            if (!o.generate) {
                fprintf(stderr, "train_gpt: --resume %s: the checkpoint's run has other "
                                "options (model, batch, seed, lr, wd, clip) or more steps\n",
                        o.resume);
                rc = EXIT_CKPT;
                goto out;
            }
        }
        step = c.step;
        ast.t = c.adam_t; ast.beta1_pow = c.beta1_pow; ast.beta2_pow = c.beta2_pow;
    }
    if (o.serve_check) {
        int r = serve_check(&m, P, &w[0], text + ntrain, nval);
        rc = r < 0 ? 1 : r;
        goto out;
    }
    if (o.generate) {
        unsigned char out[SAMPLE_LEN];
        const unsigned char *pr = o.prompt ? (const unsigned char *)o.prompt : text + ntrain;
        size_t plen = o.prompt ? strlen(o.prompt) : (N / 2 < 32 ? N / 2 : 32);
        if (plen == 0) { fprintf(stderr, "train_gpt: --prompt is empty\n"); rc = EXIT_USAGE; goto out; }
        if (greedy(&m, P, &w[0], pr, plen, out, o.no_cache)) { fprintf(stderr, "train_gpt: generation failed\n"); goto out; }
        if (g_rank == 0) {
            golden_sha256 h;
            unsigned char d[32];
            golden_sha256_init(&h);
            golden_sha256_update(&h, out, SAMPLE_LEN);
            golden_sha256_final(&h, d);
            golden_sha256_hex(d, hex);
            print_escaped("prompt", pr, plen);
            printf("sample_sha256 %s\n", hex);
            print_escaped("sample", out, SAMPLE_LEN);
        }
        rc = 0;
        goto out;
    }

    for (t = 0; t < m.ntensors; t++) sizes[t] = m.count[t];
    j.m = &m; j.P = P; j.w = w; j.text = text; j.perm = perm; j.B = B; j.tokloss = tokloss;
    j.dev = dev;
    {
        uint64_t end = o.have_stop ? o.stop_at : o.steps, per_epoch = W / B;
        for (; step < end; step++) {
            uint64_t epoch = step / per_epoch;
            const float *G;
            float loss = 0.0f, norm = 0.0f;
            double w0 = o.timing ? clock_s(CLOCK_MONOTONIC) : 0.0;
            double c0 = o.timing ? clock_s(CLOCK_PROCESS_CPUTIME_ID) : 0.0;
            if (epoch != cur_epoch) {
                if (repdl_rng_permutation(W, o.seed, epoch, perm) != REPDL_OK) goto out;
                cur_epoch = epoch;
            }
            j.first = (size_t)(step % per_epoch) * B;
            if (dev && train_gpt_cuda_set_params(dev, P)) {
                fprintf(stderr, "train_gpt: --device cuda: %s\n", train_gpt_cuda_error(dev));
                goto step_failed;
            }
#ifdef TRAIN_HAVE_MPI
            if (g_mpi) {
                if (repdl_dp_step_mpi_f32(&plan, MPI_COMM_WORLD, unit_grad, &j, gradbuf) != REPDL_OK)
                    goto step_failed;
            } else
#endif
            if (repdl_dp_step_f32(&plan, unit_grad, &j, gradbuf) != REPDL_OK) goto step_failed;
            G = gradbuf;
            for (t = 0; t < m.ntensors; t++) gptr[t] = (float *)G + m.off[t];
            if (repdl_clip_grad_norm_f32(m.ntensors, sizes, o.clip, 1e-6f, gptr, &norm) != REPDL_OK)
                goto step_failed;
            if (repdl_adam_begin_step(&ast, &acfg) != REPDL_OK) goto step_failed;
            {   /* the update on every thread of the pool, a share of the elements each */
                adam_job aj;
                aj.m = &m; aj.cfg = &acfg; aj.st = &ast; aj.wd = o.wd;
                aj.G = G; aj.P = P; aj.Mo = Mo; aj.Vo = Vo;
                if (repdl_dp_for(&plan, 0, total, adam_range, &aj) != REPDL_OK) goto step_failed;
            }
            if (o.timing)
                fprintf(stderr, "step_time %" PRIu64 " %.3f %.3f\n", step + 1,
                        1e3 * (clock_s(CLOCK_MONOTONIC) - w0),
                        1e3 * (clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0));
            if (!o.quiet && g_rank == 0) {
                /* the rows' losses live on the ranks that computed them:
                   printed for one process only */
                if (g_size == 1) {
                    float s = repdl_sum_f32(B * N, tokloss);
                    repdl_div_count_f32(1, B * N, &s, &loss);
                    printf("step %" PRIu64 " loss %.6f grad_norm %.6f\n", step + 1, (double)loss,
                           (double)norm);
                } else {
                    printf("step %" PRIu64 " grad_norm %.6f\n", step + 1, (double)norm);
                }
            }
        }
    }
    if (o.save) {
        ckpt_hdr c;
        memset(&c, 0, sizeof c);
        c.layers = o.layers; c.dmodel = o.dmodel; c.heads = o.heads; c.ctx = o.ctx;
        c.batch = o.batch; c.seed = o.seed; c.step = step; c.adam_t = ast.t;
        c.lr = o.lr; c.wd = o.wd; c.clip = o.clip;
        c.beta1_pow = ast.beta1_pow; c.beta2_pow = ast.beta2_pow;
        if (g_rank == 0 && ckpt_save(o.save, &c, total, P, Mo, Vo)) goto out;
        if (!o.quiet && g_rank == 0) printf("saved %s at step %" PRIu64 "\n", o.save, step);
        if (o.have_stop && step < o.steps) {
            if (g_rank == 0) printf("stopped_at_step %" PRIu64 "\n", step);
            rc = 0;
            goto out;
        }
    }
    golden_sha256_hex_f32(P, total, hex);
    if (g_rank == 0) printf("trained_weights_sha256 %s\n", hex);
    /* validation: every rank computes all K windows (its threads share them) */
    j.text = text + ntrain;
    j.perm = NULL;
    j.tokloss = vloss;
    j.logits = vlogits;
    if (dev && train_gpt_cuda_set_params(dev, P)) {
        fprintf(stderr, "train_gpt: --device cuda: %s\n", train_gpt_cuda_error(dev));
        goto out;
    }
    if (K && repdl_dp_for(&plan, 0, K, eval_range, &j) != REPDL_OK) {
        fprintf(stderr, "train_gpt: validation failed\n");
        goto out;
    }
    {
        float s = repdl_sum_f32(K * N, vloss), vl = 0.0f;
        uint32_t u;
        repdl_div_count_f32(1, K * N, &s, &vl);
        memcpy(&u, &vl, 4);
        golden_sha256_hex_f32(vlogits, K * N * VOCAB, hex);
        if (g_rank == 0) {
            printf("val_logits_sha256 %s\n", hex);
            printf("val_loss %.6f 0x%08" PRIx32 "\n", (double)vl, u);
        }
    }
    {
        unsigned char out[SAMPLE_LEN];
        size_t plen = N / 2 < 32 ? N / 2 : 32;
        golden_sha256 h;
        unsigned char d[32];
        if (plen > nval) plen = nval;
        if (plen == 0 || greedy(&m, P, &w[0], text + ntrain, plen, out, o.no_cache)) {
            fprintf(stderr, "train_gpt: generation failed\n");
            goto out;
        }
        golden_sha256_init(&h);
        golden_sha256_update(&h, out, SAMPLE_LEN);
        golden_sha256_final(&h, d);
        golden_sha256_hex(d, hex);
        if (g_rank == 0) {
            printf("sample_sha256 %s\n", hex);
            print_escaped("sample", out, SAMPLE_LEN);
        }
    }
    rc = 0;
    goto out;
step_failed:
    fprintf(stderr, "train_gpt: step %" PRIu64 " failed\n", step + 1);
out:
    if (have_plan) repdl_dp_free(&plan);
    train_gpt_cuda_free(dev);
    if (w)
        for (t = 0; t < (size_t)T; t++) ws_free(&w[t], &m);
    free(w);
    free(P); free(Mo); free(Vo); free(gradbuf); free(tokloss); free(vlogits); free(vloss); free(perm);
    free(sizes); free(gptr); free(text);
    model_free(&m);
    return rc;
}

int main(int argc, char **argv)
{
    int rc;
    if (!repdl_fpenv_ok(argc > 0 ? 1.0f : 0.0f)) {
        fprintf(stderr, "train_gpt: the floating-point environment flushes subnormals or "
                        "rounds other than to nearest (a -ffast-math link or library): "
                        "nothing computed\n");
        return EXIT_FPENV;
    }
#ifdef TRAIN_HAVE_MPI
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE")) {
        if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
            fprintf(stderr, "train_gpt: MPI_Init failed\n");
            return 1;
        }
        g_mpi = 1;
        MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    }
#endif
    rc = run(argc, argv);
    fflush(stdout);
#ifdef TRAIN_HAVE_MPI
    if (g_mpi) {
        if (rc != 0) MPI_Abort(MPI_COMM_WORLD, rc);
        MPI_Finalize();
    }
#endif
    return rc;
}
