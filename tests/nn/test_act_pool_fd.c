/* SPDX-License-Identifier: MIT */
/* tests/nn/test_act_pool_fd.c: sanity of the backward passes
   against central finite differences in double (a tolerance test, not a
   bit test: the bit tests are test_act_pool.c).

   Activations: for x on a grid of [-8, 8] (relu: avoiding 0), the backward
   value with dy = 1 against (f(x + h) - f(x - h)) / 2h of the binary32
   forward, h = 2^-6: |diff| <= 2e-3 (1 + |f'|).
   Pooling: L = sum dy * pool(x) on random data with distinct values; for
   each input i, dL/dx_i by central differences (h = 2^-8: the max's
   winner does not change, average pooling is linear) against dx_i. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <repdl/activation.h>
#include <repdl/pool.h>

static int failures;

#define ACT(F)                                                                              \
    do {                                                                                    \
        int k;                                                                              \
        for (k = -512; k <= 512; k++) {                                                     \
            float x = (float)k / 64.0f + 1.0f / 256.0f, h = 1.0f / 64.0f;                   \
            double fd = ((double)repdl_##F##_f32(x + h) - (double)repdl_##F##_f32(x - h)) / (2.0 * h); \
            double g = repdl_##F##_backward_f32(x, 1.0f);                                      \
            if (fabs(fd - g) > 2e-3 * (1.0 + fabs(g))) {                                    \
                if (failures++ < 20)                                                        \
                    printf("FAIL %s'(%g): backward %.9g, finite difference %.9g\n", #F,     \
                           (double)x, g, fd);                                               \
            }                                                                               \
        }                                                                                   \
    } while (0)

static uint64_t rs = 12345;
static double urand(void)
{
    rs = rs * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rs >> 11) * 0x1p-53;
}

static double loss(int maxp, const repdl_pool2d_shape *s, int incl, const float *x, const float *dy,
                   float *y, size_t ny)
{
    double L = 0.0;
    size_t i;
    if (maxp) repdl_max_pool2d_forward_f32(s, x, y, NULL);
    else repdl_avg_pool2d_forward_f32(s, incl, x, y);
    for (i = 0; i < ny; i++) L += (double)dy[i] * (double)y[i];
    return L;
}

static void pool_fd(int maxp, int incl, repdl_pool2d_shape s)
{
    size_t oh = repdl_pool2d_out_h(&s), ow = repdl_pool2d_out_w(&s);
    size_t nx = s.n * s.c * s.h * s.w, ny = s.n * s.c * oh * ow, i;
    float *x = (float *)malloc(nx * sizeof(float)), *dx = (float *)malloc(nx * sizeof(float));
    float *y = (float *)malloc(ny * sizeof(float)), *dy = (float *)malloc(ny * sizeof(float));
    size_t *a = (size_t *)malloc(ny * sizeof(size_t));
    for (i = 0; i < nx; i++) x[i] = (float)i / (float)nx * 4.0f - 2.0f;   /* distinct */
    for (i = nx; i > 1; i--) {                                           /* shuffled */
        size_t j = (size_t)(urand() * (double)i);
        float t = x[i - 1]; x[i - 1] = x[j]; x[j] = t;
    }
    for (i = 0; i < ny; i++) dy[i] = (float)(urand() * 2.0 - 1.0);
    if (maxp) {
        repdl_max_pool2d_forward_f32(&s, x, y, a);
        repdl_max_pool2d_backward_f32(&s, a, dy, dx);
    } else {
        repdl_avg_pool2d_backward_f32(&s, incl, dy, dx);
    }
    for (i = 0; i < nx; i++) {
        float h = 1.0f / 256.0f / (float)nx, keep = x[i];
        double lp, lm, fd;
        x[i] = keep + h; lp = loss(maxp, &s, incl, x, dy, y, ny);
        x[i] = keep - h; lm = loss(maxp, &s, incl, x, dy, y, ny);
        x[i] = keep;
        fd = (lp - lm) / (2.0 * h);
        if (fabs(fd - dx[i]) > 1e-2 * (1.0 + fabs(dx[i]))) {
            if (failures++ < 20)
                printf("FAIL %s pool dx[%zu]: backward %.9g, finite difference %.9g\n",
                       maxp ? "max" : "avg", i, (double)dx[i], fd);
        }
    }
    free(x); free(dx); free(y); free(dy); free(a);
}

int main(void)
{
    repdl_pool2d_shape s1 = {2, 2, 7, 6, 3, 2, 2, 1, 1, 1};
    repdl_pool2d_shape s2 = {1, 3, 8, 8, 2, 2, 2, 2, 0, 0};
    repdl_pool2d_shape s3 = {1, 1, 5, 5, 2, 2, 3, 3, 1, 0};
    ACT(sigmoid);
    ACT(silu);
    ACT(gelu);
    ACT(gelu_tanh);
    ACT(softplus);
    {
        int k;
        for (k = -8; k <= 8; k++) {
            float x = (float)k + 0.5f;
            if (repdl_relu_backward_f32(x, 1.0f) != (x > 0 ? 1.0f : 0.0f)) failures++;
        }
    }
    pool_fd(1, 0, s1); pool_fd(1, 0, s2); pool_fd(1, 0, s3);
    pool_fd(0, 0, s1); pool_fd(0, 1, s1); pool_fd(0, 0, s2); pool_fd(0, 1, s3);
    printf("finite differences: %d failures\n", failures);
    return failures ? 1 : 0;
}
