/* SPDX-License-Identifier: MIT */
/* repdl/attention_threads.h: attention.h's forward and backward split
   across POSIX threads (host only; not included by repdl.h: link with
   -pthread).

   repdl_attention_forward_threads_f32(s, T, ...) == repdl_attention_forward_f32(s, ...)
   and the same for the backward and for the _scores forms (attention.h,
   "Saved scores"), bit for bit, for every T: each query
   row (forward; backward first phase: P, dS, dq) and each key row
   (backward second phase: dk, dv) is computed whole by one thread with the
   row functions of attention.h, whose bits depend only on the row's own
   inputs (attention.h, "Definition").  The rows are cut into T contiguous
   ranges (the backward's a chunk of whole kv-head groups at a time,
   repdl__attn_bwd_chunk rounded to a multiple of T groups: first its
   query rows, then its key rows); every workspace is taken before the first output is written
   (REPDL_ERR_NOMEM otherwise, nothing written); a range whose thread
   cannot be created is computed by the caller.  T < 1 is 1; T is at most
   REPDL_ATTENTION_THREADS_MAX, and one thread a REPDL_ATTENTION_GRAIN
   (2^22) products of the scores (repdl__attn_threads; 0: no such bound). */
#ifndef REPDL_ATTENTION_THREADS_H
#define REPDL_ATTENTION_THREADS_H

#include <pthread.h>

#include "attention.h"
REPDL_BEGIN_CODE

#ifndef REPDL_ATTENTION_THREADS_MAX
#define REPDL_ATTENTION_THREADS_MAX 64
#endif

typedef struct repdl__attn_job {
    const repdl__attn *a;
    repdl__attn_ws w;
    size_t lo, hi;
    int phase; /* 0 forward rows, 1 backward rows, 2 backward key rows */
} repdl__attn_job;

static inline void *repdl__attn_job_run(void *arg)
{
    repdl__attn_job *j = (repdl__attn_job *)arg;
    if (j->phase == 0) {
        repdl__attn_fwd_range(j->a, &j->w, j->lo, j->hi);
        return NULL;
    }
    if (j->phase == 2) {
        repdl__attn_bwd_keys(j->a, &j->w, j->lo, j->hi);
        return NULL;
    }
    repdl__attn_bwd_rows(j->a, &j->w, j->lo, j->hi);
    return NULL;
}

/* Runs the units [lo, lo + n) of a phase on T threads, contiguous ranges. */
static inline void repdl__attn_run_phase(repdl__attn_job *job, int T, size_t lo, size_t n, int phase)
{
    pthread_t tid[REPDL_ATTENTION_THREADS_MAX];
    int started[REPDL_ATTENTION_THREADS_MAX];
    size_t per = n / (size_t)T, extra = n % (size_t)T;
    int t;
    for (t = 0; t < T; t++) {
        size_t cnt = per + ((size_t)t < extra ? 1 : 0);
        job[t].lo = lo;
        job[t].hi = lo + cnt;
        job[t].phase = phase;
        lo += cnt;
    }
    for (t = 1; t < T; t++)
        started[t] = pthread_create(&tid[t], NULL, repdl__attn_job_run, &job[t]) == 0;
    repdl__attn_job_run(&job[0]);
    for (t = 1; t < T; t++) {
        if (started[t]) pthread_join(tid[t], NULL);
        else repdl__attn_job_run(&job[t]);
    }
}

/* The T workspaces: 0, or -1 (none kept) when one cannot be had. */
static inline int repdl__attn_jobs_init(repdl__attn_job *job, int T, const repdl__attn *a,
                                        int backward)
{
    int t, u;
    for (t = 0; t < T; t++) {
        job[t].a = a;
        if (repdl__attn_ws_init(&job[t].w, a, backward)) {
            for (u = 0; u < t; u++) repdl__attn_ws_free(&job[u].w);
            return -1;
        }
    }
    return 0;
}

static inline void repdl__attn_jobs_free(repdl__attn_job *job, int T)
{
    int t;
    for (t = 0; t < T; t++) repdl__attn_ws_free(&job[t].w);
}

/* The threads of a call: nthreads clamped to 1 .. REPDL_ATTENTION_THREADS_MAX,
   to the units, and to one a REPDL_ATTENTION_GRAIN products of the scores
   (batch hq, times the keys a row sees on average, times nq d), so that a
   small call does not pay a thread's start for less work than it (why
   2^22: docs/attention.md, "Saved scores (2026-11-30, d)").  A count of
   threads never changes a bit: each row is computed whole by one thread. */
