/* SPDX-License-Identifier: MIT */
/* repdl/linear.h: fully connected layer (PyTorch layout), forward and
   backward, as canonical matrix products (include/repdl/gemm.h).

     x [M x K] (M rows = the batch), W [N x K], b [N], y [M x N]
     y  = x W^T + b                repdl_linear_forward_f32
     dx = dy W, dW = dy^T x,       repdl_linear_backward_f32
     db = column sums of dy

   The orders (docs/canonical-order.md, "Matrix products" and "The batch
   order"):
     y[m][n]  = chain over k ascending of (x[m][k], W[n][k]) from b[n]
                (or -0 when b == NULL): repdl_gemm_f32(0, 1, ...);
     dx[m][k] = chain over n ascending of (dy[m][n], W[n][k]) from -0;
     dW[n][k] = the buddy tree over the micro-batches g (REPDL_MICROBATCH
                rows each, the last one short) of
                  chain over m in g ascending of (dy[m][n], x[m][k]) from -0;
     db[n]    = the buddy tree over the micro-batches g of
                  fadd chain over m in g ascending of dy[m][n] from -0.
   "chain" is acc = fma(a, b, acc), one rounding per step (repdl__fmaf).
   y and dx: each output element depends only on its own row and column,
   so the result is the same for every batch size.  dW and db: for
   M <= REPDL_MICROBATCH one chain; above, the micro-batch values can be
   computed anywhere (threads, processes, GPUs: a call on the rows of one
   micro-batch gives its value) and combined by the tree
   (include/repdl/reduce_units.h, repdl/mpi.h) to the same bits.
   Outputs are overwritten (never accumulated); dx, dW, db may each be
   NULL (skipped).  Sizes 0 are allowed (nothing read, pointers may be
   NULL); K == 0 gives y = b (or -0), dx has no element; M == 0 gives
   dW = -0 and db = -0.  Every NaN output is 0x7fc00000.  Outputs must not
   overlap inputs.  db with M > REPDL_MICROBATCH, and dW with more than
   16 micro-batches (M > 16 REPDL_MICROBATCH), need scratch for the tree
   (ceil(log2 G) + 2 vectors of db's or dW's size, G micro-batches,
   REPDL__ALLOC): when it cannot be had the call returns REPDL_ERR_NOMEM
   and writes nothing (the out-of-memory rule of the batch order,
   docs/canonical-order.md).  dW's tile trees keep at most 16 micro-batches'
   tree in each register tile's L1 slots; their packing scratch (malloc)
   missing, the same bits come from plain loops. */
#ifndef REPDL_LINEAR_H
#define REPDL_LINEAR_H

#include "detail/accum.h"
#include "gemm.h"
REPDL_BEGIN_CODE

/* y = x W^T + b.  The status of repdl_gemm_f32 (x [M x K], W [N x K],
   y [M x N]: an extent that overflows is REPDL_ERR_OVERFLOW). */
REPDL_API repdl_status repdl_linear_forward_f32(size_t M, size_t K, size_t N, const float *x,
                                                const float *W, const float *b, float *y)
{
    REPDL__FPENV_CHECK();
    return repdl_gemm_f32(0, 1, M, N, K, 1.0f, 0.0f, x, K, W, K, b, y, N);
}

/* db[n] = fadd chain over m ascending of dy[m][n], from -0 (one
   micro-batch; no canonicalisation).  Vectorizes over n (additions only:
   nothing to contract). */
REPDL_FN void repdl__colsum_chain_f32(size_t M, size_t N, const float *dy, float *db)
{
    size_t m, n;
    for (n = 0; n < N; n++) db[n] = -0.0f;
    for (m = 0; m < M; m++) {
        const float *r = dy + m * N;
        for (n = 0; n < N; n++) db[n] = repdl__fadd(db[n], r[n]);
    }
}

