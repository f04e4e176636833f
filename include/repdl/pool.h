/* SPDX-License-Identifier: MIT */
/* repdl/pool.h: 2-d max and average pooling (NCHW, float32) and their
   backward passes, reproducible: every output is a pure function of the
   shape and the data, the same bits on every machine (docs/nn-act-pool.md).

   Shape: x is [n][c][h][w], y is [n][c][oh][ow] with
     oh = (h + 2 pad_h - kh) / stride_h + 1   (0 if h + 2 pad_h < kh),
     ow likewise; kh, kw, stride_h, stride_w must be >= 1: a zero is
     REPDL_ERR_INVALID (repdl_pool2d_out_h and _w give 0 for it).
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
     tap gives y = -inf and argmax = REPDL_NO_INDEX (SIZE_MAX, as the
     argmax of an empty array).  Such windows exist exactly when
     pad_h >= kh or pad_w >= kw (some windows lie wholly in the padding),
     or when h = 0 or w = 0 while oh, ow > 0 all the same (the padding
     alone: h + 2 pad_h >= kh and w + 2 pad_w >= kw): then every window
     is empty.
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

   Outputs must not overlap inputs.  Sizes are size_t.  Each array may
   be NULL exactly when its extent is 0 elements: x and dx n c h w, y, dy
   and argmax n c oh ow (argmax of the forward pass may always be NULL:
   no argmax is written); a NULL array with a nonzero extent is
   REPDL_ERR_INVALID.  An empty extent is not read or written, the others
   are written in full: h = 0 or w = 0 with oh, ow > 0 writes the empty
   windows' outputs (above), and a backward pass with oh = 0 or ow = 0
   writes dx = -0 (no output covers any input).  Statuses
   (repdl__pool2d_check, then the pointers) come before anything is
   written: a call that returns an error has written nothing.  The backward passes
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

/* 1 when the product a b c d (as a count of floats) does not fit; a zero
   factor makes it 0, whatever the others. */
