/* SPDX-License-Identifier: MIT */
/* repdl/detail/accum.h: the accumulation layer.  Every canonical sum of
   repdl (sum, dot, norms, mean, variance, softmax, the losses, layer / RMS
   / batch norm statistics) goes through this file: call sites produce
   rounded terms, this file owns the order (docs/canonical-order.md,
   sections 2 to 4; docs/architecture.md).

     repdl__tree t;  float p[REPDL_SUM_LEAF];  size_t j, len;
     repdl__tree_init(&t);
     REPDL__LEAVES(n, j, len) {                 a leaf at a time
         ... p[i] = term j + i, rounded, for i < len ...
         repdl__tree_leaf(&t, p, len);          barrier, -0 padding, leaf, tree
     }
     s = repdl__tree_root(&t);                  -0.0 for no term

   Pieces, bottom up:
     leaf       1024 terms as 16 vectors of 64 lanes: a vertical pairwise
                tree per lane, then the lanes folded by halving.  Three
                schedules of the same additions (full: columns straight from
                memory; stream: first level in address order; pairs: the
                rest), and the same for products of two arrays (dot);
     tree       the aligned buddy tree over leaf values (or over block
                partials: repdl__tree_push at level k);
     short      a leaf of at most 16 terms: the 15 additions that remain
                of its 1023 (repdl__sum16_f32; proof there), also for 256
                columns of a row-major matrix at once (repdl__cols_sum16:
                the micro-batches of dgamma, dbeta in norm.h);
     terms      repdl__tree_leaf (a caller's buffer of rounded terms) and
                repdl__tree_leaf_copy (terms already in memory);
     walks      whole arrays: contiguous with the schedules chosen by size
                (repdl__tree_sum_run, repdl__tree_dot_run), or staged a leaf
                at a time through a stack buffer (strided, rows in L3/DRAM:
                repdl__tree_staged).
     batch      the batch order of the backward passes: micro-batches of
                REPDL_MICROBATCH samples, their values added by the buddy
                tree (repdl__vtree for vectors of outputs: reduce_units.h,
                mpi.h, linear.h, conv2d.h, norm.h; the scalar tree per
                element on the device, repdl__tree_load / _store).  Every
                dense form takes its carries from repdl__tree_carry_end;
                the sparse form repdl__stree (leaves with gaps: the
                micro-batches that hold one id, embedding.h) from the
                meeting level of consecutive leaves.
   The CUDA kernels use the same leaf tree and buddy tree (cuda/reduce.cu). */
#ifndef REPDL_DETAIL_ACCUM_H
#define REPDL_DETAIL_ACCUM_H

#include <stdlib.h>

#include "../config.h"
#include "barrier.h"
REPDL_BEGIN_CODE

/* ---- The leaf geometry (part of the definition: never change it) ---- */
#define REPDL_SUM_LANES 64  /* V: lanes of a vector, 256 bytes */
#define REPDL_SUM_VECS 16   /* L: vectors of a leaf */
#define REPDL_SUM_LEAF 1024 /* V * L elements, 4 KiB */
#define REPDL_SUM_LEAF_LOG2 10

/* Two schedules compute a leaf, with the same additions in the same order
   (so the same bits); they differ only in the order of the memory
   accesses, and the faster one depends on where the data lives
   (docs/bench-reduce.md):
     full    (repdl__sum_leaf_full_f32)    data in L1/L2: lane columns
             straight from memory, the tree in registers;
     stream  (repdl__sum_leaf_stream_f32)  from REPDL_SUM_STREAM_MIN
             elements (past L2): the first tree level reads 512 contiguous
             bytes at a time, in address order, the rest works in L1.
   From REPDL_SUM_PREFETCH_MIN elements (past L3) the stream schedule also
   asks for the leaf REPDL_SUM_PREFETCH_LEAVES ahead to be brought into L2
   (a hint, 16 prefetches a leaf; no effect on any result).
   A dot product (two arrays) switches to stream at REPDL_SUM_STREAM_MIN
   elements too (measured) and prefetches from half REPDL_SUM_PREFETCH_MIN
   (the same bytes). */
#ifndef REPDL_SUM_STREAM_MIN
#define REPDL_SUM_STREAM_MIN ((size_t)1 << 18) /* 1 MiB of floats */
#endif
#ifndef REPDL_SUM_PREFETCH_MIN
#define REPDL_SUM_PREFETCH_MIN ((size_t)1 << 22) /* 16 MiB of floats */
#endif
#ifndef REPDL_SUM_PREFETCH_LEAVES
#define REPDL_SUM_PREFETCH_LEAVES 4
#endif

/* Prefetch hint (gcc, clang): bring the line at p into L2.  Elsewhere
   nothing.  Prefetches never fault and never change a value. */
#if REPDL__GNU_HOST
#define REPDL__PREFETCH_L2(p) __builtin_prefetch((p), 0, 2)
#else
#define REPDL__PREFETCH_L2(p) ((void)(p))
#endif

/* One hint every 256 bytes of the leaf at x: the hardware prefetchers
   fetch the lines in between. */
