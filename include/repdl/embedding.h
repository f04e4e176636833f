/* SPDX-License-Identifier: MIT */
/* repdl/embedding.h: embedding lookup (torch.nn.Embedding), forward and
   backward, the backward's sum over repeated ids in the batch order.

     table [vocab x dim], ids [n] (int64, each in [0, vocab)),
     out [n x dim], dout [n x dim], dtable [vocab x dim]
     out[i][d]    = table[ids[i]][d]                repdl_embedding_forward_f32
     dtable[v][d] = sum of dout[i][d] over the      repdl_embedding_backward_f32
                    positions i with ids[i] == v

   The order of the backward's sum (docs/canonical-order.md, "The batch
   order"; the positions i are the batch index):
     the positions are cut into micro-batches of REPDL_MICROBATCH
     consecutive positions (the last one short);
     value of micro-batch g for (v, d) = fadd chain over the positions i of
       g with ids[i] == v, ascending, of dout[i][d], from +0;
     dtable[v][d] = the aligned buddy tree over the micro-batches of these
       values (left operand first), every NaN 0x7fc00000.
   A micro-batch with no position of id v has the value +0.  Since a chain
   from +0, and a sum of two values neither of which is -0, is never -0,
   no value of this order is -0 and +0 + x == x for every x: the tree over
   every micro-batch is the tree over the micro-batches that hold id v
   alone, which is what is computed (repdl__embedding_grad_cols).  So:
     - a row that no id hits is +0 (torch's zero-filled gradient);
     - signed zeros: every zero of dtable is +0 (a row hit only by -0
       gradients is +0, as torch's index_add into zeros);
     - the bits depend on the ids and on dout, never on the order in which
       an implementation visits the positions (host: a stable counting
       sort by id; CUDA: the same, then one thread per element);
     - the call on the positions of one micro-batch (or of any run of whole
       micro-batches) returns that node's value, and nodes combine by the
       tree (include/repdl/reduce_units.h, repdl/mpi.h) to the bits of the
       call on the whole batch: a plain addition of two such results is
       never -0, so the +0 of untouched rows is the tree's own.
   Bad input: an id outside [0, vocab) is REPDL_ERR_INVALID with nothing
   written (every id is checked first, also when dim == 0).  n == 0: the
   forward writes nothing, the backward writes +0 to all of dtable.  An
   array may be NULL exactly when its extent is 0 (ids: n; table: vocab
   dim; out, dout: n dim; dtable: vocab dim), else REPDL_ERR_INVALID; an
   extent that does not fit in size_t bytes is REPDL_ERR_OVERFLOW.  The
   forward copies values, a NaN as 0x7fc00000.  The backward takes
   (vocab + 1 + n) size_t of scratch (malloc, REPDL__ALLOC) for the
   counting sort: REPDL_ERR_NOMEM with nothing written when it cannot be
   had.  Outputs must not overlap inputs. */
#ifndef REPDL_EMBEDDING_H
#define REPDL_EMBEDDING_H

#include "config.h"
#include "detail/accum.h"
REPDL_BEGIN_CODE

/* Every id in [0, vocab): 1, else 0 (ids has n entries). */
REPDL_FN int repdl__embedding_ids_ok(const int64_t *ids, size_t n, size_t vocab)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || (uint64_t)ids[i] >= (uint64_t)vocab) return 0;
    return 1;
}

/* The checks of both passes that read no array, host and CUDA launchers
   alike: sizes, then NULL arrays.  ta: table or dtable, io: out or dout. */
REPDL_FN repdl_status repdl__embedding_args(size_t vocab, size_t dim, const int64_t *ids,
                                            size_t n, const void *ta, const void *io)
{
    size_t tv = vocab, tn = n, ti = n; /* ids: n int64, the bytes of 2 n floats */
    if (repdl__size_mul(&tv, dim) || repdl__size_mul(&tn, dim) || repdl__size_mul(&ti, 2))
        return REPDL_ERR_OVERFLOW;
    if ((n && !ids) || (tv && !ta) || (tn && !io)) return REPDL_ERR_INVALID;
    return REPDL_OK;
}

/* repdl__embedding_args, then every id: all before anything is written. */
REPDL_FN repdl_status repdl__embedding_check(size_t vocab, size_t dim, const int64_t *ids,
                                             size_t n, const void *ta, const void *io)
{
    repdl_status st = repdl__embedding_args(vocab, dim, ids, n, ta, io);
    if (st != REPDL_OK) return st;
    return repdl__embedding_ids_ok(ids, n, vocab) ? REPDL_OK : REPDL_ERR_INVALID;
}

/* out[i][d] = table[ids[i]][d], a NaN as 0x7fc00000. */
REPDL_API repdl_status repdl_embedding_forward_f32(const float *table, size_t vocab, size_t dim,
                                                   const int64_t *ids, size_t n, float *out)
{
    REPDL__FPENV_CHECK();
    size_t i, d;
    repdl_status st = repdl__embedding_check(vocab, dim, ids, n, table, out);
    if (st != REPDL_OK) return st;
    if (dim == 0) return REPDL_OK; /* out has no element; table may be NULL */
    for (i = 0; i < n; i++) {
        const float *r = table + (size_t)ids[i] * dim;
        for (d = 0; d < dim; d++) out[i * dim + d] = repdl__canon(r[d]);
    }
    return REPDL_OK;
}

