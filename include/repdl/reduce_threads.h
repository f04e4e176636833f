/* SPDX-License-Identifier: MIT */
/* repdl/reduce_threads.h: canonical sum and dot split across POSIX threads
   (host only; not included by repdl.h: link with -pthread).

   repdl_sum_threads_f32(n, T, x) == repdl_sum_f32(n, x), bit for bit, for
   every T >= 1: each thread sums whole nodes of the canonical tree (aligned
   blocks, repdl_sum_block_size) and the calling thread merges the block
   partials in order with repdl_sum_state (docs/canonical-order.md,
   section 6).  Threads are created and joined in each call, so it pays only
   for large n (below REPDL_THREADS_MIN elements it runs on the caller's
   thread: same bits).  A share whose thread cannot be created is run by
   the caller, so the result is always the canonical sum. */
#ifndef REPDL_REDUCE_THREADS_H
#define REPDL_REDUCE_THREADS_H

#include <pthread.h>
#include <stdlib.h>

#include "reduce.h"
REPDL_BEGIN_CODE

#ifndef REPDL_THREADS_MAX
#define REPDL_THREADS_MAX 64
#endif
#ifndef REPDL_THREADS_MIN
/* Below this many elements one thread: creating and joining a thread
   costs about 50 us here (AMD EPYC, 2 cores: 2^20 floats took 0.115 ms on
   2 threads against 0.066 ms serially, 2^24 1.59x faster on 2;
   docs/bench-scaling.md), the serial time of about 2^21 floats. */
#define REPDL_THREADS_MIN ((size_t)1 << 21)
#endif

/* One thread's share: the elements [begin, end), begin a multiple of a
   leaf, end a multiple of a leaf or n.  The share is cut into nodes; at most
   2 * 64 of them. */
typedef struct repdl__share {
    const float *x, *y; /* y NULL for a sum */
    size_t begin, end;
    size_t nblocks;
    size_t bbegin[128], bcount[128];
    float partial[128];
} repdl__share;

static inline void *repdl__share_run(void *arg)
{
    repdl__share *s = (repdl__share *)arg;
    size_t b = s->begin;
    s->nblocks = 0;
    while (b < s->end) {
        size_t c = repdl_sum_block_size(b, s->end);
        s->bbegin[s->nblocks] = b;
        s->bcount[s->nblocks] = c;
        s->partial[s->nblocks] = s->y ? repdl_dot_f32(c, s->x + b, s->y + b)
                                      : repdl_sum_f32(c, s->x + b);
        s->nblocks++;
        b += c;
    }
    return NULL;
}

/* The shares live on the heap (2.6 KiB each, up to REPDL_THREADS_MAX of
   them): a library call must not need a large stack, since the caller's
   thread may have 64 KiB.  When the allocation fails, or one thread is
   asked for, the whole sum is computed here: the partial/combine identity
   (docs/canonical-order.md, section 6) makes that the same bits. */
static inline float repdl__threads_reduce(const float *x, const float *y, size_t n,
                                          int nthreads)
{
    repdl__share *share;
    pthread_t *tid;
    int *started;
    size_t leaves = (n + REPDL_SUM_LEAF - 1) / REPDL_SUM_LEAF, per, lo = 0;
    size_t min_n = REPDL_THREADS_MIN;
    repdl_sum_state st;
    int t, T = nthreads;
    size_t i;
    float r;
    if (T > REPDL_THREADS_MAX) T = REPDL_THREADS_MAX;
    if (T < 1 || n < min_n) T = 1;
    if ((size_t)T > leaves) T = leaves ? (int)leaves : 1;
    if (T == 1) return y ? repdl_dot_f32(n, x, y) : repdl_sum_f32(n, x);
    share = (repdl__share *)malloc((size_t)T * sizeof *share);
    tid = (pthread_t *)malloc((size_t)T * sizeof *tid);
    started = (int *)malloc((size_t)T * sizeof *started);
    if (!share || !tid || !started) {
        free(share); free(tid); free(started);
        return y ? repdl_dot_f32(n, x, y) : repdl_sum_f32(n, x);
    }
    per = leaves / (size_t)T;
    for (t = 0; t < T; t++) {
        size_t hi = lo + per + ((size_t)t < leaves % (size_t)T ? 1 : 0);
        share[t].x = x;
        share[t].y = y;
        share[t].begin = lo * REPDL_SUM_LEAF;
        share[t].end = hi * REPDL_SUM_LEAF < n ? hi * REPDL_SUM_LEAF : n;
        lo = hi;
    }
    for (t = 1; t < T; t++)
        started[t] = pthread_create(&tid[t], NULL, repdl__share_run, &share[t]) == 0;
    repdl__share_run(&share[0]);
    for (t = 1; t < T; t++) {
        if (started[t]) pthread_join(tid[t], NULL);
        else repdl__share_run(&share[t]);
    }
    repdl_sum_state_init(&st);
    for (t = 0; t < T; t++)
        for (i = 0; i < share[t].nblocks; i++)
            repdl_sum_state_push(&st, share[t].bbegin[i], share[t].bcount[i],
                                 share[t].partial[i]);
    r = repdl_sum_state_result(&st);
    free(share); free(tid); free(started);
    return r;
}

/* The canonical sum and dot product with up to `nthreads` threads
   (1 <= nthreads <= REPDL_THREADS_MAX; others are clamped). */
REPDL_HOST_API float repdl_sum_threads_f32(size_t n, int nthreads, const float *x)
{
    REPDL__FPENV_CHECK_OR(repdl__nanf());
    if (n == 0) return -0.0f;
    return repdl__threads_reduce(x, NULL, n, nthreads);
}

REPDL_HOST_API float repdl_dot_threads_f32(size_t n, int nthreads, const float *x,
                                          const float *y)
{
    REPDL__FPENV_CHECK_OR(repdl__nanf());
    if (n == 0) return -0.0f;
    return repdl__threads_reduce(x, y, n, nthreads);
}

REPDL_END_CODE
#endif /* REPDL_REDUCE_THREADS_H */
