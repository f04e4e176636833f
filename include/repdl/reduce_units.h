/* SPDX-License-Identifier: MIT */
/* repdl/reduce_units.h: canonical sums of vectors over units, and the
   nodes of a contiguous range of units (host only; not included by
   repdl.h; no MPI needed: repdl/mpi.h builds on it).

   U units u = 0 .. U-1 (micro-batches, ranks' shares, ...) each contribute
   a vector of V floats.  Their sum is, element by element, the aligned
   buddy tree of docs/canonical-order.md section 4 with the units as its
   leaves (docs/mpi.md, section 1):

     node(0, u) = x_u
     node(k, j) = node(k-1, 2j)                      if (2j+1) 2^(k-1) >= U
                = node(k-1, 2j) + node(k-1, 2j+1)    otherwise
     sum        = node(K, 0), 2^K >= U the least such K;  -0.0 when U = 0

   i.e. repdl__tree over the units pushed at level 0, one tree per element.
   A block of units [begin, begin + count) is a *node* when begin is a
   multiple of 2^k and count = 2^k, or when it ends the units
   (begin + count = U) and count <= 2^k, k = ceil(log2 count): section 6's
   rule with the unit as the leaf.  A node's value is the sum of its units
   alone, so any partition of [0, U) into nodes, summed anywhere and pushed
   in order at their levels, gives the sum bit for bit.

     repdl_units_block_ok(b, c, U)      1 when [b, b+c) is a node
     repdl_units_block_size(b, e, U)    the first node of the canonical cut
                                        of [b, e)
     repdl_units_nodes(U, b, e, max, l) the whole cut: (begin, count, level)
     repdl_units_state_*                a rank's node vectors from its unit
                                        vectors, one unit at a time
     repdl_units_nodes_f32              the same from an array of units
     repdl_units_combine_f32            the sum from the node vectors of
                                        consecutive ranges (threads, GPUs:
                                        the in-process counterpart of
                                        repdl_mpi_sum_nodes_f32)

   Every NaN in a node vector is 0x7fc00000.  Sizes are size_t; U must not
   exceed REPDL_UNITS_MAX (2^62; 2^31 where size_t has 32 bits) so that
   every level fits the tree. */
#ifndef REPDL_REDUCE_UNITS_H
#define REPDL_REDUCE_UNITS_H

#include <stdlib.h>

#include "reduce.h"
REPDL_BEGIN_CODE

/* 2^62, or 2^(w-1) where size_t has w < 64 bits (i686: 2^31), formed
   without a shift wider than size_t. */
#define REPDL_UNITS_MAX                                                      \
    ((((size_t)-1) >> 1) >= ((uint64_t)1 << 62) ? (size_t)((uint64_t)1 << 62) \
                                                 : (((size_t)-1) >> 1) + 1)

/* One node of a cut: units [begin, begin + count), level ceil(log2 count)
   (the node covers 2^level units of the tree, the last ones possibly past
   U). */
typedef struct repdl_units_node {
    size_t begin, count;
    unsigned level;
} repdl_units_node;

/* ceil(log2 count) for 1 <= count <= 2^62. */
REPDL_FN unsigned repdl__units_level(size_t count)
{
    unsigned k = 0;
    while (k < 63 && ((size_t)1 << k) < count) k++;
    return k;
}

/* 1 when [begin, begin + count) of U units is a node; count 0 is an empty
   block (1, as repdl_sum_block_ok). */
REPDL_API int repdl_units_block_ok(size_t begin, size_t count, size_t U)
{
    unsigned k;
    if (count == 0) return 1;
    if (U > REPDL_UNITS_MAX || begin > U || count > U - begin) return 0;
    k = repdl__units_level(count);
    if ((begin & (((size_t)1 << k) - 1)) != 0) return 0;
    return count == (size_t)1 << k || begin + count == U;
}

/* The first node of the canonical cut of [begin, end) (end <= U): the
   whole rest when it ends the units and is a node, otherwise the largest
   2^k that divides begin and fits.  0 when begin >= end. */
REPDL_API size_t repdl_units_block_size(size_t begin, size_t end, size_t U)
{
    size_t len = end - begin, b = 1;
    if (begin >= end) return 0;
    if (end == U && repdl_units_block_ok(begin, len, U)) return len;
    while ((begin & (2 * b - 1)) == 0 && 2 * b <= len && 2 * b > b) b *= 2;
    return b;
}

/* The canonical cut of [begin, end) into nodes: writes the first `max` of
   them to list and returns how many there are (at most 2 * 63 + 1).  0
   for an empty or invalid range.  A NULL list receives nothing (as
   max = 0). */
REPDL_API size_t repdl_units_nodes(size_t U, size_t begin, size_t end, size_t max,
                                   repdl_units_node *list)
{
    size_t n = 0, b = begin;
    if (U > REPDL_UNITS_MAX || begin > end || end > U) return 0;
    if (!list) max = 0;
    while (b < end) {
        size_t c = repdl_units_block_size(b, end, U);
        if (n < max) {
            list[n].begin = b;
            list[n].count = c;
            list[n].level = repdl__units_level(c);
        }
        n++;
        b += c;
    }
    return n;
}

