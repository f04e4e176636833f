/* SPDX-License-Identifier: MIT */
/* repdl/conv2d.h: reproducible 2-D convolution (NCHW, groups = 1), forward
   and backward, on the micro-kernel of gemm.h: the forward of stride-1
   layers reads the (zero-padded) input planes directly (B operand at
   offsets, "Forward" below), other layers and the backward go through
   im2col + the canonical matrix product.  conv2d_threads.h splits both
   across threads, same bits.

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
     dw       dw[o][kidx] = the buddy tree over the micro-batches g
              (REPDL_MICROBATCH images each, the last one short; "The batch
              order") of: chain over (n in g, p, q) ascending, n-major, of
              (dy[n][o][pq], x_tap) from -0 (padding taps included, as +0);
     db       db[o] = the same tree of: fadd chain over (n in g, p, q)
              ascending of dy[n][o][pq] from -0.
   y and dx do not depend on the batch size n; dw and db only through the
   micro-batch cut (a call on the images of one micro-batch gives its
   value, so micro-batches can be computed anywhere and combined by
   include/repdl/reduce_units.h or repdl/mpi.h); none depends on threads,
   blocking or vector width.

   Return value: 0 done; -1 bad argument (s NULL, a stride, dilation or
   kernel size of 0, a NULL array that would be read or written); -3
   (REPDL_ERR_NOMEM) out of memory (the direct forward: the padded image
   c (h + 2 ph) (w + 2 pw), the packed filters and OC rows of the
   padded-width output; the im2col scratch: forward CK x P floats,
   backward (CK + OC) x P floats per image of a batch of images
   (REPDL_CONV_BATCH_FLOATS), and for n > REPDL_MICROBATCH the tree's
   pending dw and db vectors, malloc; all taken before the first output is
   written, so that out of memory writes nothing: the out-of-memory rule
   of the batch order, docs/canonical-order.md).  Outputs are overwritten,
   never accumulated; dx, dw, db may be NULL (skipped).  Outputs must not overlap
   inputs.  Every NaN output is 0x7fc00000. */
#ifndef REPDL_CONV2D_H
#define REPDL_CONV2D_H

#include "detail/accum.h"
#include "gemm.h"
REPDL_BEGIN_CODE

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
    span = dil;
    room = pad;
    /* an extent that does not fit (repdl__size_mul's bound): no output */
    if (repdl__size_mul(&span, k - 1) || repdl__size_add(&span, 1) || repdl__size_mul(&room, 2) ||
        repdl__size_add(&room, in))
        return 0;
    if (room < span) return 0;
    return (room - span) / stride + 1;
}

/* The output extents of a shape; 0 for NULL (as repdl_pool2d_out_h). */
REPDL_API size_t repdl_conv2d_out_h(const repdl_conv2d_shape *s)
{
    if (!s) return 0;
    return repdl__conv_out_dim(s->h, s->kh, s->stride_h, s->pad_h, s->dil_h);
}

REPDL_API size_t repdl_conv2d_out_w(const repdl_conv2d_shape *s)
{
    if (!s) return 0;
    return repdl__conv_out_dim(s->w, s->kw, s->stride_w, s->pad_w, s->dil_w);
}

/* REPDL_ERR_INVALID for a shape no convolution has (NULL, a zero kernel,
   stride or dilation); REPDL_ERR_OVERFLOW when an extent that the code
   forms does not fit in size_t (as a count of floats): the dilated kernel
   dil (k - 1) + 1, the padded input in + 2 pad, the input n c h w, the
   filters oc c kh kw, the im2col matrix c kh kw oh ow, the output
   n oc oh ow.  Checked before anything is written. */
REPDL_FN repdl_status repdl__conv2d_check(const repdl_conv2d_shape *s)
{
    size_t t, oh, ow;
    if (!s) return REPDL_ERR_INVALID;
    if (s->kh == 0 || s->kw == 0 || s->stride_h == 0 || s->stride_w == 0 || s->dil_h == 0 ||
        s->dil_w == 0)
        return REPDL_ERR_INVALID;
    t = s->dil_h; if (repdl__size_mul(&t, s->kh - 1) || repdl__size_add(&t, 1)) return REPDL_ERR_OVERFLOW;
    t = s->dil_w; if (repdl__size_mul(&t, s->kw - 1) || repdl__size_add(&t, 1)) return REPDL_ERR_OVERFLOW;
    t = s->pad_h; if (repdl__size_mul(&t, 2) || repdl__size_add(&t, s->h)) return REPDL_ERR_OVERFLOW;
    t = s->pad_w; if (repdl__size_mul(&t, 2) || repdl__size_add(&t, s->w)) return REPDL_ERR_OVERFLOW;
    oh = repdl_conv2d_out_h(s);
    ow = repdl_conv2d_out_w(s);
    t = s->n; if (repdl__size_mul(&t, s->c) || repdl__size_mul(&t, s->h) || repdl__size_mul(&t, s->w))
        return REPDL_ERR_OVERFLOW;
    t = s->oc; if (repdl__size_mul(&t, s->c) || repdl__size_mul(&t, s->kh) || repdl__size_mul(&t, s->kw))
        return REPDL_ERR_OVERFLOW;
    t = s->c; if (repdl__size_mul(&t, s->kh) || repdl__size_mul(&t, s->kw) || repdl__size_mul(&t, oh) ||
                  repdl__size_mul(&t, ow))
        return REPDL_ERR_OVERFLOW;
    t = s->n; if (repdl__size_mul(&t, s->oc) || repdl__size_mul(&t, oh) || repdl__size_mul(&t, ow))
        return REPDL_ERR_OVERFLOW;
    return REPDL_OK;
}

