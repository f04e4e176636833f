/* SPDX-License-Identifier: MIT */
/* bench/cuda/bench_reduce.cu: repdl's canonical reduction on the GPU
   against CUB's DeviceReduce::Sum (not reproducible across GPUs) and
   against the device's measured memory bandwidth.

     bench_cuda_reduce [max_log2_n]    sizes 2^20 .. 2^max (default 28)

   Anchors measured in the same run:
     read   a read-only kernel (float4 loads, XOR of the bits, no float
            arithmetic): the read bandwidth a sum can hope for;
     copy   cudaMemcpy device to device (bytes read + bytes written).
   Targets (docs/cuda.md): repdl sum >= 90% of the read bandwidth on large
   n, and no slower than CUB DeviceReduce::Sum.  repdl's time includes its
   stream-ordered workspace allocation; CUB's temporary storage is
   allocated once, outside the timing, as CUB's interface intends.
   No GPU: says so and exits 77. */
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include "bench_common.cuh"

/* Reads x[0..n) once; writes only if the XOR of every bit pattern is a
   value it never is in practice, so the loads stay. */
template <int UNROLL>
__global__ void __launch_bounds__(256) read_kernel(const float4 *x, size_t n4, unsigned *sink)
{
    unsigned acc = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) v[u] = x[i + u * stride];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            acc ^= __float_as_uint(v[u].x) ^ __float_as_uint(v[u].y) ^ __float_as_uint(v[u].z) ^
                   __float_as_uint(v[u].w);
    }
    for (; i < n4; i += stride) {
        float4 v = x[i];
        acc ^= __float_as_uint(v.x) ^ __float_as_uint(v.y) ^ __float_as_uint(v.z) ^ __float_as_uint(v.w);
    }
    if (acc == 0x7f8a5a5au) *sink = acc;
}

int main(int argc, char **argv)
{
    int maxlog = argc > 1 ? std::atoi(argv[1]) : 28;
    bench_require_gpu("bench_cuda_reduce");
    int sms = 0;
    CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    size_t nmax = (size_t)1 << maxlog;
    float *x, *y, *out;
    unsigned *sink;
    CU(cudaMalloc((void **)&x, nmax * sizeof(float)));
    CU(cudaMalloc((void **)&y, nmax * sizeof(float)));
    CU(cudaMalloc((void **)&out, (nmax / 16 + 16) * sizeof(float)));
    CU(cudaMalloc((void **)&sink, sizeof(unsigned)));
    fill(x, nmax, -1.0f, 1.0f);
    fill(y, nmax, -1.0f, 1.0f);

    size_t cub_bytes = 0;
    CU(cub::DeviceReduce::Sum(nullptr, cub_bytes, x, out, (int64_t)nmax));
    void *cub_tmp;
    CU(cudaMalloc(&cub_tmp, cub_bytes + 16));

    std::printf("%-10s %10s %9s %9s %9s %9s %9s %11s %11s\n", "n", "read GB/s", "copy GB/s",
                "CUB GB/s", "sum GB/s", "dot GB/s", "sum/read", "CUB/sum t", "targets");
    int misses = 0;
    for (int lg = 20; lg <= maxlog; lg += 2) {
        size_t n = (size_t)1 << lg;
        double bytes = 4.0 * (double)n;
        double t_read = 1e30;
        for (int g : {sms * 4, sms * 8, sms * 16, sms * 32}) {
            t_read = std::min(t_read, median_ms([&] { read_kernel<4><<<g, 256>>>((const float4 *)x, n / 4, sink); }));
            t_read = std::min(t_read, median_ms([&] { read_kernel<1><<<g, 256>>>((const float4 *)x, n / 4, sink); }));
        }
        double t_copy = median_ms([&] { CU(cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice)); });
        fill(y, nmax, -1.0f, 1.0f);
        double t_cub = median_ms([&] {
            size_t b = cub_bytes;
            CU(cub::DeviceReduce::Sum(cub_tmp, b, x, out, (int64_t)n));
        });
        double t_sum = median_ms([&] { RD(repdl_cuda_sum_f32(n, x, out, nullptr)); });
        double t_dot = median_ms([&] { RD(repdl_cuda_dot_f32(n, x, y, out, nullptr)); });
        double frac = t_read / t_sum, vs_cub = t_cub / t_sum;
        bool big = lg >= 26;
        bool ok = (!big || frac >= 0.9) && vs_cub >= 1.0;
        misses += !ok;
        std::printf("2^%-8d %10.1f %9.1f %9.1f %9.1f %9.1f %9.3f %11.3f %11s\n", lg,
                    bytes / t_read / 1e6, 2 * bytes / t_copy / 1e6, bytes / t_cub / 1e6,
                    bytes / t_sum / 1e6, 2 * bytes / t_dot / 1e6, frac, vs_cub,
                    ok ? "met" : "MISSED");
    }
    std::printf("(targets: sum >= 0.90 x read bandwidth for n >= 2^26; CUB time / sum time >= 1)\n");

    /* Row-wise: rows x n, against CUB's segmented reduction. */
    std::printf("\n%-8s %-8s %10s %10s %9s %11s\n", "rows", "n", "CUB GB/s", "repdl GB/s",
                "CUB/repdl", "");
    size_t shapes[][2] = {{(size_t)1 << 20, 256}, {(size_t)1 << 16, 4096}, {4096, (size_t)1 << 16}, {16, (size_t)1 << 24}};
    int64_t *offs;
    CU(cudaMallocManaged((void **)&offs, ((size_t)1 << 20) * 2 * sizeof(int64_t) + 16));
    for (auto &sh : shapes) {
        size_t rows = sh[0], n = sh[1];
        if (rows * n > nmax) continue;
        for (size_t r = 0; r <= rows; r++) offs[r] = (int64_t)(r * n);
        CU(cudaDeviceSynchronize());
        size_t sb = 0;
        CU(cub::DeviceSegmentedReduce::Sum(nullptr, sb, x, out, (int64_t)rows, offs, offs + 1));
        void *stmp;
        CU(cudaMalloc(&stmp, sb + 16));
        double t_cub = median_ms([&] {
            size_t b = sb;
            CU(cub::DeviceSegmentedReduce::Sum(stmp, b, x, out, (int64_t)rows, offs, offs + 1));
        });
        double t_rep = median_ms([&] { RD(repdl_cuda_sum_rows_f32(rows, n, x, n, out, nullptr)); });
        double bytes = 4.0 * rows * n;
        std::printf("%-8zu %-8zu %10.1f %10.1f %9.3f\n", rows, n, bytes / t_cub / 1e6,
                    bytes / t_rep / 1e6, t_cub / t_rep);
        CU(cudaFree(stmp));
    }
    std::printf("reduction targets: %s\n", misses ? "MISSED (see rows above)" : "met");
    CU(cudaFree(offs));
    CU(cudaFree(cub_tmp));
    CU(cudaFree(x));
    CU(cudaFree(y));
    CU(cudaFree(out));
    CU(cudaFree(sink));
    return 0;
}
