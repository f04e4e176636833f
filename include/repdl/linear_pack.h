/* SPDX-License-Identifier: MIT */
/* repdl/linear_pack.h: the linear layer y = x W^T + b from a weight packed
   once (decoding: the same W for every token).

     repdl_linear_pack_size_f32(K, N, &floats)   the packed size, in floats
     repdl_linear_pack_f32(K, N, W, packed, cap) packs W [N x K]
     repdl_linear_forward_packed_f32(M, K, N, x, packed, b, y)

   The forward gives exactly the bits of repdl_linear_forward_f32(M, K, N,
   x, W, b, y) for every M (the order of repdl/linear.h: y[m][n] = chain
   over k ascending of fma(x[m][k], W[n][k], acc) from b[n] or -0, NaN
   outputs 0x7fc00000).  M <= 4 on x86-64 with AVX2 + FMA or AVX-512F
   takes detail/gemv.h's packed kernels, which read the weight as one
   sequential stream; other M and other targets run repdl_gemm_f32's
   blocked product on each panel of the packed weight.

   The packed buffer: a header of REPDL_LINEAR_PACK_HEADER floats (a
   format tag, the layout version, K and N as bit patterns), then the
   layout of detail/gemv.h ("The packed weight"): panels of 64 outputs,
   each stored k-major.  The layout is private: the only promises are the
   size, that the forward refuses a buffer packed for another (K, N) or by
   another layout version (REPDL_ERR_INVALID), and the bits above.  A
   buffer aligned to 64 bytes gives every panel row a whole cache line. */
#ifndef REPDL_LINEAR_PACK_H
#define REPDL_LINEAR_PACK_H

#include "gemm.h"
REPDL_BEGIN_CODE

/* Floats before the panels (64 bytes). */
#define REPDL_LINEAR_PACK_HEADER 16
/* The header's first word ("RPDL" read as a little-endian uint32_t) and
   the layout version the functions below write and accept. */
#define REPDL__PACK_TAG 0x4c445052u
#define REPDL__PACK_VERSION 1u

/* *floats = REPDL_LINEAR_PACK_HEADER + K * (N rounded up to a multiple of
   16): the size of the packed form of a W [N x K].  REPDL_ERR_INVALID when
   floats is NULL; REPDL_ERR_OVERFLOW (nothing written) when the size in
   bytes does not fit in size_t. */
REPDL_API repdl_status repdl_linear_pack_size_f32(size_t K, size_t N, size_t *floats)
{
    size_t t;
    if (!floats) return REPDL_ERR_INVALID;
    t = N + (REPDL__GEMVP_Q - 1);
    if (t < N) return REPDL_ERR_OVERFLOW;
    t = t / REPDL__GEMVP_Q * REPDL__GEMVP_Q;
    if (repdl__size_mul(&t, K) || repdl__size_add(&t, REPDL_LINEAR_PACK_HEADER))
        return REPDL_ERR_OVERFLOW;
    *floats = t;
    return REPDL_OK;
}

/* The header words: tag, version, K and N (low and high 32 bits). */
REPDL_FN void repdl__pack_header(size_t K, size_t N, uint32_t *h)
{
    int i;
    for (i = 0; i < REPDL_LINEAR_PACK_HEADER; i++) h[i] = 0;
    h[0] = REPDL__PACK_TAG;
    h[1] = REPDL__PACK_VERSION;
    h[2] = (uint32_t)K;
    h[3] = (uint32_t)((uint64_t)K >> 32);
    h[4] = (uint32_t)N;
    h[5] = (uint32_t)((uint64_t)N >> 32);
}

/* Writes the packed form of W [N x K] (row-major, PyTorch's layout) to
   packed[0 .. floats), floats from repdl_linear_pack_size_f32; packed
   holds cap floats.  The status of the size; then REPDL_ERR_INVALID when
   packed is NULL, cap < floats, or W is NULL with N K > 0.  On an error
   nothing is written.  N or K = 0 writes the header only (W not read).
   W's bits are copied as they are (NaN payloads too); packed must not
   overlap W. */
