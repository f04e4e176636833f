/* SPDX-License-Identifier: MIT */
/* bench/cuda/bench_nn.cu: repdl's row-wise softmax and layer norm on the
   GPU against a plain kernel of the kind PyTorch's eager CUDA path uses
   (one block per row, a float accumulator, CUDA's expf / rsqrtf, a
   block-wide shuffle-tree reduction whose order depends on the block size:
   not reproducible across launch shapes), and against the device's copy
   bandwidth.

     bench_cuda_nn

   Anchors measured in the same run:
     copy   cudaMemcpy device to device of the rows x cols input (bytes read
            + bytes written): the time any row-wise map that reads x once
            and writes y once can hope for;
     plain  the plain kernels below.
   Reported: GB/s (x read once + y written once), plain time / repdl time
   (>= 1: repdl is as fast), repdl time / copy time.  Shapes: attention
   rows (cols 128 .. 4096), a vocabulary-sized row (32000), LeNet's 10.
   No GPU: says so and exits 77. */
#include "bench_common.cuh"

/* Block-wide sum or max through warp shuffles and shared memory; every
   thread gets the result. */
template <bool MAX>
__device__ float plain_block_reduce(float v, float *sh)
{
    for (int o = 16; o > 0; o >>= 1) {
        float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = MAX ? fmaxf(v, w) : v + w;
    }
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    __syncthreads();
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    v = lane < nw ? sh[lane] : (MAX ? -INFINITY : 0.0f);
    for (int o = 16; o > 0; o >>= 1) {
        float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = MAX ? fmaxf(v, w) : v + w;
    }
    return v;
}

/* softmax of each row: max, sum of exp(x - max), x / sum; three reads of
   the row (the cache holds it), one write. */
__global__ void plain_softmax(const float *x, float *y, size_t cols)
{
    __shared__ float sh[32];
    const float *xr = x + blockIdx.x * cols;
    float *yr = y + blockIdx.x * cols;
    float m = -INFINITY;
    for (size_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, xr[j]);
    m = plain_block_reduce<true>(m, sh);
    float s = 0.0f;
    for (size_t j = threadIdx.x; j < cols; j += blockDim.x) s += expf(xr[j] - m);
    s = plain_block_reduce<false>(s, sh);
    float inv = 1.0f / s;
    for (size_t j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = expf(xr[j] - m) * inv;
}

/* layer norm of each row: mean, variance (two passes), (x - mean) * rstd *
   gamma + beta; mean and rstd saved as the training forward does. */
__global__ void plain_layer_norm(const float *x, const float *g, const float *b, float *y,
                                 float *mean, float *rstd, size_t cols, float eps)
{
    __shared__ float sh[32];
    const float *xr = x + blockIdx.x * cols;
    float *yr = y + blockIdx.x * cols;
    float s = 0.0f;
    for (size_t j = threadIdx.x; j < cols; j += blockDim.x) s += xr[j];
    float mu = plain_block_reduce<false>(s, sh) / (float)cols;
    float v = 0.0f;
    for (size_t j = threadIdx.x; j < cols; j += blockDim.x) {
        float d = xr[j] - mu;
        v += d * d;
    }
    float r = rsqrtf(plain_block_reduce<false>(v, sh) / (float)cols + eps);
    for (size_t j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = (xr[j] - mu) * r * g[j] + b[j];
    if (threadIdx.x == 0) {
        mean[blockIdx.x] = mu;
        rstd[blockIdx.x] = r;
    }
}

static unsigned plain_threads(size_t cols)
{
    unsigned t = 32;
    while (t < 1024 && t < cols) t *= 2;
    return t;
}

int main()
{
    bench_require_gpu("bench_cuda_nn");
    /* rows x cols, about 2^26 .. 2^28 floats each except the small ones */
    const size_t shapes[][2] = {{65536, 10},   {262144, 128}, {65536, 512}, {32768, 1024},
                                {16384, 2048}, {8192, 4096},  {2048, 32000}};
    size_t maxn = 0;
    for (auto &s : shapes) maxn = std::max(maxn, s[0] * s[1]);
    float *x, *y, *g, *b, *mean, *rstd;
    CU(cudaMalloc((void **)&x, maxn * sizeof(float)));
    CU(cudaMalloc((void **)&y, maxn * sizeof(float)));
    CU(cudaMalloc((void **)&g, 32000 * sizeof(float)));
    CU(cudaMalloc((void **)&b, 32000 * sizeof(float)));
    CU(cudaMalloc((void **)&mean, 262144 * sizeof(float)));
    CU(cudaMalloc((void **)&rstd, 262144 * sizeof(float)));
    fill(x, maxn, -8.0f, 8.0f);
    fill(g, 32000, 0.5f, 1.5f);
    fill(b, 32000, -0.5f, 0.5f);

    std::printf("%-8s %-6s | %9s | %11s %11s %9s %9s | %11s %11s %9s %9s\n", "rows", "cols",
                "copy GB/s", "softmax", "plain", "plain/rd", "rd/copy", "layer_norm", "plain",
                "plain/rd", "rd/copy");
    std::printf("%-8s %-6s | %9s | %11s %11s %9s %9s | %11s %11s %9s %9s\n", "", "", "", "GB/s",
                "GB/s", "", "", "GB/s", "GB/s", "", "");
    std::vector<double> sm_ratio, ln_ratio;
    for (auto &s : shapes) {
        size_t rows = s[0], cols = s[1], n = rows * cols;
        double bytes = 8.0 * (double)n; /* x read once, y written once */
        double t_copy = median_ms([&] { CU(cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice)); });
        unsigned th = plain_threads(cols);
        double t_psm = median_ms([&] {
            plain_softmax<<<(unsigned)rows, th>>>(x, y, cols);
        });
        double t_sm = median_ms([&] { RD(repdl_cuda_softmax_f32(rows, cols, x, y, nullptr)); });
        double t_pln = median_ms([&] {
            plain_layer_norm<<<(unsigned)rows, th>>>(x, g, b, y, mean, rstd, cols, 1e-5f);
        });
        double t_ln = median_ms([&] {
            RD(repdl_cuda_layer_norm_forward_f32(rows, cols, 1e-5f, x, g, b, y, mean, rstd, nullptr));
        });
        sm_ratio.push_back(t_psm / t_sm);
        ln_ratio.push_back(t_pln / t_ln);
        std::printf("%-8zu %-6zu | %9.1f | %11.1f %11.1f %9.3f %9.2f | %11.1f %11.1f %9.3f %9.2f\n",
                    rows, cols, bytes / t_copy / 1e6, bytes / t_sm / 1e6, bytes / t_psm / 1e6,
                    t_psm / t_sm, t_sm / t_copy, bytes / t_ln / 1e6, bytes / t_pln / 1e6,
                    t_pln / t_ln, t_ln / t_copy);
    }
    std::sort(sm_ratio.begin(), sm_ratio.end());
    std::sort(ln_ratio.begin(), ln_ratio.end());
    std::printf("median plain/repdl time: softmax %.3f, layer_norm %.3f (>= 1: repdl as fast)\n",
                sm_ratio[sm_ratio.size() / 2], ln_ratio[ln_ratio.size() / 2]);
    CU(cudaFree(x));
    CU(cudaFree(y));
    CU(cudaFree(g));
    CU(cudaFree(b));
    CU(cudaFree(mean));
    CU(cudaFree(rstd));
    return 0;
}
