/* SPDX-License-Identifier: MIT */
/* examples/train_fmnist.c: LeNet-5 trained on Fashion-MNIST with repdl
   only, the same SHA-256 hashes on every machine (docs/train.md).

     train_fmnist [--epochs E | --steps K] [--batch B] [--threads N]
                  [--seed S] [--lr LR] [--momentum M] [--test-limit T]
                  [--data DIR | --train-images F --train-labels F
                   --test-images F --test-labels F]
                  [--save CKPT [--save-every K]] [--stop-at K] [--resume CKPT]
                  [--device cpu|cuda] [--gemm fma|cr] [--quiet]
     mpirun -np R train_fmnist ...     (a build with MPI: -DTRAIN_HAVE_MPI)

   Every number that reaches the weights comes from a repdl operation:
     weights and biases   repdl_rng_uniform_fill_f32 (PyTorch's default
                          bound 1/sqrt(fan_in), repdl_sqrt_f32 then one division)
     shuffling            repdl_rng_permutation, a pure function of
                          (seed, epoch)
     pixels               byte / 255.0f, one IEEE division (a 256-entry table)
     forward, backward    repdl_conv2d_*, repdl_relu*, repdl_max_pool2d_*,
                          repdl_linear_*, repdl_cross_entropy_f32
     gradient sum         --threads 1, one process: inside the whole-batch
                          backward calls (the batch order: micro-batches of
                          16 added by the buddy tree); --threads N > 1 or
                          MPI ranks: the same sum over the micro-batches of
                          each worker and rank (repdl/data_parallel.h:
                          repdl_dp_step_f32, repdl_dp_step_mpi_f32;
                          "data parallelism" below)
     update               repdl_sgd_step_f32 (momentum)
     --gemm cr            the linear layers' products (y = x W^T + b,
                          dx = dy W, dW = dy^T x, db = dy^T 1) correctly
                          rounded (repdl_gemm_cr_f32, train_linear_cr.h)
                          on each micro-batch of 16 images, the gradient
                          always through the data-parallel step (also at
                          --threads 1); host only (tests/train/expected.txt
                          [short-cr], [tiny-cr])
   so the trained weights, and the test logits, are bitwise the same for any
   compiler, flags, thread count, MPI rank count, CPU or (with --device
   cuda) GPU.

   Printed hashes (SHA-256 of little-endian binary32 bytes):
     init_weights_sha256     the 10 parameter tensors in the order conv1.w,
                             conv1.b, conv2.w, conv2.b, fc1.w, fc1.b, fc2.w,
                             fc2.b, fc3.w, fc3.b, each row-major (PyTorch
                             layouts), concatenated
     trained_weights_sha256  the same, after training
     test_logits_sha256      the logits [test images][10], row-major, test
                             images in file order

   Exit status: 0 done; 1 other failure (out of memory, I/O); 2 bad usage
   (also: the ranks of an MPI job disagree on an argument); 3 --device cuda
   without CUDA (no GPU, or a build without CUDA); 4 bad data file; 5 bad
   checkpoint; 6 the floating-point environment flushes subnormals (checked
   before anything else). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef TRAIN_HAVE_MPI
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#define REPDL_DP_MPI 1 /* repdl_dp_step_mpi_f32 */
#endif
#include <repdl/repdl.h>
#include <repdl/activation.h>
#include <repdl/conv2d.h>
#include <repdl/data_parallel.h>
#include <repdl/linear.h>
#include <repdl/optim.h>
#include <repdl/pool.h>
#include <repdl/rng.h>
#include <repdl/softmax.h>

#include "train_backend_host.h"
#include "train_linear_cr.h"
#include "train_ckpt.h"
#include "train_idx.h"
#include "train_args.h"

#ifndef TRAIN_HAVE_CUDA
/* The build without CUDA: --device cuda always refuses (exit status 3). */
int train_cuda_backend_init(train_backend *be, char *err, size_t errlen)
{
    (void)be;
    snprintf(err, errlen, "this build of train_fmnist has no CUDA support (nvcc was not "
             "found when it was built)");
    return -1;
}
#endif

#define EXIT_USAGE 2
#define EXIT_NO_CUDA 3
#define EXIT_DATA 4
#define EXIT_CKPT 5
#define EXIT_FPENV 6

/* ---- the model: LeNet-5 with ReLU and max pooling ----
   x [B][1][28][28]
   conv1 6x1x5x5, pad 2  -> [B][6][28][28], relu, maxpool 2 -> [B][6][14][14]
   conv2 16x6x5x5        -> [B][16][10][10], relu, maxpool 2 -> [B][16][5][5]
   fc1 400 -> 120, relu;  fc2 120 -> 84, relu;  fc3 84 -> 10 (logits) */
#define IMG 28
#define NCLASS 10
#define NTENSOR 10
#define MODEL_ID 1u

static const char *const tensor_names[NTENSOR] = {
    "conv1.w", "conv1.b", "conv2.w", "conv2.b", "fc1.w",
    "fc1.b",   "fc2.w",   "fc2.b",   "fc3.w",   "fc3.b"};
/* element counts and fan_in of each tensor (PyTorch: the bias of a layer
   uses the fan_in of its weight) */
static const size_t tensor_count[NTENSOR] = {6 * 1 * 25, 6,   16 * 6 * 25, 16, 120 * 400,
                                             120,        84 * 120, 84, 10 * 84,    10};
static const size_t tensor_fanin[NTENSOR] = {25, 25, 150, 150, 400, 400, 120, 120, 84, 84};

typedef struct model {
    size_t off[NTENSOR + 1]; /* offsets into the flat parameter buffer */
    size_t total;
} model;

static void model_init_layout(model *m)
{
    size_t i;
    m->off[0] = 0;
    for (i = 0; i < NTENSOR; i++) m->off[i + 1] = m->off[i] + tensor_count[i];
    m->total = m->off[NTENSOR];
}

/* Stream positions (rng.h, docs/train.md): tensor t is drawn from the
   uniform stream (seed, offset t * 2^32) (a tensor uses fewer than 2^32
   counter blocks, so the ranges never meet); the permutation of epoch e
   (0-based) is repdl_rng_permutation(n, seed, offset e, perm), whose counters
   live in a space of their own (ctr[3] >= 2^31), disjoint from the
   uniform one. */
#define INIT_OFFSET(t) ((uint64_t)(t) << 32)
#define PERM_OFFSET(e) ((uint64_t)(e))

/* PyTorch's default initialisation of Conv2d and Linear: weight and bias
   uniform in [-1/sqrt(fan_in), 1/sqrt(fan_in)); the bound is
   RN(1 / RN(sqrt(fan_in))), both operations correctly rounded. */
static void model_init_weights(const model *m, uint64_t seed, float *params)
{
    size_t t;
    for (t = 0; t < NTENSOR; t++) {
        float bound = repdl__fdiv(1.0f, repdl_sqrt_f32((float)tensor_fanin[t]));
        repdl_rng_uniform_fill_f32(tensor_count[t], seed, INIT_OFFSET(t), -bound, bound,
                                   params + m->off[t]);
    }
}

