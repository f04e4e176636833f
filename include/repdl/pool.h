/* SPDX-License-Identifier: MIT */
/* repdl/pool.h: 2-d max and average pooling (NCHW, float32) and their
   backward passes, reproducible: every output is a pure function of the
   shape and the data, the same bits on every machine (docs/nn-act-pool.md).

   Shape: x is [n][c][h][w], y is [n][c][oh][ow] with
     oh = (h + 2 pad_h - kh) / stride_h + 1   (0 if h + 2 pad_h < kh),
     ow likewise; kh, kw, stride_h, stride_w must be >= 1 (a zero gives
     oh = ow = 0: nothing is computed).
   The window of output (p, q) covers the input rows
     hh = p stride_h - pad_h + r, 0 <= r < kh,  and columns
     ww = q stride_w - pad_w + s, 0 <= s < kw;
   taps outside [0, h) x [0, w) are padding.  Taps are visited row-major:
   (r, s) ascending, s fastest ("window order").

   max_pool2d_forward: y = the first maximum of the in-bounds taps in
     window order: a tap replaces the current best iff it is a NaN and the
     best is not, or neither is a NaN and tap > best.  So a NaN propagates
     (the first NaN wins, the output is the canonical NaN 0x7fc00000), and
     +0 and -0 compare equal: the first of them in window order wins, with
     its sign.  argmax (size_t, may be NULL) receives hh * w + ww of the
     winner: a flat index into the (n, c) plane.  A window with no in-bounds
     tap (only when pad >= kernel) gives y = -inf and argmax =
     REPDL_NO_INDEX (SIZE_MAX, as the argmax of an empty array).
   max_pool2d_backward: dx[i] = fadd chain, starting from -0, over the
     output positions (p, q) ascending (row-major) of the same plane whose
     argmax is i, of dy[p][q].  Positions no output selected get -0.
     argmax entries that are not an in-bounds tap of their own window
     (REPDL_NO_INDEX included) select nothing.
   avg_pool2d_forward: s = fadd chain, starting from -0, over the
     in-bounds taps in window order (padding taps are zeros and are not
     added); y = s / (float)d, one division, with
       d = kh kw                       if count_include_pad (PyTorch's
                                       divisor: every window lies inside
                                       the padded input),
       d = number of in-bounds taps    otherwise;
     a window with no in-bounds tap gives -0.
   avg_pool2d_backward: g(p, q) = dy[p][q] / (float)d(p, q), the divisor of
     the forward pass; dx[i] = fadd chain, starting from -0, over the output
     positions (p, q) ascending whose window holds input i in bounds, of
     g(p, q).  Inputs no window covers get -0.
   Every NaN output is canonical (0x7fc00000).

   Outputs must not overlap inputs.  Sizes are size_t; any count may be 0
   (then nothing is read or written, NULL is fine).  The backward passes
   are gathers (each input element sums its outputs in ascending order),
   which is the same as scattering over the outputs in ascending order and
   is what the CUDA kernels do too (cuda/nn_act_pool.cu): one REPDL_FN per
   element serves both. */
#ifndef REPDL_POOL_H
#define REPDL_POOL_H

#include "config.h"
REPDL_BEGIN_CODE

typedef struct repdl_pool2d_shape {
    size_t n, c, h, w, kh, kw, stride_h, stride_w, pad_h, pad_w;
} repdl_pool2d_shape;

REPDL_FN size_t repdl__pool_out(size_t h, size_t k, size_t st, size_t pad)
{
    size_t room = pad;
    if (k == 0 || st == 0) return 0;
    /* a padded extent that does not fit (repdl__size_mul's bound): none */
    if (repdl__size_mul(&room, 2) || repdl__size_add(&room, h)) return 0;
    if (room < k) return 0;
    return (room - k) / st + 1;
}

/* REPDL_ERR_INVALID for NULL or a zero kernel or stride; REPDL_ERR_OVERFLOW
   when an extent the code forms does not fit in size_t (as a count of
   floats): h + 2 pad, w + 2 pad, kh kw, the input n c h w and the output
   n c oh ow.  Checked before anything is written. */