REPDL_FN void repdl__prefetch_leaf(const float *x)
{
    int l;
    for (l = 0; l < REPDL_SUM_LEAF; l += REPDL_SUM_LANES) REPDL__PREFETCH_L2(x + l);
}

/* ---- Inside a leaf ---- */

/* The vertical tree of the 16 vectors, one lane: E(0) .. E(15) are the
   lane's elements of vectors 0 .. 15; adjacent pairs, then pairs of pairs. */
#define REPDL__TREE16(E)                                                              \
    repdl__fadd(repdl__fadd(repdl__fadd(repdl__fadd(E(0), E(1)), repdl__fadd(E(2), E(3))), \
                            repdl__fadd(repdl__fadd(E(4), E(5)), repdl__fadd(E(6), E(7)))), \
                repdl__fadd(repdl__fadd(repdl__fadd(E(8), E(9)), repdl__fadd(E(10), E(11))), \
                            repdl__fadd(repdl__fadd(E(12), E(13)), repdl__fadd(E(14), E(15)))))

/* The vertical tree of one lane: c[0], c[V], ..., c[15 V] (V = 64). */
REPDL_FN float repdl__sum_column_f32(const float *c)
{
#define REPDL__E(j) c[(j) * REPDL_SUM_LANES]
    return REPDL__TREE16(REPDL__E);
#undef REPDL__E
}

/* The last four halving steps of the lane fold (h = 8, 4, 2, 1) on
   b[0..15], which holds the 16 lanes left after h = 32 and h = 16.  With
   gcc and clang the steps h = 8 and h = 4 are written as one addition of
   8-lane and 4-lane vectors (GNU vector extensions): the same eight and
   four additions, lane by lane, which compilers otherwise scalarize (9%
   of a dot product in L1, docs/bench-reduce.md).  REPDL_PORTABLE_C selects
   the plain C99 of every other compiler (tested: tests/reduce). */
#if REPDL__GNU_HOST
typedef float repdl__v8f __attribute__((vector_size(32)));
typedef float repdl__v4f __attribute__((vector_size(16)));
REPDL_FN float repdl__sum_fold16_f32(float *b)
{
    repdl__v8f lo, hi;
    repdl__v4f l4, h4;
    float f[4];
    memcpy(&lo, b, sizeof lo);
    memcpy(&hi, b + 8, sizeof hi);
    lo = lo + hi;                              /* h = 8 */
    memcpy(&l4, &lo, sizeof l4);
    memcpy(&h4, (const char *)&lo + sizeof l4, sizeof h4);
    l4 = l4 + h4;                              /* h = 4 */
    memcpy(f, &l4, sizeof f);
    return repdl__fadd(repdl__fadd(f[0], f[2]), repdl__fadd(f[1], f[3])); /* h = 2, 1 */
}
#else
REPDL_FN float repdl__sum_fold16_f32(float *b)
{
    int v;
    for (v = 0; v < 8; v++) b[v] = repdl__fadd(b[v], b[v + 8]);
    for (v = 0; v < 4; v++) b[v] = repdl__fadd(b[v], b[v + 4]);
    for (v = 0; v < 2; v++) b[v] = repdl__fadd(b[v], b[v + 2]);
    return repdl__fadd(b[0], b[1]);
}
#endif

/* A full leaf x[0..1024), register-friendly schedule.  Lane v's column
   a[v] (vertical tree) is combined at once with the halving steps h = 32
   and h = 16, which only involve lanes v, v+16, v+32, v+48:
     after h = 32:  a'[v] = a[v] + a[v+32]          (v < 32)
     after h = 16:  a''[v] = a'[v] + a'[v+16]
                           = (a[v] + a[v+32]) + (a[v+16] + a[v+48])  (v < 16)
   The loop over v vectorizes at any width (4, 8 or 16 floats): the order
   of the additions does not depend on it. */
REPDL_FN float repdl__sum_leaf_full_f32(const float *x)
{
    float b[16];
    int v;
    for (v = 0; v < 16; v++) {
        float a0 = repdl__sum_column_f32(x + v);
        float a1 = repdl__sum_column_f32(x + v + 16);
        float a2 = repdl__sum_column_f32(x + v + 32);
        float a3 = repdl__sum_column_f32(x + v + 48);
        b[v] = repdl__fadd(repdl__fadd(a0, a2), repdl__fadd(a1, a3));
    }
    return repdl__sum_fold16_f32(b);
}

/* The rest of a leaf once its 8 pair vectors q[k] = vector 2k + vector
   2k+1 (the first level of the vertical tree) are known. */
REPDL_FN float repdl__sum_leaf_pairs_f32(float (*q)[REPDL_SUM_LANES])
{
    float b[16];
    int v, c;
    for (v = 0; v < 16; v++) {
        float a[4];
        for (c = 0; c < 4; c++) {
            int w = v + 16 * c;
            float s0 = repdl__fadd(q[0][w], q[1][w]);
            float s1 = repdl__fadd(q[2][w], q[3][w]);
            float s2 = repdl__fadd(q[4][w], q[5][w]);
            float s3 = repdl__fadd(q[6][w], q[7][w]);
            a[c] = repdl__fadd(repdl__fadd(s0, s1), repdl__fadd(s2, s3));
        }
        b[v] = repdl__fadd(repdl__fadd(a[0], a[2]), repdl__fadd(a[1], a[3]));
    }
    return repdl__sum_fold16_f32(b);
}

