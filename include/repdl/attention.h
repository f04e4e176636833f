/* SPDX-License-Identifier: MIT */
/* repdl/attention.h: reproducible scaled dot-product attention, forward and
   backward, with grouped key/value heads, a causal mask, an additive mask
   and key padding; and a key/value cache for decoding whose answers are
   the bits of recomputing the whole sequence.

   Shapes (row-major, repdl_attention_shape below; R = kv_stride, or nk
   when kv_stride is 0):
     q, out, dout, dq   [batch][hq][nq][d]
     k, v, dk, dv       [batch][hkv][R][d]   (rows nk .. R-1 neither read
                                               nor written)
     lse                [batch][hq][nq]      (may be NULL in the forward)
     mask               [batch][nq][nk]      additive, float; NULL: none
     key_keep           [batch][nk]          bytes, 0 = padding; NULL: none
   Query head h reads key/value head h / (hq / hkv) (grouped heads: hq a
   multiple of hkv).  Query i sits at key position q_pos0 + i; key j at
   position j.

   Definition (docs/canonical-order.md, "Attention"; docs/attention.md).
   Key j is SEEN by query i of batch entry b when
     (causal == 0 or j <= q_pos0 + i) and (key_keep == NULL or
     key_keep[b][j] != 0) and (mask == NULL or mask[b][i][j] != -inf).
   Every sum below is the canonical sum (docs/canonical-order.md, sections
   2 to 4: repdl_sum_f32's tree) over index positions, with the term of an
   index that is not seen replaced by -0.0.  x + -0 == x for every x, so an
   unseen index changes no bit: a row depends only on the keys it sees and
   their positions, never on nk, nq, the batch, the other rows or threads.
     dot(a, b)  canonical sum over t < d of RN(a[t] b[t])  (= repdl_dot_f32)
     s_j  = RN(RN(dot(q_i, k_j) * scale) + mask[b][i][j])   (no + without mask)
     m    = max of s_j over the seen j (exact; -0 < +0)
     p_j  = repdl_exp_f32(RN(s_j - m))
     l    = sum over j < nk of p_j
     out  = RN(sum over j of RN(p_j v_j[c]) / l)          for each c
     lse  = RN(m + repdl_log_f32(l))
   A row that sees no key: out = +0.0, lse = -inf.  A row whose max m is
   infinite or NaN (a score +inf or NaN): out and lse are NaN.
   Backward, for the seen (i, j) (unseen: the term -0):
     P_ij = repdl_exp_f32(RN(s_ij - lse_i))
     D_i  = dot(dout_i, out_i)
     dp_ij = dot(dout_i, v_j),   ds_ij = RN(P_ij RN(dp_ij - D_i))
     dq_i[c] = RN(scale * sum over j < nk of RN(ds_ij k_j[c]))
     dk_j[c] = RN(scale * sum over r < G nq of RN(ds_r,j q_r[c]))
     dv_j[c] = sum over r < G nq of RN(P_r,j dout_r[c])
   where G = hq / hkv and r = i G + g runs over the queries i of the G
   query heads of the group (head h G + g): query major, so that a query
   row's index depends on i and g only, not on nq (rows past a prompt's end
   come after all of its own).  Every NaN output is 0x7fc00000.

   Saved scores (docs/attention.md, "Saved scores"):
     repdl_attention_forward_scores_f32(s, scale, q, k, v, mask, key_keep, out, lse, scores)
     repdl_attention_backward_scores_f32(s, scale, q, k, v, mask, key_keep, out, lse, scores,
                                         dout, dq, dk, dv)
   scores [batch][hq][nq][nk]: the forward writes s_ij where key j is
   seen (a NaN as 0x7fc00000) and -inf elsewhere; the backward reads s_ij
   from it instead of computing dot(q_i, k_j) again (the same value: the
   same bits of every output).  scores NULL: the plain forms.
   Return value (docs/api.md): REPDL_ERR_FPENV first; REPDL_ERR_INVALID
   for s == NULL, d == 0, hkv == 0, hq not a multiple of hkv, kv_stride in
   (0, nk), causal with nk < q_pos0 + nq, a NULL array that the shape says
   is read or written (lse and the masks may be NULL; in the backward dq,
   dk, dv may each be NULL: skipped, and lse is required); REPDL_ERR_OVERFLOW
   when an extent does not fit in size_t bytes; REPDL_ERR_NOMEM when the
   workspace (malloc, REPDL__ALLOC) cannot be had.  On any error nothing is
   written.  batch, hq or nq == 0: the forward reads and writes nothing;
   the backward writes dk = RN(scale * -0) and dv = -0 (the empty sums) for
   the batch hkv nk key rows there are.  Outputs are overwritten, never
   accumulated, and must not overlap inputs.  The workspace: per thread
   about 2 d (nk + 32) + 2 nk floats (backward: also 64 G nq twice; on the
   host with gcc or clang also 4 nk floats and 4 nk bytes: rows of one
   head 4 at a time, the forward's p), and for the
   backward 2 c G nq nk floats (P and dS of c kv-head groups: as many as fit
   in 8 MiB, at least 1, at most batch hkv)); on the host each block is
   used from its first 64-byte boundary, its regions (and dS after P) on
   64-byte boundaries, whatever alignment malloc gave.

   Speed (docs/attention.md, "Speed"): on the host with gcc or clang every
   sum runs in vectors of 16 columns (AVX-512F, AVX2 or the baseline,
   chosen at run time; REPDL_ATTN_ISA_MAX caps it, REPDL_ATTN_NO_DISPATCH
   keeps the baseline), the same additions in the same trees; the scores
   and dout.v of 4 query rows of a head at once (d = 16, 32, 64), their
   P v sums (forward) and dq sums (backward) together, and the backward's
   dk and dv 4 keys at a time, each row of the shared operand loaded once
   for the 4; on AVX-512F through the counter leaf where every slot sees
   every row of a power of two (or the unseen rows are -0 weights), its
   group of 4 rows one asm block.

   attention_threads.h splits the same functions across POSIX threads
   (same bits).  The CUDA launchers (cuda/attention.cu) run these row
   functions, one row per device thread. */
#ifndef REPDL_ATTENTION_H
#define REPDL_ATTENTION_H

#include <stdlib.h>

#include "config.h"
#include "detail/accum.h"
#include "exp.h"
#include "log.h"
#if REPDL__GNU_HOST && defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
#include <immintrin.h> /* the exp kernels' gathers */
#endif
REPDL_BEGIN_CODE

typedef struct repdl_attention_shape {
    size_t batch, hq, hkv; /* hq a multiple of hkv, hkv >= 1 */
    size_t nq, nk, d;      /* queries, keys, head dimension (>= 1) */
    size_t q_pos0;         /* the key position of query 0 */
    size_t kv_stride;      /* key/value rows stored per head (>= nk); 0: nk */
    int causal;            /* nonzero: query i sees keys j <= q_pos0 + i */
} repdl_attention_shape;

/* The leaf and column-sum helpers below are kept out of line (host and
   device alike): they are called from several places, and inlining them
   into each made the CUDA kernels' PTX six times larger and their compile
   fourteen times slower.  Never changes a value. */
#if defined(__GNUC__) || defined(__clang__) || defined(__CUDACC__)
#define REPDL__ATTN_OUTLINE static __attribute__((noinline, unused)) REPDL_HD
#else
#define REPDL__ATTN_OUTLINE REPDL_FN
#endif

/* ---- Columns of a leaf ----
   The width of a block of columns summed together, and the scratch it
   needs: 64 lane rows and 16 vector rows of REPDL__ATTN_COLS floats (20
   KiB: in L1). */
#define REPDL__ATTN_COLS 64
#define REPDL__ATTN_SCRATCH ((size_t)(REPDL_SUM_LANES + REPDL_SUM_VECS) * REPDL__ATTN_COLS)

/* The row stride of KT and VT (the transposed keys and values, below):
   nk + 32, so that the d rows a block of keys reads do not share one
   cache set when nk is a multiple of 1024 (nk + 32 fits:
   repdl__attn_ws_bytes checks it first), and so that a pass of 32 keys
   from any key below nk stays in the row (repdl__attn_vdots4). */
#define REPDL__ATTN_KPAD 32

/* The term of row r, columns c < nc, into t: RN(w[r] * M[r ldm + c]), or
   -0 when use != NULL and use[r] == 0. */
REPDL_FN void repdl__attn_terms(float *t, size_t r, size_t nc, const float *w,
                                const unsigned char *use, const float *M, size_t ldm)
{
    size_t c;
    if (use && !use[r]) {
        for (c = 0; c < nc; c++) t[c] = -0.0f;
    } else {
        const float *m = M + r * ldm;
        float wr = w[r];
        for (c = 0; c < nc; c++) t[c] = repdl__fmul(wr, m[c]);
    }
}

/* ---- The leaf with vectors of 16 columns (gcc and clang on the host) ----
   The same leaf as repdl__attn_leaf below, computed with its columns in
   GNU vectors of 16 floats: the additions are those of the scalar form,
   column by column, in the same tree.  Two facts make it short:
   (1) the term of an unseen row and of a position past len is -0, an
   identity of every addition (x + -0 == -0 + x == x for every x), so a
   tree computed with those terms present has the bits of the tree with
   them removed (the scalar form's skipping);
   (2) the lane fold of section 3.2 (h = 32, 16, .., 1) over the lanes
   l < Lp (Lp: 64, or the power of two >= len when len <= 64: the lanes
   past Lp are empty and the steps h >= Lp leave lane 0's side unchanged)
   is F(Lp, 0, 1) with F(n, l, s) = F(n/2, l, 2s) + F(n/2, l + s, 2s),
   F(1, l, s) = lane l: written out below as expressions, so that the fold
   runs in registers, one subtree after the other.
   A lane's vertical tree over its nv rows (adjacent pairs) is the same
   for the 16-row tree with rows nv .. 15 -0, and thus for the tree of the
   smallest power of two >= nv.  Every product is ANDed with an all-ones
   mask the compiler cannot see (detail/barrier.h, REPDL__KEEP_PROD), so it
   is rounded before it enters an addition under any -ffp-contract.
   On x86-64 the body is compiled three times: AVX-512F, AVX2 and the
   baseline (SSE2), chosen at run time (the CPU's widest, at most
   REPDL_ATTN_ISA_MAX: 2, 1 or 0); the bits do not depend on the choice.
   tests/attention builds all three. */
/* The row passes of the scores: sc[j] = RN(sc[j] scale) for j < n, then
   (mk not NULL) sc[j] = RN(sc[j] + mk[j]) in a second loop (the products
   stored first, REPDL__MATERIALIZE, so that no compiler fuses the two);
   with kmax not NULL, *kmax and *nan of repdl__attn_fwd_pre's max over the
   seen keys (use NULL: every j < n).  Elementwise operations and an
   integer maximum: the same bits at any vector width, so the host's
   vector kernels compile it for the leaf's ISA (repdl__attn_rowpass), as
   the exp kernels are; the device and the plain C99 build call it as it
   is. */
REPDL_FN void repdl__attn_rowpass_body(size_t n, float *sc, float scale, const float *mk,
                                             const unsigned char *use, uint32_t *kmax, uint32_t *nan)
{
    size_t j;
    uint32_t km = 0, nn = 0;
    for (j = 0; j < n; j++) sc[j] = repdl__fmul(sc[j], scale);
    if (mk) {
        REPDL__MATERIALIZE(sc);
        for (j = 0; j < n; j++) sc[j] = repdl__fadd(sc[j], mk[j]);
    }
    if (!kmax) return;
    /* key(x): x's bits made an unsigned order (negative: all bits
       flipped; otherwise the sign bit set); 0 for an unseen key */
    if (use)
        for (j = 0; j < n; j++) {
            uint32_t ux = repdl__asuint(sc[j]), seen = 0u - (uint32_t)(use[j] != 0);
            uint32_t key = ((ux >> 31) ? ~ux : (ux | 0x80000000u)) & seen;
            nn |= (uint32_t)((ux & 0x7fffffffu) > 0x7f800000u) & seen;
            km = key > km ? key : km;
        }
    else
        for (j = 0; j < n; j++) {
            uint32_t ux = repdl__asuint(sc[j]);
            uint32_t key = (ux >> 31) ? ~ux : (ux | 0x80000000u);
            nn |= (uint32_t)((ux & 0x7fffffffu) > 0x7f800000u);
            km = key > km ? key : km;
        }
    *kmax = km;
    *nan = nn;
}
#if REPDL__GNU_HOST
#define REPDL__ATTN_VEC 1
#ifndef REPDL_ATTN_ISA_MAX
#define REPDL_ATTN_ISA_MAX 2
#endif
#define REPDL__ATTN_VW 16 /* columns of a vector */
/* The backward's dots: keys a tile (a multiple of 32; at d 64, 64 rows
   of 64 keys of KT or VT, 16 KB) */
#define REPDL__ATTN_DTILE 64
/* The backward's dq: groups of 4 rows a block (the column tiles of the
   keys' tree-order copy read by all of them in turn) */
#define REPDL__ATTN_DQB 16
typedef float repdl__attn_vf __attribute__((vector_size(64)));
typedef uint32_t repdl__attn_vu __attribute__((vector_size(64)));
typedef float repdl__attn_vfu __attribute__((vector_size(64), aligned(4), may_alias));
#define REPDL__ATTN_AI static inline __attribute__((always_inline, unused))

/* The vertical trees of 2, 4, 8, 16 adjacent rows v, v + 1, ...: E(v). */
#define REPDL__ATTN_V2(E, v) ((E(v)) + (E((v) + 1)))
#define REPDL__ATTN_V4(E, v) (REPDL__ATTN_V2(E, v) + REPDL__ATTN_V2(E, (v) + 2))
#define REPDL__ATTN_V8(E, v) (REPDL__ATTN_V4(E, v) + REPDL__ATTN_V4(E, (v) + 4))
#define REPDL__ATTN_V16(E, v) (REPDL__ATTN_V8(E, v) + REPDL__ATTN_V8(E, (v) + 8))
/* The lane fold F(n, l, s) of the comment above, n = 2 .. 64. */
#define REPDL__ATTN_F2(P, l, s) ((P(l)) + (P((l) + (s))))
#define REPDL__ATTN_F4(P, l, s) (REPDL__ATTN_F2(P, l, 2 * (s)) + REPDL__ATTN_F2(P, (l) + (s), 2 * (s)))
#define REPDL__ATTN_F8(P, l, s) (REPDL__ATTN_F4(P, l, 2 * (s)) + REPDL__ATTN_F4(P, (l) + (s), 2 * (s)))
#define REPDL__ATTN_F16(P, l, s) (REPDL__ATTN_F8(P, l, 2 * (s)) + REPDL__ATTN_F8(P, (l) + (s), 2 * (s)))
#define REPDL__ATTN_F32(P, l, s) (REPDL__ATTN_F16(P, l, 2 * (s)) + REPDL__ATTN_F16(P, (l) + (s), 2 * (s)))
#define REPDL__ATTN_F64(P, l, s) (REPDL__ATTN_F32(P, l, 2 * (s)) + REPDL__ATTN_F32(P, (l) + (s), 2 * (s)))

/* The term of row r (below len) of the leaf's 16 columns at M, as an
   expression: RN(w[r] M[r][c]) unfusable, or -0 (neg) when unseen. */
#define REPDL__ATTN_TX(r)                                                              \
    ((repdl__attn_vf)((repdl__attn_vu)(*(const repdl__attn_vfu *)(M + (r) * ldm) * w[r]) & keep))
#define REPDL__ATTN_TU(r) ((use && !use[r]) ? neg : REPDL__ATTN_TX(r))

/* The leaf of rows j .. j + len - 1 (1 .. 1024) for the columns c < nc in
   whole vectors: out[c] as repdl__attn_leaf; returns the columns done (a
   multiple of 16).  A: the lanes' values.  A leaf whose rows are all seen
   takes use = NULL. */
REPDL__ATTN_AI size_t repdl__attn_vleaf_body(size_t j, size_t len, size_t nc, const float *w,
                                             const unsigned char *use, const float *M,
                                             size_t ldm, float *out)
{
    repdl__attn_vu keep, negu;
    repdl__attn_vf neg, root, A[REPDL_SUM_LANES], B[REPDL_SUM_LANES];
    uint32_t ones = repdl__opaque_ones();
    size_t c0, l, Lp = 1, nvp = 1;
    int i;
    for (i = 0; i < REPDL__ATTN_VW; i++) {
        keep[i] = ones;
        negu[i] = 0x80000000u;
    }
    neg = (repdl__attn_vf)negu;
    if (use) {
        for (l = 0; l < len && use[j + l]; l++) {}
        if (l == len) use = NULL;
    }
    while (Lp < len && Lp < REPDL_SUM_LANES) Lp *= 2;
    while (nvp * REPDL_SUM_LANES < len) nvp *= 2; /* rows of lane 0, to a power of two */
    M += j * ldm;
    w += j;
    if (use) use += j;
    for (c0 = 0; c0 + REPDL__ATTN_VW <= nc; c0 += REPDL__ATTN_VW, M += REPDL__ATTN_VW) {
        if (len == Lp && !use) { /* one row a lane, every lane full: in registers */
#define REPDL__ATTN_P(l) REPDL__ATTN_TX(l)
            switch (Lp) {
            case 1: root = REPDL__ATTN_P(0); break;
            case 2: root = REPDL__ATTN_F2(REPDL__ATTN_P, 0, 1); break;
            case 4: root = REPDL__ATTN_F4(REPDL__ATTN_P, 0, 1); break;
            case 8: root = REPDL__ATTN_F8(REPDL__ATTN_P, 0, 1); break;
            case 16: root = REPDL__ATTN_F16(REPDL__ATTN_P, 0, 1); break;
            case 32: root = REPDL__ATTN_F32(REPDL__ATTN_P, 0, 1); break;
            default: root = REPDL__ATTN_F64(REPDL__ATTN_P, 0, 1); break;
            }
#undef REPDL__ATTN_P
            memcpy(out + c0, &root, sizeof root);
            continue;
        }
#define REPDL__ATTN_E(v)                                                               \
    ((v) < nv ? REPDL__ATTN_TU(l + (size_t)(v) * REPDL_SUM_LANES) : neg)
        if (nvp <= 4) {
            for (l = 0; l < Lp; l++) { /* lane l: rows l + 64 v, v < nv */
                size_t nv = l < len ? (len - l + REPDL_SUM_LANES - 1) / REPDL_SUM_LANES : 0;
                if (nvp == 4) A[l] = REPDL__ATTN_V4(REPDL__ATTN_E, 0);
                else if (nvp == 2) A[l] = REPDL__ATTN_V2(REPDL__ATTN_E, 0);
                else A[l] = REPDL__ATTN_E(0);
            }
        } else {
            /* 8 or 16 rows a lane: the lanes' subtrees of 4 rows, one
               group of 4 x 64 rows after the other (each lane's 4 rows
               share a cache set: the rows of a group stream in order);
               A = (g0 + g1) + (g2 + g3), or g0 + g1. */
            size_t g;
            for (g = 0; g < nvp / 4; g++)
                for (l = 0; l < REPDL_SUM_LANES; l++) {
                    size_t nv = (len - l + REPDL_SUM_LANES - 1) / REPDL_SUM_LANES;
                    repdl__attn_vf x = REPDL__ATTN_V4(REPDL__ATTN_E, 4 * g);
                    if (g == 0) A[l] = x;
                    else if (g == 1) A[l] = A[l] + x;
                    else if (g == 2) B[l] = x;
                    else A[l] = A[l] + (B[l] + x);
                }
        }
#undef REPDL__ATTN_E
#define REPDL__ATTN_P(l) A[l]
        switch (Lp) {
        case 1: root = REPDL__ATTN_P(0); break;
        case 2: root = REPDL__ATTN_F2(REPDL__ATTN_P, 0, 1); break;
        case 4: root = REPDL__ATTN_F4(REPDL__ATTN_P, 0, 1); break;
        case 8: root = REPDL__ATTN_F8(REPDL__ATTN_P, 0, 1); break;
        case 16: root = REPDL__ATTN_F16(REPDL__ATTN_P, 0, 1); break;
        case 32: root = REPDL__ATTN_F32(REPDL__ATTN_P, 0, 1); break;
        default: root = REPDL__ATTN_F64(REPDL__ATTN_P, 0, 1); break;
        }
#undef REPDL__ATTN_P
        memcpy(out + c0, &root, sizeof root);
    }
    return c0;
}

/* Up to 4 leaves at once over the same rows 0 .. len - 1 (len 1 .. 1024)
   of M, one per weight row W[q] (q < nq4): the term of row r is
   RN(W[q][r] M[r][c]) when lo[q] <= r < hi[q] (every such row seen) and
   -0 otherwise, so leaf q is repdl__attn_vleaf_body's over W[q] with its
   other rows unseen, bit for bit; each row of M is loaded once for all q.
   out[q][c] for the columns c < nc in whole vectors; returns those done.
   Two vectors of columns a pass, lane by lane: a lane's value (the tree
   of its groups of 4 rows, (x0 + x1) + (x2 + x3), x1 or x0) is built in
   registers, so each weight W[q][r] is read once for the pass's columns,
   and only the 64 lanes' values go to A for the lane fold. */
#define REPDL__ATTN_Q 4
/* Slot Wq's term of row r in vector c of m: RN(m[c] Wq[r]) unfusable. */
#define REPDL__ATTN_QT0(VF, VU, Wq) ((VF)((VU)(m[c] * (Wq)[r]) & keep))
/* The same in the AVX2 and AVX-512F kernels: the product through an
   empty asm statement, opaque to the compiler as the AND is, without the
   AND's instruction (a third of the kernel's vector operations); and
   each row's vectors loaded through one, so that they stay in registers */
/* v (an x86 vector in one register) through an empty asm statement: its
   value unknown to the compiler afterwards, no instruction emitted */
#define REPDL__ATTN_VKEEP(v) __asm__("" : "+v"(v))
/* e, of type T, computed, then made opaque: never contracted into the
   operation that consumes it (both leaf kernels, x86 only) */
