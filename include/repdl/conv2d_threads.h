/* SPDX-License-Identifier: MIT */
/* repdl/conv2d_threads.h: the convolutions of conv2d.h split across POSIX
   threads (host only; not included by repdl.h: link with -pthread).

     repdl_conv2d_forward_threads_f32(s, T, x, w, b, y)
         == repdl_conv2d_forward_f32(s, x, w, b, y), bit for bit, every T;
     repdl_conv2d_backward_threads_f32(s, T, x, w, dy, dx, dw, db)
         == repdl_conv2d_backward_f32(s, x, w, dy, dx, dw, db), every T.

   Why the cut cannot change a bit (the orders of conv2d.h):
   - forward: y[n][o][pq] is one chain that reads image n, filter o and
     b[o] only.  With n >= T the images are cut into T ranges, otherwise
     the output channels (in whole micro-panels of REPDL__GEMM_MR); each
     thread runs the serial code (repdl__conv2d_forward_part_f32) on its
     part.
   - dx: dx[n] reads dy[n] and w only: each thread computes whole images.
   - dw, db: the buddy tree over the micro-batches g (REPDL_MICROBATCH
     images each) of the per-micro-batch chains.  A leaf g is exactly the
     value of the serial call on the images of g alone (conv2d.h: "a call
     on the images of one micro-batch gives its value").  With G >= 2
     micro-batches the threads compute whole leaves, T at a time, each by
     the serial call on its micro-batch (which also writes that
     micro-batch's dx); the caller pushes the leaves, in order, into the
     same tree (repdl__vtree) as the serial code.  With one micro-batch
     (n <= REPDL_MICROBATCH) dw and db are cut by output channels instead:
     dw[o] and db[o] read dy[.][o] only, so each thread runs the serial
     call on its channels (dy of those channels gathered into a scratch
     copy: moves only) while dx is cut by images.
   Threads are created and joined in each call; work below
   REPDL_CONV_THREADS_MIN multiply-adds runs on the caller's thread, and a
   part whose thread cannot be created is computed by the caller (same
   bits).  Return value: that of the serial function (0, -1 bad argument,
   -3 REPDL_ERR_NOMEM out of memory).  Every thread's workspace (and the
   leaves and trees of dw, db) is taken before the first thread starts, so
   that REPDL_ERR_NOMEM writes nothing, as the serial call (the
   out-of-memory rule of the batch order, docs/canonical-order.md). */
#ifndef REPDL_CONV2D_THREADS_H
#define REPDL_CONV2D_THREADS_H

#include <pthread.h>

#include "conv2d.h"
REPDL_BEGIN_CODE

#ifndef REPDL_CONV_THREADS_MAX
#define REPDL_CONV_THREADS_MAX 64
#endif
#ifndef REPDL_CONV_THREADS_MIN
#define REPDL_CONV_THREADS_MIN ((double)(1 << 18)) /* multiply-adds below this: one thread */
#endif

typedef struct repdl__conv_job {
    int kind; /* 0 forward part, 1 backward (serial call), 2 backward on channels */
    repdl_conv2d_shape s;
    size_t o0, o1;
    const float *x, *w, *b, *dy;
    float *y, *dx, *dw, *db;
    float *ws; /* backward: the job's workspace (dys first for kind 2), taken by the caller */
    repdl_status st;
    struct repdl__conv_job *next; /* run after this one, on the same thread, or NULL */
} repdl__conv_job;

/* The floats of dy gathered for m channels of s (a multiple of 4). */
REPDL_FN size_t repdl__conv_dys_floats(const repdl_conv2d_shape *s, size_t m)
{
    return (s->n * m * repdl_conv2d_out_h(s) * repdl_conv2d_out_w(s) + 3) / 4 * 4;
}

/* The workspace of a job: kind 0 its forward part's; kind 1 (n <=
   REPDL_MICROBATCH images) the serial backward call's, kind 2 the gathered
   dy of channels [o0, o1) and the serial call's on them (dx not asked
   for). */
REPDL_FN size_t repdl__conv_job_floats(const repdl__conv_job *j)
{
    repdl__conv_bwd_plan pl;
    repdl_conv2d_shape s = j->s;
    if (j->kind == 0) {
        size_t sz[4];
        if (j->o1 <= j->o0 || j->s.n == 0) return 0;
        repdl__conv_fwd_sizes(&s, j->o0, j->o1, sz);
        return sz[0] + sz[1] + sz[2] + sz[3];
    }
    if (j->kind == 1) {
        repdl__conv_bwd_plan_of(&s, j->dx != NULL, j->dw != NULL, &pl);
        return repdl__conv_bwd_floats(&pl);
    }
    if (j->o1 <= j->o0) return 0;
    s.oc = j->o1 - j->o0;
    repdl__conv_bwd_plan_of(&s, 0, j->dw != NULL, &pl);
    return repdl__conv_dys_floats(&j->s, s.oc) + repdl__conv_bwd_floats(&pl);
}