/* repdl__conv2d_check(s), then the sizes every pass uses: the output plane
   oh x ow of P = oh ow pixels, CK = c kh kw (a filter, an im2col column)
   and in_sz = c h w (an input image); no product overflows once s passed. */
REPDL_FN repdl_status repdl__conv2d_sizes(const repdl_conv2d_shape *s, size_t *oh, size_t *ow,
                                          size_t *P, size_t *CK, size_t *in_sz)
{
    repdl_status st = repdl__conv2d_check(s);
    if (st != REPDL_OK) return st;
    *oh = repdl_conv2d_out_h(s);
    *ow = repdl_conv2d_out_w(s);
    *P = *oh * *ow;
    *CK = s->c * s->kh * s->kw;
    *in_sz = s->c * s->h * s->w;
    return REPDL_OK;
}

/* The forward's argument rule, before anything is written (every forward
   form applies it): repdl__conv2d_sizes, then no output element (n, oc or
   P zero) returns REPDL_OK and writes nothing, then REPDL_ERR_INVALID for a
   NULL y, a NULL w with CK > 0 or a NULL x with CK, in_sz > 0.  Returns 1
   when there is work, otherwise the call's status (0 = REPDL_OK or an
   error, all < 1). */
REPDL_FN int repdl__conv2d_forward_args(const repdl_conv2d_shape *s, const float *x,
                                        const float *w, const float *y, size_t *oh, size_t *ow,
                                        size_t *P, size_t *CK, size_t *in_sz)
{
    repdl_status st = repdl__conv2d_sizes(s, oh, ow, P, CK, in_sz);
    if (st != REPDL_OK) return (int)st;
    if (s->n == 0 || s->oc == 0 || *P == 0) return (int)REPDL_OK;
    if (!y || (*CK && !w) || (*CK && *in_sz && !x)) return (int)REPDL_ERR_INVALID;
    return 1;
}

/* The output columns q whose tap column t lands inside the image: iw =
   q sw + t dw - pw in [0, w) exactly for q in [*lo, *hi) (a contiguous
   range, possibly empty). */
REPDL_FN void repdl__conv_qrange(const repdl_conv2d_shape *s, size_t ow, size_t t, size_t *lo,
                                 size_t *hi)
{
    size_t base = t * s->dil_w, l, h;
    l = base >= s->pad_w ? 0 : (s->pad_w - base + s->stride_w - 1) / s->stride_w;
    h = s->w + s->pad_w <= base ? 0 : (s->w + s->pad_w - base + s->stride_w - 1) / s->stride_w;
    if (h > ow) h = ow;
    if (l > h) l = h;
    *lo = l;
    *hi = h;
}

/* col[kidx][pq] (row stride ldc >= P) = x_tap(kidx, p, q) of one image
   x [c][h][w]: CK rows of P = oh ow values, +0.0f for the padding taps. */
REPDL_FN void repdl__im2col_ld_f32(const repdl_conv2d_shape *s, size_t oh, size_t ow,
                                   const float *x, float *col, size_t ldc)
{
    size_t ci, r, t, p, q, lo, hi;
    for (ci = 0; ci < s->c; ci++) {
        const float *xc = x + ci * s->h * s->w;
        for (r = 0; r < s->kh; r++) {
            for (t = 0; t < s->kw; t++) {
                float *row = col + ((ci * s->kh + r) * s->kw + t) * ldc;
                size_t off = t * s->dil_w; /* iw + pad_w of q = 0 */
                repdl__conv_qrange(s, ow, t, &lo, &hi);
                for (p = 0; p < oh; p++) {
                    size_t ih = p * s->stride_h + r * s->dil_h; /* + pad_h */
                    float *o = row + p * ow;
                    const float *xr;
                    if (ih < s->pad_h || ih - s->pad_h >= s->h) {
                        for (q = 0; q < ow; q++) o[q] = 0.0f;
                        continue;
                    }
                    xr = xc + (ih - s->pad_h) * s->w;
                    for (q = 0; q < lo; q++) o[q] = 0.0f;
                    if (s->stride_w == 1 && lo < hi) {
                        const float *src = xr + (lo + off - s->pad_w);
                        for (q = lo; q < hi; q++) o[q] = src[q - lo];
                    } else {
                        for (q = lo; q < hi; q++) o[q] = xr[q * s->stride_w + off - s->pad_w];
                    }
                    for (q = hi; q < ow; q++) o[q] = 0.0f;
                }
            }
        }
    }
}

