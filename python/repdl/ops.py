# SPDX-License-Identifier: MIT
"""repdl.ops: repdl's reproducible operations as differentiable PyTorch
functions (docs/python.md).

Every function here is a torch.autograd.Function whose forward and
backward passes are repdl's C functions (include/repdl/*.h, compiled into
repdl._C): no PyTorch kernel computes any number.  PyTorch only moves
data: .contiguous(), reshapes, movedim, expand, stack.

Inputs: float32 CPU tensors, and CUDA tensors in the CUDA build (the same
functions through repdl's CUDA launchers: repdl._device).  Non-contiguous
tensors are made contiguous (a copy, the same values).  Other dtypes raise
TypeError (repdl never casts silently), other devices RuntimeError, and
shape mismatches raise PyTorch's errors.  requires_grad propagates as in
PyTorch: an output requires grad iff a floating input does.

Double backward (torch.autograd.grad(..., create_graph=True), gradient
penalties) is not supported: repdl's backward passes are not themselves
differentiable, so a backward run with create_graph=True raises
RuntimeError (never a gradient that silently has no graph).
"""
import functools
import math

import torch

from . import _device
from ._device import C as _C
from . import random as _random

__all__ = [
    'exp', 'log', 'tanh', 'sqrt', 'sigmoid', 'relu', 'gelu', 'silu', 'softplus', 'leaky_relu',
    'erf', 'sin', 'cos',
    'sum', 'mean', 'var', 'norm', 'dot', 'softmax', 'log_softmax',
    'mm', 'matmul', 'linear', 'conv2d', 'max_pool2d', 'avg_pool2d',
    'adaptive_avg_pool2d', 'layer_norm', 'rms_norm', 'batch_norm', 'dropout', 'cross_entropy',
    'nll_loss', 'mse_loss', 'embedding', 'rope_table', 'rope', 'scaled_dot_product_attention',
]

_builtin_sum = sum


_F32 = torch.float32


def _check(x, name='input'):
    """The one gate of every op: a float32 CPU (or, CUDA build, CUDA)
    tensor, made contiguous."""
    if isinstance(x, torch.Tensor) and x.dtype is _F32 and x.is_cpu and not x.is_sparse:
        return x.contiguous()   # the common case, in one test
    if not isinstance(x, torch.Tensor):
        raise TypeError(f'repdl: {name} must be a torch.Tensor, got {type(x).__name__}')
    _device.check(x, name)
    if x.dtype != torch.float32:
        raise TypeError(f'repdl: {name} has dtype {x.dtype}; repdl.ops computes on torch.float32 '
                        'only (convert explicitly with .float(): repdl never casts silently; the '
                        'bfloat16/float16 forms exist in the C library, not yet in Python)')
    if x.is_sparse:
        raise TypeError(f'repdl: {name} is sparse; repdl supports dense (strided) tensors only')
    return x.contiguous()


def _opt(x, name):
    return None if x is None else _check(x, name)


def _grad(g):
    return _check(g, 'grad_output')


def _once(backward):
    """Wraps a Function's backward: refuses to run it with grad mode on
    (a backward of create_graph=True), since its result would have no
    graph."""
    @functools.wraps(backward)
    def run(ctx, *grads):
        if torch.is_grad_enabled():
            raise RuntimeError('repdl: double backward (create_graph=True, e.g. a gradient '
                               'penalty) is not supported: repdl\'s backward passes are not '
                               'differentiable (support is planned); compute the first '
                               'gradient without create_graph')
        return backward(ctx, *grads)
    return run


def _dim(dim, ndim):
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise IndexError(f'Dimension out of range (expected to be in range of '
                         f'[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {dim})')
    return dim % max(ndim, 1)


def _pair(v, name):
    if isinstance(v, int):
        return [v, v]
    v = list(v)
    if len(v) == 1:
        return [v[0], v[0]]
    if len(v) != 2:
        raise ValueError(f'repdl: {name} must be an int or a pair of ints, got {v}')
    return [int(v[0]), int(v[1])]


# ---- Elementwise functions ----

class _Unary(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, op):
        y = _C.unary(op, x)
        ctx.op = op
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    @_once
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return _C.unary_backward(ctx.op, x, y, _grad(g)), None


def _unary(op, x):
    return _Unary.apply(_check(x), op)


def exp(input):
    """Correctly rounded e^x; backward dx = RN(dy * y)."""
    return _unary('exp', input)


def log(input):
    """Correctly rounded log x; backward dx = RN(dy / x)."""
    return _unary('log', input)


def tanh(input):
    """Correctly rounded tanh x; backward dx = RN(dy * RN(1 - RN(y * y)))."""
    return _unary('tanh', input)


def sqrt(input):
    """Correctly rounded sqrt x; backward dx = RN(dy / RN(2 y))."""
    return _unary('sqrt', input)


def sigmoid(input):
    """Correctly rounded 1 / (1 + e^-x); backward repdl_sigmoid_backward."""
    return _unary('sigmoid', input)


def relu(input, inplace=False):
    """max(x, 0) (NaN stays NaN); inplace is accepted and ignored: the result
    is a new tensor with the values PyTorch's in-place ReLU would write."""
    return _unary('relu', input)


def gelu(input, approximate='none'):
    """GELU, correctly rounded: x Phi(x) = x/2 (1 + erf(x / sqrt 2))
    rounded once (repdl_geluf, include/repdl/gelu.h); approximate='tanh':
    the correctly rounded x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    (repdl_gelu_tanhf).  Backward: repdl_gelu_backward (_tanh_backward)."""
    if approximate == 'none':
        return _unary('gelu', input)
    if approximate == 'tanh':
        return _unary('gelu_tanh', input)
    raise ValueError(f"approximate argument must be either none or tanh, got {approximate!r}")


def silu(input, inplace=False):
    """Correctly rounded x / (1 + e^-x) (repdl_siluf); inplace is accepted
    and ignored (a new tensor); backward repdl_silu_backward."""
    return _unary('silu', input)


class _Softplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, threshold):
        y = _C.unary('softplus', x)
        ctx.save_for_backward(x, y)
        ctx.threshold = threshold
        if threshold is None:
            return y
        return torch.where(x > threshold, x, y)

    @staticmethod
    @_once
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        g = _grad(g)
        dx = _C.unary_backward('softplus', x, y, g)
        if ctx.threshold is not None:
            dx = torch.where(x > ctx.threshold, _C.scale(1.0, g), dx)
        return dx, None


def softplus(input, beta=1, threshold=20):
    """The correctly rounded log(1 + e^x) (repdl_softplusf) where
    x <= threshold, x itself where x > threshold (PyTorch's rule; for
    threshold >= 16 this is the correctly rounded value everywhere, since
    there e^-x < half an ulp of x).  threshold=None: no threshold.  beta
    must be 1 (other betas: NotImplementedError; support is planned).
    Backward repdl_softplus_backward, dy where x > threshold (NaN
    canonical)."""
    if beta != 1:
        raise NotImplementedError(f'repdl: softplus supports beta=1 only, got beta={beta} '
                                  '(support for other betas is planned)')
    thr = None if threshold is None else float(threshold)
    return _Softplus.apply(_check(input), thr)