/* ---- options ---- */
typedef struct options {
    uint64_t epochs, steps, batch, stop_at, test_limit, seed, save_every;
    int threads, quiet, cuda, have_steps, have_stop, gemm_cr;
    float lr, momentum;
    const char *data, *train_images, *train_labels, *test_images, *test_labels;
    const char *save, *resume;
} options;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: train_fmnist [options]\n"
        "  --epochs E          train E epochs (default 2)\n"
        "  --steps K           stop after K steps in all (the short run)\n"
        "  --batch B           minibatch size (default 64; the last partial batch of an\n"
        "                      epoch is dropped)\n"
        "  --threads N         host threads (default 1; the result is the same for any N):\n"
        "                      N > 1 splits each batch's micro-batches of 16 samples\n"
        "                      between N workers (data parallelism)\n"
        "  --seed S            RNG seed (default 1)\n"
        "  --lr LR             SGD learning rate (default 0.05)\n"
        "  --momentum M        SGD momentum (default 0.9)\n"
        "  --test-limit T      evaluate only the first T test images\n"
        "  --data DIR          directory of the four IDX files (NAME.gz or NAME;\n"
        "                      default /usr/share/datasets/fashion-mnist)\n"
        "  --train-images F --train-labels F --test-images F --test-labels F\n"
        "                      explicit IDX paths (gzip or plain), e.g. the original MNIST\n"
        "                      (a data file is read after its header is checked, never\n"
        "                      past the bytes the header announces, at most 4 GiB of\n"
        "                      pixels; a gzip file is one member, nothing after it)\n"
        "  --save CKPT         write a checkpoint when the run stops (checked before\n"
        "                      training: CKPT is no directory and a file can be created\n"
        "                      beside it; the CKPT.tmp.XXXXXX files a killed save left\n"
        "                      are removed, so give each running job its own CKPT)\n"
        "  --save-every K      with --save: also every K global steps (the file is\n"
        "                      replaced atomically: a crash leaves the last one whole)\n"
        "  --stop-at K         stop after global step K (with --save: to resume later;\n"
        "                      not below the step of --resume)\n"
        "  --resume CKPT       continue from a checkpoint\n"
        "  --device cpu|cuda   where to compute (default cpu)\n"
        "  --gemm fma|cr       the linear layers' products: fma (default) the FMA chain of\n"
        "                      repdl_linear_*, cr correctly rounded (repdl_gemm_cr_f32) on\n"
        "                      each micro-batch of 16, added by the buddy tree (its own\n"
        "                      hashes; host only; a checkpoint does not record it: resume\n"
        "                      with the same --gemm)\n"
        "  --quiet             print only the hashes and the test accuracy\n"
        "exit status: 0 ok, 1 failure, 2 usage, 3 no CUDA, 4 bad data, 5 bad checkpoint,\n"
        "  6 the floating-point environment flushes subnormals (a -ffast-math link)\n"
        "MPI (a build with Open MPI, launched by mpirun): rank r of R trains the\n"
        "micro-batches [G r/R, G(r+1)/R) of each batch of G = ceil(B/16); every rank\n"
        "gets the same gradient (repdl_mpi_sum_nodes_f32), rank 0 prints and saves;\n"
        "the hashes and checkpoints are those of one process, for any R and N.\n"
        "Before training the ranks compare every option but --threads (which may\n"
        "differ: the result does not depend on it), and the SHA-256 of the data and\n"
        "--resume files' contents; if any differs, every rank stops with exit status 2\n"
        "and rank 0 names the option and the ranks.\n"
        "testing aid: REPDL_TRAIN_DIE_AT=STEP[:RANK] in the environment makes rank RANK\n"
        "(default 0) exit with status 86 right after global step STEP, as a crash\n"
        "would (tests/train: the last --save-every checkpoint stays whole)\n");
}

static int parse_f32(const char *s, float *v)
{
    char *end;
    double x;
    if (!s || !*s) return -1;
    errno = 0;
    x = strtod(s, &end); /* decimal -> double -> float: only at parse time, exact for
                            the documented defaults' spelling on every glibc */
    if (errno || *end || !(x > 0.0) || x > 1e6) return -1;
    *v = (float)x;
    return 0;
}

static int parse_args(int argc, char **argv, options *o)
{
    int i;
    memset(o, 0, sizeof *o);
    o->epochs = 2;
    o->batch = 64;
    o->threads = 1;
    o->seed = 1;
    o->lr = 0.05f;
    o->momentum = 0.9f;
    o->data = "/usr/share/datasets/fashion-mnist";
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t u;
        if (!strcmp(a, "--quiet")) { o->quiet = 1; continue; }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 1; }
        static const char *const valued[] = {
            "--epochs", "--steps", "--batch", "--threads", "--seed", "--lr", "--momentum",
            "--test-limit", "--stop-at", "--data", "--train-images", "--train-labels",
            "--test-images", "--test-labels", "--save", "--resume", "--device", "--save-every",
            "--gemm"};
        size_t k;
        for (k = 0; k < sizeof valued / sizeof valued[0]; k++)
            if (!strcmp(a, valued[k])) break;
        if (k == sizeof valued / sizeof valued[0]) {
            fprintf(stderr, "train_fmnist: unknown option %s (see --help)\n", a);
            return -1;
        }
        if (!v) { fprintf(stderr, "train_fmnist: %s needs a value\n", a); return -1; }
        i++;
        if (!strcmp(a, "--epochs")) {
            if (parse_u64(v, &o->epochs) || o->epochs == 0) goto bad;
        } else if (!strcmp(a, "--steps")) {
            if (parse_u64(v, &o->steps) || o->steps == 0) goto bad;
            o->have_steps = 1;
        } else if (!strcmp(a, "--batch")) {
            if (parse_u64(v, &o->batch) || o->batch == 0 || o->batch > 65536) goto bad;
        } else if (!strcmp(a, "--threads")) {
            if (parse_u64(v, &u) || u == 0 || u > 256) goto bad;
            o->threads = (int)u;
        } else if (!strcmp(a, "--seed")) {
            if (parse_u64(v, &o->seed)) goto bad;
        } else if (!strcmp(a, "--lr")) {
            if (parse_f32(v, &o->lr)) goto bad;
        } else if (!strcmp(a, "--momentum")) {
            if (parse_f32(v, &o->momentum) || o->momentum >= 1.0f) goto bad;
        } else if (!strcmp(a, "--test-limit")) {
            if (parse_u64(v, &o->test_limit) || o->test_limit == 0) goto bad;
        } else if (!strcmp(a, "--stop-at")) {
            if (parse_u64(v, &o->stop_at) || o->stop_at == 0) goto bad;
            o->have_stop = 1;
        } else if (!strcmp(a, "--save-every")) {
            if (parse_u64(v, &o->save_every) || o->save_every == 0) goto bad;
        } else if (!strcmp(a, "--data")) o->data = v;
        else if (!strcmp(a, "--train-images")) o->train_images = v;
        else if (!strcmp(a, "--train-labels")) o->train_labels = v;
        else if (!strcmp(a, "--test-images")) o->test_images = v;
        else if (!strcmp(a, "--test-labels")) o->test_labels = v;
        else if (!strcmp(a, "--save")) o->save = v;
        else if (!strcmp(a, "--resume")) o->resume = v;
        else if (!strcmp(a, "--device")) {
            if (!strcmp(v, "cpu")) o->cuda = 0;
            else if (!strcmp(v, "cuda")) o->cuda = 1;
            else goto bad;
        } else if (!strcmp(a, "--gemm")) {
            if (!strcmp(v, "fma")) o->gemm_cr = 0;
            else if (!strcmp(v, "cr")) o->gemm_cr = 1;
            else goto bad;
        } else {
            fprintf(stderr, "train_fmnist: unknown option %s (see --help)\n", a);
            return -1;
        }
        continue;
    bad:
        fprintf(stderr, "train_fmnist: bad value '%s' for %s (see --help)\n", v, a);
        return -1;
    }
    if (o->save_every && !o->save) {
        fprintf(stderr, "train_fmnist: --save-every needs --save\n");
        return -1;
    }
    if (o->gemm_cr && o->cuda) {
        fprintf(stderr, "train_fmnist: --gemm cr runs on the host only (not with --device cuda)\n");
        return -1;
    }
    return 0;
}

