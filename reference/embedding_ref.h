/* SPDX-License-Identifier: MIT */
/* reference/embedding_ref.h: the embedding lookup and its backward pass
   written from their definitions (include/repdl/embedding.h, docs/nn.md),
   the plain way: no sort, no stack; every micro-batch's value of every
   element, then the tree of reference/batch_ref.h over all of them.
   Independent of the library: it includes no repdl header.

     out[i][d]    = table[ids[i]][d] (a NaN as 0x7fc00000)
     dtable[v][d] = ref_batch_tree over the micro-batches g of
                    (addition chain over the positions i of g, ascending,
                     with ids[i] == v, of dout[i][d], from +0);
                    +0 when n == 0; a NaN as 0x7fc00000.
   The ids are assumed valid (the caller checks [0, vocab)). */
#ifndef REPDL_REFERENCE_EMBEDDING_REF_H
#define REPDL_REFERENCE_EMBEDDING_REF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "batch_ref.h"

static inline float ref_emb_canon(float x)
{
    if (x != x) {
        uint32_t u = 0x7fc00000u;
        memcpy(&x, &u, sizeof x);
    }
    return x;
}

static inline void ref_embedding_forward(const float *table, size_t dim, const int64_t *ids,
                                         size_t n, float *out)
{
    size_t i, d;
    for (i = 0; i < n; i++)
        for (d = 0; d < dim; d++) out[i * dim + d] = ref_emb_canon(table[(size_t)ids[i] * dim + d]);
}

/* 0, or -1 when the micro-batch values cannot be allocated. */
static inline int ref_embedding_backward(const float *dout, const int64_t *ids, size_t n,
                                         size_t vocab, size_t dim, float *dtable)
{
    size_t G = (n + REF_MICROBATCH - 1) / REF_MICROBATCH, v, d, g, i;
    float *val = (float *)malloc((G ? G : 1) * sizeof(float));
    if (!val) return -1;
    for (v = 0; v < vocab; v++)
        for (d = 0; d < dim; d++) {
            for (g = 0; g < G; g++) {
                float acc = 0.0f; /* +0 */
                for (i = g * REF_MICROBATCH; i < n && i < (g + 1) * REF_MICROBATCH; i++)
                    if ((size_t)ids[i] == v) acc = acc + dout[i * dim + d];
                val[g] = acc;
            }
            dtable[v * dim + d] = G ? ref_emb_canon(ref_batch_tree(val, G)) : 0.0f;
        }
    free(val);
    return 0;
}

#endif /* REPDL_REFERENCE_EMBEDDING_REF_H */