/* ---- A rank's node vectors, one unit at a time ----
     repdl_units_state s;
     repdl_units_state_init(&s, U, u0, u1, V, nodes);   nodes: N * V floats,
                                                        N = repdl_units_nodes(U, u0, u1, 0, NULL)
     for (u = u0; u < u1; u++)
         repdl_units_state_push(&s, x_u);               x_u: V floats, read
                                                        during the call only
     repdl_units_state_free(&s);
   After the last push, node i of the cut is at nodes + i V: per element,
   the buddy tree over its units, left operand first.  The tree is the
   accumulation layer's vector tree (repdl__vtree, detail/accum.h), one per
   node in turn, sized for the largest node of the cut (on the heap). */
typedef struct repdl_units_state {
    size_t U, next, end, V;
    size_t node_begin, node_count; /* the current node */
    float *node_out;               /* its slot */
    repdl__vtree tree;             /* its units so far */
    float *nodes;
    repdl_status status;
} repdl_units_state;

REPDL_FN void repdl__units_state_next_node(repdl_units_state *s)
{
    s->node_begin = s->next;
    s->node_count = repdl_units_block_size(s->next, s->end, s->U);
    s->tree.count = 0;
}

/* REPDL_ERR_OVERFLOW when the N V floats of the nodes (N nodes in the
   cut of [u0, u1)) do not fit in size_t bytes; REPDL_OK otherwise. */
REPDL_FN repdl_status repdl__units_nodes_extent(size_t U, size_t u0, size_t u1, size_t V)
{
    size_t t = repdl_units_nodes(U, u0, u1, 0, NULL);
    return repdl__size_mul(&t, V) ? REPDL_ERR_OVERFLOW : REPDL_OK;
}

/* REPDL_OK, REPDL_ERR_INVALID (s NULL, the range is not in [0, U], U too
   large, nodes NULL with work to do), REPDL_ERR_OVERFLOW (the nodes' N V
   floats do not fit in size_t bytes), REPDL_ERR_NOMEM (also for a
   V * levels that does not fit).  Checked in this order, before anything
   is written to nodes; first of all REPDL_ERR_FPENV (config.h).  After any
   status but for a NULL s, repdl_units_state_free(s) is safe. */
/* A state refused before its fields were set (REPDL_ERR_FPENV): made
   empty, so that repdl_units_state_free and _push are safe on it. */
REPDL_FN repdl_status repdl__units_state_refuse(repdl_units_state *s, repdl_status st)
{
    if (s) {
        s->next = s->end = 0;
        s->tree.mem = NULL;
        s->tree.node = NULL;
        s->status = st;
    }
    return st;
}

REPDL_HOST_API repdl_status repdl_units_state_init(repdl_units_state *s, size_t U,
                                                   size_t u0, size_t u1, size_t V,
                                                   float *nodes)
{
    REPDL__FPENV_CHECK_OR(repdl__units_state_refuse(s, REPDL_ERR_FPENV));
    size_t b, maxcount = 0;
    if (!s) return REPDL_ERR_INVALID;
    s->U = U; s->next = u0; s->end = u1; s->V = V;
    s->nodes = nodes;
    s->node_out = nodes;
    s->tree.mem = NULL;
    s->tree.node = NULL;
    s->node_begin = s->node_count = 0;
    s->status = REPDL_ERR_INVALID;
    if (U > REPDL_UNITS_MAX || u0 > u1 || u1 > U) return s->status;
    if (u0 < u1 && V > 0 && !nodes) return s->status;
    if (repdl__units_nodes_extent(U, u0, u1, V) != REPDL_OK) return s->status = REPDL_ERR_OVERFLOW;
    for (b = u0; b < u1;) {
        size_t c = repdl_units_block_size(b, u1, U);
        if (c > maxcount) maxcount = c;
        b += c;
    }
    /* an empty range needs no tree (V may be anything then) */
    if (repdl__vtree_init(&s->tree, u0 < u1 ? V : 0, maxcount)) return s->status = REPDL_ERR_NOMEM;
    if (u0 < u1) repdl__units_state_next_node(s);
    return s->status = REPDL_OK;
}

/* Pushes the vector of unit s->next (V floats, read during the call only).
   REPDL_OK; REPDL_ERR_INVALID when s is NULL, when every unit of the range
   is already in, or when x is NULL with V > 0 (the state is unchanged);
   the state's own status when it failed to init. */
