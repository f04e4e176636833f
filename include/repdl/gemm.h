/* repdl/gemm.h: reproducible single-precision matrix product (GEMM).

     repdl_gemm_f32(transA, transB, M, N, K, alpha, A, lda, B, ldb, bias,
                    beta, C, ldc);
     C = alpha * (op(A) op(B) [+ bias]) + beta * C

   op(A) is M x K (A, or A^T when transA != 0), op(B) is K x N, row-major,
   leading dimensions in elements: opA[i][k] = transA ? A[k*lda + i] :
   A[i*lda + k], opB[k][j] = transB ? B[j*ldb + k] : B[k*ldb + j].

   The canonical order (docs/canonical-order.md, "Matrix products"), for
   every C[i][j]:
     acc = bias ? bias[j] : -0.0f;
     for (k = 0; k < K; k++) acc = fma(opA[i][k], opB[k][j], acc);
     r = (alpha == 1.0f) ? acc : RN(alpha * acc);
     if (beta != 0.0f) r = fma(beta, C_old[i][j], r);   (beta == 0: C not read)
     C[i][j] = canonical(r);                             (NaN -> 0x7fc00000)
   fma is repdl__fmaf (one rounding, the same bits on every target).  The
   chain is never split (no split-K, no partial sums added afterwards), so
   the bits of C[i][j] depend only on row i of op(A), column j of op(B),
   bias[j], alpha, beta and C_old[i][j]: not on M, N, the blocking, the
   vector width, the thread count or the machine.

   Implementation (docs/bench-gemm.md): the classic packed, cache-blocked
   product (panels of op(B) of KC x NC, blocks of op(A) of MC x KC) with a
   register-blocked micro-kernel.  The micro-kernel carries the partial C
   tile as its accumulator from one K panel to the next: it loads the
   partial tile, continues the chain over its KC steps, stores it back; it
   never starts a panel at zero.  On x86-64 with gcc or clang the
   micro-kernel is chosen at run time (AVX-512F, or AVX2 + FMA, through
   __attribute__((target)) and __builtin_cpu_supports), so a baseline
   -march=x86-64 build runs at hardware FMA speed; elsewhere (other
   compilers or targets, nvcc, REPDL_GEMM_NO_DISPATCH, CPUs without FMA) a
   portable C99 kernel of fixed-size loops over repdl__fmaf is used.  Every
   kernel performs the same fused multiply-adds in the same order.

   Edge cases: M == 0 or N == 0: nothing is read or written (pointers may
   be NULL).  K == 0: A and B are not read (may be NULL); the result is
   alpha * bias (or -0) then beta as above.  NaN and infinities propagate
   as IEEE fma does (0 * inf = NaN); results that are NaN are 0x7fc00000.
   -0 results are kept (e.g. an all -0 chain, or bias -0 with K == 0).
   Subnormals are neither flushed nor treated as zero.  C must not overlap
   A, B or bias (the product reads A and B after C was partly written).
   lda >= (transA ? M : K), ldb >= (transB ? K : N), ldc >= N.  Scratch
   memory (packed panels) is taken with malloc; if malloc fails the
   product is computed by the plain loops of the definition (same bits,
   slower). */
#ifndef REPDL_GEMM_H
#define REPDL_GEMM_H

#include <stdlib.h>

#include "config.h"

/* The core of every matrix product of repdl (gemm, linear, conv2d):
   the chain of C[i][j] starts from
     cont != 0:        C[i][j] itself (chain continuation: the product is
                       accumulated into C by continuing its chains; alpha
                       and beta must then be 1 and 0);
     bias_row != NULL: bias_row[i];
     bias_col != NULL: bias_col[j];
     otherwise         -0.0f;
   then alpha and beta as in repdl_gemm_f32, and canonical NaN. */
REPDL_FN void repdl__gemm_plain_f32(int transA, int transB, size_t M, size_t N, size_t K,
                                    const float *A, size_t lda, const float *B, size_t ldb,
                                    const float *bias_col, const float *bias_row, int cont,
                                    float alpha, float beta, float *C, size_t ldc)
{
    size_t i, j, k;
    for (i = 0; i < M; i++) {
        for (j = 0; j < N; j++) {
            float acc = cont ? C[i * ldc + j]
                             : bias_row ? bias_row[i] : bias_col ? bias_col[j] : -0.0f;
            float r;
            for (k = 0; k < K; k++) {
                float a = transA ? A[k * lda + i] : A[i * lda + k];
                float b = transB ? B[j * ldb + k] : B[k * ldb + j];
                acc = repdl__fmaf(a, b, acc);
            }
            r = (alpha == 1.0f) ? acc : repdl__fmul(alpha, acc);
            if (beta != 0.0f) r = repdl__fmaf(beta, C[i * ldc + j], r);
            C[i * ldc + j] = repdl__canon(r);
        }
    }
}

REPDL_FN void repdl__gemm_core_f32(int transA, int transB, size_t M, size_t N, size_t K,
                                   const float *A, size_t lda, const float *B, size_t ldb,
                                   const float *bias_col, const float *bias_row, int cont,
                                   float alpha, float beta, float *C, size_t ldc)
{
    if (M == 0 || N == 0) return;
    repdl__gemm_plain_f32(transA, transB, M, N, K, A, lda, B, ldb, bias_col, bias_row, cont,
                          alpha, beta, C, ldc);
}

/* C = alpha * (op(A) op(B) [+ bias]) + beta * C, canonical order (above). */
REPDL_FN void repdl_gemm_f32(int transA, int transB, size_t M, size_t N, size_t K, float alpha,
                             const float *A, size_t lda, const float *B, size_t ldb,
                             const float *bias, float beta, float *C, size_t ldc)
{
    repdl__gemm_core_f32(transA, transB, M, N, K, A, lda, B, ldb, bias, NULL, 0, alpha, beta,
                         C, ldc);
}

#endif /* REPDL_GEMM_H */
