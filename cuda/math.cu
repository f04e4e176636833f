/* SPDX-License-Identifier: MIT */
/* cuda/math.cu: elementwise kernels y[i] = f(x[i]) for repdl's correctly
   rounded functions, binary32 and (half_math.h) bfloat16 and float16, and
   their launchers.

   The device runs the very functions of include/repdl/ (REPDL_FN is
   __host__ __device__ under nvcc): no copy, no device variant.  Their
   results are correctly rounded, so the device's bits are the host's.

   The functions are include/repdl/op_table.h's rows (REPDL_CUDA_MAP_FUNCTIONS
   and REPDL_CUDA_MAP_FUNCTIONS_16 of repdl/cuda.h select them); repdl.h
   includes every function's header, so a row added there is a launcher
   here with no edit of this file. */
#include <repdl/repdl.h>

#include "common.cuh"

namespace repdl_cuda {

/* One functor per function: struct fn_expf { f(x) = repdl_exp_f32(x) }. */
#define REPDL_CUDA_FUNCTOR(name)                                             \
    struct fn_##name {                                                       \
        __device__ __forceinline__ float operator()(float x) const         \
        {                                                                    \
            return repdl_##name##_f32(x);                                   \
        }                                                                    \
    };
REPDL_CUDA_MAP_FUNCTIONS(REPDL_CUDA_FUNCTOR)
#undef REPDL_CUDA_FUNCTOR

/* struct fn_exp_bf16 { f(x) = repdl_exp_bf16(x) }, and f16. */
#define REPDL_CUDA_FUNCTOR_16(name)                                          \
    struct fn_##name##_bf16 {                                                \
        __device__ __forceinline__ uint16_t operator()(uint16_t x) const     \
        {                                                                    \
            return repdl_##name##_bf16(x);                                   \
        }                                                                    \
    };                                                                       \
    struct fn_##name##_f16 {                                                 \
        __device__ __forceinline__ uint16_t operator()(uint16_t x) const     \
        {                                                                    \
            return repdl_##name##_f16(x);                                    \
        }                                                                    \
    };
REPDL_CUDA_MAP_FUNCTIONS_16(REPDL_CUDA_FUNCTOR_16)
#undef REPDL_CUDA_FUNCTOR_16

/* The 4-element vector of an element type: 16 bytes for float, 8 for a
   16-bit pattern. */
template <class T> struct vec4;
template <> struct vec4<float> { typedef float4 type; };
template <> struct vec4<uint16_t> { typedef ushort4 type; };

enum { MAP_THREADS = 256 };

/* Grid-stride over n elements (64-bit indices).  VEC4: x and y are
   aligned to 4 elements, so the body reads and writes vec4<T> (float4,
   ushort4); the n % 4 last elements go through the scalar loop.  x == y
   (in place) is allowed: each element is read before it is written, by
   the same thread. */
template <class F, class T, bool VEC4>
__global__ void __launch_bounds__(MAP_THREADS)
map_kernel(const T *x, T *y, size_t n)
{
    typedef typename vec4<T>::type T4;
    F f;
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t done = 0;
    if (VEC4) {
        size_t n4 = n / 4;
        const T4 *x4 = (const T4 *)x;
        T4 *y4 = (T4 *)y;
        for (size_t i = tid; i < n4; i += stride) {
            T4 a = x4[i], b;
            b.x = f(a.x);
            b.y = f(a.y);
            b.z = f(a.z);
            b.w = f(a.w);
            y4[i] = b;
        }
        done = n4 * 4;
    }
    for (size_t i = done + tid; i < n; i += stride) y[i] = f(x[i]);
}

template <class F, class T>
static int launch_map(const T *x, T *y, size_t n, void *stream)
{
    if (n == 0) return REPDL_OK;
    size_t bytes;
    if (!mul_ok(n, sizeof(T), &bytes)) return REPDL_ERR_OVERFLOW;
    if (x == NULL || y == NULL) return REPDL_ERR_INVALID;
    if (partial_overlap(y, x, bytes)) return REPDL_ERR_INVALID;
    /* vec4<T> when both pointers are aligned to 4 elements: a work item is
       4 elements (the n % 4 last ones go through the scalar loop). */
    const uintptr_t a4 = sizeof(typename vec4<T>::type);
    if ((uintptr_t)x % a4 == 0 && (uintptr_t)y % a4 == 0)
        return launch_fill(map_kernel<F, T, true>, (n + 3) / 4, MAP_THREADS, stream, x, y, n);
    return launch_fill(map_kernel<F, T, false>, n, MAP_THREADS, stream, x, y, n);
}

} // namespace repdl_cuda

#define REPDL_CUDA_MAP_LAUNCHER(name)                                        \
    extern "C" int repdl_cuda_##name##_array_f32(size_t n, const float *x,   \
                                                float *y, void *stream)                           \
    {                                                                        \
        return repdl_cuda::launch_map<repdl_cuda::fn_##name>(x, y, n,        \
                                                             stream);        \
    }
REPDL_CUDA_MAP_FUNCTIONS(REPDL_CUDA_MAP_LAUNCHER)
#undef REPDL_CUDA_MAP_LAUNCHER

#define REPDL_CUDA_MAP_LAUNCHER_16(name)                                     \
    extern "C" int repdl_cuda_##name##_array_bf16(size_t n, const uint16_t *x, \
                                                   uint16_t *y, void *stream) \
    {                                                                        \
        return repdl_cuda::launch_map<repdl_cuda::fn_##name##_bf16>(x, y, n, stream); \
    }                                                                        \
    extern "C" int repdl_cuda_##name##_array_f16(size_t n, const uint16_t *x, \
                                                  uint16_t *y, void *stream)  \
    {                                                                        \
        return repdl_cuda::launch_map<repdl_cuda::fn_##name##_f16>(x, y, n, stream); \
    }
REPDL_CUDA_MAP_FUNCTIONS_16(REPDL_CUDA_MAP_LAUNCHER_16)
#undef REPDL_CUDA_MAP_LAUNCHER_16
