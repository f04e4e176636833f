/* SPDX-License-Identifier: MIT */
/* tests/cuda/test_nn_act_pool.c: the CUDA activations and pooling
   (cuda/nn_act_pool.cu) against the host (include/repdl/activation.h,
   pool.h), bit for bit, NaN bits included.

   Expected values: the host functions compiled by the C compiler
   (tests/nn proves them against the independent reference).
   Checked:
     - every activation, forward and backward: a uniform sample of all
       2^32 inputs (every 251st bit pattern, with random dy of every
       class), then random arrays of sizes 0, 1, 3, 1000, 2^20 + 3, with
       unaligned pointers and in place (y == x, dx == dy);
     - max/avg pool2d forward (argmax too) and backward on random shapes
       (padding, stride > kernel, 1x1, windows in padding only, overlapping
       windows), data with NaNs, ties, +-0; batch invariance (one image
       alone == its slice of the batch, on the device);
     - argument errors: NULL, partial overlap.
   No GPU: prints "skipped: no GPU" and exits 77. */
#include <repdl/activation.h>
#include <repdl/pool.h>

#include "gpu_test.h"

static int failures;

static float rnd_float(void)
{
    uint64_t r = rng_next();
    uint32_t sign = (uint32_t)(r >> 63) << 31;
    switch ((r >> 56) & 7) {
    case 0: return u2f(sign | (uint32_t)(r & 0x7fffffu));
    case 1: return u2f(sign | 0x7f800000u | (uint32_t)((r >> 8) & 0x3fffff) * ((r >> 40) & 1));
    case 2: return u2f(sign | (uint32_t)((r >> 8) % 0x7f800000u));
    default: return u2f(sign | (uint32_t)(120 + (r >> 8) % 12) << 23 | (uint32_t)(r & 0x7fffffu));
    }
}

static void compare(const char *what, const float *got, const float *want, size_t n)
{
    size_t i, bad = 0;
    for (i = 0; i < n; i++)
        if (f2u(got[i]) != f2u(want[i])) {
            if (bad < 5)
                fprintf(stderr, "FAIL %s [%zu]: gpu 0x%08x host 0x%08x\n", what, i,
                        (unsigned)f2u(got[i]), (unsigned)f2u(want[i]));
            bad++;
        }
    if (bad) failures++;
}

typedef int (*gpu_fwd)(size_t, const float *, float *, void *);
typedef int (*gpu_bwd)(size_t, const float *, const float *, float *, void *);
typedef repdl_status (*host_fwd)(size_t, const float *, float *);
typedef repdl_status (*host_bwd)(size_t, const float *, const float *, float *);
struct act { const char *name; gpu_fwd gf; gpu_bwd gb; host_fwd hf; host_bwd hb; };

/* op_table.h's rows with cuda == ACT (relu and the activations). */
#define ACT(F) {#F, repdl_cuda_##F##_array_f32, repdl_cuda_##F##_backward_array_f32, repdl_##F##_array_f32, repdl_##F##_backward_array_f32},
static const struct act acts[] = {REPDL_CUDA_ACTIVATIONS(ACT)};
#undef ACT

