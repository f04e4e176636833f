/* SPDX-License-Identifier: MIT */
/* repdl/data_parallel.h: a data-parallel training step over POSIX threads
   and (optionally) MPI ranks whose gradient has the same bits for every
   thread count and every rank count (host only; not included by repdl.h;
   link with -pthread; docs/train.md, "A data-parallel step in your own
   program").

   A global batch of B samples is G = ceil(B / mb) micro-batches of mb
   consecutive samples (the last one short when mb does not divide B;
   mb = REPDL_MICROBATCH = 16 gives the batch order of the library's own
   backward passes, docs/canonical-order.md).  The caller supplies one
   callback, the gradient of one micro-batch (a vector of V floats: the
   *unit* of reduce_units.h); the step returns

     grad[e] = the canonical sum over the G units of element e

   the buddy tree over units of docs/mpi.md section 1: a function of the
   global batch, mb and the callback's vectors alone, never of the thread
   count, the rank count or the split.  The step owns everything between:
   which thread and rank computes which micro-batch, the units state of
   each thread (the additions of repdl_units_state_*), the combine across
   threads (those of repdl_units_combine_f32) and, with MPI, across ranks
   (repdl_mpi_sum_nodes_f32).

     #include <repdl/data_parallel.h>

     static repdl_status unit_grad(void *ctx, int thread, size_t unit,
                                   size_t first, size_t rows, float *grad)
     {
         ... forward + backward of samples [first, first + rows) of this
         step's batch, with thread `thread`'s scratch (threads run
         concurrently); every element of grad[0..V) written.  A mean
         loss divides by the global batch B, not by rows
         (repdl_div_count_f32(n, B, dz, dz): REPDL_REDUCTION_MEAN's
         division) ...
         return REPDL_OK;
     }

     repdl_dp dp;
     if (repdl_dp_init(&dp, B, REPDL_MICROBATCH, V, nthreads, 1, 0) != REPDL_OK) ...
     for (step = 0; step < steps; step++) {
         ... point the callback's context at this step's samples ...
         if (repdl_dp_step_f32(&dp, unit_grad, &my_ctx, grad) != REPDL_OK) ...
         repdl_sgd_step_f32(V, &cfg, step + 1, grad, w, mbuf);
     }
     repdl_dp_free(&dp);

   With MPI, define REPDL_DP_MPI before the first inclusion of this header
   (it then includes repdl/mpi.h: compile with mpicc or meson's
   dependency('mpi'); in C++ define OMPI_SKIP_MPICXX, docs/mpi.md),
   initialise with nranks = the communicator's size and rank = this rank's,
   and call repdl_dp_step_mpi_f32(&dp, MPI_COMM_WORLD, unit_grad, &ctx,
   grad) on every rank.  Without MPI, repdl_dp_step_nodes_f32 gives a
   rank's node vectors for another transport.

   Who computes what: rank r of R owns the units [floor(G r / R),
   floor(G (r+1) / R)) (repdl_dp_rank_units), thread t of T a contiguous
   share [u0 + floor(n t / T), u0 + floor(n (t+1) / T)) of its rank's n
   units, in increasing unit order.  A rank's range is cut into nodes
   (repdl_units_nodes); each thread builds the node vectors of its piece of
   each node (the canonical cut of the piece among the node's units), the
   additions of repdl_units_state_*, and the pieces of a node shared by
   threads are added as repdl_units_combine_f32 adds them (a node [b, b + c)
   is itself the buddy tree over c units).  Both run on the accumulation
   layer's vector tree (repdl__vtree, detail/accum.h), the one tree of
   reduce_units.h, with the trees taken once by repdl_dp_init: a step
   allocates nothing (MPI's step: nothing but repdl_mpi_sum_nodes_f32's
   buffers), and the callback writes its gradient straight into its
   thread's tree.  The threads form a pool, created by repdl_dp_init and
   joined by repdl_dp_free; thread 0 is the caller's.  A thread that cannot
   be created has its share run on the calling thread (same bits).

     repdl_dp_init / repdl_dp_free     the plan, buffers and thread pool
     repdl_dp_rank_units               any rank's units and samples
     repdl_dp_step_f32                 one process: the gradient
     repdl_dp_step_nodes_f32           one rank: its node vectors
     repdl_dp_step_mpi_f32             every rank: the gradient (REPDL_DP_MPI)
     repdl_dp_for                      the pool over any range of items
                                       (evaluation, per-sample work)

   The callback is called once per micro-batch of the rank, from the thread
   that owns it, with a V-float buffer of that thread; calls on different
   threads run concurrently.  It returns REPDL_OK, or a status that stops
   its thread's work and is returned by the step.  A plan runs one call at
   a time: two threads must not call functions of the same plan at once,
   and the callback must not call its own plan. */
