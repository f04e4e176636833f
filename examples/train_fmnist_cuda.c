/* SPDX-License-Identifier: MIT */
/* examples/train_fmnist_cuda.c: the CUDA backend of examples/train_fmnist.c
   (--device cuda), built only when nvcc is found (cuda/meson.build,
   target train_fmnist_cuda).

   Every operation is a repdl_cuda_* launcher of include/repdl/cuda.h, which
   gives the bits of the host function it mirrors, so a run on the GPU
   prints the same hashes as on the CPU.  Buffers are device memory; the
   legacy default stream orders everything; host <-> device copies are
   synchronous cudaMemcpy.  The weights are initialised on the host (the
   same repdl_rng_* calls) and uploaded; the minibatch is gathered on the
   host and uploaded each step.  Without a usable device,
   train_cuda_backend_init fails and train_fmnist exits with status 3. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include <repdl/conv2d.h>
#include <repdl/optim.h>
#include <repdl/pool.h>
#include <repdl/softmax.h>

#include <repdl/cuda.h>

#include "train_backend.h"

typedef struct cuda_ctx {
    char err[256];
} cuda_ctx;

static int cu_fail(cuda_ctx *c, const char *what, int status)
{
    snprintf(c->err, sizeof c->err, "%s: %s (cuda error %d)", what,
             repdl_status_string(status), repdl_cuda_last_cuda_error());
    return -1;
}

static int rt_fail(cuda_ctx *c, const char *what, cudaError_t e)
{
    snprintf(c->err, sizeof c->err, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

#define LAUNCH(c, call)                                           \
    do {                                                          \
        int s_ = (call);                                          \
        if (s_ != REPDL_OK) return cu_fail((c), #call, s_);  \
    } while (0)

static void *cuda_alloc(void *ctx, size_t bytes)
{
    cuda_ctx *c = (cuda_ctx *)ctx;
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) { rt_fail(c, "cudaMalloc", e); return NULL; }
    e = cudaMemset(p, 0, bytes ? bytes : 1);
    if (e != cudaSuccess) { rt_fail(c, "cudaMemset", e); cudaFree(p); return NULL; }
    return p;
}

static void cuda_release(void *ctx, void *p)
{
    (void)ctx;
    cudaFree(p);
}

static int cuda_put(void *ctx, void *dst, const void *src, size_t bytes)
{
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
    return e == cudaSuccess ? 0 : rt_fail((cuda_ctx *)ctx, "cudaMemcpy to the device", e);
}

static int cuda_get(void *ctx, void *dst, const void *src, size_t bytes)
{
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? 0 : rt_fail((cuda_ctx *)ctx, "cudaMemcpy from the device", e);
}

static int cuda_conv_fwd(void *ctx, const repdl_conv2d_shape *s, const float *x,
                         const float *w, const float *b, float *y)
{
    LAUNCH((cuda_ctx *)ctx, repdl_cuda_conv2d_forward_f32(s, x, w, b, y, NULL));
    return 0;
}

static int cuda_conv_bwd(void *ctx, const repdl_conv2d_shape *s, const float *x,
                         const float *w, const float *dy, float *dx, float *dw, float *db)
{
    LAUNCH((cuda_ctx *)ctx, repdl_cuda_conv2d_backward_f32(s, x, w, dy, dx, dw, db, NULL));
    return 0;
}

static int cuda_lin_fwd(void *ctx, size_t M, size_t K, size_t N, const float *x,
                        const float *W, const float *b, float *y)
{
    LAUNCH((cuda_ctx *)ctx, repdl_cuda_linear_forward_f32(M, K, N, x, W, b, y, NULL));
    return 0;
}

static int cuda_lin_bwd(void *ctx, size_t M, size_t K, size_t N, const float *x,
                        const float *W, const float *dy, float *dx, float *dW, float *db)
{
    LAUNCH((cuda_ctx *)ctx,
           repdl_cuda_linear_backward_f32(M, K, N, x, W, dy, dx, dW, db, NULL));
    return 0;
}

static int cuda_relu_fwd(void *ctx, size_t n, const float *x, float *y)
{
    LAUNCH((cuda_ctx *)ctx, repdl_cuda_relu_array_f32(n, x, y, NULL));
    return 0;
}

static int cuda_relu_bwd(void *ctx, size_t n, const float *x, const float *dy, float *dx)
{
    LAUNCH((cuda_ctx *)ctx, repdl_cuda_relu_backward_array_f32(n, x, dy, dx, NULL));
    return 0;
}

static int cuda_pool_fwd(void *ctx, const repdl_pool2d_shape *s, const float *x, float *y,
                         size_t *argmax)
{
    LAUNCH((cuda_ctx *)ctx, repdl_cuda_max_pool2d_forward_f32(s, x, y, argmax, NULL));
    return 0;
}

static int cuda_pool_bwd(void *ctx, const repdl_pool2d_shape *s, const size_t *argmax,
                         const float *dy, float *dx)
{
    LAUNCH((cuda_ctx *)ctx, repdl_cuda_max_pool2d_backward_f32(s, argmax, dy, dx, NULL));
    return 0;
}

static int cuda_xent(void *ctx, size_t rows, size_t cols, const float *logits,
                     const size_t *target, float *loss, float *dlogits)
{
    LAUNCH((cuda_ctx *)ctx, repdl_cuda_cross_entropy_f32(rows, cols, REPDL_REDUCTION_MEAN, logits,
                                                          target, loss,
                                                          dlogits, NULL));
    return 0;
}

static int cuda_sgd(void *ctx, size_t n, float *w, const float *g, float *mbuf,
                    const repdl_sgd_config *cfg, uint64_t step)
{
    LAUNCH((cuda_ctx *)ctx, repdl_cuda_sgd_step_f32(n, cfg, step, g, w, mbuf, NULL));
    return 0;
}

static const char *cuda_last_error(void *ctx) { return ((cuda_ctx *)ctx)->err; }

static void cuda_destroy(void *ctx) { free(ctx); }

int train_cuda_backend_init(train_backend *be, char *err, size_t errlen)
{
    int count = 0, st;
    cudaError_t e = cudaGetDeviceCount(&count);
    cuda_ctx *c;
    struct cudaDeviceProp prop;
    static char name[320];
    if (e != cudaSuccess || count == 0) {
        snprintf(err, errlen, "no CUDA device (cudaGetDeviceCount: %s, %d devices)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "no error", count);
        return -1;
    }
    st = repdl_cuda_check_device();
    if (st != REPDL_OK) {
        snprintf(err, errlen, "the device is not usable: %s (cuda error %d)",
                 repdl_status_string(st), repdl_cuda_last_cuda_error());
        return -1;
    }
    c = (cuda_ctx *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memset(be, 0, sizeof *be);
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        snprintf(name, sizeof name, "cuda (%s)", prop.name);
    else
        snprintf(name, sizeof name, "cuda");
    be->name = name;
    be->ctx = c;
    be->alloc = cuda_alloc;
    be->release = cuda_release;
    be->put = cuda_put;
    be->get = cuda_get;
    be->conv_fwd = cuda_conv_fwd;
    be->conv_bwd = cuda_conv_bwd;
    be->relu_fwd = cuda_relu_fwd;
    be->relu_bwd = cuda_relu_bwd;
    be->pool_fwd = cuda_pool_fwd;
    be->pool_bwd = cuda_pool_bwd;
    be->lin_fwd = cuda_lin_fwd;
    be->lin_bwd = cuda_lin_bwd;
    be->xent = cuda_xent;
    be->sgd = cuda_sgd;
    be->last_error = cuda_last_error;
    be->destroy = cuda_destroy;
    return 0;
}