/* The same leaf value, streaming schedule for data from DRAM: first the
   adjacent vector pairs (the tree's first level), reading 512 contiguous
   bytes at a time in address order, into q; then the rest of the tree on q
   (in L1).  The barrier keeps the compiler from interleaving the two
   phases, which would scatter the reads over the 4 KiB leaf and defeat the
   prefetchers (the full schedule is 2-3x slower from DRAM, measured,
   docs/bench-reduce.md). */
REPDL_FN float repdl__sum_leaf_stream_f32(const float *x)
{
    float q[8][REPDL_SUM_LANES];
    int k, v;
    for (k = 0; k < 8; k++) {
        const float *r = x + (size_t)(2 * k) * REPDL_SUM_LANES;
        for (v = 0; v < REPDL_SUM_LANES; v++)
            q[k][v] = repdl__fadd(r[v], r[v + REPDL_SUM_LANES]);
    }
    REPDL__MATERIALIZE(q);
    return repdl__sum_leaf_pairs_f32(q);
}

/* ---- Leaves of products (dot) ----
   A product is rounded before it is added: RN(x * y), never an FMA.  The
   full and stream schedules read the products straight from x and y, each
   behind the register shape of the barrier (REPDL__KEEP_PROD,
   detail/barrier.h): one AND a vector, no memory round trip. */

/* The vertical tree of one lane of products x[jV] * y[jV], j < 16. */
REPDL_FN float repdl__dot_column_f32(const float *x, const float *y, uint32_t keep)
{
#define REPDL__E(j) REPDL__KEEP_PROD(x[(j) * REPDL_SUM_LANES], y[(j) * REPDL_SUM_LANES], keep)
    return REPDL__TREE16(REPDL__E);
#undef REPDL__E
}

/* repdl__sum_leaf_full_f32 of the products of a full leaf. */
REPDL_FN float repdl__dot_leaf_full_f32(const float *x, const float *y, uint32_t keep)
{
    float b[16];
    int v;
    for (v = 0; v < 16; v++) {
        float a0 = repdl__dot_column_f32(x + v, y + v, keep);
        float a1 = repdl__dot_column_f32(x + v + 16, y + v + 16, keep);
        float a2 = repdl__dot_column_f32(x + v + 32, y + v + 32, keep);
        float a3 = repdl__dot_column_f32(x + v + 48, y + v + 48, keep);
        b[v] = repdl__fadd(repdl__fadd(a0, a2), repdl__fadd(a1, a3));
    }
    return repdl__sum_fold16_f32(b);
}

/* repdl__sum_leaf_stream_f32 of the products of a full leaf. */
REPDL_FN float repdl__dot_leaf_stream_f32(const float *x, const float *y, uint32_t keep)
{
    float q[8][REPDL_SUM_LANES];
    int k, v;
    for (k = 0; k < 8; k++) {
        const float *rx = x + (size_t)(2 * k) * REPDL_SUM_LANES;
        const float *ry = y + (size_t)(2 * k) * REPDL_SUM_LANES;
        for (v = 0; v < REPDL_SUM_LANES; v++)
            q[k][v] = repdl__fadd(REPDL__KEEP_PROD(rx[v], ry[v], keep),
                                  REPDL__KEEP_PROD(rx[v + REPDL_SUM_LANES], ry[v + REPDL_SUM_LANES],
                                              keep));
    }
    REPDL__MATERIALIZE(q);
    return repdl__sum_leaf_pairs_f32(q);
}

/* ---- The buddy tree over leaves (or over block partials) ----
   A binary counter: pushing the node of level k (a block of 2^k leaves)
   when `count` leaves are already in (count a multiple of 2^k) adds 2^k to
   count; each carry is a sibling merge, left operand first.  node[k] holds
   the pending complete subtree of bit k of count.  The root adds the
   pending subtrees from the lowest (rightmost) up: a missing right sibling
   passes its left sibling up, so the rightmost pending subtree simply
   climbs until it meets the next pending one on its left. */
typedef struct repdl__tree {
    size_t count; /* leaves pushed so far */
    float node[64];
} repdl__tree;

REPDL_FN void repdl__tree_init(repdl__tree *t) { t->count = 0; }

/* The carries of a push, for every form of the tree (this scalar one, the
   vector tree repdl__vtree below, and through it reduce_units.h, mpi.h,
   linear.h, conv2d.h and norm.h; the per-element device form of
   cuda/gemm_conv.cuh): the node of level k pushed when `count` units are
   in (a multiple of 2^k) merges with the pending nodes of levels k,
   k + 1, ..., end - 1 (the run of set bits of count from bit k), each
   pending node the left operand, lowest level first; the sum is then
   pending at level end.  Returns end (k when there is no carry). */