#define REPDL__ATTN_OPAQUE(T, e)                                                                       \
    __extension__({                                                                                    \
        T p_ = (e);                                                                                    \
        REPDL__ATTN_VKEEP(p_);                                                                         \
        p_;                                                                                            \
    })
#define REPDL__ATTN_QT1(VF, VU, Wq) REPDL__ATTN_OPAQUE(VF, m[c] * (Wq)[r])
#define REPDL__ATTN_ML0(v) ((void)0)
#define REPDL__ATTN_ML1(v) REPDL__ATTN_VKEEP(v)
#define REPDL__ATTN_PA(l) A[q][l][c]
/* The slots' and the pass's vectors' loops unrolled at every -O level, so
   that the vectors of the lane's trees stay in registers (gcc 12 leaves
   them rolled at -O2: docs/attention.md, "The causal backward through the
   counter leaf"; clang spells the pragma without GCC).  Unrolling moves
   no operation. */
#if defined(__clang__)
#define REPDL__ATTN_UNROLL2 _Pragma("unroll 2")
#define REPDL__ATTN_UNROLL4 _Pragma("unroll 4")
#define REPDL__ATTN_UNROLL8 _Pragma("unroll 8")
#else
#define REPDL__ATTN_UNROLL2 _Pragma("GCC unroll 2")
#define REPDL__ATTN_UNROLL4 _Pragma("GCC unroll 4")
#define REPDL__ATTN_UNROLL8 _Pragma("GCC unroll 8")
#endif
/* REPDL__ATTN_VLEAFQ(S, VF, VU, VFU, VW, K, T) defines repdl__attn_vleafq_lanes##S
   and repdl__attn_vleafq_body##S over vectors VF of VW floats (VU: as
   uint32_t, VFU: unaligned).  The columns are independent lanes, so VW
   cannot change a bit: 16 (64 bytes) for AVX-512F and the baseline, 8
   (32 bytes) for AVX2, whose registers do not hold a 64-byte vector (gcc
   moves those through the stack in 16-byte pieces); a pass is two vectors
   of columns, so 32 or 16.  K: how a product is kept unfused, 0 by the
   AND (the baseline, any GNU target), 1 by REPDL__ATTN_QT1's asm (the AVX2
   and AVX-512F kernels: the asm needs the vector in one register, so T
   names their target, which clang checks where the body is defined). */
#define REPDL__ATTN_VLEAFQ(S, VF, VU, VFU, VW, K, T)                                                  \
REPDL__ATTN_AI T void repdl__attn_vleafq_lanes##S(int cw, size_t Lp, size_t len, size_t ng, size_t vg, \
                                             size_t g0, const float *const *Ws, const size_t *sl,     \
                                             const size_t *sh, size_t minlo, size_t maxlo,            \
                                             size_t minhi, size_t maxhi,                              \
                                             const float *M, size_t ldm, uint32_t ones,               \
                                             VF (*A)[REPDL_SUM_LANES][2])                             \
{                                                                                                     \
    VU keep, negu;                                                                                    \
    VF neg;                                                                                           \
    const float *W0 = Ws[0], *W1 = Ws[1], *W2 = Ws[2], *W3 = Ws[3];                                   \
    size_t l, g, vv;                                                                                  \
    int q, c;                                                                                         \
    for (c = 0; c < VW; c++) {                                                                        \
        keep[c] = ones;                                                                               \
        negu[c] = 0x80000000u;                                                                        \
    }                                                                                                 \
    neg = (VF)negu;                                                                                   \
    (void)keep; /* unused where K is 1 */                                                             \
    for (l = 0; l < Lp; l++) {                                                                        \
        VF acc[REPDL__ATTN_Q][2], t01[REPDL__ATTN_Q][2];                                              \
        REPDL__ATTN_UNROLL4 for (q = 0; q < REPDL__ATTN_Q; q++) /* every value is set before it is read */ \
            REPDL__ATTN_UNROLL2 for (c = 0; c < 2; c++) acc[q][c] = t01[q][c] = neg;                  \
        for (g = 0; g < ng; g++) {                                                                    \
            VF x[REPDL__ATTN_Q][2], s0[REPDL__ATTN_Q][2], s1[REPDL__ATTN_Q][2];                       \
            REPDL__ATTN_UNROLL4 for (q = 0; q < REPDL__ATTN_Q; q++)                                   \
                REPDL__ATTN_UNROLL2 for (c = 0; c < 2; c++) s0[q][c] = s1[q][c] = neg;                \
            if (g < g0) { /* no slot sees a row of the group: its subtree is -0 */                    \
                REPDL__ATTN_UNROLL4 for (q = 0; q < REPDL__ATTN_Q; q++)                               \
                    REPDL__ATTN_UNROLL2 for (c = 0; c < cw; c++) x[q][c] = neg;                       \
            } else {                                                                                  \
                for (vv = 0; vv < vg; vv++) {                                                         \
                    size_t r = l + (4 * g + vv) * REPDL_SUM_LANES;                                    \
                    VF e[REPDL__ATTN_Q][2];                                                           \
                    if (r < minlo || r >= maxhi) { /* no slot sees row r: every term -0 */            \
                        REPDL__ATTN_UNROLL4 for (q = 0; q < REPDL__ATTN_Q; q++)                       \
                            REPDL__ATTN_UNROLL2 for (c = 0; c < cw; c++) e[q][c] = neg;               \
                    } else if (r < len) {                                                             \
                        VF m[2];                                                                      \
                        REPDL__ATTN_UNROLL2 for (c = 0; c < cw; c++) {                                \
                            m[c] = *(const VFU *)(M + r * ldm + c * VW);                              \
                            REPDL__ATTN_ML##K(m[c]);                                                  \
                        }                                                                             \
                        if (r >= maxlo && r < minhi) { /* every slot sees row r */                    \
                            REPDL__ATTN_UNROLL2 for (c = 0; c < cw; c++) {                            \
                                e[0][c] = REPDL__ATTN_QT##K(VF, VU, W0);                              \
                                e[1][c] = REPDL__ATTN_QT##K(VF, VU, W1);                              \
                                e[2][c] = REPDL__ATTN_QT##K(VF, VU, W2);                              \
                                e[3][c] = REPDL__ATTN_QT##K(VF, VU, W3);                              \
                            }                                                                         \
                        } else {                                                                      \
                            REPDL__ATTN_UNROLL2 for (c = 0; c < cw; c++) {                            \
                                e[0][c] = r >= sl[0] && r < sh[0] ? REPDL__ATTN_QT##K(VF, VU, W0) : neg; \
                                e[1][c] = r >= sl[1] && r < sh[1] ? REPDL__ATTN_QT##K(VF, VU, W1) : neg; \
                                e[2][c] = r >= sl[2] && r < sh[2] ? REPDL__ATTN_QT##K(VF, VU, W2) : neg; \
                                e[3][c] = r >= sl[3] && r < sh[3] ? REPDL__ATTN_QT##K(VF, VU, W3) : neg; \
                            }                                                                         \
                        }                                                                             \
                    } else {                                                                          \
                        REPDL__ATTN_UNROLL4 for (q = 0; q < REPDL__ATTN_Q; q++)                       \
                            REPDL__ATTN_UNROLL2 for (c = 0; c < cw; c++) e[q][c] = neg;               \
                    }                                                                                 \
                    /* the group's tree: e0, e0 + e1, or (e0 + e1) + (e2 + e3) */                     \
                    REPDL__ATTN_UNROLL4 for (q = 0; q < REPDL__ATTN_Q; q++)                           \
                        REPDL__ATTN_UNROLL2 for (c = 0; c < cw; c++) {                                \
                            if (vv == 0) s0[q][c] = e[q][c];                                          \
                            else if (vv == 1) s0[q][c] = s0[q][c] + e[q][c];                          \
                            else if (vv == 2) s1[q][c] = e[q][c];                                     \
                            else s1[q][c] = s1[q][c] + e[q][c];                                       \
                        }                                                                             \
                }                                                                                     \
                REPDL__ATTN_UNROLL4 for (q = 0; q < REPDL__ATTN_Q; q++)                               \
                    REPDL__ATTN_UNROLL2 for (c = 0; c < cw; c++) x[q][c] = vg == 4 ? s0[q][c] + s1[q][c] : s0[q][c]; \
            }                                                                                         \
            /* the lane's tree over its groups: x0; x0 + x1; (x0 + x1) + (x2 + x3) */                 \
            REPDL__ATTN_UNROLL4 for (q = 0; q < REPDL__ATTN_Q; q++)                                   \
                REPDL__ATTN_UNROLL2 for (c = 0; c < cw; c++) {                                        \
                    if (g == 0) t01[q][c] = x[q][c];                                                  \
                    else if (g == 1) t01[q][c] = t01[q][c] + x[q][c];                                 \
                    else if (g == 2) acc[q][c] = x[q][c];                                             \
                    else acc[q][c] = t01[q][c] + (acc[q][c] + x[q][c]);                               \
                }                                                                                     \
        }                                                                                             \
        REPDL__ATTN_UNROLL4 for (q = 0; q < REPDL__ATTN_Q; q++)                                       \
            REPDL__ATTN_UNROLL2 for (c = 0; c < cw; c++) A[q][l][c] = ng == 4 ? acc[q][c] : t01[q][c]; \
    }                                                                                                 \
}                                                                                                     \
                                                                                                      \
REPDL__ATTN_AI T size_t repdl__attn_vleafq_body##S(size_t len, size_t nc, size_t nq4,                 \
                                              const float *const *W, const size_t *lo,                \
                                              const size_t *hi, const float *M, size_t ldm,           \
                                              float *const *out, int spec)                            \
{                                                                                                     \
    VF root, A[REPDL__ATTN_Q][REPDL_SUM_LANES][2];                                                    \
    uint32_t ones = repdl__opaque_ones();                                                             \
    size_t c0, q, Lp = 1, nvp = 1, ng, vg, g0, sl[REPDL__ATTN_Q], sh[REPDL__ATTN_Q],                  \
        maxlo = 0, minlo = (size_t)-1, minhi = (size_t)-1, maxhi = 0;                                 \
    const float *Ws[REPDL__ATTN_Q];                                                                   \
    int c, cw = 1;                                                                                    \
    while (Lp < len && Lp < REPDL_SUM_LANES) Lp *= 2;                                                 \
    while (nvp * REPDL_SUM_LANES < len) nvp *= 2;                                                     \
    /* slots past nq4 repeat slot 0 (computed, never stored) */                                       \
    REPDL__ATTN_UNROLL4 for (q = 0; q < REPDL__ATTN_Q; q++) {                                         \
        size_t z = q < nq4 ? q : 0;                                                                   \
        Ws[q] = W[z];                                                                                 \
        sl[q] = lo[z];                                                                                \
        sh[q] = hi[z];                                                                                \
        if (sl[q] > maxlo) maxlo = sl[q];                                                             \
        if (sl[q] < minlo) minlo = sl[q];                                                             \
        if (sh[q] < minhi) minhi = sh[q];                                                             \
        if (sh[q] > maxhi) maxhi = sh[q];                                                             \
    }                                                                                                 \
    ng = nvp <= 4 ? 1 : nvp / 4; /* groups of vg rows a lane */                                       \
    vg = nvp <= 4 ? nvp : 4;                                                                          \
    /* Groups g < g0 (rows below 4 g0 64) hold no seen row of any slot:                               \
       every term of theirs is -0, so their subtrees are -0 */                                        \
    g0 = ng > 1 ? minlo / (4 * REPDL_SUM_LANES) : 0;                                                  \
    if (g0 >= ng) g0 = ng - 1;                                                                        \
    for (c0 = 0; c0 + VW <= nc; c0 += (size_t)cw * VW) {                                              \
        cw = c0 + 2 * VW <= nc ? 2 : 1;                                                               \
        /* spec (the AVX2 and AVX-512F kernels): one group a lane (len <=                             \
           256) with vg a constant, so that the lane's values stay in                                 \
           registers (the generic loop keeps them in memory) */                                       \
        if (spec && cw == 2 && ng == 1 && vg == 1)                                                    \
            repdl__attn_vleafq_lanes##S(2, Lp, len, 1, 1, 0, Ws, sl, sh, minlo, maxlo,                \
                                        minhi, maxhi, M + c0, ldm, ones, A);                          \
        else if (spec && cw == 2 && ng == 1 && vg == 2)                                               \
            repdl__attn_vleafq_lanes##S(2, Lp, len, 1, 2, 0, Ws, sl, sh, minlo, maxlo,                \
                                        minhi, maxhi, M + c0, ldm, ones, A);                          \
        else if (spec && cw == 2 && ng == 1)                                                          \
            repdl__attn_vleafq_lanes##S(2, Lp, len, 1, 4, 0, Ws, sl, sh, minlo, maxlo,                \
                                        minhi, maxhi, M + c0, ldm, ones, A);                          \
        else if (cw == 2)                                                                             \
            repdl__attn_vleafq_lanes##S(2, Lp, len, ng, vg, g0, Ws, sl, sh, minlo, maxlo, minhi,      \
                                     maxhi, M + c0, ldm, ones, A);                                    \
        else                                                                                          \
            repdl__attn_vleafq_lanes##S(1, Lp, len, ng, vg, g0, Ws, sl, sh, minlo, maxlo, minhi,      \
                                     maxhi, M + c0, ldm, ones, A);                                    \
        for (q = 0; q < nq4; q++)                                                                     \
            REPDL__ATTN_UNROLL2 for (c = 0; c < cw; c++) {                                            \
                switch (Lp) {                                                                         \
                case 1: root = REPDL__ATTN_PA(0); break;                                              \
                case 2: root = REPDL__ATTN_F2(REPDL__ATTN_PA, 0, 1); break;                           \
                case 4: root = REPDL__ATTN_F4(REPDL__ATTN_PA, 0, 1); break;                           \
                case 8: root = REPDL__ATTN_F8(REPDL__ATTN_PA, 0, 1); break;                           \
                case 16: root = REPDL__ATTN_F16(REPDL__ATTN_PA, 0, 1); break;                         \
                case 32: root = REPDL__ATTN_F32(REPDL__ATTN_PA, 0, 1); break;                         \
                default: root = REPDL__ATTN_F64(REPDL__ATTN_PA, 0, 1); break;                         \
                }                                                                                     \
                memcpy(out[q] + c0 + (size_t)c * VW, &root, sizeof root);                             \
            }                                                                                         \
    }                                                                                                 \
    return c0;                                                                                        \
}
REPDL__ATTN_VLEAFQ(16, repdl__attn_vf, repdl__attn_vu, repdl__attn_vfu, 16, 0, )
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
REPDL__ATTN_VLEAFQ(16v, repdl__attn_vf, repdl__attn_vu, repdl__attn_vfu, 16, 1, __attribute__((target("avx512f"))))
typedef float repdl__attn_vf8 __attribute__((vector_size(32)));
typedef uint32_t repdl__attn_vu8 __attribute__((vector_size(32)));
typedef float repdl__attn_vfu8 __attribute__((vector_size(32), aligned(4), may_alias));
REPDL__ATTN_VLEAFQ(8, repdl__attn_vf8, repdl__attn_vu8, repdl__attn_vfu8, 8, 1, __attribute__((target("avx2"))))
#endif
#undef REPDL__ATTN_VLEAFQ
#undef REPDL__ATTN_PA
#undef REPDL__ATTN_QT0
#undef REPDL__ATTN_QT1
#undef REPDL__ATTN_ML0
#undef REPDL__ATTN_ML1

/* The dots of up to 4 rows x[q] (q < nx) with the columns j < n of XT
   (d x ldt, the transposed keys or values; the columns up to the next
   multiple of 16 are read, ldt >= that), for d = 8 nb, nb = 2, 4 or 8:
   sc[q][j] = dot(x[q], column j), each column's tree that of
   repdl__attn_vleaf_body over the d rows (one row a lane, the lane fold
   F(d, 0, 1)) and its products the same, so the same bits; each row of XT
   is loaded once for the 4.  F(d, 0, 1) = F(nb, 0, 1) over the nodes
   F(8, b, nb), b < nb (the recursion of F, log2 nb levels down), and
   F(8, b, s) = ((P(b) + P(b + 4s)) + (P(b + 2s) + P(b + 6s)))
              + ((P(b + s) + P(b + 5s)) + (P(b + 3s) + P(b + 7s))). */
#define REPDL__ATTN_LD(VFU, p) (*(const VFU *)(p))
#define REPDL__ATTN_PR(VF, VU, kv, xs) ((VF)((VU)((kv) * (xs)) & keep))
#define REPDL__ATTN_F8Q(S, bb, o)                                                         \
    do {                                                                               \
        for (q = 0; q < REPDL__ATTN_Q; q++) xb[q] = xs[q] + (bb);                      \
        repdl__attn_f8x4_##S(XT + (bb) * ldt + j0, nb * ldt, xb, nb, &keep, o);                 \
    } while (0)
/* REPDL__ATTN_VDOTS4(S, VF, VU, VFU, VW) defines repdl__attn_f8x4_##S and
   repdl__attn_vdots4_body##S over vectors VF of VW floats, as
   REPDL__ATTN_VLEAFQ: 16 for AVX-512F and the baseline, 8 for AVX2; the
   columns are independent lanes, so VW cannot change a bit. */
#define REPDL__ATTN_VDOTS4(S, VF, VU, VFU, VW)                                                       \
REPDL__ATTN_AI void repdl__attn_f8x4_##S(const float *K, size_t ks, const float *const *x, size_t s, \
                                     const VU *pkeep, VF *out)                                       \
{                                                                                                    \
    VU keep = *pkeep;                                                                                \
    VF k0 = REPDL__ATTN_LD(VFU, K), k1 = REPDL__ATTN_LD(VFU, K + ks),                                \
                   k2 = REPDL__ATTN_LD(VFU, K + 2 * ks), k3 = REPDL__ATTN_LD(VFU, K + 3 * ks),       \
                   k4 = REPDL__ATTN_LD(VFU, K + 4 * ks), k5 = REPDL__ATTN_LD(VFU, K + 5 * ks),       \
                   k6 = REPDL__ATTN_LD(VFU, K + 6 * ks), k7 = REPDL__ATTN_LD(VFU, K + 7 * ks);       \
    int q;                                                                                           \
    for (q = 0; q < REPDL__ATTN_Q; q++) {                                                            \
        const float *xq = x[q];                                                                      \
        out[q] = ((REPDL__ATTN_PR(VF, VU, k0, xq[0]) + REPDL__ATTN_PR(VF, VU, k4, xq[4 * s])) +      \
                  (REPDL__ATTN_PR(VF, VU, k2, xq[2 * s]) + REPDL__ATTN_PR(VF, VU, k6, xq[6 * s]))) + \
                 ((REPDL__ATTN_PR(VF, VU, k1, xq[s]) + REPDL__ATTN_PR(VF, VU, k5, xq[5 * s])) +      \
                  (REPDL__ATTN_PR(VF, VU, k3, xq[3 * s]) + REPDL__ATTN_PR(VF, VU, k7, xq[7 * s])));  \
    }                                                                                                \
}                                                                                                    \
                                                                                                     \
REPDL__ATTN_AI void repdl__attn_vdots4_body##S(size_t d, size_t nx, const float *const *x,           \
                                            const float *XT, size_t ldt, size_t n,                   \
                                            float *const *sc)                                        \
{                                                                                                    \
    VU keep;                                                                                         \
    VF acc[REPDL__ATTN_Q], tmp[REPDL__ATTN_Q], s0[REPDL__ATTN_Q], s1[REPDL__ATTN_Q];                 \
    const float *xs[REPDL__ATTN_Q], *xb[REPDL__ATTN_Q];                                              \
    uint32_t ones = repdl__opaque_ones();                                                            \
    size_t nb = d / 8, j0, q;                                                                        \
    int i;                                                                                           \
    for (i = 0; i < VW; i++) keep[i] = ones;                                                         \
    /* extra slots: computed, not stored */                                                          \
    for (q = 0; q < REPDL__ATTN_Q; q++) xs[q] = x[q < nx ? q : 0];                                   \
    for (j0 = 0; j0 < n; j0 += VW) {                                                                 \
        if (nb == 8) { /* ((Q0 + Q4) + (Q2 + Q6)) + ((Q1 + Q5) + (Q3 + Q7)) */                       \
            REPDL__ATTN_F8Q(S, 0, s0);                                                               \
            REPDL__ATTN_F8Q(S, 4, s1);                                                               \
            for (q = 0; q < REPDL__ATTN_Q; q++) acc[q] = s0[q] + s1[q];                              \
            REPDL__ATTN_F8Q(S, 2, s0);                                                               \
            REPDL__ATTN_F8Q(S, 6, s1);                                                               \
            for (q = 0; q < REPDL__ATTN_Q; q++) acc[q] = acc[q] + (s0[q] + s1[q]);                   \
            REPDL__ATTN_F8Q(S, 1, s0);                                                               \
            REPDL__ATTN_F8Q(S, 5, s1);                                                               \
            for (q = 0; q < REPDL__ATTN_Q; q++) tmp[q] = s0[q] + s1[q];                              \
            REPDL__ATTN_F8Q(S, 3, s0);                                                               \
            REPDL__ATTN_F8Q(S, 7, s1);                                                               \
            for (q = 0; q < REPDL__ATTN_Q; q++) acc[q] = acc[q] + (tmp[q] + (s0[q] + s1[q]));        \
        } else if (nb == 4) { /* (Q0 + Q2) + (Q1 + Q3) */                                            \
            REPDL__ATTN_F8Q(S, 0, s0);                                                               \
            REPDL__ATTN_F8Q(S, 2, s1);                                                               \
            for (q = 0; q < REPDL__ATTN_Q; q++) acc[q] = s0[q] + s1[q];                              \
            REPDL__ATTN_F8Q(S, 1, s0);                                                               \
            REPDL__ATTN_F8Q(S, 3, s1);                                                               \
            for (q = 0; q < REPDL__ATTN_Q; q++) acc[q] = acc[q] + (s0[q] + s1[q]);                   \
        } else { /* Q0 + Q1 */                                                                       \
            REPDL__ATTN_F8Q(S, 0, s0);                                                               \
            REPDL__ATTN_F8Q(S, 1, s1);                                                               \
            for (q = 0; q < REPDL__ATTN_Q; q++) acc[q] = s0[q] + s1[q];                              \
        }                                                                                            \
        for (q = 0; q < nx; q++) {                                                                   \
            if (n - j0 >= VW) memcpy(sc[q] + j0, &acc[q], sizeof acc[q]);                            \
            else memcpy(sc[q] + j0, &acc[q], (n - j0) * sizeof(float));                              \
        }                                                                                            \
    }                                                                                                \
}
REPDL__ATTN_VDOTS4(16, repdl__attn_vf, repdl__attn_vu, repdl__attn_vfu, 16)
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
REPDL__ATTN_VDOTS4(8, repdl__attn_vf8, repdl__attn_vu8, repdl__attn_vfu8, 8)
#endif
#undef REPDL__ATTN_VDOTS4
#undef REPDL__ATTN_PR
#undef REPDL__ATTN_LD

