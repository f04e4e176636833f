/* SPDX-License-Identifier: MIT */
/* cuda/nn_act_pool.cu: activations (relu, sigmoid, silu, gelu, gelu_tanh,
   softplus) with their backward passes, the backward passes of exp, log,
   tanh and sqrt, and max/avg pool2d with theirs, on the GPU: bit for bit
   include/repdl/activation.h, backward.h and pool.h on the host, for any
   grid and any batch size.

   Every value is computed by the host's own REPDL_FN: the activations are
   elementwise (thread i: repdl_Ff(x[i])), the pooling forward passes take
   one thread per output (repdl__maxpool_fwd_elem, repdl__avgpool_fwd_elem:
   the window in row-major order), the backward passes one thread per
   input element (repdl__maxpool_bwd_elem, repdl__avgpool_bwd_elem: the
   fadd chain over the covering outputs in ascending order, a gather, so
   no atomics and no dependence on scheduling).  Every float operation is
   a config.h primitive: the PTX is the same under --fmad=true and
   --fmad=false (tests/cuda/check_ptx.sh). */
#include <repdl/repdl.h> /* every function of op_table.h, backward.h, pool.h */

#include "common.cuh"

namespace repdl_cuda {
namespace nnap {

constexpr int THREADS = 256;

#define NNAP_FUNCTORS(name)                                                          \
    struct fwd_##name {                                                              \
        __device__ __forceinline__ float operator()(float x) const                   \
        {                                                                            \
            return repdl_##name##_f32(x);                                         \
        }                                                                            \
    };                                                                               \
    struct bwd_##name {                                                              \
        __device__ __forceinline__ float operator()(float x, float dy) const         \
        {                                                                            \
            return repdl_##name##_backward_f32(x, dy);                                  \
        }                                                                            \
    };
REPDL_CUDA_ACTIVATIONS(NNAP_FUNCTORS)
#undef NNAP_FUNCTORS

/* The backward passes of backward.h's elementwise math functions: element
   i is repdl_F_backward_f32(in[i], dy[i]), in = y or x as there. */
#define NNAP_MATH_BWD(name)                                                          \
    struct bwd_##name {                                                              \
        __device__ __forceinline__ float operator()(float in, float dy) const        \
        {                                                                            \
            return repdl_##name##_backward_f32(in, dy);                              \
        }                                                                            \
    };
REPDL_CUDA_MATH_BACKWARD(NNAP_MATH_BWD)
#undef NNAP_MATH_BWD

template <class F>
__global__ void __launch_bounds__(THREADS) fwd_kernel(const float *x, float *y, size_t n)
{
    F f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = f(x[i]);
}

template <class F>
__global__ void __launch_bounds__(THREADS)
bwd_kernel(const float *x, const float *dy, float *dx, size_t n)
{
    F f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dx[i] = f(x[i], dy[i]);
}

template <class F>
static int launch_fwd(size_t n, const float *x, float *y, void *stream)
{
    if (n == 0) return REPDL_OK;
    size_t bytes;
    if (!mul_ok(n, sizeof(float), &bytes)) return REPDL_ERR_OVERFLOW;
    if (!x || !y) return REPDL_ERR_INVALID;
    if (partial_overlap(y, x, bytes)) return REPDL_ERR_INVALID;
    return launch_fill(fwd_kernel<F>, n, THREADS, stream, x, y, n);
}

template <class F>
static int launch_bwd(size_t n, const float *x, const float *dy, float *dx, void *stream)
{
    if (n == 0) return REPDL_OK;
    size_t bytes;
    if (!mul_ok(n, sizeof(float), &bytes)) return REPDL_ERR_OVERFLOW;
    if (!x || !dy || !dx) return REPDL_ERR_INVALID;
    if (partial_overlap(dx, x, bytes) || partial_overlap(dx, dy, bytes))
        return REPDL_ERR_INVALID;
    return launch_fill(bwd_kernel<F>, n, THREADS, stream, x, dy, dx, n);
}

/* ---- pooling ---- */

