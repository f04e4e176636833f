/* SPDX-License-Identifier: MIT */
/* repdl/reduce.h: canonical reductions of binary32 arrays: sum, dot, sum of
   squares, 2-norm, mean, variance (max, min, argmax, argmin are in
   reduce_minmax.h, included below).

   Every sum is evaluated in one order, a pure function of n: the canonical
   tree of docs/canonical-order.md, whose plainest implementation is
   reference/reduce_ref.h.  The same bits come out for any compiler, flags,
   vector width, thread count, CUDA grid or batch size.

     float s = repdl_sum_f32(n, x);
     float d = repdl_dot_f32(n, x, y);       each product rounded, then summed
     float m = repdl_mean_f32(n, x);         RN(sum / n), one rounding

   The tree (docs/canonical-order.md, sections 2 to 4):
     - leaves of REPDL_SUM_LEAF = 1024 consecutive elements, seen as
       REPDL_SUM_VECS = 16 vectors of REPDL_SUM_LANES = 64 lanes; the last
       leaf is padded with -0.0, which changes no sum (x + -0 == x for
       every x, -0 included);
     - inside a leaf the vectors combine by an adjacent pairwise tree of
       vertical (lane by lane) additions, then the 64 lanes fold by halving,
       a[v] = a[v] + a[v + h] for h = 32, 16, ..., 1;
     - the leaves combine by an aligned buddy tree: adjacent pairs, pairs of
       pairs, ...; a missing right sibling passes its left sibling up.
   Accuracy (section 5): |computed - exact| <= g(d) * sum |x_i|, with
   g(d) = d u / (1 - d u), u = 2^-24 and d = ceil(log2 n) (no overflow).

   Splitting (section 6): every power-of-two-aligned run of leaves is a
   subtree, and the value of such a block is the canonical sum of the block
   alone.  So repdl_sum_f32(c, x + b) computed anywhere (thread, CUDA block,
   MPI rank) for aligned blocks [b, b + c), then combined with
   repdl_sum_combine_f32 (equal blocks) or repdl_sum_state_* (any aligned
   blocks), gives repdl_sum_f32(n, x), bit for bit.

   Edge cases, every function: n == 0 reads nothing (x may be NULL); the sum
   of nothing is -0.0; every NaN result is 0x7fc00000.  Sizes and indices
   are size_t (64-bit), strides ptrdiff_t, in elements. */
#ifndef REPDL_REDUCE_H
#define REPDL_REDUCE_H

#include "config.h"
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
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && \
    !defined(REPDL_PORTABLE_C)
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
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && \
    !defined(REPDL_PORTABLE_C)
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

/* A leaf of len <= 1024 elements (the last one): padded with -0.0. */
REPDL_FN float repdl__sum_leaf_f32(const float *x, size_t len)
{
    float p[REPDL_SUM_LEAF];
    size_t i;
    if (len == REPDL_SUM_LEAF) return repdl__sum_leaf_full_f32(x);
    for (i = 0; i < len; i++) p[i] = x[i];
    for (; i < REPDL_SUM_LEAF; i++) p[i] = -0.0f;
    return repdl__sum_leaf_full_f32(p);
}

/* ---- Leaves of products (dot) ----
   A product must be rounded before it is added: RN(x * y), never an FMA.
   gcc contracts x * y + z by default when it can see the multiplication
   feed the addition.  Here it cannot: the product's bits are ANDed with
   `keep`, all ones at run time but unknown to the compiler (its address
   went through the opaque barrier REPDL__MATERIALIZE), so the product's
   only use is an integer operation.  One AND per vector, no memory round
   trip.  On the device the barrier is empty, the AND folds away, and
   repdl__fmul is __fmul_rn, which nvcc never fuses. */
REPDL_FN uint32_t repdl__opaque_ones(void)
{
    uint32_t keep = 0xffffffffu;
    REPDL__MATERIALIZE(&keep);
    return keep;
}
#define REPDL__PROD(a, b, keep) repdl__asfloat(repdl__asuint(repdl__fmul((a), (b))) & (keep))

