// SPDX-License-Identifier: MIT
// python/repdl/csrc/cuda_ops.cpp: the CUDA functions of repdl._C (the CUDA
// build, docs/python.md "CUDA").  For each function of repdl_ext.cpp that
// takes float32 tensors, cuda_<name> takes the same arguments on CUDA
// tensors and returns the same results, computed by repdl's launchers
// (include/repdl/cuda.h: the host's bits on the GPU); cuda_glue.cu only
// switches devices and names CUDA errors.  repdl/_device.py sends each call
// here when its tensors are on a CUDA device.
//
// Compiled by the host compiler against torch; no kernel here.  Streams:
// with torch's CUDA headers (REPDL_TORCH_CUDA_STREAM, set by setup.py when
// torch was built with CUDA) every launch goes to torch's current stream of
// the tensors' device, under a device guard, so it is ordered with
// PyTorch's own work and allocator.  Without them (a torch with no CUDA,
// where this file is only compiled and no CUDA tensor can exist) the
// launches go to the legacy default stream and the device is switched with
// cudaSetDevice for the call.
#include <torch/extension.h>

#ifdef REPDL_TORCH_CUDA_STREAM
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <cstdint>
#include <string>
#include <vector>

#include <repdl/conv2d.h>
#include <repdl/cuda.h>
#include <repdl/layer_table.h>
#include <repdl/optim.h>
#include <repdl/pool.h>
#include <repdl/softmax.h>

#include "cuda_glue.h"
#include "shapes.h"
#include "unary.h"

static_assert(sizeof(size_t) == sizeof(int64_t), "argmax maps and targets are int64 tensors read as size_t");

namespace {

using torch::Tensor;

// A repdl status other than REPDL_OK as a Python RuntimeError, with the
// CUDA error behind REPDL_ERR_CUDA.
void ok(int st, const char *fn)
{
    if (st == REPDL_OK) return;
    if (st == REPDL_ERR_CUDA) {
        int e = repdl_cuda_last_cuda_error();
        TORCH_CHECK(false, "repdl: ", fn, " returned ", repdl_status_string((repdl_status)st),
                    " (CUDA error ", e, ": ", repdl_py_cuda_error_string(e), ")");
    }
    TORCH_CHECK(false, "repdl: ", fn, " returned ", repdl_status_string((repdl_status)st));
}

c10::Device cuda_device(const Tensor &t)
{
    TORCH_CHECK(t.device().is_cuda(), "repdl: a CUDA function of repdl._C got a tensor on ", t.device());
    return t.device();
}

// One call on one CUDA device, that of its first tensor: every tensor
// argument must be there (PyTorch's rule and message), float32 and
// contiguous; the device is current and the launches go to `stream()`
// for the duration of the call.
class OnDevice {
  public:
    explicit OnDevice(const Tensor &first)
        : dev_(cuda_device(first))
#ifdef REPDL_TORCH_CUDA_STREAM
        , guard_(dev_), stream_(c10::cuda::getCurrentCUDAStream(dev_.index()).stream())
#endif
    {
#ifndef REPDL_TORCH_CUDA_STREAM
        ok(repdl_py_cuda_set_device(dev_.index(), &prev_), "cudaSetDevice");
#endif
    }
    ~OnDevice()
    {
#ifndef REPDL_TORCH_CUDA_STREAM
        int ignored;
        if (prev_ >= 0 && prev_ != dev_.index()) repdl_py_cuda_set_device(prev_, &ignored);
#endif
    }
    OnDevice(const OnDevice &) = delete;
    OnDevice &operator=(const OnDevice &) = delete;

    void *stream() const { return stream_; }

