/* SPDX-License-Identifier: MIT */
/* cuda/rng_optim.cu: random fills, elementwise ops, dropout and
   optimizer steps on the GPU, bit for bit the host's (include/repdl/rng.h,
   elementwise.h, optim.h).

   Every kernel runs the header's own per-element code (REPDL_FN is
   __host__ __device__): the Philox block of counter b, the polar attempt,
   repdl__dropout_elem, repdl__sgd_elem, repdl__adam_elem.  Each element is
   a pure function of its index and inputs, so the grid, the block size and
   the thread that computes it do not matter.  The per-call scalars of the
   optimizers and of dropout (1 - beta1, lr / (1 - beta1^t), 1 / (1 - p),
   ...) are computed once on the host by the header's functions and passed
   by value: the same bits as the host library.  The permutation
   (Fisher-Yates) is sequential by definition and host-only. */
#include <repdl/elementwise.h>
#include <repdl/optim.h>
#include <repdl/rng.h>

#include "common.cuh"

namespace repdl_cuda {

enum { NRO_THREADS = 256 };

/* ---- RNG fills ---- */

/* Grid-stride over the Philox blocks of stream elements 0 .. n-1: thread
   unit t draws block t (the words of elements 4t .. 4t + 3) and calls
   f(j, word of j) for each of those j below n. */
template <class F>
__device__ __forceinline__ void for_each_rng_word(uint64_t seed, uint64_t offset, size_t n, F f)
{
    size_t units = (n + 3) / 4;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < units; t += stride) {
        uint32_t w[4];
        repdl__rng_block(seed, offset + (uint64_t)t, 0u, 0u, w);
        for (int s = 0; s < 4; s++) {
            size_t j = 4 * t + (size_t)s;
            if (j < n) f(j, w[s]);
        }
    }
}

__global__ void __launch_bounds__(NRO_THREADS)
uniform_fill_kernel(uint64_t seed, uint64_t offset, size_t n, float lo, float d, float *out)
{
    for_each_rng_word(seed, offset, n, [&](size_t j, uint32_t w) {
        out[j] = repdl__canon(repdl__fadd(lo, repdl__fmul(d, repdl__rng_u01(w))));
    });
}

__global__ void __launch_bounds__(NRO_THREADS)
normal_fill_kernel(uint64_t seed, uint64_t offset, size_t n, float mean, float sd, float *out)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
        float z = repdl_rng_normal_f32(seed, offset, (uint64_t)j);
        out[j] = repdl__canon(repdl__fadd(mean, repdl__fmul(sd, z)));
    }
}

/* ---- Elementwise ---- */

enum { OP_ADD, OP_MUL };

template <int OP>
__global__ void __launch_bounds__(NRO_THREADS)
binary_kernel(size_t n, const float *a, const float *b, float *y)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = repdl__canon(OP == OP_ADD ? repdl__fadd(a[i], b[i]) : repdl__fmul(a[i], b[i]));
}

__global__ void __launch_bounds__(NRO_THREADS)
scale_kernel(size_t n, float alpha, const float *x, float *y)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = repdl__canon(repdl__fmul(alpha, x[i]));
}

/* ---- Dropout ---- */

__global__ void __launch_bounds__(NRO_THREADS)
dropout_fwd_kernel(size_t n, float p, float scale, uint64_t seed, uint64_t offset,
                   const float *x, float *y, uint8_t *mask)
{
    for_each_rng_word(seed, offset, n, [&](size_t j, uint32_t w) {
        uint8_t k;
        y[j] = repdl__dropout_elem(x[j], w, p, scale, &k);
        if (mask) mask[j] = k;
    });
}

__global__ void __launch_bounds__(NRO_THREADS)
dropout_bwd_kernel(size_t n, float scale, const uint8_t *mask, const float *dy, float *dx)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dx[i] = mask[i] ? repdl__canon(repdl__fmul(dy[i], scale)) : 0.0f;
}

/* ---- Optimizers ---- */

__global__ void __launch_bounds__(NRO_THREADS)
sgd_kernel(size_t n, repdl__sgd_k k, float *w, const float *g, float *buf)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        repdl__sgd_elem(k, w + i, g[i], k.use_mom ? buf + i : NULL, 0xffffffffu);
}

__global__ void __launch_bounds__(NRO_THREADS)
adam_kernel(size_t n, repdl__adam_k k, float *w, const float *g, float *m, float *v)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        repdl__adam_elem(k, w + i, g[i], m + i, v + i, 0xffffffffu);
}

} // namespace repdl_cuda

using namespace repdl_cuda;

/* The fills: out[j] = a + b u_j (uniform_fill_kernel, a Philox block of 4
   a thread) or a + b z_j (normal_fill_kernel, an element a thread). */
static int launch_rng_fill(bool normal, size_t n, uint64_t seed, uint64_t offset, float a,
                           float b, float *out, void *stream)
{
    size_t bytes;
    if (n == 0) return REPDL_OK;
    if (!mul_ok(n, sizeof(float), &bytes)) return REPDL_ERR_OVERFLOW;
    if (out == NULL) return REPDL_ERR_INVALID;
    return launch_fill(normal ? normal_fill_kernel : uniform_fill_kernel,
                       normal ? n : (n + 3) / 4, NRO_THREADS, stream, seed, offset, n, a, b, out);
}

extern "C" int repdl_cuda_rng_uniform_fill_f32(size_t n, unsigned long long seed,
                                               unsigned long long offset, float lo, float hi, float *out,
                                               void *stream)
{
    return launch_rng_fill(false, n, seed, offset, lo, repdl__fsub(hi, lo), out, stream);
}

