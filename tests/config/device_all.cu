/* SPDX-License-Identifier: MIT */
// tests/config/device_all.cu: every repdl elementary function, scalar and
// array form, called from device code.  Compiling it with nvcc proves the
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

__global__ void k_fpenv(int *ok, float one) { *ok = repdl_fpenv_ok(one); }
