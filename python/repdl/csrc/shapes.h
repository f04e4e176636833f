// SPDX-License-Identifier: MIT
// python/repdl/csrc/shapes.h: sizes and repdl's shape structs from torch
// tensors, shared by the CPU functions of repdl._C (repdl_ext.cpp) and the
// CUDA ones (cuda_ops.cpp), so that both read a shape one way.
#ifndef REPDL_PY_SHAPES_H
#define REPDL_PY_SHAPES_H

#include <torch/extension.h>

#include <cstdint>
#include <vector>

#include <repdl/attention.h>
#include <repdl/conv2d.h>
#include <repdl/pool.h>

// A float32 output's data, or NULL when the tensor is undefined (an output
// not asked for).
static inline float *ptr(torch::Tensor &t) { return t.defined() ? t.data_ptr<float>() : nullptr; }

// A tensor size or count as size_t; negative: a Python error.
static inline size_t usz(int64_t v)
{
    TORCH_CHECK(v >= 0, "repdl: negative size ", v);
    return static_cast<size_t>(v);
}

// x [n, c, h, w], w [oc, c, kh, kw] (NCHW, groups 1).
static inline repdl_conv2d_shape conv_shape(const torch::Tensor &x, const torch::Tensor &w,
                                            std::vector<int64_t> stride, std::vector<int64_t> pad,
                                            std::vector<int64_t> dil)
{
    repdl_conv2d_shape s;
    s.n = usz(x.size(0)); s.c = usz(x.size(1)); s.h = usz(x.size(2)); s.w = usz(x.size(3));
    s.oc = usz(w.size(0)); s.kh = usz(w.size(2)); s.kw = usz(w.size(3));
    s.stride_h = usz(stride[0]); s.stride_w = usz(stride[1]);
    s.pad_h = usz(pad[0]); s.pad_w = usz(pad[1]);
    s.dil_h = usz(dil[0]); s.dil_w = usz(dil[1]);
    return s;
}

// x [n, c, h, w], window k, stride st, padding pad.
static inline repdl_pool2d_shape pool_shape(const torch::Tensor &x, std::vector<int64_t> k,
                                            std::vector<int64_t> st, std::vector<int64_t> pad)
{
    repdl_pool2d_shape s;
    s.n = usz(x.size(0)); s.c = usz(x.size(1)); s.h = usz(x.size(2)); s.w = usz(x.size(3));
    s.kh = usz(k[0]); s.kw = usz(k[1]);
    s.stride_h = usz(st[0]); s.stride_w = usz(st[1]);
    s.pad_h = usz(pad[0]); s.pad_w = usz(pad[1]);
    return s;
}

// The attention's shape from dims (batch, hq, hkv, nq, nk, d), checked
// against q, k, v, the mask [batch][nq][nk] and key_keep [batch][nk] (uint8).
static inline repdl_attention_shape attn_shape(std::vector<int64_t> dims, int64_t q_pos0, bool causal,
                                 const torch::Tensor &q, const torch::Tensor &k, const torch::Tensor &v,
                                 const c10::optional<torch::Tensor> &mask,
                                 const c10::optional<torch::Tensor> &key_keep)
{
    TORCH_CHECK(dims.size() == 6, "repdl: attention: dims are (batch, hq, hkv, nq, nk, d)");
    repdl_attention_shape s;
    s.batch = usz(dims[0]); s.hq = usz(dims[1]); s.hkv = usz(dims[2]);
    s.nq = usz(dims[3]); s.nk = usz(dims[4]); s.d = usz(dims[5]);
    s.q_pos0 = usz(q_pos0); s.kv_stride = 0; s.causal = causal ? 1 : 0;
    TORCH_CHECK(q.numel() == dims[0] * dims[1] * dims[3] * dims[5] &&
                    k.numel() == dims[0] * dims[2] * dims[4] * dims[5] && v.numel() == k.numel(),
                "repdl: attention: q, k, v sizes do not match (batch, hq, hkv, nq, nk, d)");
    if (mask.has_value() && mask->defined())
        TORCH_CHECK(mask->numel() == dims[0] * dims[3] * dims[4],
                    "repdl: attention: mask must have batch * nq * nk elements");
    if (key_keep.has_value() && key_keep->defined())
        TORCH_CHECK(key_keep->scalar_type() == torch::kUInt8 && key_keep->numel() == dims[0] * dims[4],
                    "repdl: attention: key_keep must be uint8 with batch * nk elements");
    return s;
}

#endif // REPDL_PY_SHAPES_H