/* Gives each of the jobs j[0..T) (and those they chain to) its workspace
   from one block, taken before any job runs (the out-of-memory rule of
   the batch order: a REPDL_ERR_NOMEM writes nothing).  Returns the block
   (free it), NULL when it cannot be had; *none = 1 when no job needs one. */
REPDL_FN float *repdl__conv_jobs_ws(repdl__conv_job *job, int T, int *none)
{
    size_t total = 0, off = 0;
    int t;
    float *block;
    repdl__conv_job *j;
    *none = 0;
    for (t = 0; t < T; t++)
        for (j = &job[t]; j; j = j->next) {
            j->ws = NULL;
            if (repdl__size_add(&total, repdl__conv_job_floats(j))) return NULL;
        }
    *none = total == 0;
    if (total == 0 || total > (size_t)-1 / sizeof(float)) return NULL;
    block = (float *)REPDL__ALLOC(total * sizeof(float));
    if (!block) return NULL;
    for (t = 0; t < T; t++)
        for (j = &job[t]; j; j = j->next) {
            j->ws = block + off;
            off += repdl__conv_job_floats(j);
        }
    return block;
}

static inline void *repdl__conv_job_run(void *arg)
{
    repdl__conv_job *j = (repdl__conv_job *)arg;
    if (j->kind == 0) {
        j->st = j->o1 > j->o0 && j->s.n
                    ? repdl__conv2d_forward_part_f32(&j->s, j->o0, j->o1, j->x, j->w, j->b, j->y,
                                                     j->ws)
                    : REPDL_OK;
    } else if (j->kind == 1) {
        j->st = repdl__conv2d_backward_ws(&j->s, j->x, j->w, j->dy, j->dx, j->dw, j->db, j->ws);
    } else {
        /* dw, db of channels [o0, o1): dy of those channels gathered */
        repdl_conv2d_shape s = j->s;
        size_t P = repdl_conv2d_out_h(&s) * repdl_conv2d_out_w(&s), OC = s.oc, m, img;
        size_t CK = s.c * s.kh * s.kw;
        float *dys = j->ws;
        j->st = REPDL_OK;
        if (j->o1 <= j->o0) return NULL;
        m = j->o1 - j->o0;
        for (img = 0; img < s.n; img++)
            if (m != 0 && P != 0) memcpy(dys + img * m * P, j->dy + (img * OC + j->o0) * P, m * P * sizeof(float));
        s.oc = m;
        j->st = repdl__conv2d_backward_ws(&s, j->x, j->w, dys, NULL,
                                          j->dw ? j->dw + j->o0 * CK : NULL,
                                          j->db ? j->db + j->o0 : NULL,
                                          dys + repdl__conv_dys_floats(&j->s, m));
    }
    if (j->next) repdl__conv_job_run(j->next);
    return NULL;
}

/* Runs jobs [0, T) (job 0 on the caller's thread); the first error. */
REPDL_FN repdl_status repdl__conv_jobs_run(repdl__conv_job *job, int T)
{
    pthread_t tid[REPDL_CONV_THREADS_MAX];
    int started[REPDL_CONV_THREADS_MAX], t;
    repdl_status st = REPDL_OK;
    for (t = 1; t < T; t++)
        started[t] = pthread_create(&tid[t], NULL, repdl__conv_job_run, &job[t]) == 0;
    repdl__conv_job_run(&job[0]);
    for (t = 1; t < T; t++) {
        if (started[t]) pthread_join(tid[t], NULL);
        else repdl__conv_job_run(&job[t]);
    }
    for (t = 0; t < T; t++) {
        if (job[t].st != REPDL_OK && st == REPDL_OK) st = job[t].st;
        if (job[t].next && job[t].next->st != REPDL_OK && st == REPDL_OK) st = job[t].next->st;
    }
    return st;
}

/* The thread count for work of `fmas` multiply-adds and `units` parts. */
REPDL_FN int repdl__conv_threads(int nthreads, double fmas, size_t units)
{
    int T = nthreads;
    if (T > REPDL_CONV_THREADS_MAX) T = REPDL_CONV_THREADS_MAX;
    if (T < 1 || fmas < REPDL_CONV_THREADS_MIN) T = 1;
    if ((size_t)T > units) T = units ? (int)units : 1;
    return T;
}