#ifndef REPDL_DATA_PARALLEL_H
#define REPDL_DATA_PARALLEL_H

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(REPDL_DP_MPI)
#include "mpi.h"
#else
#include "reduce_units.h"
#endif
REPDL_BEGIN_CODE

/* The most threads repdl_dp_init accepts. */
#ifndef REPDL_DP_THREADS_MAX
#define REPDL_DP_THREADS_MAX 1024
#endif

/* The gradient of micro-batch `unit` (samples [first, first + rows) of the
   global batch, rows >= 1) into grad[0..V), on thread `thread` of the
   rank (0 <= thread < nthreads). */
typedef repdl_status (*repdl_dp_unit_fn)(void *ctx, int thread, size_t unit, size_t first,
                                         size_t rows, float *grad);
/* Items [begin, end) (begin < end) on thread `thread` (repdl_dp_for). */
typedef repdl_status (*repdl_dp_range_fn)(void *ctx, int thread, size_t begin, size_t end);

struct repdl_dp;

/* One thread of the pool, and its piece of each node. */
typedef struct repdl__dp_worker {
    struct repdl_dp *dp;
    int t, started;
    repdl_status rc;
    size_t u0, u1;   /* its units, absolute */
    size_t b0, b1;   /* its items (repdl_dp_for) */
    repdl__vtree tree; /* over the units of one node of its pieces' cuts */
    pthread_t th;
} repdl__dp_worker;

typedef struct repdl__dp_piece {
    size_t lo, hi; /* a thread's units inside a node, relative to its begin */
    float *nodes;  /* their node vectors (the cut of [lo, hi) among the node's units) */
} repdl__dp_piece;

/* The plan.  The first fields are the caller's to read (set by
   repdl_dp_init, never changed); the rest is private. */
typedef struct repdl_dp {
    size_t batch, microbatch; /* B, mb */
    size_t units;             /* G = ceil(B / mb) */
    size_t V;                 /* floats of a gradient */
    size_t unit0, unit1;      /* this rank's units */
    size_t row0, row1;        /* their samples: [unit0 mb, min(unit1 mb, B)) */
    size_t nnodes;            /* nodes of the cut of [unit0, unit1) */
    int nthreads, nranks, rank;
    /* private */
    repdl_units_node node[2 * 63 + 1];
    repdl__dp_piece *piece;    /* [nnodes][nthreads] */
    repdl__dp_worker *worker;  /* [nthreads] */
    float *nodes;              /* nnodes V: the rank's node vectors */
    float *piece_mem;          /* the pieces' node vectors that are not whole nodes */
    repdl__vtree comb;         /* over the units of a node shared by threads */
    int job;                   /* 0 a step, 1 repdl_dp_for */
    repdl_dp_unit_fn unit_fn;
    repdl_dp_range_fn range_fn;
    void *ctx;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned long gen;
    int pending, quit, have_pool, ready;
} repdl_dp;

/* floor(G r / R) without forming G r (G <= 2^62, 0 <= r <= R <= 2^31). */
static inline size_t repdl__dp_split(size_t G, size_t r, size_t R)
{
    return G / R * r + G % R * r / R;
}

/* The units [*u0, *u1) and samples [*row0, *row1) of rank `rank` (any rank
   of the plan, not only the caller's); any output pointer may be NULL.
   REPDL_OK; REPDL_ERR_INVALID for dp NULL or not initialised, rank outside
   [0, nranks) (nothing written). */
