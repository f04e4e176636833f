/* SPDX-License-Identifier: MIT */
/* reference/gemm_ref.h: the canonical orders of the matrix products
   (docs/canonical-order.md, "Matrix products") written as plainly as
   possible: the oracle of include/repdl/gemm.h, linear.h, conv2d.h and of
   the CUDA kernels, compared bit for bit.

   Independent of the library: it includes no repdl header.  The fused
   multiply-add is the C library's fmaf (C99, correctly rounded: glibc
   computes it exactly in software where there is no FMA instruction), the
   one rounding of a product is a volatile store, additions are plain `+`.
   The convolutions are direct loops over the definition (no im2col, no
   col2im): for each output, walk its chain in the stated order.

   The reductions over the batch (linear dW, db; conv2d dw, db) follow "The
   batch order": one chain per micro-batch of REF_MICROBATCH samples (the
   last one short), the micro-batch values added by the aligned buddy tree,
   written as its recursive definition (ref_batch_tree, batch_ref.h). */
#ifndef REPDL_REFERENCE_GEMM_REF_H
#define REPDL_REFERENCE_GEMM_REF_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "batch_ref.h"

static inline float gref_canon(float v)
{
    if (v != v) { uint32_t u = 0x7fc00000u; memcpy(&v, &u, 4); }
    return v;
}

static inline float gref_mul(float a, float b) /* RN(a b), never fused */
{
    volatile float p = a * b;
    return p;
}

/* C = alpha (op(A) op(B) [+ bias]) + beta C: the pinned order of C[i][j]. */
static inline void ref_gemm_f32(int transA, int transB, size_t M, size_t N, size_t K,
                                float alpha, const float *A, size_t lda, const float *B,
                                size_t ldb, const float *bias, float beta, float *C, size_t ldc)
{
    size_t i, j, k;
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            float acc = bias ? bias[j] : -0.0f, r;
            for (k = 0; k < K; k++) {
                float a = transA ? A[k * lda + i] : A[i * lda + k];
                float b = transB ? B[j * ldb + k] : B[k * ldb + j];
                acc = fmaf(a, b, acc);
            }
            r = (alpha == 1.0f) ? acc : gref_mul(alpha, acc);
            if (beta != 0.0f) r = fmaf(beta, C[i * ldc + j], r);
            C[i * ldc + j] = gref_canon(r);
        }
}

/* Linear layer, x [M x K], W [N x K]: direct loops of the definitions. */
static inline void ref_linear_forward_f32(size_t M, size_t K, size_t N, const float *x,
                                          const float *W, const float *b, float *y)
{
    size_t m, n, k;
    for (m = 0; m < M; m++)
        for (n = 0; n < N; n++) {
            float acc = b ? b[n] : -0.0f;
            for (k = 0; k < K; k++) acc = fmaf(x[m * K + k], W[n * K + k], acc);
            y[m * N + n] = gref_canon(acc);
        }
}

static inline void ref_linear_backward_f32(size_t M, size_t K, size_t N, const float *x,
                                           const float *W, const float *dy, float *dx,
                                           float *dW, float *db)
{
    size_t m, n, k;
    if (dx)
        for (m = 0; m < M; m++)
            for (k = 0; k < K; k++) {
                float acc = -0.0f;
                for (n = 0; n < N; n++) acc = fmaf(dy[m * N + n], W[n * K + k], acc);
                dx[m * K + k] = gref_canon(acc);
            }
    size_t G = (M + REF_MICROBATCH - 1) / REF_MICROBATCH, g;
    float *v = (float *)malloc((G ? G : 1) * sizeof(float));
    if (!v) abort();
    if (dW)
        for (n = 0; n < N; n++)
            for (k = 0; k < K; k++) {
                for (g = 0; g < G; g++) {
                    float acc = -0.0f;
                    for (m = g * REF_MICROBATCH; m < M && m < (g + 1) * REF_MICROBATCH; m++)
                        acc = fmaf(dy[m * N + n], x[m * K + k], acc);
                    v[g] = acc;
                }
                dW[n * K + k] = gref_canon(ref_batch_tree(v, G));
            }
    if (db)
        for (n = 0; n < N; n++) {
            for (g = 0; g < G; g++) {
                float acc = -0.0f;
                for (m = g * REF_MICROBATCH; m < M && m < (g + 1) * REF_MICROBATCH; m++)
                    acc = acc + dy[m * N + n];
                v[g] = acc;
            }
            db[n] = gref_canon(ref_batch_tree(v, G));
        }
    free(v);
}

/* Convolution geometry (the same fields as repdl_conv2d_shape, its own
   struct so that this file stays independent). */
typedef struct ref_conv_shape {
    size_t n, c, h, w, oc, kh, kw, sh, sw, ph, pw, dh, dw;
} ref_conv_shape;

static inline size_t ref_conv_out(size_t in, size_t k, size_t st, size_t pad, size_t dil)
{
    long long v = ((long long)in + 2 * (long long)pad - (long long)dil * ((long long)k - 1) - 1);
    if (v < 0) return 0;
    return (size_t)(v / (long long)st + 1);
}

