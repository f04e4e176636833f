/* SPDX-License-Identifier: MIT */
/* repdl/rope.h: rotary position embeddings (RoPE), forward and backward,
   with an angle table that every machine builds to the same bits.

   Convention: half-split pairs (GPT-NeoX, LLaMA in Hugging Face form).  A
   head vector of even length d is rotated pair by pair, element i with
   element i + d/2, for 0 <= i < d/2, by the angle of position p and
   frequency i:
     y[i]       = RN(RN(x[i] c) - RN(x[i + d/2] s))
     y[i + d/2] = RN(RN(x[i + d/2] c) + RN(x[i] s))
   with c = cos_tab[p][i], s = sin_tab[p][i]; every product is rounded on
   its own (never fused), then the sum or difference once.  The backward
   pass is the transposed rotation, rounded the same way:
     dx[i]       = RN(RN(dy[i] c) + RN(dy[i + d/2] s))
     dx[i + d/2] = RN(RN(dy[i + d/2] c) - RN(dy[i] s))
   Every output element is a pure function of its pair and its position:
   no sum, so no order; threads, blocks and batch composition cannot change
   a bit.  NaN outputs are the canonical 0x7fc00000.

   The table (repdl_rope_table_f32), for position p and frequency i:
     L        = repdl_log2_f32(base)                   correctly rounded
     e_i      = RN(2i / d)                             one division (2i, d exact)
     t_i      = RN(e_i L)                              one product
     theta_i  = repdl_exp2_f32(-t_i)                   correctly rounded
     a(p, i)  = RN(p theta_i)                          one product (p exact)
     cos_tab[p][i] = repdl_cos_f32(a(p, i)), sin_tab[p][i] = repdl_sin_f32(a(p, i))
   so theta_i approximates base^(-2i/d) (PyTorch's float pipeline rounds
   differently: the tables agree to a few ulps, not bit for bit) and every
   step is one correctly rounded operation: the same table everywhere.
   Limits that keep the integers exact in binary32: d <= 2^24 and
   positions <= 2^24.  base must be finite and > 0 (10000 is usual).

   Layout: x, y, dy, dx are [batch][heads][n][d], contiguous; row t of each
   (batch, head) has position pos0 + t.  cos_tab and sin_tab are
   [positions][d/2].  A sequence that reaches past the table (pos0 + n >
   positions) is REPDL_ERR_INVALID, as are d odd or 0, a table longer than
   2^24 positions, a NULL array where an element would be read or written;
   a size product past size_t is REPDL_ERR_OVERFLOW; nothing is written
   then.  y may be x (in place) and dx may be dy; otherwise arrays must not
   overlap.  n, batch or heads 0: nothing read, NULL arrays accepted (the
   position check still applies to pos0 alone: pos0 <= positions).

     float c[128 * 32], s[128 * 32];
     repdl_rope_table_f32(128, 64, 10000.0f, c, s);
     repdl_rope_forward_f32(B, H, n, 64, pos0, 128, c, s, q, q);

   CUDA: repdl_cuda_rope_table_f32, repdl_cuda_rope_forward_f32 and
   repdl_cuda_rope_backward_f32 (cuda/rope.cu) run these same per-element
   functions (docs/rope.md). */
#ifndef REPDL_ROPE_H
#define REPDL_ROPE_H

#include "config.h"
#include "detail/barrier.h"
#include "exp2.h"
#include "log2.h"
#include "sin.h"
#include "cos.h"
REPDL_BEGIN_CODE

/* The largest d and table length: 2^24, below which every integer is a
   binary32 value. */
#define REPDL_ROPE_MAX ((size_t)1 << 24)

/* theta_i of the table for frequency i of head size d, L = RN(log2(base)). */
REPDL_FN float repdl__rope_theta(size_t i, size_t d, float L)
{
    float e = repdl__fdiv((float)(2 * i), (float)d); /* 2i < d <= 2^24: exact operands */
    float t = repdl__fmul(e, L);
    return repdl_exp2_f32(repdl__fneg(t));
}

/* The angle of position p (p < 2^24: exact as binary32). */
REPDL_FN float repdl__rope_angle(size_t p, float theta)
{
    return repdl__fmul((float)p, theta);
}

/* One pair, forward (dir = 0) or backward (dir = 1), in place on a[0] and
   b[0] = the element d/2 further. */
REPDL_FN void repdl__rope_pair(float c, float s, int dir, float u, float v, float *a, float *b)
{
    /* each product kept rounded (detail/barrier.h): no FMA with the sum */
    float uc = repdl__fkeep(repdl__fmul(u, c)), vs = repdl__fkeep(repdl__fmul(v, s));
    float vc = repdl__fkeep(repdl__fmul(v, c)), us = repdl__fkeep(repdl__fmul(u, s));
    if (!dir) {
        *a = repdl__canon(repdl__fsub(uc, vs));
        *b = repdl__canon(repdl__fadd(vc, us));
    } else {
        *a = repdl__canon(repdl__fadd(uc, vs));
        *b = repdl__canon(repdl__fsub(vc, us));
    }
}

/* The argument checks of the table (host and CUDA launcher). */
REPDL_FN repdl_status repdl__rope_table_check(size_t positions, size_t d, float base,
                                              const float *cos_tab, const float *sin_tab)
{
    size_t cells = positions;
    if (d == 0 || (d & 1) || d > REPDL_ROPE_MAX || positions > REPDL_ROPE_MAX) return REPDL_ERR_INVALID;
    /* finite and > 0: NaN fails the comparison */
    if (!(base > 0.0f) || !(base <= 3.40282347e38f)) return REPDL_ERR_INVALID;
    if (repdl__size_mul(&cells, d / 2)) return REPDL_ERR_OVERFLOW;
    if (cells && (!cos_tab || !sin_tab)) return REPDL_ERR_INVALID;
    return REPDL_OK;
}