REPDL_HOST_API repdl_status repdl_dp_rank_units(const repdl_dp *dp, int rank, size_t *u0,
                                                size_t *u1, size_t *row0, size_t *row1)
{
    size_t a, b;
    if (!dp || !dp->ready || rank < 0 || rank >= dp->nranks) return REPDL_ERR_INVALID;
    a = repdl__dp_split(dp->units, (size_t)rank, (size_t)dp->nranks);
    b = repdl__dp_split(dp->units, (size_t)rank + 1, (size_t)dp->nranks);
    if (u0) *u0 = a;
    if (u1) *u1 = b;
    if (row0) *row0 = a < dp->units ? a * dp->microbatch : dp->batch;
    if (row1) *row1 = b < dp->units ? b * dp->microbatch : dp->batch;
    return REPDL_OK;
}

/* Thread w's share of the current job. */
static inline repdl_status repdl__dp_work(repdl_dp *dp, repdl__dp_worker *w)
{
    size_t n, u;
    if (dp->job == 1)
        return w->b0 < w->b1 ? dp->range_fn(dp->ctx, w->t, w->b0, w->b1) : REPDL_OK;
    for (n = 0; n < dp->nnodes; n++) {
        const repdl__dp_piece *pc = &dp->piece[n * (size_t)dp->nthreads + (size_t)w->t];
        size_t b = dp->node[n].begin, V = dp->V, i, ns;
        repdl_units_node sub[2 * 63 + 1];
        float *slot = pc->nodes;
        if (pc->lo >= pc->hi) continue;
        /* the piece's cut among the node's units; each part's units pushed
           at level 0, its root written to its slot (repdl_units_state) */
        ns = repdl_units_nodes(dp->node[n].count, pc->lo, pc->hi, 2 * 63 + 1, sub);
        for (i = 0; i < ns; i++) {
            repdl__vtree_clear(&w->tree, V);
            for (u = b + sub[i].begin; u < b + sub[i].begin + sub[i].count; u++) {
                size_t first = u * dp->microbatch;
                size_t rows =
                    dp->batch - first < dp->microbatch ? dp->batch - first : dp->microbatch;
                repdl_status st = dp->unit_fn(dp->ctx, w->t, u, first, rows,
                                              V > 0 ? repdl__vtree_dest(&w->tree, 0) : NULL);
                if (st != REPDL_OK) return st;
                repdl__vtree_push(&w->tree, 0);
            }
            if (V > 0) {
                repdl__vtree_root(&w->tree, slot);
                slot += V;
            }
        }
    }
    return REPDL_OK;
}

static inline void *repdl__dp_thread(void *arg)
{
    repdl__dp_worker *w = (repdl__dp_worker *)arg;
    repdl_dp *dp = w->dp;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&dp->mu);
        while (dp->gen == seen && !dp->quit) pthread_cond_wait(&dp->go, &dp->mu);
        if (dp->quit) {
            pthread_mutex_unlock(&dp->mu);
            return NULL;
        }
        seen = dp->gen;
        pthread_mutex_unlock(&dp->mu);
        w->rc = repdl__dp_work(dp, w);
        pthread_mutex_lock(&dp->mu);
        if (--dp->pending == 0) pthread_cond_signal(&dp->done);
        pthread_mutex_unlock(&dp->mu);
    }
}

/* Runs the current job on every thread (thread 0 and any thread that was
   not created on the caller's); the first failure in thread order. */
static inline repdl_status repdl__dp_run(repdl_dp *dp)
{
    int t, pool = 0;
    repdl_status rc = REPDL_OK;
    if (dp->have_pool) {
        for (t = 1; t < dp->nthreads; t++) pool += dp->worker[t].started;
        pthread_mutex_lock(&dp->mu);
        dp->pending = pool;
        dp->gen++;
        pthread_cond_broadcast(&dp->go);
        pthread_mutex_unlock(&dp->mu);
    }
    for (t = 0; t < dp->nthreads; t++)
        if (!dp->have_pool || t == 0 || !dp->worker[t].started)
            dp->worker[t].rc = repdl__dp_work(dp, &dp->worker[t]);
    if (dp->have_pool) {
        pthread_mutex_lock(&dp->mu);
        while (dp->pending) pthread_cond_wait(&dp->done, &dp->mu);
        pthread_mutex_unlock(&dp->mu);
    }
    for (t = 0; t < dp->nthreads; t++)
        if (dp->worker[t].rc != REPDL_OK && rc == REPDL_OK) rc = dp->worker[t].rc;
    return rc;
}

