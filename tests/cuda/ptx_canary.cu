/* SPDX-License-Identifier: MIT */
/* tests/cuda/ptx_canary.cu: kernels the PTX check must reject, compiled
   with different flags by tests/cuda/meson.build:
     --fmad=true vs --fmad=false: a*b + c written with plain operators is
       contracted into fma.rn.f32 under --fmad=true only, so the two PTX
       files differ;
     -ftz=true: the same arithmetic comes out with .ftz;
     -DCANARY_APPROX: CUDA's __expf is an approximate instruction. */
__global__ void canary(const float *a, const float *b, const float *c, float *y)
{
    unsigned i = threadIdx.x;
#if defined(CANARY_APPROX)
    y[i] = __expf(a[i]);
#else
    y[i] = a[i] * b[i] + c[i];
#endif
}