#define REPDL__ATTN_DARGS                                                              \
    size_t d, size_t nx, const float *const *x, const float *XT, size_t ldt, size_t n, \
        float *const *sc

#define REPDL__ATTN_QARGS                                                              \
    size_t len, size_t nc, size_t nq4, const float *const *W, const size_t *lo,        \
        const size_t *hi, const float *M, size_t ldm, float *const *out

#define REPDL__ATTN_VARGS                                                              \
    size_t j, size_t len, size_t nc, const float *w, const unsigned char *use,         \
        const float *M, size_t ldm, float *out
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
__attribute__((target("avx512f"), noinline, unused)) static void
repdl__attn_vdots4_avx512(REPDL__ATTN_DARGS)
{
    repdl__attn_vdots4_body16(d, nx, x, XT, ldt, n, sc);
}
__attribute__((target("avx2"), noinline, unused)) static void repdl__attn_vdots4_avx2(REPDL__ATTN_DARGS)
{
    repdl__attn_vdots4_body8(d, nx, x, XT, ldt, n, sc);
}
__attribute__((target("avx512f"), noinline, unused)) static size_t
repdl__attn_vleaf_avx512(REPDL__ATTN_VARGS)
{
    return repdl__attn_vleaf_body(j, len, nc, w, use, M, ldm, out);
}
__attribute__((target("avx2"), noinline, unused)) static size_t
repdl__attn_vleaf_avx2(REPDL__ATTN_VARGS)
{
    return repdl__attn_vleaf_body(j, len, nc, w, use, M, ldm, out);
}
__attribute__((target("avx512f"), noinline, unused)) static size_t
repdl__attn_vleafq_avx512(REPDL__ATTN_QARGS)
{
    return repdl__attn_vleafq_body16v(len, nc, nq4, W, lo, hi, M, ldm, out, 1);
}
__attribute__((target("avx2"), noinline, unused)) static size_t
repdl__attn_vleafq_avx2(REPDL__ATTN_QARGS)
{
    return repdl__attn_vleafq_body8(len, nc, nq4, W, lo, hi, M, ldm, out, 1);
}
#endif
__attribute__((noinline, unused)) static size_t repdl__attn_vleafq_base(REPDL__ATTN_QARGS)
{
    return repdl__attn_vleafq_body16(len, nc, nq4, W, lo, hi, M, ldm, out, 0);
}
__attribute__((noinline, unused)) static void repdl__attn_vdots4_base(REPDL__ATTN_DARGS)
{
    repdl__attn_vdots4_body16(d, nx, x, XT, ldt, n, sc);
}
__attribute__((noinline, unused)) static size_t repdl__attn_vleaf_base(REPDL__ATTN_VARGS)
{
    return repdl__attn_vleaf_body(j, len, nc, w, use, M, ldm, out);
}

/* The widest kernel the CPU runs (2: AVX-512F, 1: AVX2, 0: baseline), at
   most REPDL_ATTN_ISA_MAX; probed once (racing threads store the same
   value, atomically). */
REPDL_FN int repdl__attn_visa(void)
{
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
    static int isa = -1;
    int v = __atomic_load_n(&isa, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
        if (v > REPDL_ATTN_ISA_MAX) v = REPDL_ATTN_ISA_MAX;
        __atomic_store_n(&isa, v, __ATOMIC_RELAXED);
    }
    return v;
#else
    return 0;
#endif
}

#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
/* repdl__attn_vleafq when every slot sees every row and len is a power of
   two, 4 .. 1024 (a sequence of fixed length without a causal mask), on
   AVX-512F (used up to 512).  The leaf's tree (each lane's vertical tree over its rows,
   then the lane fold F(64, 0, 1), which pairs lane l with l + 32 first) is
   one perfect pairwise tree over the rows in the order p -> bitrev(p /
   nvp) + 64 (p % nvp): the lanes in bit-reversed order, each lane's rows
   in order.  It is computed four rows at a time in registers, the levels
   above through a binary counter (st[k]: the pending left subtree of 4 2^k
   rows; group s closes the levels of its trailing one bits), 32 columns
   of the 4 slots a pass, instead of storing the 64 lanes' values and
   folding them afterwards.  The same products, added in the same tree:
   the bits of repdl__attn_vleafq_body (tests/attention compares the two).
   A group of 4 rows is one asm block (REPDL__ATTN_GROUP, below): its
   products are multiply instructions, never contracted into the additions
   that follow (gcc or clang, -ffp-contract=fast or not), and each row is
   loaded once for the 4 slots.  (The plan of the groups, below, is C for
   every GNU host: the callers of repdl__attn_tree_sum keep one.) */
#endif
static const unsigned char repdl__attn_br6[64] = {
    0, 32, 16, 48, 8, 40, 24, 56, 4, 36, 20, 52, 12, 44, 28, 60, 2, 34, 18, 50, 10, 42,
    26, 58, 6, 38, 22, 54, 14, 46, 30, 62, 1, 33, 17, 49, 9, 41, 25, 57, 5, 37, 21, 53,
    13, 45, 29, 61, 3, 35, 19, 51, 11, 43, 27, 59, 7, 39, 23, 55, 15, 47, 31, 63};
/* The groups of the leaf of len rows (a power of two, 4 .. 1024): group s
   (s < nsub) is the rows R[s] + (0, off[0], off[1], off[2]), tree
   positions 4 s .. 4 s + 3. */
typedef struct {
    size_t len, nsub, off[3]; /* len 0: no plan yet */
    uint16_t R[256];
} repdl__attn_pow2;
REPDL_FN void repdl__attn_pow2_plan(size_t len, repdl__attn_pow2 *g)
{
    size_t Lp = 1, nvp = 1, s;
    unsigned lb = 0, qs = 0;
    g->len = len;
    while (Lp < len && Lp < 64) {
        Lp *= 2;
        lb++;
    }
    while (nvp * 64 < len) nvp *= 2;
    g->nsub = Lp * nvp / 4;
    if (nvp >= 4) {
        g->off[0] = 64, g->off[1] = 128, g->off[2] = 192;
        while (((size_t)4 << qs) < nvp) qs++;
    } else if (nvp == 2) {
        g->off[0] = 64, g->off[1] = Lp / 2, g->off[2] = Lp / 2 + 64;
    } else {
        g->off[0] = Lp / 2, g->off[1] = Lp / 4, g->off[2] = 3 * Lp / 4;
    }
    for (s = 0; s < g->nsub; s++)
        g->R[s] = (uint16_t)(nvp >= 4 ? (size_t)(repdl__attn_br6[s >> qs] >> (6 - lb)) + 256 * (s & (nvp / 4 - 1))
                                      : (size_t)(repdl__attn_br6[nvp == 2 ? 2 * s : 4 * s] >> (6 - lb)));
}
/* dst row 4 s + i = M row R[s] + (0, off...)[i], nc floats each (stride
   nc): the leaf's rows in tree order, so that the kernel below reads them
   in sequence (bit-reversed rows 64 apart defeat the hardware prefetch
   once M leaves L1; docs/attention.md, "Speed"). */
REPDL_FN void repdl__attn_pow2_rows(const repdl__attn_pow2 *g, size_t nc, const float *M, size_t ldm,
                                    float *dst)
{
    size_t s, i;
    for (s = 0; s < g->nsub; s++)
        for (i = 0; i < 4; i++)
            memcpy(dst + (4 * s + i) * nc, M + (g->R[s] + (i ? g->off[i - 1] : 0)) * ldm, nc * sizeof(float));
}
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
/* One group of the counter leaf, in one asm block: the 8 vectors of
   M's 4 rows, at R0 and o1, o2, o3 bytes after it (two vectors each, from
   the pass's first column), into zmm16 .. zmm23, then for each slot q its weights W_q[a0 .. a3]
   broadcast (zmm24 .. zmm27), the products RN(M[row i] W_q[a_i]) and
   ((p0 + p1) + (p2 + p3)) for each of the two vectors into X[2 q],
   X[2 q + 1].  The products are separate instructions, so nothing can
   contract them, whatever the flags.  Written out by hand because the
   compilers scheduled the same operations in C badly: gcc hoisted the 16
   broadcasts ahead of the products and spilled, and neither kept a pair
   of groups' 16 vectors in registers (docs/attention.md, "The counter
   leaf in one asm block").  Each instruction in both assembler dialects
   ({AT&T|Intel}: -masm=intel).  M and W are read through the pointers
   only: hence the "memory" clobber. */
#define REPDL__ATTN_I(att, intel) "{" att "|" intel "}\n\t"
/* zmm z = the vector at byte o of row i: r0 + (0, o1, o2, o3)[i] */
#define REPDL__ATTN_LD0(o, z) REPDL__ATTN_I("vmovups " o "(%[r0]), %%zmm" z, "vmovups zmm" z ", [%[r0]+" o "]")
#define REPDL__ATTN_LD(i, o, z)                                                                        \
    REPDL__ATTN_I("vmovups " o "(%[r0],%[o" i "]), %%zmm" z, "vmovups zmm" z ", [%[r0]+%[o" i "]+" o "]")
#define REPDL__ATTN_BC(w, a, z)                                                                        \
    REPDL__ATTN_I("vbroadcastss (%[" w "],%[" a "],4), %%zmm" z, "vbroadcastss zmm" z ", dword ptr [%[" w "]+%[" a "]*4]")
/* zmm d = zmm a * zmm b; zmm d = zmm a + zmm b */
#define REPDL__ATTN_MUL(a, b, d) REPDL__ATTN_I("vmulps %%zmm" b ", %%zmm" a ", %%zmm" d, "vmulps zmm" d ", zmm" a ", zmm" b)
#define REPDL__ATTN_ADD(a, b, d) REPDL__ATTN_I("vaddps %%zmm" b ", %%zmm" a ", %%zmm" d, "vaddps zmm" d ", zmm" a ", zmm" b)
/* the last addition of a slot's vector: x = zmm a + zmm b (A 0), or
   x + (zmm a + zmm b) (A 1: x holds the even group's sums) */
#define REPDL__ATTN_FIN0(a, b, x) REPDL__ATTN_I("vaddps %%zmm" b ", %%zmm" a ", %[" x "]", "vaddps %[" x "], zmm" a ", zmm" b)
#define REPDL__ATTN_FIN1(a, b, x)                                                                      \
    REPDL__ATTN_ADD(a, b, a) REPDL__ATTN_I("vaddps %%zmm" a ", %[" x "], %[" x "]", "vaddps %[" x "], %[" x "], zmm" a)
#define REPDL__ATTN_SLOT(A, w, xa, xb)                                                                 \
    REPDL__ATTN_BC(w, "a0", "24") REPDL__ATTN_BC(w, "a1", "25") REPDL__ATTN_BC(w, "a2", "26")            \
    REPDL__ATTN_BC(w, "a3", "27")                                                                      \
    REPDL__ATTN_MUL("16", "24", "28") REPDL__ATTN_MUL("18", "25", "29") REPDL__ATTN_MUL("20", "26", "30") \
    REPDL__ATTN_MUL("22", "27", "31") REPDL__ATTN_ADD("28", "29", "28") REPDL__ATTN_ADD("30", "31", "30") \
    REPDL__ATTN_FIN##A("28", "30", xa)                                                                 \
    REPDL__ATTN_MUL("17", "24", "28") REPDL__ATTN_MUL("19", "25", "29") REPDL__ATTN_MUL("21", "26", "30") \
    REPDL__ATTN_MUL("23", "27", "31") REPDL__ATTN_ADD("28", "29", "28") REPDL__ATTN_ADD("30", "31", "30") \
    REPDL__ATTN_FIN##A("28", "30", xb)