    void here(const Tensor &t, const char *what) const
    {
        TORCH_CHECK(t.device() == dev_, "Expected all tensors to be on the same device, but found at least "
                    "two devices, ", dev_, " and ", t.device(), "! (repdl: ", what, ")");
        TORCH_CHECK(t.is_contiguous(), "repdl: ", what, " must be contiguous");
    }
    void here_f32(const Tensor &t, const char *what) const
    {
        here(t, what);
        TORCH_CHECK(t.scalar_type() == torch::kFloat32, "repdl: ", what, " must be float32, got ",
                    t.scalar_type());
    }
    const float *in(const Tensor &t, const char *what) const
    {
        here_f32(t, what);
        return t.data_ptr<float>();
    }
    float *out(Tensor &t, const char *what) const
    {
        here_f32(t, what);
        return t.data_ptr<float>();
    }
    const float *opt(const c10::optional<Tensor> &t, const char *what) const
    {
        return (t.has_value() && t->defined()) ? in(*t, what) : nullptr;
    }
    Tensor empty(at::IntArrayRef shape, c10::ScalarType type = torch::kFloat32) const
    {
        return torch::empty(shape, torch::TensorOptions().dtype(type).device(dev_));
    }

  private:
    c10::Device dev_;
#ifdef REPDL_TORCH_CUDA_STREAM
    c10::cuda::CUDAGuard guard_;
    void *stream_;
#else
    void *stream_ = nullptr;
    int prev_ = -1;
#endif
};

// ---- Elementwise ----

using unary_fn = int (*)(size_t, const float *, float *, void *);
using unary_bwd_fn = int (*)(size_t, const float *, const float *, float *, void *);
using unary_row = repdl_py_unary_row<unary_fn, unary_bwd_fn>;

// unary.h's rows: the launchers repdl_cuda_<op>_array_f32 and
// repdl_cuda_<op>_backward_array_f32 of each function of op_table.h with a
// backward pass.
const unary_row kUnary[] = {REPDL_ELEMENTWISE_BACKWARD(REPDL_PY_UNARY_CUDA)};

Tensor unary(const std::string &op, const Tensor &x)
{
    OnDevice d(x);
    const float *px = d.in(x, "input");
    const unary_row &u = repdl_py_unary_find(kUnary, op);
    Tensor y = d.empty(x.sizes());
    ok(u.fwd(usz(x.numel()), px, y.data_ptr<float>(), d.stream()),
       ("repdl_cuda_" + op + "_array_f32").c_str());
    return y;
}

// The library's backward launchers: repdl_cuda_<op>_backward_array_f32(n,
// in, dy, dx), in = y or x as op_table.h says (BY, BX).
Tensor unary_backward(const std::string &op, const Tensor &x, const Tensor &y, const Tensor &dy)
{
    OnDevice d(x);
    const float *px = d.in(x, "input"), *py = d.in(y, "output"), *pg = d.in(dy, "grad_output");
    TORCH_CHECK(x.numel() == y.numel() && x.numel() == dy.numel(), "repdl: backward shapes differ");
    const unary_row &u = repdl_py_unary_find(kUnary, op);
    Tensor dx = d.empty(x.sizes());
    ok(u.bwd(usz(x.numel()), u.reads_y ? py : px, pg, dx.data_ptr<float>(), d.stream()),
       ("repdl_cuda_" + op + "_backward_array_f32").c_str());
    return dx;
}

Tensor scale(double alpha, const Tensor &x)
{
    OnDevice d(x);
    const float *px = d.in(x, "input");
    Tensor y = d.empty(x.sizes());
    ok(repdl_cuda_scale_f32(usz(x.numel()), static_cast<float>(alpha), px, y.data_ptr<float>(), d.stream()),
       "repdl_cuda_scale_f32");
    return y;
}

// ---- Reductions over the last dimension of a [rows x n] tensor ----

Tensor reduce_rows(const std::string &kind, int64_t rows, int64_t n, int64_t ddof, const Tensor &x)
{
    OnDevice d(x);
    const float *px = d.in(x, "input");
    TORCH_CHECK(x.numel() == rows * n, "repdl: reduce_rows: size mismatch");
    Tensor out = d.empty({rows});
    float *po = out.data_ptr<float>();
    size_t R = usz(rows), N = usz(n);
    void *s = d.stream();
    if (kind == "sum") ok(repdl_cuda_sum_rows_f32(R, N, px, N, po, s), "repdl_cuda_sum_rows_f32");
    else if (kind == "mean") ok(repdl_cuda_mean_rows_f32(R, N, px, N, po, s), "repdl_cuda_mean_rows_f32");
    else if (kind == "var")
        ok(repdl_cuda_var_rows_f32(R, N, usz(ddof), px, N, po, s), "repdl_cuda_var_rows_f32");
    else if (kind == "norm") ok(repdl_cuda_norm2_rows_f32(R, N, px, N, po, s), "repdl_cuda_norm2_rows_f32");
    else TORCH_CHECK(false, "repdl: unknown reduction ", kind);
    return out;
}

Tensor reduce_rows_backward(const std::string &kind, int64_t rows, int64_t n, int64_t ddof,
                            const Tensor &x, const Tensor &y, const Tensor &dy)
{
    OnDevice d(x);
    const float *px = d.in(x, "input"), *py = d.in(y, "output"), *pg = d.in(dy, "grad_output");
    TORCH_CHECK(x.numel() == rows * n && y.numel() == rows && dy.numel() == rows,
                "repdl: reduce_rows_backward: size mismatch");
    Tensor dx = d.empty({rows, n});
    float *pd = dx.data_ptr<float>();
    size_t R = usz(rows), N = usz(n);
    void *s = d.stream();
    if (kind == "sum")
        ok(repdl_cuda_sum_rows_backward_f32(R, N, pg, pd, s), "repdl_cuda_sum_rows_backward_f32");
    else if (kind == "mean")
        ok(repdl_cuda_mean_rows_backward_f32(R, N, pg, pd, s), "repdl_cuda_mean_rows_backward_f32");
    else if (kind == "var")
        ok(repdl_cuda_var_rows_backward_f32(R, N, usz(ddof), px, pg, pd, s), "repdl_cuda_var_rows_backward_f32");
    else if (kind == "norm")
        ok(repdl_cuda_norm2_rows_backward_f32(R, N, px, py, pg, pd, s), "repdl_cuda_norm2_rows_backward_f32");
    else TORCH_CHECK(false, "repdl: unknown reduction ", kind);
    return dx;
}

Tensor dot(const Tensor &x, const Tensor &y)
{
    OnDevice d(x);
    const float *px = d.in(x, "input"), *py = d.in(y, "other");
    TORCH_CHECK(x.numel() == y.numel(), "repdl: dot: size mismatch");
    Tensor out = d.empty({});
    ok(repdl_cuda_dot_f32(usz(x.numel()), px, py, out.data_ptr<float>(), d.stream()), "repdl_cuda_dot_f32");
    return out;
}

// layers.inc's calls: the launchers on the call's stream.
using OnCall = OnDevice;
#define REPDL_PY_CALL(fn, ...) ok(repdl_cuda_##fn(__VA_ARGS__, d.stream()), "repdl_cuda_" #fn)
#include "layers.inc"  // softmax, pools, norms: written once for both builds

// ---- Attention (repdl_cuda_attention_*: the host's bits): repdl_ext.cpp's
// arguments and checks (attn_shape in shapes.h), every tensor on the device ----

const unsigned char *keep_ptr(OnDevice &d, const c10::optional<Tensor> &key_keep)
{
    if (!key_keep.has_value() || !key_keep->defined()) return nullptr;
    d.here(*key_keep, "key_keep");
    return key_keep->data_ptr<uint8_t>();
}

std::vector<Tensor> attention_forward(std::vector<int64_t> dims, int64_t q_pos0, bool causal,
                                      double scale, const Tensor &q, const Tensor &k,
                                      const Tensor &v, const c10::optional<Tensor> &mask,
                                      const c10::optional<Tensor> &key_keep)
{
    OnDevice d(q);
    repdl_attention_shape s = attn_shape(dims, q_pos0, causal, q, k, v, mask, key_keep);
    const float *pq = d.in(q, "query"), *pk = d.in(k, "key"), *pv = d.in(v, "value");
    const float *pm = d.opt(mask, "attn_mask");
    const unsigned char *pkk = keep_ptr(d, key_keep);
    Tensor out = d.empty(q.sizes()), lse = d.empty({dims[0], dims[1], dims[3]});
    ok(repdl_cuda_attention_forward_f32(&s, (float)scale, pq, pk, pv, pm, pkk, out.data_ptr<float>(),
                                        lse.data_ptr<float>(), d.stream()),
       "repdl_cuda_attention_forward_f32");
    return {out, lse};
}

std::vector<Tensor> attention_backward(std::vector<int64_t> dims, int64_t q_pos0, bool causal,
                                       double scale, const Tensor &q, const Tensor &k,
                                       const Tensor &v, const c10::optional<Tensor> &mask,
                                       const c10::optional<Tensor> &key_keep, const Tensor &out,
                                       const Tensor &lse, const Tensor &dout, bool need_dq,
                                       bool need_dk, bool need_dv)
{
    OnDevice d(q);
    repdl_attention_shape s = attn_shape(dims, q_pos0, causal, q, k, v, mask, key_keep);
    const float *pq = d.in(q, "query"), *pk = d.in(k, "key"), *pv = d.in(v, "value");
    const float *pm = d.opt(mask, "attn_mask");
    const unsigned char *pkk = keep_ptr(d, key_keep);
    const float *po = d.in(out, "output"), *pl = d.in(lse, "lse"), *pg = d.in(dout, "grad_output");
    TORCH_CHECK(out.numel() == q.numel() && dout.numel() == q.numel() &&
                    lse.numel() == dims[0] * dims[1] * dims[3],
                "repdl: attention backward: output, grad_output or lse size mismatch");
    Tensor dq, dk, dvv;
    if (need_dq) dq = d.empty(q.sizes());
    if (need_dk) dk = d.empty(k.sizes());
    if (need_dv) dvv = d.empty(v.sizes());
    ok(repdl_cuda_attention_backward_f32(&s, (float)scale, pq, pk, pv, pm, pkk, po, pl, pg, ptr(dq),
                                         ptr(dk), ptr(dvv), d.stream()),
       "repdl_cuda_attention_backward_f32");
    return {dq, dk, dvv};
}

// ---- Losses: logits/logp [rows x cols], target int64 [rows] on the device ----
// The targets are read as size_t in place (repdl.ops has checked that they
// are class indices in [0, cols)).  Returns (loss scalar, gradient or
// undefined).

std::vector<Tensor> loss(bool cross_entropy, int64_t reduction, const Tensor &x, const Tensor &target,
                         bool want_grad, int64_t divisor)
{
    OnDevice d(x);
    const float *px = d.in(x, "input");
    TORCH_CHECK(x.dim() == 2, "repdl: loss input must be [N, C]");
    d.here(target, "target");
    TORCH_CHECK(target.scalar_type() == torch::kInt64, "repdl: target must be int64");
    size_t rows = usz(x.size(0)), cols = usz(x.size(1));
    TORCH_CHECK(usz(target.numel()) == rows, "repdl: target size mismatch");
    const size_t *pt = reinterpret_cast<const size_t *>(target.data_ptr<int64_t>());
    Tensor l = d.empty({}), g;
    if (want_grad) g = d.empty(x.sizes());
    // divisor > 0: the mean over a global batch of `divisor` rows (the CPU
    // loss in repdl_ext.cpp): SUM, then loss and gradient divided by it
    TORCH_CHECK(divisor >= 0 && (divisor == 0 || reduction == 0), "repdl: loss: bad divisor");
    int red = reduction == 0 && divisor == 0 ? REPDL_REDUCTION_MEAN : REPDL_REDUCTION_SUM;
    if (cross_entropy)
        ok(repdl_cuda_cross_entropy_f32(rows, cols, red, px, pt, l.data_ptr<float>(), ptr(g), d.stream()),
           "repdl_cuda_cross_entropy_f32");
    else
        ok(repdl_cuda_nll_loss_f32(rows, cols, red, px, pt, l.data_ptr<float>(), ptr(g), d.stream()),
           "repdl_cuda_nll_loss_f32");
    if (divisor > 0) {
        ok(repdl_cuda_div_count_f32(1, usz(divisor), l.data_ptr<float>(), l.data_ptr<float>(),
                                    d.stream()), "repdl_cuda_div_count_f32");
        if (want_grad)
            ok(repdl_cuda_div_count_f32(rows * cols, usz(divisor), ptr(g), ptr(g), d.stream()),
               "repdl_cuda_div_count_f32");
    }
    return {l, g};
}

// ---- Matrix products ----

Tensor gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const Tensor &A, const Tensor &B,
            const c10::optional<Tensor> &bias)
{
    OnDevice d(A);
    const float *pa = d.in(A, "mat1"), *pb = d.in(B, "mat2"), *pbias = d.opt(bias, "bias");
    TORCH_CHECK(A.numel() == M * K && B.numel() == K * N, "repdl: gemm: size mismatch");
    Tensor C = d.empty({M, N});
    ok(repdl_cuda_gemm_f32(ta, tb, usz(M), usz(N), usz(K), 1.0f, 0.0f, pa, usz(ta ? M : K), pb,
                           usz(tb ? K : N), pbias, C.data_ptr<float>(), usz(N), d.stream()),
       "repdl_cuda_gemm_f32");
    return C;
}

