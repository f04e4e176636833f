/* SPDX-License-Identifier: MIT */
/* reference/batch_ref.h: the tree of the batch order
   (docs/canonical-order.md, "The batch order") written as its recursive
   definition, shared by the plain references of the matrix products
   (gemm_ref.h) and of the norms (nn_ref.h).  Independent of the library:
   it includes no repdl header.

   A batch of n samples is cut into G = ceil(n / REF_MICROBATCH)
   micro-batches (the last one short); each output's micro-batch values
   v[0..G) are added by the aligned buddy tree:
     node(0, g) = v[g]
     node(k, j) = node(k-1, 2j)                      when the right half starts
                                                     at or past G: (2j+1) 2^(k-1) >= G
                = node(k-1, 2j) + node(k-1, 2j+1)    otherwise
     sum        = node(K, 0), 2^K >= G the least;  -0.0 when G == 0. */
#ifndef REPDL_REFERENCE_BATCH_REF_H
#define REPDL_REFERENCE_BATCH_REF_H

#include <stddef.h>

#define REF_MICROBATCH 16

static inline float ref_batch_node(const float *v, size_t G, unsigned k, size_t j)
{
    size_t half;
    if (k == 0) return v[j];
    half = (size_t)1 << (k - 1);
    if ((2 * j + 1) * half >= G) return ref_batch_node(v, G, k - 1, 2 * j);
    return ref_batch_node(v, G, k - 1, 2 * j) + ref_batch_node(v, G, k - 1, 2 * j + 1);
}

static inline float ref_batch_tree(const float *v, size_t G)
{
    unsigned K = 0;
    if (G == 0) return -0.0f;
    while (((size_t)1 << K) < G) K++;
    return ref_batch_node(v, G, K, 0);
}

#endif /* REPDL_REFERENCE_BATCH_REF_H */
