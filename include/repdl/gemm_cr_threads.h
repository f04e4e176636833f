/* SPDX-License-Identifier: MIT */
/* repdl/gemm_cr_threads.h: the correctly rounded matrix product split
   across POSIX threads (host only; not included by repdl.h: link with
   -pthread).

   repdl_gemm_cr_threads_f32(.., K, T, ...) == repdl_gemm_cr_f32(.., K, ...),
   bit for bit, for every T: each output is RN of an exact sum (gemm_cr.h),
   a function of row i of op(A), column j of op(B) and bias[j] alone, so
   any cut of C gives the same bits.  C is cut into T blocks of whole rows
   (M >= N) or whole columns; each thread runs repdl_gemm_cr_f32 on its
   block.  Products below REPDL_GEMM_THREADS_MIN multiply-adds run on the
   caller's thread; a block whose thread cannot be created is computed by
   the caller.  Returns what repdl_gemm_cr_f32 returns for the whole call. */
#ifndef REPDL_GEMM_CR_THREADS_H
#define REPDL_GEMM_CR_THREADS_H

#include <pthread.h>

#include "gemm_cr.h"
REPDL_BEGIN_CODE

#ifndef REPDL_GEMM_THREADS_MAX
#define REPDL_GEMM_THREADS_MAX 64
#endif
#ifndef REPDL_GEMM_THREADS_MIN
#define REPDL_GEMM_THREADS_MIN ((double)(1 << 18))
#endif

typedef struct repdl__gemm_cr_job {
    int transA, transB;
    size_t M, N, K, lda, ldb, ldc;
    const float *A, *B, *bias;
    float *C;
} repdl__gemm_cr_job;

static inline void *repdl__gemm_cr_job_run(void *arg)
{
    repdl__gemm_cr_job *j = (repdl__gemm_cr_job *)arg;
    repdl__gemm_cr_core(j->transA, j->transB, j->M, j->N, j->K, j->A, j->lda, j->B, j->ldb,
                        j->bias, j->C, j->ldc);
    return NULL;
}

REPDL_HOST_API repdl_status repdl_gemm_cr_threads_f32(int transA, int transB, size_t M,
                                                      size_t N, size_t K, int nthreads,
                                                      const float *A, size_t lda, const float *B,
                                                      size_t ldb, const float *bias, float *C,
                                                      size_t ldc)
{
    REPDL__FPENV_CHECK();
    repdl__gemm_cr_job job[REPDL_GEMM_THREADS_MAX];
    pthread_t tid[REPDL_GEMM_THREADS_MAX];
    int started[REPDL_GEMM_THREADS_MAX];
    int T = nthreads, t, by_rows;
    size_t len, lo = 0;
    repdl_status st = repdl__gemm_check(transA, transB, M, N, K, A, lda, B, ldb, C, ldc);
    if (st != REPDL_OK) return st;
    if (M == 0 || N == 0) return REPDL_OK;
    if (T > REPDL_GEMM_THREADS_MAX) T = REPDL_GEMM_THREADS_MAX;
    if (T < 1 || (double)M * (double)N * (double)(K ? K : 1) < REPDL_GEMM_THREADS_MIN) T = 1;
    by_rows = M >= N;
    len = by_rows ? M : N;
    if ((size_t)T > len) T = (int)len;
    for (t = 0; t < T; t++) {
        size_t hi = len / (size_t)T * (size_t)(t + 1) + ((size_t)(t + 1) * (len % (size_t)T)) / (size_t)T;
        repdl__gemm_cr_job *j = &job[t];
        j->transA = transA;
        j->transB = transB;
        j->K = K;
        j->lda = lda;
        j->ldb = ldb;
        j->ldc = ldc;
        if (by_rows) {
            j->M = hi - lo;
            j->N = N;
            j->A = (K == 0) ? A : transA ? A + lo : A + lo * lda;
            j->B = B;
            j->bias = bias;
            j->C = C + lo * ldc;
        } else {
            j->M = M;
            j->N = hi - lo;
            j->A = A;
            j->B = (K == 0) ? B : transB ? B + lo * ldb : B + lo;
            j->bias = bias ? bias + lo : NULL;
            j->C = C + lo;
        }
        lo = hi;
    }
    for (t = 1; t < T; t++)
        started[t] = pthread_create(&tid[t], NULL, repdl__gemm_cr_job_run, &job[t]) == 0;
    repdl__gemm_cr_job_run(&job[0]);
    for (t = 1; t < T; t++) {
        if (started[t]) pthread_join(tid[t], NULL);
        else repdl__gemm_cr_job_run(&job[t]);
    }
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_GEMM_CR_THREADS_H */