/* X[0 .. 7] = the group's sums (A 0: "=v"), or X[i] + its sums (A 1: "+v") */
#define REPDL__ATTN_GROUP(A, C, X, R0)                                                                 \
    __asm__(REPDL__ATTN_LD0("0", "16") REPDL__ATTN_LD0("64", "17") REPDL__ATTN_LD("1", "0", "18")       \
            REPDL__ATTN_LD("1", "64", "19") REPDL__ATTN_LD("2", "0", "20") REPDL__ATTN_LD("2", "64", "21") \
            REPDL__ATTN_LD("3", "0", "22") REPDL__ATTN_LD("3", "64", "23")                            \
            REPDL__ATTN_SLOT(A, "w0", "x0", "x1") REPDL__ATTN_SLOT(A, "w1", "x2", "x3")                \
            REPDL__ATTN_SLOT(A, "w2", "x4", "x5") REPDL__ATTN_SLOT(A, "w3", "x6", "x7")                \
            : [x0] C(X[0]), [x1] C(X[1]), [x2] C(X[2]), [x3] C(X[3]), [x4] C(X[4]), [x5] C(X[5]),     \
              [x6] C(X[6]), [x7] C(X[7])                                                             \
            : [r0] "r"(R0), [o1] "r"(o1), [o2] "r"(o2), [o3] "r"(o3), [w0] "r"(W0), [w1] "r"(W1),     \
              [w2] "r"(W2), [w3] "r"(W3), [a0] "r"(a0), [a1] "r"(a1), [a2] "r"(a2), [a3] "r"(a3)       \
            : "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", \
              "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "memory")
/* The counter leaf's passes of 32 columns (both kernels below): group s
   reads the rows at ROW0 (an expression of Mc, the pass's first column of
   M, s and a0) and o1, o2, o3 bytes after it (the same for every group:
   the row offsets times ldm).  Groups go in pairs: the even group's sums
   stay in registers, and the odd group's asm block adds its sums to them
   (level 0 of the counter); the levels above go through st in memory
   (pair p closes the levels of its trailing one bits, from 1).  These are
   the additions of the counter taken a group at a time (group 2 p + 1's
   step at level 0 is st[0] + x, st[0] group 2 p's sums), so the same
   bits; the store of a group's sums and their load by the next group had
   stalled the loop (docs/attention.md, "The counter leaf in one asm
   block").  A macro, not a shared function: one loop for both layouts (a
   pointer chosen at run time) made gcc spill its pointers
   (docs/attention.md, "Speed"). */
/* (REPDL__ATTN_UNROLL8: the 8 accumulators' loops unrolled at every -O
   level, so that the accumulators stay in registers, as above) */
#define REPDL__ATTN_POW2_PASSES(MBASE, ROW0)                                                           \
    for (c0 = 0; c0 + 32 <= nc; c0 += 32) {                                                            \
        __m512 st[9][8], x[8];                                                                         \
        const float *Mc = (MBASE) + c0;                                                                \
        size_t j, p;                                                                                   \
        int lev, i;                                                                                    \
        for (p = 0; 2 * p < nsub; p++) {                                                               \
            s = 2 * p;                                                                                 \
            {                                                                                          \
                const size_t a0 = R[s], a1 = a0 + off1, a2 = a0 + off2, a3 = a0 + off3;                \
                REPDL__ATTN_GROUP(0, "=v", x, ROW0);                                                   \
            }                                                                                          \
            if (s + 1 == nsub) break; /* one group (len 4): the root */                                \
            s++;                                                                                       \
            {                                                                                          \
                const size_t a0 = R[s], a1 = a0 + off1, a2 = a0 + off2, a3 = a0 + off3;                \
                REPDL__ATTN_GROUP(1, "+v", x, ROW0); /* level 0: even + odd */                         \
            }                                                                                          \
            for (j = p, lev = 1; j & 1; lev++, j >>= 1)                                                \
                REPDL__ATTN_UNROLL8 for (i = 0; i < 8; i++) x[i] = _mm512_add_ps(st[lev][i], x[i]);    \
            REPDL__ATTN_UNROLL8 for (i = 0; i < 8; i++) st[lev][i] = x[i];                             \
        }                                                                                              \
        for (q = 0; q < nq4; q++) {                                                                    \
            _mm512_storeu_ps(out[q] + c0, x[2 * q]);                                                   \
            _mm512_storeu_ps(out[q] + c0 + 16, x[2 * q + 1]);                                          \
        }                                                                                              \
    }
/* (the asm template of a group, both dialects, is longer than the 4095
   characters C99 asks every compiler to take; gcc and clang, the only
   compilers of this block, take it: clang's -pedantic warning off here) */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Woverlength-strings"
#endif
__attribute__((target("avx512f"), noinline, unused)) static size_t
repdl__attn_vleafq_pow2_avx512(size_t len, size_t nc, size_t nq4, const float *const *W,
                                const float *M, size_t ldm, float *const *out)
{
    repdl__attn_pow2 g;
    size_t nsub, c0, q, s, off1, off2, off3, o1, o2, o3;
    const float *W0 = W[0], *W1 = W[nq4 > 1 ? 1 : 0], *W2 = W[nq4 > 2 ? 2 : 0],
                *W3 = W[nq4 > 3 ? 3 : 0];
    const uint16_t *R = g.R;
    repdl__attn_pow2_plan(len, &g);
    nsub = g.nsub, off1 = g.off[0], off2 = g.off[1], off3 = g.off[2];
    o1 = off1 * ldm * sizeof(float), o2 = off2 * ldm * sizeof(float), o3 = off3 * ldm * sizeof(float);
    REPDL__ATTN_POW2_PASSES(M, Mc + a0 * ldm)
    return c0;
}
/* repdl__attn_vleafq_pow2_avx512 with the rows of M in tree order, Mt
   (repdl__attn_pow2_rows, stride ldm), g the leaf's plan: the same
   groups, products and counter (the weights W still read through g's
   rows), so the same bits; group s reads the rows 4 s .. 4 s + 3, in
   sequence. */
__attribute__((target("avx512f"), noinline, unused)) static size_t
repdl__attn_vleafq_tree_avx512(const repdl__attn_pow2 *g, size_t nc, size_t nq4, const float *const *W,
                                const float *Mt, size_t ldm, float *const *out)
{
    size_t c0, q, s, nsub = g->nsub, off1 = g->off[0], off2 = g->off[1], off3 = g->off[2],
                     o1 = ldm * sizeof(float), o2 = 2 * o1, o3 = 3 * o1;
    const float *W0 = W[0], *W1 = W[nq4 > 1 ? 1 : 0], *W2 = W[nq4 > 2 ? 2 : 0],
                *W3 = W[nq4 > 3 ? 3 : 0];
    const uint16_t *R = g->R;
    REPDL__ATTN_POW2_PASSES(Mt, Mc + 4 * s * ldm)
    return c0;
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif
#undef REPDL__ATTN_POW2_PASSES
#undef REPDL__ATTN_GROUP
#undef REPDL__ATTN_SLOT
#undef REPDL__ATTN_FIN0
#undef REPDL__ATTN_FIN1
#undef REPDL__ATTN_ADD
#undef REPDL__ATTN_MUL
#undef REPDL__ATTN_BC
#undef REPDL__ATTN_LD
#undef REPDL__ATTN_LD0
#undef REPDL__ATTN_I
/* The zero-padded counter leaf.  A slot whose seen rows [lo, hi) are not
   all of a power of two of rows (causal: each query its own number of
   keys, each key its own first query) is still summed by the counter leaf
   above over L rows, L the power of two >= len, when the caller knows
   that W[q][r] is +0 or -0 for every row r < L outside [lo, hi) (the
   backward's P and dS hold -0 there) and M has L rows.  Such a row's term
   is then RN(+-0 M[r][c]): -0 or +0 when M[r][c] is finite, where the
   definition's term is -0.  Claim: each node of the tree then has the
   definition's value v, or +0 where v is -0.  At a leaf by the above; at
   a node a + b where a has +0 for -0 and b is exact: -0 + b == b, and
   +0 + b == b unless b is -0 (then +0 for -0); where both have +0 for
   -0, +0 for -0 again.  So a sum of the counter leaf that is neither +0
   nor NaN (a term NaN: M[r][c] infinite or NaN in an unseen row) is the
   definition's, bit for bit, and a slot with either anywhere in its
   columns is summed again by the generic leaf over [lo, hi) (exact sums
   of +0 and NaNs are rare: a row of zero gradients, non-finite inputs).
   tests/attention compares both paths with the reference, fix-ups
   included ("causal zero-pad fix-ups"). */
__attribute__((target("avx512f"), noinline, unused)) static void
repdl__attn_zfix_avx512(size_t len, size_t nc, size_t nq4, const float *const *W, const size_t *lo,
                        const size_t *hi, const float *M, size_t ldm, float *const *out)
{
    size_t q, c;
    for (q = 0; q < nq4; q++) {
        __mmask16 bad = 0;
        for (c = 0; c + 16 <= nc; c += 16) {
            __m512 v = _mm512_loadu_ps(out[q] + c);
            bad |= _mm512_cmpeq_epi32_mask(_mm512_castps_si512(v), _mm512_setzero_si512()) |
                   _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        }
        if (bad) repdl__attn_vleafq_avx512(len, nc, 1, W + q, lo + q, hi + q, M, ldm, out + q);
    }
}
#endif
#undef REPDL__ATTN_OPAQUE
#undef REPDL__ATTN_UNROLL2
#undef REPDL__ATTN_UNROLL4
#undef REPDL__ATTN_UNROLL8
#undef REPDL__ATTN_VKEEP

/* The length of the counter leaf for a call of len rows (a power of two
   from 4): len itself when every slot sees every row; otherwise, with
   avail > 0 (the weights of every slot are +-0 outside its rows for the
   rows below avail, and M has avail rows: repdl__attn_zfix_avx512), the
   power of two >= len when it is at most avail; 0: none. */
REPDL_FN size_t repdl__attn_pow2_len(size_t len, size_t nq4, const size_t *lo, const size_t *hi,
                                     size_t avail)
{
    size_t q, L = 4;
    int all = 1;
    for (q = 0; q < nq4 && all; q++) all = lo[q] == 0 && hi[q] >= len;
    while (L < len) L *= 2;
    if (all && L == len) return L;
    return L <= avail ? L : 0;
}

/* The rows of slot q below L, the counter leaf's length, that it does not
   see: none when lo[q] == 0 and hi[q] >= L for every slot. */
REPDL_FN int repdl__attn_padded(size_t L, size_t nq4, const size_t *lo, const size_t *hi)
{
    size_t q;
    for (q = 0; q < nq4; q++)
        if (lo[q] || hi[q] < L) return 1;
    return 0;
}

#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
/* After the counter leaf of L rows gave the first done of the nc columns:
   its padded slots' fix-ups, and the last 16 columns by the generic leaf;
   returns the columns done. */
REPDL_FN size_t repdl__attn_counter_rest(size_t L, size_t done, REPDL__ATTN_QARGS)
{
    size_t q;
    if (repdl__attn_padded(L, nq4, lo, hi)) repdl__attn_zfix_avx512(len, done, nq4, W, lo, hi, M, ldm, out);
    if (done + 16 <= nc) { /* the last 16 columns */
        float *o2[REPDL__ATTN_Q];
        for (q = 0; q < nq4; q++) o2[q] = out[q] + done;
        done += repdl__attn_vleafq_avx512(len, nc - done, nq4, W, lo, hi, M + done, ldm, o2);
    }
    return done;
}
#endif

/* The sums of up to 4 slots (REPDL__ATTN_QARGS: repdl__attn_vleafq_body),
   by the widest kernel, through the counter leaf where it applies
   (repdl__attn_pow2_len; avail as there, 0: only where every slot sees
   every row). */
REPDL_FN size_t repdl__attn_vleafq_zp(REPDL__ATTN_QARGS, size_t avail)
{
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
    int isa = repdl__attn_visa();
    if (isa == 2) {
        size_t done, L = nc >= 32 ? repdl__attn_pow2_len(len, nq4, lo, hi, avail) : 0;
        /* (at 1024 rows it measured 2-3% slower in the forward and the
           backward at 4 heads, head_dim 64: the kernel below is for 4 .. 512) */
        if (!L || L > 512) return repdl__attn_vleafq_avx512(len, nc, nq4, W, lo, hi, M, ldm, out);
        done = repdl__attn_vleafq_pow2_avx512(L, nc, nq4, W, M, ldm, out);
        return repdl__attn_counter_rest(L, done, len, nc, nq4, W, lo, hi, M, ldm, out);
    }
    if (isa == 1) return repdl__attn_vleafq_avx2(len, nc, nq4, W, lo, hi, M, ldm, out);
#endif
    (void)avail;
    return repdl__attn_vleafq_base(len, nc, nq4, W, lo, hi, M, ldm, out);
}

REPDL_FN size_t repdl__attn_vleafq(REPDL__ATTN_QARGS)
{
    return repdl__attn_vleafq_zp(len, nc, nq4, W, lo, hi, M, ldm, out, 0);
}

/* repdl__attn_vdots4_body's dots of the columns j0 .. j0 + n - 1 (into
   sc[q][j0 ..]); the rows of sc (and of XT) must hold ldt -
   REPDL__ATTN_KPAD columns (nk), which it may write past j0 + n.  tree:
   XT's d rows in the counter leaf's tree order (repdl__attn_xt_tree). */
REPDL_FN void repdl__attn_vdots4(size_t d, size_t nx, const float *const *x, const float *XT, size_t ldt,
                                 size_t j0, size_t n, float *const *sc, int tree)
{
    float *s0[REPDL__ATTN_Q];
    size_t q;
    for (q = 0; q < nx; q++) s0[q] = sc[q] + j0;
    XT += j0;
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
    {
        int isa = repdl__attn_visa();
        if (tree) { /* (only on AVX-512F) the same leaf, its rows read in sequence */
            repdl__attn_pow2 g;
            size_t n32 = (n + 31) & ~(size_t)31, done;
            repdl__attn_pow2_plan(d, &g);
            done = repdl__attn_vleafq_tree_avx512(&g, j0 + n32 + REPDL__ATTN_KPAD <= ldt ? n32 : n & ~(size_t)31,
                                                  nx, x, XT, ldt, s0);
            if (done < n) { /* the last keys: a pass of 32 (in the row: KPAD) into t */
                float t[REPDL__ATTN_Q][32], *tq[REPDL__ATTN_Q];
                for (q = 0; q < nx; q++) tq[q] = t[q];
                repdl__attn_vleafq_tree_avx512(&g, 32, nx, x, XT + done, ldt, tq);
                for (q = 0; q < nx; q++) memcpy(s0[q] + done, t[q], (n - done) * sizeof(float));
            }
            return;
        }
        if (isa == 2) {
            /* each column's dot is the leaf of its d rows (one a lane, the
               lane fold F(d, 0, 1)) with the products of row t RN(x[q][t]
               XT[t][j]): repdl__attn_vleafq_pow2_avx512's leaf over d rows
               with W = x, 32 keys a pass (20-27% faster at d 64 than the
               kernel of nodes F(8, b, nb) below, 2-15% at d 32); the last
               keys below */
            /* n rounded up to 32 keys where the rows of sc (and XT) hold
               them (ldt - REPDL__ATTN_KPAD: the callers' nk), the columns
               past n computed and stored but never used; else down */
            size_t n32 = (n + 31) & ~(size_t)31,
                   done = repdl__attn_vleafq_pow2_avx512(
                       d, j0 + n32 + REPDL__ATTN_KPAD <= ldt ? n32 : n & ~(size_t)31, nx, x, XT, ldt, s0);
            if (done < n) {
                for (q = 0; q < nx; q++) s0[q] += done;
                repdl__attn_vdots4_avx512(d, nx, x, XT + done, ldt, n - done, s0);
            }
            return;
        }
        if (isa == 1) {
            repdl__attn_vdots4_avx2(d, nx, x, XT, ldt, n, s0);
            return;
        }
    }
#endif
    (void)tree;
    repdl__attn_vdots4_base(d, nx, x, XT, ldt, n, s0);
}

REPDL_FN size_t repdl__attn_vleaf(REPDL__ATTN_VARGS)
{
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
    int isa = repdl__attn_visa();
    if (isa == 2) return repdl__attn_vleaf_avx512(j, len, nc, w, use, M, ldm, out);
    if (isa == 1) return repdl__attn_vleaf_avx2(j, len, nc, w, use, M, ldm, out);
#endif
    return repdl__attn_vleaf_base(j, len, nc, w, use, M, ldm, out);
}

/* x[i] = repdl_exp_f32(RN(x[i] - sub)) for i < n, bit for bit, or -0
   where use[i] == 0 (use NULL: every i): exp.h's lane (a correctly
   rounded result, or a flag that sends the element to repdl_exp_f32) over
   chunks of REPDL__ATTN_EXPC elements, the last one padded with +0
   (computed, not stored), so that a row of n scores costs n rounded up to
   16 lanes rather than exp.h's chunk of 256.  The AVX2 and AVX-512F
   forms below write the lane's operations (repdl__expf_core,
   repdl__round_ok_normal, the selects of repdl__exp_lane) in intrinsics
   with the same roundings, so that the table of 2^(j/256) is read by a
   gather instead of one scalar load and insert a lane (gcc's cost model
   does not emit gathers for the portable lane on every tuning); the
   lane's bound holds fused or not, so it is the same rule and the same
   bits (tests/attention compares them with repdl_exp_f32). */
#define REPDL__ATTN_EXPC 16
REPDL__ATTN_AI void repdl__attn_exp_body(size_t n, float *x, float sub, const unsigned char *use)
{
    size_t i0, i;
    for (i0 = 0; i0 < n; i0 += REPDL__ATTN_EXPC) {
        size_t m = n - i0 < REPDL__ATTN_EXPC ? n - i0 : REPDL__ATTN_EXPC;
        float xb[REPDL__ATTN_EXPC];
        uint32_t res[REPDL__ATTN_EXPC], bad[REPDL__ATTN_EXPC], any = 0;
        for (i = 0; i < m; i++) xb[i] = repdl__fsub(x[i0 + i], sub);
        for (i = m; i < REPDL__ATTN_EXPC; i++) xb[i] = 0.0f;
        for (i = 0; i < REPDL__ATTN_EXPC; i++) {
            res[i] = repdl__exp_lane(repdl__asuint(xb[i]), &bad[i]);
            any |= bad[i];
        }
        if (REPDL_UNLIKELY(any))
            for (i = 0; i < m; i++)
                if (bad[i]) res[i] = repdl__asuint(repdl_exp_f32(xb[i]));
        if (use)
            for (i = 0; i < m; i++) res[i] = use[i0 + i] ? res[i] : 0x80000000u;
        memcpy(x + i0, res, m * sizeof(float));
    }
}
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
/* The flagged lanes of a chunk (bit i: element i0 + i, whose argument is
   xb[i]) through repdl_exp_f32. */
REPDL_FN_NOINLINE void repdl__attn_exp_fix(float *x, const uint32_t *xb, unsigned bad)
{
    int i;
    for (i = 0; bad; i++, bad >>= 1)
        if (bad & 1u) x[i] = repdl_exp_f32(repdl__asfloat(xb[i]));
}
/* repdl__expf_core of 8 binary32 values xf (held as doubles xd), the
   lines of exp_table.h and exp.h one for one. */
#define REPDL__ATTN_EXPCORE(VD, VI, P, CPI, CIP, AND, SET64, GATHER)                                \
    do {                                                                                           \
        VD z_ = P##_add_pd(P##_mul_pd(xd, P##_set1_pd(369.3299304675746)),                          \
                           P##_set1_pd(6755399441055744.0));                                       \
        VI ki_ = CPI(z_);                                                                          \
        VD kd_ = P##_sub_pd(z_, P##_set1_pd(6755399441055744.0));                                   \
        VD r_ = P##_sub_pd(xd, P##_mul_pd(kd_, P##_set1_pd(0.0027076061740558544)));                \
        VD r2_, a_, p_;                                                                            \
        r_ = P##_sub_pd(r_, P##_mul_pd(kd_, P##_set1_pd(6.432011555819173e-15)));                   \
        s_ = CIP(P##_add_epi64(GATHER(AND(ki_, SET64(255))), P##_slli_epi64(ki_, 44)));             \
        r2_ = P##_mul_pd(r_, r_);                                                                  \
        a_ = P##_add_pd(P##_set1_pd(0.5000000000000233), P##_mul_pd(r_, P##_set1_pd(0.16666668003889068))); \
        p_ = P##_add_pd(a_, P##_mul_pd(r2_, P##_set1_pd(0.0416666536383358)));                      \
        y = P##_add_pd(s_, P##_add_pd(P##_mul_pd(s_, r_), P##_mul_pd(P##_mul_pd(s_, r2_), p_)));    \
    } while (0)
#define REPDL__ATTN_GATHER(j) _mm512_i64gather_epi64((j), (const void *)T, 8)
/* g++ 12 reports -Wmaybe-uninitialized (and, at -O3 -march=native,
   -Wuninitialized) inside its own avx512fintrin.h (the deliberately
   undefined lanes, `__Y = __Y`, of the conversions and casts) once they
   are inlined here: silenced for the two kernels below only, as in
   gemm_cr.h and optim.h, so that a user's -Werror build compiles. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
__attribute__((target("avx512f"), noinline, unused)) static void
repdl__attn_exp_avx512_any(size_t n, float *x, float sub, const unsigned char *use)
{
    const uint64_t *T = repdl__exp2_256_tab();
    const __m512 vsub = _mm512_set1_ps(sub);
    size_t i0;
    for (i0 = 0; i0 < n; i0 += 16) {
        size_t m = n - i0 < 16 ? n - i0 : 16;
        __mmask16 ld = (__mmask16)(m == 16 ? 0xffffu : (1u << m) - 1u), ovf, unf, nan, sp, fast, ok, bad;
        __m512i ux = _mm512_castps_si512(_mm512_sub_ps(_mm512_maskz_loadu_ps(ld, x + i0), vsub));
        __m512i ab = _mm512_and_si512(ux, _mm512_set1_epi32(0x7fffffff)), res, lo;
        __m256i lw[2];
        __m256 yf[2];
        int h;
        ovf = _mm512_cmpgt_epu32_mask(ux, _mm512_set1_epi32(0x42b17217)) &
              _mm512_cmple_epu32_mask(ux, _mm512_set1_epi32(0x7f800000));
        unf = _mm512_cmpgt_epu32_mask(ux, _mm512_set1_epi32((int)0xc2cff1b4u)) &
              _mm512_cmple_epu32_mask(ux, _mm512_set1_epi32((int)0xff800000u));
        nan = _mm512_cmpgt_epu32_mask(ab, _mm512_set1_epi32(0x7f800000));
        sp = (__mmask16)(ovf | unf | nan);
        fast = _mm512_cmple_epu32_mask(ab, _mm512_set1_epi32(0x42ae0000));
        {
            __m512i xa = _mm512_mask_and_epi32(ux, sp, ux, _mm512_set1_epi32((int)0x807fffffu));
            for (h = 0; h < 2; h++) {
                __m512d xd = _mm512_cvtps_pd(_mm256_castsi256_ps(h ? _mm512_extracti64x4_epi64(xa, 1)
                                                                   : _mm512_castsi512_si256(xa)));
                __m512d s_, y;
                REPDL__ATTN_EXPCORE(__m512d, __m512i, _mm512, _mm512_castpd_si512, _mm512_castsi512_pd,
                                    _mm512_and_si512, _mm512_set1_epi64, REPDL__ATTN_GATHER);
                yf[h] = _mm512_cvtpd_ps(y);
                lw[h] = _mm512_cvtepi64_epi32(_mm512_castpd_si512(y));
            }
        }
        res = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_castps_si256(yf[0])),
                                 _mm256_castps_si256(yf[1]), 1);
        lo = _mm512_inserti64x4(_mm512_castsi256_si512(lw[0]), lw[1], 1);
        /* repdl__round_ok_normal(y, 4u) */
        ok = _mm512_cmpgt_epu32_mask(_mm512_add_epi32(_mm512_slli_epi32(lo, 3),
                                                      _mm512_set1_epi32((int)(0x80000000u + 32u))),
                                     _mm512_set1_epi32(64));
        bad = (__mmask16)(~sp & ~(fast & ok) & ld);
        res = _mm512_mask_mov_epi32(res, sp, _mm512_setzero_si512());
        res = _mm512_mask_mov_epi32(res, ovf, _mm512_set1_epi32(0x7f800000));
        res = _mm512_mask_mov_epi32(res, nan, _mm512_set1_epi32((int)REPDL_NAN_BITS));
        _mm512_mask_storeu_epi32(x + i0, ld, res);
        if (REPDL_UNLIKELY(bad)) {
            uint32_t xb[16];
            _mm512_storeu_si512(xb, ux);
            repdl__attn_exp_fix(x + i0, xb, bad);
        }
        if (use) {
            unsigned char u8[16] = {0};
            memcpy(u8, use + i0, m);
            _mm512_mask_storeu_epi32(x + i0,
                                     (__mmask16)(ld & ~_mm512_test_epi32_mask(
                                                          _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)u8)),
                                                          _mm512_set1_epi32(0xff))),
                                     _mm512_set1_epi32((int)0x80000000u));
        }
    }
}
/* The AVX-512F kernel's whole chunks of 16: the same approximation
   (repdl__expf_core's operations, fused where its bound allows: the
   reduction, the polynomial and s r + (s r2) p; exp.h's bound and
   expf.py's hold fused or not) with two changes that take the gathers
   and the selects out of the common case (docs/attention.md, "Speed"):
   - s = RN(A[j >> 4] B[j & 15]) instead of T[j]: A[a] = T[16 a] and
     B[b] = T[b] (the table's own entries, read once a call) are two
     16-entry tables that fit in four registers and are read by permutes.
     |s / 2^(j/256) - 1| < 2.385 2^-53 (0.851 for T[j]), so
     |y / exp(x) - 1| < 3.434 2^-53 and the rounding test takes c =
     REPDL__ATTN_EXP2T_C (needs 3.434 < (c - 1) / (1 + 2^-50);
     reference/gen/expf.py --check derives both numbers and checks c);
   - no selects: a chunk whose 16 arguments all have |x| <= 87 and pass
     the test is stored as it is; any other chunk (NaN, overflow,
     underflow, a failed test: with c = 8 about 1 input in 2^25) goes
     through repdl__attn_exp_avx512_any, the kernel above.
   On garbage lanes the permutes read only registers, never memory.  All
   2^32 inputs give repdl_exp_f32's bits (tests/attention/exp_all.c) in
   the plain, the gcc -march=native -ffp-contract=fast and the clang
   -ffp-contract=fast builds (the last two free to fuse the rest). */
#define REPDL__ATTN_EXP2T_C 8u
__attribute__((target("avx512f"), noinline, unused)) static void
repdl__attn_exp_avx512(size_t n, float *x, float sub, const unsigned char *use)
{
    const uint64_t *T = repdl__exp2_256_tab();
    const __m512i j16 = _mm512_setr_epi64(0, 16, 32, 48, 64, 80, 96, 112),
                  j16h = _mm512_add_epi64(j16, _mm512_set1_epi64(128)),
                  j1 = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), j1h = _mm512_add_epi64(j1, _mm512_set1_epi64(8));
    /* T[j]'s bits plus the j << 44 the table subtracted: RN(2^(j/256)) */
    const __m512d A0 = _mm512_castsi512_pd(_mm512_add_epi64(_mm512_i64gather_epi64(j16, (const void *)T, 8),
                                                            _mm512_slli_epi64(j16, 44))),
                  A1 = _mm512_castsi512_pd(_mm512_add_epi64(_mm512_i64gather_epi64(j16h, (const void *)T, 8),
                                                            _mm512_slli_epi64(j16h, 44))),
                  B0 = _mm512_castsi512_pd(_mm512_add_epi64(_mm512_loadu_si512((const void *)T),
                                                            _mm512_slli_epi64(j1, 44))),
                  B1 = _mm512_castsi512_pd(_mm512_add_epi64(_mm512_loadu_si512((const void *)(T + 8)),
                                                            _mm512_slli_epi64(j1h, 44)));
    const __m512 vsub = _mm512_set1_ps(sub);
    size_t i0;
    for (i0 = 0; i0 + 16 <= n; i0 += 16) {
        __m512i ux = _mm512_castps_si512(_mm512_sub_ps(_mm512_loadu_ps(x + i0), vsub));
        __mmask16 fast = _mm512_cmple_epu32_mask(_mm512_and_si512(ux, _mm512_set1_epi32(0x7fffffff)),
                                                 _mm512_set1_epi32(0x42ae0000));
        __mmask8 ok[2];
        __m256 yf[2];
        int h;
        for (h = 0; h < 2; h++) {
            __m512d xd = _mm512_cvtps_pd(_mm256_castsi256_ps(h ? _mm512_extracti64x4_epi64(ux, 1)
                                                               : _mm512_castsi512_si256(ux)));
            __m512d z = _mm512_fmadd_pd(xd, _mm512_set1_pd(369.3299304675746), _mm512_set1_pd(6755399441055744.0));
            __m512i ki = _mm512_castpd_si512(z);
            __m512d kd = _mm512_sub_pd(z, _mm512_set1_pd(6755399441055744.0));
            __m512d r = _mm512_fnmadd_pd(kd, _mm512_set1_pd(0.0027076061740558544), xd);
            __m512d r2, a, p, s, y;
            r = _mm512_fnmadd_pd(kd, _mm512_set1_pd(6.432011555819173e-15), r);
            /* s = 2^(k >> 8) RN(A[(k >> 4) & 15] B[k & 15]): the permutes
               read the low 4 bits of each index; RN(A B) is in [1, 2), so
               adding k >> 8 to its exponent field scales it exactly */
            s = _mm512_mul_pd(_mm512_permutex2var_pd(A0, _mm512_srli_epi64(ki, 4), A1),
                              _mm512_permutex2var_pd(B0, ki, B1));
            s = _mm512_castsi512_pd(_mm512_add_epi64(_mm512_castpd_si512(s),
                                                     _mm512_slli_epi64(_mm512_srli_epi64(ki, 8), 52)));
            r2 = _mm512_mul_pd(r, r);
            a = _mm512_fmadd_pd(r, _mm512_set1_pd(0.16666668003889068), _mm512_set1_pd(0.5000000000000233));
            p = _mm512_fmadd_pd(r2, _mm512_set1_pd(0.0416666536383358), a);
            y = _mm512_add_pd(s, _mm512_fmadd_pd(_mm512_mul_pd(s, r2), p, _mm512_mul_pd(s, r)));
            yf[h] = _mm512_cvtpd_ps(y);
            /* repdl__round_ok_normal(y, c) in 64-bit lanes: the low word's
               (lo << 3) + 2^31 + 8c, mod 2^32, held in the high word */
            ok[h] = _mm512_cmpgt_epu64_mask(
                _mm512_add_epi64(_mm512_slli_epi64(_mm512_castpd_si512(y), 35),
                                 _mm512_set1_epi64((long long)((0x80000000ull + 8u * REPDL__ATTN_EXP2T_C) << 32))),
                _mm512_set1_epi64((long long)((16ull * REPDL__ATTN_EXP2T_C) << 32)));
        }
        if (REPDL_LIKELY((__mmask16)(fast & (ok[0] | (ok[1] << 8))) == 0xffffu)) {
            _mm256_storeu_ps(x + i0, yf[0]);
            _mm256_storeu_ps(x + i0 + 8, yf[1]);
        } else {
            repdl__attn_exp_avx512_any(16, x + i0, sub, NULL);
        }
        if (use)
            _mm512_mask_storeu_epi32(x + i0,
                                     (__mmask16)~_mm512_test_epi32_mask(
                                         _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(use + i0))),
                                         _mm512_set1_epi32(0xff)),
                                     _mm512_set1_epi32((int)0x80000000u));
    }
    if (i0 < n) repdl__attn_exp_avx512_any(n - i0, x + i0, sub, use ? use + i0 : NULL);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#undef REPDL__ATTN_GATHER
