/* SPDX-License-Identifier: MIT */
/* repdl/mpi.h: the canonical allreduce over MPI ranks (host only; not
   included by repdl.h; compile with mpicc or the MPI dependency).

   U units each contribute a vector of V floats; rank r owns the units
   [u0_r, u1_r), the ranges in rank order tiling [0, U) (a range may be
   empty: that rank owns nothing but still calls).  Each rank passes the
   node vectors of its range (repdl_units_nodes_f32 or repdl_units_state_*,
   repdl/reduce_units.h); every rank gets

     out[e] = the canonical sum over the U units of element e

   the buddy tree over units of reduce_units.h, bit for bit the value one
   process computes from all U unit vectors, whatever the rank count or
   the ranges.  Protocol (docs/mpi.md):
     1. MPI_Allgather of (U, u0, u1, V, ok) from every rank: each rank
        checks that the ranges tile [0, U) and derives every rank's cut;
        any failure is seen by every rank, which returns the same status
        (two one-int MPI_Allreduce agree on allocation failures);
     2. the V elements are cut into R slices; MPI_Alltoallv sends slice s
        of each of its nodes to rank s (its own slice stays in place);
     3. rank s pushes the slices of all nodes, in unit order, each at its
        level, into one vector buddy tree (repdl__vtree, detail/accum.h:
        the tree of reduce_units.h, read in place): the canonical sum of
        slice s, the last addition written to out;
     4. MPI_Allgatherv of the slices into out on every rank.
   Steps 2-4 run per chunk of about REPDL_MPI_CHUNK floats per node buffer.
   Volume sent per rank: (N_r + 1) (R-1)/R V floats, N_r the nodes of its
   range (1 when the ranges are aligned powers of two): about 2V, as a
   reduce-scatter + allgather allreduce.  MPI counts are int: the vector is
   processed in chunks that keep every count and displacement below
   INT_MAX (the results do not depend on the chunking, every element is
   its own tree). */
#ifndef REPDL_MPI_H
#define REPDL_MPI_H

#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

#include "reduce_units.h"
REPDL_BEGIN_CODE

/* The vector is exchanged in chunks of about this many floats per node
   buffer (tuning, not definition: the result does not depend on it). */
#ifndef REPDL_MPI_CHUNK
#define REPDL_MPI_CHUNK ((size_t)1 << 20)
#endif

/* Slice s of a chunk of `len` elements among R ranks. */
REPDL_FN size_t repdl__mpi_slice_off(size_t len, int R, int s)
{
    size_t q = len / (size_t)R, m = len % (size_t)R;
    return q * (size_t)s + ((size_t)s < m ? (size_t)s : m);
}
REPDL_FN size_t repdl__mpi_slice_len(size_t len, int R, int s)
{
    return len / (size_t)R + ((size_t)s < len % (size_t)R ? 1 : 0);
}

/* The allreduce with chunks of at most chunk_max elements (the public
   function passes the largest that keeps MPI's int counts; tests pass
   small ones to exercise the chunking). */
