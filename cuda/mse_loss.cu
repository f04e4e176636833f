/* SPDX-License-Identifier: MIT */
/* cuda/mse_loss.cu: the mean squared error on the GPU, bit for bit the
   host's (include/repdl/mse_loss.h).

   Forward: the header's checks, then one thread per element writes the
   header's term s_i (repdl__mse_term) to a stream-ordered workspace,
   repdl_cuda_sum_f32 (cuda/reduce.cu: the canonical sum, repdl_sum_f32's
   bits) sums it into *loss, and one thread finishes it by the losses'
   rule (softmax.h's repdl__loss_finish, as cuda/nn_softmax_norm.cu's
   losses).  n == 0: *loss is that rule applied to the empty sum, -0.0.
   Backward: the header's g (repdl__mse_grad_scale) on the host, then one
   thread per element, each the header's repdl__mse_grad.  The kernels do
   no arithmetic of their own. */
#include <repdl/mse_loss.h>

#include "common.cuh"

namespace repdl_cuda {

enum { MSE_THREADS = 256 };

__global__ void __launch_bounds__(MSE_THREADS)
mse_term_kernel(size_t n, const float *x, const float *t, float *s)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        s[i] = repdl__mse_term(x[i], t[i]);
}

/* *loss = repdl__loss_finish(*loss, n, reduction); empty: from -0.0. */
__global__ void mse_finish_kernel(float *loss, size_t n, int reduction, int empty)
{
    float total = empty ? -0.0f : *loss;
    *loss = repdl__loss_finish(total, n, reduction);
}

__global__ void __launch_bounds__(MSE_THREADS)
mse_grad_kernel(size_t n, const float *x, const float *t, float g, float *dx)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dx[i] = repdl__mse_grad(x[i], t[i], g);
}

} // namespace repdl_cuda

using namespace repdl_cuda;

extern "C" int repdl_cuda_mse_loss_forward_f32(size_t n, int reduction, const float *x,
                                               const float *t, float *loss, void *stream)
{
    int st = repdl__mse_check(n, reduction, x, t, loss, 1);
    if (st != REPDL_OK) return st;
    REPDL_CUDA_TRY(device_ready());
    if (n == 0) return launch(mse_finish_kernel, 1, 1, stream, loss, (size_t)0, reduction, 1);
    size_t bytes = n * sizeof(float); /* fits: repdl__mse_check */
    if (overlap(loss, sizeof(float), x, bytes) || overlap(loss, sizeof(float), t, bytes))
        return REPDL_ERR_INVALID;
    cudaStream_t s = as_stream(stream);
    void *ws = NULL;
    cudaError_t e = workspace_alloc(&ws, bytes, s);
    if (e != cudaSuccess) return fail_alloc(e);
    float *w = (float *)ws;
    int rc = launch_fill(mse_term_kernel, n, MSE_THREADS, stream, n, x, t, w);
    if (rc == REPDL_OK) rc = repdl_cuda_sum_f32(n, w, loss, stream);
    if (rc == REPDL_OK) rc = launch(mse_finish_kernel, 1, 1, stream, loss, n, reduction, 0);
    e = workspace_free(ws, s);
    if (e != cudaSuccess && rc == REPDL_OK) rc = fail_cuda(e);
    return rc;
}

extern "C" int repdl_cuda_mse_loss_backward_f32(size_t n, int reduction, const float *x,
                                                const float *t, float dloss, float *dx,
                                                void *stream)
{
    int st = repdl__mse_check(n, reduction, x, t, dx, 0);
    if (st != REPDL_OK || n == 0) return st;
    float g = repdl__mse_grad_scale(dloss, n, reduction);
    return launch_fill(mse_grad_kernel, n, MSE_THREADS, stream, n, x, t, g, dx);
}
