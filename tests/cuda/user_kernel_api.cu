/* SPDX-License-Identifier: MIT */
/* tests/cuda/user_kernel_api.cu: a user's kernels that call every public
   repdl function that is callable on the device (every REPDL_API of
   include/repdl/ but repdl_status_string and the shape helpers, which do
   no float arithmetic), compiled to PTX under nvcc's default flags,
   --fmad=false, -ftz=true and -use_fast_math (tests/cuda/meson.build).
   tests/cuda/check_ptx.sh requires the four PTX files to be identical and
   free of .ftz and approx (cuda-ptx-caller-flags, docs/flags.md).
   user_kernel_flags.cu covers the per-element functions; this file the
   array, reduction, random, softmax, norm, optimiser, pool, gemm and conv
   functions.  The kernels do no float arithmetic of their own, so any
   difference would be repdl's.  Compiled only, never run. */
#include <repdl/repdl.h>

#define REPDL_TEST_TID ((size_t)blockIdx.x * blockDim.x + threadIdx.x)

__global__ void k_arrays(size_t n, const float *x, const float *dy, float *y, float *dx) {
    repdl_exp_array_f32(n, x, y); repdl_log_array_f32(n, x, y); repdl_tanh_array_f32(n, x, y);
    repdl_sqrt_array_f32(n, x, y); repdl_sigmoid_array_f32(n, x, y);
    repdl_relu_array_f32(n, x, y); repdl_relu_backward_array_f32(n, x, dy, dx);
    repdl_sigmoid_backward_array_f32(n, x, dy, dx); repdl_silu_array_f32(n, x, y);
    repdl_silu_backward_array_f32(n, x, dy, dx); repdl_gelu_array_f32(n, x, y);
    repdl_gelu_backward_array_f32(n, x, dy, dx); repdl_gelu_tanh_array_f32(n, x, y);
    repdl_gelu_tanh_backward_array_f32(n, x, dy, dx); repdl_softplus_array_f32(n, x, y);
    repdl_softplus_backward_array_f32(n, x, dy, dx);
    repdl_rsqrt_array_f32(n, x, y); repdl_sin_array_f32(n, x, y); repdl_cos_array_f32(n, x, y);
}
__global__ void k_arrays_16(size_t n, const uint16_t *x, const float *xf, uint16_t *y, float *yf) {
    repdl_exp_array_bf16(n, x, y); repdl_exp_array_f16(n, x, y);
    repdl_log_array_bf16(n, x, y); repdl_log_array_f16(n, x, y);
    repdl_tanh_array_bf16(n, x, y); repdl_tanh_array_f16(n, x, y);
    repdl_sqrt_array_bf16(n, x, y); repdl_sqrt_array_f16(n, x, y);
    repdl_sigmoid_array_bf16(n, x, y); repdl_sigmoid_array_f16(n, x, y);
    repdl_rsqrt_array_bf16(n, x, y); repdl_rsqrt_array_f16(n, x, y);
    repdl_sin_array_bf16(n, x, y); repdl_sin_array_f16(n, x, y);
    repdl_cos_array_bf16(n, x, y); repdl_cos_array_f16(n, x, y);
    repdl_erf_array_bf16(n, x, y); repdl_erf_array_f16(n, x, y);
    repdl_silu_array_bf16(n, x, y); repdl_silu_array_f16(n, x, y);
    repdl_softplus_array_bf16(n, x, y); repdl_softplus_array_f16(n, x, y);
    repdl_gelu_array_bf16(n, x, y); repdl_gelu_array_f16(n, x, y);
    repdl_gelu_tanh_array_bf16(n, x, y); repdl_gelu_tanh_array_f16(n, x, y);
    repdl_f32_to_bf16_array(n, xf, y); repdl_f32_to_f16_array(n, xf, y);
    repdl_bf16_to_f32_array(n, x, yf); repdl_f16_to_f32_array(n, x, yf);
}
__global__ void k_elem(size_t n, float p, const float *a, const float *b, float *y, uint8_t *mask) {
    repdl_add_f32(n, a, b, y); repdl_mul_f32(n, a, b, y); repdl_scale_f32(n, p, a, y);
    repdl_dropout_forward_range_f32(n, p, 1, 2, REPDL_TEST_TID, a, y, mask);
    repdl_dropout_forward_f32(n, p, 1, 2, a, y, mask);
    repdl_dropout_backward_f32(n, p, mask, a, y);
}
__global__ void k_reduce(size_t n, ptrdiff_t inc, const float *x, const float *w, float *y, size_t *ix, repdl_sum_state *st) {
    y[0] = repdl_sum_partial_f32(REPDL_TEST_TID, n, x); y[1] = repdl_sum_combine_f32(n, x);
    repdl_sum_state_init(st); repdl_sum_state_push(st, 0, n, x[0]); y[2] = repdl_sum_state_result(st);
    y[3] = repdl_dot_strided_f32(n, x, inc, w, inc); y[4] = repdl_sumsq_f32(n, x);
    y[5] = repdl_sumsq_strided_f32(n, x, inc); y[6] = repdl_norm2_f32(n, x);
    y[7] = repdl_norm2_strided_f32(n, x, inc); y[8] = repdl_sum_strided_f32(n, x, inc);
    y[9] = repdl_mean_f32(n, x); y[10] = repdl_mean_strided_f32(n, x, inc);
    y[11] = repdl_var_strided_f32(n, 1, x, inc); y[12] = repdl_var_f32(n, 1, x);
    y[13] = repdl_sum_f32(n, x); y[14] = repdl_dot_f32(n, x, w);
    repdl_sum_rows_f32(4, n, x, n, y + 20); repdl_dot_rows_f32(4, n, x, n, w, n, y + 24);
    repdl_sumsq_rows_f32(4, n, x, n, y + 28); repdl_norm2_rows_f32(4, n, x, n, y + 32);
    repdl_mean_rows_f32(4, n, x, n, y + 36); repdl_var_rows_f32(4, n, 1, x, n, y + 40);
}
__global__ void k_minmax(size_t n, ptrdiff_t inc, const float *x, float *y, size_t *ix) {
    y[0] = repdl_max_strided_f32(n, x, inc); y[1] = repdl_min_strided_f32(n, x, inc);
    ix[0] = repdl_argmax_strided_f32(n, x, inc); ix[1] = repdl_argmin_strided_f32(n, x, inc);
    y[2] = repdl_max_f32(n, x); y[3] = repdl_min_f32(n, x);
    ix[2] = repdl_argmax_f32(n, x); ix[3] = repdl_argmin_f32(n, x);
    repdl_argmax_merge_f32(x[1], 1, y + 4, ix + 4); repdl_argmin_merge_f32(x[2], 2, y + 5, ix + 5);
    repdl_max_rows_f32(4, n, x, n, y + 8); repdl_min_rows_f32(4, n, x, n, y + 12);
    repdl_argmax_rows_f32(4, n, x, n, ix + 8); repdl_argmin_rows_f32(4, n, x, n, ix + 12);
    y[6] = repdl_max2_f32(x[0], x[1]); y[7] = repdl_min2_f32(x[0], x[1]);
}
__global__ void k_rng(size_t n, float lo, float hi, float *y, uint32_t *perm, const uint32_t *c, const uint32_t *k, uint32_t *o) {
    repdl_philox4x32_10(c, k, o);
    perm[0] = repdl_rng_u32(1, 2, REPDL_TEST_TID); y[0] = repdl_rng_uniform_f32(1, 2, REPDL_TEST_TID); y[1] = repdl_rng_normal_f32(1, 2, REPDL_TEST_TID);
    repdl_rng_uniform_fill_range_f32(n, 1, 2, REPDL_TEST_TID, lo, hi, y); repdl_rng_uniform_fill_f32(n, 1, 2, lo, hi, y);
    repdl_rng_normal_fill_range_f32(n, 1, 2, REPDL_TEST_TID, lo, hi, y); repdl_rng_normal_fill_f32(n, 1, 2, lo, hi, y);
    repdl_rng_permutation(n, 1, 2, perm);
}
__global__ void k_softmax(size_t r, size_t c, const float *x, const float *dy, float *y, float *dx, const size_t *t, float *loss) {
    repdl_softmax_f32(r, c, x, y); repdl_log_softmax_f32(r, c, x, y);
    repdl_softmax_backward_f32(r, c, y, dy, dx); repdl_log_softmax_backward_f32(r, c, y, dy, dx);
    repdl_cross_entropy_f32(r, c, 1, x, t, loss, dx); repdl_nll_loss_f32(r, c, 1, x, t, loss, dx);
}
__global__ void k_optim(size_t n, const repdl_sgd_config *sc, const repdl_adam_config *ac, repdl_adam_state *as,
                        const float *g, float *w, float *m, float *v) {
    repdl_sgd_step_f32(n, sc, 3, g, w, m);
    repdl_adam_state_init(as); repdl_adam_begin_step(as, ac); repdl_adam_step_f32(n, ac, as, g, w, m, v);
}
__global__ void k_pool(const repdl_pool2d_shape *s, const float *x, float *y, size_t *am, float *dx) {
    repdl_max_pool2d_forward_f32(s, x, y, am); repdl_max_pool2d_backward_f32(s, am, x, dx);
    repdl_avg_pool2d_forward_f32(s, 1, x, y); repdl_avg_pool2d_backward_f32(s, 0, x, dx);
}
__global__ void k_norm(size_t r, size_t c, float eps, const float *x, const float *g, const float *b, float *y,
                       float *mean, float *rstd, float *dx, float *dg, float *db) {
    repdl_layer_norm_forward_f32(r, c, eps, x, g, b, y, mean, rstd);
    repdl_layer_norm_backward_f32(r, c, x, g, mean, rstd, b, dx, dg, db);
    repdl_rms_norm_forward_f32(r, c, eps, x, g, y, rstd);
    repdl_rms_norm_backward_f32(r, c, x, g, rstd, b, dx, dg);
    repdl_batch_norm_forward_train_f32(r, c, 4, eps, 0.1f, x, g, b, mean, rstd, y, dx, dg);
    repdl_batch_norm_forward_infer_f32(r, c, 4, eps, x, g, b, mean, rstd, y);
    repdl_batch_norm_backward_f32(r, c, 4, x, g, mean, rstd, b, dx, dg, db);
}
__global__ void k_gemm(size_t M, size_t N, size_t K, const float *A, const float *B, const float *b, float *C, float *d) {
    repdl_gemm_f32(0, 1, M, N, K, 1.0f, 0.5f, A, K, B, K, b, C, N);
    repdl_linear_forward_f32(M, K, N, A, B, b, C);
    repdl_linear_backward_f32(M, K, N, A, B, C, d, d, d);
}
__global__ void k_conv(const repdl_conv2d_shape *s, const float *x, const float *w, const float *b, float *y, float *d) {
    repdl_conv2d_forward_f32(s, x, w, b, y); repdl_conv2d_backward_f32(s, x, w, y, d, d, d);
}
__global__ void k_misc(size_t b, size_t n, float *y, int *o, size_t *z)
{
    o[0] = repdl_fpenv_ok(y[0]);
    o[1] = repdl_sum_block_ok(b, n);
    z[0] = repdl_sum_block_size(b, n);
    z[1] = (size_t)repdl_rng_uniform_blocks(n);
    z[2] = (size_t)repdl_rng_normal_blocks(n);
}
