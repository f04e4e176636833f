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

    // loss's targets: an int64 tensor on the device, read in place as
    // size_t (repdl.ops has checked that they are class indices)
    const size_t *targets(const Tensor &t, std::vector<size_t> &) const
    {
        here(t, "target");
        TORCH_CHECK(t.scalar_type() == torch::kInt64, "repdl: target must be int64");
        return reinterpret_cast<const size_t *>(t.data_ptr<int64_t>());
    }
    // reduce_rows's one-row sum: no form of its own here (sum_rows)
    bool sum_all(size_t, const float *, float *) const { return false; }

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

Tensor dot(const Tensor &x, const Tensor &y)
{
    OnDevice d(x);
    const float *px = d.in(x, "input"), *py = d.in(y, "other");
    TORCH_CHECK(x.numel() == y.numel(), "repdl: dot: size mismatch");
    Tensor out = d.empty({});
    ok(repdl_cuda_dot_f32(usz(x.numel()), px, py, out.data_ptr<float>(), d.stream()), "repdl_cuda_dot_f32");
    return out;
}

// layers.inc's and ops.inc's calls: the launchers on the call's stream.
using OnCall = OnDevice;
#define REPDL_PY_CALL(fn, ...) ok(repdl_cuda_##fn(__VA_ARGS__, d.stream()), "repdl_cuda_" #fn)
#define REPDL_PY_UNPAREN(...) __VA_ARGS__
#define REPDL_PY_CALL_THREADS(fn, lead, ...) \
    ok(repdl_cuda_##fn##_f32(REPDL_PY_UNPAREN lead, __VA_ARGS__, d.stream()), "repdl_cuda_" #fn "_f32")
#include "layers.inc"  // the layer bindings both builds have: written once
#include "ops.inc"     // scale, reductions, products, dropout, fills, sgd: likewise

// Linear layer forward: x [M x K], W [N x K], b [N] (the CPU build: gemm).
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

// Dropout backward: the mask (uint8) on the call's device.
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

// ---- Adam step (optim.h), in place ----

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
    int64_t next = adam_run(d, usz(w.numel()), hs.data_ptr<float>(), t, lr, beta1, beta2, eps,
                            weight_decay, decoupled, pg, pw, pm, pv);
    if (!state.device().is_cpu()) state.copy_(hs);
    return next;
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