REPDL_FN unsigned repdl__tree_carry_end(size_t count, unsigned k)
{
    unsigned l = k;
    while (l < 64 && ((count >> l) & 1)) l++;
    return l;
}

REPDL_FN void repdl__tree_push(repdl__tree *t, unsigned k, float v)
{
    unsigned l, end = repdl__tree_carry_end(t->count, k);
    for (l = k; l < end; l++) v = repdl__fadd(t->node[l], v);
    t->node[end] = v;
    t->count += (size_t)1 << k;
}

REPDL_FN float repdl__tree_root(const repdl__tree *t)
{
    float acc = -0.0f; /* the sum of nothing */
    int any = 0;
    unsigned l;
    REPDL__ROLLED
    for (l = 0; l < 64 && (t->count >> l) != 0; l++) {
        if ((t->count >> l) & 1) {
            acc = any ? repdl__fadd(t->node[l], acc) : t->node[l];
            any = 1;
        }
    }
    return acc;
}

/* The same buddy tree over leaves that arrive with gaps (a sparse sum,
   e.g. the micro-batches that hold one id in embedding.h's backward):
   leaves g come in increasing order, w columns side by side, and an absent
   leaf is skipped.  Two consecutive present leaves g < h meet at level
   L = bit length of g ^ h; when leaf g is done, the pending nodes whose
   level is at most L are added into it (each pending node the left
   operand, the newest first: the carries of repdl__tree_push), and it
   waits at level L.  This is the tree with +0 for every absent leaf
   whenever no node is -0 (x + +0 = x for every x but -0): the caller
   starts each leaf from +0, so RN never makes a node -0.  Levels strictly
   decrease up the stack, so at most 64 nodes wait: stk holds 65 w floats. */
typedef struct repdl__stree {
    unsigned lv[65];
    unsigned top;
} repdl__stree;

/* Leaf g (in cur[0 .. w)) is done and the next present leaf is h > g:
   cur goes onto the stack, cur is +0 again. */
REPDL_FN void repdl__stree_next(repdl__stree *s, size_t g, size_t h, size_t w, float *stk,
                                float *cur)
{
    size_t x = g ^ h, j;
    unsigned L = 0;
    while (x) {
        L++;
        x >>= 1;
    }
    while (s->top > 0 && s->lv[s->top - 1] <= L) {
        s->top--;
        for (j = 0; j < w; j++) cur[j] = repdl__fadd(stk[s->top * w + j], cur[j]);
    }
    for (j = 0; j < w; j++) {
        stk[s->top * w + j] = cur[j];
        cur[j] = 0.0f;
    }
    s->lv[s->top] = L;
    s->top++;
}

/* The last leaf is in cur: the root, in cur. */
REPDL_FN void repdl__stree_root(repdl__stree *s, size_t w, const float *stk, float *cur)
{
    size_t j;
    while (s->top > 0) {
        s->top--;
        for (j = 0; j < w; j++) cur[j] = repdl__fadd(stk[s->top * w + j], cur[j]);
    }
}

/* A tree whose pending nodes wait in memory between calls (the device
   form: the tree of element e of a vector of ld floats, its node of
   level l at slots[l ld + e]; cuda/gemm_conv.cuh): the tree of `count`
   units from its pending nodes, and back.  Only the set bits of count are
   read or written (slots may be NULL when count is 0). */
REPDL_FN void repdl__tree_load(repdl__tree *t, size_t count, const float *slots, size_t ld,
                               size_t e)
{
    unsigned l;
    t->count = count;
    for (l = 0; l < 64 && (count >> l) != 0; l++)
        if ((count >> l) & 1) t->node[l] = slots[(size_t)l * ld + e];
}

REPDL_FN void repdl__tree_store(const repdl__tree *t, float *slots, size_t ld, size_t e)
{
    unsigned l;
    for (l = 0; l < 64 && (t->count >> l) != 0; l++)
        if ((t->count >> l) & 1) slots[(size_t)l * ld + e] = t->node[l];
}

/* ---- Short leaves: at most 16 terms ----
   A leaf of len <= 16 terms t_0 .. t_{len-1} (the rest of its 1024
   elements -0.0 padding) reduces to the last four halving steps of the
   lane fold on t_0 .. t_15 (t_i = -0.0 for i >= len), repdl__sum_fold16_f32:
     - the terms are elements 0 .. 15: vector 0, lanes 0 .. 15.  Vectors 1 ..
       15 are padding, so lane l's vertical tree (REPDL__TREE16) is t_l for
       l < 16 and -0 for l >= 16: every addition in it has a -0 operand
       besides at most one other, and x + -0 == x for every x (-0 + -0 = -0,
       +0 + -0 = +0; a NaN stays a NaN);
     - the steps h = 32 and h = 16 of the fold, b[v] = (a[v] + a[v+32]) +
       (a[v+16] + a[v+48]) for v < 16 (repdl__sum_leaf_full_f32), add -0 to
       a[v] = t_v: b[v] = t_v;
     - what remains is repdl__sum_fold16_f32(t_0 .. t_15): h = 8, 4, 2, 1,
       the same additions in the same order.
   So the leaf's value is the same bits, or a NaN exactly when it is a NaN
   (an operand that is a NaN makes every sum above it a NaN; every NaN is
   canonicalised where a sum is returned), with 15 additions instead of
   1023.  (tests/reduce checks every length against reduce_ref.h.) */

