/* SPDX-License-Identifier: MIT */
/* bench/linalg/gemm_cr_slices.cpp: how many slices the CUDA product's tile
   (cuda/gemm_cr_tile.cuh) needs on real data, measured with its host
   emulation (docs/functions/gemm_cr.md, "The device version").

     g++ -O2 -std=c++17 -Iinclude bench/linalg/gemm_cr_slices.cpp -o gemm_cr_slices
     gemm_cr_slices IMAGES [COUNT]

   The data of bench/linalg/gemm_cr_share.c: the first COUNT (default 2048)
   images of an IDX file (Fashion-MNIST), scaled to [0, 1], through
   784 -> 120 -> 84 at initialisation (ReLU between; weights and biases
   uniform in +-1/sqrt(fan_in) from repdl_rng_uniform_f32), batches of 512.
   Per layer: outputs decided with S = 4 slices, with S = 8, by the exact
   path; the share of 16 x 8 warp tiles that needed the second pass (the
   tile's cost); and whether every output equals repdl_gemm_cr_f32 (bits).

   Built with -DSLICES_LENET or -DSLICES_GPT (and -pthread -lz) it is
   instead examples/train_fmnist.c or train_gpt.c under --gemm cr
   --threads 1, whose every linear product (train_linear_cr.h's hook) is
   also run through the emulated tile at the training steps chosen:

     gemm_cr_slices_lenet [--steps-measured A,B,...] [--units U] -- ARGS
     gemm_cr_slices_gpt   [--steps-measured A,B,...] [--units U] -- ARGS

   ARGS are the example's (--quiet, --gemm cr and --threads 1 are added).
   The products of the first U micro-batches (default 1; LeNet 16 images,
   GPT one sequence) of each chosen step (default 1) are measured: per
   product kind (forward, dx, dW, db) and layer shape, the outputs
   decided with S = REPDL__CRS_S0 slices, with S = 8, by the exact path,
   and the share of warp tiles that ran the second pass.  Which call
   belongs to which step is counted from the example's fixed sequence of
   products per micro-batch (checked: each micro-batch starts with a
   forward product of the first layer's width). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(SLICES_LENET) || defined(SLICES_GPT)
static void slices_hook(int ta, int tb, size_t M, size_t N, size_t K, const float *A, size_t lda,
                        const float *B, size_t ldb, const float *bias);
#define TRAIN_LINEAR_CR_HOOK(ta, tb, M, N, K, A, lda, B, ldb, bias)                            \
    slices_hook(ta, tb, M, N, K, A, lda, B, ldb, bias)
#define main slices_example_main
#ifdef SLICES_LENET
#include "../../examples/train_fmnist.c"
#else
#include "../../examples/train_gpt.c"
#endif
#undef main
#endif

static unsigned long n_stage[4];
#define REPDL__CRT_COUNT(stage) (n_stage[stage]++)
#include "../../cuda/gemm_cr_tile.cuh"
#include <repdl/rng.h>

using namespace repdl_cuda;

struct host_warp {
    enum { LANES = 32 };
    static int lane(int l) { return l; }
    static int any(int p) { return p; }
    static void mma(int32_t acc[32][4], uint32_t a[32][4], uint32_t b[32][2])
    {
        repdl__mma_s8_m16n8k32_warp(acc, a, b);
    }
};

static void init_layer(uint64_t seed, size_t out, size_t in, float *w, float *b)
{
    float bound = 1.0f;
    while (bound * bound * (float)in > 1.0f) bound *= 0.99f;
    for (size_t i = 0; i < out * in; i++)
        w[i] = (2.0f * repdl_rng_uniform_f32(seed, 0, i) - 1.0f) * bound;
    for (size_t i = 0; i < out; i++) b[i] = (2.0f * repdl_rng_uniform_f32(seed, 1, i) - 1.0f) * bound;
}

#if defined(SLICES_LENET) || defined(SLICES_GPT)
#include <map>
#include <string>
#include <vector>

struct slice_stats {
    unsigned long stage[4], tiles, second, zeros; /* zeros: outputs +-0 */
};
static std::vector<long> g_measure;       /* the steps measured */
static size_t g_units = 1;                /* micro-batches measured per step */
static size_t g_per_unit, g_units_per_step;
static size_t g_call;
static unsigned long g_diff;
static std::map<long, std::map<std::string, slice_stats> > g_stats;

