/* SPDX-License-Identifier: MIT */
/* cuda/gemm_cr_tile.cuh: the warp tile of the correctly rounded product on
   int8 tensor cores (include/repdl/detail/gemm_cr_slice.h: the slices, the
   bound, the rule), written once for the device kernel (cuda/gemm_cr.cu)
   and for the host emulation (tests/gemm_cr/test_gemm_cr_tile.cpp, plain
   C++, no GPU).

   One warp owns a 16 x 8 tile of C (rows i0 .., columns j0 ..).  For S
   slices, every pair (s, r) with s + r <= S + 1: K is walked in chunks of
   at most REPDL__CRS_KCHUNK (int32 accumulators, zeroed per chunk, then
   added to int64 level sums Q[s + r - 2]), each chunk in steps of 32 k:
   the lanes build the int8 fragments of digit s of op(A) and digit r of
   op(B) and the warp runs one repdl__mma_s8_m16n8k32 (k out of range and
   rows or columns out of range give digit 0: adds nothing).  Then each
   lane decides its 4 outputs by repdl__crs_decide.  If any output of the
   warp is undecided with S = REPDL__CRS_S0 (6) the warp adds the pairs
   up to S = REPDL__CRS_SMAX (8) and decides those; outputs still undecided take the
   exact path (repdl__gemm_cr_exact), outputs of a non-finite row, column
   or bias the IEEE sum (repdl__crs_nonfinite).  Every accepted value is
   RN(s) (the slice header's proof), so the result is repdl_gemm_cr_f32's,
   bit for bit, whatever the tiling.

   Fragments of mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 (PTX ISA,
   "Matrix fragments for mma.m16n8k32", 8-bit types), lane = 4 g + q
   (g = groupID, q = threadID_in_group):
     A (16 x 32, row):  4 .b32 of 4 bytes; register j, byte b holds
                        A[g + 8 (j & 1)][4 q + b + 16 (j >> 1)];
     B (32 x 8, col):   2 .b32; register j, byte b holds B[4 q + b + 16 j][g];
     C, D (16 x 8):     4 .s32; element e is C[g + 8 (e >> 1)][2 q + (e & 1)].
   Bytes are little-endian within a register (byte b at bits 8b .. 8b + 7).

   Execution model (as cuda/gemm_tile.cuh): the tile routine is a template
   over an executor X.  On the device X::LANES == 1 and one call plays the
   calling lane; X::mma runs the warp-collective MMA and X::any is
   __any_sync.  On the host X::LANES == 32, one call plays every lane of
   the warp in turn, X::mma is the integer emulation on all lanes' fragments
   and X::any the OR over the lanes.

   Why an architecture branch is allowed here (config.h is the one place
   where host and device differ in numeric code): the branch only picks how
   an exact integer product of int8 values is summed in int32 (tensor
   cores on sm_80+, the lane-gather loop below elsewhere and on the host);
   integer sums below 2^31 have one value, so no bit can depend on it.
   Everything that rounds (the decision) is the shared REPDL_FN code. */
#ifndef REPDL_CUDA_GEMM_CR_TILE_CUH
#define REPDL_CUDA_GEMM_CR_TILE_CUH

#include <stddef.h>
#include <stdint.h>

#include <repdl/detail/gemm_cr_slice.h>
#include <repdl/gemm_cr.h>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define REPDL__CRT_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#define REPDL__CRT_EXEC_CHECK_DISABLE
#endif

/* First slice count tried; REPDL__CRS_SMAX after. */
#ifndef REPDL__CRS_S0
#define REPDL__CRS_S0 6
#endif
/* A counting hook for the host emulation: stage 0 non-finite, 1 the first
   S, 2 REPDL__CRS_SMAX, 3 the exact path. */
#ifndef REPDL__CRT_COUNT
#define REPDL__CRT_COUNT(stage) ((void)0)
#endif