/* DIR/NAME.gz if it exists, else DIR/NAME (malloc'd) */
static char *data_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 8;
    char *p = (char *)malloc(n);
    FILE *f;
    if (!p) return NULL;
    snprintf(p, n, "%s/%s.gz", dir, name);
    f = fopen(p, "rb");
    if (f) { fclose(f); return p; }
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- activations of one minibatch, in backend memory ---- */
typedef struct acts {
    size_t cap;                  /* batch capacity */
    float *x, *c1, *r1, *p1, *c2, *r2, *p2, *f1, *h1, *f2, *h2, *z;
    float *dz, *dh2, *df2, *dh1, *df1, *dp2, *dr2, *dc2, *dp1, *dr1, *dc1;
    size_t *a1, *a2;
    size_t *y;
    float *loss;                 /* 1 float */
} acts;

#define C1 (6 * IMG * IMG)
#define P1 (6 * 14 * 14)
#define C2 (16 * 10 * 10)
#define P2 (16 * 5 * 5)

static int acts_alloc(const train_backend *be, size_t B, acts *a)
{
    memset(a, 0, sizeof *a);
    a->cap = B;
#define AL(f, n, T)                                                   \
    if (!(a->f = (T *)be->alloc(be->ctx, (n) * sizeof(T)))) return -1;
    AL(x, B * IMG * IMG, float) AL(c1, B * C1, float) AL(r1, B * C1, float)
    AL(p1, B * P1, float) AL(c2, B * C2, float) AL(r2, B * C2, float) AL(p2, B * P2, float)
    AL(f1, B * 120, float) AL(h1, B * 120, float) AL(f2, B * 84, float) AL(h2, B * 84, float)
    AL(z, B * NCLASS, float) AL(dz, B * NCLASS, float) AL(dh2, B * 84, float)
    AL(df2, B * 84, float) AL(dh1, B * 120, float) AL(df1, B * 120, float)
    AL(dp2, B * P2, float) AL(dr2, B * C2, float) AL(dc2, B * C2, float)
    AL(dp1, B * P1, float) AL(dr1, B * C1, float) AL(dc1, B * C1, float)
    AL(a1, B * P1, size_t) AL(a2, B * P2, size_t) AL(y, B, size_t) AL(loss, 1, float)
#undef AL
    return 0;
}

static void acts_free(const train_backend *be, acts *a)
{
    void *p[] = {a->x,   a->c1,  a->r1,  a->p1,  a->c2,  a->r2,  a->p2,  a->f1, a->h1,
                 a->f2,  a->h2,  a->z,   a->dz,  a->dh2, a->df2, a->dh1, a->df1, a->dp2,
                 a->dr2, a->dc2, a->dp1, a->dr1, a->dc1, a->a1,  a->a2,  a->y,   a->loss};
    size_t i;
    for (i = 0; i < sizeof p / sizeof p[0]; i++)
        if (p[i]) be->release(be->ctx, p[i]);
}

static repdl_conv2d_shape conv1_shape(size_t B)
{
    repdl_conv2d_shape s;
    s.n = B; s.c = 1; s.h = IMG; s.w = IMG;
    s.oc = 6; s.kh = 5; s.kw = 5;
    s.stride_h = s.stride_w = 1; s.pad_h = s.pad_w = 2; s.dil_h = s.dil_w = 1;
    return s;
}

static repdl_conv2d_shape conv2_shape(size_t B)
{
    repdl_conv2d_shape s;
    s.n = B; s.c = 6; s.h = 14; s.w = 14;
    s.oc = 16; s.kh = 5; s.kw = 5;
    s.stride_h = s.stride_w = 1; s.pad_h = s.pad_w = 0; s.dil_h = s.dil_w = 1;
    return s;
}

static repdl_pool2d_shape pool_shape(size_t B, size_t c, size_t hw)
{
    repdl_pool2d_shape s;
    s.n = B; s.c = c; s.h = hw; s.w = hw;
    s.kh = s.kw = 2; s.stride_h = s.stride_w = 2; s.pad_h = s.pad_w = 0;
    return s;
}

/* The forward pass of B images (a->x) to the logits a->z. */
static int forward(const train_backend *be, const model *m, const float *P, acts *a, size_t B)
{
    repdl_conv2d_shape s1 = conv1_shape(B), s2 = conv2_shape(B);
    repdl_pool2d_shape q1 = pool_shape(B, 6, 28), q2 = pool_shape(B, 16, 10);
    const size_t *o = m->off;
    if (be->conv_fwd(be->ctx, &s1, a->x, P + o[0], P + o[1], a->c1)) return -1;
    if (be->relu_fwd(be->ctx, B * C1, a->c1, a->r1)) return -1;
    if (be->pool_fwd(be->ctx, &q1, a->r1, a->p1, a->a1)) return -1;
    if (be->conv_fwd(be->ctx, &s2, a->p1, P + o[2], P + o[3], a->c2)) return -1;
    if (be->relu_fwd(be->ctx, B * C2, a->c2, a->r2)) return -1;
    if (be->pool_fwd(be->ctx, &q2, a->r2, a->p2, a->a2)) return -1;
    if (be->lin_fwd(be->ctx, B, 400, 120, a->p2, P + o[4], P + o[5], a->f1)) return -1;
    if (be->relu_fwd(be->ctx, B * 120, a->f1, a->h1)) return -1;
    if (be->lin_fwd(be->ctx, B, 120, 84, a->h1, P + o[6], P + o[7], a->f2)) return -1;
    if (be->relu_fwd(be->ctx, B * 84, a->f2, a->h2)) return -1;
    if (be->lin_fwd(be->ctx, B, 84, NCLASS, a->h2, P + o[8], P + o[9], a->z)) return -1;
    return 0;
}

/* The gradient of every parameter into G from d(loss)/d(logits) in a->dz. */
static int backward_dz(const train_backend *be, const model *m, const float *P, float *G,
                       acts *a, size_t B)
{
    repdl_conv2d_shape s1 = conv1_shape(B), s2 = conv2_shape(B);
    repdl_pool2d_shape q1 = pool_shape(B, 6, 28), q2 = pool_shape(B, 16, 10);
    const size_t *o = m->off;
    if (be->lin_bwd(be->ctx, B, 84, NCLASS, a->h2, P + o[8], a->dz, a->dh2, G + o[8], G + o[9]))
        return -1;
    if (be->relu_bwd(be->ctx, B * 84, a->f2, a->dh2, a->df2)) return -1;
    if (be->lin_bwd(be->ctx, B, 120, 84, a->h1, P + o[6], a->df2, a->dh1, G + o[6], G + o[7]))
        return -1;
    if (be->relu_bwd(be->ctx, B * 120, a->f1, a->dh1, a->df1)) return -1;
    if (be->lin_bwd(be->ctx, B, 400, 120, a->p2, P + o[4], a->df1, a->dp2, G + o[4], G + o[5]))
        return -1;
    if (be->pool_bwd(be->ctx, &q2, a->a2, a->dp2, a->dr2)) return -1;
    if (be->relu_bwd(be->ctx, B * C2, a->c2, a->dr2, a->dc2)) return -1;
    if (be->conv_bwd(be->ctx, &s2, a->p1, P + o[2], a->dc2, a->dp1, G + o[2], G + o[3]))
        return -1;
    if (be->pool_bwd(be->ctx, &q1, a->a1, a->dp1, a->dr1)) return -1;
    if (be->relu_bwd(be->ctx, B * C1, a->c1, a->dr1, a->dc1)) return -1;
    if (be->conv_bwd(be->ctx, &s1, a->x, P + o[0], a->dc1, NULL, G + o[0], G + o[1]))
        return -1;
    return 0;
}

/* Loss (mean cross-entropy over the B rows, into a->loss) and the gradient
   of every parameter into G: the whole batch in one call of each
   operation (the library's batch order: --threads 1, one process). */
static int backward(const train_backend *be, const model *m, const float *P, float *G,
                    acts *a, size_t B)
{
    if (be->xent(be->ctx, B, NCLASS, a->z, a->y, a->loss, a->dz)) return -1;
    return backward_dz(be, m, P, G, a, B);
}