class _LeakyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, slope):
        ctx.save_for_backward(x)
        ctx.slope = slope
        return torch.where(x > 0, x, _C.scale(slope, x))

    @staticmethod
    @_once
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        g = _grad(g)
        dx = torch.where(x > 0, _C.scale(1.0, g), _C.scale(ctx.slope, g))
        return torch.where(x != x, torch.full_like(x, math.nan), dx), None


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x where x > 0, else RN(s x) with s = RN32(negative_slope) (one
    correctly rounded product: PyTorch's bits; NaN stays NaN, canonical).
    Backward dx = dy where x > 0, else RN(s dy), NaN where x is NaN (as
    relu's backward; PyTorch gives RN(s dy) there); NaN canonical.  inplace
    is accepted and ignored (a new tensor)."""
    return _LeakyReLU.apply(_check(input), float(negative_slope))


class _Map(torch.autograd.Function):
    """erf, sin, cos: the correctly rounded forward (repdl_<op>_array_f32);
    the backward from correctly rounded steps (see each function)."""

    @staticmethod
    def forward(ctx, x, op):
        ctx.op = op
        ctx.save_for_backward(x)
        return _C.map(op, x)

    @staticmethod
    @_once
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        g = _grad(g)
        if ctx.op == 'sin':
            d = _C.map('cos', x)
        elif ctx.op == 'cos':
            d = _C.scale(-1.0, _C.map('sin', x))
        else:
            d = _C.scale(_ERF_SLOPE, _C.unary('exp', _C.scale(-1.0, _C.mul(x, x))))
        return _C.mul(g, d), None


# RN32(2 / sqrt(pi)): erf'(x) = 2/sqrt(pi) e^(-x^2)
_ERF_SLOPE = 1.1283791670955126


def erf(input):
    """Correctly rounded erf x (repdl_erff); backward
    dx = RN(dy * RN(c * exp(-RN(x * x)))), c = RN32(2 / sqrt(pi)), exp
    correctly rounded."""
    return _Map.apply(_check(input), 'erf')


def sin(input):
    """Correctly rounded sin x (repdl_sinf, any binary32 argument); backward
    dx = RN(dy * cos x), cos correctly rounded."""
    return _Map.apply(_check(input), 'sin')


def cos(input):
    """Correctly rounded cos x (repdl_cosf); backward dx = RN(dy * -sin x),
    sin correctly rounded."""
    return _Map.apply(_check(input), 'cos')


# ---- Reductions ----

class _Reduce(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x2, kind, ddof):
        y = _C.reduce_rows(kind, x2.shape[0], x2.shape[1], ddof, x2)
        ctx.kind, ctx.ddof = kind, ddof
        ctx.save_for_backward(x2, y)
        return y

    @staticmethod
    @_once
    def backward(ctx, g):
        x2, y = ctx.saved_tensors
        return _C.reduce_rows_backward(ctx.kind, x2.shape[0], x2.shape[1], ctx.ddof, x2, y,
                                       _grad(g)), None, None


def _reduce(kind, x, dim, keepdim, ddof=0):
    x = _check(x)
    if dim is None:
        y = _Reduce.apply(x.reshape(1, x.numel()), kind, ddof)
        return y.reshape([1] * x.dim()) if keepdim else y.reshape(())
    if isinstance(dim, (tuple, list)):
        if len(dim) != 1:
            raise NotImplementedError('repdl: reductions over several dimensions at once are not '
                                      'supported; reduce over all (dim=None) or over one dimension')
        dim = dim[0]
    d = _dim(dim, x.dim())
    if x.dim() == 0:
        xm = x.reshape(1, 1)
    else:
        xm = x.movedim(d, -1).contiguous()
        xm = xm.reshape(-1, x.shape[d]) if x.shape[d] else xm.reshape(x.numel() and -1, 0)
    rows = 1
    for i, s in enumerate(x.shape):
        if i != d:
            rows *= s
    y = _Reduce.apply(xm.reshape(rows, x.shape[d] if x.dim() else 1), kind, ddof)
    shape = list(x.shape)
    if x.dim() == 0:
        return y.reshape(())
    if keepdim:
        shape[d] = 1
    else:
        del shape[d]
    return y.reshape(shape)


def sum(input, dim=None, keepdim=False):
    """The canonical sum (docs/canonical-order.md); over all elements with
    dim=None (repdl_sum_threads_f32 at torch's thread count: the bits of
    repdl_sum_f32), else over one dimension (repdl_sum_rows_f32)."""
    return _reduce('sum', input, dim, keepdim)


def mean(input, dim=None, keepdim=False):
    """The canonical sum divided once by the count (repdl_mean_f32,
    repdl_mean_rows_f32); dim as sum."""
    return _reduce('mean', input, dim, keepdim)


def var(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    """Variance with ddof = correction (default 1 if unbiased else 0), the
    two-pass repdl_var_f32."""
    ddof = (1 if unbiased else 0) if correction is None else int(correction)
    return _reduce('var', input, dim, keepdim, ddof)


def norm(input, p=2, dim=None, keepdim=False):
    """The Euclidean norm (p = 2 or 'fro'): RN(sqrt(canonical sum of RN(x^2)))."""
    if p not in (2, 2.0, 'fro'):
        raise NotImplementedError(f'repdl: norm supports p=2 only, got p={p!r}')
    return _reduce('norm', input, dim, keepdim)


class _Dot(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return _C.dot(x, y)

    @staticmethod
    @_once
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        s = float(_grad(g).item())
        return (_C.scale(s, y) if ctx.needs_input_grad[0] else None,
                _C.scale(s, x) if ctx.needs_input_grad[1] else None)


def dot(input, other):
    """repdl_dot_f32 of two 1-D tensors (each product rounded, canonical sum);
    backward dx = RN(dy * y), dy_ = RN(dy * x)."""
    x, y = _check(input), _check(other, 'other')
    if x.dim() != 1 or y.dim() != 1:
        raise RuntimeError(f'1D tensors expected, but got {x.dim()}D and {y.dim()}D tensors')
    if x.numel() != y.numel():
        raise RuntimeError(f'inconsistent tensor size, expected tensor [{x.numel()}] and src '
                           f'[{y.numel()}] to have the same number of elements, but got '
                           f'{x.numel()} and {y.numel()} elements respectively')
    return _Dot.apply(x, y)


# ---- Softmax ----

class _Softmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x2, logsm):
        y = _C.softmax(x2.shape[0], x2.shape[1], x2, logsm)
        ctx.logsm = logsm
        ctx.save_for_backward(y)
        return y

    @staticmethod
    @_once
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return _C.softmax_backward(y.shape[0], y.shape[1], y, _grad(g), ctx.logsm), None


def _softmax(x, dim, logsm):
    x = _check(x)
    if dim is None:
        raise TypeError('repdl: softmax needs an explicit dim (PyTorch\'s implicit choice is '
                        'deprecated)')
    if x.dim() == 0:
        return _softmax(x.reshape(1), 0, logsm).reshape(())
    d = _dim(dim, x.dim())
    xm = x.movedim(d, -1).contiguous()
    n = x.shape[d]
    y = _Softmax.apply(xm.reshape(-1, n) if n else xm.reshape(xm.numel(), 0), logsm)
    return y.reshape(xm.shape).movedim(-1, d)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Softmax over dim (required) by repdl_softmax_f32: the row maximum,
    correctly rounded exp of the differences, their canonical sum, one
    division each; backward repdl_softmax_backward_f32."""
    if dtype is not None and dtype != torch.float32:
        raise TypeError(f'repdl: softmax supports dtype=torch.float32 only, got {dtype}')
    return _softmax(input, dim, False)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Log-softmax over dim (required) by repdl_log_softmax_f32; backward
    repdl_log_softmax_backward_f32."""
    if dtype is not None and dtype != torch.float32:
        raise TypeError(f'repdl: log_softmax supports dtype=torch.float32 only, got {dtype}')
    return _softmax(input, dim, True)


# ---- Matrix products ----

class _MM(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        M, K = a.shape
        N = b.shape[1]
        return _C.gemm(False, False, M, N, K, a, b, None)

    @staticmethod
    @_once
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        g = _grad(g)
        M, K = a.shape
        N = b.shape[1]
        da = _C.gemm(False, True, M, K, N, g, b, None) if ctx.needs_input_grad[0] else None
        db = _C.gemm(True, False, K, N, M, a, g, None) if ctx.needs_input_grad[1] else None
        return da, db


def _mm_shapes(a, b):
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f'mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} '
                           f'and {b.shape[0]}x{b.shape[1]})')


def mm(input, mat2):
    """A B by repdl_gemm_f32 (each C[i][j] one fma chain over k ascending);
    backward dA = dC B^T, dB = A^T dC, the same product."""
    a, b = _check(input), _check(mat2, 'mat2')
    if a.dim() != 2:
        raise RuntimeError('self must be a matrix')
    if b.dim() != 2:
        raise RuntimeError('mat2 must be a matrix')
    _mm_shapes(a, b)
    return _MM.apply(a, b)


def matmul(input, other):
    """torch.matmul's cases: 1-D x 1-D (dot), 2-D x 2-D (mm), N-D x 2-D
    (rows of input times other), 1-D promotions and batched N-D x N-D with
    broadcast batch dimensions (one mm per matrix)."""
    a, b = _check(input), _check(other, 'other')
    if a.dim() == 0 or b.dim() == 0:
        raise RuntimeError('both arguments to matmul need to be at least 1D, but they are '
                           f'{a.dim()}D and {b.dim()}D')
    if a.dim() == 1 and b.dim() == 1:
        return dot(a, b)
    if a.dim() == 2 and b.dim() == 2:
        return mm(a, b)
    if a.dim() == 1 and b.dim() == 2:
        return mm(a.unsqueeze(0), b).squeeze(0)
    if b.dim() == 1:
        if a.shape[-1] != b.shape[0]:
            raise RuntimeError(f'size mismatch, got {tuple(a.shape)}, {tuple(b.shape)}')
        return matmul(a, b.unsqueeze(1)).squeeze(-1)
    if b.dim() == 2:
        a2 = a.reshape(-1, a.shape[-1])
        _mm_shapes(a2, b)
        return mm(a2, b).reshape(*a.shape[:-1], b.shape[1])
    if a.dim() == 1:
        return matmul(a.unsqueeze(0), b).squeeze(-2)
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    ae = a.expand(*batch, *a.shape[-2:]).reshape(-1, *a.shape[-2:])
    be = b.expand(*batch, *b.shape[-2:]).reshape(-1, *b.shape[-2:])
    _mm_shapes(ae[0] if ae.shape[0] else ae.new_empty(a.shape[-2:]),
               be[0] if be.shape[0] else be.new_empty(b.shape[-2:]))
    outs = [mm(ae[i], be[i]) for i in range(ae.shape[0])]
    if not outs:
        return a.new_empty(*batch, a.shape[-2], b.shape[-1])
    return torch.stack(outs).reshape(*batch, a.shape[-2], b.shape[-1])


class _Linear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x2, w, b):
        ctx.save_for_backward(x2, w)
        ctx.has_bias = b is not None
        return _C.linear_forward(x2, w, b)

    @staticmethod
    @_once
    def backward(ctx, g):
        x2, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        dx, dw, db = _C.linear_backward(x2, w, _grad(g), need[0], need[1],
                                        bool(need[2]) and ctx.has_bias)
        return (dx if need[0] else None, dw if need[1] else None,
                db if need[2] and ctx.has_bias else None)


class _LinearCR(torch.autograd.Function):
    """The linear layer with every product correctly rounded (_C.gemm_cr:
    repdl_gemm_cr_threads_f32, or repdl_cuda_gemm_cr_f32 on CUDA tensors)."""

    @staticmethod
    def forward(ctx, x2, w, b):
        ctx.save_for_backward(x2, w)
        ctx.has_bias = b is not None
        M, K = x2.shape
        return _C.gemm_cr(False, True, M, w.shape[0], K, x2, w, b)

    @staticmethod
    @_once
    def backward(ctx, g):
        x2, w = ctx.saved_tensors
        g = _grad(g)
        need = ctx.needs_input_grad
        M, K = x2.shape
        N = w.shape[0]
        dx = _C.gemm_cr(False, False, M, K, N, g, w, None) if need[0] else None
        dw = _C.gemm_cr(True, False, N, K, M, g, x2, None) if need[1] else None
        db = None
        if need[2] and ctx.has_bias:  # the column sums: g^T times a column of ones
            ones = torch.ones(M, 1, dtype=torch.float32, device=g.device)
            db = _C.gemm_cr(True, False, N, 1, M, g, ones, None).reshape(N)
        return dx, dw, db


_GEMMS = ('fma', 'cr')


def _gemm_mode(gemm):
    if gemm not in _GEMMS:
        raise ValueError(f"repdl: gemm must be 'fma' or 'cr', got {gemm!r}")
    return gemm


def linear(input, weight, bias=None, gemm='fma'):
    """y = x W^T + b.  gemm='fma' (default): repdl_linear_forward_f32
    (threaded gemm: the same bits at every torch.get_num_threads());
    backward repdl_linear_backward_f32 (dW and db in the batch order:
    micro-batches of 16 rows, buddy tree).  gemm='cr': every product
    correctly rounded (repdl_gemm_cr_f32; docs/functions/gemm_cr.md):
    y = RN(x W^T + b), dx = RN(dy W), dW = RN(dy^T x) and db = RN(dy^T 1)
    over all rows at once, the same bits at every thread count and for any
    split of the batch's rows among outputs.  Other gemm values: ValueError."""
    _gemm_mode(gemm)
    x, w, b = _check(input), _check(weight, 'weight'), _opt(bias, 'bias')
    if w.dim() != 2:
        raise RuntimeError(f'repdl: linear weight must be 2-D [out, in], got {tuple(w.shape)}')
    if x.dim() == 0:
        raise RuntimeError('both arguments to linear need to be at least 1D, but they are 0D and 2D')
    K = x.shape[-1]
    if K != w.shape[1]:
        rows = x.numel() // K if K else 0
        raise RuntimeError(f'mat1 and mat2 shapes cannot be multiplied ({rows}x{K} and '
                           f'{w.shape[1]}x{w.shape[0]})')
    if b is not None and (b.dim() != 1 or b.shape[0] != w.shape[0]):
        raise RuntimeError(f'repdl: linear bias must be [{w.shape[0]}], got {tuple(b.shape)}')
    rows = 1
    for s_ in x.shape[:-1]:
        rows *= s_
    fn = _LinearCR if gemm == 'cr' else _Linear
    y = fn.apply(x.reshape(rows, K), w, b)
    return y.reshape(*x.shape[:-1], w.shape[0])


# ---- Convolution and pooling ----

class _Conv2d(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b, stride, pad, dil):
        ctx.save_for_backward(x, w)
        ctx.conf = (stride, pad, dil)
        ctx.has_bias = b is not None
        return _C.conv2d_forward(x, w, b, stride, pad, dil)

    @staticmethod
    @_once
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        dx, dw, db = _C.conv2d_backward(x, w, _grad(g), *ctx.conf, need[0], need[1],
                                        bool(need[2]) and ctx.has_bias)
        return (dx if need[0] else None, dw if need[1] else None,
                db if need[2] and ctx.has_bias else None, None, None, None)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """NCHW convolution (groups 1) as im2col + the canonical gemm
    (repdl_conv2d_forward_f32 / _backward_f32: dw, db in the batch order).
    padding: int, pair, 'valid', or 'same' (stride 1, even total padding)."""
    x, w, b = _check(input), _check(weight, 'weight'), _opt(bias, 'bias')
    if groups != 1:
        raise NotImplementedError(f'repdl: conv2d supports groups=1 only, got groups={groups}')
    unbatched = x.dim() == 3
    if unbatched:
        x = x.unsqueeze(0)
    if x.dim() != 4:
        raise RuntimeError(f'Expected 3D (unbatched) or 4D (batched) input to conv2d, but got '
                           f'input of size: {list(input.shape)}')
    if w.dim() != 4:
        raise RuntimeError(f'repdl: conv2d weight must be 4-D [oc, c, kh, kw], got {list(w.shape)}')
    if x.shape[1] != w.shape[1]:
        raise RuntimeError(f'Given groups=1, weight of size {list(w.shape)}, expected input'
                           f'{list(x.shape)} to have {w.shape[1]} channels, but got {x.shape[1]} '
                           'channels instead')
    if b is not None and (b.dim() != 1 or b.shape[0] != w.shape[0]):
        raise RuntimeError(f'repdl: conv2d bias must be [{w.shape[0]}], got {list(b.shape)}')
    st, dil = _pair(stride, 'stride'), _pair(dilation, 'dilation')
    if isinstance(padding, str):
        if padding == 'valid':
            pad = [0, 0]
        elif padding == 'same':
            if st != [1, 1]:
                raise ValueError("padding='same' is not supported for strided convolutions")
            tot = [dil[i] * (w.shape[2 + i] - 1) for i in range(2)]
            if tot[0] % 2 or tot[1] % 2:
                raise NotImplementedError("repdl: padding='same' with an odd total padding "
                                          '(asymmetric) is not supported')
            pad = [tot[0] // 2, tot[1] // 2]
        else:
            raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                             "{'valid', 'same'}")
    else:
        pad = _pair(padding, 'padding')
    if min(st) < 1 or min(dil) < 1 or min(pad) < 0:
        raise RuntimeError('repdl: conv2d needs stride >= 1, dilation >= 1, padding >= 0')
    for i in range(2):
        if x.shape[2 + i] + 2 * pad[i] < dil[i] * (w.shape[2 + i] - 1) + 1:
            raise RuntimeError(f'Calculated padded input size per channel: '
                               f'({x.shape[2] + 2 * pad[0]} x {x.shape[3] + 2 * pad[1]}). Kernel '
                               f'size: ({w.shape[2]} x {w.shape[3]}). Kernel size can\'t be '
                               'greater than actual input size')
    y = _Conv2d.apply(x, w, b, st, pad, dil)
    return y.squeeze(0) if unbatched else y


class _MaxPool2d(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k, st, pad):
        y, idx = _C.max_pool2d_forward(x, k, st, pad)
        ctx.save_for_backward(x, idx)
        ctx.conf = (k, st, pad)
        ctx.mark_non_differentiable(idx)
        return y, idx

    @staticmethod
    @_once
    def backward(ctx, g, _gidx):
        x, idx = ctx.saved_tensors
        return _C.max_pool2d_backward(x, idx, _grad(g), *ctx.conf), None, None, None


class _AvgPool2d(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k, st, pad, cip):
        ctx.save_for_backward(x)
        ctx.conf = (k, st, pad, cip)
        return _C.avg_pool2d_forward(x, k, st, pad, cip)

    @staticmethod
    @_once
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        k, st, pad, cip = ctx.conf
        return _C.avg_pool2d_backward(x, _grad(g), k, st, pad, cip), None, None, None, None


def _pool_args(x, kernel_size, stride, padding, ceil_mode, name):
    if ceil_mode:
        raise NotImplementedError(f'repdl: {name} supports ceil_mode=False only')
    k = _pair(kernel_size, 'kernel_size')
    st = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
        else _pair(stride, 'stride')
    pad = _pair(padding, 'padding')
    if min(k) < 1 or min(st) < 1:
        raise RuntimeError(f'{name}: kernel_size and stride must be greater than zero')
    if pad[0] > k[0] // 2 or pad[1] > k[1] // 2:
        raise RuntimeError(f'pad should be at most half of effective kernel size, but got '
                           f'pad={pad[0] if pad[0] > k[0] // 2 else pad[1]}, kernel_size='
                           f'{k[0] if pad[0] > k[0] // 2 else k[1]} and dilation=1')
    unbatched = x.dim() == 3
    if unbatched:
        x = x.unsqueeze(0)
    if x.dim() != 4:
        raise RuntimeError(f'{name}: Expected 3D or 4D (batch mode) tensor for input, got '
                           f'{x.dim()}D')
    for i in range(2):
        if x.shape[2 + i] + 2 * pad[i] < k[i]:
            raise RuntimeError(f'Given input size: ({x.shape[1]}x{x.shape[2]}x{x.shape[3]}). '
                               'Calculated output size is too small')
    return x, k, st, pad, unbatched


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max pooling (repdl_max_pool2d_forward_f32: the first maximum in window
    order, NaN propagates); indices are PyTorch's (flat in the plane)."""
    if _pair(dilation, 'dilation') != [1, 1]:
        raise NotImplementedError('repdl: max_pool2d supports dilation=1 only')
    x, k, st, pad, unb = _pool_args(_check(input), kernel_size, stride, padding, ceil_mode,
                                    'max_pool2d')
    y, idx = _MaxPool2d.apply(x, k, st, pad)
    if unb:
        y, idx = y.squeeze(0), idx.squeeze(0)
    return (y, idx) if return_indices else y


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Average pooling (repdl_avg_pool2d_forward_f32: each window's
    canonical sum divided once); ceil_mode=False and divisor_override=None
    only."""
    if divisor_override is not None:
        raise NotImplementedError('repdl: avg_pool2d supports divisor_override=None only')
    x, k, st, pad, unb = _pool_args(_check(input), kernel_size, stride, padding, ceil_mode,
                                    'avg_pool2d')
    y = _AvgPool2d.apply(x, k, st, pad, bool(count_include_pad))
    return y.squeeze(0) if unb else y


def adaptive_avg_pool2d(input, output_size):
    """Adaptive average pooling where every output extent divides its input
    extent (global average pooling, output_size 1, among them): then it is
    avg_pool2d with kernel = stride = in / out, no padding, the same
    windows as PyTorch's; other sizes raise NotImplementedError (PyTorch's
    overlapping windows; support is planned).  output_size: int, pair, or a
    pair with None (that extent kept)."""
    x = _check(input)
    if x.dim() not in (3, 4):
        raise RuntimeError(f'adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got '
                           f'{list(x.shape)}')
    if isinstance(output_size, int):
        out = [output_size, output_size]
    else:
        out = list(output_size)
        if len(out) == 1:
            out = [out[0], out[0]]
    if len(out) != 2:
        raise ValueError(f'repdl: adaptive_avg_pool2d output_size must be an int or a pair, '
                         f'got {output_size!r}')
    ins = list(x.shape[-2:])
    out = [ins[i] if out[i] is None else int(out[i]) for i in range(2)]
    if min(out) < 1 or min(ins) < 1:
        raise NotImplementedError(f'repdl: adaptive_avg_pool2d of input {ins} to {out}: empty '
                                  'extents are not supported')
    if ins[0] % out[0] or ins[1] % out[1]:
        raise NotImplementedError(f'repdl: adaptive_avg_pool2d from {ins} to {out}: repdl pools '
                                  'only where each output size divides the input size (equal '
                                  'windows; support for the overlapping ones is planned)')
    k = [ins[0] // out[0], ins[1] // out[1]]
    return avg_pool2d(x, k, k, 0)


# ---- Normalizations ----

def _norm_rows(x, normalized_shape, name):
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if len(shape) == 0 or x.dim() < len(shape) or list(x.shape[x.dim() - len(shape):]) != shape:
        raise RuntimeError(f'Given normalized_shape={shape}, expected input with shape '
                           f'[*, {", ".join(str(s) for s in shape)}], but got input of size'
                           f'{list(x.shape)}')
    cols = 1
    for s in shape:
        cols *= s
    rows = x.numel() // cols if cols else 0
    return shape, rows, cols


class _LayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, rows, cols, gamma, beta, eps):
        y, mean, rstd = _C.layer_norm_forward(rows, cols, eps, x, gamma, beta)
        ctx.save_for_backward(x, gamma, mean, rstd)
        ctx.dims = (rows, cols)
        ctx.has = (gamma is not None, beta is not None)
        return y

    @staticmethod
    @_once
    def backward(ctx, g):
        x, gamma, mean, rstd = ctx.saved_tensors
        need = ctx.needs_input_grad
        ng, nb = bool(need[3]) and ctx.has[0], bool(need[4]) and ctx.has[1]
        dx, dg, db = _C.layer_norm_backward(*ctx.dims, x, gamma, mean, rstd, _grad(g), ng, nb)
        return dx, None, None, dg if ng else None, db if nb else None, None


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """repdl_layer_norm_forward_f32 over the trailing normalized_shape."""
    x = _check(input)
    shape, rows, cols = _norm_rows(x, normalized_shape, 'layer_norm')
    g, b = _opt(weight, 'weight'), _opt(bias, 'bias')
    for t, n in ((g, 'weight'), (b, 'bias')):
        if t is not None and t.numel() != cols:
            raise RuntimeError(f'repdl: layer_norm {n} must have {cols} elements, got '
                               f'{list(t.shape)}')
    if g is not None:
        g = g.reshape(cols)
    if b is not None:
        b = b.reshape(cols)
    return _LayerNorm.apply(x, rows, cols, g, b, float(eps)).reshape(x.shape)


class _RMSNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, rows, cols, gamma, eps):
        y, rstd = _C.rms_norm_forward(rows, cols, eps, x, gamma)
        ctx.save_for_backward(x, gamma, rstd)
        ctx.dims = (rows, cols)
        ctx.has_gamma = gamma is not None
        return y

    @staticmethod
    @_once
    def backward(ctx, g):
        x, gamma, rstd = ctx.saved_tensors
        ng = bool(ctx.needs_input_grad[3]) and ctx.has_gamma
        dx, dg = _C.rms_norm_backward(*ctx.dims, x, gamma, rstd, _grad(g), ng)
        return dx, None, None, dg if ng else None, None


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """repdl_rms_norm_forward_f32 (PyTorch 2.4's F.rms_norm signature; eps
    None is torch.finfo(float32).eps)."""
    x = _check(input)
    shape, rows, cols = _norm_rows(x, normalized_shape, 'rms_norm')
    g = _opt(weight, 'weight')
    if g is not None:
        if g.numel() != cols:
            raise RuntimeError(f'repdl: rms_norm weight must have {cols} elements')
        g = g.reshape(cols)
    e = torch.finfo(torch.float32).eps if eps is None else float(eps)
    return _RMSNorm.apply(x, rows, cols, g, e).reshape(x.shape)


class _BatchNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, gamma, beta, rm, rv, training, momentum, eps):
        n, c = x.shape[0], x.shape[1]
        hw = x.numel() // (n * c) if n * c else 0
        ctx.dims = (n, c, hw)
        ctx.has = (gamma is not None, beta is not None)
        ctx.training = training
        ctx.eps = eps
        if training:
            y, sm, sr = _C.batch_norm_forward_train(n, c, hw, eps, momentum, x, gamma, beta, rm, rv)
            ctx.save_for_backward(x, gamma, sm, sr)
        else:
            y = _C.batch_norm_forward_infer(n, c, hw, eps, x, gamma, beta, rm, rv)
            ctx.save_for_backward(x, gamma, rm, rv)
        return y

    @staticmethod
    @_once
    def backward(ctx, g):
        need = ctx.needs_input_grad
        ng, nb = bool(need[1]) and ctx.has[0], bool(need[2]) and ctx.has[1]
        g = _grad(g)
        if ctx.training:
            x, gamma, sm, sr = ctx.saved_tensors
            dx, dg, db = _C.batch_norm_backward(*ctx.dims, x, gamma, sm, sr, g, ng, nb)
            return dx, dg if ng else None, db if nb else None, None, None, None, None, None
        # Evaluation: the statistics are constants.  rstd as the forward's
        # (repdl_batch_norm_forward_infer_f32 of x = 1, mean 0 gives it
        # exactly); dgamma, dbeta the training pass's batch-order sums with
        # (running_mean, rstd) for (save_mean, save_rstd); dx = RN(dy k),
        # k = RN(gamma rstd) (rstd without gamma), per channel.
        x, gamma, rm, rv = ctx.saved_tensors
        n, c, hw = ctx.dims
        rs = _C.batch_norm_forward_infer(1, c, 1, ctx.eps, torch.ones_like(rv).reshape(1, c),
                                         None, None, torch.zeros_like(rm), rv).reshape(c)
        dg = db = None
        if ng or nb:
            _, dg, db = _C.batch_norm_backward(n, c, hw, x, gamma, rm.contiguous(), rs, g, ng, nb)
        dx = None
        if need[0]:
            k = rs if gamma is None else _C.mul(gamma, rs)
            kx = k.reshape([1, c] + [1] * (x.dim() - 2)).expand(x.shape).contiguous()
            dx = _C.mul(g, kx)
        return dx, dg if ng else None, db if nb else None, None, None, None, None, None


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch norm over (N, C, *): training uses the batch statistics and
    updates the running buffers in place (repdl_batch_norm_forward_train_f32,
    PyTorch's unbiased running variance); evaluation uses the running ones."""
    x = _check(input)
    if x.dim() < 2:
        raise ValueError(f'expected at least 2D input (got {x.dim()}D input)')
    c = x.shape[1]
    g, b = _opt(weight, 'weight'), _opt(bias, 'bias')
    for t, n in ((g, 'weight'), (b, 'bias'), (running_mean, 'running_mean'),
                 (running_var, 'running_var')):
        if t is not None:
            _check(t, n)
            if t.numel() != c:
                raise RuntimeError(f'running_mean should contain {c} elements not {t.numel()}'
                                   if n == 'running_mean' else
                                   f'repdl: batch_norm {n} must have {c} elements, got '
                                   f'{t.numel()}')
    for t, n in ((running_mean, 'running_mean'), (running_var, 'running_var')):
        if t is not None and not t.is_contiguous():
            raise RuntimeError(f'repdl: {n} must be contiguous (it is updated in place)')
    if training:
        if c and x.numel() // c <= 1:
            raise ValueError(f'Expected more than 1 value per channel when training, got input '
                             f'size {x.shape}')
        if momentum is None:
            raise NotImplementedError('repdl: batch_norm momentum=None (cumulative moving '
                                      'average) is not supported')
        rm = None if running_mean is None else running_mean.detach()
        rv = None if running_var is None else running_var.detach()
        return _BatchNorm.apply(x, g, b, rm, rv, True, float(momentum), float(eps))
    if running_mean is None or running_var is None:
        raise RuntimeError('repdl: batch_norm in evaluation mode needs running_mean and '
                           'running_var')
    return _BatchNorm.apply(x, g, b, running_mean.detach(), running_var.detach(), False, 0.0,
                            float(eps))


# ---- Dropout ----

class _Dropout(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, p, seed, offset):
        y, mask = _C.dropout_forward(p, seed, offset, x)
        ctx.p = p
        ctx.save_for_backward(mask)
        return y

    @staticmethod
    @_once
    def backward(ctx, g):
        (mask,) = ctx.saved_tensors
        return _C.dropout_backward(ctx.p, mask, _grad(g)), None, None, None


def dropout(input, p=0.5, training=True, inplace=False, *, generator=None, seed=None,
            offset=None):
    """repdl_dropout_forward_f32: element j is kept iff uniform j of the
    Philox stream (seed, offset) is >= p, then scaled by RN(1 / RN(1 - p)).
    The stream is (seed, offset) if given, else the next slot of generator
    (default: repdl.random.default_generator).  Not training: the input."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f'dropout probability has to be between 0 and 1, but got {p}')
    x = _check(input)
    if not training:
        return input
    if seed is None or offset is None:
        gen = generator if generator is not None else _random.default_generator
        seed, offset = gen.seed(), gen.next_offset()
    return _Dropout.apply(x, float(p), int(seed), int(offset))


# ---- Losses ----

_REDUCTIONS = {'mean': 0, 'sum': 1}


class _Loss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, target, ce, reduction, divisor, keep):
        need = bool(ctx.needs_input_grad[0])
        if keep is None:
            loss, grad = _C.loss(ce, reduction, x, target, need, divisor)
        else:
            loss, gk = _C.loss(ce, reduction, x.index_select(0, keep).contiguous(),
                               target.index_select(0, keep).contiguous(), need, divisor)
            grad = None
            if need:
                grad = torch.zeros_like(x)
                grad.index_copy_(0, keep, gk)
        ctx.save_for_backward(grad if need else None)
        return loss

    @staticmethod
    @_once
    def backward(ctx, g):
        (grad,) = ctx.saved_tensors
        s = float(_grad(g).item())
        return _C.scale(s, grad), None, None, None, None, None


def _divisor(name, reduction, rows, global_batch_size):
    """0 (the call's own reduction) or the B of global_batch_size."""
    if global_batch_size is None:
        return 0
    if reduction != 'mean':
        raise ValueError(f"repdl: {name}: global_batch_size needs reduction='mean'")
    if isinstance(global_batch_size, bool) or not isinstance(global_batch_size, int):
        raise TypeError(f'repdl: {name}: global_batch_size must be an int')
    if global_batch_size < max(rows, 1):
        raise ValueError(f'repdl: {name}: global_batch_size ({global_batch_size}) is smaller than '
                         f'the {rows} rows of this call')
    return global_batch_size


def _ignored_rows(target, ignore_index):
    """(keep, lo, hi) of a contiguous class-index target: keep the indices
    of the rows whose target is not ignore_index (None when no row is
    ignored), lo and hi the smallest and largest kept target (None when
    no row is kept)."""
    keep = None
    lo = hi = None
    if target.numel():
        lo, hi = (int(v) for v in torch.aminmax(target))
    if lo is not None and lo <= ignore_index <= hi:   # else no target is ignore_index
        ignored = target == ignore_index
        if bool(ignored.any()):
            keep = (~ignored).nonzero().reshape(-1)
            kt = target.index_select(0, keep)
            lo = hi = None
            if kt.numel():
                lo, hi = (int(v) for v in torch.aminmax(kt))
    return keep, lo, hi


def _loss(name, ce, input, target, weight, ignore_index, reduction, label_smoothing,
          global_batch_size=None):
    x = _check(input)
    if weight is not None:
        raise NotImplementedError(f'repdl: {name} supports weight=None only')
    if label_smoothing:
        raise NotImplementedError(f'repdl: {name} supports label_smoothing=0 only')
    if reduction not in _REDUCTIONS:
        if reduction == 'none':
            raise NotImplementedError(f"repdl: {name} supports reduction='mean' and 'sum' only")
        raise ValueError(f'{reduction} is not a valid value for reduction')
    if not isinstance(target, torch.Tensor) or target.dtype != torch.int64:
        raise TypeError(f'repdl: {name} target must be an int64 (torch.long) tensor of class '
                        'indices')
    if target.device != x.device:
        raise RuntimeError(f'Expected all tensors to be on the same device, but found at least '
                           f'two devices, {x.device} and {target.device}! (repdl: {name} target)')
    if x.dim() == 1:
        x, target = x.unsqueeze(0), target.reshape(1)
    if x.dim() != 2:
        raise NotImplementedError(f'repdl: {name} supports input [N, C] (or [C]) only, got '
                                  f'{list(x.shape)}')
    if target.dim() != 1 or target.shape[0] != x.shape[0]:
        raise ValueError(f'Expected input batch_size ({x.shape[0]}) to match target batch_size '
                         f'({target.shape[0] if target.dim() else 0}).')
    target = target.contiguous()
    keep, lo, hi = _ignored_rows(target, ignore_index)
    if keep is not None and global_batch_size is not None:
        raise NotImplementedError(f'repdl: {name}: global_batch_size with ignored '
                                  'targets (ignore_index) is not supported')
    if lo is not None and (lo < 0 or hi >= x.shape[1]):
        raise IndexError(f'Target {hi if hi >= x.shape[1] else lo} is out of bounds.')
    divisor = _divisor(name, reduction, x.shape[0], global_batch_size)
    return _Loss.apply(x, target, ce, _REDUCTIONS[reduction], divisor, keep)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction='mean', label_smoothing=0.0, *, global_batch_size=None):
    """repdl_cross_entropy_f32: -log_softmax(x)[t] per row, the canonical
    sum or mean over rows; the gradient is computed with the loss and scaled
    by the incoming gradient (RN(g * d), exact for g = 1).

    ignore_index (default -100, PyTorch's padding convention): rows whose
    target equals it count for nothing: the loss is the one of the other
    rows alone (the canonical sum of their row losses; mean: divided by
    their number, NaN when every row is ignored, as PyTorch), and their
    gradient rows are +0.

    global_batch_size=B (with reduction='mean'): these rows are a shard of a
    batch of B rows (data parallel, repdl.distributed): the loss is the
    canonical sum of these rows divided by B, and each row's gradient is
    the one of the mean over all B rows, bit for bit (repdl_div_count_f32)."""
    if size_average is not None or reduce is not None:
        raise NotImplementedError('repdl: size_average and reduce are deprecated; use reduction')
    return _loss('cross_entropy', True, input, target, weight, ignore_index, reduction,
                 label_smoothing, global_batch_size)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction='mean', *, global_batch_size=None):
    """repdl_nll_loss_f32; global_batch_size as for cross_entropy."""
    if size_average is not None or reduce is not None:
        raise NotImplementedError('repdl: size_average and reduce are deprecated; use reduction')
    return _loss('nll_loss', False, input, target, weight, ignore_index, reduction, 0.0,
                 global_batch_size)


