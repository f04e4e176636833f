/* SPDX-License-Identifier: MIT */
/* bench/cuda/bench_linalg.cu: repdl's reproducible FFMA gemm against cuBLAS
   SGEMM in strict FP32 (CUBLAS_PEDANTIC_MATH: no TF32, no tensor cores,
   no reduced-precision reductions), on the same device, in the same run.

     bench_cuda_linalg [reps]

   Shapes: 4096^3 (C = A B), and the linear layer y = x W^T of deep
   learning: M (batch) in 1, 8, 32, 128, 512, K and N in 784, 1024, 4096.
   Printed: median ms, GFLOP/s (2 M N K / t) of each, and repdl / cuBLAS
   throughput.  Before timing, each cuBLAS result is compared with repdl's
   (exact FP32 FMA chains): max |difference| / max |result| above 1e-5
   would mean reduced precision (TF32 gives about 1e-4): flagged.
   No GPU: says so and exits 77. */
#include <cmath>

#include <cublas_v2.h>

#include "bench_common.cuh"

#define CB(call)                                                                    \
    do {                                                                            \
        cublasStatus_t s_ = (call);                                                 \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                          \
            std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, \
                         #call, (int)s_);                                           \
            std::exit(1);                                                           \
        }                                                                           \
    } while (0)

/* max |a - b| / max |b| over n elements (host copies).  Exact-FP32
   chains of K <= 4096 products of uniform [-1, 1) values differ from
   another FP32 order by about 1e-6 of the largest result; TF32 inputs
   (10-bit mantissas) by about 1e-4.  Above 1e-5 is flagged. */
static double max_rel(const float *da, const float *db, size_t n)
{
    std::vector<float> a(n), b(n);
    CU(cudaMemcpy(a.data(), da, n * 4, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(b.data(), db, n * 4, cudaMemcpyDeviceToHost));
    double m = 0, big = 0;
    for (size_t i = 0; i < n; i++) {
        double d = std::fabs((double)a[i] - (double)b[i]);
        if (d > m) m = d;
        if (std::fabs((double)b[i]) > big) big = std::fabs((double)b[i]);
    }
    return big > 0 ? m / big : m;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? std::atoi(argv[1]) : 11;
    bench_require_gpu("bench_cuda_linalg");
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
    cublasMath_t mode;
    CB(cublasGetMathMode(h, &mode));
    std::printf("cuBLAS math mode %d (CUBLAS_PEDANTIC_MATH = %d): strict FP32, no TF32\n",
                (int)mode, (int)CUBLAS_PEDANTIC_MATH);
    if (mode != CUBLAS_PEDANTIC_MATH) {
        std::printf("cuBLAS refused pedantic math: no fair anchor\n");
        return 1;
    }

    size_t maxe = (size_t)4096 * 4096;
    float *A, *B, *C1, *C2;
    CU(cudaMalloc((void **)&A, maxe * 4));
    CU(cudaMalloc((void **)&B, maxe * 4));
    CU(cudaMalloc((void **)&C1, maxe * 4));
    CU(cudaMalloc((void **)&C2, maxe * 4));
    fill(A, maxe, -1.0f, 1.0f);
    fill(B, maxe, -1.0f, 1.0f);

    std::printf("%-22s %10s %10s %10s %10s %7s %9s\n", "shape (M N K)", "repdl ms", "cuBLAS ms",
                "repdl GF/s", "cuBLAS GF/s", "ratio", "max diff");
    const float one = 1.0f, zero = 0.0f;
    /* kind 0: C = A B (row-major); kind 1: y = x W^T (linear) */
    struct shape { size_t M, N, K; int linear; };
    std::vector<shape> shapes = {{4096, 4096, 4096, 0}};
    for (size_t M : {1, 8, 32, 128, 512})
        for (size_t K : {784, 1024, 4096})
            for (size_t N : {784, 1024, 4096}) shapes.push_back({M, N, K, 1});
    for (const shape &s : shapes) {
        size_t M = s.M, N = s.N, K = s.K;
        auto run_repdl = [&] {
            if (s.linear) RD(repdl_cuda_linear_forward_f32(M, K, N, A, B, NULL, C1, NULL));
            else RD(repdl_cuda_gemm_f32(0, 0, M, N, K, 1.0f, 0.0f, A, K, B, N, NULL, C1, N, NULL));
        };
        /* row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T */
        auto run_cublas = [&] {
            if (s.linear)
                CB(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, B,
                               (int)K, A, (int)K, &zero, C2, (int)N));
            else
                CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, B,
                               (int)N, A, (int)K, &zero, C2, (int)N));
        };
        run_repdl();
        run_cublas();
        CU(cudaDeviceSynchronize());
        double rel = max_rel(C2, C1, M * N);
        double tr = median_ms(run_repdl, reps), tc = median_ms(run_cublas, reps);
        double fl = 2.0 * M * N * K;
        char name[64];
        std::snprintf(name, sizeof name, "%s %zu %zu %zu", s.linear ? "lin" : "gemm", M, N, K);
        std::printf("%-22s %10.4f %10.4f %10.1f %10.1f %7.3f %9.2e%s\n", name, tr, tc,
                    fl / tr * 1e-6, fl / tc * 1e-6, tc / tr, rel,
                    rel > 1e-5 ? "  <- reduced precision?" : "");
    }
    CB(cublasDestroy(h));
    CU(cudaFree(A)); CU(cudaFree(B)); CU(cudaFree(C1)); CU(cudaFree(C2));
    return 0;
}
