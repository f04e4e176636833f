/* repdl/conv2d.h: reproducible 2-D convolution (NCHW, groups = 1), forward
   and backward, as im2col + the canonical matrix product of gemm.h.

   Shapes: x [n][c][h][w], w [oc][c][kh][kw], b [oc], y [n][oc][oh][ow] with
     oh = (h + 2 pad_h - dil_h (kh - 1) - 1) / stride_h + 1   (0 if negative)
   and likewise ow.  Write CK = c kh kw, P = oh ow.

   Orders (docs/canonical-order.md, "Matrix products"): the filter index
   kidx = (ci kh + r) kw + s, the output pixel pq = p ow + q; tap
   (kidx, p, q) reads x[n][ci][p sh - ph + r dh][q sw - pw + s dw], or +0.0f
   when that lies outside the image (padding taps ARE steps of the chains,
   as +0).  "chain" is acc = fma(a, b, acc) (repdl__fmaf), one rounding a
   step; "fadd chain" is acc = acc + v.
     forward  y[n][o][pq] = chain over kidx ascending of (w[o][kidx], x_tap)
              from b[o] (or -0 when b == NULL);
     dx       dcol[kidx][pq] = chain over o ascending of (w[o][kidx],
              dy[n][o][pq]) from -0; then dx[n][ci][hh][ww] = fadd chain
              from -0 over kidx ascending (ci fixed, (r, s) ascending) of the
              dcol[kidx][pq] whose tap reads (hh, ww) (at most one pq per
              kidx); inputs no tap reads get -0;
     dw       dw[o][kidx] = chain over (n, p, q) ascending, n-major, of
              (dy[n][o][pq], x_tap) from -0 (padding taps included, as +0);
     db       db[o] = fadd chain over (n, p, q) ascending of dy[n][o][pq]
              from -0.
   None of these depends on the batch size n beyond the chains over n of dw
   and db, nor on threads, blocking or vector width.

   Return value: 0 done; -1 bad argument (s NULL, a stride, dilation or
   kernel size of 0, a NULL array that would be read or written); -2 out of
   memory (the im2col scratch of CK x P floats, malloc; the outputs are then
   unspecified).  Outputs are overwritten, never
   accumulated; dx, dw, db may be NULL (skipped).  Outputs must not overlap
   inputs.  Every NaN output is 0x7fc00000. */
#ifndef REPDL_CONV2D_H
#define REPDL_CONV2D_H

#include "gemm.h"

typedef struct repdl_conv2d_shape {
    size_t n, c, h, w;                                     /* input */
    size_t oc, kh, kw;                                     /* filters */
    size_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w; /* stride/dil >= 1 */
} repdl_conv2d_shape;

/* Output extent of one dimension: (in + 2 pad - dil (k - 1) - 1) / stride
   + 1, or 0 when that is negative or an argument is 0. */
REPDL_FN size_t repdl__conv_out_dim(size_t in, size_t k, size_t stride, size_t pad, size_t dil)
{
    size_t span, room;
    if (k == 0 || stride == 0 || dil == 0) return 0;
    span = dil * (k - 1) + 1;
    room = in + 2 * pad;
    if (room < span) return 0;
    return (room - span) / stride + 1;
}

REPDL_FN size_t repdl_conv2d_out_h(const repdl_conv2d_shape *s)
{
    return repdl__conv_out_dim(s->h, s->kh, s->stride_h, s->pad_h, s->dil_h);
}

REPDL_FN size_t repdl_conv2d_out_w(const repdl_conv2d_shape *s)
{
    return repdl__conv_out_dim(s->w, s->kw, s->stride_w, s->pad_w, s->dil_w);
}

/* -1 for a shape no convolution has. */
REPDL_FN int repdl__conv2d_check(const repdl_conv2d_shape *s)
{
    if (!s) return -1;
    if (s->kh == 0 || s->kw == 0 || s->stride_h == 0 || s->stride_w == 0 || s->dil_h == 0 ||
        s->dil_w == 0)
        return -1;
    return 0;
}

/* col[kidx][pq] = x_tap(kidx, p, q) of one image x [c][h][w]: CK rows of
   P = oh ow values, +0.0f for the padding taps. */
REPDL_FN void repdl__im2col_f32(const repdl_conv2d_shape *s, size_t oh, size_t ow,
                                const float *x, float *col)
{
    size_t ci, r, t, p, q, P = oh * ow;
    for (ci = 0; ci < s->c; ci++) {
        const float *xc = x + ci * s->h * s->w;
        for (r = 0; r < s->kh; r++) {
            for (t = 0; t < s->kw; t++) {
                float *row = col + ((ci * s->kh + r) * s->kw + t) * P;
                for (p = 0; p < oh; p++) {
                    size_t ih = p * s->stride_h + r * s->dil_h; /* + pad_h */
                    float *o = row + p * ow;
                    if (ih < s->pad_h || ih - s->pad_h >= s->h) {
                        for (q = 0; q < ow; q++) o[q] = 0.0f;
                        continue;
                    }
                    {
                        const float *xr = xc + (ih - s->pad_h) * s->w;
                        size_t base = t * s->dil_w; /* iw + pad_w of q = 0 */
                        if (s->stride_w == 1 && base >= s->pad_w &&
                            base - s->pad_w + ow <= s->w) {
                            const float *src = xr + (base - s->pad_w);
                            for (q = 0; q < ow; q++) o[q] = src[q];
                        } else {
                            for (q = 0; q < ow; q++) {
                                size_t iw = q * s->stride_w + base;
                                o[q] = (iw < s->pad_w || iw - s->pad_w >= s->w)
                                           ? 0.0f
                                           : xr[iw - s->pad_w];
                            }
                        }
                    }
                }
            }
        }
    }
}