/* --gemm cr: the host backend's linear layers through train_linear_cr.h
   (called on one micro-batch: the data-parallel step) */
static int cr_lin_fwd(void *ctx, size_t M, size_t K, size_t N, const float *x, const float *W,
                      const float *b, float *y)
{
    host_ctx *c = (host_ctx *)ctx;
    int rc = train_linear_cr_forward(M, K, N, x, W, b, y);
    if (rc) c->err = "repdl_gemm_cr_f32 (forward) failed";
    return rc;
}

static int cr_lin_bwd(void *ctx, size_t M, size_t K, size_t N, const float *x, const float *W,
                      const float *dy, float *dx, float *dW, float *db)
{
    host_ctx *c = (host_ctx *)ctx;
    int rc = train_linear_cr_backward(M, K, N, x, W, dy, dx, dW, db);
    if (rc) c->err = "repdl_gemm_cr_f32 (backward) failed";
    return rc;
}

/* Index of the largest logit (the first one on ties; NaN never wins). */
static size_t argmax10(const float *z)
{
    size_t k, best = 0;
    for (k = 1; k < NCLASS; k++)
        if (z[k] > z[best]) best = k;
    return best;
}

/* pixel table: byte / 255 as one IEEE binary32 division */
static float pixel_table[256];
static void pixel_table_init(void)
{
    int i;
    for (i = 0; i < 256; i++) pixel_table[i] = repdl__fdiv((float)i, 255.0f);
}

static void gather(const train_idx_set *s, const uint32_t *idx, size_t first, size_t B,
                   float *x, size_t *y)
{
    size_t b, j;
    for (b = 0; b < B; b++) {
        size_t i = idx ? idx[first + b] : first + b;
        const unsigned char *px = s->pixels + i * IMG * IMG;
        for (j = 0; j < IMG * IMG; j++) x[b * IMG * IMG + j] = pixel_table[px[j]];
        y[b] = (size_t)s->labels[i];
    }
}

/* ---- data parallelism: threads and MPI ranks over micro-batches ----
   (docs/train.md, "Threads and MPI").  include/repdl/data_parallel.h runs
   the step: a global batch of B samples is G = ceil(B / 16) micro-batches
   (REPDL_MICROBATCH, the last one short when 16 does not divide B), spread
   over the ranks and each rank's threads; its callback, unit_grad below,
   is one micro-batch's gradient (the unit vector, V = m.total floats), and
   the step adds the G unit vectors by the buddy tree over units
   (reduce_units.h's additions; repdl_mpi_sum_nodes_f32 across ranks).
   For each of its micro-batches a thread runs forward + backward on those
   <= 16 samples alone: per-row cross-entropy (REPDL_REDUCTION_SUM, each
   row alone, so the row's loss and gradient row), every dlogits element
   divided by B (repdl_div_count_f32: what REPDL_REDUCTION_MEAN does with
   rows = B), backward into the callback's flat gradient.  The result is,
   element by element, the batch order of repdl_linear_backward_f32 /
   repdl_conv2d_backward_f32 on the whole batch: the same bits as
   --threads 1. */
#define MB REPDL_MICROBATCH

typedef struct dp {
    repdl_dp plan;
    int T;
    acts *a;           /* [T], capacity MB each */
    uint64_t *correct; /* [T]: correct predictions of the step */
    float *grad;       /* V: the full gradient */
    float *rowloss;    /* B: each row's loss */
    /* the current job */
    const train_backend *be;
    const model *m;
    const float *P;
    const train_idx_set *set;
    const uint32_t *perm;
    size_t first;      /* the batch's first item in perm */
    float *logits;     /* evaluation: [ntest][10] */
} dp;

/* The data-parallel step's callback: the gradient of micro-batch `unit`
   (samples [s0, s0 + rows) of the batch) into grad, on thread t. */
static repdl_status unit_grad(void *ctx, int t, size_t unit, size_t s0, size_t rows,
                              float *grad)
{
    dp *d = (dp *)ctx;
    acts *a = &d->a[t];
    size_t r;
    (void)unit;
    gather(d->set, d->perm, d->first + s0, rows, a->x, a->y);
    if (forward(d->be, d->m, d->P, a, rows)) return REPDL_ERR_INVALID;
    for (r = 0; r < rows; r++) {
        repdl_status st = repdl_cross_entropy_f32(1, NCLASS, REPDL_REDUCTION_SUM,
                                                  a->z + r * NCLASS, a->y + r,
                                                  &d->rowloss[s0 + r], a->dz + r * NCLASS);
        if (st != REPDL_OK) return st;
        d->correct[t] += argmax10(a->z + r * NCLASS) == a->y[r];
    }
    /* the mean over the global batch: one correctly rounded division by B,
       as REPDL_REDUCTION_MEAN with rows = B */
    repdl_div_count_f32(rows * NCLASS, d->plan.batch, a->dz, a->dz);
    if (backward_dz(d->be, d->m, d->P, grad, a, rows)) return REPDL_ERR_INVALID; /* the backend's failure */
    return REPDL_OK;
}

/* The logits of test images [b, e), MB at a time, on thread t (forward is
   per sample: the bits do not depend on the split). */
static repdl_status eval_range(void *ctx, int t, size_t b, size_t e)
{
    dp *d = (dp *)ctx;
    size_t first;
    for (first = b; first < e; first += MB) {
        size_t n = e - first < MB ? e - first : MB;
        gather(d->set, NULL, first, n, d->a[t].x, d->a[t].y);
        if (forward(d->be, d->m, d->P, &d->a[t], n)) return REPDL_ERR_INVALID;
        memcpy(d->logits + first * NCLASS, d->a[t].z, n * NCLASS * sizeof(float));
    }
    return REPDL_OK;
}

static void dp_free(dp *d)
{
    int t;
    repdl_dp_free(&d->plan);
    if (d->a)
        for (t = 0; t < d->T; t++) acts_free(d->be, &d->a[t]);
    free(d->a);
    free(d->correct);
    free(d->grad);
    free(d->rowloss);
    memset(d, 0, sizeof *d);
}

/* The plan of rank `rank` of R with T threads for batches of B samples;
   0, or -1 (out of memory). */
static int dp_init(dp *d, const train_backend *be, const model *m, size_t B, int T, int R,
                   int rank)
{
    int t;
    memset(d, 0, sizeof *d);
    d->be = be;
    d->m = m;
    if (repdl_dp_init(&d->plan, B, MB, m->total, T, R, rank) != REPDL_OK) return -1;
    d->T = T;
    d->a = (acts *)calloc((size_t)T, sizeof *d->a);
    d->correct = (uint64_t *)calloc((size_t)T, sizeof *d->correct);
    d->grad = (float *)malloc(m->total * sizeof(float));
    d->rowloss = (float *)malloc(B * sizeof(float));
    if (!d->a || !d->correct || !d->grad || !d->rowloss) return -1;
    for (t = 0; t < T; t++)
        if (acts_alloc(be, MB, &d->a[t])) return -1;
    return 0;
}

/* Logits of the first n test images into host memory logits [n][10];
   returns the number of correct predictions, or -1. */
static long long evaluate(const train_backend *be, const model *m, const float *P, acts *a,
                          const train_idx_set *test, size_t n, float *logits, float *hx,
                          size_t *hy)
{
    size_t first;
    long long correct = 0;
    for (first = 0; first < n; first += a->cap) {
        size_t B = n - first < a->cap ? n - first : a->cap, b;
        gather(test, NULL, first, B, hx, hy);
        if (be->put(be->ctx, a->x, hx, B * IMG * IMG * sizeof(float))) return -1;
        if (forward(be, m, P, a, B)) return -1;
        if (be->get(be->ctx, logits + first * NCLASS, a->z, B * NCLASS * sizeof(float)))
            return -1;
        for (b = 0; b < B; b++) correct += argmax10(logits + (first + b) * NCLASS) == hy[b];
    }
    return correct;
}