/* Joins the pool and frees every buffer; the plan is then zero (a second
   call, or a call on a plan whose init failed, does nothing).  dp NULL
   does nothing. */
REPDL_HOST_API void repdl_dp_free(repdl_dp *dp)
{
    int t;
    if (!dp) return;
    if (dp->have_pool) {
        pthread_mutex_lock(&dp->mu);
        dp->quit = 1;
        pthread_cond_broadcast(&dp->go);
        pthread_mutex_unlock(&dp->mu);
        for (t = 1; t < dp->nthreads; t++)
            if (dp->worker[t].started) pthread_join(dp->worker[t].th, NULL);
        pthread_mutex_destroy(&dp->mu);
        pthread_cond_destroy(&dp->go);
        pthread_cond_destroy(&dp->done);
    }
    if (dp->worker)
        for (t = 0; t < dp->nthreads; t++) repdl__vtree_free(&dp->worker[t].tree);
    repdl__vtree_free(&dp->comb);
    free(dp->worker);
    free(dp->piece);
    free(dp->nodes);
    free(dp->piece_mem);
    memset(dp, 0, sizeof *dp);
}

/* The plan of rank `rank` of `nranks` with `nthreads` threads for global
   batches of `batch` samples in micro-batches of `microbatch`, gradients
   of V floats: its buffers (every thread's vector tree, whose slots hold
   the callback's buffer; the rank's node vectors; the node vectors of the
   pieces of nodes shared by threads and the tree that adds them) and its
   pool of nthreads - 1 threads.  Returns
     REPDL_ERR_INVALID   dp NULL; microbatch 0; nthreads outside
                         [1, REPDL_DP_THREADS_MAX]; nranks < 1; rank
                         outside [0, nranks); more than REPDL_UNITS_MAX
                         (2^62) micro-batches
     REPDL_ERR_OVERFLOW  a buffer's float count (V, the rank's nodes
                         nnodes V, the pieces' node vectors) does not fit
                         in size_t bytes
     REPDL_ERR_NOMEM     a buffer or tree cannot be had (also a tree whose
                         V * levels does not fit; everything taken is
                         freed)
   checked in this order; on error dp is zero (repdl_dp_free does
   nothing).  Every buffer is taken here: the steps allocate nothing.
   batch 0 is valid: no units, the gradient of every step is -0.0 (the
   empty sum) and the callback is never called.  V 0 is valid: the
   callback runs with grad NULL and nothing is summed.  A thread (or the
   pool's mutex) that cannot be created is not an error: its share runs on
   the calling thread, with the same bits. */
