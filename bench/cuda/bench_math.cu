/* SPDX-License-Identifier: MIT */
/* bench/cuda/bench_math.cu: repdl's map kernels (correctly rounded) against
   the same kernel calling CUDA's own expf, logf, tanhf, sqrtf (default
   flags: not fast-math, not correctly rounded except sqrtf), and against
   a plain copy (the bandwidth ceiling of a map).

     bench_cuda_math [n]      n floats (default 2^28, 1 GiB an array)

   Prints, per function: median time, GB/s (4 bytes read + 4 written an
   element), Gelem/s, and the ratio repdl time / CUDA time; target <= 1.2
   on large arrays (docs/cuda.md).  No GPU: says so and exits 77. */
#include <cmath>

#include "bench_common.cuh"

/* The same grid-stride, float4 kernel as cuda/math.cu, calling CUDA's
   function. */
template <class F>
__global__ void __launch_bounds__(256) cuda_map(const float *x, float *y, size_t n)
{
    F f;
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t n4 = n / 4;
    for (size_t i = tid; i < n4; i += stride) {
        float4 a = ((const float4 *)x)[i], b;
        b.x = f(a.x);
        b.y = f(a.y);
        b.z = f(a.z);
        b.w = f(a.w);
        ((float4 *)y)[i] = b;
    }
    for (size_t i = n4 * 4 + tid; i < n; i += stride) y[i] = f(x[i]);
}

struct cu_expf { __device__ float operator()(float x) const { return expf(x); } };
struct cu_logf { __device__ float operator()(float x) const { return logf(x); } };
struct cu_tanhf { __device__ float operator()(float x) const { return tanhf(x); } };
struct cu_sqrtf { __device__ float operator()(float x) const { return sqrtf(x); } };
struct cu_copy { __device__ float operator()(float x) const { return x; } };

template <class F>
static double time_cuda(const float *x, float *y, size_t n, int grid)
{
    return median_ms([&] { cuda_map<F><<<grid, 256>>>(x, y, n); });
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : (size_t)1 << 28;
    bench_require_gpu("bench_cuda_math");
    int sms = 0;
    CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    /* the launcher's own grid rule (cuda/math.cu): at most 32 blocks an SM */
    size_t want = (n + 1023) / 1024, cap = (size_t)sms * 32;
    int grid = (int)(want < cap ? want : cap);

    float *x, *y;
    CU(cudaMalloc((void **)&x, n * sizeof(float)));
    CU(cudaMalloc((void **)&y, n * sizeof(float)));
    double bytes = 8.0 * (double)n;

    fill(x, n, -1.0f, 1.0f);
    double t_copy = time_cuda<cu_copy>(x, y, n, grid);
    double t_memcpy = median_ms([&] { CU(cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice)); });
    std::printf("n = %zu floats (%.2f GiB an array)\n", n, n * 4.0 / 1073741824.0);
    std::printf("copy kernel   %8.3f ms  %7.1f GB/s\n", t_copy, bytes / t_copy / 1e6);
    std::printf("cudaMemcpy    %8.3f ms  %7.1f GB/s\n", t_memcpy, bytes / t_memcpy / 1e6);
    std::printf("%-6s %-13s %10s %9s %9s %12s %8s\n", "fn", "inputs", "ms", "GB/s", "Gelem/s",
                "repdl/CUDA", "target");

    struct row {
        const char *name, *range;
        float lo, hi;
        int (*repdl)(size_t, const float *, float *, void *);
        double (*cuda)(const float *, float *, size_t, int);
    } rows[] = {
        {"expf", "[-80, 80]", -80.0f, 80.0f, repdl_cuda_exp_array_f32, time_cuda<cu_expf>},
        {"expf", "[-1, 1]", -1.0f, 1.0f, repdl_cuda_exp_array_f32, time_cuda<cu_expf>},
        {"logf", "[1e-3, 1e3]", 1e-3f, 1e3f, repdl_cuda_log_array_f32, time_cuda<cu_logf>},
        {"logf", "[0.5, 2]", 0.5f, 2.0f, repdl_cuda_log_array_f32, time_cuda<cu_logf>},
        {"tanhf", "[-10, 10]", -10.0f, 10.0f, repdl_cuda_tanh_array_f32, time_cuda<cu_tanhf>},
        {"tanhf", "[-1, 1]", -1.0f, 1.0f, repdl_cuda_tanh_array_f32, time_cuda<cu_tanhf>},
        {"sqrtf", "[0, 1e6]", 0.0f, 1e6f, repdl_cuda_sqrt_array_f32, time_cuda<cu_sqrtf>},
    };
    int misses = 0;
    for (const row &r : rows) {
        fill(x, n, r.lo, r.hi);
        double tr = median_ms([&] { RD(r.repdl(n, x, y, nullptr)); });
        double tc = r.cuda(x, y, n, grid);
        double ratio = tr / tc;
        misses += ratio > 1.2;
        std::printf("%-6s %-13s %10.3f %9.1f %9.2f %12s %8s  repdl\n", r.name, r.range, tr,
                    bytes / tr / 1e6, n / tr / 1e6, "", "");
        std::printf("%-6s %-13s %10.3f %9.1f %9.2f %12.3f %8s  CUDA %s\n", r.name, r.range, tc,
                    bytes / tc / 1e6, n / tc / 1e6, ratio, ratio <= 1.2 ? "<=1.2 ok" : "MISSED",
                    r.name);
    }
    std::printf("map target (repdl time <= 1.2 x CUDA's): %s (%d of %zu rows missed)\n",
                misses ? "MISSED" : "met", misses, sizeof rows / sizeof rows[0]);
    CU(cudaFree(x));
    CU(cudaFree(y));
    return 0;
}
