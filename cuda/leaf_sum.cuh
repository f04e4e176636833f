/* SPDX-License-Identifier: MIT */
/* cuda/leaf_sum.cuh: the canonical sum (docs/canonical-order.md) on the
   GPU, thread, warp and block level, written once for every CUDA
   reduction (reduce.cu, nn_softmax_norm.cu).  Callers give the terms (a
   row in memory, or a function v(i) of the index) and get the value of
   reduce.h's tree; the order of the additions is decided here alone.

   The numeric steps are the host's own, from include/repdl/detail/accum.h
   (REPDL__TREE16, repdl__sum_column_f32, repdl__sum_fold16_f32,
   repdl__tree_*), reached through reduce.h; this file decides only which
   thread adds what:
     thread  thread_leaf, thread_sum: a leaf by one thread, lane by lane
             (vertical tree, then the halving fold of the 64 lanes);
     warp    a leaf by 32 threads: thread t computes the vertical trees of
             lanes t and t + 32 and adds them (the fold's step h = 32),
             then a shuffle gives the step h = 16 (a'[t] + a'[t + 16], which
             is detail/accum.h's b[v] = (a0 + a2) + (a1 + a3), v < 16); the 16
             values are gathered and folded by repdl__sum_fold16_f32.  The
             leaf comes from shared memory (warp_leaf_columns, terms staged
             by warp_leaf_staged, padding -0.0 as the host writes it) or
             from registers (warp_leaf_regs, loaded by load_leaf);
     walk    the leaves of a run, in index order, into a repdl__tree:
             warp_sum (any terms, staged) and warp_walk (a row of x, or of
             x y: full leaves through registers, the next leaf's loads
             issued before this leaf's arithmetic);
     block   block_pairwise: the in-place pairwise loop that reduce.h gives
             as equal to repdl_sum_combine_f32, a thread an index.
   The device-level schedule (chunks, tickets, grid) is cuda/reduce.cu's
   and cuda/reduce_plan.cuh's.  Every float operation is a config.h
   primitive (never contracted): the PTX is the same under --fmad=true and
   --fmad=false (tests/cuda/check_ptx.sh).  tests/cuda/test_plan_host.cpp
   replays the warp leaf with loops in place of the shuffles. */
#ifndef REPDL_CUDA_LEAF_SUM_CUH
#define REPDL_CUDA_LEAF_SUM_CUH

#include <repdl/reduce.h>

/* The warp mapping below is written for this geometry. */
#if REPDL_SUM_LANES != 64 || REPDL_SUM_VECS != 16 || REPDL_SUM_LEAF != 1024
#error "cuda/leaf_sum.cuh maps a leaf of 64 lanes x 16 vectors onto a warp"
#endif

