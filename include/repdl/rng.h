/* SPDX-License-Identifier: MIT */
/* repdl/rng.h: counter-based random numbers (Philox4x32-10), the same
   stream on every host and device, whatever the thread layout.

   Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as
   easy as 1, 2, 3", SC11) maps a 128-bit counter and a 64-bit key to 128
   random bits with integer operations only (32x32->64 products, xors), so
   it has one answer everywhere.  Checked against the published known-answer
   vectors of Random123 (tests/rng_optim/test_rng_optim.c).

   The whole state of a stream is (seed, offset): two integers, so a
   checkpoint is two integers and resuming is passing them again.  Every
   value is a pure function of (seed, offset, i): element i can be computed
   by any thread, in any order, on any device.

   Counter layout (key = {lo32(seed), hi32(seed)} for every stream):
     u32 / uniform / dropout  element i: word i % 4 of
                              philox({lo32(b), hi32(b), 0, 0}), b = offset + i/4
     normal                   element i: attempts from
                              philox({lo32(b), hi32(b), a, 1}), b = offset + i,
                              a = 0 .. 15 (two attempts per block)
     permutation              draw c: word c % 4 of philox({lo32(offset),
                              hi32(offset), lo32(d), 0x80000000 | hi32(d)}),
                              d = c / 4
   The three spaces are disjoint (ctr[3] is 0, 1, or >= 2^31), so uniform,
   normal and permutation calls with the same (seed, offset) are
   independent.  Counter blocks used, for advancing offset between calls
   (all 64-bit arithmetic wraps modulo 2^64):
     uniform/u32/dropout of n elements: repdl_rng_uniform_blocks(n) = ceil(n/4)
     normal of n elements:              repdl_rng_normal_blocks(n) = n
     permutation:                       1 (offset + 1 is independent).

   Values:
     uniform  (u32 >> 8) * 2^-24, exactly: the 2^24 floats k 2^-24 of [0, 1),
              each with probability 2^-24.
     normal   Marsaglia's polar method, each step one correctly rounded
              binary32 operation (docs/rng-optim.md):
                x = ((w0 >> 8) - 2^23) * 2^-23, y likewise from w1
                     (exact: multiples of 2^-23 in [-1, 1))
                s = RN(RN(x*x) + RN(y*y))        accept iff 0 < s < 1
                z = RN(x * RN(sqrt(RN(RN(-2 * logf(s)) / s))))
              with logf = repdl_log_f32 (correctly rounded), -2*l exact.
              Attempts: words (0,1) then (2,3) of block a = 0, 1, ..., 15.
              All 32 rejected (probability about 0.2146^32 < 1e-21): z = +0.
   Fills:  uniform_fill: out[j] = RN(lo + RN(RN(hi - lo) * u_j));
           normal_fill:  out[j] = RN(mean + RN(std * z_j)).
           NaN results are 0x7fc00000.  The products are rounded before the
           addition on every compiler (contraction barrier).
   The _range forms compute elements first .. first + n - 1 of the stream,
   for splitting a fill between threads: any split gives the same bits. */
#ifndef REPDL_RNG_H
#define REPDL_RNG_H

#include "config.h"
#include "detail/barrier.h"
#include "log.h"
REPDL_BEGIN_CODE

/* ---- Philox4x32 ---- */

/* One round: (hi, lo) of M0 * c0 and M1 * c2, then the Feistel-like mix. */
REPDL_FN void repdl__philox4x32_round(uint32_t c[4], uint32_t k0, uint32_t k1)
{
    uint64_t p0 = (uint64_t)0xD2511F53u * c[0];
    uint64_t p1 = (uint64_t)0xCD9E8D57u * c[2];
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
    c[1] = (uint32_t)p1;
    c[3] = (uint32_t)p0;
    c[0] = n0;
    c[2] = n2;
}