/* The leaf of len <= 16 terms p[0..len), p a buffer of >= 16 floats:
   p[len..16) is written with -0.0. */
REPDL_FN float repdl__sum16_f32(float *p, size_t len)
{
    size_t i;
    for (i = len; i < REPDL_SUM_VECS; i++) p[i] = -0.0f;
    REPDL__MATERIALIZE(p); /* rounded products: no FMA with the fold */
    return repdl__sum_fold16_f32(p);
}

/* The same for REPDL__COLS_BLOCK columns at once (sums over the rows of a
   row-major matrix: dgamma, dbeta of norm.h): column c's len <= 16 terms
   are e[0..len)[c]; out[c] = repdl__sum16_f32 of them, for c < cb.  The
   steps h = 8, 4, 2, 1 of repdl__sum_fold16_f32 with the 16 terms of a
   column down e[.][c], each step one vector operation across the columns;
   e[len..16) is padded with -0.0 and e is overwritten.  In order: h = 8
   here, then h = 4: a_v = e_v + e_{v+4} (v < 4), h = 2: b_v = a_v + a_{v+2}
   (v < 2), h = 1: b_0 + b_1 (repdl__cols_fold8). */
#define REPDL__COLS_BLOCK 256

/* The steps h = 4, 2, 1 for the columns, from the eight sums of the step
   h = 8: e[v ld + c] = t_v + t_{v+8} of column c, v < 8, c < cb (t_i =
   -0.0 for i >= len that is t_v alone when v + 8 >= len, and -0.0 when
   v >= len: x + -0 == x).  A caller may produce these eight rows itself,
   each sum from two rounded terms (norm.h's column sums do, so that the
   16 terms never go through memory); the barrier is the caller's. */
/* The first steps of repdl__cols_sum16 for one column, from terms given
   as an expression T(k) of the row offset k from row v (v < 8 for h = 8,
   v < 4 for h = 8 and 4), for a caller that computes the terms as it reads
   the rows (norm.h: the 16 terms never go through memory; the caller
   keeps each term from contraction, REPDL__KEEP_PROD):
     h = 8:         s_v = t_v + t_{v+8}
     h = 8 and 4:   a_v = s_v + s_{v+4} = (t_v + t_{v+8}) + (t_{v+4} + t_{v+12})
   then repdl__cols_fold8 (from the s_v) or repdl__cols_fold4 (from the
   a_v). */
#define REPDL__COLS_H8(T) repdl__fadd(T(0), T(8))
#define REPDL__COLS_H84(T) repdl__fadd(repdl__fadd(T(0), T(8)), repdl__fadd(T(4), T(12)))

/* The steps h = 2, 1 from the four sums of the step h = 4: e[v ld + c] =
   a_v of column c (v < 4): out[c] = (a_0 + a_2) + (a_1 + a_3). */
REPDL_FN void repdl__cols_fold4(const float *e, size_t ld, size_t cb, float *out)
{
    size_t c;
    for (c = 0; c < cb; c++)
        out[c] = repdl__fadd(repdl__fadd(e[c], e[2 * ld + c]), repdl__fadd(e[ld + c], e[3 * ld + c]));
}

REPDL_FN void repdl__cols_fold8(const float *e, size_t ld, size_t cb, float *out)
{
    size_t c;
#define REPDL__E8(v) e[(v) * ld + c]
    for (c = 0; c < cb; c++)
        out[c] = repdl__fadd(repdl__fadd(repdl__fadd(REPDL__E8(0), REPDL__E8(4)),
                                         repdl__fadd(REPDL__E8(2), REPDL__E8(6))),
                             repdl__fadd(repdl__fadd(REPDL__E8(1), REPDL__E8(5)),
                                         repdl__fadd(REPDL__E8(3), REPDL__E8(7))));
#undef REPDL__E8
}

REPDL_FN void repdl__cols_sum16(float (*e)[REPDL__COLS_BLOCK], size_t len, size_t cb, float *out)
{
    size_t c, v;
    for (v = len; v < REPDL_SUM_VECS; v++)
        for (c = 0; c < cb; c++) e[v][c] = -0.0f;
    REPDL__MATERIALIZE(e); /* rounded products: no FMA with the fold */
    for (v = 0; v < 8; v++) /* h = 8 */
        for (c = 0; c < cb; c++) e[v][c] = repdl__fadd(e[v][c], e[v + 8][c]);
    repdl__cols_fold8(e[0], REPDL__COLS_BLOCK, cb, out); /* h = 4, 2, 1 */
}

/* ---- Terms ---- */

/* Walks [0, n) a leaf at a time: j the first term of the leaf, len its
   length (1024, the last one 1 .. 1024). */