REPDL_FN repdl_status repdl__pool2d_check(const repdl_pool2d_shape *s)
{
    size_t t;
    if (!s) return REPDL_ERR_INVALID;
    if (s->kh == 0 || s->kw == 0 || s->stride_h == 0 || s->stride_w == 0) return REPDL_ERR_INVALID;
    t = s->pad_h; if (repdl__size_mul(&t, 2) || repdl__size_add(&t, s->h)) return REPDL_ERR_OVERFLOW;
    t = s->pad_w; if (repdl__size_mul(&t, 2) || repdl__size_add(&t, s->w)) return REPDL_ERR_OVERFLOW;
    t = s->kh; if (repdl__size_mul(&t, s->kw)) return REPDL_ERR_OVERFLOW;
    t = s->n; if (repdl__size_mul(&t, s->c) || repdl__size_mul(&t, s->h) || repdl__size_mul(&t, s->w))
        return REPDL_ERR_OVERFLOW;
    t = s->n; if (repdl__size_mul(&t, s->c) || repdl__size_mul(&t, repdl__pool_out(s->h, s->kh, s->stride_h, s->pad_h)) ||
                  repdl__size_mul(&t, repdl__pool_out(s->w, s->kw, s->stride_w, s->pad_w)))
        return REPDL_ERR_OVERFLOW;
    return REPDL_OK;
}

/* repdl__pool2d_check, then the extents every pooling function uses:
   output rows and columns, planes n c, input and output plane sizes. */
REPDL_FN repdl_status repdl__pool2d_dims(const repdl_pool2d_shape *s, size_t *oh, size_t *ow,
                                         size_t *planes, size_t *hw, size_t *ohw)
{
    repdl_status st = repdl__pool2d_check(s);
    if (st != REPDL_OK) return st;
    *oh = repdl__pool_out(s->h, s->kh, s->stride_h, s->pad_h);
    *ow = repdl__pool_out(s->w, s->kw, s->stride_w, s->pad_w);
    *planes = s->n * s->c;
    *hw = s->h * s->w;
    *ohw = *oh * *ow;
    return REPDL_OK;
}
REPDL_API size_t repdl_pool2d_out_h(const repdl_pool2d_shape *s)
{
    return repdl__pool_out(s->h, s->kh, s->stride_h, s->pad_h);
}
REPDL_API size_t repdl_pool2d_out_w(const repdl_pool2d_shape *s)
{
    return repdl__pool_out(s->w, s->kw, s->stride_w, s->pad_w);
}

/* In-bounds part of output p's window along one axis: taps r in [*r0, *r1). */
REPDL_FN void repdl__pool_span(size_t p, size_t k, size_t st, size_t pad, size_t h,
                               size_t *r0, size_t *r1)
{
    /* window rows p st - pad + r, computed without going negative */
    size_t base = p * st;                       /* hh + pad */
    size_t lo = base < pad ? pad - base : 0;    /* first r with hh >= 0 */
    size_t hi = k;                              /* first r with hh >= h */
    if (base + k > h + pad) hi = base + k > h + pad + k ? 0 : h + pad - base;
    if (hi < lo) hi = lo;
    *r0 = lo;
    *r1 = hi;
}

/* Output positions whose window holds input row hh: [*p0, *p1), i.e.
   p st - pad <= hh <= p st - pad + k - 1 and p < out. */
REPDL_FN void repdl__pool_cover(size_t hh, size_t k, size_t st, size_t pad, size_t out,
                                size_t *p0, size_t *p1)
{
    size_t a = hh + pad;                         /* p st <= a, p st >= a - k + 1 */
    size_t lo = a + 1 <= k ? 0 : (a + 1 - k + st - 1) / st;
    size_t hi = a / st + 1;
    if (hi > out) hi = out;
    if (lo > hi) lo = hi;
    *p0 = lo;
    *p1 = hi;
}

/* One output of max_pool2d_forward: plane x (h x w), output (p, q).
   The first in-bounds tap starts; a later tap replaces it iff tap > best
   (a NaN never compares greater); if the window holds a NaN, the first
   NaN in window order is the answer instead: the rule of the header
   comment. */
