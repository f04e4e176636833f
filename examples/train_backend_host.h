/* SPDX-License-Identifier: MIT */
/* examples/train_backend_host.h: the host backend of examples/train_fmnist.c.

   Calls repdl's headers, one call per operation on the buffers it is
   given (the whole batch, or with --threads N > 1 or under MPI one
   micro-batch of a worker: examples/train_fmnist.c, docs/train.md
   "Threads and MPI").  Every function is safe to call from several
   threads at once on different buffers (the context is only written on
   an error). */
#ifndef TRAIN_BACKEND_HOST_H
#define TRAIN_BACKEND_HOST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/activation.h>
#include <repdl/conv2d.h>
#include <repdl/linear.h>
#include <repdl/optim.h>
#include <repdl/pool.h>
#include <repdl/softmax.h>

#include "train_backend.h"

/* ---------------------------------------------------------------------
   The host backend
   --------------------------------------------------------------------- */
typedef struct host_ctx {
    const char *err;
} host_ctx;

static void *host_alloc(void *ctx, size_t bytes)
{
    (void)ctx;
    return calloc(bytes ? bytes : 1, 1);
}
static void host_release(void *ctx, void *p) { (void)ctx; free(p); }
static int host_put(void *ctx, void *dst, const void *src, size_t bytes)
{
    (void)ctx;
    memcpy(dst, src, bytes);
    return 0;
}
static int host_get(void *ctx, void *dst, const void *src, size_t bytes)
{
    (void)ctx;
    memcpy(dst, src, bytes);
    return 0;
}

/* ---- conv2d, linear: the library calls on the whole batch ---- */
static int host_conv_fwd(void *ctx, const repdl_conv2d_shape *s, const float *x,
                         const float *w, const float *b, float *y)
{
    host_ctx *c = (host_ctx *)ctx;
    int rc = repdl_conv2d_forward_f32(s, x, w, b, y);
    if (rc) c->err = "repdl_conv2d_forward_f32 failed";
    return rc;
}

static int host_conv_bwd(void *ctx, const repdl_conv2d_shape *s, const float *x,
                         const float *w, const float *dy, float *dx, float *dw, float *db)
{
    host_ctx *c = (host_ctx *)ctx;
    int rc = repdl_conv2d_backward_f32(s, x, w, dy, dx, dw, db);
    if (rc) c->err = "repdl_conv2d_backward_f32 failed";
    return rc;
}

static int host_lin_fwd(void *ctx, size_t M, size_t K, size_t N, const float *x,
                        const float *W, const float *b, float *y)
{
    host_ctx *c = (host_ctx *)ctx;
    int rc = repdl_linear_forward_f32(M, K, N, x, W, b, y);
    if (rc) c->err = "repdl_linear_forward_f32 failed";
    return rc;
}

static int host_lin_bwd(void *ctx, size_t M, size_t K, size_t N, const float *x,
                        const float *W, const float *dy, float *dx, float *dW, float *db)
{
    host_ctx *c = (host_ctx *)ctx;
    int rc = repdl_linear_backward_f32(M, K, N, x, W, dy, dx, dW, db);
    if (rc) c->err = "repdl_linear_backward_f32 failed (out of memory for its batch-order trees?)";
    return rc;
}

static int host_relu_fwd(void *ctx, size_t n, const float *x, float *y)
{
    (void)ctx;
    return repdl_relu_array_f32(n, x, y);
}
static int host_relu_bwd(void *ctx, size_t n, const float *x, const float *dy, float *dx)
{
    (void)ctx;
    return repdl_relu_backward_array_f32(n, x, dy, dx);
}
static int host_pool_fwd(void *ctx, const repdl_pool2d_shape *s, const float *x, float *y,
                         size_t *argmax)
{
    (void)ctx;
    return repdl_max_pool2d_forward_f32(s, x, y, argmax);
}
static int host_pool_bwd(void *ctx, const repdl_pool2d_shape *s, const size_t *argmax,
                         const float *dy, float *dx)
{
    (void)ctx;
    return repdl_max_pool2d_backward_f32(s, argmax, dy, dx);
}
static int host_xent(void *ctx, size_t rows, size_t cols, const float *logits,
                     const size_t *target, float *loss, float *dlogits)
{
    (void)ctx;
    return repdl_cross_entropy_f32(rows, cols, REPDL_REDUCTION_MEAN, logits, target, loss, dlogits);
}
static int host_sgd(void *ctx, size_t n, float *w, const float *g, float *mbuf,
                    const repdl_sgd_config *c, uint64_t step)
{
    (void)ctx;
    return repdl_sgd_step_f32(n, c, step, g, w, mbuf);
}
static const char *host_last_error(void *ctx)
{
    host_ctx *c = (host_ctx *)ctx;
    return c->err ? c->err : "unknown error";
}
static void host_destroy(void *ctx) { free(ctx); }

static int train_host_backend_init(train_backend *be)
{
    host_ctx *c = (host_ctx *)calloc(1, sizeof *c);
    if (!c) return -1;
    memset(be, 0, sizeof *be);
    be->name = "cpu";
    be->ctx = c;
    be->alloc = host_alloc;
    be->release = host_release;
    be->put = host_put;
    be->get = host_get;
    be->conv_fwd = host_conv_fwd;
    be->conv_bwd = host_conv_bwd;
    be->relu_fwd = host_relu_fwd;
    be->relu_bwd = host_relu_bwd;
    be->pool_fwd = host_pool_fwd;
    be->pool_bwd = host_pool_bwd;
    be->lin_fwd = host_lin_fwd;
    be->lin_bwd = host_lin_bwd;
    be->xent = host_xent;
    be->sgd = host_sgd;
    be->last_error = host_last_error;
    be->destroy = host_destroy;
    return 0;
}

#endif /* TRAIN_BACKEND_HOST_H */
