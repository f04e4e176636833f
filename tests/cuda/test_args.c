/* SPDX-License-Identifier: MIT */
/* tests/cuda/test_args.c: the launchers' argument checks and error codes.
   Written in C: it also proves that repdl/cuda.h is C-callable.

   The checks below return before any CUDA call, so this test runs, and
   asserts, without a GPU.  Then:
     - no usable GPU: a valid call must return REPDL_ERR_CUDA with a
       nonzero repdl_cuda_last_cuda_error();
     - a GPU: valid calls on real device memory must return REPDL_OK
       and n == 0 must write -0.0. */
#include <repdl/reduce.h>

#include "gpu_test.h"

static int failures = 0;

#define EXPECT(call, want)                                                          \
    do {                                                                            \
        int got_ = (call);                                                          \
        if (got_ != (want)) {                                                       \
            printf("FAIL %s:%d: %s returned %d (%s), expected %d\n", __FILE__,       \
                   __LINE__, #call, got_, repdl_status_string(got_), (want));  \
            failures++;                                                             \
        }                                                                           \
    } while (0)

typedef int (*launcher_t)(size_t, const float *, float *, void *);

int main(void)
{
    const int ARG = REPDL_ERR_INVALID;
    /* Fake device addresses: never dereferenced, since every call below
       that gets them fails its argument checks first. */
    float *p = (float *)(uintptr_t)0x10000000u;
    static const launcher_t maps[] = {
#define ENTRY(name) repdl_cuda_##name##_array_f32,
        REPDL_CUDA_MAP_FUNCTIONS(ENTRY)
#undef ENTRY
    };
    repdl_cuda_config cfg;

    /* Status strings: defined for every value. */
    for (int s = -1; s <= 4; s++)
        if (repdl_status_string(s) == NULL) {
            printf("FAIL status_string(%d) is NULL\n", s);
            failures++;
        }
    if (strcmp(repdl_status_string(REPDL_OK), "ok") != 0) failures++;
    if (repdl_cuda_last_cuda_error() != 0) {
        printf("FAIL last_cuda_error is %d before any call\n", repdl_cuda_last_cuda_error());
        failures++;
    }

    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        EXPECT(maps[i](10, NULL, p, NULL), ARG);
        EXPECT(maps[i](10, p, NULL, NULL), ARG);
        EXPECT(maps[i](10, p, p + 1, NULL), ARG);  /* partial overlap */
        EXPECT(maps[i](10, p + 9, p, NULL), ARG);  /* partial overlap */
        EXPECT(maps[i]((size_t)-1 / 2, p, p, NULL), REPDL_ERR_OVERFLOW); /* byte count overflows */
        EXPECT(maps[i](0, NULL, NULL, NULL), REPDL_OK); /* n = 0: nothing */
    }

    {
        /* the 16-bit maps (bf16 and f16): the same checks on uint16_t */
        typedef int (*launcher16_t)(size_t, const uint16_t *, uint16_t *, void *);
        static const launcher16_t maps16[] = {
#define ENTRY16(name) repdl_cuda_##name##_array_bf16, repdl_cuda_##name##_array_f16,
            REPDL_CUDA_MAP_FUNCTIONS_16(ENTRY16)
#undef ENTRY16
        };
        uint16_t *q = (uint16_t *)(uintptr_t)0x10000000u;
        for (size_t i = 0; i < sizeof maps16 / sizeof maps16[0]; i++) {
            EXPECT(maps16[i](10, NULL, q, NULL), ARG);
            EXPECT(maps16[i](10, q, NULL, NULL), ARG);
            EXPECT(maps16[i](10, q, q + 1, NULL), ARG);  /* partial overlap */
            EXPECT(maps16[i](10, q + 9, q, NULL), ARG);  /* partial overlap */
            EXPECT(maps16[i]((size_t)-1 / 2 + 1, q, q, NULL), REPDL_ERR_OVERFLOW); /* byte count overflows */
            EXPECT(maps16[i](0, NULL, NULL, NULL), REPDL_OK); /* n = 0: nothing */
        }
    }

    /* Reductions */
    EXPECT(repdl_cuda_sum_f32(5, NULL, p, NULL), ARG);
    EXPECT(repdl_cuda_sum_f32(5, p, NULL, NULL), ARG);
    EXPECT(repdl_cuda_sum_f32(0, NULL, NULL, NULL), ARG); /* out is always written */
    EXPECT(repdl_cuda_sum_f32(5, p, p + 4, NULL), ARG);   /* out inside x */
    EXPECT(repdl_cuda_dot_f32(5, p, NULL, p + 100, NULL), ARG);
    EXPECT(repdl_cuda_dot_f32(5, NULL, p, p + 100, NULL), ARG);
    EXPECT(repdl_cuda_dot_f32(5, p, p + 200, p + 203, NULL), ARG); /* out inside y */
    EXPECT(repdl_cuda_sum_rows_f32(4, 10, p, 10, p + 35, NULL), ARG); /* out inside x rows */
    EXPECT(repdl_cuda_sum_rows_f32(3, 10, p, (size_t)-1 / 4, p + 1000, NULL), REPDL_ERR_OVERFLOW); /* span overflows */
    EXPECT(repdl_cuda_dot_rows_f32(3, 10, p, 10, p, (size_t)-1 / 4, p + 1000, NULL), REPDL_ERR_OVERFLOW);
    /* the same sizes on the host: the same statuses (include/repdl/reduce.h) */
    EXPECT(repdl_sum_rows_f32(3, 10, p, (size_t)-1 / 4, p + 1000), REPDL_ERR_OVERFLOW);
    /* rows x cols overflows: REPDL_ERR_OVERFLOW before anything is launched */
    EXPECT(repdl_cuda_softmax_f32((size_t)1 << 40, (size_t)1 << 40, p, p, NULL), REPDL_ERR_OVERFLOW);
    EXPECT(repdl_cuda_layer_norm_forward_f32((size_t)1 << 40, (size_t)1 << 40, 0.0f, p, NULL, NULL, p, NULL,
                                             NULL, NULL), REPDL_ERR_OVERFLOW);
    {
        float loss_canary;
        size_t tg[2] = {0, 1};
        EXPECT(repdl_cuda_cross_entropy_f32(2, 2, 7, p, tg, &loss_canary, NULL, NULL), ARG); /* reduction */
    }
    EXPECT(repdl_cuda_sum_rows_f32(0, 5, NULL, 0, NULL, NULL), REPDL_OK); /* rows = 0 */

    /* Configurations */
    memset(&cfg, 0, sizeof cfg);
    cfg.threads = 48;
    EXPECT(repdl_cuda_sum_rows_config_f32(1, 10, &cfg, p, 10, p + 100, NULL), ARG);
    cfg.threads = 2048;
    EXPECT(repdl_cuda_sum_rows_config_f32(1, 10, &cfg, p, 10, p + 100, NULL), ARG);
    cfg.threads = 16;
    EXPECT(repdl_cuda_sum_rows_config_f32(1, 10, &cfg, p, 10, p + 100, NULL), ARG);
    cfg.threads = 0;
    cfg.leaves_per_warp = 3;
    EXPECT(repdl_cuda_dot_rows_config_f32(1, 10, &cfg, p, 10, p, 10, p + 100, NULL), ARG);
    cfg.leaves_per_warp = 0;
    cfg.row_per_warp = 2;
    EXPECT(repdl_cuda_sum_rows_config_f32(1, 10, &cfg, p, 10, p + 100, NULL), ARG);
    cfg.row_per_warp = 0;
    cfg.grid = 0x80000000u;
    EXPECT(repdl_cuda_sum_rows_config_f32(1, 10, &cfg, p, 10, p + 100, NULL), ARG);

    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        /* No GPU: valid arguments reach CUDA, which must fail visibly. */
        EXPECT(repdl_cuda_sum_f32(5, p, p + 100, NULL), REPDL_ERR_CUDA);
        if (repdl_cuda_last_cuda_error() == 0) {
            printf("FAIL no GPU, but last_cuda_error() == 0\n");
            failures++;
        }
        EXPECT(repdl_cuda_exp_array_f32(5, p, p + 100, NULL), REPDL_ERR_CUDA);
        EXPECT(repdl_cuda_check_device(), REPDL_ERR_CUDA);
        printf("test_args: no GPU (%s): argument checks and the CUDA error path "
               "tested, valid launches not\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    } else {
        float *d, h[3];
        CU(cudaMalloc((void **)&d, 64 * sizeof(float)));
        CU(cudaMemset(d, 0, 64 * sizeof(float)));
        EXPECT(repdl_cuda_check_device(), REPDL_OK);
        EXPECT(repdl_cuda_sum_f32(0, NULL, d, NULL), REPDL_OK);
        EXPECT(repdl_cuda_dot_f32(0, NULL, NULL, d + 1, NULL), REPDL_OK);
        EXPECT(repdl_cuda_sum_rows_f32(1, 0, NULL, 0, d + 2, NULL), REPDL_OK);
        CU(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        for (int i = 0; i < 3; i++)
            if (f2u(h[i]) != 0x80000000u) {
                printf("FAIL empty reduction %d gave 0x%08x, not -0.0\n", i, (unsigned)f2u(h[i]));
                failures++;
            }
        EXPECT(repdl_cuda_exp_array_f32(16, d + 8, d + 8, NULL), REPDL_OK);
        CU(cudaDeviceSynchronize());
        CU(cudaFree(d));
        printf("test_args: GPU present: argument checks and valid calls tested\n");
    }
    printf("%s: %d failures\n", failures ? "FAIL" : "ok", failures);
    return failures ? 1 : 0;
}