namespace repdl_cuda {

constexpr unsigned FULL_MASK = 0xffffffffu;

/* ---- thread: a leaf by one thread ---- */

/* The leaf of the terms e(0) .. e(1023) (e(l + 64 j): lane l of vector j;
   e gives the padding, -0.0), by one thread: the vertical tree of each
   lane, then the halving fold of the 64 lanes. */
template <class E>
__device__ __forceinline__ float thread_leaf(E e)
{
    float a[REPDL_SUM_LANES];
#pragma unroll
    for (int l = 0; l < REPDL_SUM_LANES; l++) {
#define REPDL_CUDA__E(j) e((size_t)(j) * REPDL_SUM_LANES + l)
        a[l] = REPDL__TREE16(REPDL_CUDA__E);
#undef REPDL_CUDA__E
    }
#pragma unroll
    for (int h = REPDL_SUM_LANES / 2; h >= 1; h /= 2)
#pragma unroll
        for (int l = 0; l < h; l++) a[l] = repdl__fadd(a[l], a[l + h]);
    return a[0];
}

/* The canonical sum of v(0) .. v(n-1) by ONE thread (= repdl_sum_f32 of
   the array of the v(i)); the leaves by repdl__tree. */
template <class F>
__device__ float thread_sum(size_t n, F v)
{
    repdl__tree tr;
    repdl__tree_init(&tr);
    for (size_t base = 0; base < n; base += REPDL_SUM_LEAF)
        repdl__tree_push(&tr, 0, thread_leaf([&](size_t k) {
            size_t i = base + k;
            return i < n ? v(i) : -0.0f;
        }));
    return repdl__tree_root(&tr);
}

/* ---- warp: a leaf by 32 threads ---- */

/* The leaf's value, on every thread of the warp, from thread t's a =
   (vertical tree of lane t) + (vertical tree of lane t + 32). */
__device__ __forceinline__ float warp_leaf_fold(float a)
{
    float b = repdl__fadd(a, __shfl_down_sync(FULL_MASK, a, 16));
    float v[16];
#pragma unroll
    for (int i = 0; i < 16; i++) v[i] = __shfl_sync(FULL_MASK, b, i);
    return repdl__sum_fold16_f32(v);
}

/* The leaf at c (c[lane + 64 j], j < 16), thread t of the warp. */
__device__ __forceinline__ float warp_leaf_columns(const float *c, int t)
{
    return warp_leaf_fold(
        repdl__fadd(repdl__sum_column_f32(c + t), repdl__sum_column_f32(c + t + 32)));
}

/* A full leaf held in registers: thread t holds the lane-t column in
   r[0..15] (elements t + 64 j) and the lane-(t + 32) column in r[16..31]
   (elements t + 32 + 64 j), products already rounded for a dot.  The same
   operations as warp_leaf_columns on memory. */
__device__ __forceinline__ float warp_leaf_regs(const float *r)
{
#define REPDL_CUDA__E0(j) r[j]
#define REPDL_CUDA__E1(j) r[16 + (j)]
    return warp_leaf_fold(repdl__fadd(REPDL__TREE16(REPDL_CUDA__E0), REPDL__TREE16(REPDL_CUDA__E1)));
#undef REPDL_CUDA__E0
#undef REPDL_CUDA__E1
}

/* Loads thread t's 32 elements of the full leaf at c (see warp_leaf_regs). */
__device__ __forceinline__ void load_leaf(const float *c, int t, float *r)
{
#pragma unroll
    for (int j = 0; j < 16; j++) {
        r[j] = c[t + 64 * j];
        r[16 + j] = c[t + 32 + 64 * j];
    }
}

/* The leaf of the terms v(base) .. v(base + 1023) (-0.0 from n on),
   staged in buf, the warp's 1024 floats of shared memory: 32 contiguous
   terms a step, term i computed by thread i mod 32. */
template <class F>
__device__ __forceinline__ float warp_leaf_staged(size_t base, size_t n, F v, float *buf, int t)
{
#pragma unroll 4
    for (int k = 0; k < REPDL_SUM_LEAF / 32; k++) {
        size_t i = base + (size_t)k * 32 + t;
        buf[k * 32 + t] = i < n ? v(i) : -0.0f;
    }
    __syncwarp();
    float s = warp_leaf_columns(buf, t);
    __syncwarp(); /* buf is read before the next leaf overwrites it */
    return s;
}

/* ---- walk: the leaves of a run into a repdl__tree ---- */

/* The canonical sum of v(0) .. v(n-1), by one warp, on every thread of it
   (= repdl_sum_f32 of the array of the v(i)).  v(i) is called once for
   each i, by thread i mod 32.  buf: the warp's 1024 floats. */
template <class F>
__device__ float warp_sum(size_t n, F v, float *buf, int t)
{
    repdl__tree tr;
    repdl__tree_init(&tr);
    for (size_t base = 0; base < n; base += REPDL_SUM_LEAF)
        repdl__tree_push(&tr, 0, warp_leaf_staged(base, n, v, buf, t));
    return repdl__tree_root(&tr);
}

/* The buddy tree of leaves [first, first + count) of a row of n (x, and y
   for a dot: the terms are repdl__fmul(x[i], y[i])): the value of that
   aligned run; -0.0 when count == 0.  Full leaves go through registers,
   the next leaf's loads issued before the current leaf's arithmetic (two
   leaves in flight a warp); the row's last leaf, when partial, through
   warp_leaf_staged. */
template <bool DOT>
__device__ float warp_walk(const float *x, const float *y, size_t n, size_t first,
                           size_t count, float *buf, int t)
{
    constexpr size_t LEAF = REPDL_SUM_LEAF;
    repdl__tree tr;
    repdl__tree_init(&tr);
    size_t nfull = count;
    if (count && (first + count) * LEAF > n) nfull = count - 1; /* the row's partial leaf */
    if (nfull) {
        float nx[32], ny[32];
        load_leaf(x + first * LEAF, t, nx);
        if (DOT) load_leaf(y + first * LEAF, t, ny);
        for (size_t j = 0; j < nfull; j++) {
            float cx[32], cy[32];
#pragma unroll
            for (int k = 0; k < 32; k++) {
                cx[k] = nx[k];
                if (DOT) cy[k] = ny[k];
            }
            if (j + 1 < nfull) {
                load_leaf(x + (first + j + 1) * LEAF, t, nx);
                if (DOT) load_leaf(y + (first + j + 1) * LEAF, t, ny);
            }
            if (DOT) {
#pragma unroll
                for (int k = 0; k < 32; k++) cx[k] = repdl__fmul(cx[k], cy[k]);
            }
            repdl__tree_push(&tr, 0, warp_leaf_regs(cx));
        }
    }
    if (nfull < count) /* the partial leaf */
        repdl__tree_push(&tr, 0, warp_leaf_staged((first + nfull) * LEAF, n, [&](size_t i) {
            return DOT ? repdl__fmul(x[i], y[i]) : x[i];
        }, buf, t));
    return repdl__tree_root(&tr);
}

/* ---- block ---- */

/* In-place pairwise tree of buf[0..m), the loop reduce.h gives as equal to
   repdl_sum_combine_f32:
     for (s = 1; s < m; s *= 2) for (i = 0; i + s < m; i += 2 s)
       buf[i] = buf[i] + buf[i + s];
   one thread per i.  At step s the writers (i = 0 mod 2s) read buf[i + s],
   which no thread writes at that step. */
__device__ inline void block_pairwise(float *buf, unsigned m)
{
    for (unsigned s = 1; s < m; s *= 2) {
        __syncthreads();
        unsigned i = threadIdx.x;
        if (i % (2 * s) == 0 && i + s < m) buf[i] = repdl__fadd(buf[i], buf[i + s]);
    }
    __syncthreads();
}

} // namespace repdl_cuda

#endif
