/* SPDX-License-Identifier: MIT */
/* tests/cuda/test_rng_optim.c: the CUDA random fills, elementwise ops,
   dropout and optimizer steps against the host library, bit for bit.

   Expected values: the host functions of include/repdl/rng.h,
   elementwise.h, optim.h compiled by the C compiler (tests/rng_optim
   proves them against independent references).  Sizes 1 .. 2^20 + 3
   (partial Philox blocks, several grid strides), offsets and seeds with
   high bits set, data with ±0, subnormals, ±inf, NaN payloads; in-place
   calls; several optimizer steps; n == 0 with NULL; bad arguments.
   No GPU: prints "skipped: no GPU" and exits 77. */
#include <repdl/elementwise.h>
#include <repdl/optim.h>
#include <repdl/rng.h>

#include "gpu_test.h"

static int failures = 0;

static float gen(void)
{
    uint64_t r = rng_next();
    uint32_t sign = (uint32_t)(r >> 63) << 31;
    switch ((r >> 40) % 8) {
    case 0: return u2f(sign | (uint32_t)((r >> 8) % 0x7f800000u));     /* any finite */
    case 1: return u2f(sign | (uint32_t)((r >> 8) % 0x00800000u));     /* subnormal */
    case 2: { static const uint32_t sp[] = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc01234u, 0xffc00000u};
              return u2f(sp[(r >> 8) % 6]); }
    default: return u2f(sign | (uint32_t)(117 + (r >> 8) % 20) << 23 | (uint32_t)(r & 0x7fffff));
    }
}

static void compare(const char *what, size_t n, const void *dev, const void *host, size_t elem)
{
    void *h = xmalloc(n * elem);
    CU(cudaMemcpy(h, dev, n * elem, cudaMemcpyDeviceToHost));
    if (memcmp(h, host, n * elem) != 0) {
        size_t i;
        for (i = 0; i < n * elem && ((char *)h)[i] == ((const char *)host)[i]; i++) ;
        printf("FAIL %s n=%zu: first difference at byte %zu\n", what, n, i);
        failures++;
    }
    free(h);
}

static float *dalloc(size_t n)
{
    void *p;
    CU(cudaMalloc(&p, (n ? n : 1) * sizeof(float)));
    return (float *)p;
}

static void up(float *d, const float *h, size_t n) { CU(cudaMemcpy(d, h, n * 4, cudaMemcpyHostToDevice)); }