extern "C" int repdl_cuda_rng_normal_fill_f32(size_t n, unsigned long long seed,
                                              unsigned long long offset, float mean, float std, float *out,
                                              void *stream)
{
    return launch_rng_fill(true, n, seed, offset, mean, std, out, stream);
}

template <int OP>
static int launch_binary(size_t n, const float *a, const float *b, float *y, void *stream)
{
    size_t bytes;
    if (n == 0) return REPDL_OK;
    if (!mul_ok(n, sizeof(float), &bytes)) return REPDL_ERR_OVERFLOW;
    if (!a || !b || !y) return REPDL_ERR_INVALID;
    if (partial_overlap(y, a, bytes) || partial_overlap(y, b, bytes)) return REPDL_ERR_INVALID;
    return launch_fill(binary_kernel<OP>, n, NRO_THREADS, stream, n, a, b, y);
}

extern "C" int repdl_cuda_add_f32(size_t n, const float *a, const float *b, float *y, void *stream)
{
    return launch_binary<OP_ADD>(n, a, b, y, stream);
}

extern "C" int repdl_cuda_mul_f32(size_t n, const float *a, const float *b, float *y, void *stream)
{
    return launch_binary<OP_MUL>(n, a, b, y, stream);
}

extern "C" int repdl_cuda_scale_f32(size_t n, float alpha, const float *x, float *y, void *stream)
{
    size_t bytes;
    if (n == 0) return REPDL_OK;
    if (!mul_ok(n, sizeof(float), &bytes)) return REPDL_ERR_OVERFLOW;
    if (!x || !y) return REPDL_ERR_INVALID;
    if (partial_overlap(y, x, bytes)) return REPDL_ERR_INVALID;
    return launch_fill(scale_kernel, n, NRO_THREADS, stream, n, alpha, x, y);
}

extern "C" int repdl_cuda_dropout_forward_f32(size_t n, float p, unsigned long long seed,
                                              unsigned long long offset, const float *x, float *y,
                                              unsigned char *mask, void *stream)
{
    size_t bytes;
    if (n == 0) return REPDL_OK;
    if (!mul_ok(n, sizeof(float), &bytes)) return REPDL_ERR_OVERFLOW;
    if (!x || !y) return REPDL_ERR_INVALID;
    if (partial_overlap(y, x, bytes)) return REPDL_ERR_INVALID;
    if (mask && (overlap(mask, n, x, bytes) || overlap(mask, n, y, bytes)))
        return REPDL_ERR_INVALID;
    float pc = repdl__dropout_p(p), scale = repdl__dropout_scale(pc);
    return launch_fill(dropout_fwd_kernel, (n + 3) / 4, NRO_THREADS, stream, n, pc, scale, seed,
                       offset, x, y, mask);
}

extern "C" int repdl_cuda_dropout_backward_f32(size_t n, float p, const unsigned char *mask,
                                               const float *dy, float *dx, void *stream)
{
    size_t bytes;
    if (n == 0) return REPDL_OK;
    if (!mul_ok(n, sizeof(float), &bytes)) return REPDL_ERR_OVERFLOW;
    if (!mask || !dy || !dx) return REPDL_ERR_INVALID;
    if (partial_overlap(dx, dy, bytes) || overlap(mask, n, dx, bytes)) return REPDL_ERR_INVALID;
    float scale = repdl__dropout_scale(repdl__dropout_p(p));
    return launch_fill(dropout_bwd_kernel, n, NRO_THREADS, stream, n, scale, mask, dy, dx);
}

extern "C" int repdl_cuda_sgd_step_f32(size_t n, const struct repdl_sgd_config *c, unsigned long long step, const float *g,
                                       float *w, float *momentum_buf,
                                       void *stream)
{
    size_t bytes;
    if (c == NULL) return REPDL_ERR_INVALID;
    if (n == 0) return REPDL_OK;
    if (!mul_ok(n, sizeof(float), &bytes)) return REPDL_ERR_OVERFLOW;
    if (!w || !g) return REPDL_ERR_INVALID;
    if (overlap(w, bytes, g, bytes)) return REPDL_ERR_INVALID;
    repdl__sgd_k k = repdl__sgd_prepare(c, momentum_buf != NULL, (uint64_t)step);
    if (k.use_mom && (overlap(momentum_buf, bytes, w, bytes) || overlap(momentum_buf, bytes, g, bytes)))
        return REPDL_ERR_INVALID;
    return launch_fill(sgd_kernel, n, NRO_THREADS, stream, n, k, w, g, momentum_buf);
}

extern "C" int repdl_cuda_adam_step_f32(size_t n, const struct repdl_adam_config *c, const struct repdl_adam_state *s, const float *g, float *w,
                                        float *m,
                                        float *v, void *stream)
{
    size_t bytes;
    if (c == NULL || s == NULL) return REPDL_ERR_INVALID;
    if (n == 0 || s->t == 0) return REPDL_OK;
    if (!mul_ok(n, sizeof(float), &bytes)) return REPDL_ERR_OVERFLOW;
    if (!w || !g || !m || !v) return REPDL_ERR_INVALID;
    if (overlap(w, bytes, g, bytes) || overlap(w, bytes, m, bytes) || overlap(w, bytes, v, bytes) ||
        overlap(m, bytes, g, bytes) || overlap(m, bytes, v, bytes) || overlap(v, bytes, g, bytes))
        return REPDL_ERR_INVALID;
    repdl__adam_k k = repdl__adam_prepare(c, s);
    return launch_fill(adam_kernel, n, NRO_THREADS, stream, n, k, w, g, m, v);
}