#define REPDL__LEAVES(n, j, len)                                                   \
    for ((j) = 0; (j) < (n) && (((len) = (n) - (j) < REPDL_SUM_LEAF ? (n) - (j)  \
                                                                 : REPDL_SUM_LEAF), 1); \
         (j) += REPDL_SUM_LEAF)

/* Pushes the leaf of the len (1 .. 1024) rounded terms p[0..len) into t.
   p is the caller's scratch buffer of REPDL_SUM_LEAF floats: the padding
   (-0.0, which changes no sum: x + -0 == x for every x) is written in
   place.  The barrier (REPDL__MATERIALIZE) is the only one any sum needs:
   products that made the terms cannot be fused with the leaf's additions. */
REPDL_FN void repdl__tree_leaf(repdl__tree *t, float *p, size_t len)
{
    size_t i;
    if (len <= REPDL_SUM_VECS) { /* the same value (short leaves, below) */
        repdl__tree_push(t, 0, repdl__sum16_f32(p, len));
        return;
    }
    REPDL__ROLLED
    for (i = len; i < REPDL_SUM_LEAF; i++) p[i] = -0.0f;
    REPDL__MATERIALIZE(p);
    repdl__tree_push(t, 0, repdl__sum_leaf_full_f32(p));
}

/* The same for terms already in memory x[0..len), which are only read: a
   full leaf straight from x, a short one through a copy. */
REPDL_FN void repdl__tree_leaf_copy(repdl__tree *t, const float *x, size_t len)
{
    float p[REPDL_SUM_LEAF];
    if (len == REPDL_SUM_LEAF) {
        repdl__tree_push(t, 0, repdl__sum_leaf_full_f32(x));
        return;
    }
    memcpy(p, x, len * sizeof *x);
    repdl__tree_leaf(t, p, len);
}

/* ---- Walks over whole arrays ---- */

/* x[0..n), contiguous: the full schedule below REPDL_SUM_STREAM_MIN
   elements, the stream schedule (prefetching from REPDL_SUM_PREFETCH_MIN)
   above. */
REPDL_FN void repdl__tree_sum_run(repdl__tree *t, size_t n, const float *x)
{
    size_t j, m = n >> REPDL_SUM_LEAF_LOG2;
    if (n < REPDL_SUM_STREAM_MIN) {
        for (j = 0; j < m; j++)
            repdl__tree_push(t, 0, repdl__sum_leaf_full_f32(x + j * REPDL_SUM_LEAF));
    } else {
        int pf = n >= REPDL_SUM_PREFETCH_MIN;
        for (j = 0; j < m; j++) {
            if (pf && j + REPDL_SUM_PREFETCH_LEAVES < m)
                repdl__prefetch_leaf(x + (j + REPDL_SUM_PREFETCH_LEAVES) * REPDL_SUM_LEAF);
            repdl__tree_push(t, 0, repdl__sum_leaf_stream_f32(x + j * REPDL_SUM_LEAF));
        }
    }
    if (n & (REPDL_SUM_LEAF - 1))
        repdl__tree_leaf_copy(t, x + m * REPDL_SUM_LEAF, n & (REPDL_SUM_LEAF - 1));
}

/* The terms RN(x[i] * y[i]), contiguous, schedules as repdl__tree_sum_run
   (a dot prefetches from half REPDL_SUM_PREFETCH_MIN: the same bytes). */
REPDL_FN void repdl__tree_dot_run(repdl__tree *t, size_t n, const float *x, const float *y)
{
    size_t j, i, m = n >> REPDL_SUM_LEAF_LOG2, r = n & (REPDL_SUM_LEAF - 1);
    uint32_t keep = repdl__opaque_ones();
    if (n < REPDL_SUM_STREAM_MIN) {
        for (j = 0; j < m; j++)
            repdl__tree_push(t, 0, repdl__dot_leaf_full_f32(x + j * REPDL_SUM_LEAF,
                                                            y + j * REPDL_SUM_LEAF, keep));
    } else {
        int pf = n >= REPDL_SUM_PREFETCH_MIN / 2;
        for (j = 0; j < m; j++) {
            if (pf && j + REPDL_SUM_PREFETCH_LEAVES < m) {
                repdl__prefetch_leaf(x + (j + REPDL_SUM_PREFETCH_LEAVES) * REPDL_SUM_LEAF);
                repdl__prefetch_leaf(y + (j + REPDL_SUM_PREFETCH_LEAVES) * REPDL_SUM_LEAF);
            }
            repdl__tree_push(t, 0, repdl__dot_leaf_stream_f32(x + j * REPDL_SUM_LEAF,
                                                              y + j * REPDL_SUM_LEAF, keep));
        }
    }
    if (r) {
        float p[REPDL_SUM_LEAF];
        const float *xr = x + m * REPDL_SUM_LEAF, *yr = y + m * REPDL_SUM_LEAF;
        for (i = 0; i < r; i++) p[i] = repdl__fmul(xr[i], yr[i]);
        repdl__tree_leaf(t, p, r);
    }
}