// The correctly rounded product (repdl_cuda_gemm_cr_f32: repdl_gemm_cr_f32's bits)
Tensor gemm_cr(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const Tensor &A, const Tensor &B,
               const c10::optional<Tensor> &bias)
{
    OnDevice d(A);
    const float *pa = d.in(A, "mat1"), *pb = d.in(B, "mat2"), *pbias = d.opt(bias, "bias");
    TORCH_CHECK(M >= 0 && N >= 0 && K >= 0 && A.numel() == M * K && B.numel() == K * N,
                "repdl: gemm_cr: size mismatch");
    TORCH_CHECK(!pbias || bias->numel() == N, "repdl: gemm_cr: bias size mismatch");
    Tensor C = d.empty({M, N});
    ok(repdl_cuda_gemm_cr_f32(ta, tb, usz(M), usz(N), usz(K), pa, usz(ta ? M : K), pb,
                              usz(tb ? K : N), pbias, C.data_ptr<float>(), usz(N), d.stream()),
       "repdl_cuda_gemm_cr_f32");
    return C;
}

Tensor linear_forward(const Tensor &x, const Tensor &W, const c10::optional<Tensor> &b)
{
    OnDevice d(x);
    const float *px = d.in(x, "input"), *pw = d.in(W, "weight"), *pb = d.opt(b, "bias");
    int64_t M = x.size(0), K = x.size(1), N = W.size(0);
    TORCH_CHECK(W.numel() == N * K, "repdl: linear: size mismatch");
    Tensor y = d.empty({M, N});
    ok(repdl_cuda_linear_forward_f32(usz(M), usz(K), usz(N), px, pw, pb, y.data_ptr<float>(), d.stream()),
       "repdl_cuda_linear_forward_f32");
    return y;
}