#define REPDL__ATTN_GATHER(j) _mm256_i64gather_epi64((const long long *)T, (j), 8)
/* a > b as unsigned 32-bit lanes (AVX2 compares signed) */
#define REPDL__ATTN_GTU(a, b)                                                                       \
    _mm256_cmpgt_epi32(_mm256_xor_si256((a), _mm256_set1_epi32((int)0x80000000u)),                \
                       _mm256_xor_si256((b), _mm256_set1_epi32((int)0x80000000u)))
__attribute__((target("avx2"), noinline, unused)) static void
repdl__attn_exp_avx2(size_t n, float *x, float sub, const unsigned char *use)
{
    const uint64_t *T = repdl__exp2_256_tab();
    const __m256 vsub = _mm256_set1_ps(sub);
    const __m256i one = _mm256_set1_epi32(-1);
    size_t i0;
    for (i0 = 0; i0 < n; i0 += 8) {
        size_t m = n - i0 < 8 ? n - i0 : 8;
        uint32_t xb[8], rb[8];
        __m256i ux, ab, ovf, unf, nan, sp, fast, ok, xa, res, lo;
        __m128 yf[2];
        __m128i lw[2];
        unsigned bad;
        int h;
        if (m == 8) {
            ux = _mm256_loadu_si256((const __m256i *)(const void *)(x + i0));
        } else {
            float t[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            memcpy(t, x + i0, m * sizeof(float));
            ux = _mm256_loadu_si256((const __m256i *)(const void *)t);
        }
        ux = _mm256_castps_si256(_mm256_sub_ps(_mm256_castsi256_ps(ux), vsub));
        ab = _mm256_and_si256(ux, _mm256_set1_epi32(0x7fffffff));
        ovf = _mm256_andnot_si256(REPDL__ATTN_GTU(ux, _mm256_set1_epi32(0x7f800000)),
                                  REPDL__ATTN_GTU(ux, _mm256_set1_epi32(0x42b17217)));
        unf = _mm256_andnot_si256(REPDL__ATTN_GTU(ux, _mm256_set1_epi32((int)0xff800000u)),
                                  REPDL__ATTN_GTU(ux, _mm256_set1_epi32((int)0xc2cff1b4u)));
        nan = _mm256_cmpgt_epi32(ab, _mm256_set1_epi32(0x7f800000));
        sp = _mm256_or_si256(_mm256_or_si256(ovf, unf), nan);
        fast = _mm256_xor_si256(_mm256_cmpgt_epi32(ab, _mm256_set1_epi32(0x42ae0000)), one);
        xa = _mm256_blendv_epi8(ux, _mm256_and_si256(ux, _mm256_set1_epi32((int)0x807fffffu)), sp);
        for (h = 0; h < 2; h++) {
            __m256d xd = _mm256_cvtps_pd(_mm_castsi128_ps(h ? _mm256_extracti128_si256(xa, 1)
                                                            : _mm256_castsi256_si128(xa)));
            __m256d s_, y;
            REPDL__ATTN_EXPCORE(__m256d, __m256i, _mm256, _mm256_castpd_si256, _mm256_castsi256_pd,
                                _mm256_and_si256, _mm256_set1_epi64x, REPDL__ATTN_GATHER);
            yf[h] = _mm256_cvtpd_ps(y);
            /* the low words of the four doubles */
            lw[h] = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
                _mm256_castpd_si256(y), _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
        }
        res = _mm256_insertf128_si256(_mm256_castsi128_si256(_mm_castps_si128(yf[0])),
                                      _mm_castps_si128(yf[1]), 1);
        lo = _mm256_insertf128_si256(_mm256_castsi128_si256(lw[0]), lw[1], 1);
        ok = REPDL__ATTN_GTU(_mm256_add_epi32(_mm256_slli_epi32(lo, 3),
                                              _mm256_set1_epi32((int)(0x80000000u + 32u))),
                             _mm256_set1_epi32(64));
        bad = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(
                  _mm256_andnot_si256(_mm256_or_si256(sp, _mm256_and_si256(fast, ok)), one))) &
              ((1u << m) - 1u);
        res = _mm256_andnot_si256(sp, res);
        res = _mm256_or_si256(res, _mm256_and_si256(ovf, _mm256_set1_epi32(0x7f800000)));
        res = _mm256_or_si256(res, _mm256_and_si256(nan, _mm256_set1_epi32((int)REPDL_NAN_BITS)));
        _mm256_storeu_si256((__m256i *)(void *)rb, res);
        if (REPDL_UNLIKELY(bad)) {
            _mm256_storeu_si256((__m256i *)(void *)xb, ux);
            repdl__attn_exp_fix((float *)(void *)rb, xb, bad);
        }
        if (use) {
            size_t i;
            for (i = 0; i < m; i++) rb[i] = use[i0 + i] ? rb[i] : 0x80000000u;
        }
        memcpy(x + i0, rb, m * sizeof(float));
    }
}
#undef REPDL__ATTN_GTU
#undef REPDL__ATTN_GATHER
#undef REPDL__ATTN_EXPCORE
#endif
REPDL_FN void repdl__attn_exp(size_t n, float *x, float sub, const unsigned char *use)
{
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
    int isa = repdl__attn_visa();
    if (isa == 2) {
        repdl__attn_exp_avx512(n, x, sub, use);
        return;
    }
    if (isa == 1) {
        repdl__attn_exp_avx2(n, x, sub, use);
        return;
    }
#endif
    repdl__attn_exp_body(n, x, sub, use);
}

#define REPDL__ATTN_RARGS                                                                     \
    size_t n, float *sc, float scale, const float *mk, const unsigned char *use, uint32_t *kmax, \
        uint32_t *nan
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
__attribute__((target("avx512f"), noinline, unused)) static void repdl__attn_rowpass_avx512(REPDL__ATTN_RARGS)
{
    repdl__attn_rowpass_body(n, sc, scale, mk, use, kmax, nan);
}
__attribute__((target("avx2"), noinline, unused)) static void repdl__attn_rowpass_avx2(REPDL__ATTN_RARGS)
{
    repdl__attn_rowpass_body(n, sc, scale, mk, use, kmax, nan);
}
#endif
REPDL_FN void repdl__attn_rowpass(REPDL__ATTN_RARGS)
{
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
    int isa = repdl__attn_visa();
    if (isa == 2) {
        repdl__attn_rowpass_avx512(n, sc, scale, mk, use, kmax, nan);
        return;
    }
    if (isa == 1) {
        repdl__attn_rowpass_avx2(n, sc, scale, mk, use, kmax, nan);
        return;
    }
#endif
    repdl__attn_rowpass_body(n, sc, scale, mk, use, kmax, nan);
}
#undef REPDL__ATTN_RARGS
#else
#define REPDL__ATTN_VEC 0
#endif

/* The leaf of the len (1 .. 1024) rows j .. j + len - 1 of terms, for the
   columns c < nc at once: out[c] (docs/canonical-order.md, section 3; rows
   past len are -0 padding).  Row j + r is lane r mod 64 of vector r / 64.
   A term that is -0 by definition (padding, or an unseen row) is an
   identity of every addition it enters: x + -0 == -0 + x == x for every x
   (-0 + +0 = +0, -0 + -0 = -0; a NaN stays a NaN, canonicalised at the
   output).  So a node of the tree whose right (left) subtree holds only
   such terms has the value of its left (right) subtree, and a node with
   none but such terms is -0: those nodes are not computed, which gives
   the tree's value bit for bit.  Lane l's seen terms go to E (16 rows,
   vector v in row v), flags f[v] say which rows hold a term; the adjacent
   pairwise tree of section 3.1 runs on them under that rule (a full lane,
   16 seen rows, as one expression per column); lane l's value goes to row
   l of A (64 rows), then the lane fold of section 3.2 under the same rule.
   T: REPDL__ATTN_SCRATCH floats (A, then E). */
REPDL__ATTN_OUTLINE void repdl__attn_leaf(size_t j, size_t len, size_t nc, const float *w,
                               const unsigned char *use, const float *M, size_t ldm, float *T,
                               float *out)
{
    float *A = T, *E = T + REPDL_SUM_LANES * REPDL__ATTN_COLS;
    unsigned char lf[REPDL_SUM_LANES], f[REPDL_SUM_VECS];
    size_t l, v, s, c, h, lanes = len < REPDL_SUM_LANES ? len : REPDL_SUM_LANES, any = 0;
#if REPDL__ATTN_VEC
    {
        size_t done = repdl__attn_vleaf(j, len, nc, w, use, M, ldm, out);
        if (done == nc) return;
        M += done;
        out += done;
        nc -= done;
    }
#endif
    for (l = 0; l < lanes; l++) {
        size_t nv = (len - l + REPDL_SUM_LANES - 1) / REPDL_SUM_LANES, seen = 0;
        float *al = A + l * REPDL__ATTN_COLS;
        for (v = 0; v < nv; v++) {
            size_t r = j + v * REPDL_SUM_LANES + l;
            f[v] = (unsigned char)(!use || use[r]);
            if (f[v]) {
                repdl__attn_terms(E + seen * REPDL__ATTN_COLS, r, nc, w, NULL, M, ldm);
                seen++;
            }
        }
        lf[l] = (unsigned char)(seen != 0);
        if (seen == 0) continue;
        any = 1;
        REPDL__MATERIALIZE(E); /* the products are rounded before any sum */
        if (seen == 1) {
            for (c = 0; c < nc; c++) al[c] = E[c];
            continue;
        }
        if (seen == REPDL_SUM_VECS) {
#define REPDL__EV(k) E[(k) * REPDL__ATTN_COLS + c]
            for (c = 0; c < nc; c++) al[c] = REPDL__TREE16(REPDL__EV);
#undef REPDL__EV
            continue;
        }
        /* compacted: seen rows are E[0 .. seen); place them by vector */
        for (v = nv, s = seen; v-- > 0;)
            if (f[v] && --s != v) memcpy(E + v * REPDL__ATTN_COLS, E + s * REPDL__ATTN_COLS, nc * sizeof(float));
        for (s = 1; s < REPDL_SUM_VECS; s *= 2)
            for (v = 0; v + s < nv; v += 2 * s) {
                float *x = E + v * REPDL__ATTN_COLS;
                const float *y = E + (v + s) * REPDL__ATTN_COLS;
                if (!f[v + s]) continue;
                if (f[v])
                    for (c = 0; c < nc; c++) x[c] = repdl__fadd(x[c], y[c]);
                else
                    memcpy(x, y, nc * sizeof(float));
                f[v] = 1;
            }
        for (c = 0; c < nc; c++) al[c] = E[c];
    }
    if (!any) {
        for (c = 0; c < nc; c++) out[c] = -0.0f;
        return;
    }
    for (h = REPDL_SUM_LANES / 2; h >= 1; h /= 2)
        for (l = 0; l < h && l + h < lanes; l++) {
            float *x = A + l * REPDL__ATTN_COLS;
            const float *y = A + (l + h) * REPDL__ATTN_COLS;
            if (!lf[l + h]) continue;
            if (lf[l])
                for (c = 0; c < nc; c++) x[c] = repdl__fadd(x[c], y[c]);
            else
                memcpy(x, y, nc * sizeof(float));
            lf[l] = 1;
        }
    for (c = 0; c < nc; c++) out[c] = A[c];
}

/* 1 when every row of [j, j + len) is unseen (use[r] == 0). */
REPDL_FN int repdl__attn_none(const unsigned char *use, size_t j, size_t len)
{
    size_t r;
    if (!use) return 0;
    for (r = 0; r < len; r++)
        if (use[j + r]) return 0;
    return 1;
}

/* out[c] = the canonical sum over r < n of the terms of repdl__attn_terms,
   for c < nc (nc <= REPDL__ATTN_COLS), through T and the trees tr[0..nc)
   (n > 1024).  A leaf of unseen rows only is -0 (every term -0) and is not
   computed.  n == 0: -0. */
REPDL__ATTN_OUTLINE void repdl__attn_wcols(size_t n, size_t nc, const float *w, const unsigned char *use,
                                const float *M, size_t ldm, float *T, repdl__tree *tr,
                                float *out)
{
    size_t j, len, c;
    if (n == 0) {
        for (c = 0; c < nc; c++) out[c] = -0.0f;
        return;
    }
    if (n <= REPDL_SUM_LEAF) {
        repdl__attn_leaf(0, n, nc, w, use, M, ldm, T, out);
        return;
    }
    for (c = 0; c < nc; c++) repdl__tree_init(&tr[c]);
    REPDL__LEAVES(n, j, len) {
        if (repdl__attn_none(use, j, len)) {
            for (c = 0; c < nc; c++) repdl__tree_push(&tr[c], 0, -0.0f);
            continue;
        }
        repdl__attn_leaf(j, len, nc, w, use, M, ldm, T, out);
        for (c = 0; c < nc; c++) repdl__tree_push(&tr[c], 0, out[c]);
    }
    for (c = 0; c < nc; c++) out[c] = repdl__tree_root(&tr[c]);
}

/* The same for any number of columns, REPDL__ATTN_COLS at a time. */
REPDL_FN void repdl__attn_wsum(size_t n, size_t ncols, const float *w, const unsigned char *use,
                               const float *M, size_t ldm, float *T, repdl__tree *tr, float *out)
{
    size_t c0;
    for (c0 = 0; c0 < ncols; c0 += REPDL__ATTN_COLS) {
        size_t nc = ncols - c0 < REPDL__ATTN_COLS ? ncols - c0 : REPDL__ATTN_COLS;
        repdl__attn_wcols(n, nc, w, use, M + c0, ldm, T, tr, out + c0);
    }
}

/* ---- The problem of one call ---- */
typedef struct repdl__attn {
    repdl_attention_shape s;
    size_t R, G;   /* rows per kv head, query heads per kv head */
    float scale;
    const float *q, *k, *v, *mask, *out, *lse, *dout;
    const unsigned char *keep;
    float *o_out, *o_lse, *dq, *dk, *dv;
    float *o_scores;      /* the forward's saved scores (the _scores forms), or NULL */
    const float *scores;  /* the backward's: read instead of recomputed, or NULL */
    float *P, *dS; /* backward: rows prow .. of [batch][hq][nq][nk] */
    void *pm_block; /* the allocation holding P and dS (P: its first 64-byte boundary) */
    size_t prow;   /* the query row held in row 0 of P and dS */
} repdl__attn;

/* Per-thread workspace (floats unless said): T (REPDL__ATTN_SCRATCH),
   trees (REPDL__ATTN_COLS), KT and VT (d x (nk + 16): the transposed keys and
   values of the current kv head; in the backward's second phase QG and GG:
   the group's queries and output gradients in the order r = i G + g,
   G nq x d each), row and row2 (nk; in the backward at least
   REPDL__ATTN_COLS (G nq + REPDL__ATTN_PAD): the second phase's dS and P
   of a block of REPDL__ATTN_COLS keys, key-major, r = i G + g within a
   key; the pad keeps the keys' rows off one cache set), use (bytes:
   nk, or G nq). */
#define REPDL__ATTN_PAD 16
typedef struct repdl__attn_ws {
    float *T, *KT, *VT, *row, *row2;
    float *rowq;         /* host: 4 nk floats (p of 4 rows), or NULL */
    unsigned char *useq; /* host: 4 nk bytes, with rowq */
    repdl__tree *tr;
    unsigned char *use;
    size_t head;  /* the kv head (b hkv + h) in KT / VT, or (size_t)-1 */
    size_t group; /* the kv head whose group is in QG / GG, or (size_t)-1 */
    size_t blk;   /* the key block (kh nblocks + j / COLS) in row / row2, or (size_t)-1 */
    /* host: the kv head whose rows the counter leaf's tree-order copies
       hold (repdl__attn_tree_sum), or (size_t)-1: vtree in VT (the
       forward's values; the backward's second phase: output gradients),
       kttree in KT (the second phase: queries), ktree in row (the first
       phase: keys) */
    size_t vtree, kttree, ktree;
    size_t nrow;  /* floats of row (and of row2) */
    int xtree;    /* KT and VT hold their d rows in the counter leaf's tree order
                     (repdl__attn_xt_tree), not in order */
    void *block;
} repdl__attn_ws;

/* The row stride of KT and VT: nk + REPDL__ATTN_KPAD. */
REPDL_FN size_t repdl__attn_ldt(const repdl__attn *a) { return a->s.nk + REPDL__ATTN_KPAD; }

/* *x rounded up to a multiple of 16 floats (64 bytes), or 1 when that
   would not fit (repdl__size_add's bound): the workspace's regions start
   on 64-byte boundaries (repdl__align64), where the vector kernels' loads
   of a whole 16-float row stay within one cache line (at a multiple of 16
   floats from malloc's 16-byte boundary instead, the backward's dots ran
   62 MAC/ns against 72: docs/attention.md, "Aligned workspaces"). */
REPDL_FN int repdl__attn_up16(size_t *x)
{
    if (repdl__size_add(x, 15)) return 1;
    *x &= ~(size_t)15;
    return 0;
}

/* The floats of KT (and of VT) and of row (and of row2, and the bytes of
   use) in a workspace, each a multiple of 16: *kt, *n; 1 when one does not
   fit (repdl__size_mul's bound). */
REPDL_FN int repdl__attn_ws_sizes(const repdl__attn *a, int backward, size_t *kt, size_t *n)
{
    size_t rows = a->G, ldt = a->s.nk, qg, blk;
    *n = a->s.nk, *kt = a->s.d;
    if (repdl__size_mul(&rows, a->s.nq)) return 1;
    blk = rows;
    if (repdl__size_add(&blk, REPDL__ATTN_PAD) || repdl__size_mul(&blk, REPDL__ATTN_COLS)) return 1;
    if (backward && blk > *n) *n = blk;
    if (repdl__size_add(&ldt, REPDL__ATTN_KPAD) || repdl__size_mul(kt, ldt)) return 1;
    qg = rows;
    if (repdl__size_mul(&qg, a->s.d)) return 1;
    if (backward && qg > *kt) *kt = qg;
    return repdl__attn_up16(kt) || repdl__attn_up16(n);
}

/* Bytes of one workspace, a multiple of 64; 0 when that does not fit in
   size_t. */
REPDL_FN size_t repdl__attn_ws_bytes(const repdl__attn *a, int backward)
{
    size_t n, kt, t, b;
    if (repdl__attn_ws_sizes(a, backward, &kt, &n)) return 0;
    t = kt;
    if (repdl__size_add(&t, kt) || repdl__size_add(&t, n) || repdl__size_add(&t, n) ||
        repdl__size_add(&t, REPDL__ATTN_SCRATCH) || repdl__size_add(&t, 64))
        return 0;
    b = t * sizeof(float) + REPDL__ATTN_COLS * sizeof(repdl__tree);
    if (b < t * sizeof(float) || b + n < b || b + n + 63 < b + n) return 0;
    return (b + n + 63) & ~(size_t)63; /* the next workspace 64-byte aligned too */
}

/* Lays a workspace out in block (repdl__attn_ws_bytes(a, backward)
   bytes, which fit: checked before; 64-byte aligned for the regions to be;
   the device launchers carve one per device thread out of one
   allocation). */
REPDL_FN void repdl__attn_ws_attach(repdl__attn_ws *w, const repdl__attn *a, int backward,
                                    void *block)
{
    size_t n, kt;
    char *p = (char *)block;
    (void)repdl__attn_ws_sizes(a, backward, &kt, &n);
    w->block = block;
    w->tr = (repdl__tree *)(void *)p;
    p += REPDL__ATTN_COLS * sizeof(repdl__tree);
    w->T = (float *)(void *)p;
    w->KT = w->T + REPDL__ATTN_SCRATCH;
    w->VT = w->KT + kt;
    w->row = w->VT + kt;
    w->row2 = w->row + n;
    w->use = (unsigned char *)(void *)(w->row2 + n);
    w->head = w->group = w->blk = w->vtree = w->kttree = w->ktree = (size_t)-1;
    w->nrow = n;
    w->rowq = NULL;
    w->useq = NULL;
    w->xtree = 0;
}

/* The host's workspace: malloc (REPDL__ALLOC), laid out from the
   block's first 64-byte boundary; 0, or -1 out of memory. */
REPDL_FN int repdl__attn_ws_init(repdl__attn_ws *w, const repdl__attn *a, int backward)
{
    size_t bytes = repdl__attn_ws_bytes(a, backward), extra = 0;
    void *block, *base;
#if REPDL__ATTN_VEC
    /* the rows of repdl__attn_fwd_range, after the block (bytes a multiple
       of 64); none when they would not fit */
    if (bytes && a->s.nk <= ((size_t)-1 - bytes) / (REPDL__ATTN_Q * (sizeof(float) + 1)) / 2)
        extra = REPDL__ATTN_Q * a->s.nk * (sizeof(float) + 1);
#endif
    block = bytes && bytes + extra + 63 > bytes + extra ? REPDL__ALLOC(bytes + extra + 63) : NULL;
    if (!block) return -1;
    base = repdl__align64(block);
    repdl__attn_ws_attach(w, a, backward, base);
    w->block = block; /* what repdl__attn_ws_free frees */
#if REPDL__ATTN_VEC
    if (extra) {
        w->rowq = (float *)(void *)((char *)base + bytes);
        w->useq = (unsigned char *)(w->rowq + REPDL__ATTN_Q * a->s.nk);
    }
#endif
    return 0;
}

REPDL_FN void repdl__attn_ws_free(repdl__attn_ws *w)
{
    free(w->block);
    w->block = NULL;
}

#if REPDL__ATTN_VEC
/* dst[c ldd + r] = src[r lds + c], r, c < 16: a tile of 16 x 16 floats
   moved, no value changed (whole rows loaded, columns stored; host only:
   on the device the unrolled tile doubled the PTX). */
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
/* The same tile in AVX-512F registers: 16 rows loaded, three rounds of
   interleaves (pairs of floats, of float pairs, of 128-bit quarters, then
   quarters again), 16 rows stored; bits moved, none computed (the
   portable form below stores each float alone; docs/attention.md). */