class _MSELoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, t, reduction):
        ctx.save_for_backward(x, t)
        ctx.reduction = reduction
        return _C.mse_loss_forward(x, t, reduction)

    @staticmethod
    @_once
    def backward(ctx, g):
        x, t = ctx.saved_tensors
        need = ctx.needs_input_grad
        if not (need[0] or need[1]):
            return None, None, None
        dx = _C.mse_loss_backward(x, t, float(_grad(g).item()), ctx.reduction)
        dt = _C.scale(-1.0, dx) if need[1] else None  # -dx_i: negation is exact
        return (dx if need[0] else None), dt, None


def mse_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    """torch.nn.functional.mse_loss by repdl_mse_loss_forward_f32 and
    _backward_f32 (include/repdl/mse_loss.h, docs/nn.md "Mean squared
    error"): the squares RN(RN(x - t)^2) summed in the canonical order,
    'mean' divided by the element count with one rounding (NaN for an empty
    input, as PyTorch), 'sum' the sum; the gradient RN(RN(2 (x - t)) g)
    with g the incoming gradient ('mean': RN(g / n)), the target's its
    negation.  input and target: float32 tensors of the same shape
    (broadcasting and reduction='none': NotImplementedError)."""
    if size_average is not None or reduce is not None:
        raise NotImplementedError('repdl: size_average and reduce are deprecated; use reduction')
    if reduction not in _REDUCTIONS:
        if reduction == 'none':
            raise NotImplementedError("repdl: mse_loss supports reduction='mean' and 'sum' only")
        raise ValueError(f'{reduction} is not a valid value for reduction')
    x = _check(input)
    t = _check(target, 'target')
    if t.device != x.device:
        raise RuntimeError(f'Expected all tensors to be on the same device, but found at least '
                           f'two devices, {x.device} and {t.device}! (repdl: mse_loss target)')
    if x.shape != t.shape:
        raise NotImplementedError(f'repdl: mse_loss needs input and target of the same shape '
                                  f'(no broadcasting), got {list(x.shape)} and {list(t.shape)}')
    return _MSELoss.apply(x, t, _REDUCTIONS[reduction])


