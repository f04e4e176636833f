/* SPDX-License-Identifier: MIT */
/* bench/rng_optim/plain.c: the anchors: the plain C loops a framework
   would write (contraction allowed, no NaN canonicalisation, no barrier),
   built at -O3 -march=native -ffp-contract=fast.  Not reproducible across
   flags and machines; measured in the same run as repdl's. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

void plain_add(size_t n, const float *a, const float *b, float *y)
{
    for (size_t i = 0; i < n; i++) y[i] = a[i] + b[i];
}

void plain_scale(size_t n, float alpha, const float *x, float *y)
{
    for (size_t i = 0; i < n; i++) y[i] = alpha * x[i];
}

/* Philox4x32-10 written plainly (the same generator: the anchor measures
   what reproducibility costs, not a cheaper generator). */
static void plain_philox(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0,
                         uint32_t k1, uint32_t o[4])
{
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1; c3 = (uint32_t)p0; c0 = n0; c2 = n2;
        k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
    }
    o[0] = c0; o[1] = c1; o[2] = c2; o[3] = c3;
}

void plain_dropout(size_t n, float p, uint64_t seed, uint64_t offset, const float *x, float *y,
                   uint8_t *mask)
{
    float scale = 1.0f / (1.0f - p);
    for (size_t i = 0; i < n; i += 4) {
        uint32_t o[4];
        uint64_t b = offset + i / 4;
        plain_philox((uint32_t)b, (uint32_t)(b >> 32), 0, 0, (uint32_t)seed, (uint32_t)(seed >> 32), o);
        for (size_t j = 0; j < 4 && i + j < n; j++) {
            int k = (float)(o[j] >> 8) * 0x1p-24f >= p;
            mask[i + j] = (uint8_t)k;
            y[i + j] = k ? x[i + j] * scale : 0.0f;
        }
    }
}

void plain_adam(size_t n, float *w, const float *g, float *m, float *v, float lr, float b1,
                float b2, float eps, float wd, long t)
{
    float bc1 = 1.0f - powf(b1, (float)t), bc2 = 1.0f - powf(b2, (float)t);
    float step_size = lr / bc1, bc2s = sqrtf(bc2);
    for (size_t i = 0; i < n; i++) {
        float gi = g[i] + wd * w[i];
        m[i] = b1 * m[i] + (1.0f - b1) * gi;
        v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
        w[i] -= step_size * m[i] / (sqrtf(v[i]) / bc2s + eps);
    }
}
