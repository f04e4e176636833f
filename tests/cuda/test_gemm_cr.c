/* SPDX-License-Identifier: MIT */
/* tests/cuda/test_gemm_cr.c: repdl_cuda_gemm_cr_f32 (cuda/gemm_cr.cu, int8
   tensor-core slices) against the host's repdl_gemm_cr_f32
   (include/repdl/gemm_cr.h), bit for bit: both are the correctly rounded
   product, so any difference is a bug (in the device's fragment layout,
   the MMA, the slices or the rule).

   Checked: random shapes around the 16 x 8 tile (M, N in 1 .. 70, K in
   0 .. 300), all four transposes, ld padding, with and without bias, on
   data of moderate range, full binary32 range (overflow, subnormal
   results), NaN / inf / +-0, small integers (ties and exact zeros) and
   constructed cancellation; one K above the int32 chunk (2^17 + 4000,
   the first three digits of every value 127); bad arguments (no GPU
   needed: the status, nothing written).
     test_gemm_cr [--seed S] [--small]
   No GPU: prints "skipped: no GPU" and exits 77. */
#include <repdl/gemm_cr.h>

#include "gpu_test.h"

static int failures = 0, checks = 0;

static float gen(int kind)
{
    uint64_t r = rng_next();
    uint32_t sign = (uint32_t)(r >> 63) << 31, m = (uint32_t)(r & 0x7fffff);
    switch (kind) {
    case 0: return u2f(sign | (uint32_t)(107 + (r >> 30) % 41) << 23 | m);
    case 1: {
        uint32_t u = (uint32_t)(r >> 8) & 0x7fffffffu;
        return u2f(sign | (u >= 0x7f800000u ? u - 0x7f800000u : u));
    }
    case 2:
        switch ((r >> 40) % 50) {
        case 0: return u2f(sign | 0x7f800000u);
        case 1: return u2f(0x7fc00001u | (uint32_t)(r & 0x3fffff) | sign);
        case 2: case 3: return u2f(sign);
        default: return u2f(sign | (uint32_t)(117 + (r >> 30) % 21) << 23 | m);
        }
    default: return (float)((int)((r >> 20) % 9) - 4);
    }
}