REPDL_FN int repdl__pool_prod4(size_t a, size_t b, size_t c, size_t d)
{
    size_t t = a;
    if (a == 0 || b == 0 || c == 0 || d == 0) return 0;
    return repdl__size_mul(&t, b) || repdl__size_mul(&t, c) || repdl__size_mul(&t, d);
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
    if (repdl__pool_prod4(s->n, s->c, s->h, s->w) ||
        repdl__pool_prod4(s->n, s->c, repdl__pool_out(s->h, s->kh, s->stride_h, s->pad_h),
                          repdl__pool_out(s->w, s->kw, s->stride_w, s->pad_w)))
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
/* oh and ow of the header comment; 0 for a NULL shape. */
REPDL_API size_t repdl_pool2d_out_h(const repdl_pool2d_shape *s)
{
    return s ? repdl__pool_out(s->h, s->kh, s->stride_h, s->pad_h) : 0;
}
REPDL_API size_t repdl_pool2d_out_w(const repdl_pool2d_shape *s)
{
    return s ? repdl__pool_out(s->w, s->kw, s->stride_w, s->pad_w) : 0;
}

/* REPDL_ERR_INVALID when an array of nonzero extent is NULL: in (extent
   planes * nin) and out (planes * nout); REPDL_OK otherwise. */
REPDL_FN repdl_status repdl__pool2d_ptrs(size_t planes, size_t nin, const void *in, size_t nout,
                                         const void *out)
{
    if (planes == 0) return REPDL_OK;
    if ((nin && !in) || (nout && !out)) return REPDL_ERR_INVALID;
    return REPDL_OK;
}

/* The checks of both forward passes (x, y), after repdl__pool2d_dims:
   1 when there is output to compute, otherwise the call's status (REPDL_OK
   = 0 when ohw == 0, oh may then still be huge; or an error, all < 1). */
REPDL_FN int repdl__pool2d_fwd_args(const repdl_pool2d_shape *s, const float *x, const float *y,
                                    size_t *oh, size_t *ow, size_t *planes, size_t *hw,
                                    size_t *ohw)
{
    repdl_status st = repdl__pool2d_dims(s, oh, ow, planes, hw, ohw);
    if (st != REPDL_OK) return (int)st;
    if ((st = repdl__pool2d_ptrs(*planes, *hw, x, *ohw, y)) != REPDL_OK) return (int)st;
    return *ohw == 0 ? (int)REPDL_OK : 1;
}

/* The first output along an axis whose window starts in bounds: the least
   q with q st >= pad, ceil(pad / st) (pad + st - 1 would wrap for a stride
   near SIZE_MAX). */
REPDL_FN size_t repdl__pool_first_interior(size_t pad, size_t st)
{
    return pad / st + (pad % st != 0);
}

/* In-bounds part of output p's window along one axis: taps r in [*r0, *r1).
   p < the output count, so p st + k <= h + 2 pad fits (repdl__pool2d_check);
   no other sum is formed. */
REPDL_FN void repdl__pool_span(size_t p, size_t k, size_t st, size_t pad, size_t h,
                               size_t *r0, size_t *r1)
{
    /* window rows p st - pad + r, computed without going negative */
    size_t base = p * st;                       /* hh + pad */
    size_t lo = base < pad ? pad - base : 0;    /* first r with hh >= 0 */
    size_t hi = k;                              /* first r with hh >= h */
    if (base >= h + pad) hi = 0;
    else if (h + pad - base < k) hi = h + pad - base;
    if (hi < lo) hi = lo;
    *r0 = lo;
    *r1 = hi;
}

/* Output positions whose window holds input row hh: [*p0, *p1), i.e.
   p st - pad <= hh <= p st - pad + k - 1 and p < out.  hh < h, so
   a + 1 = hh + pad + 1 <= h + 2 pad fits; the ceiling division forms no
   sum with st (a stride near SIZE_MAX). */
REPDL_FN void repdl__pool_cover(size_t hh, size_t k, size_t st, size_t pad, size_t out,
                                size_t *p0, size_t *p1)
{
    size_t a = hh + pad;                         /* p st <= a, p st >= a - k + 1 */
    size_t lo = a + 1 <= k ? 0 : repdl__pool_first_interior(a + 1 - k, st);
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

/* ---- Host vectors (gcc and clang) ----
   The host forms of max_pool2d below work on blocks of 16 consecutive
   outputs.  With gcc and clang (REPDL__GNU_HOST) a block is REPDL__POOL_NV
   GNU vectors of REPDL__POOL_VL lanes, the target's own width (16 with
   AVX-512, 8 with AVX2, 4 otherwise: wider generic vectors than the
   target has are split element by element by gcc), each operation lane by
   lane, so the width changes no value.  Elsewhere (REPDL_PORTABLE_C,
   other compilers) plain C loops do the same operations. */
#if REPDL__GNU_HOST
#if defined(__AVX512F__)
#define REPDL__POOL_VL 16
#define REPDL__POOL_IOTA 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
#define REPDL__POOL_EVEN 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define REPDL__POOL_ODD 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#define REPDL__POOL_ZIPLO 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23
#define REPDL__POOL_ZIPHI 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31
#elif defined(__AVX2__)
#define REPDL__POOL_VL 8
#define REPDL__POOL_IOTA 0, 1, 2, 3, 4, 5, 6, 7
#define REPDL__POOL_EVEN 0, 2, 4, 6, 8, 10, 12, 14
#define REPDL__POOL_ODD 1, 3, 5, 7, 9, 11, 13, 15
#define REPDL__POOL_ZIPLO 0, 8, 1, 9, 2, 10, 3, 11
#define REPDL__POOL_ZIPHI 4, 12, 5, 13, 6, 14, 7, 15
#else
#define REPDL__POOL_VL 4
#define REPDL__POOL_IOTA 0, 1, 2, 3
#define REPDL__POOL_EVEN 0, 2, 4, 6
#define REPDL__POOL_ODD 1, 3, 5, 7
#define REPDL__POOL_ZIPLO 0, 4, 1, 5
#define REPDL__POOL_ZIPHI 2, 6, 3, 7
#endif
#define REPDL__POOL_NV (16 / REPDL__POOL_VL)
typedef float repdl__pool_vf __attribute__((vector_size(4 * REPDL__POOL_VL)));
typedef int32_t repdl__pool_vi __attribute__((vector_size(4 * REPDL__POOL_VL)));
typedef uint32_t repdl__pool_vu __attribute__((vector_size(4 * REPDL__POOL_VL)));
/* Lanes of a and b (lanes VL.. of the pair are b's) picked by the list. */
#if defined(__clang__)
#define REPDL__POOL_SHUF(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#elif defined(__cplusplus)
#define REPDL__POOL_SHUF(a, b, ...) __builtin_shuffle(a, b, repdl__pool_vi{__VA_ARGS__})
#else
#define REPDL__POOL_SHUF(a, b, ...) __builtin_shuffle(a, b, (repdl__pool_vi){__VA_ARGS__})
#endif

/* *v = src[k sw], k < REPDL__POOL_VL (vectors through pointers: a vector
   returned by value has an ABI that depends on the target flags). */
REPDL_FN void repdl__pool_vload(repdl__pool_vf *v, const float *src, size_t sw)
{
    if (sw == 1) {
        memcpy(v, src, sizeof *v);
    } else if (sw == 2) {
        repdl__pool_vf lo, hi;
        memcpy(&lo, src, sizeof lo);
        memcpy(&hi, src + REPDL__POOL_VL, sizeof hi);
        *v = REPDL__POOL_SHUF(lo, hi, REPDL__POOL_EVEN);
    } else {
        float a[REPDL__POOL_VL];
        int k;
        for (k = 0; k < REPDL__POOL_VL; k++) a[k] = src[(size_t)k * sw];
        memcpy(v, a, sizeof *v);
    }
}
#define REPDL__POOL_VEC 1
#else
#define REPDL__POOL_VEC 0
#endif

/* ---- Host form of max_pool2d_forward ----
   One output row p of a plane at a time.  The outputs q whose window
   columns are all in bounds ("interior") are done in blocks of 16
   consecutive outputs with the window's taps in window order, each tap one
   vector step across the block: for each q the same comparisons in the
   same order as repdl__maxpool_fwd_elem (the first in-bounds tap starts,
   a later tap replaces it iff tap > best), selects instead of branches.
   A NaN never compares greater, so a block also records whether it met
   one; such a block (rare) is redone by repdl__maxpool_fwd_elem, which
   applies the first-NaN rule.  The last block of a row overlaps the one
   before it instead of running short (outputs are pure functions of x:
   recomputed, the same bits).  Edge outputs (a window column in the
   padding), and rows of fewer than 16 interior outputs, go to the element
   function.

   A block: src points at tap (r0, 0) of its first output, so tap (r, c)
   of output k is src[r w + c + k sw] (r < nr in-bounds rows, c < kw); it
   leaves best[k] and tap[k], the winner's offset r w + c from src, and
   returns nonzero when it met a NaN.  Tap offsets are 32-bit: the caller
   makes sure kh w < 2^32.  sw is a constant at the call sites (1, 2, or
   the stride). */
REPDL_FN uint32_t repdl__maxpool_block16(const float *src, size_t w, size_t nr, size_t kw,
                                         size_t sw, float *best, uint32_t *tap)
{
    size_t r, c;
    int j, k;
    uint32_t any = 0;
#if REPDL__POOL_VEC
    const repdl__pool_vi zero = {0};
    repdl__pool_vf b[REPDL__POOL_NV], v;
    repdl__pool_vi t[REPDL__POOL_NV], nan[REPDL__POOL_NV], gt, off;
    for (j = 0; j < REPDL__POOL_NV; j++) {
        repdl__pool_vload(&b[j], src + (size_t)j * REPDL__POOL_VL * sw, sw);
        t[j] = zero;
        nan[j] = zero;
    }
    for (r = 0; r < nr; r++)
        for (c = 0; c < kw; c++) {
            off = zero + (int32_t)(uint32_t)(r * w + c);
            for (j = 0; j < REPDL__POOL_NV; j++) {
                repdl__pool_vload(&v, src + r * w + c + (size_t)j * REPDL__POOL_VL * sw, sw);
                gt = v > b[j];    /* all ones where the tap replaces the best */
                b[j] = (repdl__pool_vf)(((repdl__pool_vi)v & gt) | ((repdl__pool_vi)b[j] & ~gt));
                t[j] = (off & gt) | (t[j] & ~gt);
                nan[j] |= v != v;
            }
        }
    for (j = 0; j < REPDL__POOL_NV; j++) {
        memcpy(best + j * REPDL__POOL_VL, &b[j], sizeof b[j]);
        memcpy(tap + j * REPDL__POOL_VL, &t[j], sizeof t[j]);
        for (k = 0; k < REPDL__POOL_VL; k++) any |= (uint32_t)nan[j][k];
    }
#else
    (void)j;
    for (k = 0; k < 16; k++) {
        best[k] = src[(size_t)k * sw];
        tap[k] = 0;
    }
    for (r = 0; r < nr; r++)
        for (c = 0; c < kw; c++) {
            const float *t = src + r * w + c;
            uint32_t off = (uint32_t)(r * w + c);
            for (k = 0; k < 16; k++) {
                float v = t[(size_t)k * sw];
                int gt = repdl__fgt(v, best[k]);
                best[k] = gt ? v : best[k];
                tap[k] = gt ? off : tap[k];
                any |= (uint32_t)repdl__fne(v, v);
            }
        }
#endif
    return any;
}

/* The interior outputs [qa, qb) of row p, qb - qa >= 16, nr in-bounds
   rows from r0; stride sw a constant at the call sites. */
REPDL_FN void repdl__maxpool_fwd_run(const repdl_pool2d_shape *sp, const float *x, size_t p,
                                     size_t r0, size_t nr, size_t qa, size_t qb, size_t sw,
                                     float *y, size_t *argmax)
{
    float best[16];
    uint32_t tap[16];
    size_t q0, k, a;
    /* flat index of tap (r0, 0) of output 0: p stride_h - pad_h and
       - pad_w are taken modulo 2^64 */
    size_t rb = (p * sp->stride_h - sp->pad_h + r0) * sp->w - sp->pad_w;
    for (q0 = qa; q0 < qb; q0 += 16) {
        size_t qs = q0 + 16 <= qb ? q0 : qb - 16, i0 = rb + qs * sw;
        if (REPDL_UNLIKELY(repdl__maxpool_block16(x + i0, sp->w, nr, sp->kw, sw, best, tap))) {
            for (k = 0; k < 16; k++) {
                y[qs + k] = repdl__maxpool_fwd_elem(sp, x, p, qs + k, &a);
                if (argmax) argmax[qs + k] = a;
            }
            continue;
        }
        memcpy(y + qs, best, sizeof best);
        if (argmax)
            for (k = 0; k < 16; k++) argmax[qs + k] = i0 + (size_t)tap[k] + k * sw;
    }
}

REPDL_FN void repdl__maxpool_fwd_row(const repdl_pool2d_shape *sp, const float *x, size_t p,
                                     size_t ow, float *y, size_t *argmax)
{
    repdl_pool2d_shape s = *sp;   /* a local copy: stores cannot alias it */
    size_t r0, r1, q, qa, qb, a, sw = s.stride_w;
    repdl__pool_span(p, s.kh, s.stride_h, s.pad_h, s.h, &r0, &r1);
    /* interior q: q stride_w >= pad_w and q stride_w - pad_w + kw <= w */
    qa = repdl__pool_first_interior(s.pad_w, sw);
    qb = s.w + s.pad_w >= s.kw ? (s.w + s.pad_w - s.kw) / sw + 1 : 0;
    if (qb > ow) qb = ow;
    if (qa > qb || qb - qa < 16 || r0 == r1 || s.kh >= 0xffffffffu || s.w >= 0xffffffffu ||
        (uint64_t)s.kh * s.w >= 0xffffffffu)
        qa = qb = 0;  /* no blocks (tap offsets are 32-bit) */
    for (q = 0; q < qa; q++) {
        y[q] = repdl__maxpool_fwd_elem(&s, x, p, q, &a);
        if (argmax) argmax[q] = a;
    }
    if (qb > qa) {
        if (sw == 1) repdl__maxpool_fwd_run(&s, x, p, r0, r1 - r0, qa, qb, 1, y, argmax);
        else if (sw == 2) repdl__maxpool_fwd_run(&s, x, p, r0, r1 - r0, qa, qb, 2, y, argmax);
        else repdl__maxpool_fwd_run(&s, x, p, r0, r1 - r0, qa, qb, sw, y, argmax);
    }
    for (q = qb > qa ? qb : qa; q < ow; q++) {
        y[q] = repdl__maxpool_fwd_elem(&s, x, p, q, &a);
        if (argmax) argmax[q] = a;
    }
}

REPDL_API repdl_status repdl_max_pool2d_forward_f32(const repdl_pool2d_shape *s, const float *x, float *y,
                                           size_t *argmax)
{
    REPDL__FPENV_CHECK();
    size_t oh, ow, planes, hw, ohw, plane, p;
    int go = repdl__pool2d_fwd_args(s, x, y, &oh, &ow, &planes, &hw, &ohw);
    if (go != 1) return (repdl_status)go;
    for (plane = 0; plane < planes; plane++)
        for (p = 0; p < oh; p++)
            repdl__maxpool_fwd_row(s, x + plane * hw, p, ow, y + plane * ohw + p * ow,
                                   argmax ? argmax + plane * ohw + p * ow : NULL);
    return REPDL_OK;
}

/* ---- Host form of max_pool2d_backward ----
   The definition's gather (input i adds, from -0, the dy of the outputs
   that selected it, in ascending output order) is done as a scatter over
   the outputs in ascending order into a plane first set to -0: for each
   input the same additions in the same order; the plane is canonicalised
   at the end (the gather's final repdl__canon).

   An output selects its argmax i only when i is an in-bounds tap of its
   window: d = i - (its first in-bounds tap) = r w + c with r < nr rows
   and c < nc columns (REPDL_NO_INDEX and indices past the plane never
   are).  Edge outputs check their own span (repdl__maxpool_bwd_sel).  The
   interior outputs of a row (all window columns in bounds, nc = kw), in
   blocks of 16 (the last one overlapping), get a code: d (or the argmax
   itself) when selected, REPDL__POOL_NOSEL otherwise
   (repdl__maxpool_bwd_code16), computed in
   32-bit lanes without a division: c = d less w for each row boundary
   t w <= d.  32 bits hold d when (h + kh) w < 2^32 - 1 (then an index
   below the block's first tap wraps to at least 2^32 - h w > kh w);
   larger planes take the edge path for every output.

   When windows cannot overlap (kh <= stride_h and kw <= stride_w) an input
   is a tap of one window at most, so it receives one term at most, and
   -0 + v = v for every v: its value is the canonical dy or -0.  If
   moreover kw == stride_w, the interior windows of an output row cover
   whole row segments, which are written tap by tap, in vectors, with no
   scatter: canonical dy where the code names the tap, -0 elsewhere.  If
   they also tile the plane (kernel = stride, no padding, h and w multiples
   of the kernel, rows of 16 outputs or more: every input is a tap of one
   interior window of a block) the plane is not set to -0 first. */
#define REPDL__POOL_NOSEL 0xffffffffu

/* Whether output q (any) selects its argmax a: first is the flat index of
   tap (r0, 0) of output 0 of the row, nr its in-bounds rows. */
REPDL_FN int repdl__maxpool_bwd_sel(const repdl_pool2d_shape *s, size_t a, size_t first, size_t q,
                                    size_t nr)
{
    size_t c0, c1, d, r;
    int in = 0;
    repdl__pool_span(q, s->kw, s->stride_w, s->pad_w, s->w, &c0, &c1);
    d = a - (first + q * s->stride_w + c0);       /* modulo 2^64 */
    for (r = 0; r < nr; r++) in |= d - r * s->w < c1 - c0;
    return in;
}

/* Codes of the 16 interior outputs from q0 (argmax a[0..16), dy[0..16))
   into code[0..16), and their canonical dy into g[0..16).  absolute
   (a constant at the call sites): a selecting output's code is its argmax
   itself (< 2^32 here) instead of d.  Not absolute, the code is only
   compared with the taps r w + c (r < nr, c < kw) of the window by
   repdl__maxpool_bwd_rows, which no d outside the window equals: the
   vector form leaves out the range and column checks there (an argmax of
   2^32 or more still gets REPDL__POOL_NOSEL). */
REPDL_FN void repdl__maxpool_bwd_code16(const size_t *a, const float *dy, size_t first,
                                        size_t q0, size_t sw, size_t w, size_t nr, size_t kw,
                                        int absolute, uint32_t *code, float *g)
{
    uint32_t lim = (uint32_t)(nr * w);
    size_t t;
    int j, k;
#if REPDL__POOL_VEC && SIZE_MAX == UINT64_MAX && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t base = (uint32_t)(first + q0 * sw);
    const repdl__pool_vu iota = {REPDL__POOL_IOTA}, zero = {0};
    repdl__pool_vu A, B, lo[REPDL__POOL_NV], hi, d[REPDL__POOL_NV], c[REPDL__POOL_NV], thr;
    repdl__pool_vf v;
    repdl__pool_vi nan;
    (void)k;
    for (j = 0; j < REPDL__POOL_NV; j++) {
        /* the 64-bit indices as 32-bit halves, low half first */
        memcpy(&A, a + j * REPDL__POOL_VL, sizeof A);
        memcpy(&B, a + j * REPDL__POOL_VL + REPDL__POOL_VL / 2, sizeof B);
        lo[j] = REPDL__POOL_SHUF(A, B, REPDL__POOL_EVEN);
        hi = REPDL__POOL_SHUF(A, B, REPDL__POOL_ODD);
        d[j] = lo[j] - (base + (uint32_t)(j * REPDL__POOL_VL * sw)) - iota * (uint32_t)sw;
        if (!absolute) {   /* d itself, only compared with taps r w + c */
            d[j] |= (repdl__pool_vu)(hi != 0);
            memcpy(code + j * REPDL__POOL_VL, &d[j], sizeof d[j]);
        }
        d[j] |= (repdl__pool_vu)(hi != 0) | ~(repdl__pool_vu)(d[j] < lim);
        c[j] = d[j];
        memcpy(&v, dy + j * REPDL__POOL_VL, sizeof v);
        nan = v != v;
        v = (repdl__pool_vf)(((repdl__pool_vi)v & ~nan) | (nan & (repdl__pool_vi)(zero + 0x7fc00000u)));
        memcpy(g + j * REPDL__POOL_VL, &v, sizeof v);
    }
    if (!absolute) return;
    for (t = 1; t < nr; t++) {
        thr = zero + (uint32_t)(t * w);
        for (j = 0; j < REPDL__POOL_NV; j++) c[j] -= (repdl__pool_vu)(d[j] >= thr) & (uint32_t)w;
    }
    for (j = 0; j < REPDL__POOL_NV; j++) {
        repdl__pool_vu no = ~(repdl__pool_vu)(c[j] < (uint32_t)kw) | (repdl__pool_vu)(d[j] == ~zero);
        d[j] = (absolute ? lo[j] : d[j]) | no;
        memcpy(code + j * REPDL__POOL_VL, &d[j], sizeof d[j]);
    }
#else
    uint32_t c[16];
    (void)j;
    for (k = 0; k < 16; k++) {
        size_t d = a[k] - (first + (q0 + (size_t)k) * sw);   /* modulo 2^64 */
        code[k] = d < lim ? (uint32_t)d : REPDL__POOL_NOSEL;
        c[k] = code[k];
        g[k] = repdl__canon(dy[k]);
    }
    for (t = 1; t < nr; t++)
        for (k = 0; k < 16; k++) c[k] -= code[k] >= (uint32_t)(t * w) ? (uint32_t)w : 0u;
    for (k = 0; k < 16; k++)
        code[k] = c[k] < (uint32_t)kw && code[k] != REPDL__POOL_NOSEL
                      ? (absolute ? (uint32_t)a[k] : code[k]) : REPDL__POOL_NOSEL;
#endif
}

/* The rows of a block whose windows tile their row segments (kw == sw,
   disjoint): o points at tap (r0, 0) of the block's first output. */
REPDL_FN void repdl__maxpool_bwd_rows(float *o, size_t w, size_t nr, size_t kw,
                                      const uint32_t *code, const float *g)
{
    size_t r, c;
    int k;
#if REPDL__POOL_VEC
    if (kw == 2) {   /* the two taps of a window row, interleaved */
        const repdl__pool_vu mz = {0};
        repdl__pool_vu cd[REPDL__POOL_NV], gv[REPDL__POOL_NV], m0, m1, e0, e1, u, v;
        int j;
        for (j = 0; j < REPDL__POOL_NV; j++) {
            memcpy(&cd[j], code + j * REPDL__POOL_VL, sizeof cd[j]);
            memcpy(&gv[j], g + j * REPDL__POOL_VL, sizeof gv[j]);
        }
        for (r = 0; r < nr; r++)
            for (j = 0; j < REPDL__POOL_NV; j++) {
                m0 = (repdl__pool_vu)(cd[j] == (uint32_t)(r * w));
                m1 = (repdl__pool_vu)(cd[j] == (uint32_t)(r * w + 1));
                e0 = (gv[j] & m0) | ((mz + 0x80000000u) & ~m0);
                e1 = (gv[j] & m1) | ((mz + 0x80000000u) & ~m1);
                u = REPDL__POOL_SHUF(e0, e1, REPDL__POOL_ZIPLO);
                v = REPDL__POOL_SHUF(e0, e1, REPDL__POOL_ZIPHI);
                memcpy(o + r * w + 2 * j * REPDL__POOL_VL, &u, sizeof u);
                memcpy(o + r * w + 2 * j * REPDL__POOL_VL + REPDL__POOL_VL, &v, sizeof v);
            }
        return;
    }
#endif
    for (r = 0; r < nr; r++)
        for (k = 0; k < 16; k++)
            for (c = 0; c < kw; c++)
                o[r * w + (size_t)k * kw + c] = code[k] == (uint32_t)(r * w + c) ? g[k] : -0.0f;
}

/* The scatter of n outputs' codes (argmax itself or REPDL__POOL_NOSEL):
   disjoint, a store of the canonical dy g[k]; otherwise an addition of dy
   g[k] to the partial sum (canonicalised at the end of the plane). */
REPDL_FN void repdl__maxpool_bwd_scatter(float *dx, const uint32_t *code, const float *g, size_t n,
                                         int disjoint)
{
    size_t k;
    if (disjoint) {
        for (k = 0; k < n; k++)
            if (code[k] != REPDL__POOL_NOSEL) dx[code[k]] = g[k];
    } else {
        for (k = 0; k < n; k++)
            if (code[k] != REPDL__POOL_NOSEL) dx[code[k]] = repdl__fadd(dx[code[k]], g[k]);
    }
}

REPDL_FN void repdl__maxpool_bwd_plane(const repdl_pool2d_shape *sp, const size_t *argmax,
                                       const float *dy, size_t oh, size_t ow, float *dx)
{
    repdl_pool2d_shape s = *sp;   /* a local copy: stores cannot alias it */
    size_t hw = s.h * s.w, i, p, q, sw = s.stride_w;
    int disjoint = s.kh <= s.stride_h && s.kw <= sw;
    int rows = disjoint && s.kw == sw;
    int lanes32 = s.h < 0xffffffffu && s.kh < 0xffffffffu && s.w < 0xffffffffu &&
                  (uint64_t)(s.h + s.kh) * s.w < 0xffffffffu;
    int tiled = rows && lanes32 && ow >= 16 && s.kh == s.stride_h && s.pad_h == 0 &&
                s.pad_w == 0 && s.h % s.kh == 0 && s.w % s.kw == 0;
    if (!tiled)
        for (i = 0; i < hw; i++) dx[i] = -0.0f;
    for (p = 0; p < oh; p++) {
        size_t r0, r1, nr, first, qa, qb, q0;
        const size_t *ap = argmax + p * ow;
        const float *gp = dy + p * ow;
        repdl__pool_span(p, s.kh, s.stride_h, s.pad_h, s.h, &r0, &r1);
        nr = r1 - r0;
        first = (p * s.stride_h - s.pad_h + r0) * s.w - s.pad_w;  /* modulo 2^64 */
        /* interior q as in the forward pass */
        qa = repdl__pool_first_interior(s.pad_w, sw);
        qb = s.w + s.pad_w >= s.kw ? (s.w + s.pad_w - s.kw) / sw + 1 : 0;
        if (qb > ow) qb = ow;
        if (qa > qb || qb - qa < 16 || nr == 0 || !lanes32) qa = qb = 0;
        for (q = 0; q < qa; q++)
            if (repdl__maxpool_bwd_sel(&s, ap[q], first, q, nr))
                dx[ap[q]] = disjoint ? repdl__canon(gp[q]) : repdl__fadd(dx[ap[q]], gp[q]);
        if (rows) {
            for (q0 = qa; q0 < qb; q0 += 16) {
                /* the last block overlaps: its rows are rewritten with the
                   same values */
                uint32_t code[16];
                float g[16];
                size_t qs = q0 + 16 <= qb ? q0 : qb - 16;
                if (sw == 2) {
                    repdl__maxpool_bwd_code16(ap + qs, gp + qs, first, qs, 2, s.w, nr, 2, 0, code, g);
                    repdl__maxpool_bwd_rows(dx + first + qs * 2, s.w, nr, 2, code, g);
                } else {
                    repdl__maxpool_bwd_code16(ap + qs, gp + qs, first, qs, sw, s.w, nr, sw, 0, code, g);
                    repdl__maxpool_bwd_rows(dx + first + qs * sw, s.w, nr, sw, code, g);
                }
            }
        } else {
            /* the scatter: the codes of up to 64 outputs [q0, q1) first
               (code[16 + k] is output q0 + k; the last block may start up
               to 15 outputs before q0), then their scatter (a load of a
               code right after the vector store that wrote it would wait
               for that store) */
            for (q0 = qa; q0 < qb; q0 += 64) {
                uint32_t code[16 + 64];
                float g[16 + 64];
                size_t q1 = qb - q0 < 64 ? qb : q0 + 64, b;
                for (b = q0; b < q1; b += 16) {
                    size_t qs = b + 16 <= qb ? b : qb - 16;
                    repdl__maxpool_bwd_code16(ap + qs, gp + qs, first, qs, sw, s.w, nr, s.kw, 1,
                                              code + 16 + qs - q0, g + 16 + qs - q0);
                }
                repdl__maxpool_bwd_scatter(dx, code + 16, disjoint ? g + 16 : gp + q0, q1 - q0, disjoint);
            }
        }
        for (q = qb > qa ? qb : qa; q < ow; q++)
            if (repdl__maxpool_bwd_sel(&s, ap[q], first, q, nr))
                dx[ap[q]] = disjoint ? repdl__canon(gp[q]) : repdl__fadd(dx[ap[q]], gp[q]);
    }
    if (!disjoint)
        for (i = 0; i < hw; i++) dx[i] = repdl__canon(dx[i]);
}

REPDL_API repdl_status repdl_max_pool2d_backward_f32(const repdl_pool2d_shape *s, const size_t *argmax,
                                            const float *dy, float *dx)
{
    REPDL__FPENV_CHECK();
    size_t oh, ow, planes, hw, ohw, plane;
    repdl_status st = repdl__pool2d_dims(s, &oh, &ow, &planes, &hw, &ohw);
    if (st != REPDL_OK) return st;
    if ((st = repdl__pool2d_ptrs(planes, ohw, argmax, hw, dx)) != REPDL_OK ||
        (st = repdl__pool2d_ptrs(planes, ohw, dy, 0, NULL)) != REPDL_OK)
        return st;
    if (ohw == 0) {   /* no output selects any input (oh may still be huge) */
        for (plane = 0; plane < planes * hw; plane++) dx[plane] = -0.0f;
        return REPDL_OK;
    }
    for (plane = 0; plane < planes; plane++)
        repdl__maxpool_bwd_plane(s, argmax + plane * ohw, dy + plane * ohw, oh, ow, dx + plane * hw);
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
    qa = repdl__pool_first_interior(s.pad_w, s.stride_w);
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

/* Every output row of one plane (x: h w inputs, y: oh ow outputs). */
REPDL_FN void repdl__avgpool_fwd_plane(const repdl_pool2d_shape *s, int count_include_pad,
                                       const float *x, size_t oh, size_t ow, float *y)
{
    size_t p;
    for (p = 0; p < oh; p++) repdl__avgpool_fwd_row(s, count_include_pad, x, p, ow, y + p * ow);
}

REPDL_API repdl_status repdl_avg_pool2d_forward_f32(const repdl_pool2d_shape *s, int count_include_pad,
                                           const float *x, float *y)
{
    REPDL__FPENV_CHECK();
    size_t oh, ow, planes, hw, ohw, plane;
    int go = repdl__pool2d_fwd_args(s, x, y, &oh, &ow, &planes, &hw, &ohw);
    if (go != 1) return (repdl_status)go;
    for (plane = 0; plane < planes; plane++)
        repdl__avgpool_fwd_plane(s, count_include_pad, x + plane * hw, oh, ow, y + plane * ohw);
    return REPDL_OK;
}

REPDL_API repdl_status repdl_avg_pool2d_backward_f32(const repdl_pool2d_shape *s, int count_include_pad,
                                            const float *dy, float *dx)
{
    REPDL__FPENV_CHECK();
    size_t oh, ow, planes, hw, ohw, plane, hh, ww;
    repdl_status st = repdl__pool2d_dims(s, &oh, &ow, &planes, &hw, &ohw);
    if (st != REPDL_OK) return st;
    if ((st = repdl__pool2d_ptrs(planes, ohw, dy, hw, dx)) != REPDL_OK) return st;
    /* no input (n c, h w may wrap when another factor is 0) */
    if (s->n == 0 || s->c == 0 || s->h == 0 || s->w == 0) return REPDL_OK;
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