# ---- Embedding ----

class _Embedding(torch.autograd.Function):
    @staticmethod
    def forward(ctx, ids, w, padding_idx):
        ctx.save_for_backward(ids)
        ctx.vocab = w.shape[0]
        ctx.padding_idx = padding_idx
        return _C.embedding_forward(w, ids)

    @staticmethod
    def backward(ctx, g):
        if torch.is_grad_enabled():
            raise RuntimeError('repdl: double backward (create_graph=True) is not supported: '
                               "repdl's backward passes are not differentiable")
        ids, = ctx.saved_tensors
        if not ctx.needs_input_grad[1]:
            return None, None, None
        dw = _C.embedding_backward(_grad(g), ids, ctx.vocab)
        if ctx.padding_idx is not None:
            dw[ctx.padding_idx] = 0.0  # no gradient to the padding row: +0, a row no id hits
        return None, dw, None


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """torch.nn.functional.embedding by repdl_embedding_forward_f32 (a
    copy of rows); backward repdl_embedding_backward_f32: each row of the
    weight's gradient is the sum of the gradients of the positions holding
    its id in the batch order (docs/nn.md, "Embedding"), the same bits at
    every thread count and batch split; rows no id hits, the padding_idx
    row and every zero are +0.  input: int64 or int32 indices of any shape
    (int32 is widened, exactly); an index outside [0, num_embeddings) is a
    RuntimeError.  max_norm, scale_grad_by_freq and sparse:
    NotImplementedError."""
    w = _check(weight, 'weight')
    if not isinstance(input, torch.Tensor):
        raise TypeError(f'repdl: embedding indices must be a torch.Tensor, got '
                        f'{type(input).__name__}')
    if input.dtype not in (torch.int64, torch.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {input.dtype} instead")
    _device.check(input, 'indices')
    if w.dim() != 2:
        raise RuntimeError(f"'weight' must be 2-D, got {tuple(w.shape)}")
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError('repdl: embedding with max_norm, scale_grad_by_freq or sparse '
                                  'gradients is not supported')
    if padding_idx is not None:
        padding_idx = int(padding_idx)
        if not -w.shape[0] <= padding_idx < w.shape[0]:
            raise AssertionError('Padding_idx must be within num_embeddings')
        padding_idx %= w.shape[0]
    ids = input.reshape(-1).to(torch.int64).contiguous()
    out = _Embedding.apply(ids, w, padding_idx)
    return out.reshape(*input.shape, w.shape[1])


# ---- Rotary position embeddings (include/repdl/rope.h, docs/rope.md) ----

def rope_table(positions, dim, base=10000.0, device=None):
    """The tables (cos, sin), each [positions, dim // 2] float32, of
    repdl_rope_table_f32: theta_i = 2^-RN(RN(2i/dim) log2(base)), angle
    RN(p theta_i), cos and sin correctly rounded: the same bits on every
    machine.  dim even and > 0, base finite and > 0, positions <= 2^24
    (else RuntimeError from the library, ValueError for an odd dim)."""
    positions, dim = int(positions), int(dim)
    if dim <= 0 or dim % 2:
        raise ValueError(f'repdl: rope_table: dim must be even and > 0, got {dim}')
    if positions < 0:
        raise ValueError(f'repdl: rope_table: positions must be >= 0, got {positions}')
    like = torch.empty(0, dtype=torch.float32, device=device)
    _device.check(like, 'rope table')
    c, s = _C.rope_table(positions, dim, float(base), like)
    return c, s


class _Rope(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, cos_tab, sin_tab, rows, n, d, pos0):
        ctx.save_for_backward(cos_tab, sin_tab)
        ctx.conf = (rows, n, d, pos0)
        return _C.rope_forward(rows, n, d, pos0, cos_tab, sin_tab, x)

    @staticmethod
    @_once
    def backward(ctx, g):
        cos_tab, sin_tab = ctx.saved_tensors
        dx = _C.rope_backward(*ctx.conf, cos_tab, sin_tab, _grad(g)) \
            if ctx.needs_input_grad[0] else None
        return dx, None, None, None, None, None, None


def rope(input, cos, sin, pos0=0):
    """Rotary position embedding of input [..., n, d] (half-split pairs:
    element i with i + d/2, GPT-NeoX / LLaMA's Hugging Face form), row t at
    position pos0 + t of the tables (rope_table) by repdl_rope_forward_f32:
    each product rounded, then the sum (never fused).  Backward: the
    transposed rotation (repdl_rope_backward_f32); the tables get no
    gradient.  A sequence past the table (pos0 + n > positions), d odd or
    not twice the tables' width: RuntimeError or ValueError, nothing
    computed."""
    x = _check(input)
    c, s = _check(cos, 'cos'), _check(sin, 'sin')
    if x.dim() < 2:
        raise ValueError(f'repdl: rope: input must be [..., n, d], got shape {tuple(x.shape)}')
    n, d = x.shape[-2], x.shape[-1]
    if d == 0 or d % 2 or c.dim() != 2 or c.shape != s.shape or 2 * c.shape[1] != d:
        raise ValueError(f'repdl: rope: head dimension {d} must be even, > 0 and twice the '
                         f'tables\' width (tables {tuple(c.shape)}, {tuple(s.shape)})')
    pos0 = int(pos0)
    if pos0 < 0 or pos0 + n > c.shape[0]:
        raise ValueError(f'repdl: rope: positions {pos0} .. {pos0 + n - 1} reach past the '
                         f'table of {c.shape[0]} positions')
    rows = x.numel() // (n * d) if n * d else 0
    if torch.is_grad_enabled() and (c.requires_grad or s.requires_grad):
        raise NotImplementedError('repdl: rope: the tables get no gradient (they are '
                                  'constants: build them with rope_table)')
    return _Rope.apply(x, c.detach(), s.detach(), rows, n, d, pos0)


# ---- Attention (include/repdl/attention.h, docs/attention.md) ----

class _Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, mask, keep, dims, q_pos0, causal, scale):
        out, lse = _C.attention_forward(dims, q_pos0, causal, scale, q, k, v, mask, keep)
        ctx.save_for_backward(q, k, v, mask, keep, out, lse)
        ctx.conf = (dims, q_pos0, causal, scale)
        ctx.mark_non_differentiable(lse)
        return out, lse

    @staticmethod
    @_once
    def backward(ctx, g, _glse):
        q, k, v, mask, keep, out, lse = ctx.saved_tensors
        need = ctx.needs_input_grad
        if not (need[0] or need[1] or need[2]):
            return (None,) * 9
        dq, dk, dv = _C.attention_backward(*ctx.conf, q, k, v, mask, keep, out, lse, _grad(g),
                                           need[0], need[1], need[2])
        return dq, dk, dv, None, None, None, None, None, None