REPDL_FN float repdl__maxpool_fwd_elem(const repdl_pool2d_shape *sp, const float *x, size_t p,
                                       size_t q, size_t *arg)
{
    repdl_pool2d_shape s = *sp;   /* a local copy: stores cannot alias it */
    size_t r0, r1, c0, c1, r, c, hb, wb;
    float best;
    size_t bi;
    int anynan = 0;
    repdl__pool_span(p, s.kh, s.stride_h, s.pad_h, s.h, &r0, &r1);
    repdl__pool_span(q, s.kw, s.stride_w, s.pad_w, s.w, &c0, &c1);
    if (r0 == r1 || c0 == c1) {
        *arg = REPDL_NO_INDEX;
        return repdl__asfloat(0xff800000u);
    }
    hb = p * s.stride_h - s.pad_h;    /* modulo 2^64: hb + r is the row */
    wb = q * s.stride_w - s.pad_w;
    best = x[(hb + r0) * s.w + wb + c0];
    bi = (size_t)((hb + r0) * s.w + wb + c0);
    for (r = r0; r < r1; r++) {
        const float *row = x + (hb + r) * s.w;       /* wb + c wraps back into the row */
        size_t rb = (size_t)((hb + r) * s.w + wb);
        for (c = c0; c < c1; c++) {
            float v = row[wb + c];
            int gt = repdl__fgt(v, best);              /* selects, not branches: random data */
            best = gt ? v : best;
            bi = gt ? rb + (size_t)c : bi;
            anynan |= repdl__fne(v, v);
        }
    }
    if (REPDL_UNLIKELY(anynan)) {         /* the first NaN in window order wins */
        for (r = r0; r < r1; r++)
            for (c = c0; c < c1; c++)
                if (repdl__fne(x[(hb + r) * s.w + wb + c], x[(hb + r) * s.w + wb + c])) {
                    *arg = (size_t)((hb + r) * s.w + wb + c);
                    return repdl__nanf();
                }
    }
    *arg = bi;
    return best;
}

/* 1 when flat index i (of an h x w plane) is an in-bounds tap of output
   (p, q)'s window. */
REPDL_FN int repdl__pool_in_window(const repdl_pool2d_shape *s, size_t i, size_t p, size_t q)
{
    size_t hh, ww, r0, r1, c0, c1;
    if (i >= s->h * s->w) return 0; /* REPDL_NO_INDEX included */
    hh = (size_t)i / s->w;
    ww = (size_t)i % s->w;
    repdl__pool_span(p, s->kh, s->stride_h, s->pad_h, s->h, &r0, &r1);
    repdl__pool_span(q, s->kw, s->stride_w, s->pad_w, s->w, &c0, &c1);
    return hh + s->pad_h >= p * s->stride_h + r0 && hh + s->pad_h < p * s->stride_h + r1 &&
           ww + s->pad_w >= q * s->stride_w + c0 && ww + s->pad_w < q * s->stride_w + c1;
}

/* One input element (hh, ww) of max_pool2d_backward, planes argmax/dy
   (oh x ow). */
REPDL_FN float repdl__maxpool_bwd_elem(const repdl_pool2d_shape *s, const size_t *argmax,
                                       const float *dy, size_t oh, size_t ow, size_t hh,
                                       size_t ww)
{
    size_t p0, p1, q0, q1, p, q;
    size_t me = (size_t)(hh * s->w + ww);
    float acc = -0.0f;
    repdl__pool_cover(hh, s->kh, s->stride_h, s->pad_h, oh, &p0, &p1);
    repdl__pool_cover(ww, s->kw, s->stride_w, s->pad_w, ow, &q0, &q1);
    for (p = p0; p < p1; p++)
        for (q = q0; q < q1; q++)
            if (argmax[p * ow + q] == me) acc = repdl__fadd(acc, dy[p * ow + q]);
    return repdl__canon(acc);
}

/* Divisor of output (p, q), as a float (exact up to 2^24 taps). */
REPDL_FN float repdl__avgpool_div(const repdl_pool2d_shape *s, int count_include_pad, size_t p,
                                  size_t q)
{
    size_t r0, r1, c0, c1;
    if (count_include_pad) return (float)(s->kh * s->kw);
    repdl__pool_span(p, s->kh, s->stride_h, s->pad_h, s->h, &r0, &r1);
    repdl__pool_span(q, s->kw, s->stride_w, s->pad_w, s->w, &c0, &c1);
    return (float)((r1 - r0) * (c1 - c0));
}