std::vector<Tensor> linear_backward(const Tensor &x, const Tensor &W, const Tensor &dy, bool need_dx,
                                    bool need_dw, bool need_db)
{
    OnDevice d(x);
    const float *px = d.in(x, "input"), *pw = d.in(W, "weight"), *pg = d.in(dy, "grad_output");
    int64_t M = x.size(0), K = x.size(1), N = W.size(0);
    Tensor dx, dW, db;
    if (need_dx) dx = d.empty({M, K});
    if (need_dw) dW = d.empty({N, K});
    if (need_db) db = d.empty({N});
    ok(repdl_cuda_linear_backward_f32(usz(M), usz(K), usz(N), px, pw, pg, ptr(dx), ptr(dW), ptr(db), d.stream()),
       "repdl_cuda_linear_backward_f32");
    return {dx, dW, db};
}

// ---- Convolution (NCHW, groups 1) ----

Tensor conv2d_forward(const Tensor &x, const Tensor &w, const c10::optional<Tensor> &b,
                      std::vector<int64_t> stride, std::vector<int64_t> pad, std::vector<int64_t> dil)
{
    OnDevice d(x);
    const float *px = d.in(x, "input"), *pw = d.in(w, "weight"), *pb = d.opt(b, "bias");
    repdl_conv2d_shape s = conv_shape(x, w, stride, pad, dil);
    Tensor y = d.empty({x.size(0), w.size(0), (int64_t)repdl_conv2d_out_h(&s), (int64_t)repdl_conv2d_out_w(&s)});
    ok(repdl_cuda_conv2d_forward_f32(&s, px, pw, pb, y.data_ptr<float>(), d.stream()),
       "repdl_cuda_conv2d_forward_f32");
    return y;
}