REPDL_HOST_API repdl_status repdl_dp_init(repdl_dp *dp, size_t batch, size_t microbatch,
                                          size_t V, int nthreads, int nranks, int rank)
{
    REPDL__FPENV_CHECK();
    size_t G, n, nr, npiece, pmem = 0, one = 1, nv, comb_units = 0;
    int t, T = nthreads;
    float *pm;
    if (!dp) return REPDL_ERR_INVALID;
    memset(dp, 0, sizeof *dp);
    if (microbatch == 0 || T < 1 || T > REPDL_DP_THREADS_MAX || nranks < 1 || rank < 0 ||
        rank >= nranks)
        return REPDL_ERR_INVALID;
    G = batch / microbatch + (batch % microbatch != 0);
    if (G > REPDL_UNITS_MAX) return REPDL_ERR_INVALID;
    dp->batch = batch;
    dp->microbatch = microbatch;
    dp->units = G;
    dp->V = V;
    dp->nthreads = T;
    dp->nranks = nranks;
    dp->rank = rank;
    dp->ready = 1;
    repdl_dp_rank_units(dp, rank, &dp->unit0, &dp->unit1, &dp->row0, &dp->row1);
    dp->nnodes = repdl_units_nodes(G, dp->unit0, dp->unit1, 2 * 63 + 1, dp->node);
    nr = dp->unit1 - dp->unit0;
    /* the pieces: thread t's units clamped to each node; their node
       vectors, unless the piece is the whole node (then it writes the
       node's own slot) */
    for (n = 0; n < dp->nnodes; n++) {
        size_t b = dp->node[n].begin, c = dp->node[n].count;
        for (t = 0; t < T; t++) {
            size_t w0 = dp->unit0 + repdl__dp_split(nr, (size_t)t, (size_t)T);
            size_t w1 = dp->unit0 + repdl__dp_split(nr, (size_t)t + 1, (size_t)T);
            size_t lo = w0 < b ? b : w0 > b + c ? b + c : w0;
            size_t hi = w1 < b ? b : w1 > b + c ? b + c : w1;
            if (lo < hi && !(lo == b && hi == b + c)) {
                if (c > comb_units) comb_units = c;
                if (repdl__size_add(&pmem, repdl_units_nodes(c, lo - b, hi - b, 0, NULL)))
                    goto overflow;
            }
        }
    }
    nv = dp->nnodes;
    if (repdl__size_mul(&nv, V) || repdl__size_mul(&one, V) || repdl__size_mul(&pmem, V))
        goto overflow;
    npiece = dp->nnodes * (size_t)T;
    /* every buffer through REPDL__ALLOC (detail/accum.h: malloc unless a
       test replaces it), released with free */
    dp->worker = (repdl__dp_worker *)REPDL__ALLOC((size_t)T * sizeof *dp->worker);
    if (dp->worker) memset(dp->worker, 0, (size_t)T * sizeof *dp->worker); /* trees empty */
    dp->piece = (repdl__dp_piece *)REPDL__ALLOC((npiece + 1) * sizeof *dp->piece);
    dp->nodes = (float *)REPDL__ALLOC((nv + 1) * sizeof(float));
    dp->piece_mem = (float *)REPDL__ALLOC((pmem + 1) * sizeof(float));
    if (!dp->worker || !dp->piece || !dp->nodes || !dp->piece_mem) goto nomem;
    memset(dp->piece, 0, (npiece + 1) * sizeof *dp->piece);
    if (repdl__vtree_init(&dp->comb, V, comb_units)) goto nomem;
    for (t = 0; t < T; t++) {
        repdl__dp_worker *w = &dp->worker[t];
        w->dp = dp;
        w->t = t;
        w->u0 = dp->unit0 + repdl__dp_split(nr, (size_t)t, (size_t)T);
        w->u1 = dp->unit0 + repdl__dp_split(nr, (size_t)t + 1, (size_t)T);
    }
    pm = dp->piece_mem;
    for (n = 0; n < dp->nnodes; n++) {
        size_t b = dp->node[n].begin, c = dp->node[n].count;
        for (t = 0; t < T; t++) {
            repdl__dp_piece *pc = &dp->piece[n * (size_t)T + (size_t)t];
            size_t w0 = dp->worker[t].u0, w1 = dp->worker[t].u1;
            size_t lo = w0 < b ? b : w0 > b + c ? b + c : w0;
            size_t hi = w1 < b ? b : w1 > b + c ? b + c : w1;
            pc->lo = lo - b;
            pc->hi = hi - b;
            if (lo >= hi) continue;
            if (lo == b && hi == b + c) {
                pc->nodes = dp->nodes + n * V;
            } else {
                pc->nodes = pm;
                pm += repdl_units_nodes(c, pc->lo, pc->hi, 0, NULL) * V;
            }
        }
    }
    /* each thread's tree: for the largest part of its pieces' cuts */
    for (t = 0; t < T; t++) {
        size_t most = 0;
        for (n = 0; n < dp->nnodes; n++) {
            const repdl__dp_piece *pc = &dp->piece[n * (size_t)T + (size_t)t];
            size_t u = pc->lo;
            while (u < pc->hi) {
                size_t c = repdl_units_block_size(u, pc->hi, dp->node[n].count);
                if (c > most) most = c;
                u += c;
            }
        }
        if (repdl__vtree_init(&dp->worker[t].tree, V, most)) goto nomem;
    }
    if (T > 1 && pthread_mutex_init(&dp->mu, NULL) == 0) {
        if (pthread_cond_init(&dp->go, NULL) != 0) {
            pthread_mutex_destroy(&dp->mu);
        } else if (pthread_cond_init(&dp->done, NULL) != 0) {
            pthread_cond_destroy(&dp->go);
            pthread_mutex_destroy(&dp->mu);
        } else {
            dp->have_pool = 1;
            for (t = 1; t < T; t++)
                dp->worker[t].started = pthread_create(&dp->worker[t].th, NULL, repdl__dp_thread,
                                                       &dp->worker[t]) == 0;
        }
    }
    return REPDL_OK;
overflow:
    repdl_dp_free(dp);
    return REPDL_ERR_OVERFLOW;
nomem:
    repdl_dp_free(dp);
    return REPDL_ERR_NOMEM;
}

