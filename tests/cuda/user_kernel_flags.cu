/* SPDX-License-Identifier: MIT */
/* tests/cuda/user_kernel_flags.cu: a user's kernel that calls repdl's
   device functions, compiled to PTX under nvcc's default flags,
   --fmad=false, -ftz=true and -use_fast_math (tests/cuda/meson.build).
   tests/cuda/check_ptx.sh requires the four PTX files to be identical and
   free of .ftz and approx: the caller's flags cannot reach repdl's
   arithmetic (docs/flags.md).  The kernel does no arithmetic of its own,
   so any difference would be repdl's.  Compiled only, never run. */
#include <repdl/repdl.h>

__global__ void user_maps(const float *x, const float *dy, float *y, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], g = dy[i];
    float *o = y + 32 * i;
    o[0] = repdl_exp_f32(v);
    o[1] = repdl_log_f32(v);
    o[2] = repdl_tanh_f32(v);
    o[3] = repdl_sqrt_f32(v);
    o[4] = repdl_sigmoid_f32(v);
    o[5] = repdl_sigmoid_backward_f32(v, g);
    o[6] = repdl_relu_f32(v);
    o[7] = repdl_relu_backward_f32(v, g);
    o[8] = repdl_silu_f32(v);
    o[9] = repdl_silu_backward_f32(v, g);
    o[10] = repdl_gelu_tanh_f32(v);
    o[11] = repdl_gelu_tanh_backward_f32(v, g);
    o[12] = repdl_gelu_f32(v);
    o[13] = repdl_gelu_backward_f32(v, g);
    o[14] = repdl_softplus_f32(v);
    o[15] = repdl_softplus_backward_f32(v, g);
    o[16] = repdl_max2_f32(v, g);
    o[17] = repdl_min2_f32(v, g);
    o[18] = repdl_rng_normal_f32(7, 0, i);
    o[19] = repdl_rsqrt_f32(v);
    o[20] = repdl_sin_f32(v);
    o[21] = repdl_cos_f32(v);
}

/* The bfloat16 and float16 functions and conversions (half.h,
   half_math.h), one thread an element. */
__global__ void user_maps_16(const uint16_t *x, const float *xf, uint16_t *y, float *yf, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint16_t v = x[i];
    uint16_t *o = y + 28 * i;
    o[0] = repdl_exp_bf16(v);
    o[1] = repdl_exp_f16(v);
    o[2] = repdl_log_bf16(v);
    o[3] = repdl_log_f16(v);
    o[4] = repdl_tanh_bf16(v);
    o[5] = repdl_tanh_f16(v);
    o[6] = repdl_sqrt_bf16(v);
    o[7] = repdl_sqrt_f16(v);
    o[8] = repdl_sigmoid_bf16(v);
    o[9] = repdl_sigmoid_f16(v);
    o[10] = repdl_f32_to_bf16(xf[i]);
    o[11] = repdl_f32_to_f16(xf[i]);
    o[12] = repdl_rsqrt_bf16(v);
    o[13] = repdl_rsqrt_f16(v);
    o[14] = repdl_sin_bf16(v);
    o[15] = repdl_sin_f16(v);
    o[16] = repdl_cos_bf16(v);
    o[17] = repdl_cos_f16(v);
    o[18] = repdl_erf_bf16(v);
    o[19] = repdl_erf_f16(v);
    o[20] = repdl_silu_bf16(v);
    o[21] = repdl_silu_f16(v);
    o[22] = repdl_softplus_bf16(v);
    o[23] = repdl_softplus_f16(v);
    o[24] = repdl_gelu_bf16(v);
    o[25] = repdl_gelu_f16(v);
    o[26] = repdl_gelu_tanh_bf16(v);
    o[27] = repdl_gelu_tanh_f16(v);
    yf[2 * i] = repdl_bf16_to_f32(v);
    yf[2 * i + 1] = repdl_f16_to_f32(v);
}

/* The canonical sum and dot of a row, one thread a row. */
__global__ void user_rows(const float *x, const float *w, float *y, size_t rows, size_t n)
{
    size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    y[2 * r] = repdl_sum_f32(n, x + r * n);
    y[2 * r + 1] = repdl_dot_f32(n, x + r * n, w);
}