/* Philox4x32 with `rounds` rounds (the key is bumped by the Weyl constants
   between rounds).  rounds = 10 is the generator; 7 is only for the
   known-answer tests. */
REPDL_FN void repdl__philox4x32_r(int rounds, const uint32_t ctr[4], const uint32_t key[2],
                                  uint32_t out[4])
{
    uint32_t c[4];
    uint32_t k0 = key[0], k1 = key[1];
    int r;
    c[0] = ctr[0];
    c[1] = ctr[1];
    c[2] = ctr[2];
    c[3] = ctr[3];
    for (r = 0; r < rounds; r++) {
        if (r > 0) {
            k0 += 0x9E3779B9u; /* golden ratio */
            k1 += 0xBB67AE85u; /* sqrt(3) - 1 */
        }
        repdl__philox4x32_round(c, k0, k1);
    }
    out[0] = c[0];
    out[1] = c[1];
    out[2] = c[2];
    out[3] = c[3];
}

/* Philox4x32-10: out = philox(ctr, key). */
REPDL_API void repdl_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    repdl__philox4x32_r(10, ctr, key, out);
}

/* The block of counter b in space (c2, c3) of seed. */
REPDL_FN void repdl__rng_block(uint64_t seed, uint64_t b, uint32_t c2, uint32_t c3,
                               uint32_t out[4])
{
    uint32_t ctr[4], key[2];
    ctr[0] = (uint32_t)b;
    ctr[1] = (uint32_t)(b >> 32);
    ctr[2] = c2;
    ctr[3] = c3;
    key[0] = (uint32_t)seed;
    key[1] = (uint32_t)(seed >> 32);
    repdl_philox4x32_10(ctr, key, out);
}

/* Counter blocks that n uniform (u32, dropout) elements use: ceil(n / 4). */
REPDL_API uint64_t repdl_rng_uniform_blocks(size_t n) { return ((uint64_t)n + 3u) / 4u; }
/* Counter blocks that n normal elements use: n. */
REPDL_API uint64_t repdl_rng_normal_blocks(size_t n) { return (uint64_t)n; }

/* ---- Single elements ---- */

/* Element i of the uint32 stream (seed, offset). */
REPDL_API uint32_t repdl_rng_u32(uint64_t seed, uint64_t offset, uint64_t i)
{
    uint32_t w[4];
    repdl__rng_block(seed, offset + i / 4u, 0u, 0u, w);
    return w[i % 4u];
}

/* A word to a uniform float of [0, 1): (w >> 8) 2^-24, exact. */
REPDL_FN float repdl__rng_u01(uint32_t w) { return repdl__fmul((float)(w >> 8), 5.9604645e-08f); }

/* Element i of the uniform stream, in [0, 1). */
REPDL_API float repdl_rng_uniform_f32(uint64_t seed, uint64_t offset, uint64_t i)
{
    return repdl__rng_u01(repdl_rng_u32(seed, offset, i));
}

/* A word to a float of [-1, 1): ((w >> 8) - 2^23) 2^-23, exact. */
REPDL_FN float repdl__rng_sym(uint32_t w)
{
    return repdl__fmul((float)((int32_t)(w >> 8) - 8388608), 1.1920929e-07f);
}

/* One polar attempt from the words (wx, wy): 1 and *z if accepted. */
REPDL_FN int repdl__rng_polar(uint32_t wx, uint32_t wy, float *z)
{
    float x = repdl__rng_sym(wx), y = repdl__rng_sym(wy);
    /* x*x and y*y are each rounded before the addition (the barrier stops
       a host compiler from fusing them into an FMA). */
    float s = repdl__fadd(repdl__fkeep(repdl__fmul(x, x)), repdl__fkeep(repdl__fmul(y, y)));
    float l, t;
    if (!repdl__flt(s, 1.0f) || repdl__feq(s, 0.0f)) return 0;
    /* s in [2^-46, 1): logf(s) in [-31.9, 0), -2l exact, t finite */
    l = repdl_log_f32(s);
    t = repdl__fdiv(repdl__fmul(-2.0f, l), s);
    *z = repdl__fmul(x, repdl__fsqrt(t));
    return 1;
}