static void run_size(size_t n)
{
    float *ha = (float *)xmalloc(n * 4), *hb = (float *)xmalloc(n * 4), *hy = (float *)xmalloc(n * 4);
    float *hm = (float *)xmalloc(n * 4), *hv = (float *)xmalloc(n * 4);
    uint8_t *hmask = (uint8_t *)xmalloc(n);
    float *da = dalloc(n), *db = dalloc(n), *dy = dalloc(n), *dm = dalloc(n), *dv = dalloc(n);
    uint8_t *dmask;
    uint64_t seed = rng_next(), offset = rng_next() | 0xffffffff00000000ull;
    size_t i;
    float alpha = gen();
    CU(cudaMalloc((void **)&dmask, n ? n : 1));
    for (i = 0; i < n; i++) { ha[i] = gen(); hb[i] = gen(); }
    up(da, ha, n);
    up(db, hb, n);

    /* fills */
    RD(repdl_cuda_rng_uniform_fill_f32(n, seed, offset, -0.5f, 2.0f, dy, NULL));
    repdl_rng_uniform_fill_f32(n, seed, offset, -0.5f, 2.0f, hy);
    compare("uniform fill", n, dy, hy, 4);
    RD(repdl_cuda_rng_normal_fill_f32(n, seed, offset, 0.25f, 3.0f, dy, NULL));
    repdl_rng_normal_fill_f32(n, seed, offset, 0.25f, 3.0f, hy);
    compare("normal fill", n, dy, hy, 4);

    /* elementwise, out of place and in place */
    RD(repdl_cuda_add_f32(n, da, db, dy, NULL));
    repdl_add_f32(n, ha, hb, hy);
    compare("add", n, dy, hy, 4);
    RD(repdl_cuda_mul_f32(n, da, db, dy, NULL));
    repdl_mul_f32(n, ha, hb, hy);
    compare("mul", n, dy, hy, 4);
    RD(repdl_cuda_scale_f32(n, alpha, da, dy, NULL));
    repdl_scale_f32(n, alpha, ha, hy);
    compare("scale", n, dy, hy, 4);
    CU(cudaMemcpy(dy, da, n * 4, cudaMemcpyDeviceToDevice));
    RD(repdl_cuda_add_f32(n, dy, db, dy, NULL));
    repdl_add_f32(n, ha, hb, hy);
    compare("add in place", n, dy, hy, 4);

    /* dropout */
    {
        static const float ps[] = {0.0f, 0.1f, 0.5f, 1.0f};
        int c;
        for (c = 0; c < 4; c++) {
            RD(repdl_cuda_dropout_forward_f32(n, ps[c], seed, offset, da, dy, dmask, NULL));
            repdl_dropout_forward_f32(n, ps[c], seed, offset, ha, hy, hmask);
            compare("dropout forward", n, dy, hy, 4);
            compare("dropout mask", n, dmask, hmask, 1);
            RD(repdl_cuda_dropout_forward_f32(n, ps[c], seed, offset, da, dy, NULL, NULL));
            compare("dropout forward, no mask", n, dy, hy, 4);
            RD(repdl_cuda_dropout_backward_f32(n, ps[c], dmask, db, dy, NULL));
            repdl_dropout_backward_f32(n, ps[c], hmask, hb, hy);
            compare("dropout backward", n, dy, hy, 4);
        }
    }

    /* optimizers: a few steps; weights moderate, gradients mixed */
    {
        repdl_sgd_config sc = {0.01f, 0.9f, 0.1f, 1e-4f, 1};
        repdl_adam_config ac = {1e-3f, 0.9f, 0.999f, 1e-8f, 1e-2f, 0};
        repdl_adam_state s;
        uint64_t step;
        for (i = 0; i < n; i++) { hy[i] = ha[i]; hm[i] = 0.0f; hv[i] = 0.0f; }
        up(dy, hy, n); up(dm, hm, n); up(dv, hv, n);
        for (step = 1; step <= 3; step++) {
            RD(repdl_cuda_sgd_step_f32(n, &sc, step, db, dy, dm, NULL));
            repdl_sgd_step_f32(n, &sc, step, hb, hy, hm);
        }
        compare("sgd w", n, dy, hy, 4);
        compare("sgd momentum", n, dm, hm, 4);
        for (i = 0; i < n; i++) { hy[i] = ha[i]; hm[i] = 0.0f; hv[i] = 0.0f; }
        up(dy, hy, n); up(dm, hm, n); up(dv, hv, n);
        for (ac.decoupled = 0; ac.decoupled <= 1; ac.decoupled++) {
            repdl_adam_state_init(&s);
            for (step = 1; step <= 3; step++) {
                repdl_adam_begin_step(&s, &ac);
                RD(repdl_cuda_adam_step_f32(n, &ac, &s, db, dy, dm, dv, NULL));
                repdl_adam_step_f32(n, &ac, &s, hb, hy, hm, hv);
            }
            compare("adam w", n, dy, hy, 4);
            compare("adam m", n, dm, hm, 4);
            compare("adam v", n, dv, hv, 4);
        }
    }
    CU(cudaDeviceSynchronize());
    cudaFree(da); cudaFree(db); cudaFree(dy); cudaFree(dm); cudaFree(dv); cudaFree(dmask);
    free(ha); free(hb); free(hy); free(hm); free(hv); free(hmask);
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {1, 2, 3, 4, 5, 7, 255, 1023, 4097, 65536 + 3, (1u << 20) + 3};
    size_t k, nsizes = sizeof sizes / sizeof sizes[0];
    /* --small: a short run for compute-sanitizer (tests/cuda/run_all.sh) */
    if (argc > 1 && !strcmp(argv[1], "--small")) nsizes -= 2;
    else if (argc > 1) {
        fprintf(stderr, "usage: %s [--small]\n", argv[0]);
        return 2;
    }
    gpu_require("test_rng_optim");
    /* n == 0 with NULL; bad arguments */
    RD(repdl_cuda_add_f32(0, NULL, NULL, NULL, NULL));
    RD(repdl_cuda_rng_normal_fill_f32(0, 1, 2, 0.0f, 1.0f, NULL, NULL));
    if (repdl_cuda_add_f32(4, NULL, NULL, NULL, NULL) != REPDL_ERR_INVALID) {
        printf("FAIL add with NULL pointers accepted\n");
        failures++;
    }
    for (k = 0; k < nsizes; k++) run_size(sizes[k]);
    printf("test_rng_optim: %d failures\n", failures);
    return failures != 0;
}