/* The tap of (ci, r, t) at output (p, q) of image img: x or +0. */
static inline float ref_conv_tap(const ref_conv_shape *s, const float *x, size_t img, size_t ci,
                                 size_t r, size_t t, size_t p, size_t q)
{
    long long ih = (long long)(p * s->sh) - (long long)s->ph + (long long)(r * s->dh);
    long long iw = (long long)(q * s->sw) - (long long)s->pw + (long long)(t * s->dw);
    if (ih < 0 || iw < 0 || ih >= (long long)s->h || iw >= (long long)s->w) return 0.0f;
    return x[((img * s->c + ci) * s->h + (size_t)ih) * s->w + (size_t)iw];
}

static inline void ref_conv2d_forward_f32(const ref_conv_shape *s, const float *x,
                                          const float *w, const float *b, float *y)
{
    size_t oh = ref_conv_out(s->h, s->kh, s->sh, s->ph, s->dh);
    size_t ow = ref_conv_out(s->w, s->kw, s->sw, s->pw, s->dw);
    size_t img, o, p, q, ci, r, t;
    for (img = 0; img < s->n; img++)
        for (o = 0; o < s->oc; o++)
            for (p = 0; p < oh; p++)
                for (q = 0; q < ow; q++) {
                    float acc = b ? b[o] : -0.0f;
                    for (ci = 0; ci < s->c; ci++)
                        for (r = 0; r < s->kh; r++)
                            for (t = 0; t < s->kw; t++)
                                acc = fmaf(w[((o * s->c + ci) * s->kh + r) * s->kw + t],
                                           ref_conv_tap(s, x, img, ci, r, t, p, q), acc);
                    y[((img * s->oc + o) * oh + p) * ow + q] = gref_canon(acc);
                }
}

/* Backward: dx by walking, for each input element, the kidx (r, t) that
   read it; dw and db by their chains. */
static inline void ref_conv2d_backward_f32(const ref_conv_shape *s, const float *x,
                                           const float *w, const float *dy, float *dx,
                                           float *dw, float *db)
{
    size_t oh = ref_conv_out(s->h, s->kh, s->sh, s->ph, s->dh);
    size_t ow = ref_conv_out(s->w, s->kw, s->sw, s->pw, s->dw);
    size_t img, o, p, q, ci, r, t, hh, ww, g;
    size_t G = (s->n + REF_MICROBATCH - 1) / REF_MICROBATCH;
    float *v = (float *)malloc((G ? G : 1) * sizeof(float));
    if (!v) abort();
    if (db)
        for (o = 0; o < s->oc; o++) {
            for (g = 0; g < G; g++) {
                float acc = -0.0f;
                for (img = g * REF_MICROBATCH; img < s->n && img < (g + 1) * REF_MICROBATCH;
                     img++)
                    for (p = 0; p < oh; p++)
                        for (q = 0; q < ow; q++)
                            acc = acc + dy[((img * s->oc + o) * oh + p) * ow + q];
                v[g] = acc;
            }
            db[o] = gref_canon(ref_batch_tree(v, G));
        }
    if (dw)
        for (o = 0; o < s->oc; o++)
            for (ci = 0; ci < s->c; ci++)
                for (r = 0; r < s->kh; r++)
                    for (t = 0; t < s->kw; t++) {
                        for (g = 0; g < G; g++) {
                            float acc = -0.0f;
                            for (img = g * REF_MICROBATCH;
                                 img < s->n && img < (g + 1) * REF_MICROBATCH; img++)
                                for (p = 0; p < oh; p++)
                                    for (q = 0; q < ow; q++)
                                        acc = fmaf(dy[((img * s->oc + o) * oh + p) * ow + q],
                                                   ref_conv_tap(s, x, img, ci, r, t, p, q), acc);
                            v[g] = acc;
                        }
                        dw[((o * s->c + ci) * s->kh + r) * s->kw + t] = gref_canon(ref_batch_tree(v, G));
                    }
    free(v);
    if (dx)
        for (img = 0; img < s->n; img++)
            for (ci = 0; ci < s->c; ci++)
                for (hh = 0; hh < s->h; hh++)
                    for (ww = 0; ww < s->w; ww++) {
                        float acc = -0.0f;
                        for (r = 0; r < s->kh; r++)
                            for (t = 0; t < s->kw; t++) {
                                /* p sh = hh + ph - r dh, q sw = ww + pw - t dw */
                                long long a = (long long)(hh + s->ph) - (long long)(r * s->dh);
                                long long bq = (long long)(ww + s->pw) - (long long)(t * s->dw);
                                float d = -0.0f;
                                if (a < 0 || bq < 0 || a % (long long)s->sh ||
                                    bq % (long long)s->sw)
                                    continue;
                                p = (size_t)(a / (long long)s->sh);
                                q = (size_t)(bq / (long long)s->sw);
                                if (p >= oh || q >= ow) continue;
                                for (o = 0; o < s->oc; o++)
                                    d = fmaf(w[((o * s->c + ci) * s->kh + r) * s->kw + t],
                                             dy[((img * s->oc + o) * oh + p) * ow + q], d);
                                acc = acc + d;
                            }
                        dx[((img * s->c + ci) * s->h + hh) * s->w + ww] = gref_canon(acc);
                    }
}

#endif /* REPDL_REFERENCE_GEMM_REF_H */