REPDL_FN void repdl__im2col_f32(const repdl_conv2d_shape *s, size_t oh, size_t ow,
                                const float *x, float *col)
{
    repdl__im2col_ld_f32(s, oh, ow, x, col, oh * ow);
}

/* dx of one image from dcol [CK][P] (row stride ldd >= P): -0, then the
   fadd chains in kidx order (the outer loops run over kidx ascending; for
   a fixed input element each kidx adds at most one term, so the loops
   over p and q may run in any order and vectorize). */
REPDL_FN void repdl__col2im_ld_f32(const repdl_conv2d_shape *s, size_t oh, size_t ow,
                                   const float *dcol, size_t ldd, float *dx)
{
    size_t ci, r, t, p, q, i, lo, hi, hw = s->h * s->w;
    for (i = 0; i < s->c * hw; i++) dx[i] = -0.0f;
    for (ci = 0; ci < s->c; ci++) {
        float *xc = dx + ci * hw;
        for (r = 0; r < s->kh; r++) {
            for (t = 0; t < s->kw; t++) {
                const float *row = dcol + ((ci * s->kh + r) * s->kw + t) * ldd;
                size_t off = t * s->dil_w;
                repdl__conv_qrange(s, ow, t, &lo, &hi);
                if (lo >= hi) continue;
                for (p = 0; p < oh; p++) {
                    size_t ih = p * s->stride_h + r * s->dil_h;
                    const float *o = row + p * ow;
                    if (ih < s->pad_h || ih - s->pad_h >= s->h) continue;
                    if (s->stride_w == 1) {
                        float *REPDL_RESTRICT d = xc + (ih - s->pad_h) * s->w + (lo + off - s->pad_w);
                        const float *REPDL_RESTRICT v = o + lo;
                        size_t m = hi - lo;
                        for (q = 0; q < m; q++) d[q] = repdl__fadd(d[q], v[q]);
                    } else {
                        float *xr = xc + (ih - s->pad_h) * s->w;
                        for (q = lo; q < hi; q++) {
                            size_t iw = q * s->stride_w + off - s->pad_w;
                            xr[iw] = repdl__fadd(xr[iw], o[q]);
                        }
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
    return (float *)REPDL__ALLOC(n * sizeof(float));
}

/* Frees the four scratch pieces of a pass when the pass allocated them
   (own = 0: they are carved from the caller's block); free(NULL) is a
   no-op, so pieces never allocated may be NULL. */
REPDL_FN void repdl__conv_free4(int own, void *a, void *b, void *c, void *d)
{
    if (!own) return;
    free(a);
    free(b);
    free(c);
    free(d);
}

/* ---- Forward ----
   Direct form (stride 1 in both dimensions, the output at least half as
   wide as the padded input): no im2col matrix.  The image is copied once
   into a zero-padded plane xp [c][Hp][Wp] (Hp = h + 2 ph, Wp = w + 2 pw)
   so that every tap is a plain read:
     x_tap(kidx, p, q) = xp[ci][p + r dh][q + s dw] = xp[j + off[kidx]]
   with j = p Wp + q and off[kidx] = (ci Hp + r dh) Wp + s dw.  The outputs
   are computed on the flattened grid j in [0, oh Wp) (the columns q >= ow
   of each row are computed and dropped), nr consecutive j at a time: for
   the tile at j0, step kidx of every chain reads the nr floats at
   xp + j0 + off[kidx], which is the micro-kernel of gemm.h with B taken at
   an offset (repdl__gemm_ukr_boff) and A the filters packed in panels of
   MR output channels.  The chain of y[o][p][q] is the same as im2col +
   gemm's: from b[o] (or -0), fma(w[o][kidx], x_tap, acc) for kidx
   ascending (padding taps read the +0 of xp), in panels of about KC steps
   whose partial chains wait in a scratch row (continued, never restarted),
   canonical NaN at the end.  Other shapes (strides, very wide padding)
   use im2col + the gemm core: the same chains. */
REPDL_FN int repdl__conv_direct_ok(const repdl_conv2d_shape *s, size_t ow)
{
    size_t t = s->c, wp = s->w + 2 * s->pad_w; /* fits: repdl__conv2d_check */
    /* the padded planes must fit in size_t (with slack) */
    if (repdl__size_mul(&t, s->h + 2 * s->pad_h) || repdl__size_mul(&t, wp) ||
        repdl__size_add(&t, wp + REPDL__GEMM_NRMAX))
        return 0;
    return s->stride_h == 1 && s->stride_w == 1 && ow >= wp - ow;
}

/* The workspace of repdl__conv2d_forward_part_f32 for channels [o0, o1)
   of s (checked, n, oc, P >= 1), in floats, each piece a multiple of 4:
   the im2col path sz[0] for col; the direct path sz[0] for the tap
   offsets (CK size_t), sz[1..3] for xp, wp, yb.  Returns 1 for the direct
   path. */
REPDL_FN int repdl__conv_fwd_sizes(const repdl_conv2d_shape *s, size_t o0, size_t o1, size_t *sz)
{
    size_t ow = repdl_conv2d_out_w(s), P = repdl_conv2d_out_h(s) * ow;
    size_t CK = s->c * s->kh * s->kw, k;
    int direct = repdl__conv_direct_ok(s, ow) && CK != 0;
    for (k = 0; k < 4; k++) sz[k] = 0;
    if (!direct) {
        sz[0] = CK * P;
    } else {
        size_t nr = (size_t)repdl__gemm_nr(repdl__gemm_isa()), MR = REPDL__GEMM_MR;
        size_t Wp = s->w + 2 * s->pad_w, L = repdl_conv2d_out_h(s) * Wp;
        size_t Mp = (o1 - o0 + MR - 1) / MR * MR;
        sz[0] = (CK * sizeof(size_t) + sizeof(float) - 1) / sizeof(float);
        /* the last tile reads < c Hp Wp + Wp + nr - 1 */
        sz[1] = s->c * (s->h + 2 * s->pad_h) * Wp + Wp + nr;
        sz[2] = Mp * CK;
        sz[3] = Mp * ((L + nr - 1) / nr * nr);
    }
    for (k = 0; k < 4; k++) sz[k] = (sz[k] + 3) / 4 * 4;
    return direct;
}

/* Output channels [o0, o1) of every image of s (y has the layout of the
   whole output: image stride oc P); x, w, y as repdl_conv2d_forward_f32,
   checked by the caller (n, oc, P >= 1).  The workspace (repdl__conv_fwd_sizes)
   is carved from ws when not NULL (conv2d_threads.h: every thread's taken
   before the first write), else allocated.  Returns 0 or REPDL_ERR_NOMEM. */
REPDL_FN repdl_status repdl__conv2d_forward_part_f32(const repdl_conv2d_shape *s, size_t o0,
                                                    size_t o1, const float *x, const float *w,
                                                    const float *b, float *y, float *ws)
{
    size_t oh = repdl_conv2d_out_h(s), ow = repdl_conv2d_out_w(s);
    size_t P = oh * ow, CK = s->c * s->kh * s->kw, in_sz = s->c * s->h * s->w;
    size_t OC = s->oc, img, sz[4];
    if (!repdl__conv_fwd_sizes(s, o0, o1, sz)) {
        float *col = ws ? ws : repdl__conv_alloc(sz[0]);
        if (!col) return REPDL_ERR_NOMEM;
        for (img = 0; img < s->n; img++) {
            repdl__im2col_f32(s, oh, ow, REPDL__OFFSET(x, img * in_sz), col);
            repdl__gemm_core_f32(0, 0, o1 - o0, P, CK, REPDL__OFFSET(w, o0 * CK), CK, col, P, NULL,
                                 b ? b + o0 : NULL, 0, 1.0f, 0.0f, y + img * OC * P + o0 * P, P);
        }
        if (!ws) free(col);
        return REPDL_OK;
    }
    {
        const size_t MR = REPDL__GEMM_MR;
        int isa = repdl__gemm_isa();
        size_t nr = (size_t)repdl__gemm_nr(isa);
        size_t Hp = s->h + 2 * s->pad_h, Wp = s->w + 2 * s->pad_w, plane = Hp * Wp;
        size_t KK = s->kh * s->kw, L = oh * Wp, Lr = (L + nr - 1) / nr * nr;
        size_t M = o1 - o0, Mp = (M + MR - 1) / MR * MR;
        /* channels per K panel: about REPDL_GEMM_KC steps (whole channels) */
        size_t cpb = REPDL_GEMM_KC / KK ? REPDL_GEMM_KC / KK : 1;
        size_t nxp = s->c * plane + Wp + nr; /* the last tile reads < c Hp Wp + Wp + nr - 1 */
        size_t ci, r, q, p, o, k, i0, j0, c0, i;
        float *xp, *wp, *yb;
        size_t *off;
        float init[REPDL__GEMM_MR * REPDL__GEMM_NRMAX];
        repdl__gemm_tile t;
        if (ws) { /* the offsets first: size_t alignment at the block's start */
            off = (size_t *)(void *)ws;
            xp = ws + sz[0];
            wp = xp + sz[1];
            yb = wp + sz[2];
        } else {
            off = (size_t *)REPDL__ALLOC(sz[0] * sizeof(float));
            xp = repdl__conv_alloc(sz[1]);
            wp = repdl__conv_alloc(sz[2]);
            yb = repdl__conv_alloc(sz[3]);
        }
        if (!xp || !wp || !yb || !off) {
            repdl__conv_free4(!ws, xp, wp, yb, off);
            return REPDL_ERR_NOMEM;
        }
        for (ci = 0; ci < s->c; ci++)
            for (r = 0; r < s->kh; r++)
                for (q = 0; q < s->kw; q++)
                    off[(ci * s->kh + r) * s->kw + q] = (ci * Hp + r * s->dil_h) * Wp + q * s->dil_w;
        /* the filters of [o0, o1) in panels of MR rows, k-major; rows past o1 are 0 */
        for (i0 = 0; i0 < Mp; i0 += MR)
            for (k = 0; k < CK; k++)
                for (i = 0; i < MR; i++)
                    wp[i0 * CK + k * MR + i] = i0 + i < M ? w[(o0 + i0 + i) * CK + k] : 0.0f;
        for (i = 0; i < nxp; i++) xp[i] = 0.0f; /* padding and slack stay +0 */
        t.cold = NULL;
        t.ldc = 0;
        t.alpha = 1.0f;
        t.beta = 0.0f;
        for (img = 0; img < s->n; img++) {
            const float *xi = REPDL__OFFSET(x, img * in_sz);
            for (ci = 0; ci < s->c && s->w; ci++)
                for (p = 0; p < s->h; p++)
                    memcpy(xp + ci * plane + (p + s->pad_h) * Wp + s->pad_w,
                           xi + (ci * s->h + p) * s->w, s->w * sizeof(float));
            for (c0 = 0; c0 < s->c; c0 += cpb) {
                size_t k0 = c0 * KK, kc = (s->c - c0 < cpb ? s->c - c0 : cpb) * KK;
                int first = c0 == 0, last = k0 + kc == CK;
                for (j0 = 0; j0 < Lr; j0 += nr)
                    for (i0 = 0; i0 < M; i0 += MR) {
                        int rows = (int)(M - i0 < MR ? M - i0 : MR);
                        float *tile = yb + i0 * Lr + j0;
                        if (first) {
                            for (r = 0; r < (size_t)rows; r++)
                                for (q = 0; q < nr; q++)
                                    init[r * nr + q] = b ? b[o0 + i0 + r] : -0.0f;
                            t.in = init;
                            t.ldi = nr;
                        } else {
                            t.in = tile;
                            t.ldi = Lr;
                        }
                        t.out = tile;
                        t.ldo = Lr;
                        t.last = last;
                        repdl__gemm_ukr_boff(isa, rows, kc, wp + i0 * CK + k0 * MR, xp + j0,
                                             off + k0, &t);
                    }
            }
            for (o = 0; o < M; o++) {
                float *yo = y + (img * OC + o0 + o) * P;
                for (p = 0; p < oh; p++)
                    memcpy(yo + p * ow, yb + o * Lr + p * Wp, ow * sizeof(float));
            }
        }
        repdl__conv_free4(!ws, xp, wp, yb, off);
        return REPDL_OK;
    }
}

REPDL_API repdl_status repdl_conv2d_forward_f32(const repdl_conv2d_shape *s, const float *x,
                                               const float *w, const float *b, float *y)
{
    REPDL__FPENV_CHECK();
    size_t oh, ow, P, CK, in_sz;
    int go = repdl__conv2d_forward_args(s, x, w, y, &oh, &ow, &P, &CK, &in_sz);
    if (go != 1) return (repdl_status)go;
    return repdl__conv2d_forward_part_f32(s, 0, s->oc, x, w, b, y, NULL);
}

/* im2col + the gemm core for every shape: the same bits as
   repdl_conv2d_forward_f32 by a second route (tests/linalg/test_conv.c
   compares the two; bench/linalg/bench_conv.c's anchor). */
REPDL_FN repdl_status repdl__conv2d_forward_im2col_f32(const repdl_conv2d_shape *s,
                                                      const float *x, const float *w,
                                                      const float *b, float *y)
{
    size_t oh, ow, P, CK, in_sz, img;
    float *col;
    int go = repdl__conv2d_forward_args(s, x, w, y, &oh, &ow, &P, &CK, &in_sz);
    if (go != 1) return (repdl_status)go;
    col = repdl__conv_alloc(CK * P);
    if (!col) return REPDL_ERR_NOMEM;
    for (img = 0; img < s->n; img++) {
        repdl__im2col_f32(s, oh, ow, REPDL__OFFSET(x, img * in_sz), col);
        repdl__gemm_core_f32(0, 0, s->oc, P, CK, w, CK, col, P, NULL, b, 0, 1.0f, 0.0f,
                             y + img * s->oc * P, P);
    }
    free(col);
    return REPDL_OK;
}

#ifndef REPDL_CONV_BATCH_FLOATS
/* Images of one backward batch: as many as fit im2col columns of this many
   floats (at least one image). */
#define REPDL_CONV_BATCH_FLOATS ((size_t)1 << 21)
#endif

/* db[o] = fadd chain over (n, p, q) of dy[n][o][pq] from -0 (one
   micro-batch, NaN not canonicalised): the chains of up to 8 channels
   advance together (independent chains interleaved; each one still adds
   its terms in its own order). */
REPDL_FN void repdl__conv_db_f32(size_t n, size_t oc, size_t P, const float *dy, float *db)
{
    size_t o0, img, i, j;
    for (o0 = 0; o0 < oc; o0 += 8) {
        size_t m = oc - o0 < 8 ? oc - o0 : 8;
        float acc[8];
        for (j = 0; j < 8; j++) acc[j] = -0.0f;
        for (img = 0; img < n; img++) {
            const float *r = dy + (img * oc + o0) * P;
            if (m == 8) {
                for (i = 0; i < P; i++)
                    for (j = 0; j < 8; j++) acc[j] = repdl__fadd(acc[j], r[j * P + i]);
            } else {
                for (i = 0; i < P; i++)
                    for (j = 0; j < m; j++) acc[j] = repdl__fadd(acc[j], r[j * P + i]);
            }
        }
        for (j = 0; j < m; j++) db[o0 + j] = acc[j];
    }
}

/* dcol [CK x L] (row stride L) = w^T [CK x OC] . dyb [OC x L]: every
   element the chain over o ascending of (w[o][kidx], dyb[o][col]) from -0,
   run by the micro-kernel of gemm.h on operands packed here once: wp holds
   w^T in micro-panels of MR rows (OC x MR each, zero rows past CK), dybp
   holds dyb in micro-panels of nr columns (OC x nr each, zero columns past
   L); the whole chain (OC steps) is one kernel call per tile, from a -0
   tile (this is repdl__gemm_core_f32(1, 0, ...) without its per-tile
   set-up, which dominates when OC is small). */
REPDL_FN void repdl__conv_dcol_f32(int isa, size_t CK, size_t OC, size_t L, const float *w,
                                   const float *dyb, float *wp, float *dybp, float *dcol)
{
    const size_t MR = REPDL__GEMM_MR, nr = (size_t)repdl__gemm_nr(isa);
    float init[REPDL__GEMM_MR * REPDL__GEMM_NRMAX], out_l[REPDL__GEMM_MR * REPDL__GEMM_NRMAX];
    size_t i0, j0, o, ii, jj, r;
    repdl__gemm_tile t;
    for (i0 = 0; i0 < MR * nr; i0++) init[i0] = -0.0f;
    for (i0 = 0; i0 < CK; i0 += MR)
        for (o = 0; o < OC; o++)
            for (ii = 0; ii < MR; ii++)
                wp[i0 * OC + o * MR + ii] = i0 + ii < CK ? w[o * CK + i0 + ii] : 0.0f;
    for (j0 = 0; j0 < L; j0 += nr) {
        size_t cols = L - j0 < nr ? L - j0 : nr;
        float *d = dybp + j0 * OC;
        for (o = 0; o < OC; o++) {
            const float *src = dyb + o * L + j0;
            for (jj = 0; jj < cols; jj++) d[o * nr + jj] = src[jj];
            for (; jj < nr; jj++) d[o * nr + jj] = 0.0f;
        }
    }
    t.in = init;
    t.ldi = nr;
    t.last = 1;
    t.alpha = 1.0f;
    t.beta = 0.0f;
    for (j0 = 0; j0 < L; j0 += nr) {
        size_t cols = L - j0 < nr ? L - j0 : nr;
        for (i0 = 0; i0 < CK; i0 += MR) {
            int rows = (int)(CK - i0 < MR ? CK - i0 : MR);
            if (cols == nr) {
                t.out = dcol + i0 * L + j0;
                t.ldo = L;
            } else {
                t.out = out_l;
                t.ldo = nr;
            }
            t.cold = t.out;
            t.ldc = t.ldo;
            repdl__gemm_ukr(isa, rows, OC, wp + i0 * OC, dybp + j0 * OC, &t);
            if (cols != nr)
                for (r = 0; r < (size_t)rows; r++)
                    for (jj = 0; jj < cols; jj++) dcol[(i0 + r) * L + j0 + jj] = out_l[r * nr + jj];
        }
    }
}

/* What conv2d backward computes and the workspace it needs, from the
   shape (checked) and which of dx, dw are asked for: do_* the outputs
   computed by products, zero_* those that are empty products (-0); nb the
   images of a piece; sz[] the floats of colb, dyb, wp, dybp (0 when not
   needed), each a multiple of 4 floats (so that the pieces of one block
   keep malloc's alignment). */
typedef struct repdl__conv_bwd_plan {
    int do_dx, do_dw, zero_dx, zero_dw, isa;
    size_t nb, sz[4];
} repdl__conv_bwd_plan;

REPDL_FN void repdl__conv_bwd_plan_of(const repdl_conv2d_shape *s, int dx, int dw,
                                      repdl__conv_bwd_plan *pl)
{
    size_t P = repdl_conv2d_out_h(s) * repdl_conv2d_out_w(s), CK = s->c * s->kh * s->kw;
    size_t OC = s->oc, in_sz = s->c * s->h * s->w, nr, k;
    pl->do_dw = dw && OC && CK;
    pl->do_dx = dx && in_sz && s->n;
    pl->zero_dw = pl->do_dw && (s->n == 0 || P == 0);
    pl->zero_dx = pl->do_dx && (P == 0 || CK == 0 || OC == 0);
    if (pl->zero_dw) pl->do_dw = 0;
    if (pl->zero_dx) pl->do_dx = 0;
    pl->nb = 1;
    pl->isa = 0;
    for (k = 0; k < 4; k++) pl->sz[k] = 0;
    if (!pl->do_dw && !pl->do_dx) return;
    /* here n, P, CK >= 1, and CK * P * n fits (repdl__conv2d_check) */
    pl->nb = REPDL_CONV_BATCH_FLOATS / (CK * P);
    if (pl->nb < 1) pl->nb = 1;
    if (pl->nb > REPDL_MICROBATCH) pl->nb = REPDL_MICROBATCH; /* pieces within a micro-batch */
    if (pl->nb > s->n) pl->nb = s->n;
    pl->isa = repdl__gemm_isa();
    nr = (size_t)repdl__gemm_nr(pl->isa);
    pl->sz[0] = CK * P * pl->nb;
    pl->sz[1] = OC * P * pl->nb;
    if (pl->do_dx) {
        /* packed operands of the dcol product (repdl__conv_dcol_f32) */
        pl->sz[2] = (CK + REPDL__GEMM_MR - 1) / REPDL__GEMM_MR * REPDL__GEMM_MR * OC;
        pl->sz[3] = (P * pl->nb + nr - 1) / nr * nr * OC;
    }
    for (k = 0; k < 4; k++) pl->sz[k] = (pl->sz[k] + 3) / 4 * 4;
}

/* The floats of the caller's block of repdl__conv2d_backward_ws. */
REPDL_FN size_t repdl__conv_bwd_floats(const repdl__conv_bwd_plan *pl)
{
    return pl->sz[0] + pl->sz[1] + pl->sz[2] + pl->sz[3];
}

/* Backward by batches of nb images (implementation; the orders are those
   of the header comment): dyb [OC x nb P] gathers dy of the batch, image
   after image along the columns; colb [CK x nb P] holds the im2col of the
   batch (column b P + pq), so
     dw continues its chains with dyb . colb^T: one product whose K steps
        run over (n, p, q) n-major within the batch, the batches one after
        another continuing the same chains (cont);
     dcolb = w^T . dyb (each column is one (n, pq): the chain over o of
        that column), then col2im image by image.
   With ws not NULL (only for n <= REPDL_MICROBATCH: no tree) the
   workspace is carved from the caller's block of repdl__conv_bwd_floats
   floats instead of allocated (conv2d_threads.h takes every thread's
   workspace before the first write). */
REPDL_FN repdl_status repdl__conv2d_backward_ws(const repdl_conv2d_shape *s, const float *x,
                                                const float *w, const float *dy, float *dx,
                                                float *dw, float *db, float *ws)
{
    size_t oh, ow, P, CK, OC, in_sz, nb, i0, b, o, i, G;
    int do_dw, do_dx, zero_dw, zero_dx, isa, ok = 1;
    float *colb = NULL, *dyb = NULL, *wp = NULL, *dybp = NULL;
    repdl__conv_bwd_plan pl;
    repdl__vtree tw, tb; /* the trees over micro-batches of dw and db */
    repdl_status st = repdl__conv2d_sizes(s, &oh, &ow, &P, &CK, &in_sz);
    if (st != REPDL_OK) return st;
    OC = s->oc;
    if (s->n && OC && P && !dy) return REPDL_ERR_INVALID;
    if (dx && s->n && in_sz && OC && P && !w) return REPDL_ERR_INVALID;
    if (dw && s->n && CK && P && OC && !x && in_sz) return REPDL_ERR_INVALID;
    /* outputs that are empty products: -0, written only once the workspace
       and the trees of the others are allocated (a REPDL_ERR_NOMEM writes
       nothing) */
    repdl__conv_bwd_plan_of(s, dx != NULL, dw != NULL, &pl);
    do_dw = pl.do_dw;
    do_dx = pl.do_dx;
    zero_dw = pl.zero_dw;
    zero_dx = pl.zero_dx;
    nb = pl.nb;
    isa = pl.isa;
    if (do_dw || do_dx) {
        if (ws) { /* the caller's block (n <= REPDL_MICROBATCH: no tree) */
            colb = ws;
            dyb = colb + pl.sz[0];
            wp = do_dx ? dyb + pl.sz[1] : NULL;
            dybp = do_dx ? wp + pl.sz[2] : NULL;
        } else {
            colb = repdl__conv_alloc(pl.sz[0]);
            dyb = repdl__conv_alloc(pl.sz[1]);
            if (do_dx) {
                wp = repdl__conv_alloc(pl.sz[2]);
                dybp = repdl__conv_alloc(pl.sz[3]);
            }
        }
        ok = colb && dyb && (!do_dx || (wp && dybp));
    }
    G = repdl__mb_count(s->n);
    if (repdl__vtree_init(&tb, db && OC && G > 1 ? OC : 0, G)) ok = 0;
    if (repdl__vtree_init(&tw, do_dw && G > 1 ? OC * CK : 0, G)) ok = 0;
    if (!ok) {
        repdl__conv_free4(!ws, colb, dyb, wp, dybp);
        repdl__vtree_free(&tb);
        repdl__vtree_free(&tw);
        return REPDL_ERR_NOMEM;
    }
    if (zero_dw)
        for (i = 0; i < OC * CK; i++) dw[i] = -0.0f;
    if (zero_dx)
        for (i = 0; i < s->n * in_sz; i++) dx[i] = -0.0f;
    if (db && OC) { /* the tree over micro-batches of the fadd chains */
        size_t g;
        if (G <= 1) {
            repdl__conv_db_f32(s->n, OC, P, dy, db);
            for (o = 0; o < OC; o++) db[o] = repdl__canon(db[o]);
        } else {
            for (g = 0; g < G; g++) {
                size_t g0 = g * REPDL_MICROBATCH;
                size_t gl = repdl__mb_end(s->n, g0) - g0;
                repdl__conv_db_f32(gl, OC, P, dy + g0 * OC * P, repdl__vtree_dest(&tb, 0));
                repdl__vtree_push(&tb, 0);
            }
            repdl__vtree_root(&tb, db);
        }
    }
    repdl__vtree_free(&tb);
    if (!do_dw && !do_dx) return REPDL_OK;
    {
        /* micro-batch g: images [g mb, g mb + gl), in pieces of at most nb
           images; dw's chains start from -0 at the micro-batch's first
           piece and continue through its others (cont), into the tree's
           next slot (or dw itself when the batch is one micro-batch) */
        size_t g;
        int tree = do_dw && G > 1;
        for (g = 0; g < G; g++) {
            size_t g0 = g * REPDL_MICROBATCH;
            size_t g1 = repdl__mb_end(s->n, g0);
            float *dwg = tree ? repdl__vtree_dest(&tw, 0) : dw;
            for (i0 = g0; i0 < g1; i0 += nb) {
                size_t m = g1 - i0 < nb ? g1 - i0 : nb, L = m * P;
                for (b = 0; b < m; b++)
                    for (o = 0; o < OC; o++) {
                        const float *src = dy + ((i0 + b) * OC + o) * P;
                        float *d = dyb + o * L + b * P;
                        for (i = 0; i < P; i++) d[i] = src[i];
                    }
                if (do_dw) {
                    for (b = 0; b < m; b++)
                        repdl__im2col_ld_f32(s, oh, ow, x + (i0 + b) * in_sz, colb + b * P, L);
                    /* dwg [OC x CK] continues its chains with dyb [OC x L] . colb^T */
                    repdl__gemm_core_f32(0, 1, OC, CK, L, dyb, L, colb, L, NULL, NULL, i0 > g0,
                                         1.0f, 0.0f, dwg, CK);
                }
                if (do_dx) {
                    /* dcolb [CK x L] = w^T [CK x OC] . dyb [OC x L] */
                    repdl__conv_dcol_f32(isa, CK, OC, L, w, dyb, wp, dybp, colb);
                    for (b = 0; b < m; b++)
                        repdl__col2im_ld_f32(s, oh, ow, colb + b * P, L, dx + (i0 + b) * in_sz);
                }
            }
            if (tree) repdl__vtree_push(&tw, 0);
        }
        if (tree) repdl__vtree_root(&tw, dw);
    }
    repdl__vtree_free(&tw);
    repdl__conv_free4(!ws, colb, dyb, wp, dybp);
    return REPDL_OK;
}

REPDL_API repdl_status repdl_conv2d_backward_f32(const repdl_conv2d_shape *s, const float *x,
                                                const float *w, const float *dy, float *dx,
                                                float *dw, float *db)
{
    REPDL__FPENV_CHECK();
    return repdl__conv2d_backward_ws(s, x, w, dy, dx, dw, db, NULL);
}

REPDL_END_CODE
#endif /* REPDL_CONV2D_H */
