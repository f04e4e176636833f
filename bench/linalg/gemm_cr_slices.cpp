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
   tile's cost); and whether every output equals repdl_gemm_cr_f32 (bits). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