REPDL_FN float repdl__avgpool_fwd_elem(const repdl_pool2d_shape *s, int count_include_pad,
                                       const float *x, size_t p, size_t q)
{
    size_t r0, r1, c0, c1, r, c;
    float acc = -0.0f;
    repdl__pool_span(p, s->kh, s->stride_h, s->pad_h, s->h, &r0, &r1);
    repdl__pool_span(q, s->kw, s->stride_w, s->pad_w, s->w, &c0, &c1);
    if (r0 == r1 || c0 == c1) return -0.0f;
    for (r = r0; r < r1; r++) {
        size_t hh = p * s->stride_h + r - s->pad_h;
        for (c = c0; c < c1; c++) acc = repdl__fadd(acc, x[hh * s->w + q * s->stride_w + c - s->pad_w]);
    }
    return repdl__canon(repdl__fdiv(acc, repdl__avgpool_div(s, count_include_pad, p, q)));
}

REPDL_FN float repdl__avgpool_bwd_elem(const repdl_pool2d_shape *s, int count_include_pad,
                                       const float *dy, size_t ow, size_t oh, size_t hh,
                                       size_t ww)
{
    size_t p0, p1, q0, q1, p, q;
    float acc = -0.0f;
    repdl__pool_cover(hh, s->kh, s->stride_h, s->pad_h, oh, &p0, &p1);
    repdl__pool_cover(ww, s->kw, s->stride_w, s->pad_w, ow, &q0, &q1);
    for (p = p0; p < p1; p++)
        for (q = q0; q < q1; q++)
            acc = repdl__fadd(acc, repdl__fdiv(dy[p * ow + q],
                                               repdl__avgpool_div(s, count_include_pad, p, q)));
    return repdl__canon(acc);
}

/* ---- Host form of max_pool2d_forward ----
   One output row p of a plane at a time.  The outputs q whose window
   columns are all in bounds ("interior") are done in blocks of
   consecutive outputs with the window's taps in window order, each tap one
   vector step across the block: for each q the same comparisons in the
   same order as repdl__maxpool_fwd_elem (the first in-bounds tap starts,
   a later tap replaces it iff tap > best), selects instead of branches.
   A NaN never compares greater, so a block also records whether it met
   one; such a block (rare) is redone by repdl__maxpool_fwd_elem, which
   applies the first-NaN rule.  Edge outputs (a window column in the
   padding) go to the element function.

   A block: src points at tap (r0, 0) of its first output, so tap (r, c)
   of output k of the block is src[r w + c + k sw] (r < nr in-bounds
   rows, c < kw); it leaves best[k] and tap[k], the winner's offset r w + c
   from src.  Tap offsets are 32-bit: the caller makes sure kh w < 2^32.

   With gcc and clang (REPDL__GNU_HOST) a run of at least 16 interior
   outputs goes 16 at a time through GNU vectors of 16 floats (the stride
   1 and 2 loads contiguous, stride 2 split into even and odd lanes; the
   last block of the run overlaps the one before it instead of running
   short: outputs are pure functions of x, so recomputed ones are the same
   bits); shorter runs, and every run elsewhere (REPDL_PORTABLE_C, other
   compilers), by repdl__maxpool_block_c, whose loop over k vectorizes
   at a constant stride. */
#define REPDL__POOL_BLOCK 64
REPDL_FN uint32_t repdl__maxpool_block_c(const float *src, size_t w, size_t nr, size_t kw,
                                         size_t sw, size_t nb, float *best, uint32_t *tap)
{
    size_t r, c, k;
    uint32_t nan = 0;
    for (k = 0; k < nb; k++) {
        best[k] = src[k * sw];
        tap[k] = 0;
    }
    for (r = 0; r < nr; r++)
        for (c = 0; c < kw; c++) {
            const float *t = src + r * w + c;
            uint32_t off = (uint32_t)(r * w + c);
            for (k = 0; k < nb; k++) {
                float v = t[k * sw];
                int gt = repdl__fgt(v, best[k]);
                best[k] = gt ? v : best[k];
                tap[k] = gt ? off : tap[k];
                nan |= (uint32_t)repdl__fne(v, v);
            }
        }
    return nan;
}