def _attention(q, k, v, mask=None, keep=None, causal=False, scale=None, q_pos0=0):
    """repdl_attention_forward_f32 on q [B, Hq, L, E], k, v [B, Hkv, S, E]
    (contiguous float32), mask [B, L, S] float (additive, -inf: not seen)
    or None, keep [B, S] uint8 (0: padding) or None; returns (out, lse)."""
    B, Hq, L, E = q.shape
    Hkv, S = k.shape[1], k.shape[2]
    if E == 0:
        raise ValueError('repdl: attention: head dimension 0')
    if Hkv == 0 or Hq % Hkv:
        raise ValueError(f'repdl: attention: {Hq} query heads are not a multiple of {Hkv} '
                         'key/value heads')
    if causal and S < q_pos0 + L:
        raise ValueError(f'repdl: attention: is_causal with fewer keys ({S}) than queries '
                         f'({L}): the causal mask is aligned top-left only when S >= L')
    if scale is None:
        scale = 1.0 / math.sqrt(E)
    if mask is not None and torch.is_grad_enabled() and mask.requires_grad:
        raise NotImplementedError('repdl: attention: attn_mask gets no gradient (detach it)')
    if mask is not None:
        mask = mask.detach()
    return _Attention.apply(q, k, v, mask, keep, [B, Hq, Hkv, L, S, E], int(q_pos0),
                            bool(causal), float(scale))


