/* SPDX-License-Identifier: MIT */
/* examples/train_backend_host.h: the host backend of examples/train_fmnist.c.

   Calls repdl's headers.  With --threads N > 1 it splits each operation
   into pieces whose outputs are disjoint and whose every output element is
   computed by the same chain as in the one-thread call (docs/train.md,
   "Threads"), so the bits cannot depend on N. */
#ifndef TRAIN_BACKEND_HOST_H
#define TRAIN_BACKEND_HOST_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <repdl/activation.h>
#include <repdl/conv2d.h>
#include <repdl/gemm_threads.h>
#include <repdl/linear.h>
#include <repdl/optim.h>
#include <repdl/pool.h>
#include <repdl/softmax.h>

#include "train_backend.h"

/* ---------------------------------------------------------------------
   The host backend
   --------------------------------------------------------------------- */
typedef struct host_ctx {
    int threads;
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

/* ---- a parallel for over [0, n): piece t gets [n t / T, n (t+1) / T) ---- */
typedef int (*host_piece_fn)(void *arg, size_t lo, size_t hi);
typedef struct host_piece {
    host_piece_fn fn;
    void *arg;
    size_t lo, hi;
    int rc;
} host_piece;

static void *host_piece_run(void *p)
{
    host_piece *q = (host_piece *)p;
    q->rc = q->fn(q->arg, q->lo, q->hi);
    return NULL;
}

static int host_parallel(int threads, size_t n, host_piece_fn fn, void *arg)
{
    host_piece pc[64];
    pthread_t th[64];
    int started[64], T = threads, t, rc = 0;
    if ((size_t)T > n) T = (int)n;
    if (T > 64) T = 64;
    if (T <= 1) return n ? fn(arg, 0, n) : 0;
    for (t = 0; t < T; t++) {
        pc[t].fn = fn;
        pc[t].arg = arg;
        pc[t].lo = n * (size_t)t / (size_t)T;
        pc[t].hi = n * (size_t)(t + 1) / (size_t)T;
        pc[t].rc = 0;
        started[t] = 0;
    }
    for (t = 1; t < T; t++)
        started[t] = pthread_create(&th[t], NULL, host_piece_run, &pc[t]) == 0;
    for (t = 1; t < T; t++) /* a piece whose thread did not start runs here */
        if (!started[t]) host_piece_run(&pc[t]);
    host_piece_run(&pc[0]);
    for (t = 1; t < T; t++)
        if (started[t]) pthread_join(th[t], NULL);
    for (t = 0; t < T; t++)
        if (pc[t].rc && !rc) rc = pc[t].rc;
    return rc;
}

/* ---- conv2d ----
   forward, dx: image i's outputs depend only on image i, so images are
   split between threads (each piece is the same call on fewer images).
   dw, db: output channel o's chains run over all images but touch only
   channel o of dy and row o of w, so channels are split: each piece gets
   its channels' dy copied into a contiguous [n][oc_piece][P] buffer (a
   copy: no arithmetic) and makes the same call with oc = oc_piece. */
typedef struct conv_arg {
    const repdl_conv2d_shape *s;
    const float *x, *w, *b, *dy;
    float *y, *dx, *dw, *db;
} conv_arg;

static int conv_fwd_piece(void *p, size_t lo, size_t hi)
{
    conv_arg *a = (conv_arg *)p;
    repdl_conv2d_shape s = *a->s;
    size_t in = s.c * s.h * s.w, out = s.oc * repdl_conv2d_out_h(a->s) * repdl_conv2d_out_w(a->s);
    s.n = hi - lo;
    return repdl_conv2d_forward_f32(&s, a->x + lo * in, a->w, a->b, a->y + lo * out);
}

static int conv_dx_piece(void *p, size_t lo, size_t hi)
{
    conv_arg *a = (conv_arg *)p;
    repdl_conv2d_shape s = *a->s;
    size_t in = s.c * s.h * s.w, out = s.oc * repdl_conv2d_out_h(a->s) * repdl_conv2d_out_w(a->s);
    s.n = hi - lo;
    return repdl_conv2d_backward_f32(&s, a->x + lo * in, a->w, a->dy + lo * out,
                                     a->dx + lo * in, NULL, NULL);
}

static int conv_dw_piece(void *p, size_t lo, size_t hi)
{
    conv_arg *a = (conv_arg *)p;
    repdl_conv2d_shape s = *a->s;
    size_t P = repdl_conv2d_out_h(a->s) * repdl_conv2d_out_w(a->s), CK = s.c * s.kh * s.kw;
    size_t noc = hi - lo, i;
    float *dy = (float *)malloc(s.n * noc * P * sizeof(float) + 1);
    int rc;
    if (!dy) return -2;
    for (i = 0; i < s.n; i++)
        memcpy(dy + i * noc * P, a->dy + (i * s.oc + lo) * P, noc * P * sizeof(float));
    s.oc = noc;
    rc = repdl_conv2d_backward_f32(&s, a->x, a->w + lo * CK, dy, NULL,
                                   a->dw ? a->dw + lo * CK : NULL, a->db ? a->db + lo : NULL);
    free(dy);
    return rc;
}

static int host_conv_fwd(void *ctx, const repdl_conv2d_shape *s, const float *x,
                         const float *w, const float *b, float *y)
{
    host_ctx *c = (host_ctx *)ctx;
    conv_arg a;
    int rc;
    memset(&a, 0, sizeof a);
    a.s = s; a.x = x; a.w = w; a.b = b; a.y = y;
    rc = c->threads <= 1 ? repdl_conv2d_forward_f32(s, x, w, b, y)
                         : host_parallel(c->threads, s->n, conv_fwd_piece, &a);
    if (rc) c->err = "repdl_conv2d_forward_f32 failed";
    return rc;
}

static int host_conv_bwd(void *ctx, const repdl_conv2d_shape *s, const float *x,
                         const float *w, const float *dy, float *dx, float *dw, float *db)
{
    host_ctx *c = (host_ctx *)ctx;
    conv_arg a;
    int rc = 0;
    memset(&a, 0, sizeof a);
    a.s = s; a.x = x; a.w = w; a.dy = dy; a.dx = dx; a.dw = dw; a.db = db;
    if (c->threads <= 1) rc = repdl_conv2d_backward_f32(s, x, w, dy, dx, dw, db);
    else {
        if (dx) rc = host_parallel(c->threads, s->n, conv_dx_piece, &a);
        if (!rc && (dw || db)) rc = host_parallel(c->threads, s->oc, conv_dw_piece, &a);
    }
    if (rc) c->err = "repdl_conv2d_backward_f32 failed";
    return rc;
}

/* ---- linear: one thread repdl_linear_*, more: repdl_gemm_threads_f32 on
   the same products (linear.h defines linear as those gemm calls) ---- */
static int host_lin_fwd(void *ctx, size_t M, size_t K, size_t N, const float *x,
                        const float *W, const float *b, float *y)
{
    host_ctx *c = (host_ctx *)ctx;
    if (c->threads <= 1) repdl_linear_forward_f32(M, K, N, x, W, b, y);
    else if (repdl_gemm_threads_f32(0, 1, M, N, K, c->threads, 1.0f, 0.0f, x, K, W, K, b, y,
                                    N)) {
        c->err = "repdl_gemm_threads_f32 failed";
        return -1;
    }
    return 0;
}

static int host_lin_bwd(void *ctx, size_t M, size_t K, size_t N, const float *x,
                        const float *W, const float *dy, float *dx, float *dW, float *db)
{
    host_ctx *c = (host_ctx *)ctx;
    if (c->threads <= 1) {
        repdl_linear_backward_f32(M, K, N, x, W, dy, dx, dW, db);
        return 0;
    }
    if ((dx && repdl_gemm_threads_f32(0, 0, M, K, N, c->threads, 1.0f, 0.0f, dy, N, W, K, NULL,
                                      dx, K)) ||
        (dW && repdl_gemm_threads_f32(1, 0, N, K, M, c->threads, 1.0f, 0.0f, dy, N, x, K, NULL,
                                      dW, K))) {
        c->err = "repdl_gemm_threads_f32 failed";
        return -1;
    }
    if (db) repdl_linear_backward_f32(M, K, N, x, W, dy, NULL, NULL, db);
    return 0;
}

static int host_relu_fwd(void *ctx, size_t n, const float *x, float *y)
{
    (void)ctx;
    repdl_relu_array_f32(n, x, y);
    return 0;
}
static int host_relu_bwd(void *ctx, size_t n, const float *x, const float *dy, float *dx)
{
    (void)ctx;
    repdl_relu_backward_array_f32(n, x, dy, dx);
    return 0;
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
    repdl_sgd_step_f32(n, c, step, g, w, mbuf);
    return 0;
}
static const char *host_last_error(void *ctx)
{
    host_ctx *c = (host_ctx *)ctx;
    return c->err ? c->err : "unknown error";
}
static void host_destroy(void *ctx) { free(ctx); }

static int train_host_backend_init(train_backend *be, int threads)
{
    host_ctx *c = (host_ctx *)calloc(1, sizeof *c);
    if (!c) return -1;
    c->threads = threads;
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