#if REPDL__GNU_HOST
typedef float repdl__pool_v16f __attribute__((vector_size(64)));
typedef int32_t repdl__pool_v16i __attribute__((vector_size(64)));

/* *v = src[k sw], k < 16 (through a pointer: a 64-byte vector returned
   by value has an ABI that depends on the target flags). */
REPDL_FN void repdl__pool_load16(repdl__pool_v16f *v, const float *src, size_t sw)
{
    int k;
    if (sw == 1) {
        memcpy(v, src, sizeof *v);
    } else if (sw == 2) {
        const repdl__pool_v16i even = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30};
        repdl__pool_v16f lo, hi;
        memcpy(&lo, src, sizeof lo);
        memcpy(&hi, src + 16, sizeof hi);
#if defined(__clang__)
        (void)even;
        *v = __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
#else
        *v = __builtin_shuffle(lo, hi, even);
#endif
    } else {
        float a[16];
        for (k = 0; k < 16; k++) a[k] = src[(size_t)k * sw];
        memcpy(v, a, sizeof *v);
    }
}

/* repdl__maxpool_block_c for 16 outputs, in vectors.  A comparison of
   two vectors is -1 (all ones) in the lanes where it holds, 0 elsewhere:
   the selects are bitwise. */
REPDL_FN uint32_t repdl__maxpool_block16(const float *src, size_t w, size_t nr, size_t kw,
                                         size_t sw, float *best, uint32_t *tap)
{
    size_t r, c;
    int k;
    uint32_t any = 0;
    repdl__pool_v16f b, v;
    repdl__pool_v16i t = {0}, nan = {0};
    repdl__pool_load16(&b, src, sw);
    for (r = 0; r < nr; r++)
        for (c = 0; c < kw; c++) {
            repdl__pool_v16i gt;
            repdl__pool_load16(&v, src + r * w + c, sw);
            gt = v > b;
            repdl__pool_v16i off = t - t + (int32_t)(uint32_t)(r * w + c);
            b = (repdl__pool_v16f)(((repdl__pool_v16i)v & gt) | ((repdl__pool_v16i)b & ~gt));
            t = (off & gt) | (t & ~gt);
            nan |= v != v;
        }
    memcpy(best, &b, sizeof b);
    memcpy(tap, &t, sizeof t);
    for (k = 0; k < 16; k++) any |= (uint32_t)nan[k];
    return any;
}
#endif

/* Outputs [q0, q0 + nb) of row p (interior, nr in-bounds rows from r0)
   by a block, stride sw (a constant at the call sites); a block that met
   a NaN by the element function. */
REPDL_FN void repdl__maxpool_fwd_blk(const repdl_pool2d_shape *sp, const float *x, size_t p,
                                     size_t r0, size_t nr, size_t q0, size_t sw, size_t nb,
                                     float *y, size_t *argmax)
{
    float best[REPDL__POOL_BLOCK];
    uint32_t tap[REPDL__POOL_BLOCK], nan;
    size_t k, a;
    /* flat index of tap (r0, 0) of output q0; p stride_h - pad_h and
       q0 stride_w - pad_w are taken modulo 2^64 */
    size_t rb = (p * sp->stride_h - sp->pad_h + r0) * sp->w + q0 * sw - sp->pad_w;
#if REPDL__GNU_HOST
    if (nb == 16) nan = repdl__maxpool_block16(x + rb, sp->w, nr, sp->kw, sw, best, tap);
    else
#endif
        nan = repdl__maxpool_block_c(x + rb, sp->w, nr, sp->kw, sw, nb, best, tap);
    if (REPDL_UNLIKELY(nan)) {
        for (k = 0; k < nb; k++) {
            y[q0 + k] = repdl__maxpool_fwd_elem(sp, x, p, q0 + k, &a);
            if (argmax) argmax[q0 + k] = a;
        }
        return;
    }
    for (k = 0; k < nb; k++) y[q0 + k] = best[k];
    if (argmax)
        for (k = 0; k < nb; k++) argmax[q0 + k] = rb + (size_t)tap[k] + k * sw;
}