/* dx of one image from dcol [CK][P]: -0, then the fadd chains in kidx
   order (the outer loops run over kidx ascending; for a fixed input
   element each kidx adds at most one term). */
REPDL_FN void repdl__col2im_f32(const repdl_conv2d_shape *s, size_t oh, size_t ow,
                                const float *dcol, float *dx)
{
    size_t ci, r, t, p, q, i, P = oh * ow, hw = s->h * s->w;
    for (i = 0; i < s->c * hw; i++) dx[i] = -0.0f;
    for (ci = 0; ci < s->c; ci++) {
        float *xc = dx + ci * hw;
        for (r = 0; r < s->kh; r++) {
            for (t = 0; t < s->kw; t++) {
                const float *row = dcol + ((ci * s->kh + r) * s->kw + t) * P;
                for (p = 0; p < oh; p++) {
                    size_t ih = p * s->stride_h + r * s->dil_h;
                    const float *o = row + p * ow;
                    float *xr;
                    if (ih < s->pad_h || ih - s->pad_h >= s->h) continue;
                    xr = xc + (ih - s->pad_h) * s->w;
                    for (q = 0; q < ow; q++) {
                        size_t iw = q * s->stride_w + t * s->dil_w;
                        if (iw < s->pad_w || iw - s->pad_w >= s->w) continue;
                        xr[iw - s->pad_w] = repdl__fadd(xr[iw - s->pad_w], o[q]);
                    }
                }
            }
        }
    }
    for (i = 0; i < s->c * hw; i++) dx[i] = repdl__canon(dx[i]);
}

/* Scratch of n floats (n >= 1), or NULL. */
REPDL_FN float *repdl__conv_alloc(size_t n)
{
    if (n == 0) n = 1;
    if (n > (size_t)-1 / sizeof(float)) return NULL;
    return (float *)malloc(n * sizeof(float));
}

REPDL_FN int repdl_conv2d_forward_f32(const repdl_conv2d_shape *s, const float *x,
                                      const float *w, const float *b, float *y)
{
    size_t oh, ow, P, CK, in_sz, img;
    float *col;
    if (repdl__conv2d_check(s)) return -1;
    oh = repdl_conv2d_out_h(s);
    ow = repdl_conv2d_out_w(s);
    P = oh * ow;
    CK = s->c * s->kh * s->kw;
    in_sz = s->c * s->h * s->w;
    if (s->n == 0 || s->oc == 0 || P == 0) return 0;
    if (!y || (CK && !w) || (CK && in_sz && !x)) return -1;
    col = repdl__conv_alloc(CK * P);
    if (!col) return -2;
    for (img = 0; img < s->n; img++) {
        repdl__im2col_f32(s, oh, ow, x + img * in_sz, col);
        repdl__gemm_core_f32(0, 0, s->oc, P, CK, w, CK, col, P, NULL, b, 0, 1.0f, 0.0f,
                             y + img * s->oc * P, P);
    }
    free(col);
    return 0;
}

REPDL_FN int repdl_conv2d_backward_f32(const repdl_conv2d_shape *s, const float *x,
                                       const float *w, const float *dy, float *dx, float *dw,
                                       float *db)
{
    size_t oh, ow, P, CK, in_sz, img, o, i;
    float *col = NULL;
    if (repdl__conv2d_check(s)) return -1;
    oh = repdl_conv2d_out_h(s);
    ow = repdl_conv2d_out_w(s);
    P = oh * ow;
    CK = s->c * s->kh * s->kw;
    in_sz = s->c * s->h * s->w;
    if (s->n && s->oc && P && !dy) return -1;
    if (dx && s->n && in_sz && s->oc && P && !w) return -1;
    if (dw && s->n && CK && P && s->oc && !x && in_sz) return -1;
    if (db) {
        for (o = 0; o < s->oc; o++) {
            float acc = -0.0f;
            for (img = 0; img < s->n; img++) {
                const float *r = dy + (img * s->oc + o) * P;
                for (i = 0; i < P; i++) acc = repdl__fadd(acc, r[i]);
            }
            db[o] = repdl__canon(acc);
        }
    }
    if ((dw && s->oc && CK) || (dx && in_sz)) {
        col = repdl__conv_alloc(CK * P);
        if (!col) return -2;
    }
    if (dw && s->oc && CK) {
        if (s->n == 0)
            for (i = 0; i < s->oc * CK; i++) dw[i] = -0.0f;
        for (img = 0; img < s->n; img++) {
            repdl__im2col_f32(s, oh, ow, x + img * in_sz, col);
            /* dw [OC x CK] continues its chains with dy[img] [OC x P] . col^T */
            repdl__gemm_core_f32(0, 1, s->oc, CK, P, dy + img * s->oc * P, P, col, P, NULL,
                                 NULL, img > 0, 1.0f, 0.0f, dw, CK);
        }
    }
    if (dx && in_sz) {
        for (img = 0; img < s->n; img++) {
            if (CK && P)
                /* dcol [CK x P] = w^T [CK x OC] . dy[img] [OC x P] */
                repdl__gemm_core_f32(1, 0, CK, P, s->oc, w, CK, dy + img * s->oc * P, P, NULL,
                                     NULL, 0, 1.0f, 0.0f, col, P);
            repdl__col2im_f32(s, oh, ow, col, dx + img * in_sz);
        }
    }
    free(col);
    return 0;
}

#endif /* REPDL_CONV2D_H */
