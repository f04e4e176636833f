/* SPDX-License-Identifier: MIT */
/* repdl/gemm_threads.h: the canonical matrix product split across POSIX
   threads (host only; not included by repdl.h: link with -pthread).

   repdl_gemm_threads_f32(.., K, T, ...) == repdl_gemm_f32(.., K, ...), bit for bit, for
   every T: C is cut into T blocks of whole rows or whole columns and each
   thread computes its block with repdl_gemm_f32 on the sub-matrices.  The
   chain of C[i][j] (gemm.h) depends only on row i of op(A), column j of
   op(B), bias[j] and C_old[i][j], so the cut cannot change a bit.  Threads
   are created and joined in each call; products below REPDL_GEMM_THREADS_MIN
   multiply-adds run on the caller's thread (same bits), and a block whose
   thread cannot be created is computed by the caller.  Returns 0 (there is
   no failure: the result is always the canonical product). */
#ifndef REPDL_GEMM_THREADS_H
#define REPDL_GEMM_THREADS_H

#include <pthread.h>

#include "gemm.h"
REPDL_BEGIN_CODE

#ifndef REPDL_GEMM_THREADS_MAX
#define REPDL_GEMM_THREADS_MAX 64
#endif
#ifndef REPDL_GEMM_THREADS_MIN
#define REPDL_GEMM_THREADS_MIN ((double)(1 << 18)) /* M N K below this: one thread */
#endif

typedef struct repdl__gemm_job {
    int transA, transB;
    size_t M, N, K;
    float alpha, beta;
    const float *A, *B, *bias;
    size_t lda, ldb, ldc;
    float *C;
} repdl__gemm_job;

static inline void *repdl__gemm_job_run(void *arg)
{
    repdl__gemm_job *j = (repdl__gemm_job *)arg;
    repdl_gemm_f32(j->transA, j->transB, j->M, j->N, j->K, j->alpha, j->beta, j->A, j->lda, j->B,
                   j->ldb, j->bias, j->C, j->ldc);
    return NULL;
}

REPDL_HOST_API repdl_status repdl_gemm_threads_f32(int transA, int transB, size_t M, size_t N,
                                         size_t K, int nthreads, float alpha, float beta,
                                         const float *A, size_t lda, const float *B,
                                         size_t ldb, const float *bias, float *C, size_t ldc)
{
    REPDL__FPENV_CHECK();
    repdl__gemm_job job[REPDL_GEMM_THREADS_MAX];
    pthread_t tid[REPDL_GEMM_THREADS_MAX];
    int started[REPDL_GEMM_THREADS_MAX];
    int T = nthreads, t, by_cols;
    size_t units, per, extra, lo = 0, unit;
    repdl_status st = repdl__gemm_check(transA, transB, M, N, K, A, lda, B, ldb, C, ldc);
    if (st != REPDL_OK) return st;
    if (M == 0 || N == 0) return REPDL_OK;
    if (T > REPDL_GEMM_THREADS_MAX) T = REPDL_GEMM_THREADS_MAX;
    if (T < 1 || (double)M * (double)N * (double)(K ? K : 1) < REPDL_GEMM_THREADS_MIN) T = 1;
    /* Cut the longer side, in units of 64 columns or 48 rows (whole
       micro-tiles of every kernel: no extra edge work). */
    by_cols = N >= M;
    unit = by_cols ? 64 : 48;
    units = ((by_cols ? N : M) + unit - 1) / unit;
    if ((size_t)T > units) T = (int)units;
    per = units / (size_t)T;
    extra = units % (size_t)T;
    for (t = 0; t < T; t++) {
        size_t cnt = (per + ((size_t)t < extra ? 1 : 0)) * unit;
        size_t len = by_cols ? N : M, hi = lo + cnt < len ? lo + cnt : len;
        repdl__gemm_job *j = &job[t];
        j->transA = transA;
        j->transB = transB;
        j->K = K;
        j->alpha = alpha;
        j->beta = beta;
        j->lda = lda;
        j->ldb = ldb;
        j->ldc = ldc;
        if (by_cols) {
            j->M = M;
            j->N = hi - lo;
            j->A = A;
            j->B = (K == 0 || !B) ? B : transB ? B + lo * ldb : B + lo;
            j->bias = bias ? bias + lo : NULL;
            j->C = C + lo;
        } else {
            j->M = hi - lo;
            j->N = N;
            j->A = (K == 0 || !A) ? A : transA ? A + lo : A + lo * lda;
            j->B = B;
            j->bias = bias;
            j->C = C + lo * ldc;
        }
        lo = hi;
    }
    for (t = 1; t < T; t++)
        started[t] = pthread_create(&tid[t], NULL, repdl__gemm_job_run, &job[t]) == 0;
    repdl__gemm_job_run(&job[0]);
    for (t = 1; t < T; t++) {
        if (started[t]) pthread_join(tid[t], NULL);
        else repdl__gemm_job_run(&job[t]);
    }
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_GEMM_THREADS_H */
