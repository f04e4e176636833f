// SPDX-License-Identifier: MIT
// python/repdl/csrc/repdl_ext.cpp: the extension module repdl._C, repdl's
// header-only C99 functions compiled as C++14 (the headers are valid C++)
// and exposed to Python on float32 CPU contiguous torch tensors.
//
// Every number is computed by a repdl function (include/repdl/*.h; the
// backward passes of exp, log, tanh, sqrt and of the reductions are
// backward.h's), except adamw_torch (adamw_torch.h: torch.optim.AdamW's
// statements as repdl.mode computes them): this file only checks dtype, device and contiguity again
// (repdl/ops.py gives the user-facing messages), calls, and turns a
// repdl_status into a Python RuntimeError.
// The CUDA build adds the same functions for CUDA tensors (cuda_ops.cpp,
// registered below as cuda_<name>; docs/python.md, "CUDA").
#include <torch/extension.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include <repdl/repdl.h>
#include <repdl/layer_table.h>
#include <repdl/attention_threads.h>
#include <repdl/conv2d_threads.h>
#include <repdl/gemm_cr_threads.h>
#include <repdl/gemm_threads.h>
#include <repdl/reduce_threads.h>
#include <repdl/reduce_units.h>

#include "adamw_torch.h"
#include "shapes.h"
#include "unary.h"

static_assert(sizeof(size_t) == sizeof(int64_t), "argmax maps and targets are stored as int64");

using torch::Tensor;

