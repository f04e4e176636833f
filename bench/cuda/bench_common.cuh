/* SPDX-License-Identifier: MIT */
/* bench/cuda/bench_common.cuh: timing and reporting shared by the CUDA
   benchmarks.  Times are medians of repeated runs measured with CUDA
   events on one stream; every figure is printed with the anchor measured
   in the same run, on the same device. */
#ifndef REPDL_BENCH_CUDA_COMMON_CUH
#define REPDL_BENCH_CUDA_COMMON_CUH

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include <cuda_runtime.h>

#include <repdl/cuda.h>

#define BENCH_SKIP 77

#define CU(call)                                                                    \
    do {                                                                            \
        cudaError_t e_ = (call);                                                    \
        if (e_ != cudaSuccess) {                                                    \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                         cudaGetErrorString(e_));                                   \
            std::exit(1);                                                           \
        }                                                                           \
    } while (0)

#define RD(call)                                                                    \
    do {                                                                            \
        int s_ = (call);                                                            \
        if (s_ != REPDL_OK) {                                                  \
            std::fprintf(stderr, "%s:%d: %s: %s (cuda error %d)\n", __FILE__,        \
                         __LINE__, #call, repdl_status_string((repdl_status)s_), \
                         repdl_cuda_last_cuda_error());                             \
            std::exit(1);                                                           \
        }                                                                           \
    } while (0)

/* Exits 77 when no GPU can be used; prints the device and the date. */
static inline void bench_require_gpu(const char *name)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        std::printf("%s: skipped: no GPU (%s): no GPU figures measured\n", name,
                    e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        std::exit(BENCH_SKIP);
    }
    cudaDeviceProp p;
    CU(cudaGetDeviceProperties(&p, 0));
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    char date[64];
    std::time_t t = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
    std::printf("%s: %s, sm_%d%d, %d SMs, %.1f GiB, runtime %d, driver %d, %s\n", name,
                p.name, p.major, p.minor, p.multiProcessorCount,
                p.totalGlobalMem / 1073741824.0, rt, drv, date);
}

/* Median time in ms of `reps` runs of f() (after `warm` untimed runs). */
template <class F>
static double median_ms(F f, int reps = 21, int warm = 3)
{
    cudaEvent_t a, b;
    CU(cudaEventCreate(&a));
    CU(cudaEventCreate(&b));
    for (int i = 0; i < warm; i++) f();
    std::vector<double> t;
    for (int i = 0; i < reps; i++) {
        CU(cudaEventRecord(a));
        f();
        CU(cudaEventRecord(b));
        CU(cudaEventSynchronize(b));
        float ms = 0;
        CU(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    CU(cudaGetLastError());
    CU(cudaEventDestroy(a));
    CU(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

/* Fills d[0..n) with lo + (hi - lo) * u, u uniform in [0, 1) (a hash of i). */
__global__ void bench_fill(float *d, size_t n, float lo, float hi)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = i * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ull;
        z ^= z >> 29;
        float u = (float)(z >> 40) * (1.0f / 16777216.0f);
        d[i] = lo + (hi - lo) * u;
    }
}

static inline void fill(float *d, size_t n, float lo, float hi)
{
    bench_fill<<<1024, 256>>>(d, n, lo, hi);
    CU(cudaGetLastError());
    CU(cudaDeviceSynchronize());
}

#endif
