/* SPDX-License-Identifier: MIT */
/* reference/rope_ref.h: rotary position embeddings as docs/rope.md defines
   them, written as plainly as possible: the oracle of tests/rope.

   Independent of include/repdl/rope.h: it uses only the correctly rounded
   functions (repdl_log2_f32, repdl_exp2_f32, repdl_sin_f32, repdl_cos_f32,
   each proven on every input by tests/math) and plain binary32 arithmetic,
   each product forced through a volatile so that no compiler fuses it with
   the addition that follows.  Loops follow the document's indices
   (batch, head, row, pair) instead of the library's flat pair index. */
#ifndef REPDL_REFERENCE_ROPE_REF_H
#define REPDL_REFERENCE_ROPE_REF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <repdl/cos.h>
#include <repdl/exp2.h>
#include <repdl/log2.h>
#include <repdl/sin.h>

static inline float ref_rope_mul(float a, float b)
{
    volatile float p = a * b;
    return p;
}

static inline float ref_rope_canon(float v)
{
    if (v != v) { uint32_t u = 0x7fc00000u; memcpy(&v, &u, 4); }
    return v;
}

/* theta_i = exp2(-RN(RN(2i / d) * RN(log2 base))), each step rounded once. */
static inline float ref_rope_theta(size_t i, size_t d, float base)
{
    volatile float q = (float)(2 * i) / (float)d;
    float t = ref_rope_mul(q, repdl_log2_f32(base));
    return repdl_exp2_f32(-t);
}

/* The table, position-major: row p, column i. */
static inline void ref_rope_table(size_t positions, size_t d, float base, float *c, float *s)
{
    size_t p, i, h = d / 2;
    for (p = 0; p < positions; p++)
        for (i = 0; i < h; i++) {
            float a = ref_rope_mul((float)p, ref_rope_theta(i, d, base));
            c[p * h + i] = repdl_cos_f32(a);
            s[p * h + i] = repdl_sin_f32(a);
        }
}

/* Forward (back = 0) or backward (back = 1) over [B][H][n][d], row t at
   position pos0 + t; out must not alias in. */
static inline void ref_rope_apply(size_t B, size_t H, size_t n, size_t d, size_t pos0, int back,
                                  const float *c, const float *s, const float *in, float *out)
{
    size_t b, hd, t, i, h = d / 2;
    for (b = 0; b < B; b++)
        for (hd = 0; hd < H; hd++)
            for (t = 0; t < n; t++) {
                const float *x = in + ((b * H + hd) * n + t) * d;
                float *y = out + ((b * H + hd) * n + t) * d;
                for (i = 0; i < h; i++) {
                    float cc = c[(pos0 + t) * h + i], ss = s[(pos0 + t) * h + i];
                    float x1 = x[i], x2 = x[i + h];
                    if (!back) {
                        y[i] = ref_rope_canon(ref_rope_mul(x1, cc) - ref_rope_mul(x2, ss));
                        y[i + h] = ref_rope_canon(ref_rope_mul(x2, cc) + ref_rope_mul(x1, ss));
                    } else {
                        y[i] = ref_rope_canon(ref_rope_mul(x1, cc) + ref_rope_mul(x2, ss));
                        y[i + h] = ref_rope_canon(ref_rope_mul(x2, cc) - ref_rope_mul(x1, ss));
                    }
                }
            }
}

#endif /* REPDL_REFERENCE_ROPE_REF_H */
