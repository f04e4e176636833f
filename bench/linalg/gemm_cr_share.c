/* SPDX-License-Identifier: MIT */
/* bench/linalg/gemm_cr_share.c: how many outputs of repdl_gemm_cr_f32 need
   the exact path on real data (docs/functions/gemm_cr.md, "Exact-path share
   on real data").

     gemm_cr_share IMAGES [BATCH]

   IMAGES: an uncompressed IDX image file (Fashion-MNIST's
   train-images-idx3-ubyte, 28 x 28 bytes an image).  The images, scaled
   to [0, 1], go through a two-layer perceptron at initialisation
   (784 -> 120 -> 84, ReLU in between; weights and biases uniform in
   +-1/sqrt(fan_in), PyTorch's default law, from repdl_rng_uniform_f32),
   BATCH images a product (default 512), over the whole file.  Printed per
   layer: outputs, the share that took the exact path (counted through
   REPDL_GEMM_CR_ON_EXACT) and the share the fast path decided.  The
   widths are those of LeNet-5's fc layers (120, 84), the first fed the
   raw image instead of the convolutions' 400 features. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long share_exact;
#define REPDL_GEMM_CR_ON_EXACT() (share_exact++)
#include <repdl/gemm_cr.h>
#include <repdl/rng.h>

static void init_layer(uint64_t seed, size_t out, size_t in, float *w, float *b)
{
    /* uniform in [-1/sqrt(in), 1/sqrt(in)): u in [0, 1) mapped by 2u - 1
       times the bound (plain float arithmetic: a data generator, not a
       result) */
    float bound = 1.0f;
    size_t i;
    while (bound * bound * (float)in > 1.0f) bound *= 0.99f;
    for (i = 0; i < out * in; i++) w[i] = (2.0f * repdl_rng_uniform_f32(seed, 0, i) - 1.0f) * bound;
    for (i = 0; i < out; i++) b[i] = (2.0f * repdl_rng_uniform_f32(seed, 1, i) - 1.0f) * bound;
}

int main(int argc, char **argv)
{
    FILE *f;
    unsigned char hdr[16], *px;
    size_t n, B = 512, i0, i, L;
    static const size_t dims[3] = {784, 120, 84};
    float *w[2], *b[2], *x, *h[2];
    unsigned long outs[2] = {0, 0}, ex[2] = {0, 0};
    if (argc < 2) {
        fprintf(stderr, "usage: gemm_cr_share IMAGES [BATCH]\n");
        return 2;
    }
    if (argc > 2) B = (size_t)atol(argv[2]);
    if (B == 0) B = 1;
    f = fopen(argv[1], "rb");
    if (!f || fread(hdr, 1, 16, f) != 16 || hdr[2] != 8 || hdr[3] != 3) {
        fprintf(stderr, "gemm_cr_share: %s is not an IDX image file\n", argv[1]);
        return 1;
    }
    n = ((size_t)hdr[4] << 24) | ((size_t)hdr[5] << 16) | ((size_t)hdr[6] << 8) | hdr[7];
    if (((size_t)hdr[8] << 24 | (size_t)hdr[9] << 16 | (size_t)hdr[10] << 8 | hdr[11]) *
            ((size_t)hdr[12] << 24 | (size_t)hdr[13] << 16 | (size_t)hdr[14] << 8 | hdr[15]) !=
        784) {
        fprintf(stderr, "gemm_cr_share: images are not 28 x 28\n");
        return 1;
    }
    px = (unsigned char *)malloc(B * 784);
    x = (float *)malloc(B * 784 * sizeof(float));
    for (L = 0; L < 2; L++) {
        w[L] = (float *)malloc(dims[L + 1] * dims[L] * sizeof(float));
        b[L] = (float *)malloc(dims[L + 1] * sizeof(float));
        h[L] = (float *)malloc(B * dims[L + 1] * sizeof(float));
        init_layer(100 + L, dims[L + 1], dims[L], w[L], b[L]);
    }
    for (i0 = 0; i0 < n; i0 += B) {
        size_t m = n - i0 < B ? n - i0 : B;
        if (fread(px, 784, m, f) != m) {
            fprintf(stderr, "gemm_cr_share: short file\n");
            return 1;
        }
        for (i = 0; i < m * 784; i++) x[i] = (float)px[i] / 255.0f;
        for (L = 0; L < 2; L++) {
            unsigned long e0 = share_exact;
            const float *in = L ? h[0] : x;
            if (repdl_gemm_cr_f32(0, 1, m, dims[L + 1], dims[L], in, dims[L], w[L], dims[L], b[L],
                                  h[L], dims[L + 1]) != REPDL_OK)
                return 1;
            ex[L] += share_exact - e0;
            outs[L] += (unsigned long)(m * dims[L + 1]);
            for (i = 0; i < m * dims[L + 1]; i++) h[L][i] = h[L][i] > 0.0f ? h[L][i] : 0.0f;
        }
    }
    fclose(f);
    printf("gemm_cr_share: %zu images, batch %zu\n", n, B);
    for (L = 0; L < 2; L++)
        printf("layer %zu (%zu -> %zu): %lu outputs, exact path %lu (%.3e), fast path %.6f\n",
               L + 1, dims[L], dims[L + 1], outs[L], ex[L], (double)ex[L] / (double)outs[L],
               1.0 - (double)ex[L] / (double)outs[L]);
    return 0;
}
