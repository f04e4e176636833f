/* SPDX-License-Identifier: MIT */
/* cuda/reduce_plan.cuh: how the CUDA reduction splits the canonical tree
   (docs/canonical-order.md) between warps, blocks and the grid.  Index
   arithmetic and the combining steps, host and device: the kernels in
   reduce.cu and the host test tests/cuda/test_plan_host.cpp run this same
   code, so the split is checked in CI without a GPU.

   A row of n elements has nleaf = ceil(n / 1024) leaves.  With W warps a
   block and lpw leaves a warp (both powers of two):
     warp w of chunk c walks leaves [(c W + w) lpw, (c W + w + 1) lpw),
       clipped to nleaf: an aligned run, hence a subtree;
     chunk c (one block) is leaves [c W lpw, (c + 1) W lpw): a subtree made
       of its warps' runs, combined by the buddy tree (repdl__tree);
     the bpr = ceil(nleaf / (W lpw)) chunk values of a row are combined by
       the buddy tree again, blockDim.x of them at a time.
   A subtree's value is the canonical sum of its elements alone, and equal
   aligned blocks combine by the same tree (reduce.h, partial/combine API),
   so every (W, lpw, grid) gives repdl_sum_f32's bits. */
#ifndef REPDL_CUDA_REDUCE_PLAN_CUH
#define REPDL_CUDA_REDUCE_PLAN_CUH

#include <repdl/reduce.h>

#include <repdl/cuda.h>