/* The interior outputs [qa, qb) of row p, stride sw (a constant at the
   call sites). */
REPDL_FN void repdl__maxpool_fwd_run(const repdl_pool2d_shape *sp, const float *x, size_t p,
                                     size_t r0, size_t nr, size_t qa, size_t qb, size_t sw,
                                     float *y, size_t *argmax)
{
    size_t q0;
#if REPDL__GNU_HOST
    if (qb - qa >= 16) {
        for (q0 = qa; q0 < qb; q0 += 16)
            repdl__maxpool_fwd_blk(sp, x, p, r0, nr, q0 + 16 <= qb ? q0 : qb - 16, sw, 16, y, argmax);
        return;
    }
#endif
    for (q0 = qa; q0 < qb; q0 += REPDL__POOL_BLOCK) {
        size_t nb = qb - q0 < REPDL__POOL_BLOCK ? qb - q0 : REPDL__POOL_BLOCK;
        repdl__maxpool_fwd_blk(sp, x, p, r0, nr, q0, sw, nb, y, argmax);
    }
}

REPDL_FN void repdl__maxpool_fwd_row(const repdl_pool2d_shape *sp, const float *x, size_t p,
                                     size_t ow, float *y, size_t *argmax)
{
    repdl_pool2d_shape s = *sp;   /* a local copy: stores cannot alias it */
    size_t r0, r1, q, qa, qb, a, sw = s.stride_w;
    repdl__pool_span(p, s.kh, s.stride_h, s.pad_h, s.h, &r0, &r1);
    /* interior q: q stride_w >= pad_w and q stride_w - pad_w + kw <= w */
    qa = (s.pad_w + sw - 1) / sw;
    qb = s.w + s.pad_w >= s.kw ? (s.w + s.pad_w - s.kw) / sw + 1 : 0;
    if (qb > ow) qb = ow;
    if (qa > qb || r0 == r1 || (uint64_t)s.kh * s.w >= 0xffffffffu)
        qa = qb = 0;  /* no blocks (tap offsets are 32-bit) */
    for (q = 0; q < qa; q++) {
        y[q] = repdl__maxpool_fwd_elem(&s, x, p, q, &a);
        if (argmax) argmax[q] = a;
    }
    if (sw == 1) repdl__maxpool_fwd_run(&s, x, p, r0, r1 - r0, qa, qb, 1, y, argmax);
    else if (sw == 2) repdl__maxpool_fwd_run(&s, x, p, r0, r1 - r0, qa, qb, 2, y, argmax);
    else repdl__maxpool_fwd_run(&s, x, p, r0, r1 - r0, qa, qb, sw, y, argmax);
    for (q = qb > qa ? qb : qa; q < ow; q++) {
        y[q] = repdl__maxpool_fwd_elem(&s, x, p, q, &a);
        if (argmax) argmax[q] = a;
    }
}

REPDL_API repdl_status repdl_max_pool2d_forward_f32(const repdl_pool2d_shape *s, const float *x, float *y,
                                           size_t *argmax)
{
    size_t oh, ow, planes, hw, ohw, plane, p;
    repdl_status st = repdl__pool2d_dims(s, &oh, &ow, &planes, &hw, &ohw);
    if (st != REPDL_OK) return st;
    for (plane = 0; plane < planes; plane++)
        for (p = 0; p < oh; p++)
            repdl__maxpool_fwd_row(s, x + plane * hw, p, ow, y + plane * ohw + p * ow,
                                   argmax ? argmax + plane * ohw + p * ow : NULL);
    return REPDL_OK;
}

REPDL_API repdl_status repdl_max_pool2d_backward_f32(const repdl_pool2d_shape *s, const size_t *argmax,
                                            const float *dy, float *dx)
{
    size_t oh, ow, planes, hw, ohw, plane, hh, ww;
    repdl_status st = repdl__pool2d_dims(s, &oh, &ow, &planes, &hw, &ohw);
    if (st != REPDL_OK) return st;
    for (plane = 0; plane < planes; plane++)
        for (hh = 0; hh < s->h; hh++)
            for (ww = 0; ww < s->w; ww++)
                dx[plane * hw + hh * s->w + ww] =
                    ohw ? repdl__maxpool_bwd_elem(s, argmax + plane * ohw, dy + plane * ohw, oh, ow, hh, ww)
                        : -0.0f;
    return REPDL_OK;
}