REPDL_FN repdl_status repdl__mpi_sum_nodes_f32(MPI_Comm comm, size_t U, size_t u0, size_t u1,
                                               size_t V, const float *nodes, float *out,
                                               size_t chunk_max)
{
    int R, me, r, err;
    uint64_t mine[5], *all = NULL;
    size_t *nn = NULL, *nbefore = NULL, Ntot = 0, Nme, i, c0, cmax, lmax;
    unsigned char *lev = NULL;
    repdl__vtree tree = {0, 0, 0, NULL, NULL};
    int *scount = NULL, *sdisp = NULL, *rcount = NULL, *rdisp = NULL;
    float *recv = NULL, *pack = NULL;
    repdl_status st = REPDL_OK;
    int local, global, tree_ok;

    if (MPI_Comm_size(comm, &R) != MPI_SUCCESS || MPI_Comm_rank(comm, &me) != MPI_SUCCESS)
        return REPDL_ERR_MPI;
    mine[0] = U; mine[1] = u0; mine[2] = u1; mine[3] = V;
    mine[4] = (u0 < u1 && V > 0 && !nodes) || (V > 0 && !out) ? 0 : 1;
    all = (uint64_t *)malloc((size_t)R * 5 * sizeof(uint64_t));
    nn = (size_t *)calloc((size_t)R * 2, sizeof(size_t));
    /* a rank that cannot allocate (1), or whose floating-point environment
       would change the bits (2: config.h, repdl__fpenv_bad), says so before
       the exchange: every rank returns the same status, none waits */
    local = ((all && nn) ? 0 : 1) | (repdl__fpenv_bad() ? 2 : 0);
    err = MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_BOR, comm);
    if (err != MPI_SUCCESS) { st = REPDL_ERR_MPI; goto done; }
    if (global & 2) { st = REPDL_ERR_FPENV; goto done; }
    if (global) { st = REPDL_ERR_NOMEM; goto done; }
    err = MPI_Allgather(mine, 5, MPI_UINT64_T, all, 5, MPI_UINT64_T, comm);
    if (err != MPI_SUCCESS) { st = REPDL_ERR_MPI; goto done; }
    nbefore = nn + R;

    /* 1. every rank runs the same checks on the same data */
    for (r = 0; r < R; r++) {
        const uint64_t *a = all + 5 * (size_t)r;
        uint64_t prev_end = r ? all[5 * (size_t)(r - 1) + 2] : 0;
        if (a[0] != all[0] || a[3] != all[3] || a[4] != 1 || a[1] != prev_end ||
            a[1] > a[2] || a[0] > REPDL_UNITS_MAX || (size_t)a[0] != a[0] ||
            (size_t)a[3] != a[3]) {
            st = REPDL_ERR_INVALID;
            goto done;
        }
    }
    if (all[5 * (size_t)(R - 1) + 2] != all[0]) { st = REPDL_ERR_INVALID; goto done; }
    if (V == 0) goto done;
    if (U == 0) { /* the empty sum */
        for (i = 0; i < V; i++) out[i] = -0.0f;
        goto done;
    }
    for (r = 0; r < R; r++) {
        const uint64_t *a = all + 5 * (size_t)r;
        nn[r] = repdl_units_nodes(U, (size_t)a[1], (size_t)a[2], 0, NULL);
        nbefore[r] = Ntot;
        Ntot += nn[r];
    }
    Nme = nn[me];

    /* chunk size: every MPI count and displacement below INT_MAX, and the
       buffers (Ntot / R nodes received, Nme packed) about REPDL_MPI_CHUNK
       floats, reused chunk after chunk: they stay in cache and are not
       faulted in afresh at every call */
    cmax = (size_t)INT_MAX / Ntot;
    if (!chunk_max) {
        /* the same on every rank: from the cuts of all ranks */
        size_t per = (Ntot + (size_t)R - 1) / (size_t)R;
        for (r = 0; r < R; r++)
            if (nn[r] > per) per = nn[r];
        chunk_max = (size_t)REPDL_MPI_CHUNK / per;
        if (chunk_max < (size_t)R) chunk_max = (size_t)R;
    }
    if (chunk_max < cmax) cmax = chunk_max;
    if (cmax > V) cmax = V;
    cmax = (V + (V + cmax - 1) / cmax - 1) / ((V + cmax - 1) / cmax); /* even chunks */
    lmax = repdl__mpi_slice_len(cmax, R, 0);

    /* local allocations, then one agreement so that a failure anywhere
       stops every rank before the data exchange */
    lev = (unsigned char *)malloc(Ntot);
    tree_ok = repdl__vtree_init(&tree, lmax, U) == 0;
    scount = (int *)malloc((size_t)R * 4 * sizeof(int));
    recv = (float *)malloc((Ntot * lmax + 1) * sizeof(float));
    if (Nme > 1) pack = (float *)malloc(Nme * cmax * sizeof(float));
    local = (lev && tree_ok && scount && recv && (Nme <= 1 || pack)) ? 0 : 1;
    err = MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, comm);
    if (err != MPI_SUCCESS) { st = REPDL_ERR_MPI; goto done; }
    if (global) { st = REPDL_ERR_NOMEM; goto done; }
    sdisp = scount + R;
    rcount = scount + 2 * R;
    rdisp = scount + 3 * R;
    for (r = 0; r < R; r++) {
        const uint64_t *a = all + 5 * (size_t)r;
        repdl_units_node nd[128];
        size_t n = repdl_units_nodes(U, (size_t)a[1], (size_t)a[2], 128, nd);
        for (i = 0; i < n; i++) lev[nbefore[r] + i] = (unsigned char)nd[i].level;
    }

    /* 2-4, a chunk [c0, c0 + len) of the elements at a time */
    for (c0 = 0; c0 < V; c0 += cmax) {
        size_t len = V - c0 < cmax ? V - c0 : cmax;
        size_t lme = repdl__mpi_slice_len(len, R, me), ome = repdl__mpi_slice_off(len, R, me);
        const float *sbuf;
        for (r = 0; r < R; r++) {
            size_t lr = repdl__mpi_slice_len(len, R, r), orr = repdl__mpi_slice_off(len, R, r);
            scount[r] = (int)(Nme * lr);
            sdisp[r] = (int)(Nme * orr);
            rcount[r] = (int)(nn[r] * lme);
            rdisp[r] = (int)(nbefore[r] * lme);
        }
        if (Nme == 1) {
            sbuf = nodes + c0; /* slice r is contiguous: no packing */
            for (r = 0; r < R; r++) sdisp[r] = (int)repdl__mpi_slice_off(len, R, r);
        } else if (Nme > 1) {
            for (r = 0; r < R; r++) {
                size_t lr = repdl__mpi_slice_len(len, R, r), orr = repdl__mpi_slice_off(len, R, r);
                if (r == me) continue; /* read in place */
                for (i = 0; i < Nme; i++)
                    memcpy(pack + Nme * orr + i * lr, nodes + i * V + c0 + orr,
                           lr * sizeof(float));
            }
            sbuf = pack;
        } else {
            sbuf = recv; /* nothing is sent */
        }
        /* this rank's own slices stay where they are: nothing to itself */
        scount[me] = rcount[me] = 0;
        err = MPI_Alltoallv(sbuf, scount, sdisp, MPI_FLOAT, recv, rcount, rdisp, MPI_FLOAT,
                            comm);
        if (err != MPI_SUCCESS) { st = REPDL_ERR_MPI; goto done; }
        if (lme) { /* 3: the nodes in unit order, this rank's own read in place */
            repdl__vtree_clear(&tree, lme);
            for (i = 0; i < Ntot; i++)
                repdl__vtree_push_ref(&tree, lev[i],
                                      i - nbefore[me] < Nme
                                          ? nodes + (i - nbefore[me]) * V + c0 + ome
                                          : recv + i * lme);
            repdl__vtree_root(&tree, out + c0 + ome);
        }
        for (r = 0; r < R; r++) {
            rcount[r] = (int)repdl__mpi_slice_len(len, R, r);
            rdisp[r] = (int)repdl__mpi_slice_off(len, R, r);
        }
        err = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out + c0, rcount, rdisp,
                             MPI_FLOAT, comm);
        if (err != MPI_SUCCESS) { st = REPDL_ERR_MPI; goto done; }
    }