/* The vertical tree of one lane of products x[jV] * y[jV], j < 16. */
REPDL_FN float repdl__dot_column_f32(const float *x, const float *y, uint32_t keep)
{
#define REPDL__E(j) REPDL__PROD(x[(j) * REPDL_SUM_LANES], y[(j) * REPDL_SUM_LANES], keep)
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
            q[k][v] = repdl__fadd(REPDL__PROD(rx[v], ry[v], keep),
                                  REPDL__PROD(rx[v + REPDL_SUM_LANES], ry[v + REPDL_SUM_LANES],
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

REPDL_FN void repdl__tree_push(repdl__tree *t, unsigned k, float v)
{
    size_t c = t->count >> k;
    unsigned l = k;
    while (c & 1) {
        v = repdl__fadd(t->node[l], v);
        c >>= 1;
        l++;
    }
    t->node[l] = v;
    t->count += (size_t)1 << k;
}

REPDL_FN float repdl__tree_root(const repdl__tree *t)
{
    float acc = -0.0f; /* the sum of nothing */
    int any = 0;
    unsigned l;
    for (l = 0; l < 64 && (t->count >> l) != 0; l++) {
        if ((t->count >> l) & 1) {
            acc = any ? repdl__fadd(t->node[l], acc) : t->node[l];
            any = 1;
        }
    }
    return acc;
}

/* ---- Sum ---- */

/* The canonical sum of x[0..n).  -0.0 when n == 0. */
REPDL_API float repdl_sum_f32(size_t n, const float *x)
{
    repdl__tree t;
    size_t j, m = n >> REPDL_SUM_LEAF_LOG2, r = n & (REPDL_SUM_LEAF - 1);
    repdl__tree_init(&t);
    if (n < REPDL_SUM_STREAM_MIN) {
        for (j = 0; j < m; j++)
            repdl__tree_push(&t, 0, repdl__sum_leaf_full_f32(x + j * REPDL_SUM_LEAF));
    } else {
        int pf = n >= REPDL_SUM_PREFETCH_MIN;
        for (j = 0; j < m; j++) {
            if (pf && j + REPDL_SUM_PREFETCH_LEAVES < m)
                repdl__prefetch_leaf(x + (j + REPDL_SUM_PREFETCH_LEAVES) * REPDL_SUM_LEAF);
            repdl__tree_push(&t, 0, repdl__sum_leaf_stream_f32(x + j * REPDL_SUM_LEAF));
        }
    }
    if (r) repdl__tree_push(&t, 0, repdl__sum_leaf_f32(x + m * REPDL_SUM_LEAF, r));
    return repdl__canon(repdl__tree_root(&t));
}

/* ---- Partial / combine API (docs/canonical-order.md, section 6) ----
   A block [begin, begin + count) is a node of the tree when begin is a
   multiple of 1024 * 2^k and count == 1024 * 2^k, or when it is the last
   block of the array (ends at n) and count <= 1024 * 2^k, for some k >= 0.
   Its value is the canonical sum of the block alone. */

/* Level k of a block of `count` elements: the least k with
   count <= 1024 * 2^k (count > 0). */
REPDL_FN unsigned repdl__sum_block_level(size_t count)
{
    size_t leaves = ((count - 1) >> REPDL_SUM_LEAF_LOG2) + 1;
    unsigned k = 0;
    while (((size_t)1 << k) < leaves) k++;
    return k;
}

/* 1 when [begin, begin + count) can be a node: begin is a multiple of
   1024 * 2^k, k = repdl__sum_block_level(count).  (Whether a short block
   is the last one, the caller knows.)  count == 0 is always fine. */
REPDL_API int repdl_sum_block_ok(size_t begin, size_t count)
{
    unsigned k;
    if (count == 0) return 1;
    k = repdl__sum_block_level(count);
    return (begin & ((((size_t)REPDL_SUM_LEAF) << k) - 1)) == 0;
}

/* The partial of the aligned block x[begin .. begin + count): equal to
   repdl_sum_f32(count, x + begin); the canonical NaN when the block cannot
   be a node (repdl_sum_block_ok fails), to catch misaligned splits. */
REPDL_API float repdl_sum_partial_f32(size_t begin, size_t count, const float *x)
{
    if (!repdl_sum_block_ok(begin, count)) return repdl__nanf();
    if (count == 0) return -0.0f;
    return repdl_sum_f32(count, x + begin);
}

/* Combines the partials of p consecutive equal blocks of 1024 * 2^k
   elements each (the last block may be shorter), block 0 starting at
   element 0: the buddy tree over the partials.  It is the same tree as over
   leaves, so combine(partials of blocks of x) == repdl_sum_f32(x).
   p == 0 gives -0.0.  The usual in-place GPU tree computes the same thing:
     for (s = 1; s < p; s *= 2)
       for (i = 0; i + s < p; i += 2 * s) part[i] = part[i] + part[i + s];
*/
REPDL_API float repdl_sum_combine_f32(size_t p, const float *partials)
{
    repdl__tree t;
    size_t i;
    repdl__tree_init(&t);
    for (i = 0; i < p; i++) repdl__tree_push(&t, 0, partials[i]);
    return repdl__canon(repdl__tree_root(&t));
}

/* Combining blocks of different sizes, in order (section 6):
     repdl_sum_state s;  repdl_sum_state_init(&s);
     repdl_sum_state_push(&s, 0, 4096, pa);      pa = sum of x[0..4096)
     repdl_sum_state_push(&s, 4096, 904, pb);    pb = sum of x[4096..5000)
     float total = repdl_sum_state_result(&s);   == repdl_sum_f32(5000, x)
   Blocks must come in order, start at 0, be consecutive and each be a node;
   a block shorter than 1024 * 2^k ends the array.  push returns 0, or -1
   (and the state is poisoned: result is NaN) for a block that breaks these
   rules. */
typedef struct repdl_sum_state {
    repdl__tree tree;
    size_t next;  /* the element where the next block must begin */
    int closed;   /* a short (last) block was pushed */
    int error;
} repdl_sum_state;

REPDL_API void repdl_sum_state_init(repdl_sum_state *s)
{
    repdl__tree_init(&s->tree);
    s->next = 0;
    s->closed = 0;
    s->error = 0;
}

REPDL_API int repdl_sum_state_push(repdl_sum_state *s, size_t begin, size_t count,
                                  float partial)
{
    unsigned k;
    if (s->error) return -1;
    if (count == 0) return 0;
    if (s->closed || begin != s->next || !repdl_sum_block_ok(begin, count)) {
        s->error = 1;
        return -1;
    }
    k = repdl__sum_block_level(count);
    repdl__tree_push(&s->tree, k, partial);
    if (count != ((size_t)REPDL_SUM_LEAF << k)) s->closed = 1;
    s->next = begin + count;
    return 0;
}

REPDL_API float repdl_sum_state_result(const repdl_sum_state *s)
{
    if (s->error) return repdl__nanf();
    return repdl__canon(repdl__tree_root(&s->tree));
}

/* The first block of the canonical decomposition of [begin, end) into
   nodes: the largest 1024 * 2^k that divides begin and fits in
   [begin, end); or end - begin when less than a leaf remains (allowed only
   when end is the end of the array).  begin must be a multiple of 1024.
   Used to split a range of leaves between threads (reduce_threads.h). */
REPDL_API size_t repdl_sum_block_size(size_t begin, size_t end)
{
    size_t len = end - begin, b = REPDL_SUM_LEAF;
    if (len < REPDL_SUM_LEAF) return len;
    while ((begin & (2 * b - 1)) == 0 && 2 * b <= len && 2 * b > b) b *= 2;
    return b;
}

/* ---- Products ----
   dst[i] = RN(x[i] * y[i]) for i < len, then -0.0 up to REPDL_SUM_LEAF,
   and a compiler barrier: the products are stored and read back, so a host
   compiler cannot fuse a multiplication with the first additions of the
   tree into an FMA (gcc does under -ffp-contract=fast).  On the device,
   repdl__fmul is __fmul_rn, which is never fused. */
REPDL_FN void repdl__fmul_exact_store(float *dst, const float *x, const float *y,
                                      size_t len)
{
    size_t i;
    for (i = 0; i < len; i++) dst[i] = repdl__fmul(x[i], y[i]);
    for (; i < REPDL_SUM_LEAF; i++) dst[i] = -0.0f;
    REPDL__MATERIALIZE(dst);
}

/* The same with strides (element i is x[i * incx], y[i * incy]). */
REPDL_FN void repdl__fmul_exact_store_strided(float *dst, const float *x, ptrdiff_t incx,
                                              const float *y, ptrdiff_t incy, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++)
        dst[i] = repdl__fmul(x[(ptrdiff_t)i * incx], y[(ptrdiff_t)i * incy]);
    for (; i < REPDL_SUM_LEAF; i++) dst[i] = -0.0f;
    REPDL__MATERIALIZE(dst);
}

/* ---- Dot product and sum of squares ---- */

/* sum over i of RN(x[i] * y[i]), in the canonical order.  Each product is
   rounded to binary32 first (no FMA anywhere): the canonical sum of the
   array of products.  -0.0 when n == 0. */
REPDL_API float repdl_dot_f32(size_t n, const float *x, const float *y)
{
    repdl__tree t;
    size_t j, m = n >> REPDL_SUM_LEAF_LOG2, r = n & (REPDL_SUM_LEAF - 1);
    uint32_t keep = repdl__opaque_ones();
    repdl__tree_init(&t);
    if (n < REPDL_SUM_STREAM_MIN) {
        for (j = 0; j < m; j++)
            repdl__tree_push(&t, 0, repdl__dot_leaf_full_f32(x + j * REPDL_SUM_LEAF,
                                                             y + j * REPDL_SUM_LEAF, keep));
    } else {
        int pf = n >= REPDL_SUM_PREFETCH_MIN / 2;
        for (j = 0; j < m; j++) {
            if (pf && j + REPDL_SUM_PREFETCH_LEAVES < m) {
                repdl__prefetch_leaf(x + (j + REPDL_SUM_PREFETCH_LEAVES) * REPDL_SUM_LEAF);
                repdl__prefetch_leaf(y + (j + REPDL_SUM_PREFETCH_LEAVES) * REPDL_SUM_LEAF);
            }
            repdl__tree_push(&t, 0, repdl__dot_leaf_stream_f32(x + j * REPDL_SUM_LEAF,
                                                               y + j * REPDL_SUM_LEAF, keep));
        }
    }
    if (r) {
        float p[REPDL_SUM_LEAF];
        repdl__fmul_exact_store(p, x + m * REPDL_SUM_LEAF, y + m * REPDL_SUM_LEAF, r);
        repdl__tree_push(&t, 0, repdl__sum_leaf_full_f32(p));
    }
    return repdl__canon(repdl__tree_root(&t));
}

/* Strided dot: element i is x[i * incx] * y[i * incy] (strides in
   elements, any sign; 0 repeats one element). */
REPDL_API float repdl_dot_strided_f32(size_t n, const float *x, ptrdiff_t incx,
                                     const float *y, ptrdiff_t incy)
{
    float p[REPDL_SUM_LEAF];
    repdl__tree t;
    size_t j;
    repdl__tree_init(&t);
    for (j = 0; j < n; j += REPDL_SUM_LEAF) {
        size_t len = n - j < REPDL_SUM_LEAF ? n - j : REPDL_SUM_LEAF;
        repdl__fmul_exact_store_strided(p, x + (ptrdiff_t)j * incx, incx,
                                        y + (ptrdiff_t)j * incy, incy, len);
        repdl__tree_push(&t, 0, repdl__sum_leaf_full_f32(p));
    }
    return repdl__canon(repdl__tree_root(&t));
}

/* Sum of squares: sum over i of RN(x[i] * x[i]), canonical order; bit for
   bit repdl_dot_f32(n, x, x).  Plain, unscaled: a square overflows to +inf
   for |x| >= 2^64 (about 1.8e19) and the sum to +inf when it exceeds
   FLT_MAX; squares below 2^-149 round to zero (gradual underflow, as IEEE
   multiplication does).  Any NaN gives NaN; otherwise any infinity gives
   +inf.  n == 0 gives -0.0 (the empty sum). */
REPDL_API float repdl_sumsq_f32(size_t n, const float *x)
{
    return repdl_dot_f32(n, x, x);
}

REPDL_API float repdl_sumsq_strided_f32(size_t n, const float *x, ptrdiff_t incx)
{
    return repdl_dot_strided_f32(n, x, incx, x, incx);
}

/* 2-norm: RN(sqrt(repdl_sumsq_f32(n, x))), the square root correctly
   rounded.  Overflows to +inf when the sum of squares does (|x| around
   1.8e19 and above), even where the true norm would be finite; tiny inputs
   lose accuracy to underflow of their squares (when every |x| < 2^-75,
   about 2.6e-23, the norm is 0).  n == 0 gives -0.0 (sqrt(-0) = -0). */
REPDL_API float repdl_norm2_f32(size_t n, const float *x)
{
    return repdl__canon(repdl__fsqrt(repdl_sumsq_f32(n, x)));
}

REPDL_API float repdl_norm2_strided_f32(size_t n, const float *x, ptrdiff_t incx)
{
    return repdl__canon(repdl__fsqrt(repdl_sumsq_strided_f32(n, x, incx)));
}

/* ---- Strided sum ---- */

/* Element i is x[i * incx] (incx in elements, any sign; 0 repeats x[0]).
   Gathers each leaf into a buffer, then the same leaf code: the same bits
   as repdl_sum_f32 on the gathered array. */
REPDL_API float repdl_sum_strided_f32(size_t n, const float *x, ptrdiff_t incx)
{
    float p[REPDL_SUM_LEAF];
    repdl__tree t;
    size_t j, i;
    if (incx == 1) return repdl_sum_f32(n, x);
    repdl__tree_init(&t);
    for (j = 0; j < n; j += REPDL_SUM_LEAF) {
        size_t len = n - j < REPDL_SUM_LEAF ? n - j : REPDL_SUM_LEAF;
        const float *xj = x + (ptrdiff_t)j * incx;
        for (i = 0; i < len; i++) p[i] = xj[(ptrdiff_t)i * incx];
        for (; i < REPDL_SUM_LEAF; i++) p[i] = -0.0f;
        repdl__tree_push(&t, 0, repdl__sum_leaf_full_f32(p));
    }
    return repdl__canon(repdl__tree_root(&t));
}

/* ---- Division by a count, one rounding ---- */

/* RN(s / n) for n >= 1: the exact quotient rounded once to binary32
   (nearest, ties to even, subnormals kept).  For n <= 2^24, n is exact in
   binary32 and IEEE division rounds once.  Beyond, an integer long
   division gives 26 quotient bits and a sticky bit (round to odd), which
   one conversion double -> float then rounds correctly: rounding to odd
   with two extra bits, then to nearest, equals rounding to nearest once. */
REPDL_FN float repdl__div_exact_f32(float s, size_t n)
{
    uint32_t u = repdl__asuint(s), mag = u & 0x7fffffffu;
    uint64_t r, d = (uint64_t)n, q = 0;
    int e, i;
    float f;
    if (mag == 0 || mag >= 0x7f800000u) return s; /* +-0, +-inf: s / n == s; NaN */
    if (mag >= 0x00800000u) {
        r = (mag & 0x007fffffu) | 0x00800000u;
        e = (int)(mag >> 23) - 150; /* |s| = r * 2^e */
    } else {
        r = mag;
        e = -149;
    }
    /* |s| / n = (r / d) * 2^e; bring r / d into [1/2, 1).  The first loop
       runs only when n <= r < 2^24 (so d < 2^25); in the second, 2r < d is
       tested as r < d - r, which cannot overflow. */
    while (r >= d) { d <<= 1; e++; }
    while (r < d - r) { r <<= 1; e--; }
    /* Long division, 26 bits: q = floor(2^26 r / d), 2^25 <= q < 2^26;
       invariant 0 <= r < d, and 2r - d is computed as r - (d - r). */
    for (i = 0; i < 26; i++) {
        if (r >= d - r) { q = 2 * q + 1; r = r - (d - r); }
        else { q = 2 * q; r = r + r; }
    }
    q |= (r != 0);  /* sticky bit: q is |s| / n rounded to odd, 26 bits */
    e -= 26;        /* |s| / n ~ q * 2^e, -239 <= e <= 102: a normal double */
    f = repdl__d2f(repdl__dmul((double)q, repdl__asdouble((uint64_t)(e + 1023) << 52)));
    return repdl__asfloat(repdl__asuint(f) | (u & 0x80000000u));
}

/* RN(s / n): fast path for n <= 2^24 (IEEE division, one rounding). */
REPDL_FN float repdl__div_count_f32(float s, size_t n)
{
    if (n <= ((size_t)1 << 24)) return repdl__fdiv(s, (float)n);
    return repdl__div_exact_f32(s, n);
}

/* ---- Mean and variance ---- */

/* RN(S / n) where S = repdl_sum_f32(n, x): the canonical sum, then one
   correctly rounded division by the exact integer n.  NaN when n == 0
   (0/0); +-inf and NaN sums pass through. */
REPDL_API float repdl_mean_f32(size_t n, const float *x)
{
    if (n == 0) return repdl__nanf();
    return repdl__canon(repdl__div_count_f32(repdl_sum_f32(n, x), n));
}

REPDL_API float repdl_mean_strided_f32(size_t n, const float *x, ptrdiff_t incx)
{
    if (n == 0) return repdl__nanf();
    return repdl__canon(repdl__div_count_f32(repdl_sum_strided_f32(n, x, incx), n));
}

/* Two-pass variance with `ddof` delta degrees of freedom (0: population,
   divide by n; 1: sample, divide by n - 1):
     m   = repdl_mean_f32(n, x)
     d_i = RN(x_i - m),  s_i = RN(d_i * d_i)
     var = RN(S2 / (n - ddof)),  S2 = canonical sum of the s_i.
   NaN when n <= ddof, or when any x_i is NaN or infinite (m is then NaN or
   inf and inf - inf = NaN).  Squares overflow to +inf as in
   repdl_sumsq_f32. */
REPDL_API float repdl_var_strided_f32(size_t n, size_t ddof, const float *x,
                                     ptrdiff_t incx)
{
    float p[REPDL_SUM_LEAF];
    repdl__tree t;
    size_t j, i;
    float m;
    if (n <= ddof) return repdl__nanf();
    m = repdl_mean_strided_f32(n, x, incx);
    repdl__tree_init(&t);
    for (j = 0; j < n; j += REPDL_SUM_LEAF) {
        size_t len = n - j < REPDL_SUM_LEAF ? n - j : REPDL_SUM_LEAF;
        const float *xj = x + (ptrdiff_t)j * incx;
        for (i = 0; i < len; i++) {
            float d = repdl__fsub(xj[(ptrdiff_t)i * incx], m);
            p[i] = repdl__fmul(d, d);
        }
        for (; i < REPDL_SUM_LEAF; i++) p[i] = -0.0f;
        REPDL__MATERIALIZE(p);
        repdl__tree_push(&t, 0, repdl__sum_leaf_full_f32(p));
    }
    return repdl__canon(repdl__div_count_f32(repdl__tree_root(&t), n - ddof));
}

REPDL_API float repdl_var_f32(size_t n, size_t ddof, const float *x)
{
    return repdl_var_strided_f32(n, ddof, x, 1);
}

/* ---- Row-wise (batched) forms ----
   out[r] = f(row r) for r < rows, row r being x[r * ldx .. r * ldx + n)
   (ldx in elements; x is not read when n == 0).  Each row is exactly the
   single-row call: the result of a row never depends on `rows` or on the
   other rows.  Rows may overlap (ldx < n, ldx = 0 repeats one row): they
   are only read.  Returns REPDL_OK; REPDL_ERR_OVERFLOW when the span
   (rows - 1) * ldx + n floats does not fit in size_t bytes;
   REPDL_ERR_INVALID when out is NULL with rows > 0, or x (y) is NULL with
   rows > 0 and n > 0.  On an error nothing is written. */
enum { REPDL__ROW_SUM, REPDL__ROW_SUMSQ, REPDL__ROW_NORM2, REPDL__ROW_MEAN, REPDL__ROW_VAR,
       REPDL__ROW_DOT };

/* Every float-valued row-wise form: the checks, then op on each row. */
REPDL_FN repdl_status repdl__rows_f32(int op, size_t rows, size_t n, size_t ddof, const float *x,
                                      size_t ldx, const float *y, size_t ldy, float *out)
{
    size_t r;
    REPDL__ROWS_CHECK(x, ldx);
    if (op == REPDL__ROW_DOT) REPDL__ROWS_CHECK(y, ldy);
    for (r = 0; r < rows; r++) {
        const float *xr = n ? x + r * ldx : x, *yr = n && y ? y + r * ldy : y;
        switch (op) {
        case REPDL__ROW_SUM: out[r] = repdl_sum_f32(n, xr); break;
        case REPDL__ROW_SUMSQ: out[r] = repdl_sumsq_f32(n, xr); break;
        case REPDL__ROW_NORM2: out[r] = repdl_norm2_f32(n, xr); break;
        case REPDL__ROW_MEAN: out[r] = repdl_mean_f32(n, xr); break;
        case REPDL__ROW_VAR: out[r] = repdl_var_f32(n, ddof, xr); break;
        default: out[r] = repdl_dot_f32(n, xr, yr); break;
        }
    }
    return REPDL_OK;
}

REPDL_API repdl_status repdl_sum_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                          float *out)
{
    return repdl__rows_f32(REPDL__ROW_SUM, rows, n, 0, x, ldx, NULL, 0, out);
}

REPDL_API repdl_status repdl_dot_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                          const float *y, size_t ldy, float *out)
{
    return repdl__rows_f32(REPDL__ROW_DOT, rows, n, 0, x, ldx, y, ldy, out);
}

REPDL_API repdl_status repdl_sumsq_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                            float *out)
{
    return repdl__rows_f32(REPDL__ROW_SUMSQ, rows, n, 0, x, ldx, NULL, 0, out);
}

REPDL_API repdl_status repdl_norm2_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                            float *out)
{
    return repdl__rows_f32(REPDL__ROW_NORM2, rows, n, 0, x, ldx, NULL, 0, out);
}

REPDL_API repdl_status repdl_mean_rows_f32(size_t rows, size_t n, const float *x, size_t ldx,
                                           float *out)
{
    return repdl__rows_f32(REPDL__ROW_MEAN, rows, n, 0, x, ldx, NULL, 0, out);
}

REPDL_API repdl_status repdl_var_rows_f32(size_t rows, size_t n, size_t ddof, const float *x,
                                          size_t ldx, float *out)
{
    return repdl__rows_f32(REPDL__ROW_VAR, rows, n, ddof, x, ldx, NULL, 0, out);
}
#include "reduce_minmax.h"

REPDL_END_CODE
#endif /* REPDL_REDUCE_H */