static void report_backend_error(const train_backend *be, const char *what)
{
    fprintf(stderr, "train_fmnist: %s failed on %s", what, be->name);
    if (be->last_error) fprintf(stderr, ": %s", be->last_error(be->ctx));
    fprintf(stderr, "\n");
}

/* ---- processes: one, or the ranks of an MPI job ---- */
static int g_mpi = 0, g_rank = 0, g_size = 1;
#ifdef TRAIN_HAVE_MPI
/* set when every rank stops with the same status, knowing it (the ranks'
   arguments disagree): main then ends MPI normally instead of MPI_Abort */
static int g_all_stop = 0;
#endif

/* The checkpoint of the run at `step` (--save), written by rank 0 only
(every rank holds the same state); 0, or -1 with a message. */
static int save_checkpoint(const options *o, const train_idx_set *train,
                           uint64_t step, uint64_t epoch_steps, uint64_t epoch_correct,
                           float *losses, float *hP, float *hM)
{
    train_ckpt c;
    char err[512];
    size_t i;
    if (g_rank != 0) return 0;
    memset(&c, 0, sizeof c);
    c.model_id = MODEL_ID;
    c.ntensors = NTENSOR;
    for (i = 0; i < NTENSOR; i++) c.counts[i] = tensor_count[i];
    c.seed = o->seed;
    c.step = step;
    c.batch = o->batch;
    c.ntrain = train->count;
    c.lr = o->lr;
    c.momentum = o->momentum;
    c.epoch_steps = epoch_steps;
    c.epoch_correct = epoch_correct;
    c.epoch_losses = losses;
    c.params = hP;
    c.mbuf = hM;
    if (train_ckpt_save(o->save, &c, err, sizeof err)) {
        fprintf(stderr, "train_fmnist: --save: %s\n", err);
        return -1;
    }
    if (!o->quiet) printf("saved %s at step %" PRIu64 "\n", o->save, step);
    return 0;
}

/* The test logits through the threads (and ranks): rank r evaluates the
   images [n r/R, n(r+1)/R), its threads contiguous shares of them
   (repdl_dp_for); the logits are gathered on every rank.  The number
   correct, or -1. */
static long long dp_evaluate(dp *d, const float *P, const train_idx_set *test, size_t n,
                             float *logits)
{
    size_t e0 = n * (size_t)g_rank / (size_t)g_size, e1 = n * (size_t)(g_rank + 1) / (size_t)g_size;
    size_t i;
    long long correct = 0;
    d->P = P;
    d->set = test;
    d->logits = logits;
    if (repdl_dp_for(&d->plan, e0, e1, eval_range, d) != REPDL_OK) return -1;
#ifdef TRAIN_HAVE_MPI
    if (g_mpi && g_size > 1) {
        int *cnt = (int *)malloc(2 * (size_t)g_size * sizeof(int)), r, err;
        if (!cnt) return -1;
        for (r = 0; r < g_size; r++) {
            size_t a = n * (size_t)r / (size_t)g_size, b = n * (size_t)(r + 1) / (size_t)g_size;
            cnt[r] = (int)((b - a) * NCLASS);
            cnt[g_size + r] = (int)(a * NCLASS);
        }
        err = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, logits, cnt, cnt + g_size,
                             MPI_FLOAT, MPI_COMM_WORLD);
        free(cnt);
        if (err != MPI_SUCCESS) return -1;
    }
#endif
    for (i = 0; i < n; i++) correct += argmax10(logits + i * NCLASS) == (size_t)test->labels[i];
    return correct;
}

/* One training step through the threads (and ranks): the full gradient
   into *grad, the batch's mean loss and its correct predictions. */
static int dp_step(dp *d, const float *P, const train_idx_set *train, const uint32_t *perm,
                   size_t first, const float **grad, float *loss, uint64_t *correct)
{
    int t;
    unsigned long long c = 0;
    size_t B = d->plan.batch;
    d->P = P;
    d->set = train;
    d->perm = perm;
    d->first = first;
    for (t = 0; t < d->T; t++) d->correct[t] = 0;
#ifdef TRAIN_HAVE_MPI
    if (g_mpi) {
        int *cnt, r, err;
        unsigned long long all = 0;
        if (repdl_dp_step_mpi_f32(&d->plan, MPI_COMM_WORLD, unit_grad, d, d->grad) != REPDL_OK)
            return -1;
        for (t = 0; t < d->T; t++) c += d->correct[t];
        cnt = (int *)malloc(2 * (size_t)g_size * sizeof(int));
        if (!cnt) return -1;
        /* the rows of rank r: those of its micro-batches */
        for (r = 0; r < g_size; r++) {
            size_t a = 0, b = 0;
            repdl_dp_rank_units(&d->plan, r, NULL, NULL, &a, &b); /* r < nranks: REPDL_OK */
            cnt[r] = (int)(b - a);
            cnt[g_size + r] = (int)a;
        }
        err = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, d->rowloss, cnt, cnt + g_size,
                             MPI_FLOAT, MPI_COMM_WORLD);
        free(cnt);
        if (err != MPI_SUCCESS) return -1;
        if (MPI_Allreduce(&c, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD) !=
            MPI_SUCCESS)
            return -1;
        c = all;
    } else
#endif
    {
        if (repdl_dp_step_f32(&d->plan, unit_grad, d, d->grad) != REPDL_OK) return -1;
        for (t = 0; t < d->T; t++) c += d->correct[t];
    }
    *grad = d->grad;
    /* the loss of REPDL_REDUCTION_MEAN: the canonical sum of the row losses
       (repdl_sum_f32, the tree of repdl_cross_entropy_f32), one division by
       B (repdl__loss_finish, i.e. repdl_div_count_f32) */
    {
        float total = repdl_sum_f32(B, d->rowloss);
        repdl_div_count_f32(1, B, &total, loss);
    }
    *correct = (uint64_t)c;
    return 0;
}

#ifdef TRAIN_HAVE_MPI
/* ---- the ranks agree before training ----
   Each rank describes every option that decides the result or the
   sequence of collective calls (all of them but --threads: the bits and
   the collectives are the same for any thread count) and the SHA-256 of
   the data files' and the --resume file's contents (the paths may differ
   between machines, the bytes may not), as a fixed record; MPI_Allgather
   gives every rank every record, so every rank takes the same decision.
   A field is the SHA-256 of its full text (compared) and the text's first
   bytes (shown). */
enum {
    AG_SEED, AG_LR, AG_MOMENTUM, AG_EPOCHS, AG_STEPS, AG_STOP, AG_BATCH, AG_TEST_LIMIT,
    AG_QUIET, AG_DEVICE, AG_SAVE, AG_SAVE_EVERY, AG_RESUME, AG_TRAIN_IMAGES,
    AG_TRAIN_LABELS, AG_TEST_IMAGES, AG_TEST_LABELS, AG_GEMM, AG_N
};
static const char *const ag_names[AG_N] = {
    "--seed", "--lr", "--momentum", "--epochs", "--steps", "--stop-at", "--batch",
    "--test-limit", "--quiet", "--device", "--save", "--save-every",
    "--resume (the checkpoint's contents)",
    "--train-images (the file's contents; --data)", "--train-labels (the file's contents; --data)",
    "--test-images (the file's contents; --data)", "--test-labels (the file's contents; --data)",
    "--gemm"};
typedef struct ag_field {
    unsigned char digest[32];
    char text[40];
} ag_field;

static void ag_set(ag_field *f, const char *text)
{
    golden_sha256 h;
    golden_sha256_init(&h);
    golden_sha256_update(&h, text, strlen(text));
    golden_sha256_final(&h, f->digest);
    snprintf(f->text, sizeof f->text, "%s", text);
}