REPDL_API repdl_status repdl_linear_pack_f32(size_t K, size_t N, const float *W, float *packed,
                                             size_t cap)
{
    size_t need, n0, j, k;
    uint32_t h[REPDL_LINEAR_PACK_HEADER];
    repdl_status st = repdl_linear_pack_size_f32(K, N, &need);
    if (st != REPDL_OK) return st;
    if (!packed || cap < need || (N && K && !W)) return REPDL_ERR_INVALID;
    repdl__pack_header(K, N, h);
    memcpy(packed, h, sizeof h);
    if (K == 0) return REPDL_OK; /* no panel data (W, maybe NULL, not read) */
    for (n0 = 0; n0 < N; n0 += REPDL__GEMVP_W) {
        size_t r = (N - n0 + REPDL__GEMVP_Q - 1) / REPDL__GEMVP_Q * REPDL__GEMVP_Q;
        size_t w = r < REPDL__GEMVP_W ? r : REPDL__GEMVP_W;
        float *d = packed + REPDL_LINEAR_PACK_HEADER + n0 * K;
        for (j = 0; j < w; j++) {
            if (n0 + j < N) {
                const float *s = W + (n0 + j) * K;
                for (k = 0; k < K; k++) d[k * w + j] = s[k];
            } else {
                for (k = 0; k < K; k++) d[k * w + j] = 0.0f;
            }
        }
    }
    return REPDL_OK;
}

/* y [M x N] = x [M x K] W^T + b from packed (repdl_linear_pack_f32 of W).
   M = 0 or N = 0: nothing read or written (NULL allowed).  Else
   REPDL_ERR_INVALID when y or packed is NULL, x is NULL with K > 0, or
   packed's header is not that of a (K, N) weight of this layout version;
   REPDL_ERR_OVERFLOW when M N, M K or the packed size does not fit (as
   repdl_linear_forward_f32).  K = 0 gives y = b (or -0), x not read.  On
   an error nothing is written.  y must not overlap x or packed. */
REPDL_API repdl_status repdl_linear_forward_packed_f32(size_t M, size_t K, size_t N,
                                                       const float *x, const float *packed,
                                                       const float *b, float *y)
{
    REPDL__FPENV_CHECK();
    size_t t, need, n0, m, n;
    uint32_t h[REPDL_LINEAR_PACK_HEADER], e[REPDL_LINEAR_PACK_HEADER];
    const float *P;
    if (M == 0 || N == 0) return REPDL_OK;
    if (!y || !packed || (K && !x)) return REPDL_ERR_INVALID;
    t = M;
    if (repdl__size_mul(&t, N)) return REPDL_ERR_OVERFLOW;
    t = M;
    if (repdl__size_mul(&t, K)) return REPDL_ERR_OVERFLOW;
    if (repdl_linear_pack_size_f32(K, N, &need) != REPDL_OK) return REPDL_ERR_OVERFLOW;
    memcpy(h, packed, sizeof h);
    repdl__pack_header(K, N, e);
    if (memcmp(h, e, sizeof h) != 0) return REPDL_ERR_INVALID;
    if (K == 0) {
        for (m = 0; m < M; m++)
            for (n = 0; n < N; n++) y[m * N + n] = b ? repdl__canon(b[n]) : -0.0f;
        return REPDL_OK;
    }
    P = packed + REPDL_LINEAR_PACK_HEADER;
#if REPDL__GEMV_X86
    if (M <= REPDL__GEMV_RMAX && repdl__gemm_isa() >= 1) {
        if (repdl__gemm_isa() >= 2) repdl__gemvp_avx512_f32((int)M, N, K, x, K, P, b, y, N);
        else repdl__gemvp_avx2_f32((int)M, N, K, x, K, P, b, y, N);
        return REPDL_OK;
    }
#endif
    /* each panel is a K x w row-major B: the blocked product's chains */
    for (n0 = 0; n0 < N; n0 += REPDL__GEMVP_W) {
        size_t r = (N - n0 + REPDL__GEMVP_Q - 1) / REPDL__GEMVP_Q * REPDL__GEMVP_Q;
        size_t w = r < REPDL__GEMVP_W ? r : REPDL__GEMVP_W;
        repdl__gemm_core_f32(0, 0, M, N - n0 < w ? N - n0 : w, K, x, K, P + n0 * K, w,
                             b ? b + n0 : NULL, NULL, 0, 1.0f, 0.0f, y + n0, N);
    }
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_LINEAR_PACK_H */
