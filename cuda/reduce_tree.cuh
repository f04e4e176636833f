/* cuda/reduce_tree.cuh: the two facts of the canonical tree that the
   kernels build on, in one place:
     - the leaf shape, taken from include/repdl/reduce.h;
     - tree_stack, the buddy tree of an aligned run of values evaluated
       left to right with a binary-counter stack (O(log n) storage).
   Host and device (REPDL_FN-style), so that host tests exercise the same
   code as the kernels (tests/cuda/test_tree_host.c). */
#ifndef REPDL_CUDA_REDUCE_TREE_CUH
#define REPDL_CUDA_REDUCE_TREE_CUH

#include <repdl/reduce.h>

namespace repdl_cuda {

/* The leaf: LEAF_VECS vectors of LEAF_LANES consecutive elements. */
constexpr int LEAF_LANES = REPDL_SUM_LANES;
constexpr int LEAF_VECS = REPDL_SUM_VECS;
constexpr size_t LEAF_SIZE = (size_t)LEAF_LANES * LEAF_VECS;

/* Pushing values v_0, v_1, ... (push(j, v_j) for j = 0, 1, ...) and then
   flush(count) returns the aligned buddy tree of v_0 .. v_{count-1}:
   adjacent pairs, then pairs of pairs, a missing right sibling passing its
   left sibling up; -0.0 (absent) when count == 0.
   After push(j, .), level l holds the subtree of the 2^l values ending at
   bit l of j + 1, when that bit is set: push(j) merges the completed
   levels (the trailing ones of j), older (left) operand first; flush adds
   the levels from the lowest up, each higher (left) level first. */
struct tree_stack {
    float s[64];

    REPDL_HD void push(size_t j, float v)
    {
        int lev = 0;
        for (size_t k = j; k & 1; k >>= 1) {
            v = repdl__fadd(s[lev], v);
            lev++;
        }
        s[lev] = v;
    }

    REPDL_HD float flush(size_t count) const
    {
        float acc = -0.0f;
        int any = 0;
        for (int lev = 0; lev < 64; lev++) {
            if ((count >> lev) & 1) {
                acc = any ? repdl__fadd(s[lev], acc) : s[lev];
                any = 1;
            }
        }
        return acc;
    }
};

} // namespace repdl_cuda

#endif
