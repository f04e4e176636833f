/* tests/cuda/test_args.c: the launchers' argument checks and error codes.
   Written in C: it also proves that repdl/cuda.h is C-callable.

   The checks below return before any CUDA call, so this test runs, and
   asserts, without a GPU.  Then:
     - no usable GPU: a valid call must return REPDL_CUDA_ERR_CUDA with a
       nonzero repdl_cuda_last_cuda_error();
     - a GPU: valid calls on real device memory must return REPDL_CUDA_OK
       and n == 0 must write -0.0. */
#include "gpu_test.h"

static int failures = 0;

#define EXPECT(call, want)                                                          \
    do {                                                                            \
        int got_ = (call);                                                          \
        if (got_ != (want)) {                                                       \
            printf("FAIL %s:%d: %s returned %d (%s), expected %d\n", __FILE__,       \
                   __LINE__, #call, got_, repdl_cuda_status_string(got_), (want));  \
            failures++;                                                             \
        }                                                                           \
    } while (0)

typedef int (*launcher_t)(const float *, float *, size_t, void *);

int main(void)
{
    const int ARG = REPDL_CUDA_ERR_ARGUMENT;
    /* Fake device addresses: never dereferenced, since every call below
       that gets them fails its argument checks first. */
    float *p = (float *)(uintptr_t)0x10000000u;
    static const launcher_t maps[] = {
#define ENTRY(name) repdl_cuda_##name,
        REPDL_CUDA_MAP_FUNCTIONS(ENTRY)
#undef ENTRY
    };
    repdl_cuda_config cfg;

    /* Status strings: defined for every value. */
    for (int s = -1; s <= 4; s++)
        if (repdl_cuda_status_string(s) == NULL) {
            printf("FAIL status_string(%d) is NULL\n", s);
            failures++;
        }
    if (strcmp(repdl_cuda_status_string(REPDL_CUDA_OK), "ok") != 0) failures++;
    if (repdl_cuda_last_cuda_error() != 0) {
        printf("FAIL last_cuda_error is %d before any call\n", repdl_cuda_last_cuda_error());
        failures++;
    }

    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        EXPECT(maps[i](NULL, p, 10, NULL), ARG);
        EXPECT(maps[i](p, NULL, 10, NULL), ARG);
        EXPECT(maps[i](p, p + 1, 10, NULL), ARG);  /* partial overlap */
        EXPECT(maps[i](p + 9, p, 10, NULL), ARG);  /* partial overlap */
        EXPECT(maps[i](p, p, (size_t)-1 / 2, NULL), ARG); /* byte count overflows */
        EXPECT(maps[i](NULL, NULL, 0, NULL), REPDL_CUDA_OK); /* n = 0: nothing */
    }

    /* Reductions */
    EXPECT(repdl_cuda_sum_f32(NULL, 5, p, NULL), ARG);
    EXPECT(repdl_cuda_sum_f32(p, 5, NULL, NULL), ARG);
    EXPECT(repdl_cuda_sum_f32(NULL, 0, NULL, NULL), ARG); /* out is always written */
    EXPECT(repdl_cuda_sum_f32(p, 5, p + 4, NULL), ARG);   /* out inside x */
    EXPECT(repdl_cuda_dot_f32(p, NULL, 5, p + 100, NULL), ARG);
    EXPECT(repdl_cuda_dot_f32(NULL, p, 5, p + 100, NULL), ARG);
    EXPECT(repdl_cuda_dot_f32(p, p + 200, 5, p + 203, NULL), ARG); /* out inside y */
    EXPECT(repdl_cuda_sum_rows_f32(p, 10, 4, 10, p + 35, NULL), ARG); /* out inside x rows */
    EXPECT(repdl_cuda_sum_rows_f32(p, (size_t)-1 / 4, 3, 10, p + 1000, NULL), ARG); /* span overflows */
    EXPECT(repdl_cuda_dot_rows_f32(p, 10, p, (size_t)-1 / 4, 3, 10, p + 1000, NULL), ARG);
    EXPECT(repdl_cuda_sum_rows_f32(NULL, 0, 0, 5, NULL, NULL), REPDL_CUDA_OK); /* rows = 0 */

    /* Configurations */
    memset(&cfg, 0, sizeof cfg);
    cfg.threads = 48;
    EXPECT(repdl_cuda_sum_rows_f32_config(p, 10, 1, 10, p + 100, NULL, &cfg), ARG);
    cfg.threads = 2048;
    EXPECT(repdl_cuda_sum_rows_f32_config(p, 10, 1, 10, p + 100, NULL, &cfg), ARG);
    cfg.threads = 16;
    EXPECT(repdl_cuda_sum_rows_f32_config(p, 10, 1, 10, p + 100, NULL, &cfg), ARG);
    cfg.threads = 0;
    cfg.leaves_per_warp = 3;
    EXPECT(repdl_cuda_dot_rows_f32_config(p, 10, p, 10, 1, 10, p + 100, NULL, &cfg), ARG);
    cfg.leaves_per_warp = 0;
    cfg.row_per_warp = 2;
    EXPECT(repdl_cuda_sum_rows_f32_config(p, 10, 1, 10, p + 100, NULL, &cfg), ARG);
    cfg.row_per_warp = 0;
    cfg.grid = 0x80000000u;
    EXPECT(repdl_cuda_sum_rows_f32_config(p, 10, 1, 10, p + 100, NULL, &cfg), ARG);

    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        /* No GPU: valid arguments reach CUDA, which must fail visibly. */
        EXPECT(repdl_cuda_sum_f32(p, 5, p + 100, NULL), REPDL_CUDA_ERR_CUDA);
        if (repdl_cuda_last_cuda_error() == 0) {
            printf("FAIL no GPU, but last_cuda_error() == 0\n");
            failures++;
        }
        EXPECT(repdl_cuda_expf(p, p + 100, 5, NULL), REPDL_CUDA_ERR_CUDA);
        EXPECT(repdl_cuda_check_device(), REPDL_CUDA_ERR_CUDA);
        printf("test_args: no GPU (%s): argument checks and the CUDA error path "
               "tested, valid launches not\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    } else {
        float *d, h[3];
        CU(cudaMalloc((void **)&d, 64 * sizeof(float)));
        CU(cudaMemset(d, 0, 64 * sizeof(float)));
        EXPECT(repdl_cuda_check_device(), REPDL_CUDA_OK);
        EXPECT(repdl_cuda_sum_f32(NULL, 0, d, NULL), REPDL_CUDA_OK);
        EXPECT(repdl_cuda_dot_f32(NULL, NULL, 0, d + 1, NULL), REPDL_CUDA_OK);
        EXPECT(repdl_cuda_sum_rows_f32(NULL, 0, 1, 0, d + 2, NULL), REPDL_CUDA_OK);
        CU(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        for (int i = 0; i < 3; i++)
            if (f2u(h[i]) != 0x80000000u) {
                printf("FAIL empty reduction %d gave 0x%08x, not -0.0\n", i, (unsigned)f2u(h[i]));
                failures++;
            }
        EXPECT(repdl_cuda_expf(d + 8, d + 8, 16, NULL), REPDL_CUDA_OK);
        CU(cudaDeviceSynchronize());
        CU(cudaFree(d));
        printf("test_args: GPU present: argument checks and valid calls tested\n");
    }
    printf("%s: %d failures\n", failures ? "FAIL" : "ok", failures);
    return failures ? 1 : 0;
}