static void slices_hook(int ta, int tb, size_t M, size_t N, size_t K, const float *A, size_t lda,
                        const float *B, size_t ldb, const float *bias)
{
    size_t per_step = g_per_unit * g_units_per_step, call = g_call++;
    long step = (long)(call / per_step) + 1;
    size_t unit = (call / g_per_unit) % g_units_per_step, pos = call % g_per_unit;
    bool chosen = false;
    for (size_t i = 0; i < g_measure.size(); i++) chosen = chosen || g_measure[i] == step;
    if (!chosen || unit >= g_units) return;
    if (pos == 0 && !(ta == 0 && tb == 1)) {
        fprintf(stderr, "gemm_cr_slices: call %zu (step %ld) is not the micro-batch's first "
                "forward product: the count of products per step is wrong\n", call, step);
        exit(1);
    }
    /* the layer (in -> out) and the kind of product */
    char label[96];
    const char *kind = !ta && tb ? "forward" : !ta ? "dx" : N == 1 ? "db" : "dW";
    size_t in = !ta && tb ? K : !ta ? N : N == 1 ? 0 : N, out = !ta && tb ? N : !ta ? K : M;
    if (N == 1 && ta) snprintf(label, sizeof label, "%-7s %4zu -> %4zu (M %zu N %zu K %zu)", kind,
                               (size_t)0, out, M, N, K);
    else snprintf(label, sizeof label, "%-7s %4zu -> %4zu (M %zu N %zu K %zu)", kind, in, out, M, N, K);
    if (N == 1 && ta) { /* db's layer input width is not in the product: "? -> out" */
        char *q = strstr(label, "   0 ->");
        if (q) memcpy(q, "   ? ->", 7);
    }
    std::vector<int> E(M + N);
    std::vector<float> C(M * N), R(M * N);
    for (size_t i = 0; i < M; i++) E[i] = ta ? repdl__crs_exp(A + i, K, lda) : repdl__crs_exp(A + i * lda, K, 1);
    for (size_t j = 0; j < N; j++) E[M + j] = tb ? repdl__crs_exp(B + j * ldb, K, 1) : repdl__crs_exp(B + j, K, ldb);
    crt_args p = {M, N, K, A, lda, B, ldb, bias, C.data(), N, ta, tb, E.data(), E.data() + M};
    slice_stats &st = g_stats[step][label];
    for (size_t t0 = 0; t0 < M; t0 += 16)
        for (size_t j0 = 0; j0 < N; j0 += 8) {
            unsigned long before[4];
            memcpy(before, n_stage, sizeof before);
            crt_tile<host_warp>(p, t0, j0);
            st.tiles++;
            st.second += n_stage[2] + n_stage[3] > before[2] + before[3];
            for (int s = 0; s < 4; s++) st.stage[s] += n_stage[s] - before[s];
        }
    if (repdl_gemm_cr_f32(ta, tb, M, N, K, A, lda, B, ldb, bias, R.data(), N) != REPDL_OK) exit(1);
    for (size_t i = 0; i < M * N; i++) {
        g_diff += memcmp(&C[i], &R[i], 4) != 0;
        st.zeros += R[i] == 0.0f;
    }
}

static void print_row(const char *label, const slice_stats &s)
{
    unsigned long outs = s.stage[0] + s.stage[1] + s.stage[2] + s.stage[3];
    printf("  %-44s %9lu outputs: S=%d %.6f, S=%d %.2e, exact %.2e, non-finite %lu; "
           "tiles %lu, second pass %.4f; results +-0 %.2e\n",
           label, outs, REPDL__CRS_S0, (double)s.stage[1] / (double)outs, REPDL__CRS_SMAX,
           (double)s.stage[2] / (double)outs, (double)s.stage[3] / (double)outs, s.stage[0],
           s.tiles, (double)s.second / (double)s.tiles, (double)s.zeros / (double)outs);
}