REPDL_HOST_API repdl_status repdl_conv2d_forward_threads_f32(const repdl_conv2d_shape *s,
                                                            int nthreads, const float *x,
                                                            const float *w, const float *b,
                                                            float *y)
{
    REPDL__FPENV_CHECK();
    repdl__conv_job job[REPDL_CONV_THREADS_MAX];
    size_t oh = 0, ow = 0, P = 0, CK = 0, in_sz = 0, units, per, extra, lo = 0;
    int T, t, by_img;
    repdl_status st;
    int go = repdl__conv2d_forward_args(s, x, w, y, &oh, &ow, &P, &CK, &in_sz);
    if (go != 1) return (repdl_status)go;
    by_img = s->n >= (size_t)(nthreads > 1 ? nthreads : 1);
    units = by_img ? s->n : (s->oc + REPDL__GEMM_MR - 1) / REPDL__GEMM_MR;
    T = repdl__conv_threads(nthreads, (double)s->n * (double)s->oc * (double)P * (double)CK,
                            units);
    if (T == 1) return repdl__conv2d_forward_part_f32(s, 0, s->oc, x, w, b, y, NULL);
    per = units / (size_t)T;
    extra = units % (size_t)T;
    for (t = 0; t < T; t++) {
        size_t hi = lo + per + ((size_t)t < extra ? 1 : 0);
        repdl__conv_job *j = &job[t];
        j->kind = 0;
        j->next = NULL;
        j->s = *s;
        j->w = w;
        j->b = b;
        if (by_img) {
            j->s.n = hi - lo;
            j->o0 = 0;
            j->o1 = s->oc;
            j->x = REPDL__OFFSET(x, lo * in_sz);
            j->y = y + lo * s->oc * P;
        } else {
            j->o0 = lo * REPDL__GEMM_MR;
            j->o1 = hi * REPDL__GEMM_MR < s->oc ? hi * REPDL__GEMM_MR : s->oc;
            j->x = x;
            j->y = y;
        }
        lo = hi;
    }
    { /* every thread's workspace before the first write */
        int none;
        float *block = repdl__conv_jobs_ws(job, T, &none);
        if (!block && !none) return REPDL_ERR_NOMEM;
        st = repdl__conv_jobs_run(job, T);
        free(block);
        return st;
    }
}