/* The common part of the steps: the callbacks on every thread, then the
   rank's node vectors into dp->nodes. */
static inline repdl_status repdl__dp_nodes(repdl_dp *dp, repdl_dp_unit_fn fn, void *ctx)
{
    size_t n, i, ns, V;
    int t, T;
    repdl_status st;
    repdl_units_node sub[2 * 63 + 1];
    if (!dp || !dp->ready || !fn) return REPDL_ERR_INVALID;
    T = dp->nthreads;
    V = dp->V;
    dp->job = 0;
    dp->unit_fn = fn;
    dp->ctx = ctx;
    st = repdl__dp_run(dp);
    if (st != REPDL_OK || V == 0) return st;
    /* a node shared by threads: its pieces' parts pushed in unit order,
       each at its level, into one tree (repdl_units_combine_f32 on the
       node's own c units) */
    for (n = 0; n < dp->nnodes; n++) {
        size_t c = dp->node[n].count;
        const repdl__dp_piece *pc = &dp->piece[n * (size_t)T];
        int whole = 0;
        for (t = 0; t < T; t++)
            if (pc[t].lo == 0 && pc[t].hi == c) whole = 1;
        if (whole) continue; /* already in its slot */
        repdl__vtree_clear(&dp->comb, V);
        for (t = 0; t < T; t++) {
            if (pc[t].lo >= pc[t].hi) continue;
            ns = repdl_units_nodes(c, pc[t].lo, pc[t].hi, 2 * 63 + 1, sub);
            for (i = 0; i < ns; i++)
                repdl__vtree_push_ref(&dp->comb, sub[i].level, pc[t].nodes + i * V);
        }
        repdl__vtree_root(&dp->comb, dp->nodes + n * V);
    }
    return REPDL_OK;
}

/* One rank's part of a step: its node vectors (node i of the cut of
   [unit0, unit1), i < nnodes, at nodes + i V), what repdl_mpi_sum_nodes_f32
   (or another transport that adds nodes in the order of docs/mpi.md)
   takes.  nodes: nnodes V floats, may be NULL when that is 0; it must not
   be a callback's memory.  Statuses:
     REPDL_ERR_INVALID   dp NULL or not initialised, fn NULL, nodes NULL
                         with nnodes V > 0 (the callback not called)
     a callback's status its first failure, in thread order (each thread
                         stops at its own first failure)
   on error nodes is not written.  No allocation: every tree is the
   plan's. */
REPDL_HOST_API repdl_status repdl_dp_step_nodes_f32(repdl_dp *dp, repdl_dp_unit_fn fn,
                                                    void *ctx, float *nodes)
{
    REPDL__FPENV_CHECK();
    repdl_status st;
    if (!dp || !dp->ready || !fn) return REPDL_ERR_INVALID;
    if (dp->nnodes > 0 && dp->V > 0 && !nodes) return REPDL_ERR_INVALID;
    st = repdl__dp_nodes(dp, fn, ctx);
    if (st != REPDL_OK) return st;
    if (dp->nnodes > 0 && dp->V > 0)
        memcpy(nodes, dp->nodes, dp->nnodes * dp->V * sizeof(float));
    return REPDL_OK;
}

/* The step of one process (nranks = 1): grad[0..V) = the canonical sum of
   the G micro-batch gradients.  grad may be NULL when V = 0; it must not
   be a callback's memory (it is written after every callback returned).
   Statuses as repdl_dp_step_nodes_f32, and REPDL_ERR_INVALID when the
   plan has nranks > 1 (use repdl_dp_step_mpi_f32 or _nodes_f32) or grad
   is NULL with V > 0.  G = 0 (batch 0): grad all -0.0.  On error grad is
   not written. */
