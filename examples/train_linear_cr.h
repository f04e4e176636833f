/* SPDX-License-Identifier: MIT */
/* examples/train_linear_cr.h: the fully connected layer of the training
   examples under --gemm cr, every product correctly rounded
   (repdl_gemm_cr_f32, include/repdl/gemm_cr.h).

     x [M x K], W [N x K], b [N], y [M x N] (repdl/linear.h's layout)
     y[m][n]  = RN(b[n] + sum_k x[m][k] W[n][k])      (b NULL: no term)
     dx[m][k] = RN(sum_n dy[m][n] W[n][k])
     dW[n][k] = RN(sum_m dy[m][n] x[m][k])
     db[n]    = RN(sum_m dy[m][n])                     (the product dy^T 1)

   Each output is the rounding of an exact sum, so it does not depend on
   any order: the M rows given are summed at once (one rounding), whatever
   M is.  The examples call these on one micro-batch (train_fmnist.c: 16
   images; train_gpt.c: one sequence) and add the micro-batches' gradients
   by the data-parallel step's buddy tree, as they do for the FMA chain.
   dx, dW, db may be NULL (skipped).  Returns a repdl_status. */
#ifndef TRAIN_LINEAR_CR_H
#define TRAIN_LINEAR_CR_H

#include <stdlib.h>

#include <repdl/gemm_cr.h>

/* A measuring hook, called with every product's arguments before it is
   computed (bench/linalg/gemm_cr_slices.cpp defines it; nothing by
   default). */
#ifndef TRAIN_LINEAR_CR_HOOK
#define TRAIN_LINEAR_CR_HOOK(ta, tb, M, N, K, A, lda, B, ldb, bias) ((void)0)
#endif

static repdl_status train_gemm_cr(int ta, int tb, size_t M, size_t N, size_t K, const float *A,
                                  size_t lda, const float *B, size_t ldb, const float *bias,
                                  float *C, size_t ldc)
{
    TRAIN_LINEAR_CR_HOOK(ta, tb, M, N, K, A, lda, B, ldb, bias);
    return repdl_gemm_cr_f32(ta, tb, M, N, K, A, lda, B, ldb, bias, C, ldc);
}

static repdl_status train_linear_cr_forward(size_t M, size_t K, size_t N, const float *x,
                                            const float *W, const float *b, float *y)
{
    return train_gemm_cr(0, 1, M, N, K, x, K, W, K, b, y, N);
}

static repdl_status train_linear_cr_backward(size_t M, size_t K, size_t N, const float *x,
                                             const float *W, const float *dy, float *dx,
                                             float *dW, float *db)
{
    repdl_status st = REPDL_OK;
    if (dx) st = train_gemm_cr(0, 0, M, K, N, dy, N, W, K, NULL, dx, K);
    if (st == REPDL_OK && dW) st = train_gemm_cr(1, 0, N, K, M, dy, N, x, K, NULL, dW, K);
    if (st == REPDL_OK && db) {
        /* the column sums as the product dy^T [M x 1] of ones */
        float *one = (float *)malloc((M ? M : 1) * sizeof(float));
        size_t m;
        if (!one) return REPDL_ERR_NOMEM;
        for (m = 0; m < M; m++) one[m] = 1.0f;
        st = train_gemm_cr(1, 0, N, 1, M, dy, N, one, 1, NULL, db, 1);
        free(one);
    }
    return st;
}

#endif /* TRAIN_LINEAR_CR_H */