REPDL_HOST_API repdl_status repdl_units_state_push(repdl_units_state *s, const float *x)
{
    REPDL__FPENV_CHECK();
    size_t V;
    if (!s) return REPDL_ERR_INVALID;
    V = s->V;
    if (s->status != REPDL_OK) return s->status;
    if (s->next >= s->end || (V > 0 && !x)) return REPDL_ERR_INVALID;
    s->next++;
    if (V > 0) memcpy(repdl__vtree_dest(&s->tree, 0), x, V * sizeof(float));
    repdl__vtree_push(&s->tree, 0);
    if (s->next - s->node_begin == s->node_count) { /* the node is complete */
        if (V > 0) repdl__vtree_root(&s->tree, s->node_out);
        s->node_out += V;
        if (s->next < s->end) repdl__units_state_next_node(s);
    }
    return REPDL_OK;
}

/* Frees the state's tree; s NULL does nothing. */
REPDL_HOST_API void repdl_units_state_free(repdl_units_state *s)
{
    if (s) repdl__vtree_free(&s->tree);
}

/* The node vectors of [u0, u1) from the unit vectors: unit u at
   units + (u - u0) ldu (ldu >= V), node i of the cut at nodes + i V.
   nodes must not overlap units.  Statuses as repdl_units_state_init, and
   with work to do (u0 < u1, V > 0): REPDL_ERR_INVALID for units NULL or
   ldu < V, REPDL_ERR_OVERFLOW when the units' extent
   (u1 - u0 - 1) ldu + V floats does not fit in size_t bytes; all checked
   before anything is read or written. */
REPDL_HOST_API repdl_status repdl_units_nodes_f32(size_t U, size_t u0, size_t u1, size_t V,
                                                  const float *units, size_t ldu,
                                                  float *nodes)
{
    REPDL__FPENV_CHECK();
    repdl_units_state s;
    size_t u;
    repdl_status st;
    if (u0 < u1 && V > 0 && (!units || ldu < V)) return REPDL_ERR_INVALID;
    if (U <= REPDL_UNITS_MAX && u0 < u1 && u1 <= U && V > 0) {
        size_t span = u1 - u0 - 1;   /* the extent of units, as repdl__rows_arg */
        if (repdl__size_mul(&span, ldu) || repdl__size_add(&span, V)) return REPDL_ERR_OVERFLOW;
    }
    st = repdl_units_state_init(&s, U, u0, u1, V, nodes);
    if (st != REPDL_OK) return st;
    for (u = u0; u < u1; u++)
        repdl_units_state_push(&s, V ? units + (u - u0) * ldu : units);   /* V = 0: units may be NULL */
    repdl_units_state_free(&s);
    return REPDL_OK;
}

/* The sum of section 1 from the node vectors of P consecutive ranges that
   tile [0, U): range p is [bounds[p], bounds[p + 1]) (bounds[0] = 0,
   bounds[P] = U, non-decreasing), its nodes (the canonical cut,
   repdl_units_nodes) at nodes[p] + i V, as repdl_units_state or
   repdl_units_nodes_f32 wrote them; an empty range's pointer may be NULL.
   out[0..V) must not overlap the nodes.  The nodes are pushed in order,
   each at its level, into the vector buddy tree: out is bit for bit the
   single-range sum (the nodes are read in place: the tree's heap holds
   only its carries).  REPDL_OK; REPDL_ERR_INVALID (bounds that do not tile
   [0, U), U too large, a NULL that would be read); REPDL_ERR_OVERFLOW (V
   floats of out, or a range's N V floats of nodes, not fitting in size_t
   bytes); REPDL_ERR_NOMEM; in this order, before out is written. */
REPDL_HOST_API repdl_status repdl_units_combine_f32(size_t U, size_t P, const size_t *bounds,
                                                    size_t V, const float *const *nodes,
                                                    float *out)
{
    REPDL__FPENV_CHECK();
    repdl__vtree t;
    size_t p;
    if (U > REPDL_UNITS_MAX || (P > 0 && !bounds) || (V > 0 && !out)) return REPDL_ERR_INVALID;
    if (P == 0 ? U != 0 : (bounds[0] != 0 || bounds[P] != U)) return REPDL_ERR_INVALID;
    for (p = 0; p < P; p++) {
        if (bounds[p] > bounds[p + 1]) return REPDL_ERR_INVALID;
        if (bounds[p] < bounds[p + 1] && V > 0 && (!nodes || !nodes[p])) return REPDL_ERR_INVALID;
    }
    p = 1;
    if (repdl__size_mul(&p, V)) return REPDL_ERR_OVERFLOW;
    for (p = 0; p < P; p++)
        if (repdl__units_nodes_extent(U, bounds[p], bounds[p + 1], V) != REPDL_OK)
            return REPDL_ERR_OVERFLOW;
    if (repdl__vtree_init(&t, V, U)) return REPDL_ERR_NOMEM;
    for (p = 0; p < P; p++) {
        size_t b = bounds[p], i = 0;
        while (b < bounds[p + 1]) {
            size_t c = repdl_units_block_size(b, bounds[p + 1], U);
            unsigned k = repdl__units_level(c);
            repdl__vtree_push_ref(&t, k, V > 0 ? nodes[p] + i * V : NULL);
            b += c;
            i++;
        }
    }
    repdl__vtree_root(&t, out);
    repdl__vtree_free(&t);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_REDUCE_UNITS_H */