static void ag_u64(ag_field *f, int given, uint64_t v)
{
    char t[32];
    if (given) snprintf(t, sizeof t, "%" PRIu64, v);
    else snprintf(t, sizeof t, "none");
    ag_set(f, t);
}

static void ag_f32(ag_field *f, float v)
{
    char t[48];
    uint32_t u;
    memcpy(&u, &v, 4);
    snprintf(t, sizeof t, "%.9g (bits 0x%08" PRIx32 ")", (double)v, u);
    ag_set(f, t);
}

static void ag_digest(ag_field *f, const unsigned char d[32])
{
    char hex[65];
    golden_sha256_hex(d, hex);
    memcpy(f->digest, d, 32);
    snprintf(f->text, sizeof f->text, "sha256 %.16s...", hex);
}

/* the SHA-256 of a whole file's bytes, or the reason it cannot be read */
static void ag_file(ag_field *f, const char *path)
{
    unsigned char buf[65536], d[32];
    golden_sha256 h;
    size_t k;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        char t[96];
        snprintf(t, sizeof t, "unreadable (%s)", strerror(errno));
        ag_set(f, t);
        return;
    }
    golden_sha256_init(&h);
    while ((k = fread(buf, 1, sizeof buf, fp)) > 0) golden_sha256_update(&h, buf, k);
    if (ferror(fp)) {
        fclose(fp);
        ag_set(f, "unreadable (read error)");
        return;
    }
    fclose(fp);
    golden_sha256_final(&h, d);
    ag_digest(f, d);
}

/* 0 when every rank has the same record; otherwise -1 on every rank, rank
   0 having named each differing option and the ranks that differ from it
   on stderr.  A collective: every rank calls it once, before training. */
static int ranks_agree(const options *o, const train_idx_set *train,
                       const train_idx_set *test)
{
    ag_field mine[AG_N], *all;
    int f, r, bad = 0;
    memset(mine, 0, sizeof mine);
    ag_u64(&mine[AG_SEED], 1, o->seed);
    ag_f32(&mine[AG_LR], o->lr);
    ag_f32(&mine[AG_MOMENTUM], o->momentum);
    ag_u64(&mine[AG_EPOCHS], !o->have_steps, o->epochs); /* --steps overrides it */
    ag_u64(&mine[AG_STEPS], o->have_steps, o->steps);
    ag_u64(&mine[AG_STOP], o->have_stop, o->stop_at);
    ag_u64(&mine[AG_BATCH], 1, o->batch);
    ag_u64(&mine[AG_TEST_LIMIT], o->test_limit != 0, o->test_limit);
    ag_set(&mine[AG_QUIET], o->quiet ? "given" : "none");
    ag_set(&mine[AG_DEVICE], o->cuda ? "cuda" : "cpu");
    ag_set(&mine[AG_SAVE], o->save ? o->save : "none");
    ag_u64(&mine[AG_SAVE_EVERY], o->save_every != 0, o->save_every);
    if (o->resume) ag_file(&mine[AG_RESUME], o->resume);
    else ag_set(&mine[AG_RESUME], "none");
    ag_digest(&mine[AG_TRAIN_IMAGES], train->image_sha256);
    ag_digest(&mine[AG_TRAIN_LABELS], train->label_sha256);
    ag_digest(&mine[AG_TEST_IMAGES], test->image_sha256);
    ag_digest(&mine[AG_TEST_LABELS], test->label_sha256);
    ag_set(&mine[AG_GEMM], o->gemm_cr ? "cr" : "fma");
    all = (ag_field *)malloc((size_t)g_size * sizeof mine);
    if (!all) {
        fprintf(stderr, "train_fmnist: out of memory\n");
        return -2; /* this rank alone: MPI_Abort */
    }
    if (MPI_Allgather(mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE,
                      MPI_COMM_WORLD) != MPI_SUCCESS) {
        free(all);
        fprintf(stderr, "train_fmnist: MPI_Allgather failed\n");
        return -2;
    }
    for (f = 0; f < AG_N; f++) {
        int shown = 0;
        for (r = 1; r < g_size; r++) {
            const ag_field *a = &all[f], *b = &all[(size_t)r * AG_N + (size_t)f];
            if (memcmp(a->digest, b->digest, 32) == 0) continue;
            if (!bad && g_rank == 0)
                fprintf(stderr, "train_fmnist: the ranks of this MPI job were started with "
                        "different arguments or data (every rank needs the same; only "
                        "--threads may differ); nothing was computed:\n");
            bad = 1;
            if (g_rank != 0) break;
            if (!shown) fprintf(stderr, "  %s: rank 0 has %s", ag_names[f], a->text);
            if (shown < 8) fprintf(stderr, ", rank %d has %s", r, b->text);
            else if (shown == 8) fprintf(stderr, ", ...");
            shown++;
        }
        if (shown) fprintf(stderr, "\n");
    }
    free(all);
    return bad ? -1 : 0;
}
#endif

static int train_main(int argc, char **argv)
{
    options o;
    model m;
    train_idx_set train, test;
    train_backend be;
    dp d;
    char err[512], hex[65];
    char *paths[4] = {NULL, NULL, NULL, NULL};
    float *hP = NULL, *hM = NULL, *hx = NULL, *logits = NULL, *losses = NULL, *hz = NULL;
    float *dP = NULL, *dG = NULL, *dM = NULL;
    size_t *hy = NULL;
    uint32_t *perm = NULL;
    acts a;
    size_t ntest, spe, i;
    uint64_t step = 0, total_steps, stop, epoch_steps = 0, epoch_correct = 0, cur_epoch;
    uint64_t die_step = 0;
    long die_rank = -1;
    repdl_sgd_config sgd;
    int rc = 1, have_be = 0, have_acts = 0, use_dp, say;
    double t0;

    memset(&d, 0, sizeof d);
    {
        int r = parse_args(argc, argv, &o);
        if (r) return r > 0 ? 0 : EXIT_USAGE; /* r > 0: --help */
    }
    say = g_rank == 0; /* only rank 0 prints to stdout */
    if (golden_sha256_selftest() != 0) {
        fprintf(stderr, "train_fmnist: SHA-256 self-test failed\n");
        return 1;
    }
    {   /* the testing aid of --help (tests/train/mpi.sh, bad_input.sh):
           REPDL_TRAIN_DIE_AT=STEP[:RANK] makes that rank exit at once after
           global step STEP, as a crash would */
        const char *e = getenv("REPDL_TRAIN_DIE_AT");
        if (e && *e) {
            char *end;
            die_step = strtoull(e, &end, 10);
            die_rank = *end == ':' ? strtol(end + 1, NULL, 10) : 0;
        }
    }
    memset(&train, 0, sizeof train);
    memset(&test, 0, sizeof test);
    memset(&a, 0, sizeof a);
    model_init_layout(&m);
    pixel_table_init();

    /* ---- the backend first: --device cuda fails fast without a GPU ---- */
    if (o.cuda) {
        int r;
        if (g_mpi) {
            fprintf(stderr, "train_fmnist: --device cuda does not run under mpirun (one "
                            "process only)\n");
            return EXIT_USAGE;
        }
        r = train_cuda_backend_init(&be, err, sizeof err);
        if (r != 0) {
            fprintf(stderr, "train_fmnist: --device cuda: %s\n", err);
            return EXIT_NO_CUDA;
        }
    } else {
        train_host_backend_init(&be);
        if (o.gemm_cr) {
            be.lin_fwd = cr_lin_fwd;
            be.lin_bwd = cr_lin_bwd;
        }
    }
    have_be = 1;
    /* the host path with several threads or ranks, or --gemm cr (whose
       products are defined per micro-batch): micro-batches over workers;
       otherwise the whole batch in one call of each operation */
    use_dp = !o.cuda && (o.threads > 1 || g_mpi || o.gemm_cr);

    /* ---- --save: writable, no leftovers (before any work) ---- */
    if (o.save && g_rank == 0 && train_ckpt_prepare(o.save, stderr, err, sizeof err)) {
        fprintf(stderr, "train_fmnist: --save: %s\n", err);
        goto done;
    }

    /* ---- data ---- */
    {
        const char *names[4] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};
        const char *given[4] = {o.train_images, o.train_labels, o.test_images, o.test_labels};
        int k, ngiven = 0;
        for (k = 0; k < 4; k++) ngiven += given[k] != NULL;
        if (ngiven != 0 && ngiven != 4) {
            fprintf(stderr, "train_fmnist: give all four of --train-images, --train-labels, "
                            "--test-images, --test-labels (or --data DIR)\n");
            rc = EXIT_USAGE;
            goto done;
        }
        for (k = 0; k < 4; k++) {
            paths[k] = given[k] ? (char *)malloc(strlen(given[k]) + 1) : data_path(o.data, names[k]);
            if (!paths[k]) { fprintf(stderr, "train_fmnist: out of memory\n"); goto done; }
            if (given[k]) strcpy(paths[k], given[k]);
        }
        /* the files' digests only for ranks_agree (SHA-256 of 55 MB: 0.6 s
           under load) */
        if (train_idx_load(paths[0], paths[1], IMG, IMG, NCLASS, g_size > 1, &train, err,
                           sizeof err) ||
            train_idx_load(paths[2], paths[3], IMG, IMG, NCLASS, g_size > 1, &test, err,
                           sizeof err)) {
            fprintf(stderr, "train_fmnist: %s\n", err);
            rc = EXIT_DATA;
            goto done;
        }
    }