int main(int argc, char **argv)
{
    int i, sep = -1;
    for (i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--")) { sep = i; break; }
    if (sep < 0) {
        fprintf(stderr, "usage: %s [--steps-measured A,B,...] [--units U] -- EXAMPLE ARGS\n", argv[0]);
        return 2;
    }
    for (i = 1; i < sep; i++) {
        if (!strcmp(argv[i], "--steps-measured") && i + 1 < sep) {
            for (char *s = argv[++i]; *s;) {
                g_measure.push_back(strtol(s, &s, 10));
                if (*s == ',') s++;
            }
        } else if (!strcmp(argv[i], "--units") && i + 1 < sep) {
            g_units = (size_t)atol(argv[++i]);
        } else {
            fprintf(stderr, "gemm_cr_slices: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (g_measure.empty()) g_measure.push_back(1);
    /* the products of one micro-batch and the micro-batches of a step */
    size_t batch = 0, layers = 4;
    for (i = sep + 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--batch")) batch = (size_t)atol(argv[i + 1]);
        if (!strcmp(argv[i], "--layers")) layers = (size_t)atol(argv[i + 1]);
    }
#ifdef SLICES_LENET
    if (!batch) batch = 64;
    g_per_unit = 3 + 3 * 3;                   /* fc1..fc3 forward; dx, dW, db each */
    g_units_per_step = (batch + MB - 1) / MB; /* micro-batches of 16 */
#else
    (void)layers;
    if (!batch) batch = 16;
    g_per_unit = 4 * layers + 1 + 4 * 3 * layers + 2; /* 4 per block + head; their backward */
    g_units_per_step = batch;                         /* one sequence each */
#endif
    std::vector<char *> args;
    args.push_back(argv[0]);
    for (i = sep + 1; i < argc; i++) args.push_back(argv[i]);
    static char q[] = "--quiet", g[] = "--gemm", cr[] = "cr", t[] = "--threads", one[] = "1";
    args.push_back(q);
    args.push_back(g);
    args.push_back(cr);
    args.push_back(t);
    args.push_back(one);
    args.push_back(NULL);
    int rc = slices_example_main((int)args.size() - 1, args.data());
    printf("gemm_cr_slices: %s, %zu products per micro-batch, %zu micro-batches a step, the "
           "first %zu measured; bit differences from repdl_gemm_cr_f32: %lu\n",
#ifdef SLICES_LENET
           "LeNet-5 (examples/train_fmnist.c --gemm cr)",
#else
           "GPT (examples/train_gpt.c --gemm cr)",
#endif
           g_per_unit, g_units_per_step, g_units, g_diff);
    slice_stats all;
    memset(&all, 0, sizeof all);
    for (std::map<long, std::map<std::string, slice_stats> >::iterator s = g_stats.begin();
         s != g_stats.end(); ++s) {
        slice_stats tot;
        memset(&tot, 0, sizeof tot);
        printf("step %ld\n", s->first);
        for (std::map<std::string, slice_stats>::iterator r = s->second.begin(); r != s->second.end(); ++r) {
            print_row(r->first.c_str(), r->second);
            for (int k = 0; k < 4; k++) tot.stage[k] += r->second.stage[k];
            tot.tiles += r->second.tiles;
            tot.second += r->second.second;
            tot.zeros += r->second.zeros;
        }
        print_row("all products of the step", tot);
        for (int k = 0; k < 4; k++) all.stage[k] += tot.stage[k];
        all.tiles += tot.tiles;
        all.second += tot.second;
        all.zeros += tot.zeros;
    }
    print_row("all steps measured", all);
    return rc != 0 || g_diff != 0 || g_stats.size() != g_measure.size();
}
#else
int main(int argc, char **argv)
{
    unsigned char hdr[16];
    size_t count = 2048, B = 512;
    static const size_t dims[3] = {784, 120, 84};
    if (argc < 2) {
        fprintf(stderr, "usage: gemm_cr_slices IMAGES [COUNT]\n");
        return 2;
    }
    if (argc > 2) count = (size_t)atol(argv[2]);
    FILE *f = fopen(argv[1], "rb");
    if (!f || fread(hdr, 1, 16, f) != 16 || hdr[2] != 8 || hdr[3] != 3) {
        fprintf(stderr, "gemm_cr_slices: %s is not an IDX image file\n", argv[1]);
        return 1;
    }
    size_t n = ((size_t)hdr[4] << 24) | ((size_t)hdr[5] << 16) | ((size_t)hdr[6] << 8) | hdr[7];
    if (count < n) n = count;
    unsigned char *px = (unsigned char *)malloc(B * 784);
    float *x = (float *)malloc(B * 784 * sizeof(float)), *w[2], *b[2], *h[2], *r[2];
    int *E = (int *)malloc((B + 784 + 120) * sizeof(int));
    for (int L = 0; L < 2; L++) {
        w[L] = (float *)malloc(dims[L + 1] * dims[L] * sizeof(float));
        b[L] = (float *)malloc(dims[L + 1] * sizeof(float));
        h[L] = (float *)malloc(B * dims[L + 1] * sizeof(float));
        r[L] = (float *)malloc(B * dims[L + 1] * sizeof(float));
        init_layer(100 + (uint64_t)L, dims[L + 1], dims[L], w[L], b[L]);
    }
    unsigned long stage[2][4] = {{0}}, tiles[2] = {0, 0}, second[2] = {0, 0}, diff = 0;
    for (size_t i0 = 0; i0 < n; i0 += B) {
        size_t m = n - i0 < B ? n - i0 : B;
        if (fread(px, 784, m, f) != m) {
            fprintf(stderr, "gemm_cr_slices: short file\n");
            return 1;
        }
        for (size_t i = 0; i < m * 784; i++) x[i] = (float)px[i] / 255.0f;
        for (int L = 0; L < 2; L++) {
            const float *in = L ? h[0] : x;
            size_t K = dims[L], N = dims[L + 1];
            for (size_t i = 0; i < m; i++) E[i] = repdl__crs_exp(in + i * K, K, 1);
            for (size_t j = 0; j < N; j++) E[m + j] = repdl__crs_exp(w[L] + j * K, K, 1);
            crt_args p = {m, N, K, in, K, w[L], K, b[L], h[L], N, 0, 1, E, E + m};
            for (size_t t0 = 0; t0 < m; t0 += 16)
                for (size_t j0 = 0; j0 < N; j0 += 8) {
                    unsigned long before[4];
                    memcpy(before, n_stage, sizeof before);
                    crt_tile<host_warp>(p, t0, j0);
                    tiles[L]++;
                    /* the S = 8 pass ran when an output of the tile reached it */
                    second[L] += n_stage[2] + n_stage[3] > before[2] + before[3];
                    for (int s = 0; s < 4; s++) stage[L][s] += n_stage[s] - before[s];
                }
            if (repdl_gemm_cr_f32(0, 1, m, N, K, in, K, w[L], K, b[L], r[L], N) != REPDL_OK)
                return 1;
            for (size_t i = 0; i < m * N; i++) {
                uint32_t u, v;
                memcpy(&u, &h[L][i], 4);
                memcpy(&v, &r[L][i], 4);
                diff += u != v;
                h[L][i] = h[L][i] > 0.0f ? h[L][i] : 0.0f;
            }
        }
    }
    fclose(f);
    printf("gemm_cr_slices: %zu images, batch %zu, bit differences from repdl_gemm_cr_f32: %lu\n",
           n, B, diff);
    for (int L = 0; L < 2; L++) {
        unsigned long outs = stage[L][0] + stage[L][1] + stage[L][2] + stage[L][3];
        printf("layer %d (%zu -> %zu): %lu outputs: S=%d %lu (%.6f), S=%d %lu (%.3e), exact %lu "
               "(%.3e), non-finite %lu; %lu warp tiles, %lu (%.3f) ran the S=%d pass\n",
               L + 1, dims[L], dims[L + 1], outs, REPDL__CRS_S0, stage[L][1],
               (double)stage[L][1] / (double)outs, REPDL__CRS_SMAX, stage[L][2],
               (double)stage[L][2] / (double)outs, stage[L][3], (double)stage[L][3] / (double)outs,
               stage[L][0], tiles[L], second[L], (double)second[L] / (double)tiles[L],
               REPDL__CRS_SMAX);
    }
    return diff != 0;
}
#endif