std::vector<Tensor> conv2d_backward(const Tensor &x, const Tensor &w, const Tensor &dy,
                                    std::vector<int64_t> stride, std::vector<int64_t> pad,
                                    std::vector<int64_t> dil, bool need_dx, bool need_dw, bool need_db)
{
    OnDevice d(x);
    const float *px = d.in(x, "input"), *pw = d.in(w, "weight"), *pg = d.in(dy, "grad_output");
    repdl_conv2d_shape s = conv_shape(x, w, stride, pad, dil);
    Tensor dx, dw, db;
    if (need_dx) dx = d.empty(x.sizes());
    if (need_dw) dw = d.empty(w.sizes());
    if (need_db) db = d.empty({w.size(0)});
    ok(repdl_cuda_conv2d_backward_f32(&s, px, pw, pg, ptr(dx), ptr(dw), ptr(db), d.stream()),
       "repdl_cuda_conv2d_backward_f32");
    return {dx, dw, db};
}

// ---- Dropout: Philox stream (seed, offset) ----

std::vector<Tensor> dropout_forward(double p, uint64_t seed, uint64_t offset, const Tensor &x)
{
    OnDevice d(x);
    const float *px = d.in(x, "input");
    Tensor y = d.empty(x.sizes()), mask = d.empty(x.sizes(), torch::kUInt8);
    ok(repdl_cuda_dropout_forward_f32(usz(x.numel()), (float)p, seed, offset, px, y.data_ptr<float>(),
                                      mask.data_ptr<uint8_t>(), d.stream()),
       "repdl_cuda_dropout_forward_f32");
    return {y, mask};
}