#if defined(__GNUC__) && !defined(__clang__) /* as around the exp kernels below */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
__attribute__((target("avx512f"), noinline, unused)) static void
repdl__attn_tr16_avx512(const float *src, size_t lds, float *dst, size_t ldd)
{
    __m512 r[16], t[16];
    int i;
    for (i = 0; i < 16; i++) r[i] = _mm512_loadu_ps(src + (size_t)i * lds);
    for (i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    for (i = 0; i < 16; i += 4) {
        r[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
        r[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
        r[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3])));
        r[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3])));
    }
    for (i = 0; i < 4; i++) {
        t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0x88);
        t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0xdd);
        t[i + 8] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0x88);
        t[i + 12] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0xdd);
    }
    for (i = 0; i < 8; i++) {
        r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
        r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
    }
    for (i = 0; i < 16; i++) _mm512_storeu_ps(dst + (size_t)i * ldd, r[i]);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif
REPDL_FN void repdl__attn_tr16(const float *src, size_t lds, float *dst, size_t ldd)
{
    float t[16][16];
    int r, c;
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
    if (repdl__attn_visa() == 2) {
        repdl__attn_tr16_avx512(src, lds, dst, ldd);
        return;
    }
#endif
    for (r = 0; r < 16; r++) memcpy(t[r], src + (size_t)r * lds, sizeof t[r]);
    for (c = 0; c < 16; c++)
        for (r = 0; r < 16; r++) dst[(size_t)c * ldd + (size_t)r] = t[r][c];
}
#endif

/* Whether KT and VT take their d rows in the counter leaf's tree order
   (repdl__attn_pow2_rows of the plan of d rows): on AVX-512F for the
   dots of 4 rows at a time (w->rowq, d 16, 32 or 64), which then read
   them in sequence (repdl__attn_vdots4; 16-24% faster than in the plan's
   order at 128 and 256 keys).  Every reader of KT and VT under these
   conditions is repdl__attn_vdots4. */
REPDL_FN int repdl__attn_xt_tree(const repdl__attn *a, const repdl__attn_ws *w)
{
#if REPDL__ATTN_VEC && defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
    return w->rowq && (a->s.d == 16 || a->s.d == 32 || a->s.d == 64) && repdl__attn_visa() == 2;
#else
    (void)a, (void)w;
    return 0;
#endif
}

/* KT[t][j] = K[j][t] (and VT from V) for the kv head kh = b hkv + h,
   row t at pos[t]: t, or its place in tree order (repdl__attn_xt_tree). */
REPDL_FN void repdl__attn_load_head(const repdl__attn *a, repdl__attn_ws *w, size_t kh, int with_v)
{
    size_t d = a->s.d, nk = a->s.nk, ldt = repdl__attn_ldt(a), j, t, pos[64];
    const float *K = REPDL__OFFSET(a->k, kh * a->R * d), *V = REPDL__OFFSET(a->v, kh * a->R * d);
    if (w->head == kh) return;
    w->xtree = repdl__attn_xt_tree(a, w);
#if REPDL__ATTN_VEC
    if (w->xtree) {
        repdl__attn_pow2 g;
        size_t s, i;
        repdl__attn_pow2_plan(d, &g);
        for (s = 0; s < g.nsub; s++)
            for (i = 0; i < 4; i++) pos[g.R[s] + (i ? g.off[i - 1] : 0)] = 4 * s + i;
    } else
#endif
        for (t = 0; t < d && t < 64; t++) pos[t] = t;
#if REPDL__ATTN_VEC
    if (d % 16 == 0 && nk % 16 == 0) { /* whole tiles */
        for (j = 0; j < nk; j += 16)
            for (t = 0; t < d; t += 16) {
                if (w->xtree) { /* the tile's 16 rows to their places */
                    float tile[16 * 16];
                    size_t i, u;
                    for (u = 0; u < (size_t)(with_v ? 2 : 1); u++) {
                        repdl__attn_tr16((u ? V : K) + j * d + t, d, tile, 16);
                        for (i = 0; i < 16; i++)
                            memcpy((u ? w->VT : w->KT) + pos[t + i] * ldt + j, tile + 16 * i, 16 * sizeof(float));
                    }
                    continue;
                }
                repdl__attn_tr16(K + j * d + t, d, w->KT + t * ldt + j, ldt);
                if (with_v) repdl__attn_tr16(V + j * d + t, d, w->VT + t * ldt + j, ldt);
            }
    } else
#endif
    {
        for (j = 0; j < nk; j++)
            for (t = 0; t < d; t++) w->KT[(t < 64 ? pos[t] : t) * ldt + j] = K[j * d + t];
        if (with_v)
            for (j = 0; j < nk; j++)
                for (t = 0; t < d; t++) w->VT[(t < 64 ? pos[t] : t) * ldt + j] = V[j * d + t];
    }
    for (t = 0; t < d; t++) /* the pad: read by repdl__attn_dots, never used */
        for (j = nk; j < ldt; j++) {
            w->KT[t * ldt + j] = 0.0f;
            if (with_v) w->VT[t * ldt + j] = 0.0f;
        }
    w->head = kh;
    w->group = w->kttree = (size_t)-1; /* QG, GG (or tree-order rows) overwritten */
    if (with_v) w->vtree = (size_t)-1;
}

/* use[j] for j < n: key j seen by query i of batch entry b. */
REPDL_FN void repdl__attn_seen_row(const repdl__attn *a, size_t b, size_t i, size_t n,
                                   unsigned char *use)
{
    size_t j, nk = a->s.nk;
    const unsigned char *kk = a->keep ? a->keep + b * nk : NULL;
    const float *mk = a->mask ? a->mask + (b * a->s.nq + i) * nk : NULL;
    if (!kk && !mk) { /* every key: one memset (gcc had written the loop a byte a store) */
        memset(use, 1, n);
        return;
    }
    for (j = 0; j < n; j++)
        use[j] = (unsigned char)((!kk || kk[j] != 0) &&
                                 (!mk || repdl__asuint(mk[j]) != 0xff800000u));
}

/* The keys a row may see: all nk, or the causal prefix. */
REPDL_FN size_t repdl__attn_nseen(const repdl__attn *a, size_t i)
{
    size_t e = a->s.q_pos0 + i + 1;
    return a->s.causal && e < a->s.nk ? e : a->s.nk;
}

/* sc[j] = dot(x, column j of XT) for j < n (XT: d x nk, the transposed
   keys or values): the canonical dot of d terms, 64 keys at a time. */
REPDL_FN void repdl__attn_dots(const repdl__attn *a, repdl__attn_ws *w, const float *x,
                               const float *XT, size_t n, float *sc)
{
    size_t j0;
    for (j0 = 0; j0 < n; j0 += REPDL__ATTN_COLS) {
        size_t nc = n - j0 < REPDL__ATTN_COLS ? n - j0 : REPDL__ATTN_COLS;
#if REPDL__ATTN_VEC
        if (nc % REPDL__ATTN_VW && a->s.d <= REPDL_SUM_LEAF) {
            /* the last keys as a whole vector of 16 (columns past n read
               from KT's pad or later keys, computed and dropped) */
            size_t full = nc - nc % REPDL__ATTN_VW;
            float t16[REPDL__ATTN_VW];
            if (full)
                repdl__attn_wcols(a->s.d, full, x, NULL, XT + j0, repdl__attn_ldt(a), w->T, w->tr,
                                  sc + j0);
            repdl__attn_vleaf(0, a->s.d, REPDL__ATTN_VW, x, NULL, XT + j0 + full, repdl__attn_ldt(a),
                              t16);
            memcpy(sc + j0 + full, t16, (nc - full) * sizeof(float));
            continue;
        }
#endif
        repdl__attn_wcols(a->s.d, nc, x, NULL, XT + j0, repdl__attn_ldt(a), w->T, w->tr, sc + j0);
    }
}

#if REPDL__ATTN_VEC
/* The canonical sum of x[0..n), 1 <= n <= REPDL_SUM_LEAF (one leaf):
   the bits of repdl__tree_leaf's, which pads the terms with -0 to 1024
   (x + -0 == x for every x).  Here the padding stops at 64 nv rows, nv
   the power of two >= n / 64: a lane's vertical tree over rows v >= nv
   is -0 there, so the adjacent-pairs tree of the first nv rows has its
   bits; then the lane fold as repdl__sum_leaf_full_f32 (h = 32, 16,
   then repdl__sum_fold16_f32).  Each addition is the same one for every
   lane, so the loops may run at any vector width. */
REPDL_FN float repdl__attn_lsum(size_t n, const float *x)
{
    float buf[REPDL_SUM_LEAF], b[16];
    size_t nv = 1, s, v, l;
    while (nv * REPDL_SUM_LANES < n) nv *= 2;
    memcpy(buf, x, n * sizeof(float));
    for (l = n; l < nv * REPDL_SUM_LANES; l++) buf[l] = -0.0f;
    for (s = 1; s < nv; s *= 2)
        for (v = 0; v + s < nv; v += 2 * s)
            for (l = 0; l < REPDL_SUM_LANES; l++)
                buf[v * REPDL_SUM_LANES + l] =
                    repdl__fadd(buf[v * REPDL_SUM_LANES + l], buf[(v + s) * REPDL_SUM_LANES + l]);
    for (l = 0; l < 16; l++)
        b[l] = repdl__fadd(repdl__fadd(buf[l], buf[l + 32]), repdl__fadd(buf[l + 16], buf[l + 48]));
    return repdl__sum_fold16_f32(b);
}

/* dot(x, y) over d terms, the canonical one (repdl__attn_wcols(d, 1, ..)'s
   bits): through repdl__attn_lsum for d <= REPDL_SUM_LEAF, the products
   rounded in a buffer first (never fused with a sum). */
REPDL_FN float repdl__attn_rowdot(repdl__attn_ws *w, size_t d, const float *x, const float *y)
{
    float r;
    if (d <= REPDL_SUM_LEAF) {
        float p[REPDL_SUM_LEAF];
        size_t t;
        for (t = 0; t < d; t++) p[t] = repdl__fmul(x[t], y[t]);
        REPDL__MATERIALIZE(p);
        return repdl__attn_lsum(d, p);
    }
    repdl__attn_wcols(d, 1, x, NULL, y, 1, w->T, w->tr, &r);
    return r;
}
#endif

/* The scores of row (b, hh, i), j < n: s_j, and use[j]; dotted: sc
   holds the dots already (repdl__attn_vdots4); a->scores set (the
   backward's _scores form): s_j copied from the forward's saved row.  With kmax not NULL, also
   repdl__attn_fwd_pre's max key and NaN flag (repdl__attn_rowpass_body). */
REPDL_FN void repdl__attn_scores(const repdl__attn *a, repdl__attn_ws *w, size_t b, size_t hh,
                                 size_t i, size_t n, float *sc, unsigned char *use, int dotted,
                                 uint32_t *kmax, uint32_t *nan)
{
    size_t d = a->s.d;
    const float *qi = a->q + ((b * a->s.hq + hh) * a->s.nq + i) * d;
    const float *mk = a->mask ? a->mask + (b * a->s.nq + i) * a->s.nk : NULL;
    repdl__attn_load_head(a, w, b * a->s.hkv + hh / a->G, a->dout != NULL);
    repdl__attn_seen_row(a, b, i, n, use);
    if (a->scores) { /* the backward from the forward's saved s_j (set only there: kmax NULL) */
        const float *sv = a->scores + ((b * a->s.hq + hh) * a->s.nq + i) * a->s.nk;
        size_t j;
        for (j = 0; j < n; j++) sc[j] = sv[j];
        return;
    }
    if (!dotted) repdl__attn_dots(a, w, qi, w->KT, n, sc);
    /* no mask, no padding: every key below n is seen */
#if REPDL__ATTN_VEC
    repdl__attn_rowpass(n, sc, a->scale, mk, !a->mask && !a->keep ? NULL : use, kmax, nan);
#else
    repdl__attn_rowpass_body(n, sc, a->scale, mk, !a->mask && !a->keep ? NULL : use, kmax, nan);
#endif
}

/* The saved scores of row u (the _scores forms): s_j of the seen keys
   (a NaN as 0x7fc00000), -inf for the unseen ones and for j >= n, up
   to nk. */
REPDL_FN void repdl__attn_save_scores(const repdl__attn *a, size_t u, size_t n, const float *sc,
                                      const unsigned char *use)
{
    size_t j, nk = a->s.nk;
    float *o = a->o_scores + u * nk;
    for (j = 0; j < n; j++) { /* selects on the bits: the loop vectorizes */
        uint32_t x = repdl__asuint(sc[j]), k = 0u - (uint32_t)(use[j] != 0),
                 nan = 0u - (uint32_t)((x & 0x7fffffffu) > 0x7f800000u);
        x = (x & ~nan) | (0x7fc00000u & nan);
        o[j] = repdl__asfloat((x & k) | (0xff800000u & ~k));
    }
    for (; j < nk; j++) o[j] = repdl__asfloat(0xff800000u);
}

/* The forward of row u = (b hq + hh) nq + i up to its P V sum: the
   scores, then the p_j in sc, the seen keys in use, *n, *m and *l; 0 when
   the row is written already (no key seen, or an infinite or NaN max),
   1 when out = RN(sum / l) remains (repdl__attn_fwd_post).  dotted: sc
   holds the row's dots already. */
REPDL_FN int repdl__attn_fwd_pre(const repdl__attn *a, repdl__attn_ws *w, size_t u, float *sc,
                                 unsigned char *use, size_t *pn, float *pm, float *pl, int dotted)
{
    size_t nq = a->s.nq, d = a->s.d, i = u % nq, bh = u / nq, b = bh / a->s.hq,
           hh = bh % a->s.hq, n = repdl__attn_nseen(a, i), c;
    float *o = a->o_out + u * d, m = -0.0f;
    uint32_t kmax = 0, nan = 0;
    repdl__attn_scores(a, w, b, hh, i, n, sc, use, dotted, &kmax, &nan);
    if (a->o_scores) repdl__attn_save_scores(a, u, n, sc, use);
    /* m: the largest seen score in the order of the keys below (-0 < +0;
       equal scores have equal bits); nan: a seen score is a NaN.  key(x)
       is x's bits made an unsigned order (negative: all bits flipped;
       otherwise the sign bit set): 0 is no non-NaN float's key, so kmax
       stays 0 exactly when no key is seen (repdl__attn_rowpass_body). */
    if (!kmax && !nan) {
        for (c = 0; c < d; c++) o[c] = 0.0f;
        if (a->o_lse) a->o_lse[u] = repdl__asfloat(0xff800000u);
        return 0;
    }
    m = repdl__asfloat((kmax >> 31) ? (kmax & 0x7fffffffu) : ~kmax);
    if (nan || (repdl__asuint(m) & 0x7fffffffu) >= 0x7f800000u) {
        for (c = 0; c < d; c++) o[c] = repdl__nanf();
        if (a->o_lse) a->o_lse[u] = repdl__nanf();
        return 0;
    }
#if REPDL__ATTN_VEC
    /* no mask, no padding: every key below n is seen */
    repdl__attn_exp(n, sc, m, !a->mask && !a->keep ? NULL : use);
#else
    {
        size_t j;
        for (j = 0; j < n; j++) sc[j] = repdl__fsub(sc[j], m);
        REPDL__CR_ARRAY(n, sc, sc, repdl__exp_lane, repdl_exp_f32);
        for (j = 0; j < n; j++)
            if (!use[j]) sc[j] = -0.0f;
    }
#endif
#if REPDL__ATTN_VEC
    if (n <= REPDL_SUM_LEAF) { /* one leaf */
        *pl = repdl__attn_lsum(n, sc); /* l >= 1: the max's term is exp(0) = 1 */
    } else
#endif
    {
        repdl__tree t;
        size_t j0, len;
        repdl__tree_init(&t);
        REPDL__LEAVES(n, j0, len) repdl__tree_leaf_copy(&t, sc + j0, len);
        *pl = repdl__tree_root(&t);
    }
    *pn = n;
    *pm = m;
    return 1;
}

/* out of row u (holding the sums over j of RN(p_j v_j[c])) divided by l,
   and lse. */
REPDL_FN void repdl__attn_fwd_post(const repdl__attn *a, size_t u, float m, float l)
{
    size_t c, d = a->s.d;
    float *o = a->o_out + u * d;
    for (c = 0; c < d; c++) o[c] = repdl__canon(repdl__fdiv(o[c], l));
    if (a->o_lse) a->o_lse[u] = repdl__canon(repdl__fadd(m, repdl_log_f32(l)));
}

/* The values of the kv head of row u. */
REPDL_FN const float *repdl__attn_vrows(const repdl__attn *a, size_t u)
{
    size_t bh = u / a->s.nq, b = bh / a->s.hq, hh = bh % a->s.hq;
    return REPDL__OFFSET(a->v, (b * a->s.hkv + hh / a->G) * a->R * a->s.d);
}

/* The columns c0 .. c0 + nc - 1 of the sums of nq4 slots over the len
   rows M (stride and width d) into out[q] + c0, through
   repdl__attn_vleafq; on AVX-512F, when every slot sees every row and len
   is a power of two from 4 to 1024 (no mask, no padding, not causal),
   through the counter leaf with the rows in its tree order: copied (all
   d columns) into buf unless *cached == key says buf holds them already
   (then *cached = key), and read in sequence; the same bits.  buf NULL:
   no copy (repdl__attn_vleafq_zp's kernels).  Returns the columns done
   from c0. */
#if REPDL__ATTN_VEC
REPDL_FN size_t repdl__attn_tree_sum(size_t len, size_t d, size_t c0, size_t nc, size_t nq4,
                                     const float *const *W, const size_t *lo, const size_t *hi,
                                     const float *M, float *buf, size_t *cached, size_t key, size_t avail,
                                     repdl__attn_pow2 *plan, float *const *out)
{
    float *oc[REPDL__ATTN_Q];
    size_t q;
    for (q = 0; q < nq4; q++) oc[q] = out[q] + c0;
#if defined(__x86_64__) && !defined(REPDL_ATTN_NO_DISPATCH)
    {
        size_t L = buf && nc >= 32 && repdl__attn_visa() == 2 ? repdl__attn_pow2_len(len, nq4, lo, hi, avail) : 0;
        if (L && L <= 1024) {
            size_t done, ck = key * 2048 + L; /* the rows' copy: kv head and length */
            if (plan->len != L) repdl__attn_pow2_plan(L, plan);
            if (*cached != ck) {
                repdl__attn_pow2_rows(plan, d, M, d, buf);
                *cached = ck;
            }
            done = repdl__attn_vleafq_tree_avx512(plan, nc, nq4, W, buf + c0, d, oc);
            return repdl__attn_counter_rest(L, done, len, nc, nq4, W, lo, hi, M + c0, d, oc);
        }
    }
#endif
    (void)buf, (void)cached, (void)key, (void)plan;
    return repdl__attn_vleafq_zp(len, nc, nq4, W, lo, hi, M + c0, d, oc, avail);
}

/* The column tiles of the backward's sums over rows (dq over keys, dk
   and dv over queries): 32 columns (a pass of the counter leaf) where d
   is a multiple of 32, so that a tile of M's rows (at 256 rows, 32 KB)
   stays in L1 over the calls of a block of slots; else all d. */
REPDL_FN size_t repdl__attn_ctile(size_t d) { return d % 32 ? d : 32; }

/* The P V sums of nq4 rows of one head from row u: in the forward the
   values' tree-order copy goes to VT, which the forward does not use. */
REPDL_FN size_t repdl__attn_pv(const repdl__attn *a, repdl__attn_ws *w, size_t u, size_t len, size_t nq4,
                               const float *const *W, const size_t *lo, const size_t *hi, float *const *out)
{
    size_t bh = u / a->s.nq, kh = bh / a->s.hq * a->s.hkv + bh % a->s.hq / a->G;
    const float *V = repdl__attn_vrows(a, u);
    repdl__attn_pow2 plan;
    if (a->dout) return repdl__attn_vleafq(len, a->s.d, nq4, W, lo, hi, V, a->s.d, out);
    plan.len = 0;
    return repdl__attn_tree_sum(len, a->s.d, 0, a->s.d, nq4, W, lo, hi, V, w->VT, &w->vtree, kh, 0, &plan, out);
}
#endif

/* The forward of row u = (b hq + hh) nq + i. */
REPDL_FN void repdl__attn_fwd_row(const repdl__attn *a, repdl__attn_ws *w, size_t u)
{
    size_t n;
    float m, l;
    w->blk = w->ktree = (size_t)-1; /* row overwritten */
    if (!repdl__attn_fwd_pre(a, w, u, w->row, w->use, &n, &m, &l, 0)) return;
    repdl__attn_wsum(n, a->s.d, w->row, w->use, repdl__attn_vrows(a, u), a->s.d, w->T, w->tr,
                     a->o_out + u * a->s.d);
    repdl__attn_fwd_post(a, u, m, l);
}

/* The forward of the rows [lo, hi), on the host: rows of one head 4 at a
   time when the vector leaf is there (repdl__attn_vleafq: each row of V
   read once for the 4, the same bits as repdl__attn_fwd_row's), each row
   alone otherwise.  A row takes the shared sum when it needs its P V sum,
   sees every key of its range (no mask or padding hides one) and has at
   most 1024 of them (one leaf). */
