/* SPDX-License-Identifier: MIT */
/* cuda/gemm_conv.cuh: the per-element index maps of the GPU conv2d
   (cuda/linalg.cu), written once for the device kernels and for the host
   replay test (tests/cuda/test_gemm_tile_host.cpp, plain C++).

     conv_im2col_at  element e of the im2col workspace of images img0 ..:
                     col[b][kidx][pq] = x_tap, +0.0f for padding taps
                     (conv2d.h's repdl__im2col_f32);
     conv_col2im_at  element e of dx for images img0 ..: the fadd chain from
                     -0 over kidx ascending ((r, s) ascending, c fixed) of
                     the dcol[kidx][pq] whose tap reads it, canonical NaN
                     (conv2d.h's repdl__col2im_f32, docs/cuda-linalg.md);
     mb_tree_element element e of the tree over micro-batches of linear
                     dW and conv2d dw (the batch order).
   I is the index type: uint32_t when every index fits, else size_t. */
#ifndef REPDL_CUDA_GEMM_CONV_CUH
#define REPDL_CUDA_GEMM_CONV_CUH

#include <repdl/conv2d.h>

namespace repdl_cuda {

struct conv_geom {
    size_t n, c, h, w, oc, kh, kw, sh, sw, ph, pw, dh, dw;
    size_t oh, ow, P, CK, in_sz, out_sz; /* P = oh ow, CK = c kh kw */
};

/* The geometry of a valid shape (the caller checked sizes for overflow). */
static inline conv_geom conv_geom_of(const repdl_conv2d_shape *s)
{
    conv_geom g;
    g.n = s->n; g.c = s->c; g.h = s->h; g.w = s->w;
    g.oc = s->oc; g.kh = s->kh; g.kw = s->kw;
    g.sh = s->stride_h; g.sw = s->stride_w; g.ph = s->pad_h; g.pw = s->pad_w;
    g.dh = s->dil_h; g.dw = s->dil_w;
    g.oh = repdl_conv2d_out_h(s);
    g.ow = repdl_conv2d_out_w(s);
    g.P = g.oh * g.ow;
    g.CK = g.c * g.kh * g.kw;
    g.in_sz = g.c * g.h * g.w;
    g.out_sz = g.oc * g.P;
    return g;
}

template <class I>
REPDL_HD inline float conv_im2col_at(const conv_geom &g, const float *x, size_t img0, I e)
{
    I P = (I)g.P, CK = (I)g.CK, kw = (I)g.kw, kh = (I)g.kh, ow = (I)g.ow;
    I pq = e % P, rest = e / P, kidx = rest % CK, b = rest / CK;
    I s = kidx % kw, r = (kidx / kw) % kh, c = kidx / (kw * kh);
    I p = pq / ow, q = pq % ow;
    size_t ih = (size_t)p * g.sh + (size_t)r * g.dh; /* + pad_h */
    size_t iw = (size_t)q * g.sw + (size_t)s * g.dw; /* + pad_w */
    if (ih < g.ph || ih - g.ph >= g.h || iw < g.pw || iw - g.pw >= g.w) return 0.0f;
    return x[(img0 + (size_t)b) * g.in_sz + ((size_t)c * g.h + (ih - g.ph)) * g.w + (iw - g.pw)];
}

/* dcol: the workspace of the same images, [b][CK][P]; e indexes their dx. */
template <class I>
REPDL_HD inline float conv_col2im_at(const conv_geom &g, const float *dcol, I e)
{
    I H = (I)g.h, W = (I)g.w, C = (I)g.c;
    I ww = e % W, rest = e / W, hh = rest % H;
    rest /= H;
    I c = rest % C, b = rest / C;
    float acc = -0.0f;
    for (size_t r = 0; r < g.kh; r++) {
        /* tap row p: p sh + r dh = hh + ph */
        size_t th = (size_t)hh + g.ph, rd = r * g.dh;
        if (th < rd || (th - rd) % g.sh != 0) continue;
        size_t p = (th - rd) / g.sh;
        if (p >= g.oh) continue;
        for (size_t s = 0; s < g.kw; s++) {
            size_t tw = (size_t)ww + g.pw, sd = s * g.dw;
            if (tw < sd || (tw - sd) % g.sw != 0) continue;
            size_t q = (tw - sd) / g.sw;
            if (q >= g.ow) continue;
            size_t kidx = ((size_t)c * g.kh + r) * g.kw + s;
            acc = repdl__fadd(acc, dcol[((size_t)b * g.CK + kidx) * g.P + p * g.ow + q]);
        }
    }
    return repdl__canon(acc);
}

/* Element e of the tree over micro-batches (linalg.cu, mb_tree_kernel;
   docs/cuda-linalg.md): pushes parts[p V + e], p < np, the values of
   micro-batches count0 .. count0 + np - 1, into the element's buddy tree
   (repdl__tree, accum.h), whose pending nodes (the set bits of count0)
   are slots[l V + e] (repdl__tree_load / _store, the host's tree in its
   device form); last: out[e] = the root, canonical NaN; otherwise the
   pending nodes of count0 + np back into slots.  slots is not read when
   count0 == 0 (nor written when last). */
REPDL_HD inline void mb_tree_element(const float *parts, size_t np, size_t V, size_t count0,
                                     float *slots, float *out, int last, size_t e)
{
    repdl__tree tr;
    repdl__tree_load(&tr, count0, slots, V, e);
    for (size_t p = 0; p < np; p++) repdl__tree_push(&tr, 0, parts[p * V + e]);
    if (last) out[e] = repdl__canon(repdl__tree_root(&tr));
    else repdl__tree_store(&tr, slots, V, e);
}

} // namespace repdl_cuda

#endif