#ifndef REPDL_ATTENTION_GRAIN
#define REPDL_ATTENTION_GRAIN ((size_t)1 << 22)
#endif
static inline int repdl__attn_threads(const repdl_attention_shape *s, int nthreads, size_t units)
{
    int T = nthreads < 1 ? 1 : nthreads;
    size_t work = s->batch, keys = s->nk, half = s->q_pos0 + (s->nq + 1) / 2,
           grain = REPDL_ATTENTION_GRAIN;
    if (s->causal && half < keys) keys = half;
    if (T > REPDL_ATTENTION_THREADS_MAX) T = REPDL_ATTENTION_THREADS_MAX;
    if ((size_t)T > units) T = units ? (int)units : 1;
    if (grain && !repdl__size_mul(&work, s->hq) && !repdl__size_mul(&work, s->nq) &&
        !repdl__size_mul(&work, keys) && !repdl__size_mul(&work, s->d) && work / grain < (size_t)T)
        T = work / grain ? (int)(work / grain) : 1;
    return T;
}

REPDL_HOST_API repdl_status repdl_attention_forward_scores_threads_f32(
    const repdl_attention_shape *s, int nthreads, float scale, const float *q, const float *k,
    const float *v, const float *mask, const unsigned char *key_keep, float *out, float *lse,
    float *scores)
{
    REPDL__FPENV_CHECK();
    repdl__attn a;
    repdl__attn_job job[REPDL_ATTENTION_THREADS_MAX];
    size_t nrows;
    int T;
    repdl_status st =
        repdl__attn_fwd_setup(&a, s, scale, q, k, v, mask, key_keep, out, lse, scores, &nrows);
    if (st != REPDL_OK || nrows == 0) return st;
    T = repdl__attn_threads(s, nthreads, nrows);
    if (repdl__attn_jobs_init(job, T, &a, 0)) return REPDL_ERR_NOMEM;
    repdl__attn_run_phase(job, T, 0, nrows, 0);
    repdl__attn_jobs_free(job, T);
    return REPDL_OK;
}

REPDL_HOST_API repdl_status repdl_attention_forward_threads_f32(
    const repdl_attention_shape *s, int nthreads, float scale, const float *q, const float *k,
    const float *v, const float *mask, const unsigned char *key_keep, float *out, float *lse)
{
    return repdl_attention_forward_scores_threads_f32(s, nthreads, scale, q, k, v, mask, key_keep,
                                                      out, lse, NULL);
}

REPDL_HOST_API repdl_status repdl_attention_backward_scores_threads_f32(
    const repdl_attention_shape *s, int nthreads, float scale, const float *q, const float *k,
    const float *v, const float *mask, const unsigned char *key_keep, const float *out,
    const float *lse, const float *scores, const float *dout, float *dq, float *dk, float *dv)
{
    REPDL__FPENV_CHECK();
    repdl__attn a;
    repdl__attn_job job[REPDL_ATTENTION_THREADS_MAX];
    size_t nrows, nkeys, nkr, nh, ch, gr, kh;
    int T;
    repdl_status st = repdl__attn_bwd_setup(&a, s, scale, q, k, v, mask, key_keep, out, lse,
                                            scores, dout, dq, dk, dv, &nrows, &nkeys);
    if (st != REPDL_OK) return st;
    if (nrows == 0) {
        repdl__attn_bwd_empty(&a);
        return REPDL_OK;
    }
    nkr = s->batch * s->hkv * s->nk;
    T = repdl__attn_threads(s, nthreads, nrows > nkr ? nrows : nkr);
    if (repdl__attn_jobs_init(job, T, &a, 1)) return REPDL_ERR_NOMEM;
    nh = s->batch * s->hkv;
    /* whole groups a chunk, one P, dS buffer for all; a multiple of T
       groups when there are T, so that each thread's range is whole
       groups (a causal group's rows cut in T ranges would not be: its
       later rows see more keys, its earlier keys more rows) */
    ch = repdl__attn_bwd_chunk(&a);
    if (ch < (size_t)T) ch = (size_t)T < nh ? (size_t)T : nh;
    else ch -= ch % (size_t)T;
    gr = a.G * s->nq;
    if (repdl__attn_pm_alloc(&a, ch * gr)) {
        repdl__attn_jobs_free(job, T);
        return REPDL_ERR_NOMEM;
    }
    for (kh = 0; kh < nh; kh += ch) {
        size_t ke = kh + ch < nh ? kh + ch : nh;
        a.prow = kh * gr;
        repdl__attn_run_phase(job, T, kh * gr, (ke - kh) * gr, 1);
        repdl__attn_run_phase(job, T, kh * s->nk, (ke - kh) * s->nk, 2);
    }
    free(a.pm_block);
    repdl__attn_jobs_free(job, T);
    return REPDL_OK;
}

REPDL_HOST_API repdl_status repdl_attention_backward_threads_f32(
    const repdl_attention_shape *s, int nthreads, float scale, const float *q, const float *k,
    const float *v, const float *mask, const unsigned char *key_keep, const float *out,
    const float *lse, const float *dout, float *dq, float *dk, float *dv)
{
    return repdl_attention_backward_scores_threads_f32(s, nthreads, scale, q, k, v, mask, key_keep,
                                                       out, lse, NULL, dout, dq, dk, dv);
}

REPDL_END_CODE
#endif /* REPDL_ATTENTION_THREADS_H */
