/* SPDX-License-Identifier: MIT */
/* tests/cuda/gpu_test.h: what the GPU tests share: the no-GPU skip,
   checked CUDA calls, a seeded random generator, host threads.

   A test that finds no usable GPU prints "skipped: no GPU (...)" and exits
   77, which meson reports as SKIP: never as a pass. */
#ifndef REPDL_TESTS_CUDA_GPU_TEST_H
#define REPDL_TESTS_CUDA_GPU_TEST_H

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <repdl/cuda.h>

#define SKIP_EXIT 77

/* Exits 77 unless a CUDA device is usable; prints the device otherwise. */
static inline void gpu_require(const char *test)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        printf("%s: skipped: no GPU (cudaGetDeviceCount: %s, %d devices)\n", test,
               e != cudaSuccess ? cudaGetErrorString(e) : "ok", count);
        exit(SKIP_EXIT);
    }
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) == cudaSuccess)
        printf("%s: device 0: %s, sm_%d%d, %d SMs, %.1f GiB\n", test, p.name, p.major,
               p.minor, p.multiProcessorCount, p.totalGlobalMem / 1073741824.0);
}

#define CU(call)                                                                    \
    do {                                                                            \
        cudaError_t e_ = (call);                                                    \
        if (e_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,            \
                    cudaGetErrorString(e_));                                        \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

/* A launcher call that must succeed. */
#define RD(call)                                                                    \
    do {                                                                            \
        int s_ = (call);                                                            \
        if (s_ != REPDL_OK) {                                                  \
            fprintf(stderr, "%s:%d: %s: %s (cuda error %d)\n", __FILE__, __LINE__,   \
                    #call, repdl_status_string(s_), repdl_cuda_last_cuda_error()); \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

/* A device array of n floats (at least one), holding h[0 .. n) unless h is
   NULL. */
static inline float *dev_copy(const float *h, size_t n)
{
    float *d;
    CU(cudaMalloc((void **)&d, (n ? n : 1) * sizeof(float)));
    if (n && h) CU(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

/* splitmix64 */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static inline uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* uniform in [0, m), m > 0 */
static inline uint64_t rng_below(uint64_t m) { return rng_next() % m; }

static inline uint32_t f2u(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}
static inline float u2f(uint32_t u)
{
    float x;
    memcpy(&x, &u, 4);
    return x;
}

/* Host threads to use: the online cores, at most 64. */
static inline int host_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    if (n > 64) n = 64;
    return (int)n;
}

#endif