#ifdef TRAIN_HAVE_MPI
    if (g_size > 1) {
        int r = ranks_agree(&o, &train, &test);
        if (r != 0) {
            g_all_stop = r == -1;
            rc = r == -1 ? EXIT_USAGE : 1;
            goto done;
        }
    }
#endif
    if (o.batch > train.count) {
        fprintf(stderr, "train_fmnist: --batch %" PRIu64 " exceeds the %zu training images\n",
                o.batch, train.count);
        rc = EXIT_USAGE;
        goto done;
    }
    if (train.count > 0xffffffffu || test.count > (size_t)0x7fffffff / NCLASS) {
        fprintf(stderr, "train_fmnist: too many training or test images\n");
        rc = EXIT_DATA;
        goto done;
    }
    ntest = test.count;
    if (o.test_limit && o.test_limit < ntest) ntest = (size_t)o.test_limit;
    spe = train.count / (size_t)o.batch; /* steps per epoch; the rest is dropped */
    total_steps = o.have_steps ? o.steps : o.epochs * (uint64_t)spe;
    stop = total_steps;
    if (o.have_stop && o.stop_at < stop) stop = o.stop_at;

    sgd.lr = o.lr;
    sgd.momentum = o.momentum;
    sgd.dampening = 0.0f;
    sgd.weight_decay = 0.0f;
    sgd.nesterov = 0;

    /* ---- host buffers ---- */
    hP = (float *)malloc(m.total * sizeof(float));
    hM = (float *)calloc(m.total, sizeof(float));
    hx = (float *)malloc((size_t)o.batch * IMG * IMG * sizeof(float));
    hy = (size_t *)malloc((size_t)o.batch * sizeof(size_t));
    hz = (float *)malloc((size_t)o.batch * NCLASS * sizeof(float));
    logits = (float *)malloc(ntest * NCLASS * sizeof(float));
    losses = (float *)malloc((spe + 1) * sizeof(float));
    perm = (uint32_t *)malloc(train.count * sizeof(uint32_t));
    if (!hP || !hM || !hx || !hy || !hz || !logits || !losses || !perm) {
        fprintf(stderr, "train_fmnist: out of memory\n");
        goto done;
    }

    /* ---- weights: initial values from (seed), always recomputed ---- */
    model_init_weights(&m, o.seed, hP);
    golden_sha256_hex_f32(hP, m.total, hex);

    /* ---- the checkpoint (every check before anything is printed) ---- */
    if (o.resume) {
        train_ckpt want, c;
        memset(&want, 0, sizeof want);
        want.model_id = MODEL_ID;
        want.ntensors = NTENSOR;
        for (i = 0; i < NTENSOR; i++) want.counts[i] = tensor_count[i];
        if (train_ckpt_load(o.resume, &want, &c, err, sizeof err)) {
            fprintf(stderr, "train_fmnist: --resume: %s\n", err);
            rc = EXIT_CKPT;
            goto done;
        }
        if (c.seed != o.seed || c.batch != o.batch || c.ntrain != train.count ||
            memcmp(&c.lr, &o.lr, 4) != 0 || memcmp(&c.momentum, &o.momentum, 4) != 0) {
            fprintf(stderr, "train_fmnist: --resume: %s was written with seed %" PRIu64
                    ", batch %" PRIu64 ", %" PRIu64 " training images, lr %a, momentum %a;"
                    " this run has seed %" PRIu64 ", batch %" PRIu64 ", %zu, lr %a, momentum %a\n",
                    o.resume, c.seed, c.batch, c.ntrain, (double)c.lr, (double)c.momentum,
                    o.seed, o.batch, train.count, (double)o.lr, (double)o.momentum);
            train_ckpt_free(&c);
            rc = EXIT_CKPT;
            goto done;
        }
        if (c.epoch_steps != c.step % spe) {
            fprintf(stderr, "train_fmnist: --resume: %s: inconsistent epoch position\n",
                    o.resume);
            train_ckpt_free(&c);
            rc = EXIT_CKPT;
            goto done;
        }
        step = c.step;
        epoch_steps = c.epoch_steps;
        epoch_correct = c.epoch_correct;
        memcpy(losses, c.epoch_losses, (size_t)epoch_steps * sizeof(float));
        memcpy(hP, c.params, m.total * sizeof(float));
        memcpy(hM, c.mbuf, m.total * sizeof(float));
        train_ckpt_free(&c);
        if (step > total_steps) {
            fprintf(stderr, "train_fmnist: --resume: the checkpoint is at step %" PRIu64
                    ", past the %" PRIu64 " steps of this run\n", step, total_steps);
            rc = EXIT_USAGE;
            goto done;
        }
        if (o.have_stop && o.stop_at < step) {
            fprintf(stderr, "train_fmnist: --stop-at %" PRIu64 " is below the step of the "
                    "checkpoint %s (%" PRIu64 "): nothing to do\n", o.stop_at, o.resume, step);
            rc = EXIT_USAGE;
            goto done;
        }
    }

    if (!o.quiet && say) {
        printf("train_fmnist: LeNet-5, %zu training and %zu test images, batch %" PRIu64
               ", %zu steps an epoch, seed %" PRIu64 ", lr %g, momentum %g, %s, %d thread%s",
               train.count, ntest, o.batch, spe, o.seed, (double)o.lr, (double)o.momentum,
               be.name, o.threads, o.threads == 1 ? "" : "s");
        if (g_mpi) printf(" x %d MPI rank%s", g_size, g_size == 1 ? "" : "s");
        printf("\n");
    }
    if (say) printf("init_weights_sha256 %s\n", hex);
    if (o.resume && !o.quiet && say)
        printf("resumed from %s at step %" PRIu64 "\n", o.resume, step);
    fflush(stdout);

    /* ---- backend buffers ---- */
    dP = (float *)be.alloc(be.ctx, m.total * sizeof(float));
    dG = (float *)be.alloc(be.ctx, m.total * sizeof(float));
    dM = (float *)be.alloc(be.ctx, m.total * sizeof(float));
    if (!dP || !dG || !dM || acts_alloc(&be, (size_t)o.batch, &a)) {
        report_backend_error(&be, "allocation");
        goto done;
    }
    have_acts = 1;
    if (be.put(be.ctx, dP, hP, m.total * sizeof(float)) ||
        be.put(be.ctx, dM, hM, m.total * sizeof(float))) {
        report_backend_error(&be, "upload");
        goto done;
    }
    if (use_dp && dp_init(&d, &be, &m, (size_t)o.batch, o.threads, g_size, g_rank)) {
        fprintf(stderr, "train_fmnist: cannot set up the data-parallel step for %d threads "
                "(out of memory)\n", o.threads);
        goto done;
    }

    /* ---- training ---- */
    t0 = now_s();
    cur_epoch = (uint64_t)-1;
    while (step < stop) {
        uint64_t e = step / spe, k = step % spe;
        size_t B = (size_t)o.batch, b;
        float loss;
        if (e != cur_epoch) {
            repdl_rng_permutation(train.count, o.seed, PERM_OFFSET(e), perm);
            cur_epoch = e;
        }
        if (use_dp) {
            const float *grad;
            uint64_t c;
            if (dp_step(&d, dP, &train, perm, (size_t)k * B, &grad, &loss, &c) ||
                be.sgd(be.ctx, m.total, dP, grad, dM, &sgd, step + 1)) {
                fprintf(stderr, "train_fmnist: training step %" PRIu64 " failed\n", step + 1);
                goto done;
            }
            epoch_correct += c;
        } else {
            gather(&train, perm, (size_t)k * B, B, hx, hy);
            if (be.put(be.ctx, a.x, hx, B * IMG * IMG * sizeof(float)) ||
                be.put(be.ctx, a.y, hy, B * sizeof(size_t)) ||
                forward(&be, &m, dP, &a, B) || backward(&be, &m, dP, dG, &a, B) ||
                be.sgd(be.ctx, m.total, dP, dG, dM, &sgd, step + 1) ||
                be.get(be.ctx, &loss, a.loss, sizeof(float)) ||
                be.get(be.ctx, hz, a.z, B * NCLASS * sizeof(float))) {
                report_backend_error(&be, "training step");
                goto done;
            }
            for (b = 0; b < B; b++) epoch_correct += argmax10(hz + b * NCLASS) == hy[b];
        }
        losses[epoch_steps++] = loss;
        step++;
        if (step % spe == 0 || step == stop) {
            /* progress: mean loss of the epoch's steps (canonical sum, one
               division), training accuracy of those steps, test accuracy */
            float mean = repdl__fdiv(repdl_sum_f32((size_t)epoch_steps, losses),
                                     (float)epoch_steps);
            if (!o.quiet) {
                long long c = use_dp ? dp_evaluate(&d, dP, &test, ntest, logits)
                                     : evaluate(&be, &m, dP, &a, &test, ntest, logits, hx, hy);
                if (c < 0) { report_backend_error(&be, "evaluation"); goto done; }
                if (say)
                    printf("epoch %" PRIu64 " step %" PRIu64 " loss %.6f train_acc %.4f test_acc "
                           "%.4f time %.1f s\n", e + 1, step, (double)mean,
                           (double)epoch_correct / (double)(epoch_steps * o.batch),
                           (double)c / (double)ntest, now_s() - t0);
                fflush(stdout);
            }
            if (step % spe == 0) { epoch_steps = 0; epoch_correct = 0; }
        }
        if (o.save && o.save_every && step % o.save_every == 0 && step < stop) {
            if (be.get(be.ctx, hP, dP, m.total * sizeof(float)) ||
                be.get(be.ctx, hM, dM, m.total * sizeof(float))) {
                report_backend_error(&be, "download");
                goto done;
            }
            if (save_checkpoint(&o, &train, step, epoch_steps, epoch_correct, losses, hP,
                                hM))
                goto done;
            fflush(stdout);
        }
        if (die_step && step == die_step && die_rank == g_rank) {
            fprintf(stderr, "train_fmnist: rank %d dies after step %" PRIu64
                    " (REPDL_TRAIN_DIE_AT)\n", g_rank, step);
            fflush(stdout);
            fflush(stderr);
            _exit(86);
        }
    }

    if (be.get(be.ctx, hP, dP, m.total * sizeof(float)) ||
        be.get(be.ctx, hM, dM, m.total * sizeof(float))) {
        report_backend_error(&be, "download");
        goto done;
    }
    if (o.save &&
        save_checkpoint(&o, &train, step, epoch_steps, epoch_correct, losses, hP, hM))
        goto done;
    if (step < total_steps) {
        /* stopped early (--stop-at): the weights so far, no evaluation */
        golden_sha256_hex_f32(hP, m.total, hex);
        if (say) printf("stopped_at_step %" PRIu64 "\nweights_sha256 %s\n", step, hex);
        rc = 0;
        goto done;
    }
    {
        long long c = use_dp ? dp_evaluate(&d, dP, &test, ntest, logits)
                             : evaluate(&be, &m, dP, &a, &test, ntest, logits, hx, hy);
        if (c < 0) { report_backend_error(&be, "evaluation"); goto done; }
        if (say) {
            golden_sha256_hex_f32(hP, m.total, hex);
            printf("trained_weights_sha256 %s\n", hex);
            golden_sha256_hex_f32(logits, ntest * NCLASS, hex);
            printf("test_logits_sha256 %s\n", hex);
            printf("test_accuracy %lld/%zu\n", c, ntest);
            if (!o.quiet) printf("time %.2f s (%" PRIu64 " steps)\n", now_s() - t0, step);
        }
    }
    rc = 0;
