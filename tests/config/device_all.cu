/* SPDX-License-Identifier: MIT */
// tests/config/device_all.cu: every repdl elementary function, scalar and
// array form, binary32, bfloat16 and float16, and the 16-bit conversions,
// called from device code.  Compiling it with nvcc proves the
// headers (tables included) are valid CUDA; check_ptx.sh compares its PTX
// under --fmad=true and --fmad=false.  One kernel per function, so a PTX
// difference names the function.
#include <repdl/repdl.h>
#include <repdl/exp.h>
#include <repdl/log.h>
#include <repdl/tanh.h>
#include <repdl/sqrt.h>

#define REPDL_TEST_KERNELS(F)                                                  \
    __global__ void k_##F(float *out, const float *x, int n)                   \
    {                                                                          \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                         \
        if (i < n) out[i] = repdl_##F##_f32(x[i]);                                \
    }                                                                          \
    __global__ void k_##F##_array(float *out, const float *x, int n)           \
    {                                                                          \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                         \
        if (i * 64 < n) repdl_##F##_array_f32((size_t)(n - i * 64 < 64 ? n - i * 64 : 64), \
                                          x + i * 64, out + i * 64); \
    }

REPDL_TEST_KERNELS(exp)
REPDL_TEST_KERNELS(log)
REPDL_TEST_KERNELS(tanh)
REPDL_TEST_KERNELS(sqrt)
REPDL_TEST_KERNELS(rsqrt)
REPDL_TEST_KERNELS(sin)
REPDL_TEST_KERNELS(cos)

/* The bfloat16 and float16 forms (half_math.h), FMT bf16 or f16. */
#define REPDL_TEST_KERNELS_16(F, FMT)                                          \
    __global__ void k_##F##_##FMT(uint16_t *out, const uint16_t *x, int n)     \
    {                                                                          \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                         \
        if (i < n) out[i] = repdl_##F##_##FMT(x[i]);                           \
    }                                                                          \
    __global__ void k_##F##_array_##FMT(uint16_t *out, const uint16_t *x, int n) \
    {                                                                          \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                         \
        if (i * 64 < n) repdl_##F##_array_##FMT((size_t)(n - i * 64 < 64 ? n - i * 64 : 64), \
                                                x + i * 64, out + i * 64);     \
    }

REPDL_TEST_KERNELS_16(exp, bf16)
REPDL_TEST_KERNELS_16(exp, f16)
REPDL_TEST_KERNELS_16(log, bf16)
REPDL_TEST_KERNELS_16(log, f16)
REPDL_TEST_KERNELS_16(tanh, bf16)
REPDL_TEST_KERNELS_16(tanh, f16)
REPDL_TEST_KERNELS_16(sqrt, bf16)
REPDL_TEST_KERNELS_16(sqrt, f16)
REPDL_TEST_KERNELS_16(sigmoid, bf16)
REPDL_TEST_KERNELS_16(sigmoid, f16)
REPDL_TEST_KERNELS_16(rsqrt, bf16)
REPDL_TEST_KERNELS_16(rsqrt, f16)
REPDL_TEST_KERNELS_16(sin, bf16)
REPDL_TEST_KERNELS_16(sin, f16)
REPDL_TEST_KERNELS_16(cos, bf16)
REPDL_TEST_KERNELS_16(cos, f16)

/* The conversions (half.h), scalar and array. */
__global__ void k_half_conv(const float *x, uint16_t *b, uint16_t *h, float *xb, float *xh, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        b[i] = repdl_f32_to_bf16(x[i]);
        h[i] = repdl_f32_to_f16(x[i]);
        xb[i] = repdl_bf16_to_f32(b[i]);
        xh[i] = repdl_f16_to_f32(h[i]);
    }
}
__global__ void k_half_conv_array(const float *x, uint16_t *b, uint16_t *h, float *xb, float *xh, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i * 64 < n) {
        size_t m = (size_t)(n - i * 64 < 64 ? n - i * 64 : 64), o = (size_t)i * 64;
        repdl_f32_to_bf16_array(m, x + o, b + o);
        repdl_f32_to_f16_array(m, x + o, h + o);
        repdl_bf16_to_f32_array(m, b + o, xb + o);
        repdl_f16_to_f32_array(m, h + o, xh + o);
    }
}

__global__ void k_fpenv(int *ok, float one) { *ok = repdl_fpenv_ok(one); }