namespace {

void check_f32(const Tensor &t, const char *what)
{
    TORCH_CHECK(t.device().is_cpu(), "repdl: ", what, " must be a CPU tensor (this build has no CUDA)");
    TORCH_CHECK(t.scalar_type() == torch::kFloat32, "repdl: ", what, " must be float32, got ",
                t.scalar_type());
    TORCH_CHECK(t.is_contiguous(), "repdl: ", what, " must be contiguous");
}

const float *cp(const Tensor &t, const char *what)
{
    check_f32(t, what);
    return t.data_ptr<float>();
}

float *mp(Tensor &t, const char *what)
{
    check_f32(t, what);
    return t.data_ptr<float>();
}

const float *opt_cp(const c10::optional<Tensor> &t, const char *what)
{
    return (t.has_value() && t->defined()) ? cp(*t, what) : nullptr;
}

void ok(repdl_status st, const char *fn)
{
    TORCH_CHECK(st == REPDL_OK, "repdl: ", fn, " returned ", repdl_status_string(st));
}

// The functions that return a value rather than a status (the
// single-threaded sums: docs/api.md, section 4) return NaN in a
// floating-point environment that would change their bits: refuse first.
void fpenv_check(const char *fn) { ok(repdl_fpenv_ok(1.0f) ? REPDL_OK : REPDL_ERR_FPENV, fn); }

Tensor empty_like_f32(const Tensor &x) { return torch::empty(x.sizes(), x.options()); }

Tensor empty_f32(std::vector<int64_t> shape)
{
    return torch::empty(shape, torch::TensorOptions().dtype(torch::kFloat32));
}

int threads() { return at::get_num_threads(); }

// layers.inc's and ops.inc's view of a call: CPU float32 contiguous
// tensors, the host's functions.
class OnHost {
  public:
    explicit OnHost(const Tensor &) {}
    void here(const Tensor &t, const char *what) const
    {
        TORCH_CHECK(t.device().is_cpu(), "repdl: ", what, " must be a CPU tensor (this build has no CUDA)");
        TORCH_CHECK(t.is_contiguous(), "repdl: ", what, " must be contiguous");
    }
    const float *in(const Tensor &t, const char *what) const { return cp(t, what); }
    float *out(Tensor &t, const char *what) const { return mp(t, what); }
    const float *opt(const c10::optional<Tensor> &t, const char *what) const { return opt_cp(t, what); }
    Tensor empty(at::IntArrayRef shape, c10::ScalarType type = torch::kFloat32) const
    {
        return torch::empty(shape, torch::TensorOptions().dtype(type));
    }
    // loss's targets: a contiguous int64 CPU tensor, copied into keep as
    // size_t, a negative index REPDL_NO_INDEX
    const size_t *targets(const Tensor &t, std::vector<size_t> &keep) const
    {
        TORCH_CHECK(t.scalar_type() == torch::kInt64 && t.device().is_cpu() && t.is_contiguous(),
                    "repdl: target must be a contiguous int64 CPU tensor");
        const int64_t *p = t.data_ptr<int64_t>();
        keep.resize(static_cast<size_t>(t.numel()));
        for (size_t i = 0; i < keep.size(); i++)
            keep[i] = p[i] < 0 ? REPDL_NO_INDEX : static_cast<size_t>(p[i]);
        return keep.data();
    }
    // reduce_rows's one-row sum: the threaded form (the bits of one row of
    // repdl_sum_rows_f32 at every thread count), which returns a value and
    // so is refused first in a floating-point environment that changes bits
    bool sum_all(size_t n, const float *px, float *po) const
    {
        fpenv_check("repdl_sum_threads_f32");
        po[0] = repdl_sum_threads_f32(n, threads(), px);
        return true;
    }
};
using OnCall = OnHost;
#define REPDL_PY_CALL(fn, ...) ok(repdl_##fn(__VA_ARGS__), "repdl_" #fn)
#define REPDL_PY_UNPAREN(...) __VA_ARGS__
#define REPDL_PY_CALL_THREADS(fn, lead, ...) \
    ok(repdl_##fn##_threads_f32(REPDL_PY_UNPAREN lead, threads(), __VA_ARGS__), "repdl_" #fn "_threads_f32")

// ---- Elementwise ----

// Elementwise work over torch's intra-op threads (at::parallel_for,
// torch.set_num_threads): every output element depends on its own inputs
// only, so any cut into contiguous ranges gives the same bits.  Ranges of
// at least kElementGrain elements (below that, one call: no thread start).
constexpr int64_t kElementGrain = 1 << 15;

template <class F>
void elementwise(int64_t n, F &&f)
{
    at::parallel_for(0, n, kElementGrain, [&](int64_t b, int64_t e) { f(usz(b), usz(e - b)); });
}

// f(b, m) on each range of elementwise's cut, returning a status; any that
// is not REPDL_OK (every range runs): a Python error naming
// repdl_<op><suffix>.
template <class F>
void elementwise_ok(int64_t n, const std::string &op, const char *suffix, F &&f)
{
    std::atomic<int> st(REPDL_OK);
    elementwise(n, [&](size_t b, size_t m) {
        repdl_status r = f(b, m);
        if (r != REPDL_OK) st = r;
    });
    ok(static_cast<repdl_status>(st.load()), ("repdl_" + op + suffix).c_str());
}

using unary_fn = repdl_status (*)(size_t, const float *, float *);
using unary_bwd_fn = repdl_status (*)(size_t, const float *, const float *, float *);
using unary_row = repdl_py_unary_row<unary_fn, unary_bwd_fn>;

// unary.h's rows: the host's repdl_<op>_array_f32 and
// repdl_<op>_backward_array_f32 of each function of op_table.h with a
// backward pass.
const unary_row kUnary[] = {REPDL_ELEMENTWISE_BACKWARD(REPDL_PY_UNARY_HOST)};

// The forward pass of every function of op_table.h (those without a
// backward pass too: erf, sin, cos, ...): repdl_<op>_array_f32.
struct map_row {
    const char *name;
    unary_fn fwd;
};
#define REPDL_PY_MAP_HOST(name) {#name, repdl_##name##_array_f32},
const map_row kMap[] = {REPDL_ELEMENTWISE_OPS(REPDL_PY_MAP_HOST)};
#undef REPDL_PY_MAP_HOST

// y = op(x) by the row named op of rows (kUnary or kMap).
template <class Row, size_t N>
Tensor elementwise_forward(const Row (&rows)[N], const std::string &op, const Tensor &x)
{
    const float *px = cp(x, "input");
    const Row &u = repdl_py_unary_find(rows, op);
    Tensor y = empty_like_f32(x);
    float *py = y.data_ptr<float>();
    elementwise_ok(x.numel(), op, "_array_f32", [&](size_t b, size_t m) { return u.fwd(m, px + b, py + b); });
    return y;
}

Tensor unary(const std::string &op, const Tensor &x) { return elementwise_forward(kUnary, op, x); }

// Backward of a unary op.  x is the input, y the forward output, dy the
// incoming gradient (all of one shape): the library's
// repdl_<op>_backward_array_f32(n, in, dy, dx), in = y or x as op_table.h
// says (BY, BX).
Tensor unary_backward(const std::string &op, const Tensor &x, const Tensor &y, const Tensor &dy)
{
    const float *px = cp(x, "input"), *py = cp(y, "output"), *pg = cp(dy, "grad_output");
    TORCH_CHECK(x.numel() == y.numel() && x.numel() == dy.numel(), "repdl: backward shapes differ");
    const unary_row &u = repdl_py_unary_find(kUnary, op);
    Tensor dx = empty_like_f32(x);
    float *pd = dx.data_ptr<float>();
    const float *pin = u.reads_y ? py : px;
    elementwise_ok(x.numel(), op, "_backward_array_f32",
                   [&](size_t b, size_t m) { return u.bwd(m, pin + b, pg + b, pd + b); });
    return dx;
}

// Any function of op_table.h (kMap).
Tensor map(const std::string &op, const Tensor &x) { return elementwise_forward(kMap, op, x); }

// y = RN(a * b) elementwise (repdl_mul_f32), a and b of one size.
Tensor mul(const Tensor &a, const Tensor &b)
{
    const float *pa = cp(a, "input"), *pb = cp(b, "other");
    TORCH_CHECK(a.numel() == b.numel(), "repdl: mul: sizes differ");
    Tensor y = empty_like_f32(a);
    ok(repdl_mul_f32(usz(a.numel()), pa, pb, y.data_ptr<float>()), "repdl_mul_f32");
    return y;
}

Tensor dot(const Tensor &x, const Tensor &y)
{
    const float *px = cp(x, "input"), *py = cp(y, "other");
    TORCH_CHECK(x.numel() == y.numel(), "repdl: dot: size mismatch");
    Tensor out = empty_f32({});
    fpenv_check("repdl_dot_threads_f32");
    out.data_ptr<float>()[0] = repdl_dot_threads_f32(usz(x.numel()), threads(), px, py);
    return out;
}

#include "layers.inc"  // the layer bindings both builds have: written once
#include "ops.inc"     // scale, reductions, products, dropout, fills, sgd: likewise

// Linear layer forward: x [M x K], W [N x K], b [N], by gemm (the CUDA
// build: the linear launcher).

Tensor linear_forward(const Tensor &x, const Tensor &W, const c10::optional<Tensor> &b)
{
    int64_t M = x.size(0), K = x.size(1), N = W.size(0);
    return gemm(false, true, M, N, K, x, W, b);
}

// Dropout backward: the mask uint8, as dropout_forward made it.
Tensor dropout_backward(double p, const Tensor &mask, const Tensor &dy)
{
    const float *pg = cp(dy, "grad_output");
    TORCH_CHECK(mask.scalar_type() == torch::kUInt8 && mask.numel() == dy.numel(), "repdl: bad dropout mask");
    Tensor dx = empty_like_f32(dy);
    ok(repdl_dropout_backward_f32(usz(dy.numel()), (float)p, mask.data_ptr<uint8_t>(), pg, dx.data_ptr<float>()),
       "repdl_dropout_backward_f32");
    return dx;
}

// ---- Random numbers (rng.h) ----

Tensor permutation(int64_t n, uint64_t seed, uint64_t offset)
{
    TORCH_CHECK(n >= 0 && n <= (int64_t(1) << 32), "repdl: permutation size must be in [0, 2^32]");
    std::vector<uint32_t> perm(static_cast<size_t>(n));
    ok(repdl_rng_permutation(usz(n), seed, offset, perm.data()), "repdl_rng_permutation");
    Tensor out = torch::empty({n}, torch::TensorOptions().dtype(torch::kInt64));
    int64_t *po = out.data_ptr<int64_t>();
    for (int64_t i = 0; i < n; i++) po[i] = perm[static_cast<size_t>(i)];
    return out;
}

// PyTorch's default init bound 1/sqrt(fan_in) (rng.h).
float init_bound(int64_t fan_in) { return repdl_init_bound_f32(usz(fan_in)); }

// ---- Optimizers (optim.h), in place ----

// state: float32 [2] = (beta1_pow, beta2_pow), updated; t the step after
// this one's begin_step (returned).
int64_t adam_step(Tensor w, const Tensor &g, Tensor m, Tensor v, Tensor state, int64_t t, double lr,
                  double beta1, double beta2, double eps, double weight_decay, bool decoupled)
{
    float *pw = mp(w, "param"), *pm = mp(m, "exp_avg"), *pv = mp(v, "exp_avg_sq"), *ps = mp(state, "state");
    const float *pg = cp(g, "grad");
    TORCH_CHECK(w.numel() == g.numel() && w.numel() == m.numel() && w.numel() == v.numel(),
                "repdl: adam: size mismatch");
    OnCall d(w);
    return adam_run(d, usz(w.numel()), ps, t, lr, beta1, beta2, eps, weight_decay, decoupled, pg, pw, pm, pv);
}

// torch.optim.AdamW(foreach=False) under repdl.mode (adamw_torch.h): the
// parameters of one step value, in place.  mxs: empty without amsgrad,
// else one tensor a parameter.  The scalars: Python doubles, each rounded
// once to binary32 here (decay = 1 - lr wd, a = 1 - beta1, v = 1 - beta2,
// bc2_sqrt = sqrt(1 - beta2^step), nss = -lr / (1 - beta1^step), computed
// by mode.py as torch's loop computes them).  Every tensor: float32, CPU,
// contiguous, of its parameter's size, sharing no memory with the others
// of its parameter (else an error; mode.py sends only such tensors).
void adamw_torch(const std::vector<Tensor> &params, const std::vector<Tensor> &grads,
                 const std::vector<Tensor> &exp_avgs, const std::vector<Tensor> &exp_avg_sqs,
                 const std::vector<Tensor> &mxs, double decay, double beta1, double a, double beta2,
                 double v, double bc2_sqrt, double eps, double nss)
{
    const size_t P = params.size();
    TORCH_CHECK(grads.size() == P && exp_avgs.size() == P && exp_avg_sqs.size() == P &&
                    (mxs.empty() || mxs.size() == P),
                "repdl: adamw_torch: one grad, exp_avg, exp_avg_sq (and max_exp_avg_sq) a parameter");
    fpenv_check("adamw_torch");  // repdl_sqrt_array_f32's condition, checked before any write
    repdl_py_adamw c;
    c.decay = static_cast<float>(decay); c.beta1 = static_cast<float>(beta1); c.a = static_cast<float>(a);
    c.beta2 = static_cast<float>(beta2); c.v = static_cast<float>(v);
    c.bc2_sqrt = static_cast<float>(bc2_sqrt); c.eps = static_cast<float>(eps);
    c.nss = static_cast<float>(nss);
    for (size_t i = 0; i < P; i++) {
        Tensor p = params[i], m = exp_avgs[i], s = exp_avg_sqs[i];
        Tensor mx = mxs.empty() ? Tensor() : mxs[i];
        const int64_t n = p.numel();
        TORCH_CHECK(grads[i].numel() == n && m.numel() == n && s.numel() == n &&
                        (!mx.defined() || mx.numel() == n),
                    "repdl: adamw_torch: parameter ", i, ": sizes differ");
        float *pp = mp(p, "param"), *pm = mp(m, "exp_avg"), *ps = mp(s, "exp_avg_sq");
        const float *pg = cp(grads[i], "grad");
        float *px = mx.defined() ? mp(mx, "max_exp_avg_sq") : nullptr;
        const uintptr_t at[5] = {reinterpret_cast<uintptr_t>(pp), reinterpret_cast<uintptr_t>(pg),
                                 reinterpret_cast<uintptr_t>(pm), reinterpret_cast<uintptr_t>(ps),
                                 reinterpret_cast<uintptr_t>(px)};
        const uintptr_t bytes = static_cast<uintptr_t>(n) * sizeof(float);
        for (int x = 0; x < 5; x++)
            for (int y = x + 1; y < 5; y++)
                TORCH_CHECK(!at[x] || !at[y] || at[x] + bytes <= at[y] || at[y] + bytes <= at[x],
                            "repdl: adamw_torch: parameter ", i, ": tensors share memory");
        elementwise(n, [&](size_t b, size_t k) {
            repdl_py_adamw_range(k, c, pp + b, pg + b, pm + b, ps + b, px ? px + b : nullptr);
        });
    }
}

// ---- Gradient clipping by global 2-norm (clip.h), in place ----

// repdl_clip_grad_norm_f32 over grads in list order (the list order is part
// of the norm's definition); returns the norm before clipping (a binary32
// value, exact in the double).  max_norm and eps: binary32 values carried in
// doubles (repdl.optim.clip_grad_norm_ rounds them once).
double clip_grad_norm(const std::vector<Tensor> &grads, double max_norm, double eps)
{
    std::vector<size_t> sizes(grads.size());
    std::vector<float *> p(grads.size());
    for (size_t i = 0; i < grads.size(); i++) {
        Tensor g = grads[i];
        p[i] = mp(g, "gradient");
        sizes[i] = usz(g.numel());
    }
    float norm = 0.0f;
    ok(repdl_clip_grad_norm_f32(grads.size(), sizes.data(), (float)max_norm, (float)eps, p.data(), &norm),
       "repdl_clip_grad_norm_f32");
    return norm;
}

// ---- Combination of node vectors (reduce_units.h) ----

// The canonical sum over U units from the node vectors of P consecutive
// ranges (bounds[0] = 0 < ... <= bounds[P] = U): nodes[p] holds the V-float
// node vectors of range p's canonical cut, in order (repdl_units_combine_f32).
Tensor units_combine(int64_t U, const std::vector<int64_t> &bounds, const std::vector<Tensor> &nodes,
                     int64_t V)
{
    TORCH_CHECK(!bounds.empty() && nodes.size() + 1 == bounds.size(),
                "repdl: units_combine: need one node tensor per range");
    std::vector<size_t> b(bounds.size());
    std::vector<const float *> p(nodes.size());
    for (size_t i = 0; i < bounds.size(); i++) {
        b[i] = usz(bounds[i]);
        TORCH_CHECK(i == 0 ? b[i] == 0 : b[i - 1] <= b[i], "repdl: units_combine: bounds must rise from 0");
    }
    TORCH_CHECK(b.back() == usz(U), "repdl: units_combine: the last bound must be U = ", U);
    for (size_t i = 0; i < nodes.size(); i++) {
        size_t want = 0;
        for (size_t s = b[i]; s < b[i + 1]; want++) s += repdl_units_block_size(s, b[i + 1], usz(U));
        p[i] = cp(nodes[i], "node vector");
        TORCH_CHECK(usz(nodes[i].numel()) == want * usz(V), "repdl: units_combine: range ", i,
                    " has ", want, " node(s) of ", V, " floats, got ", nodes[i].numel(), " floats");
    }
    Tensor out = empty_f32({V});
    ok(repdl_units_combine_f32(usz(U), nodes.size(), b.data(), usz(V), p.data(), out.data_ptr<float>()),
       "repdl_units_combine_f32");
    return out;
}

// 1 when units [begin, begin + count) of U are one node of the tree.
bool units_block_ok(int64_t begin, int64_t count, int64_t U)
{
    return repdl_units_block_ok(usz(begin), usz(count), usz(U)) != 0;
}

}  // namespace

#ifdef REPDL_WITH_CUDA
// cuda_ops.cpp: defines cuda_<name> for each function below that takes
// float32 tensors, the same arguments, on CUDA tensors (the CUDA build).
void repdl_py_register_cuda(py::module &m);
#endif

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.doc() = "repdl._C: repdl's C99 functions on float32 CPU tensors (use repdl.ops)";
    m.attr("version") = py::make_tuple(REPDL_VERSION_MAJOR, REPDL_VERSION_MINOR, REPDL_VERSION_PATCH);
    m.attr("microbatch") = REPDL_MICROBATCH;
#ifdef REPDL_WITH_CUDA
    m.attr("cuda_built") = true;
    repdl_py_register_cuda(m);
#else
    m.attr("cuda_built") = false;
#endif
    // op_table.h's functions with a backward pass: the names unary takes
    py::list unary_ops;
    for (const unary_row &u : kUnary) unary_ops.append(u.name);
    m.attr("unary_ops") = py::tuple(unary_ops);
    m.def("unary", &unary);
    m.def("unary_backward", &unary_backward);
    m.def("scale", &scale);
    m.def("map", &map);
    m.def("mul", &mul);
    m.def("reduce_rows", &reduce_rows);
    m.def("reduce_rows_backward", &reduce_rows_backward);
    m.def("dot", &dot);
    // layer_table.h's bindings (layers.inc; linear_forward here), and
    // their names
    py::list layer_bindings;
#define REPDL_PY_DEF(name) m.def(#name, &name), layer_bindings.append(#name);
    REPDL_LAYER_BINDINGS(REPDL_PY_DEF)
#undef REPDL_PY_DEF
    m.attr("layer_bindings") = py::tuple(layer_bindings);
    py::list layer_cuda_bindings;  // those with a CUDA form in the CUDA build
#define REPDL_PY_NAME(name) layer_cuda_bindings.append(#name);
    REPDL_LAYER_CUDA_BINDINGS(REPDL_PY_NAME)
#undef REPDL_PY_NAME
    m.attr("layer_cuda_bindings") = py::tuple(layer_cuda_bindings);
    m.def("gemm", &gemm);
    m.def("gemm_cr", &gemm_cr);
    m.def("dropout_forward", &dropout_forward);
    m.def("dropout_backward", &dropout_backward);
    m.def("uniform_fill", &uniform_fill);
    m.def("normal_fill", &normal_fill);
    m.def("permutation", &permutation);
    m.def("init_bound", &init_bound);
    m.def("sgd_step", &sgd_step);
    m.def("adam_step", &adam_step);
    m.def("adamw_torch", &adamw_torch);
    m.def("clip_grad_norm", &clip_grad_norm);
    m.def("units_combine", &units_combine);
    m.def("units_block_ok", &units_block_ok);
}