done:
    fflush(stdout);
    if (use_dp) dp_free(&d);
    if (have_acts) acts_free(&be, &a);
    if (have_be) {
        if (dP) be.release(be.ctx, dP);
        if (dG) be.release(be.ctx, dG);
        if (dM) be.release(be.ctx, dM);
        be.destroy(be.ctx);
    }
    for (i = 0; i < 4; i++) free(paths[i]);
    train_idx_free(&train);
    train_idx_free(&test);
    free(hP); free(hM); free(hx); free(hy); free(hz); free(logits); free(losses); free(perm);
    (void)tensor_names;
    return rc;
}

int main(int argc, char **argv)
{
    int rc;
    /* before anything else (MPI, options, data): repdl's bits assume
       subnormals are kept; `one` is 1.0f known only at run time */
    if (!repdl_fpenv_ok(argc > 0 ? 1.0f : 0.0f)) {
        fprintf(stderr,
                "train_fmnist: the floating-point environment flushes subnormals to zero "
                "(FTZ/DAZ), which changes repdl's results, so nothing was computed.  The "
                "cause is almost always -ffast-math: this program was linked with -ffast-math, "
                "-Ofast or -funsafe-math-optimizations (gcc and clang then link crtfastmath.o, "
                "which turns on FTZ/DAZ at start-up), or a shared library built with one of "
                "them is loaded (LD_PRELOAD, a dependency, a plugin).  Link without those "
                "flags, or find the library with: LD_DEBUG=libs ./train_fmnist --help\n");
        return EXIT_FPENV;
    }
#ifdef TRAIN_HAVE_MPI
    /* MPI only when launched by mpirun (Open MPI: OMPI_COMM_WORLD_SIZE;
       PMI launchers: PMI_SIZE): a plain run is one process, as without MPI */
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE")) {
        if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
            fprintf(stderr, "train_fmnist: MPI_Init failed\n");
            return 1;
        }
        g_mpi = 1;
        MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    }
#endif
    rc = train_main(argc, argv);
#ifdef TRAIN_HAVE_MPI
    if (g_mpi) {
        /* every rank finishes together, or the job ends: a rank that fails
           alone would leave the others waiting in a collective */
        if (rc != 0 && !g_all_stop) {
            fflush(stdout);
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, rc);
        }
        MPI_Finalize();
    }
#endif
    return rc;
}
