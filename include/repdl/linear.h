/* SPDX-License-Identifier: MIT */
/* repdl/linear.h: fully connected layer (PyTorch layout), forward and
   backward, as canonical matrix products (include/repdl/gemm.h).

     x [M x K] (M rows = the batch), W [N x K], b [N], y [M x N]
     y  = x W^T + b                repdl_linear_forward_f32
     dx = dy W, dW = dy^T x,       repdl_linear_backward_f32
     db = column sums of dy

   The orders (docs/canonical-order.md, "Matrix products" and "The batch
   order"):
     y[m][n]  = chain over k ascending of (x[m][k], W[n][k]) from b[n]
                (or -0 when b == NULL): repdl_gemm_f32(0, 1, ...);
     dx[m][k] = chain over n ascending of (dy[m][n], W[n][k]) from -0;
     dW[n][k] = the buddy tree over the micro-batches g (REPDL_MICROBATCH
                rows each, the last one short) of
                  chain over m in g ascending of (dy[m][n], x[m][k]) from -0;
     db[n]    = the buddy tree over the micro-batches g of
                  fadd chain over m in g ascending of dy[m][n] from -0.
   "chain" is acc = fma(a, b, acc), one rounding per step (repdl__fmaf).
   y and dx: each output element depends only on its own row and column,
   so the result is the same for every batch size.  dW and db: for
   M <= REPDL_MICROBATCH one chain; above, the micro-batch values can be
   computed anywhere (threads, processes, GPUs: a call on the rows of one
   micro-batch gives its value) and combined by the tree
   (include/repdl/reduce_units.h, repdl/mpi.h) to the same bits.
   Outputs are overwritten (never accumulated); dx, dW, db may each be
   NULL (skipped).  Sizes 0 are allowed (nothing read, pointers may be
   NULL); K == 0 gives y = b (or -0), dx has no element; M == 0 gives
   dW = -0 and db = -0.  Every NaN output is 0x7fc00000.  Outputs must not
   overlap inputs.  dW, db with M > REPDL_MICROBATCH need scratch for the
   tree (ceil(log2 G) + 2 vectors of dW's and db's sizes, G micro-batches,
   malloc): when it cannot be had the call returns REPDL_ERR_NOMEM and
   writes nothing (the out-of-memory rule of the batch order,
   docs/canonical-order.md). */
#ifndef REPDL_LINEAR_H
#define REPDL_LINEAR_H

#include "detail/accum.h"
#include "gemm.h"
REPDL_BEGIN_CODE

/* y = x W^T + b.  The status of repdl_gemm_f32 (x [M x K], W [N x K],
   y [M x N]: an extent that overflows is REPDL_ERR_OVERFLOW). */
REPDL_API repdl_status repdl_linear_forward_f32(size_t M, size_t K, size_t N, const float *x,
                                                const float *W, const float *b, float *y)
{
    REPDL__FPENV_CHECK();
    return repdl_gemm_f32(0, 1, M, N, K, 1.0f, 0.0f, x, K, W, K, b, y, N);
}

/* db[n] = fadd chain over m ascending of dy[m][n], from -0 (one
   micro-batch; no canonicalisation).  Vectorizes over n (additions only:
   nothing to contract). */
REPDL_FN void repdl__colsum_chain_f32(size_t M, size_t N, const float *dy, float *db)
{
    size_t m, n;
    for (n = 0; n < N; n++) db[n] = -0.0f;
    for (m = 0; m < M; m++) {
        const float *r = dy + m * N;
        for (n = 0; n < N; n++) db[n] = repdl__fadd(db[n], r[n]);
    }
}

/* dW [N x K] (kind 0) or db [N] (kind 1) in the batch order, M > 0: one
   micro-batch, its chain; more, the tree t (V = the output's size, G =
   repdl__mb_count(M) units) over the chains of the micro-batches. */
REPDL_FN void repdl__linear_batch_f32(int kind, size_t M, size_t K, size_t N, const float *x,
                                      const float *dy, repdl__vtree *t, float *out)
{
    size_t G = repdl__mb_count(M), g, n;
    if (G <= 1) { /* one micro-batch: its chain */
        if (kind) {
            repdl__colsum_chain_f32(M, N, dy, out);
            for (n = 0; n < N; n++) out[n] = repdl__canon(out[n]);
        } else {
            repdl_gemm_f32(1, 0, N, K, M, 1.0f, 0.0f, dy, N, x, K, NULL, out, K);
        }
        return;
    }
    for (g = 0; g < G; g++) {
        size_t m0 = g * REPDL_MICROBATCH, len = repdl__mb_end(M, m0) - m0;
        float *d = repdl__vtree_dest(t, 0);
        if (kind) repdl__colsum_chain_f32(len, N, dy + m0 * N, d);
        else
            repdl__gemm_core_f32(1, 0, N, K, len, dy + m0 * N, N, x + m0 * K, K, NULL, NULL, 0,
                                 1.0f, 0.0f, d, K);
        repdl__vtree_push(t, 0);
    }
    repdl__vtree_root(t, out);
}

/* Every product is checked, and the trees' scratch taken, before the
   first is computed: on an error nothing is written. */
REPDL_API repdl_status repdl_linear_backward_f32(size_t M, size_t K, size_t N, const float *x,
                                                 const float *W, const float *dy, float *dx,
                                                 float *dW, float *db)
{
    REPDL__FPENV_CHECK();
    repdl_status st;
    size_t t = M, G = repdl__mb_count(M);
    repdl__vtree tw, tb;
    if (repdl__size_mul(&t, N)) return REPDL_ERR_OVERFLOW;
    t = 1;   /* db: N floats, written (-0) even when M = 0 */
    if (db && repdl__size_mul(&t, N)) return REPDL_ERR_OVERFLOW;
    if (dx && (st = repdl__gemm_check(0, 0, M, K, N, dy, N, W, K, dx, K)) != REPDL_OK) return st;
    if (dW && (st = repdl__gemm_check(1, 0, N, K, M, dy, N, x, K, dW, K)) != REPDL_OK) return st;
    if (db && M && N && !dy) return REPDL_ERR_INVALID;
    /* the trees over micro-batches (N K fits: repdl__gemm_check) */
    if (repdl__vtree_init(&tw, dW && G > 1 ? N * K : 0, G)) return REPDL_ERR_NOMEM;
    if (repdl__vtree_init(&tb, db && G > 1 ? N : 0, G)) {
        repdl__vtree_free(&tw);
        return REPDL_ERR_NOMEM;
    }
    /* dx [M x K] = dy [M x N] . W [N x K] */
    if (dx) repdl_gemm_f32(0, 0, M, K, N, 1.0f, 0.0f, dy, N, W, K, NULL, dx, K);
    /* dW [N x K]: the tree over micro-batches of dy_g^T [N x mb] . x_g [mb x K] */
    if (dW && N && K) {
        if (M == 0)
            for (t = 0; t < N * K; t++) dW[t] = -0.0f;
        else repdl__linear_batch_f32(0, M, K, N, x, dy, &tw, dW);
    }
    if (db && N) {
        if (M == 0)
            for (t = 0; t < N; t++) db[t] = -0.0f;
        else repdl__linear_batch_f32(1, M, K, N, x, dy, &tb, db);
    }
    repdl__vtree_free(&tw);
    repdl__vtree_free(&tb);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_LINEAR_H */