/* Host form of one output row p of avg_pool2d_forward: interior outputs
   (all window columns in bounds) REPDL__POOL_CHUNK at a time, tap by tap
   in window order (the same fadd chain from -0 for each output, then the
   same division), the others by repdl__avgpool_fwd_elem. */
#define REPDL__POOL_CHUNK 64
REPDL_FN void repdl__avgpool_fwd_row(const repdl_pool2d_shape *sp, int count_include_pad,
                                     const float *x, size_t p, size_t ow, float *y)
{
    repdl_pool2d_shape s = *sp;
    size_t r0, r1, r, c, q, qa, qb, q0, hb, i;
    float d;
    repdl__pool_span(p, s.kh, s.stride_h, s.pad_h, s.h, &r0, &r1);
    qa = (s.pad_w + s.stride_w - 1) / s.stride_w;
    qb = s.w + s.pad_w >= s.kw ? (s.w + s.pad_w - s.kw) / s.stride_w + 1 : 0;
    if (qb > ow) qb = ow;
    if (qa > qb || r0 == r1) qa = qb = 0;
    hb = p * s.stride_h - s.pad_h;   /* modulo 2^64 */
    d = count_include_pad ? (float)(s.kh * s.kw) : (float)((r1 - r0) * s.kw);
    for (q = 0; q < qa; q++) y[q] = repdl__avgpool_fwd_elem(&s, count_include_pad, x, p, q);
    for (q0 = qa; q0 < qb; q0 += REPDL__POOL_CHUNK) {
        size_t m = qb - q0 < REPDL__POOL_CHUNK ? qb - q0 : REPDL__POOL_CHUNK;
        float acc[REPDL__POOL_CHUNK];
        const float *base = x + (q0 * s.stride_w - s.pad_w);
        for (i = 0; i < m; i++) acc[i] = -0.0f;
        for (r = r0; r < r1; r++)
            for (c = 0; c < s.kw; c++) {
                const float *src = base + (hb + r) * s.w + c;
                for (i = 0; i < m; i++) acc[i] = repdl__fadd(acc[i], src[i * s.stride_w]);
            }
        for (i = 0; i < m; i++) y[q0 + i] = repdl__canon(repdl__fdiv(acc[i], d));
    }
    for (q = qb > qa ? qb : qa; q < ow; q++)
        y[q] = repdl__avgpool_fwd_elem(&s, count_include_pad, x, p, q);
}

REPDL_API repdl_status repdl_avg_pool2d_forward_f32(const repdl_pool2d_shape *s, int count_include_pad,
                                           const float *x, float *y)
{
    size_t oh, ow, planes, hw, ohw, plane, p;
    repdl_status st = repdl__pool2d_dims(s, &oh, &ow, &planes, &hw, &ohw);
    if (st != REPDL_OK) return st;
    for (plane = 0; plane < planes; plane++)
        for (p = 0; p < oh; p++)
            repdl__avgpool_fwd_row(s, count_include_pad, x + plane * hw, p, ow,
                                   y + plane * ohw + p * ow);
    return REPDL_OK;
}

REPDL_API repdl_status repdl_avg_pool2d_backward_f32(const repdl_pool2d_shape *s, int count_include_pad,
                                            const float *dy, float *dx)
{
    size_t oh, ow, planes, hw, ohw, plane, hh, ww;
    repdl_status st = repdl__pool2d_dims(s, &oh, &ow, &planes, &hw, &ohw);
    if (st != REPDL_OK) return st;
    for (plane = 0; plane < planes; plane++)
        for (hh = 0; hh < s->h; hh++)
            for (ww = 0; ww < s->w; ww++)
                dx[plane * hw + hh * s->w + ww] =
                    ohw ? repdl__avgpool_bwd_elem(s, count_include_pad, dy + plane * ohw, ow, oh, hh, ww)
                        : -0.0f;
    return REPDL_OK;
}

REPDL_END_CODE
#endif /* REPDL_POOL_H */