namespace repdl_cuda {

constexpr size_t LEAF = REPDL_SUM_LEAF;
/* Threads a block: the per-warp staging buffers (4 KiB a warp) of 8 warps
   fit the 48 KiB of shared memory every architecture gives by default. */
constexpr unsigned MAX_THREADS = 256;

/* Leaves of a row of n elements. */
REPDL_HD inline size_t leaves_of(size_t n)
{
    return (n >> REPDL_SUM_LEAF_LOG2) + ((n & (LEAF - 1)) != 0);
}

/* The run of warp w in chunk c: sets *first, returns the count (0 when
   the chunk ends before the warp's run begins). */
REPDL_HD inline size_t warp_run(size_t c, unsigned w, unsigned W, size_t lpw,
                                size_t nleaf, size_t *first)
{
    size_t f = (c * W + w) * lpw;
    *first = f;
    if (f >= nleaf) return 0;
    return nleaf - f < lpw ? nleaf - f : lpw;
}

/* Warps of chunk c whose runs are not empty (a prefix of the W warps);
   at least 1, so that an empty row (n == 0) still gets its -0.0. */
REPDL_HD inline unsigned warps_in_chunk(size_t c, unsigned W, size_t lpw, size_t nleaf)
{
    size_t first = c * W * lpw;
    size_t left = nleaf > first ? nleaf - first : 0;
    size_t nw = left / lpw + (left % lpw != 0);
    if (nw > W) nw = W;
    return nw ? (unsigned)nw : 1u;
}

/* The value of a chunk from its warps' values v[0..nw) (the warps whose
   runs are not empty, in order: a missing right sibling passes up). */
REPDL_HD inline float combine_in_order(const float *v, unsigned nw)
{
    repdl__tree t;
    repdl__tree_init(&t);
    for (unsigned i = 0; i < nw; i++) repdl__tree_push(&t, 0, v[i]);
    return repdl__tree_root(&t);
}

/* The final combine of a row's bpr chunk values, by the last block of
   blockDim.x = T threads: thread i takes the aligned group of G chunk
   values [i G, i G + G) (G the least power of two with T G >= bpr; the
   last group may be shorter), combines it by the buddy tree, then the
   block combines the group values by the in-place pairwise loop.  Each
   group is a subtree of the chunks' tree, so this is the canonical tree
   of the chunk values (reduce.h: repdl_sum_combine_f32). */
REPDL_HD inline size_t group_size(size_t bpr, unsigned T)
{
    size_t G = 1;
    while (G * T < bpr) G *= 2;
    return G;
}

/* The buddy tree of p[0..count), read through load(p + i): the loads are
   issued eight at a time, ahead of the additions. */
template <class Load>
REPDL_HD inline float group_value(const float *p, size_t count, Load load)
{
    repdl__tree t;
    size_t i = 0;
    repdl__tree_init(&t);
    for (; i + 8 <= count; i += 8) {
        float v[8];
        for (int k = 0; k < 8; k++) v[k] = load(p + i + k);
        for (int k = 0; k < 8; k++) repdl__tree_push(&t, 0, v[k]);
    }
    for (; i < count; i++) repdl__tree_push(&t, 0, load(p + i));
    return repdl__tree_root(&t);
}

struct plan {
    unsigned threads;  /* a block */
    unsigned warps;    /* W = threads / 32 */
    size_t grid;       /* blocks */
    size_t nleaf;      /* leaves a row */
    int per_warp;      /* 1: a row a warp (no chunks) */
    size_t lpw;        /* leaves a warp (block mode) */
    size_t bpr;        /* chunks (blocks) a row (block mode) */
};

static inline int is_pow2(size_t v) { return v != 0 && (v & (v - 1)) == 0; }

/* Checks cfg (NULL: all automatic); 0 or REPDL_ERR_INVALID. */
static inline int check_config(const repdl_cuda_config *cfg)
{
    if (!cfg) return REPDL_OK;
    const repdl_cuda_config &c = *cfg;
    if (c.threads != 0 && (c.threads < 32 || c.threads > MAX_THREADS || !is_pow2(c.threads)))
        return REPDL_ERR_INVALID;
    if (c.leaves_per_warp != 0 && (!is_pow2(c.leaves_per_warp) || c.leaves_per_warp > (1u << 30)))
        return REPDL_ERR_INVALID;
    if (c.grid > 0x7fffffffu || c.row_per_warp > 1) return REPDL_ERR_INVALID;
    if (c.row_per_warp == 1 && c.leaves_per_warp != 0) return REPDL_ERR_INVALID;
    return REPDL_OK;
}

/* Threads a block for cfg. */
static inline unsigned plan_threads(const repdl_cuda_config *cfg)
{
    return cfg && cfg->threads ? cfg->threads : MAX_THREADS;
}

/* Fills p for rows x n (rows >= 1) and a valid cfg, given `resident`, the
   blocks of the kernel that fit on the device at once (occupancy).
   Automatic choices, for speed only (any choice gives the same bits):
     - a row a warp when rows alone fill every resident warp, or a row is
       a single leaf;
     - otherwise chunks: the least lpw with at most 32 chunks a resident
       block, so that the last wave is short (the tail costs at most about
       1/16 of the time), and a grid that gives every block the same
       number of chunks, to within one.
   REPDL_ERR_INVALID when the workspace size would overflow. */
static inline int make_plan(size_t rows, size_t n, size_t resident,
                            const repdl_cuda_config *cfg, plan *p)
{
    repdl_cuda_config c = {0, 0, 0, 0};
    if (cfg) c = *cfg;
    if (resident == 0) resident = 1;
    p->threads = plan_threads(cfg);
    p->warps = p->threads / 32;
    p->nleaf = leaves_of(n);
    size_t W = p->warps;

    p->per_warp = c.row_per_warp == 1;
    if (c.row_per_warp == 0 && c.leaves_per_warp == 0)
        p->per_warp = p->nleaf <= 1 || rows >= resident * W;
    if (p->per_warp) {
        size_t want = rows / W + (rows % W != 0);
        p->grid = c.grid ? c.grid : (want < 4 * resident ? want : 4 * resident);
        p->lpw = 0;
        p->bpr = 0;
        return REPDL_OK;
    }
    size_t lpw = c.leaves_per_warp;
    if (lpw == 0) {
        size_t target = 32 * resident / rows; /* chunks a row */
        lpw = 1;
        while (lpw < p->nleaf && lpw < ((size_t)1 << 30)) {
            size_t chunk = W * lpw;
            if (p->nleaf / chunk + (p->nleaf % chunk != 0) <= target) break;
            lpw *= 2;
        }
    }
    size_t chunk = W * lpw;
    size_t bpr = p->nleaf / chunk + (p->nleaf % chunk != 0);
    if (bpr == 0) bpr = 1; /* n == 0: one block writes -0.0 */
    if (rows > ((size_t)-1) / 16 / bpr) return REPDL_ERR_INVALID;
    p->lpw = lpw;
    p->bpr = bpr;
    size_t units = rows * bpr;
    if (c.grid) {
        p->grid = c.grid;
    } else {
        size_t per = units / resident + (units % resident != 0); /* units a block */
        p->grid = units / per + (units % per != 0);
    }
    return REPDL_OK;
}

} // namespace repdl_cuda

#endif
