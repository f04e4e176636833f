/* SPDX-License-Identifier: MIT */
/* reference/attention_ref.h: the definition of attention.h (docs/attention.md,
   docs/canonical-order.md "Attention") written as plain loops: the oracle
   of tests/attention.

   Every sum is reduce_ref.h's ref_sum over ALL index positions (nk keys,
   or the G nq query rows of a group), with the term of an index that the
   row does not see written as -0.0: no prefix, no skipping, so the
   library's shortcuts (the causal prefix, the skipped additions of its
   leaves) are checked against the plain definition.  Products go through
   ref_mul (a volatile: never fused).  The correctly rounded exp and log
   are repdl's public repdl_exp_f32 / repdl_log_f32 (proven for every input
   by tests/math); nothing else of the library is used.  Slow, and that is
   fine. */
#ifndef REPDL_REFERENCE_ATTENTION_REF_H
#define REPDL_REFERENCE_ATTENTION_REF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reduce_ref.h"

#include <repdl/exp.h>
#include <repdl/log.h>

typedef struct ref_attn_shape {
    size_t batch, hq, hkv, nq, nk, d, q_pos0, R; /* R: key rows per head */
    int causal;
} ref_attn_shape;

static inline float *ref_attn_alloc(size_t n)
{
    float *p = (float *)malloc((n ? n : 1) * sizeof(float));
    if (!p) abort();
    return p;
}

/* Key j seen by query i of batch entry b. */
static inline int ref_attn_seen(const ref_attn_shape *s, const float *mask,
                                const unsigned char *keep, size_t b, size_t i, size_t j)
{
    if (s->causal && j > s->q_pos0 + i) return 0;
    if (keep && keep[b * s->nk + j] == 0) return 0;
    if (mask) {
        float m = mask[(b * s->nq + i) * s->nk + j];
        if (m == ref_from_bits(0xff800000u)) return 0;
    }
    return 1;
}

static inline const float *ref_attn_krow(const ref_attn_shape *s, const float *k, size_t b,
                                         size_t hh, size_t j)
{
    size_t kh = b * s->hkv + hh / (s->hq / s->hkv);
    return k + (kh * s->R + j) * s->d;
}

/* s_j for every j (seen or not). */
static inline float ref_attn_score(const ref_attn_shape *s, float scale, const float *q,
                                   const float *k, const float *mask, size_t b, size_t hh,
                                   size_t i, size_t j)
{
    const float *qi = q + ((b * s->hq + hh) * s->nq + i) * s->d;
    float x = ref_mul(ref_dot(qi, ref_attn_krow(s, k, b, hh, j), s->d), scale);
    if (mask) x = x + mask[(b * s->nq + i) * s->nk + j];
    return x;
}

static inline void ref_attention_forward(const ref_attn_shape *s, float scale, const float *q,
                                         const float *k, const float *v, const float *mask,
                                         const unsigned char *keep, float *out, float *lse)
{
    size_t b, hh, i, j, c, d = s->d, nk = s->nk;
    float *sc = ref_attn_alloc(nk), *t = ref_attn_alloc(nk);
    for (b = 0; b < s->batch; b++)
        for (hh = 0; hh < s->hq; hh++)
            for (i = 0; i < s->nq; i++) {
                size_t u = (b * s->hq + hh) * s->nq + i;
                float m = 0, l;
                int any = 0, nan = 0;
                for (j = 0; j < nk; j++) {
                    sc[j] = ref_attn_score(s, scale, q, k, mask, b, hh, i, j);
                    if (!ref_attn_seen(s, mask, keep, b, i, j)) continue;
                    if (ref_isnan(sc[j])) nan = 1;
                    if (!any || ref_greater(sc[j], m)) m = sc[j];
                    any = 1;
                }
                if (!any) {
                    for (c = 0; c < d; c++) out[u * d + c] = 0.0f;
                    if (lse) lse[u] = ref_from_bits(0xff800000u);
                    continue;
                }
                if (nan || m - m != 0) { /* NaN or infinite max */
                    for (c = 0; c < d; c++) out[u * d + c] = ref_from_bits(0x7fc00000u);
                    if (lse) lse[u] = ref_from_bits(0x7fc00000u);
                    continue;
                }
                for (j = 0; j < nk; j++)
                    t[j] = ref_attn_seen(s, mask, keep, b, i, j) ? repdl_exp_f32(sc[j] - m)
                                                                 : -0.0f;
                memcpy(sc, t, nk * sizeof(float)); /* sc = p */
                l = ref_sum(sc, nk);
                for (c = 0; c < d; c++) {
                    for (j = 0; j < nk; j++)
                        t[j] = ref_attn_seen(s, mask, keep, b, i, j)
                                   ? ref_mul(sc[j], ref_attn_krow(s, v, b, hh, j)[c])
                                   : -0.0f;
                    out[u * d + c] = ref_canon(ref_sum(t, nk) / l);
                }
                if (lse) lse[u] = ref_canon(m + repdl_log_f32(l));
            }
    free(sc);
    free(t);
}