/* ---- dW by register tiles: the micro-batch tree inside each tile ----
   repdl__linear_dw_tree_f32(M, K, N, x, dy, canon, out): out[n][k] (ld K)
   = the aligned buddy tree (detail/accum.h, repdl__tree) over the G =
   repdl__mb_count(M) micro-batches g (rows 16 g .. of x and dy; the last
   one short) of chain over m in g ascending of (dy[m][n], x[m][k]) from
   -0; the root canonical when canon (the value of the batch order), else
   as the tree leaves it (a node for repdl__vtree_push).  G <= 16.
   dy^T (N x M) and x (M x K) are packed once per block over the whole
   depth M (gemm.h's panels); each MR x nr output tile runs gemm.h's
   micro-kernel on one micro-batch's depth slice at a time from -0 (the
   leaf, in L1) and adds the leaves by the carries of repdl__tree_carry_end
   in L1 slots: the same fused multiply-adds and the same additions as the
   micro-batch products added by repdl__vtree, without their N x K
   vectors in memory.  Returns -1 (nothing written) when its scratch
   cannot be had (malloc). */
#define REPDL__DW_GMAX 16 /* micro-batches of one tile tree: slots 0 .. 4 */
#define REPDL__DW_SLOTS 6 /* the 5 levels and the carry buffer */

/* d[i] = a[i] + b[i], i < V (one rounding each: the tree's additions);
   V is a multiple of the kernel's nr (16 or 32). */