namespace repdl_cuda {

/* One output tile's problem: op(X)[i][k] = X[i ld + k] or X[k ld + i]. */
struct crt_args {
    size_t M, N, K;
    const float *A;
    size_t lda;
    const float *B;
    size_t ldb;
    const float *bias;
    float *C;
    size_t ldc;
    int transA, transB;
    const int *Ea; /* M row exponents (repdl__crs_exp) */
    const int *Eb; /* N column exponents */
};

REPDL_HD inline float crt_opA(const crt_args &p, size_t i, size_t k)
{
    return p.transA ? p.A[k * p.lda + i] : p.A[i * p.lda + k];
}
REPDL_HD inline float crt_opB(const crt_args &p, size_t k, size_t j)
{
    return p.transB ? p.B[j * p.ldb + k] : p.B[k * p.ldb + j];
}

/* Digit s of op(A)[i][k] (0 outside the matrix). */
REPDL_HD inline int crt_digit_a(const crt_args &p, size_t i, size_t k, int S, int s)
{
    if (i >= p.M || k >= p.K) return 0;
    return repdl__crs_digit(crt_opA(p, i, k), p.Ea[i], S, s);
}
REPDL_HD inline int crt_digit_b(const crt_args &p, size_t k, size_t j, int S, int s)
{
    if (j >= p.N || k >= p.K) return 0;
    return repdl__crs_digit(crt_opB(p, k, j), p.Eb[j], S, s);
}

REPDL_HD inline uint32_t crt_pack(int b0, int b1, int b2, int b3)
{
    return (uint32_t)(uint8_t)b0 | (uint32_t)(uint8_t)b1 << 8 | (uint32_t)(uint8_t)b2 << 16 |
           (uint32_t)(uint8_t)b3 << 24;
}
REPDL_HD inline int crt_byte(uint32_t r, int b) { return (int)(int8_t)(uint8_t)(r >> (8 * b)); }

/* Lane `lane`'s fragments of digit s of op(A) rows i0 .. i0+15, k0 ..
   k0+31 and digit r of op(B) k0 .., columns j0 .. j0+7 (layout above). */
REPDL_HD inline void crt_frag_a(const crt_args &p, size_t i0, size_t k0, int S, int s, int lane,
                                uint32_t a[4])
{
    int g = lane >> 2, q = lane & 3;
    for (int j = 0; j < 4; j++) {
        size_t i = i0 + (size_t)(g + 8 * (j & 1)), k = k0 + (size_t)(4 * q + 16 * (j >> 1));
        a[j] = crt_pack(crt_digit_a(p, i, k, S, s), crt_digit_a(p, i, k + 1, S, s),
                        crt_digit_a(p, i, k + 2, S, s), crt_digit_a(p, i, k + 3, S, s));
    }
}
REPDL_HD inline void crt_frag_b(const crt_args &p, size_t k0, size_t j0, int S, int r, int lane,
                                uint32_t b[2])
{
    int g = lane >> 2, q = lane & 3;
    for (int j = 0; j < 2; j++) {
        size_t k = k0 + (size_t)(4 * q + 16 * j), col = j0 + (size_t)g;
        b[j] = crt_pack(crt_digit_b(p, k, col, S, r), crt_digit_b(p, k + 1, col, S, r),
                        crt_digit_b(p, k + 2, col, S, r), crt_digit_b(p, k + 3, col, S, r));
    }
}

/* Element e of lane `lane`'s accumulator += sum over k < 32 of
   A[row][k] B[k][col], the operands gathered from the lanes that hold them:
   row g + 8 (e >> 1) is in registers (e >> 1) and 2 + (e >> 1) of lanes
   4 g + q', column 2 q + (e & 1) in both registers of lanes
   4 (2 q + (e & 1)) + q'.  ga(l, j) / gb(l, j): register j of lane l. */
REPDL__CRT_EXEC_CHECK_DISABLE
template <class GA, class GB>
REPDL_HD inline int32_t crt_dot_lane(GA ga, GB gb, int lane, int e)
{
    int g = lane >> 2, q = lane & 3, h = e >> 1, col = 2 * q + (e & 1);
    int32_t sum = 0;
    for (int qq = 0; qq < 4; qq++) {
        uint32_t a0 = ga(4 * g + qq, h), a1 = ga(4 * g + qq, 2 + h);
        uint32_t b0 = gb(4 * col + qq, 0), b1 = gb(4 * col + qq, 1);
        for (int b = 0; b < 4; b++)
            sum += crt_byte(a0, b) * crt_byte(b0, b) + crt_byte(a1, b) * crt_byte(b1, b);
    }
    return sum;
}

/* Register j of lane l: from the host's arrays of every lane's fragments,
   or (device) from the lanes of the warp by shuffles. */
struct crt_host_a {
    const uint32_t (*f)[4];
    REPDL_HD uint32_t operator()(int l, int j) const { return f[l][j]; }
};
struct crt_host_b {
    const uint32_t (*f)[2];
    REPDL_HD uint32_t operator()(int l, int j) const { return f[l][j]; }
};
#if defined(__CUDACC__)
struct crt_shfl_a {
    uint32_t r[4];
    __device__ uint32_t operator()(int l, int j) const
    {
        return __shfl_sync(0xffffffffu, j == 0 ? r[0] : j == 1 ? r[1] : j == 2 ? r[2] : r[3], l);
    }
};
struct crt_shfl_b {
    uint32_t r[2];
    __device__ uint32_t operator()(int l, int j) const
    {
        return __shfl_sync(0xffffffffu, j ? r[1] : r[0], l);
    }
};

/* The calling lane's part of the warp's D = A B + C (every lane of the
   warp calls it together).  sm_80 and newer: one tensor-core instruction;
   older: the same integer sums by lane shuffles. */
__device__ __forceinline__ void repdl__mma_s8_m16n8k32(int32_t acc[4], const uint32_t a[4],
                                                       const uint32_t b[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    int lane = (int)(threadIdx.x & 31u);
    crt_shfl_a ga = {{a[0], a[1], a[2], a[3]}};
    crt_shfl_b gb = {{b[0], b[1]}};
    int32_t d[4];
    for (int e = 0; e < 4; e++) d[e] = crt_dot_lane(ga, gb, lane, e);
    for (int e = 0; e < 4; e++) acc[e] += d[e];
#endif
}
#endif

/* The host's MMA: every lane's accumulator += its elements of A B, the
   lane-gather loop over the 32 lanes' fragments. */
inline void repdl__mma_s8_m16n8k32_warp(int32_t acc[32][4], const uint32_t a[32][4],
                                        const uint32_t b[32][2])
{
    crt_host_a ga = {a};
    crt_host_b gb = {b};
    int32_t d[32][4];
    for (int l = 0; l < 32; l++)
        for (int e = 0; e < 4; e++) d[l][e] = crt_dot_lane(ga, gb, l, e);
    for (int l = 0; l < 32; l++)
        for (int e = 0; e < 4; e++) acc[l][e] += d[l][e];
}

/* The tile at (i0, j0) for the lanes the executor plays.  Per lane: 4
   outputs, done[e] (decided), out[e]. */
REPDL__CRT_EXEC_CHECK_DISABLE
template <class X>
REPDL_HD void crt_tile(const crt_args &p, size_t i0, size_t j0)
{
    enum { L = X::LANES };
    int done[L][4];
    float out[L][4];
    int32_t acc[L][4];
    int64_t Q[L][4][REPDL__CRS_SMAX];
    uint32_t fa[L][4], fb[L][2];
    size_t kfast = p.K <= REPDL__CRS_KMAX ? p.K : 0; /* 0: every output exact */

    /* Outputs out of range, or of a non-finite row, column or bias, are
       settled first; the others wait for the slices. */
    for (int l = 0; l < L; l++) {
        int lane = X::lane(l), g = lane >> 2, q = lane & 3;
        for (int e = 0; e < 4; e++) {
            size_t i = i0 + (size_t)(g + 8 * (e >> 1)), j = j0 + (size_t)(2 * q + (e & 1));
            done[l][e] = 1;
            out[l][e] = 0.0f;
            if (i >= p.M || j >= p.N) continue;
            const float *bj = p.bias ? p.bias + j : NULL;
            if (p.Ea[i] == REPDL__CRS_NONFINITE || p.Eb[j] == REPDL__CRS_NONFINITE ||
                (bj && (repdl__asuint(*bj) & 0x7f800000u) == 0x7f800000u)) {
                size_t sa = p.transA ? p.lda : 1, sb = p.transB ? 1 : p.ldb;
                const float *a = p.transA ? p.A + i : p.A + i * p.lda;
                const float *b = p.transB ? p.B + j * p.ldb : p.B + j;
                out[l][e] = repdl__crs_nonfinite(p.K, a, sa, b, sb, bj);
                REPDL__CRT_COUNT(0);
            } else {
                done[l][e] = 0;
            }
        }
    }

    /* Digit s of a value does not depend on S (it is bits 7(s-1) ..
       7s - 1 below 2^E of |x|), so the S = SMAX pass adds only the pairs
       with S0 + 1 < s + r <= SMAX + 1 to the level sums of the first. */
    for (int l = 0; l < L; l++)
        for (int e = 0; e < 4; e++)
            for (int v = 0; v < REPDL__CRS_SMAX; v++) Q[l][e][v] = 0;
    for (int S = REPDL__CRS_S0, Sdone = 0; kfast > 0; Sdone = S, S = REPDL__CRS_SMAX) {
        int pending = 0;
        for (int l = 0; l < L; l++)
            for (int e = 0; e < 4; e++) pending |= !done[l][e];
        if (!X::any(pending)) break;
        for (int s = 1; s <= S; s++)
            for (int r = Sdone + 2 - s > 1 ? Sdone + 2 - s : 1; s + r <= S + 1; r++)
                for (size_t c0 = 0; c0 < kfast; c0 += REPDL__CRS_KCHUNK) {
                    size_t c1 = kfast - c0 < REPDL__CRS_KCHUNK ? kfast : c0 + REPDL__CRS_KCHUNK;
                    for (int l = 0; l < L; l++)
                        for (int e = 0; e < 4; e++) acc[l][e] = 0;
                    for (size_t k0 = c0; k0 < c1; k0 += 32) {
                        for (int l = 0; l < L; l++) {
                            crt_frag_a(p, i0, k0, S, s, X::lane(l), fa[l]);
                            crt_frag_b(p, k0, j0, S, r, X::lane(l), fb[l]);
                        }
                        X::mma(acc, fa, fb);
                    }
                    for (int l = 0; l < L; l++)
                        for (int e = 0; e < 4; e++) Q[l][e][s + r - 2] += acc[l][e];
                }
        for (int l = 0; l < L; l++) {
            int lane = X::lane(l), g = lane >> 2, q = lane & 3;
            for (int e = 0; e < 4; e++) {
                if (done[l][e]) continue;
                size_t i = i0 + (size_t)(g + 8 * (e >> 1)), j = j0 + (size_t)(2 * q + (e & 1));
                int ok;
                float v = repdl__crs_decide(Q[l][e], S, p.Ea[i] + p.Eb[j], p.K,
                                            p.bias ? p.bias + j : NULL, &ok);
                if (ok) {
                    REPDL__CRT_COUNT(S == REPDL__CRS_SMAX ? 2 : 1);
                    out[l][e] = v;
                    done[l][e] = 1;
                }
            }
        }
        if (S == REPDL__CRS_SMAX) break;
    }

    for (int l = 0; l < L; l++) {
        int lane = X::lane(l), g = lane >> 2, q = lane & 3;
        for (int e = 0; e < 4; e++) {
            size_t i = i0 + (size_t)(g + 8 * (e >> 1)), j = j0 + (size_t)(2 * q + (e & 1));
            if (i >= p.M || j >= p.N) continue;
            if (!done[l][e]) {
                size_t sa = p.transA ? p.lda : 1, sb = p.transB ? 1 : p.ldb;
                const float *a = p.transA ? p.A + i : p.A + i * p.lda;
                const float *b = p.transB ? p.B + j * p.ldb : p.B + j;
                out[l][e] = repdl__gemm_cr_exact(p.K, a, sa, b, sb, p.bias ? p.bias + j : NULL);
                REPDL__CRT_COUNT(3);
            }
            p.C[i * p.ldc + j] = out[l][e];
        }
    }
}

} /* namespace repdl_cuda */

#endif /* REPDL_CUDA_GEMM_CR_TILE_CUH */