#define REPDL_RNG_NORMAL_BLOCKS 16 /* attempt blocks a normal may use: 32 attempts */

/* Element i of the standard normal stream (seed, offset). */
REPDL_API float repdl_rng_normal_f32(uint64_t seed, uint64_t offset, uint64_t i)
{
    uint64_t b = offset + i;
    uint32_t a;
    for (a = 0; a < REPDL_RNG_NORMAL_BLOCKS; a++) {
        uint32_t w[4];
        float z;
        repdl__rng_block(seed, b, a, 1u, w);
        if (repdl__rng_polar(w[0], w[1], &z)) return z;
        if (repdl__rng_polar(w[2], w[3], &z)) return z;
    }
    return 0.0f; /* 32 rejections: probability < 1e-21 */
}

/* ---- Fills ---- */

#define REPDL__RNG_CHUNK 256

/* w[0..m) = u32 stream elements first .. first + m - 1. */
REPDL_FN void repdl__rng_u32_run(uint64_t seed, uint64_t offset, uint64_t first, size_t m,
                                 uint32_t *w)
{
    size_t j = 0;
    while (j < m) {
        uint64_t i = first + j;
        uint32_t blk[4];
        unsigned s = (unsigned)(i % 4u);
        repdl__rng_block(seed, offset + i / 4u, 0u, 0u, blk);
        for (; s < 4u && j < m; s++, j++) w[j] = blk[s];
    }
}

/* out[j] = RN(a + RN(d * v[j])) for j < m, NaN canonical.  The products go
   through memory (REPDL__MATERIALIZE) before the additions: never fused. */
REPDL_FN void repdl__rng_affine(size_t m, float a, float d, float *v, float *out)
{
    size_t j;
    for (j = 0; j < m; j++) v[j] = repdl__fmul(d, v[j]);
    REPDL__MATERIALIZE(v);
    for (j = 0; j < m; j++) out[j] = repdl__canon(repdl__fadd(a, v[j]));
}

/* out[j] = lo + (hi - lo) * uniform(seed, offset, first + j), j < n. */
REPDL_API repdl_status repdl_rng_uniform_fill_range_f32(size_t n, uint64_t seed, uint64_t offset,
                                               uint64_t first, float lo, float hi, float *out)
{
    REPDL__FPENV_CHECK();
    float d = repdl__fsub(hi, lo);
    uint32_t w[REPDL__RNG_CHUNK];
    float v[REPDL__RNG_CHUNK];
    size_t j0, j;
    if (n > 0 && !out) return REPDL_ERR_INVALID;
    for (j0 = 0; j0 < n; j0 += REPDL__RNG_CHUNK) {
        size_t m = n - j0 < REPDL__RNG_CHUNK ? n - j0 : REPDL__RNG_CHUNK;
        repdl__rng_u32_run(seed, offset, first + j0, m, w);
        for (j = 0; j < m; j++) v[j] = repdl__rng_u01(w[j]);
        repdl__rng_affine(m, lo, d, v, out + j0);
    }
    return REPDL_OK;
}

REPDL_API repdl_status repdl_rng_uniform_fill_f32(size_t n, uint64_t seed, uint64_t offset, float lo,
                                         float hi, float *out)
{
    return repdl_rng_uniform_fill_range_f32(n, seed, offset, 0u, lo, hi, out);
}