/* Columns d0 .. d0 + w - 1 of row v of dtable, out[0 .. w): pos[0 .. cnt)
   are the positions with id v, ascending.  The chain of each micro-batch
   from +0, then the buddy tree over the micro-batches that occur
   (detail/accum.h's sparse form, repdl__stree: the tree with +0 for the
   micro-batches that hold no v, since no node is -0).  Each column on its
   own (additions only), so w does not change a bit: the host takes blocks
   of columns, the CUDA kernel w = 1.  Scratch: stk holds 65 w floats, cur
   w. */
REPDL_FN void repdl__embedding_grad_cols(const float *dout, size_t dim, size_t d0, size_t w,
                                         const size_t *pos, size_t cnt, float *stk, float *cur,
                                         float *out)
{
    repdl__stree s;
    size_t k, j, g = 0;
    s.top = 0;
    for (j = 0; j < w; j++) cur[j] = 0.0f; /* +0 */
    for (k = 0; k < cnt; k++) {
        size_t p = pos[k], h = p / REPDL_MICROBATCH;
        const float *r = dout + p * dim + d0;
        if (k > 0 && h != g) repdl__stree_next(&s, g, h, w, stk, cur); /* micro-batch g done */
        g = h;
        for (j = 0; j < w; j++) cur[j] = repdl__fadd(cur[j], r[j]);
    }
    repdl__stree_root(&s, w, stk, cur);
    for (j = 0; j < w; j++) out[j] = repdl__canon(cur[j]);
}

/* One element (the CUDA kernel's call): repdl__embedding_grad_cols with
   w = 1. */
REPDL_FN float repdl__embedding_grad_elem(const float *dout, size_t dim, size_t d,
                                          const size_t *pos, size_t cnt)
{
    float stk[65], cur, out;
    repdl__embedding_grad_cols(dout, dim, d, 1, pos, cnt, stk, &cur, &out);
    return out;
}

/* The positions sorted by id, stably (ascending within an id): pos[start[v]
   .. start[v + 1]) hold id v.  start has vocab + 1 entries; ids checked. */
REPDL_FN void repdl__embedding_sort(const int64_t *ids, size_t n, size_t vocab, size_t *start,
                                    size_t *pos)
{
    size_t i, v, acc = 0;
    for (v = 0; v <= vocab; v++) start[v] = 0;
    for (i = 0; i < n; i++) start[(size_t)ids[i] + 1]++;
    for (v = 0; v <= vocab; v++) {
        acc += start[v];
        start[v] = acc;
    }
    /* start[v] is now the first slot of id v; fill, then shift back */
    for (i = 0; i < n; i++) pos[start[(size_t)ids[i]]++] = i;
    for (v = vocab; v > 0; v--) start[v] = start[v - 1];
    start[0] = 0;
}

/* Columns a host call adds side by side (stack scratch: 66 of them, 8.4
   KiB). */
#define REPDL__EMB_COLS 32

/* dtable (overwritten) = the batch-order sums above. */
REPDL_API repdl_status repdl_embedding_backward_f32(const float *dout, const int64_t *ids, size_t n,
                                                    size_t vocab, size_t dim, float *dtable)
{
    REPDL__FPENV_CHECK();
    size_t v, d, *start, words = vocab;
    float stk[65 * REPDL__EMB_COLS], cur[REPDL__EMB_COLS];
    repdl_status st = repdl__embedding_check(vocab, dim, ids, n, dtable, dout);
    if (st != REPDL_OK) return st;
    if (vocab == 0 || dim == 0) return REPDL_OK; /* dtable has no element */
    /* vocab + 1 + n size_t: vocab dim and n dim floats fit, so this does
       unless dim is 1 and the sizes are near the top of size_t */
    if (words + 1 == 0 || words + 1 + n < n ||
        words + 1 + n > ((size_t)-1) / sizeof(size_t))
        return REPDL_ERR_OVERFLOW;
    words = words + 1 + n;
    start = (size_t *)REPDL__ALLOC(words * sizeof(size_t));
    if (!start) return REPDL_ERR_NOMEM;
    repdl__embedding_sort(ids, n, vocab, start, start + vocab + 1);
    for (v = 0; v < vocab; v++) {
        size_t cnt = start[v + 1] - start[v];
        float *row = dtable + v * dim;
        if (cnt == 0) { /* a row no id hits */
            for (d = 0; d < dim; d++) row[d] = 0.0f;
            continue;
        }
        for (d = 0; d < dim; d += REPDL__EMB_COLS) {
            size_t w = dim - d < REPDL__EMB_COLS ? dim - d : REPDL__EMB_COLS;
            repdl__embedding_grad_cols(dout, dim, d, w, start + vocab + 1 + start[v], cnt, stk,
                                       cur, row + d);
        }
    }
    free(start);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_EMBEDDING_H */