#if REPDL__GEMM_X86
__attribute__((target("avx512f"))) static inline void
repdl__dw_add_avx512(float *d, const float *a, const float *b, size_t V)
{
    size_t i;
    for (i = 0; i < V; i += 16)
        _mm512_storeu_ps(d + i, _mm512_add_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i)));
}
__attribute__((target("avx2"))) static inline void
repdl__dw_add_avx2(float *d, const float *a, const float *b, size_t V)
{
    size_t i;
    for (i = 0; i < V; i += 8)
        _mm256_storeu_ps(d + i, _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
}
#endif
REPDL_FN void repdl__dw_add(int isa, float *d, const float *a, const float *b, size_t V)
{
    size_t i;
#if REPDL__GEMM_X86
    if (isa == 2) { repdl__dw_add_avx512(d, a, b, V); return; }
    if (isa == 1) { repdl__dw_add_avx2(d, a, b, V); return; }
#endif
    (void)isa;
    for (i = 0; i < V; i++) d[i] = repdl__fadd(a[i], b[i]);
}

#if REPDL__GEMM_X86
/* Two neighbouring leaves of one tile at once (AVX-512F: 24 of the 32
   registers hold both MR x 32 tiles): out = RN(left + right), the tree's
   level-1 node, where left and right are repdl__gemm_ukr's chains from -0
   over k0 steps of (a0, b0) and k1 steps of (a1, b1) (packed panels, MR
   and 32 floats a step).  The same fused multiply-adds and the same
   addition as the two leaves stored and added by repdl__dw_add, without
   the stores of the leaves.  out: rows x 32 floats, ld 32. */
#define REPDL__DW_ROWS6(X) X(0) X(1) X(2) X(3) X(4) X(5)
__attribute__((always_inline, target("avx512f"))) static inline void
repdl__dw_pair_avx512_body(const int rows, size_t k0, const float *a0, const float *b0,
                           size_t k1, const float *a1, const float *b1, float *out)
{
    const __m512 z = _mm512_set1_ps(-0.0f);
    __m512 c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z, c40 = z,
           c41 = z, c50 = z, c51 = z;
    __m512 d00 = z, d01 = z, d10 = z, d11 = z, d20 = z, d21 = z, d30 = z, d31 = z, d40 = z,
           d41 = z, d50 = z, d51 = z;
    __m512 v0, v1, av;
    size_t k;
#define REPDL__FM(i, c, a)                                                \
    if (rows > i) {                                                       \
        av = _mm512_set1_ps(a[i]);                                        \
        c##i##0 = _mm512_fmadd_ps(av, v0, c##i##0);                       \
        c##i##1 = _mm512_fmadd_ps(av, v1, c##i##1);                       \
    }
#define REPDL__FMC(i) REPDL__FM(i, c, a0)
#define REPDL__FMD(i) REPDL__FM(i, d, a1)
    for (k = 0; k < k0; k++) {
        v0 = _mm512_loadu_ps(b0);
        v1 = _mm512_loadu_ps(b0 + 16);
        REPDL__DW_ROWS6(REPDL__FMC)
        a0 += REPDL__GEMM_MR;
        b0 += 32;
    }
    for (k = 0; k < k1; k++) {
        v0 = _mm512_loadu_ps(b1);
        v1 = _mm512_loadu_ps(b1 + 16);
        REPDL__DW_ROWS6(REPDL__FMD)
        a1 += REPDL__GEMM_MR;
        b1 += 32;
    }
#undef REPDL__FMD
#undef REPDL__FMC
#undef REPDL__FM
#define REPDL__ST(i)                                                      \
    if (rows > i) {                                                       \
        _mm512_storeu_ps(out + i * 32, _mm512_add_ps(c##i##0, d##i##0));  \
        _mm512_storeu_ps(out + i * 32 + 16, _mm512_add_ps(c##i##1, d##i##1)); \
    }
    REPDL__DW_ROWS6(REPDL__ST)
#undef REPDL__ST
}
#undef REPDL__DW_ROWS6

__attribute__((target("avx512f"))) static inline void
repdl__dw_pair_avx512(int rows, size_t k0, const float *a0, const float *b0, size_t k1,
                      const float *a1, const float *b1, float *out)
{
    switch (rows) {
    case 1: repdl__dw_pair_avx512_body(1, k0, a0, b0, k1, a1, b1, out); break;
    case 2: repdl__dw_pair_avx512_body(2, k0, a0, b0, k1, a1, b1, out); break;
    case 3: repdl__dw_pair_avx512_body(3, k0, a0, b0, k1, a1, b1, out); break;
    case 4: repdl__dw_pair_avx512_body(4, k0, a0, b0, k1, a1, b1, out); break;
    case 5: repdl__dw_pair_avx512_body(5, k0, a0, b0, k1, a1, b1, out); break;
    default: repdl__dw_pair_avx512_body(6, k0, a0, b0, k1, a1, b1, out); break;
    }
}
#endif

/* The tree of one tile: leaves g = 0 .. G-1 from the packed a (MR rows)
   and b (nr columns) panels of depth M; root to out (rows x cols, ld). */
REPDL_FN void repdl__linear_dw_tile(int isa, int rows, size_t cols, size_t M, const float *a,
                                    const float *b, const float *zrow, int canon, float *out,
                                    size_t ldo)
{
    const size_t MR = REPDL__GEMM_MR, nr = (size_t)repdl__gemm_nr(isa);
    float slot[REPDL__DW_SLOTS][REPDL__GEMM_MR * REPDL__GEMM_NRMAX];
    const size_t V = (size_t)rows * nr, G = repdl__mb_count(M);
    const unsigned carry = REPDL__DW_SLOTS - 1;
    size_t count, r, c;
    const float *acc = NULL, *top;
    unsigned l, hi = 0;
    repdl__gemm_tile t;
    t.in = zrow;
    t.ldi = 0;
    t.ldo = nr;
    t.cold = NULL;
    t.ldc = 0;
    t.last = 0;
    t.alpha = 1.0f;
    t.beta = 0.0f;
    for (count = 0; count < G; count++) {
        size_t m0 = count * REPDL_MICROBATCH, len = repdl__mb_end(M, m0) - m0;
        unsigned end = repdl__tree_carry_end(count, 0);
        float *v = slot[(count & 1) ? carry : 0];
#if REPDL__GEMM_X86
        if (isa == 2 && !(count & 1) && count + 1 < G) {
            /* leaves count and count + 1 as their level-1 node: the first
               carry of leaf count + 1 (slot 0 + the leaf), then the rest
               of its carries as below */
            size_t m1 = m0 + REPDL_MICROBATCH, len1 = repdl__mb_end(M, m1) - m1;
            end = repdl__tree_carry_end(count + 1, 0); /* >= 1 */
            v = slot[end == 1 ? 1 : 0];
            repdl__dw_pair_avx512(rows, len, a + m0 * MR, b + m0 * nr, len1, a + m1 * MR,
                                  b + m1 * nr, v);
            for (l = 1; l < end; l++) {
                float *dst = slot[l + 1 == end ? end : l];
                repdl__dw_add(isa, dst, slot[l], v, V);
                v = dst;
            }
            count++;
            continue;
        }
#endif
        t.out = v;
        repdl__gemm_ukr(isa, rows, len, a + m0 * MR, b + m0 * nr, &t);
        for (l = 0; l < end; l++) { /* left (pending, level l) + right */
            float *dst = slot[l + 1 == end ? end : l];
            repdl__dw_add(isa, dst, slot[l], v, V);
            v = dst;
        }
    }
    /* the root: pending subtrees from the lowest up (repdl__vtree_root) */
    for (l = 0; l < REPDL__DW_SLOTS - 1; l++)
        if ((G >> l) & 1) hi = l;
    for (l = 0; l < hi; l++) {
        if (!((G >> l) & 1)) continue;
        if (acc) repdl__dw_add(isa, slot[l], slot[l], acc, V);
        acc = slot[l];
    }
    top = slot[hi];
    for (r = 0; r < (size_t)rows; r++)
        for (c = 0; c < cols; c++) {
            float v = top[r * nr + c];
            if (acc) v = repdl__fadd(v, acc[r * nr + c]);
            out[r * ldo + c] = canon ? repdl__canon(v) : v;
        }
}

REPDL_FN int repdl__linear_dw_tree_f32(size_t M, size_t K, size_t N, const float *x,
                                       const float *dy, int canon, float *out)
{
    const size_t MR = REPDL__GEMM_MR;
    int isa = repdl__gemm_isa();
    size_t nr = (size_t)repdl__gemm_nr(isa), mc, nc, mcp, ncp, ic, jc, ir, jr, j;
    float *ap, *bp, *zrow;
    void *blk;
    /* a B panel of about 128 KiB (L2), an A block of MC rows */
    nc = ((size_t)32768 / M) / nr * nr;
    if (nc < nr) nc = nr;
    ncp = K < nc ? (K + nr - 1) / nr * nr : nc;
    mcp = (N < REPDL_GEMM_MC ? N : REPDL_GEMM_MC);
    mcp = (mcp + MR - 1) / MR * MR;
    blk = malloc((mcp * M + ncp * M + nr) * sizeof(float) + 4 * 64);
    if (!blk) return -1;
    ap = repdl__align64(blk);
    bp = repdl__align64(ap + mcp * M);
    zrow = repdl__align64(bp + ncp * M);
    for (j = 0; j < nr; j++) zrow[j] = -0.0f;
    for (jc = 0; jc < K; jc += nc) {
        size_t ncur = K - jc < nc ? K - jc : nc;
        repdl__gemm_pack_b(0, x, K, 0, M, jc, ncur, nr, bp);
        for (ic = 0; ic < N; ic += REPDL_GEMM_MC) {
            mc = N - ic < REPDL_GEMM_MC ? N - ic : REPDL_GEMM_MC;
            repdl__gemm_pack_a(1, dy, N, ic, mc, 0, M, ap);
            for (jr = 0; jr < ncur; jr += nr)
                for (ir = 0; ir < mc; ir += MR)
                    repdl__linear_dw_tile(isa, (int)(mc - ir < MR ? mc - ir : MR),
                                          ncur - jr < nr ? ncur - jr : nr, M, ap + ir * M,
                                          bp + jr * M, zrow, canon,
                                          out + (ic + ir) * K + jc + jr, K);
        }
    }
    free(blk);
    return 0;
}

/* The same values by the plain loops of the definition (repdl__tree per
   element): the fallback when the tiles' scratch cannot be had. */
REPDL_FN void repdl__linear_dw_plain_f32(size_t M, size_t K, size_t N, const float *x,
                                         const float *dy, int canon, float *out)
{
    size_t n, k, m0, m;
    for (n = 0; n < N; n++)
        for (k = 0; k < K; k++) {
            repdl__tree tr;
            float v;
            repdl__tree_init(&tr);
            for (m0 = 0; m0 < M; m0 += REPDL_MICROBATCH) {
                float acc = -0.0f;
                for (m = m0; m < repdl__mb_end(M, m0); m++)
                    acc = repdl__fmaf(dy[m * N + n], x[m * K + k], acc);
                repdl__tree_push(&tr, 0, acc);
            }
            v = repdl__tree_root(&tr);
            out[n * K + k] = canon ? repdl__canon(v) : v;
        }
}

/* out = repdl__linear_dw_tree_f32's value, with the plain fallback. */
REPDL_FN void repdl__linear_dw_f32(size_t M, size_t K, size_t N, const float *x,
                                   const float *dy, int canon, float *out)
{
    if (repdl__linear_dw_tree_f32(M, K, N, x, dy, canon, out))
        repdl__linear_dw_plain_f32(M, K, N, x, dy, canon, out);
}

/* dW [N x K] (kind 0) or db [N] (kind 1) in the batch order, M > 0.  dW:
   the tile trees (G = repdl__mb_count(M) <= REPDL__DW_GMAX: no tree in
   memory), or their nodes of aligned groups added by t (V = N K).  db:
   one micro-batch, its chain; more, the tree t (V = N) over the chains. */
REPDL_FN void repdl__linear_batch_f32(int kind, size_t M, size_t K, size_t N, const float *x,
                                      const float *dy, repdl__vtree *t, float *out)
{
    size_t G = repdl__mb_count(M), g, n;
    if (!kind && G <= REPDL__DW_GMAX) { /* the whole tree in the tiles */
        repdl__linear_dw_f32(M, K, N, x, dy, 1, out);
        return;
    }
    if (!kind) {
        /* aligned groups of 2^l micro-batches (16 while they last, then
           the binary digits of the rest, largest first): each group's
           tree, a complete subtree, is the node of level l */
        for (g = 0; g < G;) {
            unsigned l = 4;
            size_t m0 = g * REPDL_MICROBATCH, m1;
            while (((size_t)1 << l) > G - g) l--;
            m1 = (g + ((size_t)1 << l)) * REPDL_MICROBATCH;
            if (m1 > M) m1 = M;
            repdl__linear_dw_f32(m1 - m0, K, N, x + m0 * K, dy + m0 * N, 0,
                                 repdl__vtree_dest(t, l));
            repdl__vtree_push(t, l);
            g += (size_t)1 << l;
        }
        repdl__vtree_root(t, out);
        return;
    }
    if (G <= 1) { /* one micro-batch: its chain */
        repdl__colsum_chain_f32(M, N, dy, out);
        for (n = 0; n < N; n++) out[n] = repdl__canon(out[n]);
        return;
    }
    for (g = 0; g < G; g++) {
        size_t m0 = g * REPDL_MICROBATCH, len = repdl__mb_end(M, m0) - m0;
        repdl__colsum_chain_f32(len, N, dy + m0 * N, repdl__vtree_dest(t, 0));
        repdl__vtree_push(t, 0);
    }
    repdl__vtree_root(t, out);
}

/* Every product is checked, and the trees' scratch taken, before the
   first is computed: on an error nothing is written. */
REPDL_API repdl_status repdl_linear_backward_f32(size_t M, size_t K, size_t N, const float *x,
                                                 const float *W, const float *dy, float *dx,
                                                 float *dW, float *db)
{
    REPDL__FPENV_CHECK();
    repdl_status st;
    size_t t = M, G = repdl__mb_count(M);
    repdl__vtree tw, tb;
    if (repdl__size_mul(&t, N)) return REPDL_ERR_OVERFLOW;
    t = 1;   /* db: N floats, written (-0) even when M = 0 */
    if (db && repdl__size_mul(&t, N)) return REPDL_ERR_OVERFLOW;
    if (dx && (st = repdl__gemm_check(0, 0, M, K, N, dy, N, W, K, dx, K)) != REPDL_OK) return st;
    if (dW && (st = repdl__gemm_check(1, 0, N, K, M, dy, N, x, K, dW, K)) != REPDL_OK) return st;
    if (db && M && N && !dy) return REPDL_ERR_INVALID;
    /* the trees over micro-batches (N K fits: repdl__gemm_check) */
    if (repdl__vtree_init(&tw, dW && G > REPDL__DW_GMAX ? N * K : 0, G)) return REPDL_ERR_NOMEM;
    if (repdl__vtree_init(&tb, db && G > 1 ? N : 0, G)) {
        repdl__vtree_free(&tw);
        return REPDL_ERR_NOMEM;
    }
    /* dx [M x K] = dy [M x N] . W [N x K] */
    if (dx) repdl_gemm_f32(0, 0, M, K, N, 1.0f, 0.0f, dy, N, W, K, NULL, dx, K);
    /* dW [N x K]: the tree over micro-batches of dy_g^T [N x mb] . x_g [mb x K] */
    if (dW && N && K) {
        if (M == 0)
            for (t = 0; t < N * K; t++) dW[t] = -0.0f;
        else repdl__linear_batch_f32(0, M, K, N, x, dy, &tw, dW);
    }
    if (db && N) {
        if (M == 0)
            for (t = 0; t < N; t++) db[t] = -0.0f;
        else repdl__linear_batch_f32(1, M, K, N, x, dy, &tb, db);
    }
    repdl__vtree_free(&tw);
    repdl__vtree_free(&tb);
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_LINEAR_H */