Tensor dropout_backward(double p, const Tensor &mask, const Tensor &dy)
{
    OnDevice d(dy);
    const float *pg = d.in(dy, "grad_output");
    d.here(mask, "mask");
    TORCH_CHECK(mask.scalar_type() == torch::kUInt8 && mask.numel() == dy.numel(), "repdl: bad dropout mask");
    Tensor dx = d.empty(dy.sizes());
    ok(repdl_cuda_dropout_backward_f32(usz(dy.numel()), (float)p, mask.data_ptr<uint8_t>(), pg,
                                       dx.data_ptr<float>(), d.stream()),
       "repdl_cuda_dropout_backward_f32");
    return dx;
}

// ---- Random numbers (rng.h) ----

void uniform_fill(Tensor out, uint64_t seed, uint64_t offset, double lo, double hi)
{
    OnDevice d(out);
    float *po = d.out(out, "tensor");
    ok(repdl_cuda_rng_uniform_fill_f32(usz(out.numel()), seed, offset, (float)lo, (float)hi, po, d.stream()),
       "repdl_cuda_rng_uniform_fill_f32");
}

void normal_fill(Tensor out, uint64_t seed, uint64_t offset, double mean, double std)
{
    OnDevice d(out);
    float *po = d.out(out, "tensor");
    ok(repdl_cuda_rng_normal_fill_f32(usz(out.numel()), seed, offset, (float)mean, (float)std, po, d.stream()),
       "repdl_cuda_rng_normal_fill_f32");
}

// ---- Optimizers (optim.h), in place ----

void sgd_step(Tensor w, const Tensor &g, c10::optional<Tensor> buf, double lr, double momentum,
              double dampening, double weight_decay, bool nesterov, uint64_t step)
{
    OnDevice d(w);
    float *pw = d.out(w, "param");
    const float *pg = d.in(g, "grad");
    float *pb = nullptr;
    if (buf.has_value() && buf->defined()) pb = d.out(*buf, "momentum_buffer");
    TORCH_CHECK(w.numel() == g.numel(), "repdl: sgd: grad size mismatch");
    repdl_sgd_config c;
    c.lr = (float)lr; c.momentum = (float)momentum; c.dampening = (float)dampening;
    c.weight_decay = (float)weight_decay; c.nesterov = nesterov ? 1 : 0;
    ok(repdl_cuda_sgd_step_f32(usz(w.numel()), &c, step, pg, pw, pb, d.stream()), "repdl_cuda_sgd_step_f32");
}

