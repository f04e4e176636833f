/* SPDX-License-Identifier: MIT */
/* cuda/gemm_tile.cuh: the tile of repdl's FFMA matrix product, written once
   for the device kernel (cuda/linalg.cu) and for a host replay of the same
   code (tests/cuda/test_gemm_tile_host.cpp, plain C++, no GPU).

   What it computes, for every element of C (docs/cuda-linalg.md):
       acc = init (bias[j], bias[i] for conv, -0, or C[i][j] itself)
       for k = 0 .. K-1 ascending:  acc = repdl__fmaf(opA[i][k], opB[k][j], acc)
       r = alpha == 1 ? acc : repdl__fmul(alpha, acc)
       if (beta != 0) r = repdl__fmaf(beta, C[i][j], r)      (C not read else)
       C[i][j] = repdl__canon(r)
   the chain of include/repdl/gemm.h, element by element: no split-K, the k
   loop is never reordered or cut, whatever the tile, grid or batch.

   Geometry: a block of NT = 256 threads owns a BM x BN = 128 x 128 tile of
   C; thread t owns an 8 x 8 register tile: rows ty*4 + {0..3} and
   64 + ty*4 + {0..3}, columns tx*4 + {0..3} and 64 + tx*4 + {0..3}
   (tx = t % 16, ty = t / 16).  K is walked in panels of BK = 8: the
   panel of op(A) (128 x 8) and of op(B) (8 x 128) is staged in shared
   memory, k-major (As[k][i], Bs[k][j]), double-buffered: while the block
   computes panel p from buffer p % 2, every thread holds panel p + 1 in
   registers and stores it to the other buffer afterwards; one barrier a
   panel.  The last panel may be short (K % 8): the k loop stops at K, it
   never runs over zero padding (an fma with +0*+0 would turn an
   accumulator of -0 into +0).

   Loads: each thread fetches 4 elements of each panel.  Where memory is
   contiguous along k (A not transposed, B transposed) thread t reads row
   t/2, k = 4 (t % 2) .. + 3; where it is contiguous along the rows (A
   transposed, B not) thread t reads k = t / 32, rows 4 (t % 32) .. + 3.
   Either way the 4 elements are adjacent in memory: one float4 load when
   the matrix is 16-byte aligned with ld % 4 == 0 (vec) and all 4 are in
   range, else 4 masked scalar loads (out of range: 0, never used).

   Execution model: the tile routine is a template over an "executor" X
   that says which threads one call plays.  On the device X::LANES == 1
   and the call plays threadIdx.x; X::sync() is __syncthreads().  On the
   host (the replay test) X::LANES == NT, one call plays every thread of
   the block in turn between barriers, and sync() does nothing.  Per-thread
   state (the accumulators, the prefetched panel) is indexed by lane. */
#ifndef REPDL_CUDA_GEMM_TILE_CUH
#define REPDL_CUDA_GEMM_TILE_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <repdl/config.h>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
/* Templates that run on host and device call the executor's sync(), which
   is __device__ only when instantiated for the device. */
#define REPDL__EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#define REPDL__EXEC_CHECK_DISABLE
#endif