REPDL_FN void repdl__attn_fwd_range(const repdl__attn *a, repdl__attn_ws *w, size_t lo, size_t hi)
{
    size_t u = lo;
#if REPDL__ATTN_VEC
    size_t nk = a->s.nk, d = a->s.d, nq = a->s.nq;
    while (w->rowq && u < hi) {
        size_t cnt = hi - u, q, k = 0, len = 0, done, nn[REPDL__ATTN_Q], zlo[REPDL__ATTN_Q] = {0, 0, 0, 0},
               hiq[REPDL__ATTN_Q];
        float mm[REPDL__ATTN_Q], ll[REPDL__ATTN_Q], *outq[REPDL__ATTN_Q];
        const float *Wq[REPDL__ATTN_Q];
        size_t uq[REPDL__ATTN_Q];
        if (cnt > REPDL__ATTN_Q) cnt = REPDL__ATTN_Q;
        int dotted = d == 16 || d == 32 || d == 64;
        if (cnt > nq - u % nq) cnt = nq - u % nq; /* one head */
        w->blk = (size_t)-1;
        if (dotted) { /* the dots of the cnt rows together */
            size_t bh = u / nq, nmax = 0;
            const float *xq[REPDL__ATTN_Q];
            float *sq[REPDL__ATTN_Q];
            repdl__attn_load_head(a, w, bh / a->s.hq * a->s.hkv + bh % a->s.hq / a->G, a->dout != NULL);
            for (q = 0; q < cnt; q++) {
                size_t e = repdl__attn_nseen(a, (u + q) % nq);
                xq[q] = a->q + (u + q) * d;
                sq[q] = w->rowq + q * nk;
                if (e > nmax) nmax = e;
            }
            repdl__attn_vdots4(d, cnt, xq, w->KT, repdl__attn_ldt(a), 0, nmax, sq, w->xtree);
        }
        for (q = 0; q < cnt; q++) {
            float *sc = w->rowq + q * nk;
            unsigned char *use = w->useq + q * nk;
            size_t j;
            if (!repdl__attn_fwd_pre(a, w, u + q, sc, use, &nn[q], &mm[q], &ll[q], dotted)) continue;
            j = !a->mask && !a->keep ? nn[q] : 0; /* no mask, no padding: all seen */
            for (; j < nn[q] && use[j]; j++) {}
            if (j < nn[q] || nn[q] > REPDL_SUM_LEAF) { /* alone */
                repdl__attn_wsum(nn[q], d, sc, use, repdl__attn_vrows(a, u + q), d, w->T, w->tr,
                                 a->o_out + (u + q) * d);
                repdl__attn_fwd_post(a, u + q, mm[q], ll[q]);
                continue;
            }
            Wq[k] = sc;
            hiq[k] = nn[q];
            outq[k] = a->o_out + (u + q) * d;
            uq[k] = q;
            if (nn[q] > len) len = nn[q];
            k++;
        }
        if (k) {
            done = repdl__attn_pv(a, w, u, len, k, Wq, zlo, hiq, outq);
            for (q = 0; q < k; q++) {
                if (done < d)
                    repdl__attn_wcols(hiq[q], d - done, Wq[q], NULL, repdl__attn_vrows(a, u) + done, d,
                                      w->T, w->tr, outq[q] + done);
                repdl__attn_fwd_post(a, u + uq[q], mm[uq[q]], ll[uq[q]]);
            }
        }
        u += cnt;
    }
#endif
    for (; u < hi; u++) repdl__attn_fwd_row(a, w, u);
}

/* Backward, first phase, row u: P and dS of the row (all nk columns, the
   unseen ones -0), and dq.  dotted: the row's P holds its dots with the
   keys (unless the scores are saved: repdl__attn_scores reads them), and
   dp (nk floats) those of dout with the values, already
   (repdl__attn_vdots4); otherwise dp is row2.  with_dq 0: dq is left to
   the caller (use holds the row's seen keys on return). */
REPDL_FN void repdl__attn_bwd_row_dp(const repdl__attn *a, repdl__attn_ws *w, size_t u, float *dp,
                                     int dotted, int with_dq)
{
    size_t nq = a->s.nq, nk = a->s.nk, d = a->s.d, i = u % nq, bh = u / nq, b = bh / a->s.hq,
           hh = bh % a->s.hq, n = repdl__attn_nseen(a, i), j, c;
    const float *go = a->dout + u * d, *o = a->out + u * d;
    float *P = REPDL__OFFSET(a->P, (u - a->prow) * nk), *dS = REPDL__OFFSET(a->dS, (u - a->prow) * nk),
          lse = a->lse[u], D;
    w->blk = (size_t)-1; /* row2 overwritten */
    if (!dotted) dp = w->row2;
    repdl__attn_scores(a, w, b, hh, i, n, P, w->use, dotted, NULL, NULL);
#if REPDL__ATTN_VEC
    D = repdl__attn_rowdot(w, d, go, o);
#else
    repdl__attn_wcols(d, 1, go, NULL, o, 1, w->T, w->tr, &D);
#endif
    if (!dotted) repdl__attn_dots(a, w, go, w->VT, n, dp);
#if REPDL__ATTN_VEC
    repdl__attn_exp(n, P, lse, NULL);
#else
    for (j = 0; j < n; j++) P[j] = repdl__fsub(P[j], lse);
    REPDL__CR_ARRAY(n, P, P, repdl__exp_lane, repdl_exp_f32);
#endif
    for (j = 0; j < n; j++) { /* unseen: both -0 (selects: the loop vectorizes) */
        uint32_t k = 0u - (uint32_t)(w->use[j] != 0);
        float ds = repdl__fmul(P[j], repdl__fsub(dp[j], D));
        P[j] = repdl__asfloat((repdl__asuint(P[j]) & k) | (0x80000000u & ~k));
        dS[j] = repdl__asfloat((repdl__asuint(ds) & k) | (0x80000000u & ~k));
    }
    for (j = n; j < nk; j++) P[j] = dS[j] = -0.0f;
    if (a->dq && with_dq) {
        float *g = a->dq + u * d;
        repdl__attn_wsum(n, d, dS, w->use, REPDL__OFFSET(a->k, (b * a->s.hkv + hh / a->G) * a->R * d), d,
                         w->T, w->tr, g);
        for (c = 0; c < d; c++) g[c] = repdl__canon(repdl__fmul(a->scale, g[c]));
    }
}

REPDL_FN void repdl__attn_bwd_row(const repdl__attn *a, repdl__attn_ws *w, size_t u)
{
    repdl__attn_bwd_row_dp(a, w, u, NULL, 0, 1);
}

/* The columns c0 .. c0 + nc - 1 of the dq sums of nq4 rows over the len
   keys K of kv head kh (repdl__attn_tree_sum): the keys' tree-order copy
   goes to row when it holds them (the first phase does not use row;
   w->blk reset, so that the second phase repacks it). */
#if REPDL__ATTN_VEC
REPDL_FN size_t repdl__attn_dq_sum(const repdl__attn *a, repdl__attn_ws *w, size_t kh, size_t len,
                                   size_t c0, size_t nc, size_t nq4, const float *const *W,
                                   const size_t *lo, const size_t *hi, const float *K,
                                   repdl__attn_pow2 *plan, float *const *out)
{
    /* the rows of dS past a row's keys are -0, up to nk (the counter
       leaf's padding, repdl__attn_pow2_len), as far as row holds them */
    size_t done, avail = w->nrow / a->s.d < a->s.nk ? w->nrow / a->s.d : a->s.nk;
    if (len > avail) /* no copy, and no padding */
        return repdl__attn_tree_sum(len, a->s.d, c0, nc, nq4, W, lo, hi, K, NULL, NULL, kh, 0, plan, out);
    done = repdl__attn_tree_sum(len, a->s.d, c0, nc, nq4, W, lo, hi, K, w->row, &w->ktree, kh, avail, plan, out);
    if (w->ktree != (size_t)-1) w->blk = (size_t)-1; /* row overwritten */
    return done;
}
#endif

/* Backward, first phase, the rows [lo, hi): on the host with the vector
   leaf and d = 16, 32 or 64, the dots of up to 4 rows of one head at a
   time (repdl__attn_vdots4: each row of the transposed keys and values
   read once for the 4; the bits of repdl__attn_dots), and the dq of those
   that see every key below their nseen (at most 1024: one leaf) together
   (repdl__attn_vleafq: each key row read once for the 4), as
   repdl__attn_fwd_range does for out.  The order of the work is chosen
   for the caches, never changing an operation: per head, all the dots
   with the keys, a tile of keys at a time, then all those with the
   values; then blocks of 16 groups of 4 rows, each block's P and dS
   rows, then its dq a column tile at a time. */
REPDL_FN void repdl__attn_bwd_rows(const repdl__attn *a, repdl__attn_ws *w, size_t lo, size_t hi)
{
    size_t u = lo;
#if REPDL__ATTN_VEC
    size_t nq = a->s.nq, nk = a->s.nk, d = a->s.d;
    repdl__attn_pow2 plan; /* the counter leaf's, kept over the calls */
    plan.len = 0;
    while (w->rowq && (d == 16 || d == 32 || d == 64) && u < hi) {
        size_t e = u - u % nq + nq < hi ? u - u % nq + nq : hi, v, t, j0, bh = u / nq,
               kh = bh / a->s.hq * a->s.hkv + bh % a->s.hq / a->G;
        const float *K = REPDL__OFFSET(a->k, kh * a->R * d);
        repdl__attn_load_head(a, w, kh, 1);
        /* the dots of the head's rows [u, e), 4 rows a call: with the keys
           into P's rows (t = 0), then with the values into dS's rows (the
           row's dp, which repdl__attn_bwd_row_dp turns into its dS in
           place); REPDL__ATTN_DTILE keys of KT, then of VT, for all the
           rows, so that the tile is read from L1 call after call */
        for (t = a->scores ? 1 : 0; t < 2; t++) /* saved scores: no dots with the keys */
            for (j0 = 0; j0 < nk; j0 += REPDL__ATTN_DTILE)
                for (v = u; v < e; v += REPDL__ATTN_Q) {
                    size_t cnt = e - v < REPDL__ATTN_Q ? e - v : REPDL__ATTN_Q, q, nmax = 0;
                    const float *xq[REPDL__ATTN_Q];
                    float *sq[REPDL__ATTN_Q];
                    for (q = 0; q < cnt; q++) {
                        size_t ne = repdl__attn_nseen(a, (v + q) % nq);
                        xq[q] = (t ? a->dout : a->q) + (v + q) * d;
                        sq[q] = (t ? a->dS : a->P) + (v + q - a->prow) * nk;
                        if (ne > nmax) nmax = ne;
                    }
                    if (nmax > j0)
                        repdl__attn_vdots4(d, cnt, xq, t ? w->VT : w->KT, repdl__attn_ldt(a), j0,
                                           nmax - j0 < REPDL__ATTN_DTILE ? nmax - j0 : REPDL__ATTN_DTILE, sq,
                                           w->xtree);
                }
        while (u < e) { /* blocks of up to REPDL__ATTN_DQB groups of 4 rows */
            size_t ng, gi, c0, tw = repdl__attn_ctile(d), c, q, gk[REPDL__ATTN_DQB], glen[REPDL__ATTN_DQB],
                   zlo[REPDL__ATTN_Q] = {0, 0, 0, 0}, hiq[REPDL__ATTN_DQB][REPDL__ATTN_Q];
            const float *Wq[REPDL__ATTN_DQB][REPDL__ATTN_Q];
            float *outq[REPDL__ATTN_DQB][REPDL__ATTN_Q];
            for (ng = 0; ng < REPDL__ATTN_DQB && u < e; ng++) {
                size_t cnt = e - u < REPDL__ATTN_Q ? e - u : REPDL__ATTN_Q, k = 0, len = 0;
                for (q = 0; q < cnt; q++) {
                    size_t n = repdl__attn_nseen(a, (u + q) % nq), j;
                    repdl__attn_bwd_row_dp(a, w, u + q, a->dS + (u + q - a->prow) * nk, 1, 0);
                    if (!a->dq) continue;
                    j = !a->mask && !a->keep ? n : 0; /* no mask, no padding: all seen */
                    for (; j < n && w->use[j]; j++) {}
                    if (j < n || n > REPDL_SUM_LEAF) { /* alone */
                        float *g = a->dq + (u + q) * d;
                        repdl__attn_wsum(n, d, a->dS + (u + q - a->prow) * nk, w->use, K, d, w->T, w->tr, g);
                        for (c = 0; c < d; c++) g[c] = repdl__canon(repdl__fmul(a->scale, g[c]));
                        continue;
                    }
                    Wq[ng][k] = a->dS + (u + q - a->prow) * nk;
                    hiq[ng][k] = n;
                    outq[ng][k] = a->dq + (u + q) * d;
                    if (n > len) len = n;
                    k++;
                }
                gk[ng] = k;
                glen[ng] = len;
                u += cnt;
            }
            /* the block's dq, a column tile for all its groups at a time */
            for (c0 = 0; c0 < d; c0 += tw)
                for (gi = 0; gi < ng; gi++) {
                    size_t done;
                    if (!gk[gi]) continue;
                    done = repdl__attn_dq_sum(a, w, kh, glen[gi], c0, tw, gk[gi], Wq[gi], zlo, hiq[gi], K,
                                              &plan, outq[gi]);
                    for (q = 0; done < tw && q < gk[gi]; q++)
                        repdl__attn_wcols(hiq[gi][q], tw - done, Wq[gi][q], NULL, K + c0 + done, d, w->T,
                                          w->tr, outq[gi][q] + c0 + done);
                }
            for (gi = 0; gi < ng; gi++)
                for (q = 0; q < gk[gi]; q++)
                    for (c = 0; c < d; c++)
                        outq[gi][q][c] = repdl__canon(repdl__fmul(a->scale, outq[gi][q][c]));
        }
    }
#endif
    for (; u < hi; u++) repdl__attn_bwd_row(a, w, u);
}

/* Backward, second phase: the group of key row x = (b hkv + h) nk + j in
   QG, GG (KT, VT: its rows in the order r = i G + g) and the dS and P
   columns of the block of REPDL__ATTN_COLS keys holding j in row, row2
   (key-major, a key's G nq rows contiguous at stride G nq + PAD). */
REPDL_FN void repdl__attn_bwd_key_prep(const repdl__attn *a, repdl__attn_ws *w, size_t x)
{
    size_t nq = a->s.nq, nk = a->s.nk, d = a->s.d, G = a->G, j = x % nk, kh = x / nk,
           b = kh / a->s.hkv, h = kh % a->s.hkv, rows = G * nq, r;
    size_t u0 = (b * a->s.hq + h * G) * nq; /* the group's first query row */
    if (w->group != kh) { /* QG, GG: the group's rows in the order r = i G + g */
        for (r = 0; r < rows; r++) {
            size_t src = (u0 + (r % G) * nq + r / G) * d;
            memcpy(w->KT + r * d, a->q + src, d * sizeof(float));
            memcpy(w->VT + r * d, a->dout + src, d * sizeof(float));
        }
        w->head = w->vtree = w->kttree = (size_t)-1; /* KT, VT overwritten */
        w->group = kh;
    }
    {
        size_t nb = (nk + REPDL__ATTN_COLS - 1) / REPDL__ATTN_COLS, jb = j / REPDL__ATTN_COLS;
        if (w->blk != kh * nb + jb) { /* the columns of keys jb COLS .. of dS and P */
            size_t j0 = jb * REPDL__ATTN_COLS, jn = nk - j0 < REPDL__ATTN_COLS ? nk - j0 : REPDL__ATTN_COLS, jj;
            size_t i, g;
            for (i = 0, r = 0; i < nq; i++)
                for (g = 0; g < G; g++, r++) {
                    size_t row = u0 + g * nq + i - a->prow;
                    const float *ds = a->dS + row * nk + j0, *pp = a->P + row * nk + j0;
                    for (jj = 0; jj < jn; jj++) {
                        w->row[jj * (rows + REPDL__ATTN_PAD) + r] = ds[jj];
                        w->row2[jj * (rows + REPDL__ATTN_PAD) + r] = pp[jj];
                    }
                }
            w->blk = kh * nb + jb;
            w->ktree = (size_t)-1;
        }
    }
}

/* use[r], r < G nq: group row r (query r / G) sees key j of batch entry b. */
REPDL_FN void repdl__attn_key_use(const repdl__attn *a, size_t b, size_t j, unsigned char *use)
{
    size_t nq = a->s.nq, nk = a->s.nk, G = a->G, i, g, r;
    int kept = !a->keep || a->keep[b * nk + j] != 0;
    for (i = 0, r = 0; i < nq; i++) {
        const float *mk = a->mask ? a->mask + (b * nq + i) * nk : NULL;
        unsigned char u = (unsigned char)(kept && (!a->s.causal || j <= a->s.q_pos0 + i) &&
                                          (!mk || repdl__asuint(mk[j]) != 0xff800000u));
        if (G == 1) use[r++] = u;
        else
            for (g = 0; g < G; g++, r++) use[r] = u;
    }
}

/* Backward, second phase, key row x = (b hkv + h) nk + j: dk_j and dv_j
   over the G nq query rows of the group. */
REPDL_FN void repdl__attn_bwd_key(const repdl__attn *a, repdl__attn_ws *w, size_t x)
{
    size_t nk = a->s.nk, d = a->s.d, j = x % nk, kh = x / nk, rows = a->G * a->s.nq, c;
    size_t col = (j % REPDL__ATTN_COLS) * (rows + REPDL__ATTN_PAD);
    repdl__attn_bwd_key_prep(a, w, x);
    repdl__attn_key_use(a, kh / a->s.hkv, j, w->use);
    if (a->dk) {
        float *g = a->dk + (kh * a->R + j) * d;
        repdl__attn_wsum(rows, d, w->row + col, w->use, w->KT, d, w->T, w->tr, g);
        for (c = 0; c < d; c++) g[c] = repdl__canon(repdl__fmul(a->scale, g[c]));
    }
    if (a->dv) {
        float *g = a->dv + (kh * a->R + j) * d;
        repdl__attn_wsum(rows, d, w->row2 + col, w->use, w->VT, d, w->T, w->tr, g);
        for (c = 0; c < d; c++) g[c] = repdl__canon(g[c]);
    }
}

/* The backward's key sums over the rows of kv head kh (G == 1: M is the
   head's queries, t = 0, or output gradients, t = 1): their tree-order
   copies go to KT and VT, which the second phase does not use otherwise
   (w->head reset: the first phase reloads them). */
#if REPDL__ATTN_VEC
REPDL_FN size_t repdl__attn_vleafq_rows(const repdl__attn *a, repdl__attn_ws *w, size_t kh, size_t t,
                                        size_t rows, size_t c0, size_t nc, size_t nq4, const float *const *W,
                                        const size_t *lo, const size_t *hi, const float *M, size_t avail,
                                        repdl__attn_pow2 *plan, float *const *out)
{
    size_t done;
    if (a->G != 1) /* no copy: M is the group's rows (QG, GG) already */
        return repdl__attn_tree_sum(rows, a->s.d, c0, nc, nq4, W, lo, hi, M, NULL, NULL, kh, avail, plan, out);
    done = repdl__attn_tree_sum(rows, a->s.d, c0, nc, nq4, W, lo, hi, M, t ? w->VT : w->KT,
                                t ? &w->vtree : &w->kttree, kh, avail, plan, out);
    if (w->vtree != (size_t)-1 || w->kttree != (size_t)-1) w->head = w->group = (size_t)-1; /* KT, VT overwritten */
    return done;
}
#endif

/* Backward, second phase, the key rows [lo, hi).  On the host with the
   vector leaf, up to 4 keys of one block at a time through
   repdl__attn_vleafq (each group row of QG and GG read once for the 4)
   when the group has at most 1024 rows (one leaf) and a key's seen rows
   are one range [f, G nq) (causal, no mask or padding hiding a later
   row): the terms of the rows below f are -0, the definition's, so the
   bits are those of repdl__attn_bwd_key, which computes the other keys.
   Up to 16 keys a step (the packed block): the dk of all of them, a
   column tile at a time, then their dv. */