__global__ void __launch_bounds__(THREADS)
maxpool_fwd_kernel(repdl_pool2d_shape s, size_t oh, size_t ow, const float *x, float *y,
                   size_t *argmax, size_t total)
{
    size_t stride = (size_t)gridDim.x * blockDim.x, ohw = oh * ow, hw = s.h * s.w;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        size_t plane = i / ohw, pq = i % ohw;
        size_t a;
        y[i] = repdl__maxpool_fwd_elem(&s, x + plane * hw, pq / ow, pq % ow, &a);
        if (argmax) argmax[i] = a;
    }
}

__global__ void __launch_bounds__(THREADS)
avgpool_fwd_kernel(repdl_pool2d_shape s, int incl, size_t oh, size_t ow, const float *x,
                   float *y, size_t total)
{
    size_t stride = (size_t)gridDim.x * blockDim.x, ohw = oh * ow, hw = s.h * s.w;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        size_t plane = i / ohw, pq = i % ohw;
        y[i] = repdl__avgpool_fwd_elem(&s, incl, x + plane * hw, pq / ow, pq % ow);
    }
}

__global__ void __launch_bounds__(THREADS)
maxpool_bwd_kernel(repdl_pool2d_shape s, size_t oh, size_t ow, const size_t *argmax,
                   const float *dy, float *dx, size_t total)
{
    size_t stride = (size_t)gridDim.x * blockDim.x, ohw = oh * ow, hw = s.h * s.w;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        size_t plane = i / hw, e = i % hw;
        dx[i] = ohw ? repdl__maxpool_bwd_elem(&s, argmax + plane * ohw, dy + plane * ohw, oh, ow,
                                              e / s.w, e % s.w)
                    : -0.0f;
    }
}

__global__ void __launch_bounds__(THREADS)
avgpool_bwd_kernel(repdl_pool2d_shape s, int incl, size_t oh, size_t ow, const float *dy,
                   float *dx, size_t total)
{
    size_t stride = (size_t)gridDim.x * blockDim.x, ohw = oh * ow, hw = s.h * s.w;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        size_t plane = i / hw, e = i % hw;
        dx[i] = ohw ? repdl__avgpool_bwd_elem(&s, incl, dy + plane * ohw, ow, oh, e / s.w, e % s.w)
                    : -0.0f;
    }
}

/* The host's check of s (same statuses), then the element counts of x
   and y: REPDL_ERR_OVERFLOW on overflow of the byte counts. */
static int pool_sizes(const repdl_pool2d_shape *s, size_t *nx, size_t *ny, size_t *oh,
                      size_t *ow)
{
    size_t planes, b;
    REPDL_CUDA_TRY(repdl__pool2d_check(s));
    *oh = repdl_pool2d_out_h(s);
    *ow = repdl_pool2d_out_w(s);
    if (!mul_ok(s->n, s->c, &planes) || !mul_ok(planes, s->h, nx) || !mul_ok(*nx, s->w, nx) ||
        !mul_ok(*nx, sizeof(float), &b) || !mul_ok(planes, *oh, ny) || !mul_ok(*ny, *ow, ny) ||
        !mul_ok(*ny, sizeof(size_t), &b))
        return REPDL_ERR_OVERFLOW;
    return REPDL_OK;
}

} // namespace nnap
} // namespace repdl_cuda

using namespace repdl_cuda;
using namespace repdl_cuda::nnap;

#define NNAP_LAUNCHERS(name)                                                                \
    extern "C" int repdl_cuda_##name##_array_f32(size_t n, const float *x, float *y,          \
                                                 void *stream)                              \
    {                                                                                       \
        return launch_fwd<fwd_##name>(n, x, y, stream);                                     \
    }                                                                                       \
    extern "C" int repdl_cuda_##name##_backward_array_f32(size_t n, const float *x,              \
                                                    const float *dy, float *dx,             \
                                                    void *stream)                           \
    {                                                                                       \
        return launch_bwd<bwd_##name>(n, x, dy, dx, stream);                                \
    }