REPDL_HOST_API repdl_status repdl_dp_step_f32(repdl_dp *dp, repdl_dp_unit_fn fn, void *ctx,
                                              float *grad)
{
    REPDL__FPENV_CHECK();
    repdl_status st;
    size_t i;
    if (!dp || !dp->ready || !fn || dp->nranks != 1 || (dp->V > 0 && !grad))
        return REPDL_ERR_INVALID;
    st = repdl__dp_nodes(dp, fn, ctx);
    if (st != REPDL_OK) return st;
    if (dp->units == 0) {
        for (i = 0; i < dp->V; i++) grad[i] = -0.0f;
    } else if (dp->V > 0) {
        memcpy(grad, dp->nodes, dp->V * sizeof(float)); /* [0, G) is one node: the sum */
    }
    return REPDL_OK;
}

/* The pool over the items [begin, end): thread t runs fn(ctx, t, b, e) on
   its contiguous share [begin + floor(n t / T), begin + floor(n (t+1) / T))
   (n = end - begin; empty shares are not called).  Work whose results do
   not depend on the split (forward passes are per sample).  REPDL_OK;
   REPDL_ERR_INVALID for dp NULL or not initialised, fn NULL, begin > end;
   otherwise the first failure of fn in thread order. */
REPDL_HOST_API repdl_status repdl_dp_for(repdl_dp *dp, size_t begin, size_t end,
                                         repdl_dp_range_fn fn, void *ctx)
{
    REPDL__FPENV_CHECK();
    size_t n;
    int t, T;
    if (!dp || !dp->ready || !fn || begin > end) return REPDL_ERR_INVALID;
    T = dp->nthreads;
    n = end - begin;
    for (t = 0; t < T; t++) {
        /* floor(n t / T) without forming n t */
        dp->worker[t].b0 = begin + repdl__dp_split(n, (size_t)t, (size_t)T);
        dp->worker[t].b1 = begin + repdl__dp_split(n, (size_t)t + 1, (size_t)T);
    }
    dp->job = 1;
    dp->range_fn = fn;
    dp->ctx = ctx;
    return repdl__dp_run(dp);
}

#if defined(REPDL_DP_MPI)
/* The step of every rank of comm (collective; size nranks, this rank
   `rank` as in repdl_dp_init): grad[0..V) = the canonical sum of the G
   micro-batch gradients on every rank, the bits of repdl_dp_step_f32 in
   one process.  Every rank computes its node vectors
   (repdl_dp_step_nodes_f32), the ranks agree on the worst status (one
   MPI_Allreduce of an int), then repdl_mpi_sum_nodes_f32.  Returns the
   same status on every rank: REPDL_OK; the most negative of the ranks'
   statuses (REPDL_ERR_INVALID for a NULL argument, or a plan whose
   nranks or rank is not comm's; a callback's status); then
   repdl_mpi_sum_nodes_f32's (REPDL_ERR_NOMEM among them: its buffers); REPDL_ERR_MPI when an MPI call fails.
   grad may be NULL when V = 0; on error it is not written. */
REPDL_HOST_API repdl_status repdl_dp_step_mpi_f32(repdl_dp *dp, MPI_Comm comm,
                                                  repdl_dp_unit_fn fn, void *ctx, float *grad)
{
    REPDL__FPENV_CHECK();
    int size, me, local, global;
    repdl_status st = REPDL_OK;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS || MPI_Comm_rank(comm, &me) != MPI_SUCCESS)
        return REPDL_ERR_MPI;
    if (!dp || !dp->ready || !fn || dp->nranks != size || dp->rank != me ||
        (dp->V > 0 && !grad))
        st = REPDL_ERR_INVALID;
    else
        st = repdl__dp_nodes(dp, fn, ctx);
    local = (int)st;
    if (MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return REPDL_ERR_MPI;
    if (global != REPDL_OK) return (repdl_status)global;
    return repdl_mpi_sum_nodes_f32(comm, dp->units, dp->unit0, dp->unit1, dp->V,
                                   dp->nnodes > 0 ? dp->nodes : NULL, grad);
}
#endif

REPDL_END_CODE
#endif /* REPDL_DATA_PARALLEL_H */