REPDL_HOST_API repdl_status repdl_conv2d_backward_threads_f32(const repdl_conv2d_shape *s,
                                                             int nthreads, const float *x,
                                                             const float *w, const float *dy,
                                                             float *dx, float *dw, float *db)
{
    REPDL__FPENV_CHECK();
    repdl__conv_job job[REPDL_CONV_THREADS_MAX];
    size_t oh, ow, P, CK, OC, in_sz, G, g;
    int T, t;
    repdl_status st = repdl__conv2d_sizes(s, &oh, &ow, &P, &CK, &in_sz);
    if (st != REPDL_OK) return st;
    OC = s->oc;
    G = repdl__mb_count(s->n);
    /* the serial call for what has no work to share (and the argument
       checks of the serial code: its return values) */
    T = repdl__conv_threads(nthreads, 2.0 * (double)s->n * (double)OC * (double)P * (double)CK,
                            G >= 2 ? G
                            : s->n > (OC + REPDL__GEMM_MR - 1) / REPDL__GEMM_MR
                                ? s->n
                                : (OC + REPDL__GEMM_MR - 1) / REPDL__GEMM_MR);
    if (T == 1 || P == 0 || OC == 0 || CK == 0 || (s->n && !dy) ||
        (dx && in_sz && !w) || (dw && !x && in_sz))
        return repdl_conv2d_backward_f32(s, x, w, dy, dx, dw, db);
    if (G >= 2) {
        /* leaves of the micro-batch tree, T at a time */
        size_t V = (dw ? OC * CK : 0) + (db ? OC : 0), W, need;
        float *leaf = NULL;
        repdl__vtree tw = {0, 0, 0, NULL, NULL}, tb = {0, 0, 0, NULL, NULL};
        repdl__conv_job probe;
        /* per thread: its leaf (V floats) and the workspace of a whole
           micro-batch's serial call (W floats, enough for a short one),
           all taken before the first job runs */
        probe.kind = 1;
        probe.s = *s;
        probe.s.n = REPDL_MICROBATCH;
        probe.dx = dx;
        probe.dw = dw;
        W = repdl__conv_job_floats(&probe);
        need = V;
        if (repdl__size_add(&need, W) || repdl__size_mul(&need, (size_t)T)) return REPDL_ERR_NOMEM;
        if (need) leaf = repdl__conv_alloc(need);
        if ((need && !leaf) || (dw && repdl__vtree_init(&tw, OC * CK, G) != 0) ||
            (db && repdl__vtree_init(&tb, OC, G) != 0)) {
            free(leaf);
            repdl__vtree_free(&tw);
            repdl__vtree_free(&tb);
            return REPDL_ERR_NOMEM;
        }
        for (g = 0; g < G && st == REPDL_OK; g += (size_t)T) {
            int m = G - g < (size_t)T ? (int)(G - g) : T;
            for (t = 0; t < m; t++) {
                size_t g0 = (g + (size_t)t) * REPDL_MICROBATCH;
                repdl__conv_job *j = &job[t];
                j->kind = 1;
                j->next = NULL;
                j->s = *s;
                j->s.n = repdl__mb_end(s->n, g0) - g0;
                j->x = REPDL__OFFSET(x, g0 * in_sz);
                j->w = w;
                j->dy = dy + g0 * OC * P;
                j->dx = dx ? dx + g0 * in_sz : NULL;
                j->dw = dw ? leaf + (size_t)t * V : NULL;
                j->db = db ? leaf + (size_t)t * V + (dw ? OC * CK : 0) : NULL;
                j->ws = W ? leaf + V * (size_t)T + (size_t)t * W : NULL;
            }
            st = repdl__conv_jobs_run(job, m);
            for (t = 0; t < m && st == REPDL_OK; t++) {
                if (dw) {
                    memcpy(repdl__vtree_dest(&tw, 0), job[t].dw, OC * CK * sizeof(float));
                    repdl__vtree_push(&tw, 0);
                }
                if (db) {
                    memcpy(repdl__vtree_dest(&tb, 0), job[t].db, OC * sizeof(float));
                    repdl__vtree_push(&tb, 0);
                }
            }
        }
        if (st == REPDL_OK && dw) repdl__vtree_root(&tw, dw);
        if (st == REPDL_OK && db) repdl__vtree_root(&tb, db);
        free(leaf);
        repdl__vtree_free(&tw);
        repdl__vtree_free(&tb);
        return st;
    }
    /* one micro-batch: dx by images, dw and db by channels (in whole
       micro-panels), thread t doing both of its parts */
    {
        size_t nimg = s->n, units = (OC + REPDL__GEMM_MR - 1) / REPDL__GEMM_MR, lo_i = 0, lo_o = 0;
        repdl__conv_job jx[REPDL_CONV_THREADS_MAX];
        for (t = 0; t < T; t++) {
            size_t hi_i = lo_i + nimg / (size_t)T + ((size_t)t < nimg % (size_t)T ? 1 : 0);
            size_t hi_o = lo_o + units / (size_t)T + ((size_t)t < units % (size_t)T ? 1 : 0);
            repdl__conv_job *j = &jx[t];
            j->kind = 1;
            j->next = &job[t];
            j->s = *s;
            j->s.n = dx ? hi_i - lo_i : 0;
            j->x = REPDL__OFFSET(x, lo_i * in_sz);
            j->w = w;
            j->dy = dy + lo_i * OC * P;
            j->dx = dx && hi_i > lo_i ? dx + lo_i * in_sz : NULL;
            j->dw = NULL;
            j->db = NULL;
            j = &job[t];
            j->kind = 2;
            j->next = NULL;
            j->s = *s;
            j->o0 = lo_o * REPDL__GEMM_MR;
            j->o1 = hi_o * REPDL__GEMM_MR < OC ? hi_o * REPDL__GEMM_MR : OC;
            if (j->o1 < j->o0) j->o1 = j->o0;
            j->x = x;
            j->w = w;
            j->dy = dy;
            j->dw = dw;
            j->db = db;
            if (!dw && !db) j->o1 = j->o0;
            lo_i = hi_i;
            lo_o = hi_o;
        }
        /* thread t: its images' dx, then its channels' dw and db, in the
           workspaces taken here */
        {
            int none;
            float *block = repdl__conv_jobs_ws(jx, T, &none);
            repdl_status st2;
            if (!block && !none) return REPDL_ERR_NOMEM;
            st2 = repdl__conv_jobs_run(jx, T);
            free(block);
            return st2;
        }
    }
}

REPDL_END_CODE
#endif /* REPDL_CONV2D_THREADS_H */
