/* SPDX-License-Identifier: MIT */
/* reference/rng_optim_ref.h: the plain definitions of rng.h,
   elementwise.h and optim.h (Philox4x32-10, the counter streams, uniform
   and dropout, SGD and Adam/AdamW), the oracle of tests/rng_optim,
   written independently of include/repdl/ from the definitions in
   docs/rng-optim.md.

   Every binary32 operation is one C operation whose result is stored to a
   volatile float: a compiler cannot fuse it with the next operation, so
   these are the IEEE roundings whatever -ffp-contract says.  No repdl
   header is used here.  The normal distribution's reference is in MPFR
   (tests/rng_optim/test_rng_optim.c). */
#ifndef REPDL_REFERENCE_RNG_OPTIM_REF_H
#define REPDL_REFERENCE_RNG_OPTIM_REF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float ref_add(float a, float b) { volatile float r = a + b; return r; }
static inline float ref_sub(float a, float b) { volatile float r = a - b; return r; }
static inline float ref_mul(float a, float b) { volatile float r = a * b; return r; }
static inline float ref_div(float a, float b) { volatile float r = a / b; return r; }
static inline float ref_sqrt(float a) { volatile float r = sqrtf(a); return r; }
static inline uint32_t ref_bits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static inline float ref_float(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static inline float ref_canon(float x) { return x != x ? ref_float(0x7fc00000u) : x; }

/* Philox4x32-10 as in the SC11 paper: ten rounds; before round r (r >= 1)
   the key is k + r (W0, W1).  Written as a key schedule computed first. */
static inline void ref_philox(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t ks[10][2];
    uint32_t L0 = ctr[0], R0 = ctr[1], L1 = ctr[2], R1 = ctr[3];
    int r;
    for (r = 0; r < 10; r++) {
        ks[r][0] = key[0] + (uint32_t)r * 0x9E3779B9u;
        ks[r][1] = key[1] + (uint32_t)r * 0xBB67AE85u;
    }
    for (r = 0; r < 10; r++) {
        uint64_t a = 0xD2511F53ull * (uint64_t)L0; /* mulhilo(M0, L0) */
        uint64_t b = 0xCD9E8D57ull * (uint64_t)L1; /* mulhilo(M1, L1) */
        uint32_t nL0 = (uint32_t)(b >> 32) ^ R0 ^ ks[r][0];
        uint32_t nR0 = (uint32_t)(b & 0xffffffffu);
        uint32_t nL1 = (uint32_t)(a >> 32) ^ R1 ^ ks[r][1];
        uint32_t nR1 = (uint32_t)(a & 0xffffffffu);
        L0 = nL0; R0 = nR0; L1 = nL1; R1 = nR1;
    }
    out[0] = L0; out[1] = R0; out[2] = L1; out[3] = R1;
}

static inline void ref_block(uint64_t seed, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t out[4])
{
    uint32_t ctr[4], key[2];
    ctr[0] = c0; ctr[1] = c1; ctr[2] = c2; ctr[3] = c3;
    key[0] = (uint32_t)(seed & 0xffffffffu);
    key[1] = (uint32_t)(seed >> 32);
    ref_philox(ctr, key, out);
}

/* u32 stream: element i is word i mod 4 of block offset + floor(i/4),
   space (0, 0). */
static inline uint32_t ref_u32(uint64_t seed, uint64_t offset, uint64_t i)
{
    uint32_t o[4];
    uint64_t b = offset + (i >> 2);
    ref_block(seed, (uint32_t)b, (uint32_t)(b >> 32), 0, 0, o);
    return o[i & 3];
}

/* uniform: top 24 bits over 2^24 (a division by a power of two: exact). */
static inline float ref_uniform(uint64_t seed, uint64_t offset, uint64_t i)
{
    return (float)(ref_u32(seed, offset, i) >> 8) / 16777216.0f;
}

/* Permutation: draw c is word c mod 4 of block (lo(offset), hi(offset),
   lo(c/4), hi(c/4) + 2^31).  Bounded draw in [0, r): m = x r, accepted
   iff m mod 2^32 >= 2^32 mod r, value floor(m / 2^32).  Fisher-Yates from
   the top: for k = n-1 .. 1 swap perm[k] and perm[bounded(k+1)]. */
static inline void ref_permutation(uint64_t seed, uint64_t offset, uint64_t n, uint32_t *perm)
{
    uint64_t c = 0, k;
    for (k = 0; k < n; k++) perm[k] = (uint32_t)k;
    for (k = n - 1; n > 1 && k >= 1; k--) {
        uint64_t r = k + 1, thr = 0x100000000ull % r, m;
        for (;;) {
            uint32_t o[4];
            uint64_t d = c >> 2;
            ref_block(seed, (uint32_t)offset, (uint32_t)(offset >> 32), (uint32_t)d,
                    (uint32_t)(d >> 32) + 0x80000000u, o);
            m = (uint64_t)o[c & 3] * r;
            c++;
            if ((m & 0xffffffffu) >= thr) break;
        }
        {
            uint32_t j = (uint32_t)(m >> 32), t = perm[k];
            perm[k] = perm[j];
            perm[j] = t;
        }
    }
}

/* Dropout. */
static inline float ref_dropout_p(float p) { return p != p ? 1.0f : p < 0.0f ? 0.0f : p > 1.0f ? 1.0f : p; }
static inline float ref_dropout_scale(float p) { return ref_div(1.0f, ref_sub(1.0f, ref_dropout_p(p))); }

/* SGD, one element (PyTorch torch.optim.SGD, repdl's rounding order). */
static inline void ref_sgd(float lr, float mu, float damp, float wd, int nesterov, uint64_t step,
                  float *w, float g, float *buf /* NULL: no momentum */)
{
    float d = g;
    if (wd != 0.0f) d = ref_add(g, ref_mul(wd, *w));
    if (mu != 0.0f && buf) {
        if (step <= 1) *buf = ref_canon(d);
        else *buf = ref_canon(ref_add(ref_mul(mu, *buf), ref_mul(ref_sub(1.0f, damp), d)));
        if (nesterov) d = ref_add(d, ref_mul(mu, *buf));
        else d = *buf;
    }
    *w = ref_canon(ref_sub(*w, ref_mul(lr, d)));
}

/* Adam / AdamW, one element, at step t with the running powers p1, p2. */
static inline void ref_adam(float lr, float b1, float b2, float eps, float wd, int decoupled,
                   float p1, float p2, float *w, float g, float *m, float *v)
{
    float bc1 = ref_sub(1.0f, p1), bc2 = ref_sub(1.0f, p2);
    float step_size = ref_div(lr, bc1);
    float bc2s = ref_sqrt(bc2);
    float wv = *w;
    if (!decoupled && wd != 0.0f) g = ref_add(g, ref_mul(wd, wv));
    if (decoupled) wv = ref_mul(wv, ref_sub(1.0f, ref_mul(lr, wd)));
    *m = ref_add(ref_mul(b1, *m), ref_mul(ref_sub(1.0f, b1), g));
    *v = ref_add(ref_mul(b2, *v), ref_mul(ref_sub(1.0f, b2), ref_mul(g, g)));
    {
        float den = ref_add(ref_div(ref_sqrt(*v), bc2s), eps);
        wv = ref_sub(wv, ref_mul(step_size, ref_div(*m, den)));
    }
    *m = ref_canon(*m);
    *v = ref_canon(*v);
    *w = ref_canon(wv);
}

#endif