namespace repdl_cuda {

enum {
    GEMM_BM = 128, /* rows of C a block */
    GEMM_BN = 128, /* columns of C a block */
    GEMM_BK = 8,   /* k a panel */
    GEMM_TM = 8,   /* rows of C a thread */
    GEMM_TN = 8,   /* columns of C a thread */
    GEMM_NT = 256, /* threads a block: (BM / TM) * (BN / TN) */
    GEMM_PAD = 4   /* shared rows of 132 floats: conflict-free transposed stores */
};

/* How the accumulator of C[i][j] starts. */
enum {
    GEMM_INIT_ZERO = 0,     /* -0.0f */
    GEMM_INIT_BIAS_COL = 1, /* bias[j] (gemm, linear) */
    GEMM_INIT_BIAS_ROW = 2, /* bias[i] (conv2d forward: one bias per channel) */
    GEMM_INIT_C = 3         /* C[i][j]: the chain goes on from a previous call */
};

/* One (batched) product C_b = alpha op(A_b) op(B_b) + beta C_b, b < batch,
   with X_b = X + b * sX. */
struct gemm_args {
    size_t M, N, K, batch;
    const float *A;
    size_t lda, sA;
    const float *B;
    size_t ldb, sB;
    const float *bias;
    size_t sBias;
    float *C;
    size_t ldc, sC;
    float alpha, beta;
    int transA, transB;
    int init;       /* GEMM_INIT_* */
    int vecA, vecB; /* float4 loads allowed (16-byte aligned, ld and stride % 4 == 0) */
    size_t mt, nt;  /* tiles: ceil(M / BM), ceil(N / BN) */
};

struct gemm_smem {
    float A[2][GEMM_BK][GEMM_BM + GEMM_PAD];
    float B[2][GEMM_BK][GEMM_BN + GEMM_PAD];
};

/* 4 adjacent floats, one 16-byte access when aligned. */
#if defined(__CUDACC__)
typedef float4 gemm_f4;
REPDL_HD inline gemm_f4 gemm_ld4(const float *p) { return *reinterpret_cast<const float4 *>(p); }
REPDL_HD inline void gemm_st4(float *p, gemm_f4 v) { *reinterpret_cast<float4 *>(p) = v; }
#else
struct gemm_f4 { float x, y, z, w; };
static inline gemm_f4 gemm_ld4(const float *p) { gemm_f4 v; memcpy(&v, p, 16); return v; }
static inline void gemm_st4(float *p, gemm_f4 v) { memcpy(p, &v, 16); }
#endif

/* Tiles a dimension of n has: ceil(n / tile). */
REPDL_HD inline size_t gemm_tiles(size_t n, size_t tile) { return n / tile + (n % tile != 0); }

/* float4 loads are allowed on matrix p (batch stride s, leading dimension
   ld) when every row start of every batch is 16-byte aligned. */
static inline int gemm_vec_ok(const void *p, size_t ld, size_t s, size_t batch)
{
    return ((uintptr_t)p % 16 == 0) && ld % 4 == 0 && (batch <= 1 || s % 4 == 0);
}

/* Thread t's share of one panel: v[0..3], the elements of the panel's
   rows r0 .. (R rows in all, `rows` of them exist) and k0 .. (K in all).
   kcontig: element (r, k) is at p[r * ld + k] (else p[k * ld + r]).
   Elements out of range are 0 (never used: rows out of range are not
   stored, k out of range is not computed). */
REPDL_HD inline void gemm_load_panel(const float *p, size_t ld, size_t rows, size_t K,
                                     size_t r0, size_t k0, int kcontig, int vec, int t,
                                     float v[4])
{
    /* (gr, gk): thread t's first element; its 4 run along the contiguous
       index (k when kcontig, else r), `left` of them in range. */
    size_t gr = r0 + (size_t)(kcontig ? t >> 1 : (t & 31) * 4);
    size_t gk = k0 + (size_t)(kcontig ? (t & 1) * 4 : t >> 5);
    v[0] = v[1] = v[2] = v[3] = 0.0f;
    if (gr >= rows || gk >= K) return;
    const float *q = kcontig ? p + gr * ld + gk : p + gk * ld + gr;
    size_t left = kcontig ? K - gk : rows - gr;
    if (vec && left >= 4) {
        gemm_f4 f = gemm_ld4(q);
        v[0] = f.x; v[1] = f.y; v[2] = f.z; v[3] = f.w;
    } else {
        for (int u = 0; u < 4; u++)
            if ((size_t)u < left) v[u] = q[u];
    }
}

/* Thread t's share into the k-major shared panel S[k][r] (the layout of
   gemm_load_panel's mapping). */
REPDL_HD inline void gemm_store_panel(float (*S)[GEMM_BM + GEMM_PAD], int kcontig, int t,
                                      const float v[4])
{
    if (kcontig) {
        int r = t >> 1, k = (t & 1) * 4;
        for (int u = 0; u < 4; u++) S[k + u][r] = v[u];
    } else {
        int k = t >> 5, r = (t & 31) * 4;
        gemm_f4 f;
        f.x = v[0]; f.y = v[1]; f.z = v[2]; f.w = v[3];
        gemm_st4(&S[k][r], f);
    }
}

/* Row (or column) of the block tile held by thread coordinate c (ty or
   tx) at register index e < 8. */
REPDL_HD inline int gemm_reg_row(int c, int e) { return (e >> 2) * 64 + c * 4 + (e & 3); }

/* Step kk of thread (tx, ty)'s 8 x 8 chain: acc[i][j] += a[i] b[j], one
   fused multiply-add each. */
REPDL_HD inline void gemm_step(const float (*As)[GEMM_BM + GEMM_PAD],
                               const float (*Bs)[GEMM_BN + GEMM_PAD], int kk, int tx, int ty,
                               float acc[GEMM_TM][GEMM_TN])
{
    float a[8], b[8];
    gemm_f4 a0 = gemm_ld4(&As[kk][ty * 4]), a1 = gemm_ld4(&As[kk][64 + ty * 4]);
    gemm_f4 b0 = gemm_ld4(&Bs[kk][tx * 4]), b1 = gemm_ld4(&Bs[kk][64 + tx * 4]);
    a[0] = a0.x; a[1] = a0.y; a[2] = a0.z; a[3] = a0.w;
    a[4] = a1.x; a[5] = a1.y; a[6] = a1.z; a[7] = a1.w;
    b[0] = b0.x; b[1] = b0.y; b[2] = b0.z; b[3] = b0.w;
    b[4] = b1.x; b[5] = b1.y; b[6] = b1.z; b[7] = b1.w;
    for (int i = 0; i < GEMM_TM; i++)
        for (int j = 0; j < GEMM_TN; j++) acc[i][j] = repdl__fmaf(a[i], b[j], acc[i][j]);
}

/* kr steps (k = kk of the panel, ascending) of thread t's 8 x 8 chain. */
REPDL_HD inline void gemm_compute_panel(const gemm_smem *sm, int buf, int kr, int t,
                                        float acc[GEMM_TM][GEMM_TN])
{
    int tx = t & 15, ty = t >> 4;
    const float(*As)[GEMM_BM + GEMM_PAD] = sm->A[buf];
    const float(*Bs)[GEMM_BN + GEMM_PAD] = sm->B[buf];
    if (kr == GEMM_BK) {
        for (int kk = 0; kk < GEMM_BK; kk++) gemm_step(As, Bs, kk, tx, ty, acc);
    } else {
        for (int kk = 0; kk < kr; kk++) gemm_step(As, Bs, kk, tx, ty, acc);
    }
}

/* The block tile (tm, tn) of batch b, for the threads the executor plays. */
REPDL__EXEC_CHECK_DISABLE
template <class X>
REPDL_HD inline void gemm_block_tile(const gemm_args &a, size_t b, size_t tm, size_t tn,
                                     gemm_smem *sm, X &x)
{
    enum { L = X::LANES };
    const float *A = a.A + b * a.sA, *B = a.B + b * a.sB;
    float *C = a.C + b * a.sC;
    size_t m0 = tm * GEMM_BM, n0 = tn * GEMM_BN;
    int kcA = !a.transA, kcB = a.transB;
    size_t ldA = a.lda, ldB = a.ldb;
    float acc[L][GEMM_TM][GEMM_TN];
    float ra[L][4], rb[L][4];

    for (int l = 0; l < L; l++) {
        int t = x.tid(l), tx = t & 15, ty = t >> 4;
        for (int i = 0; i < GEMM_TM; i++) {
            size_t gi = m0 + (size_t)gemm_reg_row(ty, i);
            for (int j = 0; j < GEMM_TN; j++) {
                size_t gj = n0 + (size_t)gemm_reg_row(tx, j);
                float v = -0.0f;
                if (gi < a.M && gj < a.N) {
                    if (a.init == GEMM_INIT_BIAS_COL) v = a.bias[b * a.sBias + gj];
                    else if (a.init == GEMM_INIT_BIAS_ROW) v = a.bias[b * a.sBias + gi];
                    else if (a.init == GEMM_INIT_C) v = C[gi * a.ldc + gj];
                }
                acc[l][i][j] = v;
            }
        }
    }

    size_t np = gemm_tiles(a.K, GEMM_BK);
    if (np > 0) {
        for (int l = 0; l < L; l++) {
            int t = x.tid(l);
            gemm_load_panel(A, ldA, a.M, a.K, m0, 0, kcA, a.vecA, t, ra[l]);
            gemm_load_panel(B, ldB, a.N, a.K, n0, 0, kcB, a.vecB, t, rb[l]);
            gemm_store_panel(sm->A[0], kcA, t, ra[l]);
            gemm_store_panel(sm->B[0], kcB, t, rb[l]);
        }
        x.sync();
        for (size_t p = 0; p < np; p++) {
            int cur = (int)(p & 1);
            size_t k0 = p * GEMM_BK;
            int kr = a.K - k0 >= (size_t)GEMM_BK ? (int)GEMM_BK : (int)(a.K - k0);
            int more = p + 1 < np;
            if (more) {
                for (int l = 0; l < L; l++) {
                    int t = x.tid(l);
                    gemm_load_panel(A, ldA, a.M, a.K, m0, k0 + GEMM_BK, kcA, a.vecA, t, ra[l]);
                    gemm_load_panel(B, ldB, a.N, a.K, n0, k0 + GEMM_BK, kcB, a.vecB, t, rb[l]);
                }
            }
            for (int l = 0; l < L; l++) gemm_compute_panel(sm, cur, kr, x.tid(l), acc[l]);
            if (more) {
                for (int l = 0; l < L; l++) {
                    int t = x.tid(l);
                    gemm_store_panel(sm->A[cur ^ 1], kcA, t, ra[l]);
                    gemm_store_panel(sm->B[cur ^ 1], kcB, t, rb[l]);
                }
            }
            /* Panel cur is read by everyone before the next iteration
               overwrites it; panel cur ^ 1 is complete before it is read. */
            x.sync();
        }
    }

    int alpha1 = repdl__feq(a.alpha, 1.0f), beta0 = repdl__feq(a.beta, 0.0f);
    for (int l = 0; l < L; l++) {
        int t = x.tid(l), tx = t & 15, ty = t >> 4;
        for (int i = 0; i < GEMM_TM; i++) {
            size_t gi = m0 + (size_t)gemm_reg_row(ty, i);
            if (gi >= a.M) continue;
            for (int j = 0; j < GEMM_TN; j++) {
                size_t gj = n0 + (size_t)gemm_reg_row(tx, j);
                if (gj >= a.N) continue;
                float *c = C + gi * a.ldc + gj;
                float r = alpha1 ? acc[l][i][j] : repdl__fmul(a.alpha, acc[l][i][j]);
                if (!beta0) r = repdl__fmaf(a.beta, *c, r);
                x.store(c, repdl__canon(r));
            }
        }
    }
}

/* The tiles block (bx, by, bz) of a gx x gy x gz grid owns: a grid-stride
   over batch (z), row tiles (y) and column tiles (x). */
REPDL__EXEC_CHECK_DISABLE
template <class X>
REPDL_HD inline void gemm_block(const gemm_args &a, size_t bx, size_t by, size_t bz, size_t gx,
                                size_t gy, size_t gz, gemm_smem *sm, X &x)
{
    for (size_t b = bz; b < a.batch; b += gz)
        for (size_t tm = by; tm < a.mt; tm += gy)
            for (size_t tn = bx; tn < a.nt; tn += gx) gemm_block_tile(a, b, tm, tn, sm, x);
}

/* Grid caps of CUDA: x < 2^31, y and z < 2^16. */
struct gemm_grid {
    unsigned x, y, z;
};
/* The grid for a: every tile its own block up to the caps (cap_* != 0
   lowers them: the launch-configuration tests); the grid-stride of
   gemm_block covers the rest. */
static inline gemm_grid gemm_plan_grid(const gemm_args &a, unsigned cap_x, unsigned cap_y,
                                       unsigned cap_z)
{
    size_t cx = cap_x ? cap_x : 0x7fffffffu, cy = cap_y ? cap_y : 65535u,
           cz = cap_z ? cap_z : 65535u;
    if (cy > 65535u) cy = 65535u;
    if (cz > 65535u) cz = 65535u;
    gemm_grid g;
    g.x = (unsigned)(a.nt < cx ? a.nt : cx);
    g.y = (unsigned)(a.mt < cy ? a.mt : cy);
    g.z = (unsigned)(a.batch < cz ? a.batch : cz);
    if (g.x == 0) g.x = 1;
    if (g.y == 0) g.y = 1;
    if (g.z == 0) g.z = 1;
    return g;
}

} // namespace repdl_cuda

#endif
