/* SPDX-License-Identifier: MIT */
/* repdl/linear.h: fully connected layer (PyTorch layout), forward and
   backward, as canonical matrix products (include/repdl/gemm.h).

     x [M x K] (M rows = the batch), W [N x K], b [N], y [M x N]
     y  = x W^T + b                repdl_linear_forward_f32
     dx = dy W, dW = dy^T x,       repdl_linear_backward_f32
     db = column sums of dy

   The orders (docs/canonical-order.md, "Matrix products"):
     y[m][n]  = chain over k ascending of (x[m][k], W[n][k]) from b[n]
                (or -0 when b == NULL): repdl_gemm_f32(0, 1, ...);
     dx[m][k] = chain over n ascending of (dy[m][n], W[n][k]) from -0;
     dW[n][k] = chain over m ascending of (dy[m][n], x[m][k]) from -0;
     db[n]    = fadd chain over m ascending of dy[m][n] from -0.
   "chain" is acc = fma(a, b, acc), one rounding per step (repdl__fmaf).
   Each output element depends only on its own row and column, so the
   result is the same for every batch size, thread count or machine.
   Outputs are overwritten (never accumulated); dx, dW, db may each be
   NULL (skipped).  Sizes 0 are allowed (nothing read, pointers may be
   NULL); K == 0 gives y = b (or -0), dx has no element; M == 0 gives
   dW = -0 and db = -0.  Every NaN output is 0x7fc00000.  Outputs must not
   overlap inputs. */
#ifndef REPDL_LINEAR_H
#define REPDL_LINEAR_H

#include "gemm.h"
REPDL_BEGIN_CODE

/* y = x W^T + b.  The status of repdl_gemm_f32 (x [M x K], W [N x K],
   y [M x N]: an extent that overflows is REPDL_ERR_OVERFLOW). */
REPDL_API repdl_status repdl_linear_forward_f32(size_t M, size_t K, size_t N, const float *x,
                                                const float *W, const float *b, float *y)
{
    return repdl_gemm_f32(0, 1, M, N, K, 1.0f, 0.0f, x, K, W, K, b, y, N);
}

/* db[n] = fadd chain over m ascending of dy[m][n], from -0.  Vectorizes
   over n (additions only: nothing to contract). */
REPDL_FN void repdl__colsum_f32(size_t M, size_t N, const float *dy, float *db)
{
    size_t m, n;
    for (n = 0; n < N; n++) db[n] = -0.0f;
    for (m = 0; m < M; m++) {
        const float *r = dy + m * N;
        for (n = 0; n < N; n++) db[n] = repdl__fadd(db[n], r[n]);
    }
    for (n = 0; n < N; n++) db[n] = repdl__canon(db[n]);
}

/* Every product is checked before the first is computed: on an error
   nothing is written. */
REPDL_API repdl_status repdl_linear_backward_f32(size_t M, size_t K, size_t N, const float *x,
                                                 const float *W, const float *dy, float *dx,
                                                 float *dW, float *db)
{
    repdl_status st;
    size_t t = M;
    if (repdl__size_mul(&t, N)) return REPDL_ERR_OVERFLOW;
    if (dx && (st = repdl__gemm_check(0, 0, M, K, N, dy, N, W, K, dx, K)) != REPDL_OK) return st;
    if (dW && (st = repdl__gemm_check(1, 0, N, K, M, dy, N, x, K, dW, K)) != REPDL_OK) return st;
    if (db && M && N && !dy) return REPDL_ERR_INVALID;
    /* dx [M x K] = dy [M x N] . W [N x K] */
    if (dx) repdl_gemm_f32(0, 0, M, K, N, 1.0f, 0.0f, dy, N, W, K, NULL, dx, K);
    /* dW [N x K] = dy^T [N x M] . x [M x K] */
    if (dW) repdl_gemm_f32(1, 0, N, K, M, 1.0f, 0.0f, dy, N, x, K, NULL, dW, K);
    if (db) repdl__colsum_f32(M, N, dy, db);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_LINEAR_H */