// state: float32 [2] = (beta1_pow, beta2_pow), advanced on the host by
// repdl_adam_begin_step, as in the CPU build; it may live on the CPU (where
// repdl.optim creates it) or on the device (load_state_dict moves optimizer
// state to the parameter's device): then a host copy is read and written
// back.  Returns t after this step's begin_step.
int64_t adam_step(Tensor w, const Tensor &g, Tensor m, Tensor v, Tensor state, int64_t t, double lr,
                  double beta1, double beta2, double eps, double weight_decay, bool decoupled)
{
    OnDevice d(w);
    float *pw = d.out(w, "param"), *pm = d.out(m, "exp_avg"), *pv = d.out(v, "exp_avg_sq");
    const float *pg = d.in(g, "grad");
    TORCH_CHECK(w.numel() == g.numel() && w.numel() == m.numel() && w.numel() == v.numel(),
                "repdl: adam: size mismatch");
    TORCH_CHECK(state.scalar_type() == torch::kFloat32 && state.numel() == 2 && state.is_contiguous(),
                "repdl: adam: state must be a contiguous float32 tensor of 2 elements");
    Tensor hs = state.device().is_cpu() ? state : state.to(torch::kCPU);
    float *ps = hs.data_ptr<float>();
    repdl_adam_config c;
    c.lr = (float)lr; c.beta1 = (float)beta1; c.beta2 = (float)beta2; c.eps = (float)eps;
    c.weight_decay = (float)weight_decay; c.decoupled = decoupled ? 1 : 0;
    repdl_adam_state s;
    s.t = static_cast<uint64_t>(t); s.beta1_pow = ps[0]; s.beta2_pow = ps[1];
    ok(repdl_adam_begin_step(&s, &c), "repdl_adam_begin_step");
    ok(repdl_cuda_adam_step_f32(usz(w.numel()), &c, &s, pg, pw, pm, pv, d.stream()), "repdl_cuda_adam_step_f32");
    ps[0] = s.beta1_pow; ps[1] = s.beta2_pow;
    if (!state.device().is_cpu()) state.copy_(hs);
    return static_cast<int64_t>(s.t);
}

}  // namespace

// Called by repdl_ext.cpp's module definition in the CUDA build.
// Each function f is registered as cuda_f and entered in the dict
// repdl._C.cuda_forms (f -> cuda_f), from which repdl/_device.py dispatches.
void repdl_py_register_cuda(py::module &m)
{
    py::dict forms;
#define REPDL_PY_CUDA_DEF(name) (m.def("cuda_" #name, &name), forms[#name] = m.attr("cuda_" #name))
    REPDL_PY_CUDA_DEF(unary);
    REPDL_PY_CUDA_DEF(unary_backward);
    REPDL_PY_CUDA_DEF(scale);
    REPDL_PY_CUDA_DEF(reduce_rows);
    REPDL_PY_CUDA_DEF(reduce_rows_backward);
    REPDL_PY_CUDA_DEF(dot);
    // layer_table.h's bindings of the rows with a launcher
#define REPDL_PY_CUDA_DEF_LAYER(name) REPDL_PY_CUDA_DEF(name);
    REPDL_LAYER_CUDA_BINDINGS(REPDL_PY_CUDA_DEF_LAYER)
#undef REPDL_PY_CUDA_DEF_LAYER
    REPDL_PY_CUDA_DEF(gemm);
    REPDL_PY_CUDA_DEF(gemm_cr);
    REPDL_PY_CUDA_DEF(dropout_forward);
    REPDL_PY_CUDA_DEF(dropout_backward);
    REPDL_PY_CUDA_DEF(uniform_fill);
    REPDL_PY_CUDA_DEF(normal_fill);
    REPDL_PY_CUDA_DEF(sgd_step);
    REPDL_PY_CUDA_DEF(adam_step);
#undef REPDL_PY_CUDA_DEF
    m.attr("cuda_forms") = forms;
}