/* dq, dk, dv (each may be NULL). */
static inline void ref_attention_backward(const ref_attn_shape *s, float scale, const float *q,
                                          const float *k, const float *v, const float *mask,
                                          const unsigned char *keep, const float *out,
                                          const float *lse, const float *dout, float *dq,
                                          float *dk, float *dv)
{
    size_t b, hh, i, j, c, r, d = s->d, nk = s->nk, G = s->hq / s->hkv, rows = G * s->nq;
    size_t nr = s->batch * s->hq * s->nq;
    float *P = ref_attn_alloc(nr * nk), *dS = ref_attn_alloc(nr * nk);
    float *t = ref_attn_alloc(nk > rows ? nk : rows);
    for (b = 0; b < s->batch; b++)
        for (hh = 0; hh < s->hq; hh++)
            for (i = 0; i < s->nq; i++) {
                size_t u = (b * s->hq + hh) * s->nq + i;
                float D = ref_dot(dout + u * d, out + u * d, d);
                for (j = 0; j < nk; j++) {
                    if (ref_attn_seen(s, mask, keep, b, i, j)) {
                        float x = ref_attn_score(s, scale, q, k, mask, b, hh, i, j);
                        float dp = ref_dot(dout + u * d, ref_attn_krow(s, v, b, hh, j), d);
                        P[u * nk + j] = repdl_exp_f32(x - lse[u]);
                        dS[u * nk + j] = ref_mul(P[u * nk + j], dp - D);
                    } else {
                        P[u * nk + j] = dS[u * nk + j] = -0.0f;
                    }
                }
                if (dq)
                    for (c = 0; c < d; c++) {
                        for (j = 0; j < nk; j++)
                            t[j] = ref_attn_seen(s, mask, keep, b, i, j)
                                       ? ref_mul(dS[u * nk + j], ref_attn_krow(s, k, b, hh, j)[c])
                                       : -0.0f;
                        dq[u * d + c] = ref_canon(ref_mul(scale, ref_sum(t, nk)));
                    }
            }
    /* the memory row (within the group) of index r = i G + g */
#define ROW(r) (((r) % G) * s->nq + (r) / G)
    for (b = 0; b < s->batch; b++)
        for (hh = 0; hh < s->hkv; hh++)
            for (j = 0; j < nk; j++) {
                size_t u0 = (b * s->hq + hh * G) * s->nq, kr = ((b * s->hkv + hh) * s->R + j) * d;
                for (c = 0; c < d; c++) {
                    if (dk) {
                        for (r = 0; r < rows; r++) /* r = i G + g */
                            t[r] = ref_attn_seen(s, mask, keep, b, r / G, j)
                                       ? ref_mul(dS[(u0 + ROW(r)) * nk + j], q[(u0 + ROW(r)) * d + c])
                                       : -0.0f;
                        dk[kr + c] = ref_canon(ref_mul(scale, ref_sum(t, rows)));
                    }
                    if (dv) {
                        for (r = 0; r < rows; r++)
                            t[r] = ref_attn_seen(s, mask, keep, b, r / G, j)
                                       ? ref_mul(P[(u0 + ROW(r)) * nk + j], dout[(u0 + ROW(r)) * d + c])
                                       : -0.0f;
                        dv[kr + c] = ref_canon(ref_sum(t, rows));
                    }
                }
            }
#undef ROW
    free(P);
    free(dS);
    free(t);
}

#endif /* REPDL_REFERENCE_ATTENTION_REF_H */
