/* SPDX-License-Identifier: MIT */
/* examples/train_backend.h: where examples/train_fmnist.c computes.

   A backend is a table of the operations the training loop uses, on
   buffers in its own memory: the host backend (train_backend_host.h)
   calls repdl's headers, the CUDA backend (train_fmnist_cuda.c, built
   only when nvcc is found) the repdl_cuda_* launchers. */
#ifndef TRAIN_BACKEND_H
#define TRAIN_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include <repdl/conv2d.h>
#include <repdl/optim.h>
#include <repdl/pool.h>

typedef struct train_backend {
    const char *name;
    void *ctx;
    /* zero-filled buffer of `bytes` in backend memory, NULL on failure */
    void *(*alloc)(void *ctx, size_t bytes);
    void (*release)(void *ctx, void *p);
    int (*put)(void *ctx, void *dst, const void *host_src, size_t bytes);
    int (*get)(void *ctx, void *host_dst, const void *src, size_t bytes);
    int (*conv_fwd)(void *ctx, const repdl_conv2d_shape *s, const float *x, const float *w,
                    const float *b, float *y);
    int (*conv_bwd)(void *ctx, const repdl_conv2d_shape *s, const float *x, const float *w,
                    const float *dy, float *dx, float *dw, float *db);
    int (*relu_fwd)(void *ctx, size_t n, const float *x, float *y);
    int (*relu_bwd)(void *ctx, size_t n, const float *x, const float *dy, float *dx);
    int (*pool_fwd)(void *ctx, const repdl_pool2d_shape *s, const float *x, float *y,
                    size_t *argmax);
    int (*pool_bwd)(void *ctx, const repdl_pool2d_shape *s, const size_t *argmax,
                    const float *dy, float *dx);
    int (*lin_fwd)(void *ctx, size_t M, size_t K, size_t N, const float *x, const float *W,
                   const float *b, float *y);
    int (*lin_bwd)(void *ctx, size_t M, size_t K, size_t N, const float *x, const float *W,
                   const float *dy, float *dx, float *dW, float *db);
    /* mean cross-entropy into *loss (backend memory) and d(loss)/d(logits) */
    int (*xent)(void *ctx, size_t rows, size_t cols, const float *logits,
                const size_t *target, float *loss, float *dlogits);
    int (*sgd)(void *ctx, size_t n, float *w, const float *g, float *mbuf,
               const repdl_sgd_config *c, uint64_t step);
    const char *(*last_error)(void *ctx);
    void (*destroy)(void *ctx);
} train_backend;

/* Defined in train_fmnist_cuda.c when built with CUDA; otherwise the stub
   below.  Returns 0, or nonzero with a reason in err. */
int train_cuda_backend_init(train_backend *be, char *err, size_t errlen);


#endif /* TRAIN_BACKEND_H */