/* The argument checks of forward and backward (host and CUDA launcher);
   *count receives the number of pairs, batch * heads * n * d / 2. */
REPDL_FN repdl_status repdl__rope_check(size_t batch, size_t heads, size_t n, size_t d, size_t pos0,
                                        size_t positions, const float *cos_tab,
                                        const float *sin_tab, const float *in, const float *out,
                                        size_t *count)
{
    size_t pairs = batch, cells = positions;
    if (d == 0 || (d & 1) || d > REPDL_ROPE_MAX || positions > REPDL_ROPE_MAX) return REPDL_ERR_INVALID;
    if (pos0 > positions || n > positions - pos0) return REPDL_ERR_INVALID;
    if (repdl__size_mul(&pairs, heads) || repdl__size_mul(&pairs, n) ||
        repdl__size_mul(&pairs, d))
        return REPDL_ERR_OVERFLOW;
    if (repdl__size_mul(&cells, d / 2)) return REPDL_ERR_OVERFLOW;
    if (pairs && (!cos_tab || !sin_tab || !in || !out)) return REPDL_ERR_INVALID;
    *count = pairs / 2;
    return REPDL_OK;
}

/* Pair j (0 <= j < batch * heads * n * d/2) of the [batch][heads][n][d]
   array: row r = j / (d/2), its position pos0 + r % n, frequency j % (d/2). */
REPDL_FN void repdl__rope_elem(size_t j, size_t n, size_t d, size_t pos0, int dir,
                               const float *cos_tab, const float *sin_tab, const float *in,
                               float *out)
{
    size_t h = d / 2, r = j / h, i = j - r * h;
    size_t p = pos0 + r % n;
    size_t e = r * d + i;
    float c = cos_tab[p * h + i], s = sin_tab[p * h + i];
    float u = in[e], v = in[e + h];
    repdl__rope_pair(c, s, dir, u, v, out + e, out + e + h);
}

/* cos_tab[p][i] and sin_tab[p][i] for 0 <= p < positions, 0 <= i < d/2
   (the table of the header comment).  REPDL_ERR_INVALID for d odd or 0,
   d or positions above 2^24, base not finite or <= 0 (NaN included), NULL
   tables when positions > 0; nothing is written then. */
REPDL_API repdl_status repdl_rope_table_f32(size_t positions, size_t d, float base,
                                            float *cos_tab, float *sin_tab)
{
    repdl_status st;
    size_t h = d / 2, i, p;
    float L;
    REPDL__FPENV_CHECK();
    st = repdl__rope_table_check(positions, d, base, cos_tab, sin_tab);
    if (st != REPDL_OK) return st;
    L = repdl_log2_f32(base);
    for (i = 0; i < h; i++) {
        float theta = repdl__rope_theta(i, d, L);
        for (p = 0; p < positions; p++) {
            float a = repdl__rope_angle(p, theta);
            cos_tab[p * h + i] = repdl_cos_f32(a);
            sin_tab[p * h + i] = repdl_sin_f32(a);
        }
    }
    return REPDL_OK;
}

REPDL_FN repdl_status repdl__rope_run(size_t batch, size_t heads, size_t n, size_t d, size_t pos0,
                                      size_t positions, int dir, const float *cos_tab,
                                      const float *sin_tab, const float *in, float *out)
{
    size_t count = 0, h = d / 2, r, i;
    repdl_status st;
    REPDL__FPENV_CHECK();
    st = repdl__rope_check(batch, heads, n, d, pos0, positions, cos_tab, sin_tab, in, out, &count);
    if (st != REPDL_OK) return st;
    /* row by row: the pairs of repdl__rope_elem (pair j = r h + i), each
       computed from its own two inputs, with the row's position and table
       row found once (d >= 2 here, so h >= 1 and count = rows h) */
    for (r = 0; r < count / h; r++) {
        const float *c = cos_tab + (pos0 + r % n) * h, *s = sin_tab + (pos0 + r % n) * h;
        const float *x = in + r * d;
        float *y = out + r * d;
        for (i = 0; i < h; i++) repdl__rope_pair(c[i], s[i], dir, x[i], x[i + h], y + i, y + i + h);
    }
    return REPDL_OK;
}

/* Forward: y = the rotation of x (header comment), row t of every
   (batch, head) at position pos0 + t of a table of `positions` rows. */
REPDL_API repdl_status repdl_rope_forward_f32(size_t batch, size_t heads, size_t n, size_t d,
                                              size_t pos0, size_t positions,
                                              const float *cos_tab, const float *sin_tab,
                                              const float *x, float *y)
{
    return repdl__rope_run(batch, heads, n, d, pos0, positions, 0, cos_tab, sin_tab, x, y);
}

/* Backward: dx = the transposed rotation of dy (header comment). */
REPDL_API repdl_status repdl_rope_backward_f32(size_t batch, size_t heads, size_t n, size_t d,
                                               size_t pos0, size_t positions,
                                               const float *cos_tab, const float *sin_tab,
                                               const float *dy, float *dx)
{
    return repdl__rope_run(batch, heads, n, d, pos0, positions, 1, cos_tab, sin_tab, dy, dx);
}

REPDL_END_CODE
#endif /* REPDL_ROPE_H */