static void act_run(const struct act *a, const float *x, const float *dy, size_t n, size_t off)
{
    float *hx = (float *)xmalloc(n * 4), *hy = (float *)xmalloc(n * 4), *gy = (float *)xmalloc(n * 4);
    float *dx = NULL, *ddy = NULL, *dout = NULL;
    char what[96];
    (void)hx;
    CU(cudaMalloc((void **)&dx, (n + off) * 4 + 4));
    CU(cudaMalloc((void **)&ddy, (n + off) * 4 + 4));
    CU(cudaMalloc((void **)&dout, (n + off) * 4 + 4));
    CU(cudaMemcpy(dx + off, x, n * 4, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(ddy + off, dy, n * 4, cudaMemcpyHostToDevice));
    /* forward */
    RD(a->gf(n, dx + off, dout + off, NULL));
    CU(cudaMemcpy(gy, dout + off, n * 4, cudaMemcpyDeviceToHost));
    a->hf(n, x, hy);
    snprintf(what, sizeof what, "%s n=%zu off=%zu", a->name, n, off);
    compare(what, gy, hy, n);
    /* backward */
    RD(a->gb(n, dx + off, ddy + off, dout + off, NULL));
    CU(cudaMemcpy(gy, dout + off, n * 4, cudaMemcpyDeviceToHost));
    a->hb(n, x, dy, hy);
    snprintf(what, sizeof what, "%s_backward n=%zu off=%zu", a->name, n, off);
    compare(what, gy, hy, n);
    /* in place: dx == dy, then y == x */
    RD(a->gb(n, dx + off, ddy + off, ddy + off, NULL));
    CU(cudaMemcpy(gy, ddy + off, n * 4, cudaMemcpyDeviceToHost));
    snprintf(what, sizeof what, "%s_backward in place n=%zu", a->name, n);
    compare(what, gy, hy, n);
    RD(a->gf(n, dx + off, dx + off, NULL));
    CU(cudaMemcpy(gy, dx + off, n * 4, cudaMemcpyDeviceToHost));
    a->hf(n, x, hy);
    snprintf(what, sizeof what, "%s in place n=%zu", a->name, n);
    compare(what, gy, hy, n);
    CU(cudaFree(dx)); CU(cudaFree(ddy)); CU(cudaFree(dout));
    free(hx); free(hy); free(gy);
}

/* --small: a short run for compute-sanitizer (tests/cuda/run_all.sh). */
static int small_run = 0;

static void act_tests(void)
{
    size_t k, i;
    const size_t step = small_run ? 65521 : 251, n = (size_t)((1ull << 32) / step) + 1;
    float *x = (float *)xmalloc(n * 4), *dy = (float *)xmalloc(n * 4);
    for (i = 0; i < n; i++) { x[i] = u2f((uint32_t)(i * step)); dy[i] = rnd_float(); }
    for (k = 0; k < sizeof acts / sizeof acts[0]; k++) act_run(&acts[k], x, dy, n, 0);
    {
        static const size_t sizes[] = {1, 3, 1000, (1u << 20) + 3};
        size_t s;
        for (s = 0; s < sizeof sizes / sizeof sizes[0] - (size_t)small_run; s++) {
            for (i = 0; i < sizes[s]; i++) { x[i] = rnd_float(); dy[i] = rnd_float(); }
            for (k = 0; k < sizeof acts / sizeof acts[0]; k++) act_run(&acts[k], x, dy, sizes[s], s % 3);
        }
    }
    for (k = 0; k < sizeof acts / sizeof acts[0]; k++) {
        float *d;
        CU(cudaMalloc((void **)&d, 64));
        if (acts[k].gf(0, NULL, NULL, NULL) != REPDL_OK) failures++;
        if (acts[k].gf(4, NULL, d, NULL) != REPDL_ERR_INVALID) failures++;
        if (acts[k].gf(4, d, d + 1, NULL) != REPDL_ERR_INVALID) failures++;   /* partial overlap */
        if (acts[k].gb(4, d, d + 8, d + 9, NULL) != REPDL_ERR_INVALID) failures++;
        CU(cudaFree(d));
    }
    free(x); free(dy);
    printf("activations: done (%d failures so far)\n", failures);
}

static float pool_value(int kind)
{
    uint64_t r = rng_next();
    switch (kind) {
    case 0: return (float)((int)(r % 7) - 3);
    case 1: return r % 50 == 0 ? u2f(0x7fc00000u | (uint32_t)(r >> 40) % 0x3fffff) : rnd_float();
    case 2: return (r % 2 ? -0.0f : 0.0f);
    default: return u2f((uint32_t)(r >> 63) << 31 | (uint32_t)(120 + (r >> 8) % 12) << 23 | (uint32_t)(r & 0x7fffffu));
    }
}

static void pool_case(repdl_pool2d_shape s, int kind)
{
    size_t oh = repdl_pool2d_out_h(&s), ow = repdl_pool2d_out_w(&s);
    size_t nx = s.n * s.c * s.h * s.w, ny = s.n * s.c * oh * ow, i;
    float *x = (float *)xmalloc(nx * 4 + 4), *dy = (float *)xmalloc(ny * 4 + 4);
    float *hy = (float *)xmalloc(ny * 4 + 4), *gy = (float *)xmalloc(ny * 4 + 4);
    float *hdx = (float *)xmalloc(nx * 4 + 4), *gdx = (float *)xmalloc(nx * 4 + 4);
    size_t *ha = (size_t *)xmalloc((ny + 1) * sizeof(size_t)), *ga = (size_t *)xmalloc((ny + 1) * sizeof(size_t));
    float *dX, *dY, *dDY, *dDX;
    size_t *dA;
    int incl;
    for (i = 0; i < nx; i++) x[i] = pool_value(kind);
    for (i = 0; i < ny; i++) dy[i] = pool_value(kind == 1 ? 3 : kind);
    CU(cudaMalloc((void **)&dX, nx * 4 + 4)); CU(cudaMalloc((void **)&dY, ny * 4 + 4));
    CU(cudaMalloc((void **)&dDY, ny * 4 + 4)); CU(cudaMalloc((void **)&dDX, nx * 4 + 4));
    CU(cudaMalloc((void **)&dA, (ny + 1) * sizeof(size_t)));
    CU(cudaMemcpy(dX, x, nx * 4, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(dDY, dy, ny * 4, cudaMemcpyHostToDevice));

    repdl_max_pool2d_forward_f32(&s, x, hy, ha);
    RD(repdl_cuda_max_pool2d_forward_f32(&s, dX, dY, dA, NULL));
    CU(cudaMemcpy(gy, dY, ny * 4, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(ga, dA, ny * sizeof(size_t), cudaMemcpyDeviceToHost));
    compare("max_pool2d_forward", gy, hy, ny);
    if (ny && memcmp(ga, ha, ny * sizeof(size_t))) { fprintf(stderr, "FAIL max_pool2d argmax\n"); failures++; }
    repdl_max_pool2d_backward_f32(&s, ha, dy, hdx);
    RD(repdl_cuda_max_pool2d_backward_f32(&s, dA, dDY, dDX, NULL));
    CU(cudaMemcpy(gdx, dDX, nx * 4, cudaMemcpyDeviceToHost));
    compare("max_pool2d_backward", gdx, hdx, nx);
    for (incl = 0; incl < 2; incl++) {
        repdl_avg_pool2d_forward_f32(&s, incl, x, hy);
        RD(repdl_cuda_avg_pool2d_forward_f32(&s, incl, dX, dY, NULL));
        CU(cudaMemcpy(gy, dY, ny * 4, cudaMemcpyDeviceToHost));
        compare("avg_pool2d_forward", gy, hy, ny);
        repdl_avg_pool2d_backward_f32(&s, incl, dy, hdx);
        RD(repdl_cuda_avg_pool2d_backward_f32(&s, incl, dDY, dDX, NULL));
        CU(cudaMemcpy(gdx, dDX, nx * 4, cudaMemcpyDeviceToHost));
        compare("avg_pool2d_backward", gdx, hdx, nx);
    }
    /* batch invariance on the device: image n-1 alone */
    if (s.n > 1 && ny) {
        repdl_pool2d_shape one = s;
        size_t px = s.c * s.h * s.w, py = s.c * oh * ow;
        one.n = 1;
        RD(repdl_cuda_avg_pool2d_forward_f32(&s, 1, dX, dY, NULL));
        CU(cudaMemcpy(hy, dY, ny * 4, cudaMemcpyDeviceToHost));
        RD(repdl_cuda_avg_pool2d_forward_f32(&one, 1, dX + (s.n - 1) * px, dY, NULL));
        CU(cudaMemcpy(gy, dY, py * 4, cudaMemcpyDeviceToHost));
        compare("avg_pool2d batch invariance", gy, hy + (s.n - 1) * py, py);
    }
    CU(cudaFree(dX)); CU(cudaFree(dY)); CU(cudaFree(dDY)); CU(cudaFree(dDX)); CU(cudaFree(dA));
    free(x); free(dy); free(hy); free(gy); free(hdx); free(gdx); free(ha); free(ga);
}

static void pool_tests(void)
{
    int t;
    static const repdl_pool2d_shape fixed[] = {
        {1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, {2, 3, 5, 7, 1, 1, 1, 1, 0, 0}, {1, 2, 9, 9, 2, 2, 3, 3, 0, 0},
        {1, 1, 4, 4, 2, 2, 1, 1, 1, 1}, {2, 2, 3, 3, 2, 2, 1, 1, 3, 3}, {1, 1, 3, 3, 5, 5, 1, 1, 0, 0},
        {64, 6, 28, 28, 2, 2, 2, 2, 0, 0}, {16, 16, 10, 10, 3, 3, 1, 1, 1, 1},
    };
    for (t = 0; t < (int)(sizeof fixed / sizeof fixed[0]); t++) pool_case(fixed[t], t % 4);
    for (t = 0; t < (small_run ? 20 : 300); t++) {
        repdl_pool2d_shape s;
        s.n = 1 + rng_below(3); s.c = 1 + rng_below(3); s.h = 1 + rng_below(12); s.w = 1 + rng_below(12);
        s.kh = 1 + rng_below(5); s.kw = 1 + rng_below(5); s.stride_h = 1 + rng_below(4);
        s.stride_w = 1 + rng_below(4); s.pad_h = rng_below(4); s.pad_w = rng_below(4);
        pool_case(s, (int)rng_below(4));
    }
    {
        repdl_pool2d_shape z = {0, 3, 4, 4, 2, 2, 2, 2, 0, 0};
        if (repdl_cuda_max_pool2d_forward_f32(&z, NULL, NULL, NULL, NULL) != REPDL_OK) failures++;
        if (repdl_cuda_avg_pool2d_backward_f32(&z, 0, NULL, NULL, NULL) != REPDL_OK) failures++;
        if (repdl_cuda_max_pool2d_forward_f32(NULL, NULL, NULL, NULL, NULL) != REPDL_ERR_INVALID) failures++;
        z.n = 1;
        if (repdl_cuda_avg_pool2d_forward_f32(&z, 0, NULL, NULL, NULL) != REPDL_ERR_INVALID) failures++;
    }
    printf("pooling: done (%d failures so far)\n", failures);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--small")) small_run = 1;
    else if (argc > 1) {
        fprintf(stderr, "usage: %s [--small]\n", argv[0]);
        return 2;
    }
    gpu_require("test_nn_act_pool");
    act_tests();
    pool_tests();
    printf("test_nn_act_pool: %d failures\n", failures);
    return failures ? 1 : 0;
}