done:
    free(all); free(nn); free(lev); free(scount); free(recv); free(pack);
    repdl__vtree_free(&tree);
    return st;
}

/* The canonical allreduce (above).  Collective over comm: every rank calls
   it with the same U and V and its own range [u0, u1) (ranges in rank
   order tiling [0, U)) and node vectors (N_r * V floats, node i of the cut
   of repdl_units_nodes at nodes + i V; NULL when the range is empty).
   out: V floats on every rank; it may be nodes, otherwise it must not
   overlap it.  U = 0 gives -0.0 everywhere (the empty sum).
   Returns the same status on every rank: REPDL_OK; REPDL_ERR_INVALID when
   U or V differ between ranks, the ranges do not tile [0, U), U exceeds
   REPDL_UNITS_MAX or a pointer is NULL; REPDL_ERR_NOMEM; REPDL_ERR_FPENV
   when the floating-point environment of any rank would change the bits
   (docs/api.md, section 4; agreed in the first collective, so a rank
   that refuses never leaves the others waiting); REPDL_ERR_MPI
   when an MPI call returns an error (with MPI's default handler it aborts
   instead).  On error out is not written. */
REPDL_HOST_API repdl_status repdl_mpi_sum_nodes_f32(MPI_Comm comm, size_t U, size_t u0,
                                                   size_t u1, size_t V, const float *nodes,
                                                   float *out)
{
    return repdl__mpi_sum_nodes_f32(comm, U, u0, u1, V, nodes, out, 0);
}

REPDL_END_CODE
#endif /* REPDL_MPI_H */