REPDL_FN void repdl__attn_bwd_keys(const repdl__attn *a, repdl__attn_ws *w, size_t lo, size_t hi)
{
    size_t x = lo;
#if REPDL__ATTN_VEC
    size_t nk = a->s.nk, d = a->s.d, rows = a->G * a->s.nq, ld = rows + REPDL__ATTN_PAD,
           packed = (size_t)-1, jb = 0, /* G == 1: the keys jb .. jb + 15 of head kh packed: kh nk + jb */
           avail = 0; /* the packed columns' rows from 0 (-0 where unseen), or 0 */
    repdl__attn_pow2 plan; /* the counter leaf's, kept over the calls */
    plan.len = 0;
    while (x < hi && rows <= REPDL_SUM_LEAF) {
        size_t cnt = hi - x, j = x % nk, kh = x / nk, b = kh / a->s.hkv, q, k = 0, r, f, c, t, g,
               done, zlo[REPDL__ATTN_VW], zhi[REPDL__ATTN_VW], kj[REPDL__ATTN_VW], alone[REPDL__ATTN_VW],
               na = 0;
        /* the group's first query row (G == 1: the group's rows are the
           head's query rows, r = i: QG and GG are q and dout in place) */
        size_t u0 = (b * a->s.hq + (kh % a->s.hkv) * a->G) * a->s.nq;
        const float *Wd[REPDL__ATTN_VW], *Wp[REPDL__ATTN_VW], *Mk, *Mv;
        float *od[REPDL__ATTN_Q];
        if (cnt > REPDL__ATTN_VW) cnt = REPDL__ATTN_VW;
        if (cnt > nk - j) cnt = nk - j; /* one head */
        if (a->G == 1) {
            Mk = a->q + u0 * d;
            Mv = a->dout + u0 * d;
            jb = j - j % REPDL__ATTN_VW;
            if (cnt > jb + REPDL__ATTN_VW - j) cnt = jb + REPDL__ATTN_VW - j;
            if (packed != kh * nk + jb) {
                /* the dS and P columns of the keys jb .. jb + 15 (to nk),
                   contiguous at stride G nq + PAD (row and row2 hold 64
                   such: repdl__attn_ws_bytes); a key's rows below the first
                   group of 256 holding its first seen row are never read
                   by the vector leaf (causal, no mask or padding: the
                   first seen row grows with the key), all rows are read
                   otherwise */
                size_t je = jb + REPDL__ATTN_VW < nk ? jb + REPDL__ATTN_VW : nk, jj, r0 = 0;
                const float *ds = a->dS + (u0 - a->prow) * nk + jb, *pp = a->P + (u0 - a->prow) * nk + jb;
                if (!a->mask && !a->keep && !(d % REPDL__ATTN_VW) && a->s.causal && jb > a->s.q_pos0)
                    r0 = jb - a->s.q_pos0 < rows ? (jb - a->s.q_pos0) / (4 * REPDL_SUM_LANES) * (4 * REPDL_SUM_LANES) : rows;
                w->blk = w->ktree = (size_t)-1; /* row, row2 overwritten */
                if (je - jb == REPDL__ATTN_VW) { /* whole tiles of 16 rows x 16 keys */
                    for (r = r0; r + REPDL__ATTN_VW <= rows; r += REPDL__ATTN_VW) {
                        if (je + REPDL__ATTN_VW <= nk) {
                            size_t i2;
                            for (i2 = 0; i2 < REPDL__ATTN_VW; i2++) {
                                __builtin_prefetch(ds + (r + i2) * nk + REPDL__ATTN_VW);
                                __builtin_prefetch(pp + (r + i2) * nk + REPDL__ATTN_VW);
                            }
                        }
                        repdl__attn_tr16(ds + r * nk, nk, w->row + r, ld);
                        repdl__attn_tr16(pp + r * nk, nk, w->row2 + r, ld);
                    }
                } else {
                    r = r0 + (rows - r0) / REPDL__ATTN_VW * REPDL__ATTN_VW;
                    for (jj = 0; jj < je - jb; jj++)
                        for (t = r0; t < r; t++) {
                            w->row[jj * ld + t] = ds[t * nk + jj];
                            w->row2[jj * ld + t] = pp[t * nk + jj];
                        }
                }
                for (; r < rows; r++)
                    for (jj = 0; jj < je - jb; jj++) {
                        w->row[jj * ld + r] = ds[r * nk + jj];
                        w->row2[jj * ld + r] = pp[r * nk + jj];
                    }
                packed = kh * nk + jb;
                avail = r0 ? 0 : rows;
            }
        } else {
            if (cnt > REPDL__ATTN_COLS - j % REPDL__ATTN_COLS) /* one block of row, row2 */
                cnt = REPDL__ATTN_COLS - j % REPDL__ATTN_COLS;
            repdl__attn_bwd_key_prep(a, w, x);
            Mk = w->KT;
            Mv = w->VT;
            avail = rows; /* every row of the block's columns */
        }
        for (q = 0; q < cnt; q++) {
            if (!a->mask && !a->keep) { /* seen: the rows of the queries at or after j */
                f = !a->s.causal || j + q <= a->s.q_pos0 ? 0 : (j + q - a->s.q_pos0) * a->G;
                if (f > rows) f = rows;
            } else {
                repdl__attn_key_use(a, b, j + q, w->use);
                for (r = 0; r < rows && !w->use[r]; r++) {}
                for (f = r; r < rows && w->use[r]; r++) {}
                if (r < rows) { /* a hole after the first seen row: alone, below */
                    alone[na++] = x + q;
                    continue;
                }
            }
            if (a->G == 1) { /* packed above */
                Wd[k] = w->row + (j + q - jb) * ld;
                Wp[k] = w->row2 + (j + q - jb) * ld;
            } else {
                Wd[k] = w->row + ((j + q) % REPDL__ATTN_COLS) * ld;
                Wp[k] = w->row2 + ((j + q) % REPDL__ATTN_COLS) * ld;
            }
            zlo[k] = f;
            zhi[k] = rows;
            kj[k] = j + q;
            k++;
        }
        /* dk of the k keys, then their dv, a column tile of all of them at
           a time, 4 keys a call: the tile of M's rows (the tree-order copy
           of q, then of dout) read call after call */
        for (t = 0; t < 2; t++) { /* t = 0: dk, 1: dv */
            float *dst = t ? a->dv : a->dk;
            const float *M = t ? Mv : Mk;
            size_t c0, tw = repdl__attn_ctile(d);
            if (!dst) continue;
            for (c0 = 0; c0 < d; c0 += tw)
                for (g = 0; g < k; g += REPDL__ATTN_Q) {
                    size_t ng = k - g < REPDL__ATTN_Q ? k - g : REPDL__ATTN_Q;
                    const float *const *Wt = (t ? Wp : Wd) + g;
                    for (q = 0; q < ng; q++) od[q] = dst + (kh * a->R + kj[g + q]) * d;
                    done = repdl__attn_vleafq_rows(a, w, kh, t, rows, c0, tw, ng, Wt, zlo + g, zhi + g, M, avail,
                                                   &plan, od);
                    for (q = 0; done < tw && q < ng; q++) { /* the tile's last columns */
                        repdl__attn_key_use(a, b, kj[g + q], w->use);
                        repdl__attn_wcols(rows, tw - done, Wt[q], w->use, M + c0 + done, d, w->T, w->tr,
                                          od[q] + c0 + done);
                    }
                }
            for (q = 0; q < k; q++) {
                float *o = dst + (kh * a->R + kj[q]) * d;
                for (c = 0; c < d; c++) o[c] = repdl__canon(t ? o[c] : repdl__fmul(a->scale, o[c]));
            }
        }
        /* after the others' sums: repdl__attn_bwd_key packs its own block
           of dS and P columns into row and row2 (G == 1: where the keys
           above read theirs at other places) */
        for (q = 0; q < na; q++) {
            repdl__attn_bwd_key(a, w, alone[q]);
            packed = (size_t)-1; /* row, row2 overwritten */
        }
        x += cnt;
    }
#endif
    for (; x < hi; x++) repdl__attn_bwd_key(a, w, x);
}

/* ---- Checks ---- */

/* The shape's checks (the header comment's list, without the arrays);
   *nrows = batch hq nq, *nkeys = batch hkv R rows of d, *nmask = batch nq nk. */
REPDL_FN repdl_status repdl__attn_check_shape(const repdl_attention_shape *s, size_t *R,
                                              size_t *nrows, size_t *nkeys)
{
    size_t t;
    if (!s || s->d == 0 || s->hkv == 0 || s->hq % s->hkv != 0) return REPDL_ERR_INVALID;
    *R = s->kv_stride ? s->kv_stride : s->nk;
    if (*R < s->nk) return REPDL_ERR_INVALID;
    if (s->causal && (s->q_pos0 > s->nk || s->nk - s->q_pos0 < s->nq)) return REPDL_ERR_INVALID;
    t = s->batch;
    if (repdl__size_mul(&t, s->hq) || repdl__size_mul(&t, s->nq)) return REPDL_ERR_OVERFLOW;
    *nrows = t;
    if (repdl__size_mul(&t, s->d) || repdl__size_mul(&t, s->nk)) return REPDL_ERR_OVERFLOW;
    t = s->batch;
    if (repdl__size_mul(&t, s->hkv) || repdl__size_mul(&t, *R) || repdl__size_mul(&t, s->d))
        return REPDL_ERR_OVERFLOW;
    *nkeys = t;
    t = s->batch;
    if (repdl__size_mul(&t, s->nq) || repdl__size_mul(&t, s->nk)) return REPDL_ERR_OVERFLOW;
    return REPDL_OK;
}

REPDL_FN repdl_status repdl__attn_setup(repdl__attn *a, const repdl_attention_shape *s,
                                        float scale, const float *q, const float *k,
                                        const float *v, const float *mask,
                                        const unsigned char *key_keep, size_t *nrows,
                                        size_t *nkeys)
{
    repdl_status st = repdl__attn_check_shape(s, &a->R, nrows, nkeys);
    if (st != REPDL_OK) return st;
    a->s = *s;
    a->G = s->hq / s->hkv;
    a->scale = scale;
    a->q = q;
    a->k = k;
    a->v = v;
    a->mask = mask;
    a->keep = key_keep;
    a->out = a->lse = a->dout = NULL;
    a->o_out = a->o_lse = a->dq = a->dk = a->dv = a->P = a->dS = a->o_scores = NULL;
    a->scores = NULL;
    a->pm_block = NULL;
    a->prow = 0;
    if (*nrows && !q) return REPDL_ERR_INVALID;
    if (s->batch && s->hkv && s->nk && (!k || !v)) return REPDL_ERR_INVALID;
    return REPDL_OK;
}

/* ---- Public functions ---- */

/* The scores' extent: batch hq nq nk floats (nrows nk) in size_t bytes,
   checked when they are saved or read. */
REPDL_FN int repdl__attn_scores_fit(const repdl__attn *a, size_t nrows)
{
    size_t t = nrows;
    return !(repdl__size_mul(&t, a->s.nk) || repdl__size_mul(&t, sizeof(float)));
}

/* The forward's checks and problem: REPDL_OK with *nrows = 0 when there
   is nothing to compute.  scores: the _scores forms' array, or NULL. */
REPDL_FN repdl_status repdl__attn_fwd_setup(repdl__attn *a, const repdl_attention_shape *s,
                                            float scale, const float *q, const float *k,
                                            const float *v, const float *mask,
                                            const unsigned char *key_keep, float *out,
                                            float *lse, float *scores, size_t *nrows)
{
    size_t nkeys;
    repdl_status st = repdl__attn_setup(a, s, scale, q, k, v, mask, key_keep, nrows, &nkeys);
    if (st != REPDL_OK || *nrows == 0) return st;
    if (!out) return REPDL_ERR_INVALID;
    if (!repdl__attn_ws_bytes(a, 0) || (scores && !repdl__attn_scores_fit(a, *nrows)))
        return REPDL_ERR_OVERFLOW;
    a->o_out = out;
    a->o_lse = lse;
    a->o_scores = scores;
    return REPDL_OK;
}

/* The forward with the scores saved for the backward (see the header
   comment, "Saved scores"); scores NULL: repdl_attention_forward_f32. */
REPDL_API repdl_status repdl_attention_forward_scores_f32(const repdl_attention_shape *s, float scale,
                                                          const float *q, const float *k,
                                                          const float *v, const float *mask,
                                                          const unsigned char *key_keep, float *out,
                                                          float *lse, float *scores)
{
    REPDL__FPENV_CHECK();
    repdl__attn a;
    repdl__attn_ws w;
    size_t nrows;
    repdl_status st =
        repdl__attn_fwd_setup(&a, s, scale, q, k, v, mask, key_keep, out, lse, scores, &nrows);
    if (st != REPDL_OK || nrows == 0) return st;
    if (repdl__attn_ws_init(&w, &a, 0)) return REPDL_ERR_NOMEM;
    repdl__attn_fwd_range(&a, &w, 0, nrows);
    repdl__attn_ws_free(&w);
    return REPDL_OK;
}

REPDL_API repdl_status repdl_attention_forward_f32(const repdl_attention_shape *s, float scale,
                                                   const float *q, const float *k,
                                                   const float *v, const float *mask,
                                                   const unsigned char *key_keep, float *out,
                                                   float *lse)
{
    return repdl_attention_forward_scores_f32(s, scale, q, k, v, mask, key_keep, out, lse, NULL);
}

/* The backward's arrays and its P / dS matrices (2 batch hq nq nk floats,
   malloc).  scores: the forward's saved scores, or NULL (recomputed). */
REPDL_FN repdl_status repdl__attn_bwd_setup(repdl__attn *a, const repdl_attention_shape *s,
                                            float scale, const float *q, const float *k,
                                            const float *v, const float *mask,
                                            const unsigned char *key_keep, const float *out,
                                            const float *lse, const float *scores,
                                            const float *dout, float *dq, float *dk, float *dv,
                                            size_t *nrows, size_t *nkeys)
{
    size_t pm;
    repdl_status st = repdl__attn_setup(a, s, scale, q, k, v, mask, key_keep, nrows, nkeys);
    if (st != REPDL_OK) return st;
    if (*nrows && (!out || !lse || !dout)) return REPDL_ERR_INVALID;
    a->out = out;
    a->lse = lse;
    a->dout = dout;
    a->dq = dq;
    a->dk = dk;
    a->dv = dv;
    a->scores = scores;
    pm = *nrows;
    if (repdl__size_mul(&pm, s->nk) || repdl__size_mul(&pm, 2)) return REPDL_ERR_OVERFLOW;
    if (!repdl__attn_ws_bytes(a, 1) || (scores && !repdl__attn_scores_fit(a, *nrows)))
        return REPDL_ERR_OVERFLOW;
    return REPDL_OK;
}

/* dk and dv of a call with no query row: the empty sums. */
REPDL_FN void repdl__attn_bwd_empty(const repdl__attn *a)
{
    size_t kh, j, c, d = a->s.d, nh = a->s.batch * a->s.hkv;
    for (kh = 0; kh < nh; kh++)
        for (j = 0; j < a->s.nk; j++)
            for (c = 0; c < d; c++) {
                if (a->dk) a->dk[(kh * a->R + j) * d + c] = repdl__fmul(a->scale, -0.0f);
                if (a->dv) a->dv[(kh * a->R + j) * d + c] = -0.0f;
            }
}

/* The backward runs its groups (the G nq query rows and the nk key rows
   of one kv head) in chunks of this many whole groups: the most whose P
   and dS fit in REPDL__ATTN_PM_BYTES, at least one.  Each group's rows
   and keys read only the group's own P and dS rows, so one buffer of a
   chunk's rows serves every chunk in turn (no page of it is faulted in
   twice); the bits are those of any other chunking. */
#ifndef REPDL__ATTN_PM_BYTES
#define REPDL__ATTN_PM_BYTES ((size_t)8 << 20)
#endif
REPDL_FN size_t repdl__attn_bwd_chunk(const repdl__attn *a)
{
    size_t nh = a->s.batch * a->s.hkv, per = a->G * a->s.nq * a->s.nk, c; /* per <= batch hq nq nk */
    c = per ? REPDL__ATTN_PM_BYTES / (2 * sizeof(float)) / per : nh;
    return c < 1 ? 1 : c > nh ? nh : c;
}

/* P and dS of the backward for nrows query rows (2 nrows nk floats, one
   block; checked by repdl__attn_bwd_setup): 0, or -1 when out of memory. */
REPDL_FN int repdl__attn_pm_alloc(repdl__attn *a, size_t nrows)
{
    size_t n = nrows * a->s.nk;
    if (n == 0) return 0;
    if (repdl__attn_up16(&n) || n > ((size_t)-1 - 63) / (2 * sizeof(float))) return -1;
    a->pm_block = REPDL__ALLOC(2 * n * sizeof(float) + 63);
    if (!a->pm_block) return -1;
    a->P = repdl__align64(a->pm_block);
    a->dS = a->P + n; /* from a 64-byte boundary too */
    return 0;
}

/* The backward from the forward's saved scores (the header comment,
   "Saved scores"); scores NULL: repdl_attention_backward_f32. */
REPDL_API repdl_status repdl_attention_backward_scores_f32(
    const repdl_attention_shape *s, float scale, const float *q, const float *k, const float *v,
    const float *mask, const unsigned char *key_keep, const float *out, const float *lse,
    const float *scores, const float *dout, float *dq, float *dk, float *dv)
{
    REPDL__FPENV_CHECK();
    repdl__attn a;
    repdl__attn_ws w;
    size_t nrows, nkeys, ch, gr, kh;
    repdl_status st = repdl__attn_bwd_setup(&a, s, scale, q, k, v, mask, key_keep, out, lse, scores,
                                            dout, dq, dk, dv, &nrows, &nkeys);
    if (st != REPDL_OK) return st;
    if (nrows == 0) {
        repdl__attn_bwd_empty(&a);
        return REPDL_OK;
    }
    ch = repdl__attn_bwd_chunk(&a);
    gr = a.G * s->nq;
    if (repdl__attn_ws_init(&w, &a, 1)) return REPDL_ERR_NOMEM;
    if (repdl__attn_pm_alloc(&a, ch * gr)) {
        repdl__attn_ws_free(&w);
        return REPDL_ERR_NOMEM;
    }
    for (kh = 0; kh < s->batch * s->hkv; kh += ch) {
        size_t ke = kh + ch < s->batch * s->hkv ? kh + ch : s->batch * s->hkv;
        a.prow = kh * gr;
        repdl__attn_bwd_rows(&a, &w, kh * gr, ke * gr);
        repdl__attn_bwd_keys(&a, &w, kh * s->nk, ke * s->nk);
    }
    free(a.pm_block);
    repdl__attn_ws_free(&w);
    return REPDL_OK;
}

REPDL_API repdl_status repdl_attention_backward_f32(
    const repdl_attention_shape *s, float scale, const float *q, const float *k, const float *v,
    const float *mask, const unsigned char *key_keep, const float *out, const float *lse,
    const float *dout, float *dq, float *dk, float *dv)
{
    return repdl_attention_backward_scores_f32(s, scale, q, k, v, mask, key_keep, out, lse, NULL,
                                               dout, dq, dk, dv);
}

/* ---- The key/value cache ----
   The keys and values of the tokens seen so far, in the caller's buffers
   k, v of [batch][hkv][capacity][d] floats (len tokens filled).
     repdl_kv_cache c;
     repdl_kv_cache_init(&c, batch, hkv, capacity, d, kbuf, vbuf);
     repdl_kv_cache_append_f32(&c, ntok, k_tok, v_tok);   [batch][hkv][ntok][d]
     repdl_kv_cache_attend_f32(&c, hq, nq, scale, q, mask, key_keep, out, lse);
     repdl_kv_cache_write_f32(&c, b, pos, ntok, k_tok, v_tok);  one sequence, [hkv][ntok][d]
   attend is repdl_attention_forward_f32 with nk = len, kv_stride =
   capacity, causal, and q_pos0 = len - nq: the queries are the last nq
   tokens appended.  A row's bits depend only on its query, the keys it
   sees and their positions, so they are those of the forward over the
   whole sequence (prefilled in one call, in chunks, or a token at a time).
   A batch of sequences of different lengths: each writes its tokens at
   its own positions (write), and attend's key_keep marks the slots each
   one has written; a query then sees exactly the keys, at the positions,
   that it sees alone, so its bits are those of the sequence alone.
   mask is [batch][nq][len], key_keep [batch][len] (NULL: none).  Bad
   input: init with d == 0, hkv == 0 or NULL buffers with a nonzero
   extent, append past capacity (len + ntok > capacity), attend with nq >
   len or hq not a multiple of hkv: REPDL_ERR_INVALID, nothing written (the
   cache unchanged). */
typedef struct repdl_kv_cache {
    size_t batch, hkv, capacity, d, len;
    float *k, *v;
} repdl_kv_cache;

REPDL_API repdl_status repdl_kv_cache_init(repdl_kv_cache *c, size_t batch, size_t hkv,
                                           size_t capacity, size_t d, float *k, float *v)
{
    size_t t = batch;
    if (!c || d == 0 || hkv == 0) return REPDL_ERR_INVALID;
    if (repdl__size_mul(&t, hkv) || repdl__size_mul(&t, capacity) || repdl__size_mul(&t, d))
        return REPDL_ERR_OVERFLOW;
    if (t && (!k || !v)) return REPDL_ERR_INVALID;
    c->batch = batch;
    c->hkv = hkv;
    c->capacity = capacity;
    c->d = d;
    c->len = 0;
    c->k = k;
    c->v = v;
    return REPDL_OK;
}

REPDL_API repdl_status repdl_kv_cache_append_f32(repdl_kv_cache *c, size_t ntok,
                                                 const float *k_tok, const float *v_tok)
{
    size_t kh, nh, d;
    REPDL__FPENV_CHECK();
    if (!c || c->len > c->capacity || ntok > c->capacity - c->len) return REPDL_ERR_INVALID;
    nh = c->batch * c->hkv;
    d = c->d;
    if (ntok == 0 || nh == 0) return REPDL_OK;
    if (!k_tok || !v_tok) return REPDL_ERR_INVALID;
    for (kh = 0; kh < nh; kh++) {
        memcpy(c->k + (kh * c->capacity + c->len) * d, k_tok + kh * ntok * d, ntok * d * sizeof(float));
        memcpy(c->v + (kh * c->capacity + c->len) * d, v_tok + kh * ntok * d, ntok * d * sizeof(float));
    }
    c->len += ntok;
    return REPDL_OK;
}

/* Writes the ntok tokens of batch entry b ([hkv][ntok][d]) at positions
   pos .. pos + ntok - 1, and len = max(len, pos + ntok): for batches whose
   sequences have different lengths (each decodes at its own position;
   attend then takes key_keep to mark each sequence's slots).  b >= batch
   or pos + ntok > capacity: REPDL_ERR_INVALID, nothing written. */
REPDL_API repdl_status repdl_kv_cache_write_f32(repdl_kv_cache *c, size_t b, size_t pos,
                                                size_t ntok, const float *k_tok,
                                                const float *v_tok)
{
    size_t h, d;
    REPDL__FPENV_CHECK();
    if (!c || b >= c->batch || pos > c->capacity || ntok > c->capacity - pos)
        return REPDL_ERR_INVALID;
    d = c->d;
    if (ntok == 0) return REPDL_OK;
    if (!k_tok || !v_tok) return REPDL_ERR_INVALID;
    for (h = 0; h < c->hkv; h++) {
        size_t kh = b * c->hkv + h;
        memcpy(c->k + (kh * c->capacity + pos) * d, k_tok + h * ntok * d, ntok * d * sizeof(float));
        memcpy(c->v + (kh * c->capacity + pos) * d, v_tok + h * ntok * d, ntok * d * sizeof(float));
    }
    if (pos + ntok > c->len) c->len = pos + ntok;
    return REPDL_OK;
}

/* The shape of an attend call over the cache. */
REPDL_FN repdl_status repdl__kv_shape(const repdl_kv_cache *c, size_t hq, size_t nq,
                                      repdl_attention_shape *s)
{
    if (!c || nq > c->len) return REPDL_ERR_INVALID;
    s->batch = c->batch;
    s->hq = hq;
    s->hkv = c->hkv;
    s->nq = nq;
    s->nk = c->len;
    s->d = c->d;
    s->q_pos0 = c->len - nq;
    s->kv_stride = c->capacity;
    s->causal = 1;
    return REPDL_OK;
}

REPDL_API repdl_status repdl_kv_cache_attend_f32(const repdl_kv_cache *c, size_t hq, size_t nq,
                                                 float scale, const float *q, const float *mask,
                                                 const unsigned char *key_keep, float *out,
                                                 float *lse)
{
    repdl_attention_shape s;
    REPDL__FPENV_CHECK();
    if (repdl__kv_shape(c, hq, nq, &s) != REPDL_OK) return REPDL_ERR_INVALID;
    return repdl_attention_forward_f32(&s, scale, q, c->k, c->v, mask, key_keep, out, lse);
}

REPDL_END_CODE
#endif