def _float_mask(m, shape, name):
    """m broadcast to shape, as an additive float mask: a bool mask's True
    is a seen key (torch's scaled_dot_product_attention), 0.0 / -inf."""
    if not isinstance(m, torch.Tensor):
        raise TypeError(f'repdl: {name} must be a torch.Tensor, got {type(m).__name__}')
    try:
        torch.broadcast_shapes(m.shape, shape)
        if len(m.shape) > len(shape) or torch.broadcast_shapes(m.shape, shape) != torch.Size(shape):
            raise RuntimeError
    except RuntimeError:
        raise RuntimeError(f'repdl: {name} of shape {tuple(m.shape)} does not broadcast to '
                           f'{tuple(shape)}') from None
    if m.dtype == torch.bool:
        f = torch.zeros(m.shape, dtype=torch.float32, device=m.device)
        m = f.masked_fill(~m, float('-inf'))
    else:
        m = _check(m, name)
    return m.expand(shape)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """torch.nn.functional.scaled_dot_product_attention (PyTorch 2.x's
    signature) by repdl_attention_forward_f32 (docs/attention.md): each
    output row a function of its query, the keys it sees and their
    positions only (canonical sums, correctly rounded exp and log): the
    same bits whatever the batch, the other rows, the sequence padding and
    the thread count.  Backward repdl_attention_backward_f32.

    query [..., L, E], key [..., S, E], value [..., S, E] (the same leading
    dimensions; value's last dimension must be E); enable_gqa: query
    [N, Hq, L, E], key and value [N, Hkv, S, E], Hq a multiple of Hkv.
    attn_mask broadcasts to [..., L, S]: bool (True: the key takes part)
    or float (added to the scores; -inf: not seen); it gets no gradient
    (with enable_gqa it may not differ between heads).  is_causal: query i
    sees keys j <= i (top-left; S < L refused).  scale default 1/sqrt(E)
    (float64, rounded once to float32).  A row that sees no key gives 0
    (PyTorch: NaN).  dropout_p != 0: NotImplementedError (no dropout
    inside attention; apply repdl.ops.dropout elsewhere)."""
    if dropout_p:
        raise NotImplementedError(f'repdl: scaled_dot_product_attention: dropout_p={dropout_p} is '
                                  'not supported (repdl has no dropout inside attention); pass '
                                  'dropout_p=0.0')
    q, k, v = _check(query, 'query'), _check(key, 'key'), _check(value, 'value')
    if q.dim() < 2 or k.dim() != q.dim() or v.dim() != q.dim():
        raise RuntimeError(f'repdl: scaled_dot_product_attention: query, key and value must have '
                           f'the same number of dimensions (>= 2), got {tuple(q.shape)}, '
                           f'{tuple(k.shape)}, {tuple(v.shape)}')
    L, E, S = q.shape[-2], q.shape[-1], k.shape[-2]
    if k.shape[-1] != E or v.shape[-2] != S:
        raise RuntimeError(f'repdl: scaled_dot_product_attention: key {tuple(k.shape)} and value '
                           f'{tuple(v.shape)} do not match query {tuple(q.shape)}')
    if v.shape[-1] != E:
        raise NotImplementedError(f'repdl: scaled_dot_product_attention: value head dimension '
                                  f'{v.shape[-1]} != query/key head dimension {E} (repdl: equal)')
    if E == 0:
        raise ValueError('repdl: scaled_dot_product_attention: head dimension 0')
    if enable_gqa:
        if q.dim() != 4 or k.shape[0] != q.shape[0] or v.shape[:2] != k.shape[:2]:
            raise RuntimeError('repdl: scaled_dot_product_attention: enable_gqa wants query '
                               '[N, Hq, L, E] and key, value [N, Hkv, S, E]')
        lead, B, Hq, Hkv = q.shape[:-2], q.shape[0], q.shape[1], k.shape[1]
    else:
        if k.shape[:-2] != q.shape[:-2] or v.shape[:-2] != q.shape[:-2]:
            raise RuntimeError(f'repdl: scaled_dot_product_attention: the leading dimensions of '
                               f'query {tuple(q.shape)}, key {tuple(k.shape)} and value '
                               f'{tuple(v.shape)} differ')
        lead = q.shape[:-2]
        B = 1
        for n in lead:
            B *= n
        Hq = Hkv = 1
    mask = None
    if attn_mask is not None:
        if enable_gqa:
            m = _float_mask(attn_mask, tuple(lead) + (L, S), 'attn_mask')
            if m.shape[1] > 1 and m.stride(1) != 0 and Hq > 1:
                if not bool((m == m[:, :1]).all()):
                    raise NotImplementedError('repdl: scaled_dot_product_attention: with '
                                              'enable_gqa, attn_mask may not differ between heads')
            mask = m[:, 0].contiguous()
        else:
            mask = _float_mask(attn_mask, tuple(lead) + (L, S), 'attn_mask')
            mask = mask.reshape(B, L, S).contiguous()
    out, _ = _attention(q.reshape(B, Hq, L, E), k.reshape(B, Hkv, S, E), v.reshape(B, Hkv, S, E),
                        mask, None, bool(is_causal), scale)
    return out.reshape(q.shape)