REPDL_CUDA_ACTIVATIONS(NNAP_LAUNCHERS)
#undef NNAP_LAUNCHERS

#define NNAP_MATH_BWD_LAUNCHER(name)                                                        \
    extern "C" int repdl_cuda_##name##_backward_array_f32(size_t n, const float *in,        \
                                                          const float *dy, float *dx,       \
                                                          void *stream)                     \
    {                                                                                       \
        return launch_bwd<bwd_##name>(n, in, dy, dx, stream);                               \
    }
REPDL_CUDA_MATH_BACKWARD(NNAP_MATH_BWD_LAUNCHER)
#undef NNAP_MATH_BWD_LAUNCHER

extern "C" int repdl_cuda_max_pool2d_forward_f32(const struct repdl_pool2d_shape *s,
                                                 const float *x, float *y, size_t *argmax,
                                                 void *stream)
{
    size_t nx, ny, oh, ow;
    REPDL_CUDA_TRY(pool_sizes(s, &nx, &ny, &oh, &ow));
    if (ny == 0) return REPDL_OK;
    if (!x || !y) return REPDL_ERR_INVALID;
    if (overlap(y, ny * sizeof(float), x, nx * sizeof(float)) ||
        (argmax && (overlap(argmax, ny * sizeof(size_t), x, nx * sizeof(float)) ||
                    overlap(argmax, ny * sizeof(size_t), y, ny * sizeof(float)))))
        return REPDL_ERR_INVALID;
    return launch_fill(maxpool_fwd_kernel, ny, THREADS, stream, *s, oh, ow, x, y, argmax, ny);
}

extern "C" int repdl_cuda_max_pool2d_backward_f32(const struct repdl_pool2d_shape *s,
                                                  const size_t *argmax, const float *dy,
                                                  float *dx, void *stream)
{
    size_t nx, ny, oh, ow;
    REPDL_CUDA_TRY(pool_sizes(s, &nx, &ny, &oh, &ow));
    if (nx == 0) return REPDL_OK;
    if (!dx || (ny && (!argmax || !dy))) return REPDL_ERR_INVALID;
    if (ny && (overlap(dx, nx * sizeof(float), dy, ny * sizeof(float)) ||
               overlap(dx, nx * sizeof(float), argmax, ny * sizeof(size_t))))
        return REPDL_ERR_INVALID;
    return launch_fill(maxpool_bwd_kernel, nx, THREADS, stream, *s, oh, ow, argmax, dy, dx, nx);
}

extern "C" int repdl_cuda_avg_pool2d_forward_f32(const struct repdl_pool2d_shape *s,
                                                 int count_include_pad, const float *x, float *y,
                                                 void *stream)
{
    size_t nx, ny, oh, ow;
    REPDL_CUDA_TRY(pool_sizes(s, &nx, &ny, &oh, &ow));
    if (ny == 0) return REPDL_OK;
    if (!x || !y) return REPDL_ERR_INVALID;
    if (overlap(y, ny * sizeof(float), x, nx * sizeof(float))) return REPDL_ERR_INVALID;
    return launch_fill(avgpool_fwd_kernel, ny, THREADS, stream, *s, count_include_pad, oh, ow,
                       x, y, ny);
}

extern "C" int repdl_cuda_avg_pool2d_backward_f32(const struct repdl_pool2d_shape *s,
                                                  int count_include_pad, const float *dy,
                                                  float *dx, void *stream)
{
    size_t nx, ny, oh, ow;
    REPDL_CUDA_TRY(pool_sizes(s, &nx, &ny, &oh, &ow));
    if (nx == 0) return REPDL_OK;
    if (!dx || (ny && !dy)) return REPDL_ERR_INVALID;
    if (ny && overlap(dx, nx * sizeof(float), dy, ny * sizeof(float))) return REPDL_ERR_INVALID;
    return launch_fill(avgpool_bwd_kernel, nx, THREADS, stream, *s, count_include_pad, oh, ow,
                       dy, dx, nx);
}