/* p[i] = RN(d * d), d = RN(p[i] - m), for i < len: squared deviations in
   place (the variance's terms). */
REPDL_FN void repdl__sqdev(float *p, size_t len, float m)
{
    size_t i;
    for (i = 0; i < len; i++) {
        float d = repdl__fsub(p[i], m);
        p[i] = repdl__fmul(d, d);
    }
}

/* The staged walk: each leaf's terms are first gathered (or multiplied,
   rounded) into a 4 KiB stack buffer in address order, then summed there
   in L1.  For strided data, and for rows that live in L3 or DRAM, where
   this is twice as fast as the full schedule's column reads (measured:
   docs/nn-softmax-norm.md).  Element i is x[i * incx] (y[i * incy]);
   strides in elements, any sign, 0 repeats one element.  The terms:
     REPDL__TERM_X      x_i
     REPDL__TERM_XY     RN(x_i * y_i)               (dot)
     REPDL__TERM_SQDEV  RN(RN(x_i - m)^2)            (variance given its mean) */
enum { REPDL__TERM_X, REPDL__TERM_XY, REPDL__TERM_SQDEV };
REPDL_FN void repdl__tree_staged(repdl__tree *t, int term, size_t n, const float *x,
                                 ptrdiff_t incx, const float *y, ptrdiff_t incy, float m)
{
    float p[REPDL_SUM_LEAF];
    size_t j, i, len;
    REPDL__LEAVES(n, j, len) {
        const float *xj = x + (ptrdiff_t)j * incx;
        if (term == REPDL__TERM_XY) {
            const float *yj = y + (ptrdiff_t)j * incy;
            if (incx == 1 && incy == 1) /* the same terms; a loop that vectorizes */
                for (i = 0; i < len; i++) p[i] = repdl__fmul(xj[i], yj[i]);
            else
                for (i = 0; i < len; i++)
                    p[i] = repdl__fmul(xj[(ptrdiff_t)i * incx], yj[(ptrdiff_t)i * incy]);
        } else if (term == REPDL__TERM_SQDEV) {
            if (incx == 1) /* the same terms; a loop that vectorizes */
                for (i = 0; i < len; i++) {
                    float d = repdl__fsub(xj[i], m);
                    p[i] = repdl__fmul(d, d);
                }
            else
                for (i = 0; i < len; i++) {
                    float d = repdl__fsub(xj[(ptrdiff_t)i * incx], m);
                    p[i] = repdl__fmul(d, d);
                }
        } else if (incx == 1) {
            memcpy(p, xj, len * sizeof *p);
        } else {
            for (i = 0; i < len; i++) p[i] = xj[(ptrdiff_t)i * incx];
        }
        repdl__tree_leaf(t, p, len);
    }
}

/* ---- The batch order: micro-batches and the vector tree ----
   Every reduction over the batch (the leading, sample index) of a
   backward pass (linear dW and db, conv2d dw and db, the norms' dgamma and
   dbeta, batch norm's statistics) cuts the batch into micro-batches of
   REPDL_MICROBATCH consecutive samples (the last one short when the batch
   is not a multiple), reduces each micro-batch alone in that output's own
   order, and adds the micro-batch values by the aligned buddy tree
   (docs/canonical-order.md, "The batch order").  Part of the definition:
   never change it.  A batch of at most REPDL_MICROBATCH samples is one
   micro-batch: its value is the micro-batch's own. */
#define REPDL_MICROBATCH 16

/* Micro-batches of a batch of n samples. */
REPDL_FN size_t repdl__mb_count(size_t n)
{
    return n / REPDL_MICROBATCH + (n % REPDL_MICROBATCH != 0);
}

/* The end of the micro-batch that starts at sample i0 (a multiple of
   REPDL_MICROBATCH, i0 < n) of a batch of n: i0 + REPDL_MICROBATCH, or n
   for a short last one. */
REPDL_FN size_t repdl__mb_end(size_t n, size_t i0)
{
    return n - i0 < REPDL_MICROBATCH ? n : i0 + REPDL_MICROBATCH;
}

/* Heap scratch of the batch order (the vector tree below, conv2d.h's
   workspaces): malloc, unless a translation unit defines REPDL__ALLOC
   before its first repdl include (tests/reduce/test_batch_oom.c fails chosen
   allocations so).  Released with free.

   The out-of-memory rule of the batch order (docs/canonical-order.md,
   "The batch order"; docs/api.md): a function whose tree or workspace
   cannot be had returns REPDL_ERR_NOMEM having written no output (every
   allocation comes before the first write); on success its bits do not
   depend on the memory it had. */
#ifndef REPDL__ALLOC
#define REPDL__ALLOC(bytes) malloc(bytes)
#endif