/* out[j] = mean + std * normal(seed, offset, first + j), j < n. */
REPDL_API repdl_status repdl_rng_normal_fill_range_f32(size_t n, uint64_t seed, uint64_t offset,
                                              uint64_t first, float mean, float std, float *out)
{
    REPDL__FPENV_CHECK();
    float v[REPDL__RNG_CHUNK];
    size_t j0, j;
    if (n > 0 && !out) return REPDL_ERR_INVALID;
    for (j0 = 0; j0 < n; j0 += REPDL__RNG_CHUNK) {
        size_t m = n - j0 < REPDL__RNG_CHUNK ? n - j0 : REPDL__RNG_CHUNK;
        for (j = 0; j < m; j++) v[j] = repdl_rng_normal_f32(seed, offset, first + j0 + j);
        repdl__rng_affine(m, mean, std, v, out + j0);
    }
    return REPDL_OK;
}

REPDL_API repdl_status repdl_rng_normal_fill_f32(size_t n, uint64_t seed, uint64_t offset, float mean,
                                        float std, float *out)
{
    return repdl_rng_normal_fill_range_f32(n, seed, offset, 0u, mean, std, out);
}

/* PyTorch's default bound of Linear and Conv2d weights and biases,
   1 / sqrt(fan_in), as RN(1 / RN(sqrt(RN(fan_in)))): fan_in converted to
   the nearest binary32, its square root correctly rounded, one rounded
   division.  fan_in = 0 gives +inf. */
REPDL_API float repdl_init_bound_f32(size_t fan_in)
{
    return repdl__fdiv(1.0f, repdl__fsqrt((float)fan_in));
}

/* ---- Permutation (host: sequential by definition) ---- */

/* Draw c of the permutation stream of (seed, offset). */
REPDL_FN uint32_t repdl__rng_perm_draw(uint64_t seed, uint64_t offset, uint64_t c)
{
    uint32_t w[4];
    uint64_t d = c / 4u;
    repdl__rng_block(seed, offset, (uint32_t)d, 0x80000000u | (uint32_t)(d >> 32), w);
    return w[c % 4u];
}

/* Uniform integer of [0, r), 1 <= r <= 2^32, by Lemire's multiply-shift
   with rejection: m = x r (64-bit); accept iff lo32(m) >= (2^32 - r) mod r;
   result hi32(m).  Exactly uniform; *c counts the draws used. */
REPDL_FN uint32_t repdl__rng_bounded(uint64_t seed, uint64_t offset, uint64_t *c, uint64_t r)
{
    uint64_t m = (uint64_t)repdl__rng_perm_draw(seed, offset, (*c)++) * r;
    if ((m & 0xffffffffu) < r) {
        uint64_t t = (((uint64_t)1 << 32) - r) % r;
        while ((m & 0xffffffffu) < t)
            m = (uint64_t)repdl__rng_perm_draw(seed, offset, (*c)++) * r;
    }
    return (uint32_t)(m >> 32);
}

/* perm[0..n) = a uniformly random permutation of 0 .. n-1 (Fisher-Yates,
   Durstenfeld's form): perm[k] = k; then for k = n-1 down to 1:
   j = bounded(k + 1) (draws 0, 1, 2, ... of the permutation stream, in
   that order), swap perm[k] and perm[j].  n == 0: REPDL_OK, nothing
   (perm may be NULL).  n > 2^32 (values would not fit uint32):
   REPDL_ERR_INVALID, nothing written; so is perm == NULL with n > 0.
   Integer arithmetic only: no floating-point environment check. */
REPDL_API repdl_status repdl_rng_permutation(size_t n, uint64_t seed, uint64_t offset, uint32_t *perm)
{
    uint64_t c = 0, k;
    if (n == 0) return REPDL_OK;
    if ((uint64_t)n > ((uint64_t)1 << 32) || !perm) return REPDL_ERR_INVALID;
    for (k = 0; k < (uint64_t)n; k++) perm[k] = (uint32_t)k;
    for (k = (uint64_t)n - 1; k >= 1; k--) {
        uint32_t j = repdl__rng_bounded(seed, offset, &c, k + 1);
        uint32_t tmp = perm[k];
        perm[k] = perm[j];
        perm[j] = tmp;
    }
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_RNG_H */