static void run_case(int tA, int tB, size_t M, size_t N, size_t K, int kind, int cancel,
                     int with_bias)
{
    size_t lda = (tA ? M : K) + rng_below(3), ldb = (tB ? K : N) + rng_below(3);
    size_t ldc = N + rng_below(3);
    size_t nA = (tA ? K : M) * lda + 1, nB = (tB ? N : K) * ldb + 1, nC = M * ldc + 1;
    float *A = (float *)xmalloc(nA * sizeof(float)), *B = (float *)xmalloc(nB * sizeof(float));
    float *bias = (float *)xmalloc((N + 1) * sizeof(float));
    float *C = (float *)xmalloc(nC * sizeof(float)), *R = (float *)xmalloc(nC * sizeof(float));
    for (size_t i = 0; i < nA; i++) A[i] = kind == 4 ? u2f(0x3f7fffffu) : gen(kind);
    for (size_t i = 0; i < nB; i++) B[i] = kind == 4 ? u2f(0x3f7ffffeu) : gen(kind);
    for (size_t j = 0; j <= N; j++) bias[j] = gen(kind == 4 ? 0 : kind);
    if (cancel && K >= 2)
        for (size_t k = 0; k < K / 2; k++) {
            for (size_t i = 0; i < M; i++)
                *(tA ? &A[(k + K / 2) * lda + i] : &A[i * lda + k + K / 2]) =
                    -*(tA ? &A[k * lda + i] : &A[i * lda + k]);
            for (size_t j = 0; j < N; j++)
                *(tB ? &B[j * ldb + k + K / 2] : &B[(k + K / 2) * ldb + j]) =
                    *(tB ? &B[j * ldb + k] : &B[k * ldb + j]);
        }
    for (size_t i = 0; i < nC; i++) C[i] = R[i] = u2f(0x7fbadbadu);
    float *dA = dev_copy(A, nA), *dB = dev_copy(B, nB), *dbias = dev_copy(bias, N + 1);
    float *dC = dev_copy(C, nC);
    int rh = repdl_gemm_cr_f32(tA, tB, M, N, K, A, lda, B, ldb, with_bias ? bias : NULL, R, ldc);
    RD(repdl_cuda_gemm_cr_f32(tA, tB, M, N, K, dA, lda, dB, ldb, with_bias ? dbias : NULL, dC,
                              ldc, NULL));
    CU(cudaDeviceSynchronize());
    CU(cudaMemcpy(C, dC, nC * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < nC; i++)
        if (f2u(C[i]) != f2u(R[i]) && bad++ < 3)
            printf("  %zux%zux%zu tA %d tB %d kind %d: C[%zu] 0x%08x host 0x%08x\n", M, N, K, tA,
                   tB, kind, i, f2u(C[i]), f2u(R[i]));
    checks++;
    if (bad || rh != REPDL_OK) {
        failures++;
        printf("FAIL %zux%zux%zu kind %d cancel %d: %zu differences\n", M, N, K, kind, cancel, bad);
    }
    CU(cudaFree(dA));
    CU(cudaFree(dB));
    CU(cudaFree(dbias));
    CU(cudaFree(dC));
    free(A);
    free(B);
    free(bias);
    free(C);
    free(R);
}

static void bad_args(void)
{
    float x[4] = {1, 2, 3, 4}, c[4] = {7, 7, 7, 7};
    struct {
        int rc, want;
        const char *what;
    } cases[] = {
        {repdl_cuda_gemm_cr_f32(0, 0, 2, 2, 2, NULL, 2, x, 2, NULL, c, 2, NULL),
         REPDL_ERR_INVALID, "A NULL"},
        {repdl_cuda_gemm_cr_f32(0, 0, 2, 2, 2, x, 1, x, 2, NULL, c, 2, NULL), REPDL_ERR_INVALID,
         "lda < K"},
        {repdl_cuda_gemm_cr_f32(0, 0, 2, 2, 2, x, 2, x, 2, NULL, NULL, 2, NULL),
         REPDL_ERR_INVALID, "C NULL"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        checks++;
        if (cases[i].rc != cases[i].want) {
            failures++;
            printf("FAIL %s: status %d, want %d\n", cases[i].what, cases[i].rc, cases[i].want);
        }
    }
    for (int i = 0; i < 4; i++) {
        checks++;
        if (f2u(c[i]) != f2u(7.0f)) {
            failures++;
            printf("FAIL bad arguments wrote C[%d]\n", i);
        }
    }
}

int main(int argc, char **argv)
{
    int small_run = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) rng_state = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--small") == 0) small_run = 1;
        else {
            fprintf(stderr, "usage: %s [--seed S] [--small]\n", argv[0]);
            return 2;
        }
    }
    bad_args();
    if (failures) { /* argument checks need no GPU: fail before the skip */
        printf("test_gemm_cr: %d checks, %d failures\n", checks, failures);
        return 1;
    }
    gpu_require("test_gemm_cr");
    int reps = small_run ? 2 : 12;
    for (int kind = 0; kind < 4; kind++)
        for (int r = 0; r < reps; r++)
            for (int cancel = 0; cancel < 2; cancel++)
                run_case((int)rng_below(2), (int)rng_below(2), 1 + rng_below(70),
                         1 + rng_below(70), rng_below(301), kind, cancel, (int)rng_below(2));
    run_case(0, 1, 16, 8, 32, 0, 0, 1);
    run_case(1, 0, 64, 64, 0, 0, 0, 1);
    if (!small_run) run_case(0, 0, 3, 2, ((size_t)1 << 17) + 4000, 4, 0, 0);
    printf("test_gemm_cr: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