/* The aligned buddy tree of repdl__tree over vectors of V floats, element
   by element: the carries of repdl__tree_carry_end, each one vector
   addition left + right, into a slot of the tree.  The slots (pending
   nodes and a carry buffer) live on the heap (REPDL__ALLOC; REPDL_FN like
   the rest, so that the norms' host-and-device functions may call it).
     repdl__vtree t;
     if (repdl__vtree_init(&t, V, units)) ... no memory: REPDL_ERR_NOMEM
     for each node (a unit: level 0), in order, either
         float *d = repdl__vtree_dest(&t, k);   where to write it (V floats)
         ... compute its vector into d ...
         repdl__vtree_push(&t, k);
     or
         repdl__vtree_push_ref(&t, k, v);       v: the caller's V floats, read
                                                (not copied) until the root
     repdl__vtree_root(&t, out);                out[e] = the tree, canonical NaN
     repdl__vtree_free(&t);
   `units` is the number of level-0 units the pushed nodes cover (it sizes
   the pending slots: ceil(log2 units) + 1 of them, plus a carry buffer).
   As repdl__tree_push, a node of level k must come when the count of
   units already in is a multiple of 2^k.  The root adds the pending
   subtrees from the lowest up, as repdl__tree_root, the last addition
   straight into out.  repdl__vtree_clear(&t, W) starts a new tree over
   vectors of W <= V floats in the same slots. */
typedef struct repdl__vtree {
    size_t count, V;
    unsigned slots;     /* pending slots 0 .. slots-1; slot `slots` is the carry buffer */
    float *mem;         /* the slots, V floats each */
    const float **node; /* node[l]: the pending node of level l (its slot or a
                           caller's vector); the start of the heap block */
} repdl__vtree;

REPDL_FN int repdl__vtree_init(repdl__vtree *t, size_t V, size_t units)
{
    unsigned s = 1;
    size_t head; /* the node pointers, padded to 64 bytes: the slots keep
                    the block's alignment */
    void *block;
    while (s < 64 && ((size_t)1 << (s - 1)) < units) s++;
    head = (s * sizeof(const float *) + 63) / 64 * 64;
    t->count = 0;
    t->V = V;
    t->slots = s;
    t->mem = NULL;
    t->node = NULL;
    if (V == 0) return 0;
    if (V > ((size_t)-1 - 64 * sizeof(const float *) - 64) / sizeof(float) / (s + 1)) return -1;
    block = REPDL__ALLOC(head + V * (s + 1) * sizeof(float));
    if (!block) return -1;
    t->node = (const float **)block;
    t->mem = (float *)(void *)((char *)block + head);
    return 0;
}

REPDL_FN void repdl__vtree_clear(repdl__vtree *t, size_t V)
{
    t->count = 0;
    t->V = V;
}

/* The buffer the next node, of level k, is computed into: its own pending
   slot when it will not carry, the carry buffer otherwise. */
REPDL_FN float *repdl__vtree_dest(repdl__vtree *t, unsigned k)
{
    return t->mem + (size_t)(((t->count >> k) & 1) ? t->slots : k) * t->V;
}

/* Pushes the node of level k whose vector is at v: each carry writes the
   slot of its left operand, the last one the slot of level end. */
REPDL_FN void repdl__vtree_push_ref(repdl__vtree *t, unsigned k, const float *v)
{
    size_t V = t->V, i;
    unsigned l, end = repdl__tree_carry_end(t->count, k);
    if (V > 0) {
        for (l = k; l < end; l++) { /* left (pending, level l) + right */
            const float *left = t->node[l];
            float *dst = t->mem + (size_t)(l + 1 == end ? end : l) * V;
            for (i = 0; i < V; i++) dst[i] = repdl__fadd(left[i], v[i]);
            v = dst;
        }
        t->node[end] = v;
    }
    t->count += (size_t)1 << k;
}

REPDL_FN void repdl__vtree_push(repdl__vtree *t, unsigned k)
{
    repdl__vtree_push_ref(t, k, t->V > 0 ? repdl__vtree_dest(t, k) : NULL);
}

REPDL_FN void repdl__vtree_root(const repdl__vtree *t, float *out)
{
    size_t V = t->V, i;
    const float *acc = NULL;
    unsigned l, top = 0;
    if (V == 0) return;
    if (t->count == 0) {
        for (i = 0; i < V; i++) out[i] = -0.0f;
        return;
    }
    REPDL__ROLLED
    for (l = 0; l < 64 && (t->count >> l) != 0; l++)
        if ((t->count >> l) & 1) top = l;
    REPDL__ROLLED
    for (l = 0; l < top; l++) {
        float *dst = t->mem + (size_t)l * V;
        const float *left;
        if (!((t->count >> l) & 1)) continue;
        left = t->node[l];
        if (acc) {
            for (i = 0; i < V; i++) dst[i] = repdl__fadd(left[i], acc[i]);
            acc = dst;
        } else {
            acc = left;
        }
    }
    {
        const float *left = t->node[top];
        if (acc)
            for (i = 0; i < V; i++) out[i] = repdl__canon(repdl__fadd(left[i], acc[i]));
        else
            for (i = 0; i < V; i++) out[i] = repdl__canon(left[i]);
    }
}

REPDL_FN void repdl__vtree_free(repdl__vtree *t)
{
    free((void *)t->node);
    t->node = NULL;
    t->mem = NULL;
}

REPDL_END_CODE
#endif /* REPDL_DETAIL_ACCUM_H */
