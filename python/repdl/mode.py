# SPDX-License-Identifier: MIT
"""repdl.mode: unmodified PyTorch code computed by repdl, or refused
(docs/python.md, "repdl.mode").

    with repdl.mode():                 # strict: refuse what repdl cannot do
        loss = my_loss(model(x), y)    # plain torch code and torch.nn modules
        loss.backward()                # autograd's backward ops, routed too
        opt.step()                     # torch.optim.AdamW(..., foreach=False)

A torch.utils._python_dispatch.TorchDispatchMode: it sees every aten
operation below autograd, forward and backward, on plain tensors.  Each
operation is in exactly one of three lists (ROUTED, PASSED, and the rest):

- ROUTED: computed by repdl's C functions through repdl._C (the
  canonical orders of docs/canonical-order.md), or, for the operations
  that are one IEEE rounding per element (add, sub, mul, div, neg, abs),
  by PyTorch's kernel with NaN outputs made canonical (0x7fc00000);
- PASSED: pure data movement, selection, comparisons and constants
  (no arithmetic rounds, so any kernel gives the same bits);
- anything else that touches a floating-point tensor is refused
  (strict, the default: UnsupportedOperationError naming the aten
  operation and the user's line) or run by PyTorch and listed at exit
  (strict=False).

Operations on integer and boolean tensors only pass (exact arithmetic).
"""
import collections
import math
import os
import sys
import traceback

import torch
try:
    from torch.utils._python_dispatch import TorchDispatchMode
except ImportError:     # torch before 1.13: repdl.mode() raises, the rest of repdl works
    class TorchDispatchMode:
        def __init__(self, *a, **k):
            raise RuntimeError(f'repdl.mode needs torch >= 1.13 (TorchDispatchMode); this is '
                               f'torch {torch.__version__}')

from . import _device, ops
from ._device import C as _C

__all__ = ['mode', 'UnsupportedOperationError', 'ROUTED', 'PASSED']

aten = torch.ops.aten
_NAN = float('nan')
_F32 = torch.float32


class UnsupportedOperationError(RuntimeError):
    """A floating-point aten operation that repdl.mode(strict=True) does not
    compute reproducibly: the message names the operation, the reason and
    the Python line that called it."""


class _Refuse(Exception):
    """Raised by a handler for a configuration it does not compute."""


# ---- Helpers ----

def _schema(func):
    """[(name, default)] of the operation's arguments, in order."""
    return [(a.name, a.default_value) for a in func._schema.arguments]


def _bind(func, args, kwargs, sch=None):
    """The operation's arguments by schema name (defaults filled in)."""
    if sch is None:
        sch = _schema(func)
    n = len(args)
    out = {}
    for i, (name, default) in enumerate(sch):
        out[name] = args[i] if i < n else kwargs.get(name, default)
    return out


def _f32(t, what='input'):
    """A float32 tensor on the CPU (or a CUDA device, CUDA build), contiguous."""
    if t.dtype is _F32 and t.is_cpu and not t.is_sparse:
        return t.contiguous()   # the common case, in one test
    if t.dtype != _F32:
        raise _Refuse(f'{what} has dtype {t.dtype}; repdl.mode computes float32 only')
    if t.is_sparse:
        raise _Refuse(f'{what} is sparse')
    if t.device.type != 'cpu' and not (t.device.type == 'cuda' and _C_has('cuda_built')
                                       and _C.cuda_built):
        raise _Refuse(f'{what} is on {t.device} and repdl._C is the CPU build')
    return t.contiguous()


def _f32_ok(t, what='input'):
    """_f32's checks without its contiguous copy (for an operand read
    through its strides, or copied later)."""
    if not (t.dtype is _F32 and t.is_cpu and not t.is_sparse):
        _f32(t, what)


def _C_has(name):
    return hasattr(_C, name)


def _canon(y):
    """NaN outputs made canonical (0x7fc00000), in place.  The test is one
    read of y: a sum is NaN if any element is NaN (and, harmlessly, when
    infinities of both signs meet)."""
    if y.is_floating_point() and y.numel():
        s = float(y.sum())
        if s != s:
            y.masked_fill_(torch.isnan(y), _NAN)
    return y


def _is_float(t):
    return isinstance(t, torch.Tensor) and t.is_floating_point()


def _any_float(args, kwargs):
    """Whether a tensor argument (or one in a list argument) is floating point."""
    for a in args:
        if isinstance(a, torch.Tensor):
            if a.is_floating_point():
                return True
        elif isinstance(a, (list, tuple)) and any(_is_float(b) for b in a):
            return True
    if kwargs:
        return _any_float(tuple(kwargs.values()), None)
    return False


def _dims(dim, ndim):
    """Reduced dimensions, sorted, non-negative; None or [] is all of them."""
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return list(range(ndim))
    if isinstance(dim, int):
        dim = [dim]
    n = max(ndim, 1)
    for d in dim:
        _check_dim(d, n)
    out = sorted({d % n for d in dim})
    return [d for d in out if d < ndim] if ndim else []


def _check_dim(d, n):
    """PyTorch's error for a dimension out of range (its kernels check it
    after the dispatch, so the mode checks it here)."""
    if not -n <= d < n:
        raise IndexError(f'Dimension out of range (expected to be in range of [{-n}, {n - 1}], '
                         f'but got {d})')


# ---- Elementwise functions (repdl_<op>_array_f32) ----

_UNARY = set(getattr(_C, 'unary_ops', ()))


def _map(op, x):
    """repdl's forward of op: the unary binding (ops with a backward pass)
    or, where the extension has it, the map binding (erf, sin, cos, ...)."""
    x = _f32(x)
    if op in _UNARY:
        return _C.unary(op, x)
    if _C_has('map'):
        try:
            return _C.map(op, x)
        except RuntimeError as e:
            raise _Refuse(f'repdl._C has no {op}: {e}')
    raise _Refuse(f'repdl._C has no {op} binding yet')


def _h_unary(op):
    def h(func, a):
        return _map(op, a['self'])
    return h


def _h_gelu(func, a):
    ap = a.get('approximate', 'none')
    if ap not in ('none', 'tanh'):
        raise _Refuse(f'approximate={ap!r}')
    return _map('gelu' if ap == 'none' else 'gelu_tanh', a['self'])


def _h_softplus(func, a):
    if float(a['beta']) != 1.0 or float(a['threshold']) != 20.0:
        raise _Refuse('repdl softplus has beta 1 and threshold 20 only')
    return _map('softplus', a['self'])


def _bwd(op, x, y, g):
    return _C.unary_backward(op, x, y, _f32(g, 'grad_output'))


def _h_bwd_y(op):
    def h(func, a):
        y = _f32(a['output'], 'output')
        return _bwd(op, y, y, a['grad_output'])
    return h


def _h_bwd_x(op):
    def h(func, a):
        x = _f32(a['self'])
        return _bwd(op, x, x, a['grad_output'])
    return h


def _h_sigmoid_bwd(func, a):
    """aten gives the output y only (repdl_sigmoid_backward_f32 reads x):
    dx = RN(dy RN(y RN(1 - y))), one IEEE operation each."""
    y, g = _f32(a['output'], 'output'), _f32(a['grad_output'], 'grad_output')
    return _canon(torch.mul(g, torch.mul(y, torch.rsub(y, 1.0))))


def _h_gelu_bwd(func, a):
    ap = a.get('approximate', 'none')
    if ap not in ('none', 'tanh'):
        raise _Refuse(f'approximate={ap!r}')
    x = _f32(a['self'])
    return _bwd('gelu' if ap == 'none' else 'gelu_tanh', x, x, a['grad_output'])


def _h_softplus_bwd(func, a):
    if float(a['beta']) != 1.0 or float(a['threshold']) != 20.0:
        raise _Refuse('repdl softplus has beta 1 and threshold 20 only')
    x = _f32(a['self'])
    return _bwd('softplus', x, x, a['grad_output'])


def _mulx(x, y):
    return _canon(torch.mul(x, y))


def _h_pow(func, a):
    """x^k for an integer k: 0 -> 1, 1 -> x, k > 1 -> products left to
    right RN(RN(x x) x)..., k < 0 -> RN(1 / x^-k); k = 0.5 -> sqrt.
    Correctly rounded for k in -1..2 only; one answer everywhere."""
    x, e = a['self'], a['exponent']
    if isinstance(e, torch.Tensor):
        raise _Refuse('a tensor exponent')
    _f32(x)
    if float(e) == 0.5:
        return _map('sqrt', x)
    if float(e) != int(e) or abs(int(e)) > 64:
        raise _Refuse(f'exponent {e}: only integer exponents (|k| <= 64) and 0.5')
    k = int(e)
    if k == 0:
        return torch.ones_like(x)
    y = x.clone()
    for _ in range(abs(k) - 1):
        y = _mulx(y, x)
    return _canon(torch.reciprocal(y)) if k < 0 else y


# Exact per element: one IEEE rounding (or none) per element in PyTorch's
# kernels, vectorised or not; NaN outputs made canonical.
def _alpha(a):
    al = a.get('alpha', 1)
    return 1 if al is None else al


def _h_addsub(sub, rev=False, inplace=False):
    def h(func, a):
        x, o, al = a['self'], a['other'], _alpha(a)
        if rev:
            x, o = o, x
        if al != 1:
            o = torch.mul(o, al)          # RN(alpha * other): its own rounding
        if inplace:
            return _canon(x.sub_(o) if sub else x.add_(o))
        return _canon(torch.sub(x, o) if sub else torch.add(x, o))
    return h


def _h_exact(func, a, args, kwargs):
    return _canon(func(*args, **kwargs))



def _h_select(func, a, args, kwargs):
    """maximum, minimum, clamp, max, min, amax, amin: no rounding, but a NaN
    they return is not a copy of an operand everywhere (PyTorch's vector
    path writes 0xffffffff, its scalar path the operand's NaN, so the bits
    depend on an element's lane): PyTorch's value with NaNs made canonical
    (indices, for the forms that return them, untouched)."""
    r = func(*args, **kwargs)
    for t in (r if isinstance(r, (tuple, list)) else (r,)):
        if isinstance(t, torch.Tensor) and t.is_floating_point():
            _canon(t)
    return r


def _h_addcmul(inplace):
    def h(func, a):
        """RN(self + RN(RN(value * t1) * t2)), three roundings left to right."""
        t = torch.mul(a['tensor1'], a['value']) if a['value'] != 1 else a['tensor1']
        t = torch.mul(t, a['tensor2'])
        return _canon(a['self'].add_(t) if inplace else torch.add(a['self'], t))
    return h


def _h_addcdiv(inplace):
    def h(func, a):
        """RN(self + RN(value * RN(t1 / t2))), three roundings."""
        q = torch.div(a['tensor1'], a['tensor2'])
        if a['value'] != 1:
            q = q.mul_(a['value'])
        return _canon(a['self'].add_(q) if inplace else torch.add(a['self'], q))
    return h


def _h_rsqrt(func, a):
    """repdl_rsqrt_f32 (the map binding); a CPU build without it:
    RN(1 / repdl_sqrt(x)).  On a CUDA tensor the map binding has no CUDA
    form: refused (the fallback would give other bits than the CPU)."""
    x = _f32(a['self'])
    if x.device.type != 'cpu':
        return _map('rsqrt', x)
    if _C_has('map'):
        try:
            return _C.map('rsqrt', x)
        except RuntimeError:
            pass
    return _canon(torch.reciprocal(_map('sqrt', x)))


# ---- Reductions ----

def _col_sum_batch(x2):
    """Column sums of x2 [M, N] over M in the batch order (micro-batches of
    16 rows, buddy tree): repdl_linear_backward_f32's db."""
    M, N = x2.shape
    e = x2.new_empty((M, 0))
    return _C.linear_backward(e, x2.new_empty((N, 0)), x2, False, False, True)[2]


def _reduce(kind, x, dim, keepdim, ddof=0):
    """repdl's reduction over dims: the reduced dimensions, in increasing
    order, flattened row-major, then repdl_<kind>_rows_f32 (canonical
    order); a sum over exactly dimension 0 of a tensor of 2 or more
    dimensions (the batch dimension: autograd's bias gradients) in the batch
    order."""
    x = _f32(x)
    nd = x.dim()
    ds = _dims(dim, nd)
    keep = [d for d in range(nd) if d not in ds]
    out_shape = [1 if (d in ds) else s for d, s in enumerate(x.shape)] if keepdim \
        else [x.shape[d] for d in keep]
    n = 1
    for d in ds:
        n *= x.shape[d]
    rows = 1
    for d in keep:
        rows *= x.shape[d]
    if kind == 'sum' and nd >= 2 and ds == [0]:
        db = _db_take(x) if nd == 2 else None
        if db is None:
            db = _col_sum_batch(x.reshape(x.shape[0], rows))
        return db.reshape(out_shape)
    xm = x.permute(keep + ds).contiguous().reshape(rows, n)
    return _C.reduce_rows(kind, rows, n, ddof, xm).reshape(out_shape)


def _no_dtype(a):
    if a.get('dtype') is not None and a['dtype'] != _F32:
        raise _Refuse(f'dtype={a["dtype"]}')


def _h_sum(func, a):
    _no_dtype(a)
    return _reduce('sum', a['self'], a.get('dim'), a.get('keepdim', False))


def _h_mean(func, a):
    _no_dtype(a)
    return _reduce('mean', a['self'], a.get('dim'), a.get('keepdim', False))


def _ddof(a):
    if 'correction' in a:
        c = a['correction']
        return 1 if c is None else int(c)
    return 1 if a.get('unbiased', True) else 0


def _h_var(func, a):
    return _reduce('var', a['self'], a.get('dim'), a.get('keepdim', False), _ddof(a))


def _h_std(func, a):
    return _map('sqrt', _reduce('var', a['self'], a.get('dim'), a.get('keepdim', False), _ddof(a)))


def _h_norm(func, a):
    p = a.get('ord', a.get('p', 2))
    if p is None:
        p = 2
    if float(p) != 2.0:
        raise _Refuse(f'norm of order {p}: repdl has the 2-norm only')
    _no_dtype(a)
    return _reduce('norm', a['self'], a.get('dim'), a.get('keepdim', False))


# ---- Matrix products ----

def _gemm(A, B, bias=None):
    """repdl_gemm_f32 of A [M, K] and B [K, N] (each C[i][j] one fma chain
    over k ascending); a transposed operand is read as such, not copied."""
    M, K = A.shape
    N = B.shape[1]
    ta = not A.is_contiguous() and A.t().is_contiguous()
    tb = not B.is_contiguous() and B.t().is_contiguous()
    a = _f32(A.t() if ta else A, 'mat1')
    b = _f32(B.t() if tb else B, 'mat2')
    return _C.gemm(ta, tb, M, N, K, a, b, None if bias is None else _f32(bias, 'bias'))


# The column sums over the batch of the last weight gradient's P (_mm),
# computed in the same repdl_linear_backward_f32 call as its dW: autograd's
# addmm backward asks for mm(P^T, X) and then sum(P, [0]) of the same P.
# [P, P.data_ptr(), P._version, db] or None.  Holding P keeps its memory
# from being reused; an in-place write to P (or any view of it) bumps the
# version that views share (inference tensors have none: not cached).
# One entry: taken by the first sum that matches, cleared when the mode
# block exits.
_DB = [None]


def _db_take(x):
    """The cached column sums of x [M, N] when x is the cached P, same
    address, strides and version (then the cache is emptied); else None."""
    c = _DB[0]
    if c is None:
        return None
    P = c[0]
    if (x.data_ptr() != c[1] or x.is_inference() or x._version != c[2] or x.shape != P.shape
            or x.stride() != P.stride() or not x.is_contiguous()):
        return None
    _DB[0] = None
    return c[3]


def _mm(A, B):
    """A B.  A column-major (strides (1, rows): A = X^T, X row-major, the
    weight gradient X^T G that autograd builds for a linear layer, also
    when X has one column) with an inner dimension above 1 reduces over
    it, the batch, in the batch order (repdl_linear_backward_f32's dW);
    every other product is repdl_gemm_f32."""
    _f32_ok(A, 'mat1'), _f32_ok(B, 'mat2')
    if A.dim() != 2 or B.dim() != 2 or A.shape[1] != B.shape[0]:
        raise RuntimeError(f'mat1 and mat2 shapes cannot be multiplied ({A.shape[0]}x{A.shape[1]} '
                           f'and {B.shape[0]}x{B.shape[1]})')
    if A.shape[1] > 1 and A.stride(0) == 1 and A.stride(1) == A.shape[0]:
        # A = P^T, P [batch x rows] row-major: (A B)[r][c] is dW[r][c] of
        # linear_backward with dy = P, x = B (products commute), written
        # row-major (no transposed result for autograd to copy); the
        # column sums of P (db) in the same call, for the sum(P, [0])
        # that follows (_DB)
        # (W [rows, 0]: only its row count is read when dx is not asked
        # for; a full-size placeholder would cost an allocation that glibc
        # gives back and re-faults every step)
        P = A.t()
        X = _f32(B, 'mat2')
        W = P.new_empty((P.shape[1], 0))
        if P.is_inference():    # no version counter to key the sums by
            return _C.linear_backward(X, W, P, False, True, False)[1]
        _, dW, db = _C.linear_backward(X, W, P, False, True, True)
        _DB[0] = [P, P.data_ptr(), P._version, db]
        return dW
    return _gemm(A, B)


def _h_mm(func, a):
    return _mm(a['self'], a['mat2'])


def _h_addmm(func, a):
    """beta = alpha = 1.  A 1-D bias (or [1, N]) is the gemm's bias, as in
    repdl_linear_forward_f32; any other addend is added after the product
    (one rounding)."""
    if a['beta'] != 1 or a['alpha'] != 1:
        raise _Refuse('beta and alpha other than 1')
    c, A, B = a['self'], a['mat1'], a['mat2']
    N = B.shape[1]
    if c.dim() == 1 and c.shape[0] == N or c.dim() == 2 and c.shape[0] == 1 and c.shape[1] == N:
        return _gemm(A, B, c.reshape(N))
    return _canon(torch.add(_mm(A, B), c))


def _h_bmm(func, a):
    A, B = a['self'], a['mat2']
    _f32(A, 'self'), _f32(B, 'mat2')
    if A.shape[0] == 0:
        return A.new_empty((0, A.shape[1], B.shape[2]))
    return torch.stack([_gemm(A[i], B[i]) for i in range(A.shape[0])])


def _h_dot(func, a):
    return _C.dot(_f32(a['self']), _f32(a['tensor'], 'tensor'))


def _h_mv(func, a):
    return _gemm(a['self'], a['vec'].reshape(-1, 1)).reshape(-1)


# ---- Softmax ----

def _rows_last(x, dim):
    _check_dim(dim, max(x.dim(), 1))
    d = dim % max(x.dim(), 1)
    xm = x.movedim(d, -1).contiguous() if x.dim() else x.reshape(1)
    n = xm.shape[-1]
    return xm, d, n


def _h_softmax(logsm):
    def h(func, a):
        if a.get('half_to_float'):
            raise _Refuse('half_to_float')
        x = _f32(a['self'])
        xm, d, n = _rows_last(x, a['dim'])
        rows = xm.numel() // n if n else 0
        y = _C.softmax(rows, n, xm.reshape(rows, n), logsm)
        return y.reshape(xm.shape).movedim(-1, d) if x.dim() else y.reshape(())
    return h


def _h_softmax_bwd(logsm):
    def h(func, a):
        y, g = _f32(a['output'], 'output'), _f32(a['grad_output'], 'grad_output')
        ym, d, n = _rows_last(y, a['dim'])
        gm, _, _ = _rows_last(g, a['dim'])
        rows = ym.numel() // n if n else 0
        dx = _C.softmax_backward(rows, n, ym.reshape(rows, n), gm.reshape(rows, n), logsm)
        return dx.reshape(ym.shape).movedim(-1, d) if y.dim() else dx.reshape(())
    return h


# ---- Normalizations ----

def _h_layer_norm(func, a):
    x = _f32(a['input'])
    shape = list(a['normalized_shape'])
    cols = 1
    for s in shape:
        cols *= s
    rows = x.numel() // cols if cols else 0
    g = None if a['weight'] is None else _f32(a['weight'], 'weight').reshape(cols)
    b = None if a['bias'] is None else _f32(a['bias'], 'bias').reshape(cols)
    y, m, r = _C.layer_norm_forward(rows, cols, float(a['eps']), x, g, b)
    st = list(x.shape[:x.dim() - len(shape)]) + [1] * len(shape)
    return y.reshape(x.shape), m.reshape(st), r.reshape(st)


def _h_layer_norm_bwd(func, a):
    x, go = _f32(a['input']), _f32(a['grad_out'], 'grad_out')
    shape = list(a['normalized_shape'])
    cols = 1
    for s in shape:
        cols *= s
    rows = x.numel() // cols if cols else 0
    w = a['weight']
    g = None if w is None else _f32(w, 'weight').reshape(cols)
    mask = list(a['output_mask'])
    ng = bool(mask[1]) and w is not None
    nb = bool(mask[2]) and a['bias'] is not None
    dx, dg, db = _C.layer_norm_backward(rows, cols, x, g, _f32(a['mean'], 'mean').reshape(rows),
                                        _f32(a['rstd'], 'rstd').reshape(rows), go, ng, nb)
    return (dx.reshape(x.shape) if mask[0] else None,
            dg.reshape(w.shape) if ng else None,
            db.reshape(a['bias'].shape) if nb else None)


def _bn_dims(x):
    n, c = x.shape[0], x.shape[1]
    hw = x.numel() // (n * c) if n * c else 0
    return n, c, hw


def _h_batch_norm(func, a):
    x = _f32(a['input'])
    if x.dim() < 2:
        raise _Refuse('input of fewer than 2 dimensions')
    n, c, hw = _bn_dims(x)
    g = None if a['weight'] is None else _f32(a['weight'], 'weight')
    b = None if a['bias'] is None else _f32(a['bias'], 'bias')
    rm, rv = a['running_mean'], a['running_var']
    for t, nm in ((rm, 'running_mean'), (rv, 'running_var')):
        if t is not None and (t.dtype != _F32 or not t.is_contiguous()):
            raise _Refuse(f'{nm} must be contiguous float32 (updated in place)')
    if a['training']:
        if a['momentum'] is None:
            raise _Refuse('momentum=None (cumulative average)')
        y, sm, sr = _C.batch_norm_forward_train(n, c, hw, float(a['eps']), float(a['momentum']),
                                                x, g, b, rm, rv)
        return y.reshape(x.shape), sm, sr
    if rm is None or rv is None:
        raise _Refuse('evaluation mode without running statistics')
    y = _C.batch_norm_forward_infer(n, c, hw, float(a['eps']), x, g, b, rm, rv)
    return y.reshape(x.shape), x.new_empty((0,)), x.new_empty((0,))


def _h_batch_norm_bwd(func, a):
    """Training: repdl_batch_norm_backward_f32.  Evaluation (the statistics
    are constants), as repdl.ops.batch_norm: rstd as the forward's
    (repdl_batch_norm_forward_infer_f32 of x = 1, mean 0); dgamma, dbeta
    the training pass's batch-order sums with (running_mean, rstd);
    dx = RN(dy k), k = RN(gamma rstd) (rstd without gamma), per channel."""
    x, go = _f32(a['input']), _f32(a['grad_out'], 'grad_out')
    n, c, hw = _bn_dims(x)
    w = a['weight']
    g = None if w is None else _f32(w, 'weight')
    mask = list(a['output_mask'])
    ng = bool(mask[1]) and w is not None
    nb = bool(mask[2])
    if a['train']:
        dx, dg, db = _C.batch_norm_backward(n, c, hw, x, g, _f32(a['save_mean'], 'save_mean'),
                                            _f32(a['save_invstd'], 'save_invstd'), go, ng, nb)
        return (dx.reshape(x.shape) if mask[0] else None, dg if ng else None, db if nb else None)
    rm, rv = a['running_mean'], a['running_var']
    if rm is None or rv is None:
        raise _Refuse('evaluation mode without running statistics')
    rm, rv = _f32(rm, 'running_mean'), _f32(rv, 'running_var')
    rs = _C.batch_norm_forward_infer(1, c, 1, float(a['eps']), torch.ones_like(rv).reshape(1, c),
                                     None, None, torch.zeros_like(rm), rv).reshape(c)
    dg = db = None
    if ng or nb:
        _, dg, db = _C.batch_norm_backward(n, c, hw, x, g, rm, rs, go, ng, nb)
    dx = None
    if mask[0]:
        k = rs if g is None else _canon(torch.mul(g, rs))
        dx = _canon(torch.mul(go, k.reshape([1, c] + [1] * (x.dim() - 2))))
    return (dx, dg if ng else None, db if nb else None)


# ---- Convolution and pooling ----

def _conv_conf(a):
    if a['transposed']:
        raise _Refuse('transposed convolution')
    if a['groups'] != 1:
        raise _Refuse(f'groups={a["groups"]}')
    if len(a['stride']) != 2:
        raise _Refuse('only 2-D convolution (NCHW)')
    if any(a['output_padding']):
        raise _Refuse('output_padding')
    return list(a['stride']), list(a['padding']), list(a['dilation'])


def _conv_shapes(x, w, b, st, pad, dil):
    """PyTorch's errors for shapes its convolution kernel would refuse."""
    if w.dim() != 4 or x.shape[1] != w.shape[1]:
        raise RuntimeError(f'Given groups=1, weight of size {list(w.shape)}, expected input'
                           f'{list(x.shape)} to have {w.shape[1] if w.dim() > 1 else "?"} '
                           f'channels, but got {x.shape[1]} channels instead')
    if b is not None and (b.dim() != 1 or b.shape[0] != w.shape[0]):
        raise RuntimeError(f'Given weight of size {list(w.shape)}, expected bias to be 1-dimensional '
                           f'with {w.shape[0]} elements, but got bias of size {list(b.shape)} '
                           'instead')
    if min(st) < 1 or min(dil) < 1 or min(pad) < 0:
        raise RuntimeError('non-positive stride or dilation, or negative padding, is not supported')
    for i in range(2):
        if x.shape[2 + i] + 2 * pad[i] < dil[i] * (w.shape[2 + i] - 1) + 1:
            raise RuntimeError(f'Calculated padded input size per channel: '
                               f'({x.shape[2] + 2 * pad[0]} x {x.shape[3] + 2 * pad[1]}). Kernel '
                               f'size: ({w.shape[2]} x {w.shape[3]}). Kernel size can\'t be '
                               'greater than actual input size')


def _h_conv(func, a):
    st, pad, dil = _conv_conf(a)
    x, w = _f32(a['input']), _f32(a['weight'], 'weight')
    if x.dim() != 4:
        raise _Refuse('input must be 4-D (N, C, H, W)')
    _conv_shapes(x, w, a['bias'], st, pad, dil)
    b = None if a['bias'] is None else _f32(a['bias'], 'bias')
    return _C.conv2d_forward(x, w, b, st, pad, dil)


def _h_conv_bwd(func, a):
    st, pad, dil = _conv_conf(a)
    x, w = _f32(a['input']), _f32(a['weight'], 'weight')
    go = _f32(a['grad_output'], 'grad_output')
    if x.dim() != 4:
        raise _Refuse('input must be 4-D (N, C, H, W)')
    mask = list(a['output_mask'])
    nb = bool(mask[2]) and a['bias_sizes'] is not None
    dx, dw, db = _C.conv2d_backward(x, w, go, st, pad, dil, bool(mask[0]), bool(mask[1]), nb)
    return (dx if mask[0] else None, dw if mask[1] else None, db if nb else None)


def _pool_conf(a, name):
    if a.get('ceil_mode'):
        raise _Refuse('ceil_mode=True')
    if 'dilation' in a and list(a['dilation']) not in ([1, 1], [1]):
        raise _Refuse('dilation other than 1')
    if a.get('divisor_override') is not None:
        raise _Refuse('divisor_override')

    def pair(v):
        v = list(v)
        return [v[0], v[0]] if len(v) == 1 else v
    k = pair(a['kernel_size'])
    st = k if not a['stride'] else pair(a['stride'])
    pad = pair(a['padding'])
    return k, st, pad


def _4d(x):
    if x.dim() == 3:
        return x.unsqueeze(0), True
    if x.dim() != 4:
        raise _Refuse('input must be 3-D or 4-D')
    return x, False


def _pool_shapes(x, k, st, pad):
    """PyTorch's errors for windows its pooling kernels would refuse."""
    if min(k) < 1 or min(st) < 1:
        raise RuntimeError('kernel_size and stride must be greater than zero')
    if pad[0] > k[0] // 2 or pad[1] > k[1] // 2:
        raise RuntimeError('pad should be at most half of effective kernel size, but got '
                           f'pad={pad}, kernel_size={k} and dilation=1')
    for i in range(2):
        if x.shape[2 + i] + 2 * pad[i] < k[i]:
            raise RuntimeError(f'Given input size: ({x.shape[1]}x{x.shape[2]}x{x.shape[3]}). '
                               'Calculated output size is too small')


def _h_max_pool(func, a):
    k, st, pad = _pool_conf(a, 'max_pool2d')
    x, unb = _4d(_f32(a['self']))
    _pool_shapes(x, k, st, pad)
    y, idx = _C.max_pool2d_forward(x, k, st, pad)
    return (y.squeeze(0), idx.squeeze(0)) if unb else (y, idx)


def _h_max_pool_bwd(func, a):
    k, st, pad = _pool_conf(a, 'max_pool2d')
    x, unb = _4d(_f32(a['self']))
    g = _f32(a['grad_output'], 'grad_output')
    idx = a['indices'].contiguous()
    if unb:
        g, idx = g.unsqueeze(0), idx.unsqueeze(0)
    dx = _C.max_pool2d_backward(x, idx, g, k, st, pad)
    return dx.squeeze(0) if unb else dx


def _h_avg_pool(func, a):
    k, st, pad = _pool_conf(a, 'avg_pool2d')
    x, unb = _4d(_f32(a['self']))
    _pool_shapes(x, k, st, pad)
    y = _C.avg_pool2d_forward(x, k, st, pad, bool(a['count_include_pad']))
    return y.squeeze(0) if unb else y


def _h_avg_pool_bwd(func, a):
    k, st, pad = _pool_conf(a, 'avg_pool2d')
    x, unb = _4d(_f32(a['self']))
    g = _f32(a['grad_output'], 'grad_output')
    if unb:
        g = g.unsqueeze(0)
    dx = _C.avg_pool2d_backward(x, g, k, st, pad, bool(a['count_include_pad']))
    return dx.squeeze(0) if unb else dx


def _adaptive_k(x, out):
    H, W = x.shape[-2], x.shape[-1]
    oh, ow = list(out) if len(out) == 2 else [out[0], out[0]]
    if not oh or not ow or H % oh or W % ow:
        raise _Refuse(f'adaptive pooling from {H}x{W} to {oh}x{ow}: repdl pools windows of one '
                      'size only (output size dividing the input size)')
    return [H // oh, W // ow]


def _h_adaptive_avg(func, a):
    x, unb = _4d(_f32(a['self']))
    k = _adaptive_k(x, a['output_size'])
    y = _C.avg_pool2d_forward(x, k, k, [0, 0], True)
    return y.squeeze(0) if unb else y


def _h_adaptive_avg_bwd(func, a):
    x, unb = _4d(_f32(a['self']))
    g = _f32(a['grad_output'], 'grad_output')
    if unb:
        g = g.unsqueeze(0)
    k = [x.shape[-2] // g.shape[-2], x.shape[-1] // g.shape[-1]]
    dx = _C.avg_pool2d_backward(x, g, k, k, [0, 0], True)
    return dx.squeeze(0) if unb else dx


# ---- Losses ----

_RED = {1: 0, 2: 1}     # aten's Reduction (1 mean, 2 sum) -> repdl's (0 mean, 1 sum)


def _loss_args(a):
    """(x, target, kept rows or None): rows whose target is ignore_index
    count for nothing, as in repdl.ops.nll_loss (their gradient rows +0)."""
    if a['weight'] is not None:
        raise _Refuse('class weights')
    if a['reduction'] not in _RED:
        raise _Refuse("reduction='none'")
    x, t = _f32(a['self']), a['target']
    if x.dim() != 2 or t.dim() != 1:
        raise _Refuse('input [N, C] and target [N] only')
    t = t.contiguous()
    if t.shape[0] != x.shape[0]:
        raise ValueError(f'Expected input batch_size ({x.shape[0]}) to match target batch_size '
                         f'({t.shape[0]}).')
    keep, lo, hi = ops._ignored_rows(t, a['ignore_index'])
    if lo is not None and (lo < 0 or hi >= x.shape[1]):
        raise IndexError(f'Target {hi if hi >= x.shape[1] else lo} is out of bounds.')
    return x, t, keep


def _kept(x, t, keep):
    if keep is None:
        return x, t
    return x.index_select(0, keep).contiguous(), t.index_select(0, keep).contiguous()


def _h_nll(func, a):
    x, t, keep = _loss_args(a)
    xk, tk = _kept(x, t, keep)
    loss = _C.loss(False, _RED[a['reduction']], xk, tk, False, 0)[0]
    return loss, x.new_full((), float(tk.shape[0]))


def _h_nll_bwd(func, a):
    x, t, keep = _loss_args(a)
    xk, tk = _kept(x, t, keep)
    gk = _C.loss(False, _RED[a['reduction']], xk, tk, True, 0)[1]
    if keep is None:
        grad = gk
    else:
        grad = torch.zeros_like(x)
        grad.index_copy_(0, keep, gk)
    return _C.scale(float(a['grad_output'].item()), grad)


# ---- Embedding ----

def _h_embedding_bwd(func, a):
    """repdl_embedding_backward_f32 (docs/nn.md: each row's gradient the
    canonical sum of the rows that hit it); the padding row +0."""
    if a['scale_grad_by_freq']:
        raise _Refuse('scale_grad_by_freq')
    if not _C_has('embedding_backward'):
        raise _Refuse('this repdl._C has no embedding_backward (rebuild: scripts/python.sh build)')
    g = _f32(a['grad_output'], 'grad_output')
    ids = a['indices'].reshape(-1).to(torch.int64).contiguous()
    dw = _C.embedding_backward(g.reshape(ids.numel(), g.shape[-1]), ids, int(a['num_weights']))
    p = a['padding_idx']
    if p is not None and p >= 0:
        dw[p] = 0.0
    return dw


# ---- Dropout's mask ----

def _h_bernoulli_(func, a):
    """self.bernoulli_(q) with a float q, as PyTorch's CPU dropout draws its
    mask (then divides by q and multiplies): element j is 1 iff
    repdl_dropout_forward_f32 with p = RN32(1 - q) keeps it (Philox uniform j
    of the next slot of repdl.random.default_generator >= p), else 0: the
    mask of repdl.ops.dropout at that slot.  A torch.Generator is refused."""
    from . import random as _random
    if a.get('generator') is not None:
        raise _Refuse('a torch.Generator: the mask comes from repdl.random.default_generator')
    t = a['self']
    if not isinstance(a['p'], (int, float)):
        raise _Refuse('a tensor of probabilities')
    _f32(t, 'self')
    gen = _random.default_generator
    seed, offset = gen.seed(), gen.next_offset()
    _, keep = _C.dropout_forward(1.0 - float(a['p']), seed, offset, torch.ones_like(t))
    return t.copy_(keep)


# ---- Data movement with a variant that adds ----

def _h_index_put(func, a, args, kwargs):
    """index_put without accumulate writes values (passes); with accumulate
    it adds in PyTorch's order (refused)."""
    if a.get('accumulate'):
        raise _Refuse('accumulate=True adds into the tensor in an order repdl does not define')
    return func(*args, **kwargs)


def _h_scatter(func, a, args, kwargs):
    """scatter writes values (passes); with reduce= it combines them
    (refused)."""
    if a.get('reduce') is not None:
        raise _Refuse(f'reduce={a["reduce"]!r} combines values in an order repdl does not define')
    return func(*args, **kwargs)


# ---- The lists ----

def _inplace(h):
    """The in-place form: the out-of-place value copied into self."""
    def hi(func, a, args, kwargs):
        y = h(func, a, args, kwargs)
        return y if y is a['self'] else a['self'].copy_(y)
    return hi


def _plain(h):
    return lambda func, a, args, kwargs: h(func, a)


_H = {}


def _reg(names, h, raw=False, inplace=True):
    hh = h if raw else _plain(h)
    hh.raw = raw
    for n in names.split():
        _H[n] = hh
        if inplace and n + '_' not in _H:
            _H[n + '_'] = _inplace(hh)
            _H[n + '_'].exact = h is _h_exact
    hh.exact = h is _h_exact


for _op in ('exp log tanh sigmoid sqrt erf sin cos expm1 log1p exp2 log2 relu silu').split():
    _reg(_op, _h_unary(_op))
_reg('rsqrt', _h_rsqrt)
_reg('gelu', _h_gelu, inplace=False)
_reg('softplus', _h_softplus, inplace=False)
_reg('tanh_backward', _h_bwd_y('tanh'), inplace=False)
_reg('sigmoid_backward', _h_sigmoid_bwd, inplace=False)
_reg('gelu_backward', _h_gelu_bwd, inplace=False)
_reg('silu_backward', _h_bwd_x('silu'), inplace=False)
_reg('softplus_backward', _h_softplus_bwd, inplace=False)
_reg('pow', _h_pow)
_reg('add_', _h_addsub(False, inplace=True), inplace=False)
_reg('sub_', _h_addsub(True, inplace=True), inplace=False)
_reg('add', _h_addsub(False))
_reg('sub', _h_addsub(True))
_reg('rsub', _h_addsub(True, rev=True), inplace=False)
_reg('mul div neg abs reciprocal leaky_relu leaky_relu_backward ceil floor round trunc frac',
     _h_exact, raw=True)
_reg('maximum minimum clamp clamp_min clamp_max max min amax amin', _h_select, raw=True)
_reg('addcmul_', _h_addcmul(True), inplace=False)
_reg('addcdiv_', _h_addcdiv(True), inplace=False)
_reg('addcmul', _h_addcmul(False))
_reg('addcdiv', _h_addcdiv(False))
_reg('sum', _h_sum, inplace=False)
_reg('mean', _h_mean, inplace=False)
_reg('var', _h_var, inplace=False)
_reg('std', _h_std, inplace=False)
_reg('linalg_vector_norm norm', _h_norm, inplace=False)
_reg('mm', _h_mm, inplace=False)
_reg('addmm', _h_addmm)
_reg('bmm', _h_bmm, inplace=False)
_reg('dot', _h_dot, inplace=False)
_reg('mv', _h_mv, inplace=False)
_reg('_softmax', _h_softmax(False), inplace=False)
_reg('_log_softmax', _h_softmax(True), inplace=False)
_reg('_softmax_backward_data', _h_softmax_bwd(False), inplace=False)
_reg('_log_softmax_backward_data', _h_softmax_bwd(True), inplace=False)
_reg('native_layer_norm', _h_layer_norm, inplace=False)
_reg('native_layer_norm_backward', _h_layer_norm_bwd, inplace=False)
_reg('native_batch_norm', _h_batch_norm, inplace=False)
_reg('native_batch_norm_backward', _h_batch_norm_bwd, inplace=False)
_reg('convolution', _h_conv, inplace=False)
_reg('convolution_backward', _h_conv_bwd, inplace=False)
_reg('max_pool2d_with_indices', _h_max_pool, inplace=False)
_reg('max_pool2d_with_indices_backward', _h_max_pool_bwd, inplace=False)
_reg('avg_pool2d', _h_avg_pool, inplace=False)
_reg('avg_pool2d_backward', _h_avg_pool_bwd, inplace=False)
_reg('_adaptive_avg_pool2d', _h_adaptive_avg, inplace=False)
_reg('_adaptive_avg_pool2d_backward', _h_adaptive_avg_bwd, inplace=False)
_reg('nll_loss_forward', _h_nll, inplace=False)
_reg('nll_loss_backward', _h_nll_bwd, inplace=False)
_reg('embedding_dense_backward', _h_embedding_bwd, inplace=False)
_reg('index_put index_put_ _index_put_impl_', _h_index_put, raw=True, inplace=False)
_reg('scatter scatter_', _h_scatter, raw=True, inplace=False)
_reg('bernoulli_', _h_bernoulli_, inplace=False)

#: aten operations (overload packets) computed by repdl.
ROUTED = frozenset(_H)

#: aten operations that move, select or compare data, or make constants:
#: no rounding, any kernel gives the same bits.
PASSED = frozenset('''
view _unsafe_view reshape _reshape_alias t transpose permute expand expand_as detach alias
clone copy_ contiguous zero_ fill_ zeros ones full empty empty_like empty_strided zeros_like
ones_like full_like new_empty new_empty_strided new_zeros new_ones new_full scalar_tensor
lift_fresh lift_fresh_copy _local_scalar_dense as_strided slice select unsqueeze squeeze
split split_with_sizes chunk unbind narrow cat stack index_select gather index embedding
flip roll repeat diagonal tril triu constant_pad_nd select_backward slice_backward
eq ne lt le gt ge isnan isinf isfinite logical_not logical_and logical_or where masked_fill
threshold_backward argmax argmin
_to_copy to sign sgn one_hot masked_select nonzero unfold upsample_nearest2d upsample_nearest1d
'''.split())


def _packet_name(func):
    return func.overloadpacket.__name__


_HERE = os.path.dirname(os.path.abspath(__file__))
_TORCH = os.path.dirname(os.path.abspath(torch.__file__))


def _user_line():
    """file:line: code of the innermost frame outside torch and repdl."""
    for fr in reversed(traceback.extract_stack()):
        f = os.path.abspath(fr.filename)
        if not (f.startswith(_HERE) or f.startswith(_TORCH)):
            return f'{fr.filename}:{fr.lineno}: {(fr.line or "").strip()}'
    return '<unknown line>'


def _returns_tensor(func):
    """Whether the operation returns a tensor (is_same_size, sizes and the
    like return none: they compute nothing)."""
    return any('Tensor' in str(x.type) for x in func._schema.returns)


# What to use instead, for refusals that have an answer.
_HINTS = {
    'randn': 'use repdl.random.normal_, or initialise outside the block',
    'rand': 'use repdl.random.uniform_, or initialise outside the block',
    'normal_': 'use repdl.random.normal_, or initialise outside the block',
    'uniform_': 'use repdl.random.uniform_, or initialise outside the block',
    'bernoulli': 'use repdl.ops.dropout (F.dropout is routed under the mode)',
    'cross_entropy_loss': 'use F.cross_entropy with class indices',
    'mse_loss': 'write it as ((x - y) ** 2).mean()',
    'lerp_': 'use repdl.optim',
}


def _hint(name):
    if name.startswith('_foreach_'):
        return '; use the optimizer with foreach=False, or repdl.optim'
    h = _HINTS.get(name)
    return f'; {h}' if h else ''

_TENSOR_STR = os.path.join(_TORCH, '_tensor_str.py')


def _in_tensor_str():
    """Whether PyTorch is formatting a tensor for print or repr (its
    operations only choose how digits are shown, they produce no values the
    program uses): these pass."""
    f = sys._getframe(2)
    while f is not None:
        if f.f_code.co_filename == _TENSOR_STR:
            return True
        f = f.f_back
    return False



def _out_form(h, func, outs, args, kwargs):
    """An out= form (torch.exp(x, out=y)): the handler's value written into
    the one output tensor, resized as PyTorch does; several outputs are
    refused."""
    if getattr(h, 'raw', False):
        return h(func, _bind(func, args, kwargs), args, kwargs)   # writes out itself
    if len(outs) != 1:
        raise _Refuse('an out= form with several outputs')
    a = _bind(func, args, kwargs)
    out = a.pop(outs[0])
    y = h(func, a, (), {})
    if not isinstance(y, torch.Tensor):
        raise _Refuse('an out= form')
    if out.dtype != y.dtype:
        raise _Refuse(f'out has dtype {out.dtype}, the result {y.dtype}')
    out.resize_(y.shape)
    return out.copy_(y)


# Per operation overload (keyed by id(func); the record keeps func alive,
# so the id is never reused), decided once: the record
# (kind, run, name, func): kind _PASS (always passes: PASSED, or no tensor
# returned and no handler), _ROUTE (a handler: run(func, args, kwargs)
# computes it) or _OTHER (refused unless every argument is integer or
# boolean).
_PASS, _ROUTE, _OTHER = 0, 1, 2
_REC = {}


def _runner(func, h):
    """run(func, args, kwargs) for handler h: binds the arguments by the
    schema (read once) and calls h; out= forms through _out_form."""
    outs = [x.name for x in func._schema.arguments if x.is_out]
    if outs:
        return lambda f, args, kwargs: _out_form(h, f, outs, args, kwargs)
    if h.exact:
        return _run_div if func.overloadpacket.__name__ in ('div', 'div_') else _run_exact
    sch = _schema(func)
    return lambda f, args, kwargs: h(f, _bind(f, args, kwargs, sch), args, kwargs)


def _run_exact(func, args, kwargs):
    """One IEEE rounding per element (_h_exact), in place or not: PyTorch's
    value (self, for an in-place form) with NaNs made canonical."""
    return _canon(func(*args, **kwargs))


def _run_div(func, args, kwargs):
    """div, div_: as _run_exact, except that on a CUDA tensor a divisor that
    is a number or a CPU scalar tensor goes to the device as a 0-dim tensor
    (float64 for a float64 dividend, else float32, the precision PyTorch's
    CPU kernel divides in): PyTorch's CUDA kernel multiplies by the
    divisor's reciprocal when it is a CPU scalar (two roundings), and
    divides (one rounding) when it is a device tensor."""
    if len(args) >= 2 and isinstance(args[0], torch.Tensor) and args[0].device.type == 'cuda':
        b = args[1]
        if not isinstance(b, torch.Tensor) or (b.device.type == 'cpu' and b.dim() == 0):
            if args[0].dtype in (torch.float16, torch.bfloat16):
                # a 0-dim device tensor would be rounded to the 16-bit type
                raise _Refuse(f'a {args[0].dtype} CUDA tensor divided by a number (PyTorch\'s '
                              'CUDA kernel multiplies by its reciprocal)')
            dt = torch.float64 if args[0].dtype == torch.float64 else _F32
            if isinstance(b, torch.Tensor) and not b.is_floating_point():
                b = b.item()
            b = torch.as_tensor(b, dtype=dt).to(args[0].device) if isinstance(b, torch.Tensor) \
                else torch.tensor(b, dtype=dt, device=args[0].device)
            args = (args[0], b) + tuple(args[2:])
    return _canon(func(*args, **kwargs))


def _record(func):
    name = _packet_name(func)
    h = _H.get(name)
    if h is None:
        kind = _PASS if (name in PASSED or not _returns_tensor(func)) else _OTHER
        rec = (kind, None, name, func)
    else:
        rec = (_ROUTE, _runner(func, h), name, func)
    _REC[id(func)] = rec
    return rec


def _float_out(r):
    if isinstance(r, (list, tuple)):
        return any(_float_out(x) for x in r)
    return _is_float(r)


# ---- torch.optim.AdamW(foreach=False): one kernel call a step ----
#
# torch 1.13's torch.optim.adamw._single_tensor_adamw issues about ten aten
# operations a parameter (mul_, add_ with alpha, addcmul_, sqrt, div,
# add_, addcdiv_, ...), each a trip through PyTorch's dispatcher into
# mode.__torch_dispatch__.  Inside a repdl.mode block, _adamw_single
# computes the float32 CPU parameters' statements as the handlers do, in
# one pass over each parameter's elements (repdl._C.adamw_torch,
# csrc/adamw_torch.h, which says why the bits are the same), and
# any other parameter's statements by handing each aten operation to the
# mode's __torch_dispatch__ directly (the mode popped, as PyTorch's
# dispatcher does around it: the same operations, arguments and order).
# Outside a block (this thread's top dispatch mode not a repdl.mode), with
# capturable=True or complex parameters, it is PyTorch's function.
# Installed into torch.optim.adamw by the first mode.__enter__, and only
# where the function has the signature below (another torch: each
# operation dispatched).
_ADAMW_ARGS = ('params', 'grads', 'exp_avgs', 'exp_avg_sqs', 'max_exp_avg_sqs', 'state_steps',
               'amsgrad', 'beta1', 'beta2', 'lr', 'weight_decay', 'eps', 'maximize', 'capturable')
try:
    import torch.optim.adamw as _adamw_mod
    from torch.utils._python_dispatch import _pop_mode_temporarily
    from torch._C import _len_torch_dispatch_stack, _get_dispatch_stack_at
    _ADAMW_TORCH = _adamw_mod._single_tensor_adamw
    import inspect as _inspect
    if tuple(_inspect.signature(_ADAMW_TORCH).parameters) != _ADAMW_ARGS:
        _ADAMW_TORCH = None
except (ImportError, AttributeError, TypeError, ValueError):
    _ADAMW_TORCH = None

#: Whether torch.optim.AdamW(foreach=False) runs as one call under the mode
#: (False: each aten operation through PyTorch's dispatcher; the same bits).
ADAMW_ONE_CALL = _ADAMW_TORCH is not None


def _top_mode():
    """This thread's innermost dispatch mode if it is a repdl.mode, else None."""
    n = _len_torch_dispatch_stack()
    if n:
        m = _get_dispatch_stack_at(n - 1)
        if isinstance(m, mode):
            return m
    return None


def _adamw_single(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *,
                  amsgrad, beta1, beta2, lr, weight_decay, eps, maximize, capturable):
    """torch 1.13's _single_tensor_adamw under the mode: one repdl._C
    adamw_torch call for the float32 CPU parameters of each step value
    (_adamw_fast_ok), the routed operations one by one otherwise."""
    m = _top_mode() if ADAMW_ONE_CALL else None
    if m is None or capturable or any(torch.is_complex(p) for p in params):
        return _ADAMW_TORCH(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                            amsgrad=amsgrad, beta1=beta1, beta2=beta2, lr=lr,
                            weight_decay=weight_decay, eps=eps, maximize=maximize,
                            capturable=capturable)

    def op(func, *args, **kwargs):
        return m.__torch_dispatch__(func, (), args, kwargs)
    with _pop_mode_temporarily():
        fast = {}       # step -> ([param], [grad], [exp_avg], [exp_avg_sq], [mx])
        for i, param in enumerate(params):
            grad = grads[i] if not maximize else op(aten.neg.default, grads[i])
            exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]
            if step_t.dtype == _F32 and step_t.device.type == 'cpu' and step_t.dim() == 0:
                # the handlers' work for `step_t += 1` (add_ with alpha 1:
                # add_, then NaNs canonical) and .item() (passes)
                step = step_t.add_(1).item()
                if step != step:
                    step_t.fill_(_NAN)
            else:
                op(aten.add_.Tensor, step_t, 1)
                step = op(aten._local_scalar_dense.default, step_t)
            mx = max_exp_avg_sqs[i] if amsgrad else None
            if _adamw_fast_ok(param, grad, exp_avg, exp_avg_sq, mx):
                cols = fast.get(step)
                if cols is None:
                    cols = fast[step] = ([], [], [], [], [])
                for c, t in zip(cols, (param, grad, exp_avg, exp_avg_sq, mx)):
                    if t is not None:
                        c.append(t)
                continue
            # each statement of torch's loop through the mode's handlers
            op(aten.mul_.Tensor, param, 1 - lr * weight_decay)
            op(aten.add_.Tensor, op(aten.mul_.Tensor, exp_avg, beta1), grad, alpha=1 - beta1)
            op(aten.addcmul_.default, op(aten.mul_.Tensor, exp_avg_sq, beta2), grad, grad,
               value=1 - beta2)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = math.sqrt(bias_correction2)
            if amsgrad:
                op(aten.maximum.out, mx, exp_avg_sq, out=mx)
            denom = op(aten.add_.Tensor, op(aten.div.Tensor, op(aten.sqrt.default,
                                                                mx if amsgrad else exp_avg_sq),
                                            bias_correction2_sqrt), eps)
            op(aten.addcdiv_.default, param, exp_avg, denom, value=-step_size)
        for step, cols in fast.items():
            _adamw_fused(cols, step, beta1, beta2, lr, weight_decay, eps)
    _use_stack()    # torch's _push_mode put its own object back


def _adamw_fused(cols, step, beta1, beta2, lr, weight_decay, eps):
    """The statements above for the float32 CPU parameters of one step
    value, as one pass over each parameter's elements (repdl._C
    adamw_torch, csrc/adamw_torch.h, which says why the bits are those of
    the statements routed one by one).  The Python numbers are computed
    here as torch's loop computes them (in doubles, in its order); the
    kernel rounds each to binary32 once, as PyTorch does with a number
    operand of a float32 tensor operation."""
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = math.sqrt(bias_correction2)
    _adamw_kernel(cols[0], cols[1], cols[2], cols[3], cols[4], 1 - lr * weight_decay, beta1,
                  1 - beta1, beta2, 1 - beta2, bias_correction2_sqrt, eps, -step_size)


# repdl._C's kernel of the statements: CPU tensors only (_adamw_fast_ok), so
# the function itself, not the CUDA build's dispatching name
_adamw_kernel = getattr(_device._ext, 'adamw_torch', None)


def _adamw_fast_ok(param, *ts):
    """Whether adamw_torch applies: float32 CPU contiguous tensors of
    param's shape (mx None without amsgrad), no two of them the same
    memory (e.g. a gradient that is the parameter itself: the statements
    then read each other's writes)."""
    if (_adamw_kernel is None or param.dtype != _F32 or param.device.type != 'cpu'
            or not param.is_contiguous()):
        return False
    shape = param.shape
    ptrs = {param.data_ptr()}
    n = 1
    for t in ts:
        if t is not None:
            if (t.dtype != _F32 or t.device.type != 'cpu' or not t.is_contiguous()
                    or t.shape != shape):
                return False
            ptrs.add(t.data_ptr())
            n += 1
    return len(ptrs) == n or not param.numel()


# ---- The dispatch stack ----
#
# torch 1.13 sends every operation to one object at the C++ level,
# torch.utils._python_dispatch._TorchDispatchStackMode, whose
# __torch_dispatch__ pops the innermost Python mode, calls that mode's
# __torch_dispatch__ and pushes it back (through a generator context
# manager, with a new stack-mode object each time the stack was emptied:
# a few microseconds an operation, more than a quarter of repdl.mode's
# Python cost).  _Stack does the same steps, in the same order, directly.
# mode.__enter__ makes it that object when the repdl.mode it pushed is the
# only mode on the stack (_use_stack); a mode pushed later on top finds
# the C++-level object set and leaves it (torch's _push_mode), and _Stack
# serves a deeper stack as PyTorch's does; when the stack empties
# (mode.__exit__, torch's _pop_mode) the object is cleared.  Where torch
# does not have these private functions, PyTorch's object stays.
try:
    _stack_pop = torch._C._pop_torch_dispatch_stack
    _stack_push = torch._C._push_on_torch_dispatch_stack
    _stack_set = torch._C._set_torch_dispatch_mode
    _stack_len = torch._C._len_torch_dispatch_stack
    _stack_at = torch._C._get_dispatch_stack_at
    _STACK_OK = True
except AttributeError:
    _STACK_OK = False


class _Stack:
    """The C++-level dispatch object: the innermost mode, popped for its
    __torch_dispatch__ (the object set for the modes below it, cleared
    while the stack is empty), then pushed back."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        old = _stack_pop()
        # PyTorch clears the C++-level object around this call: set it
        # again for the modes below (their operations), as torch does
        _stack_set(self if _stack_len() else None)
        try:
            if type(old) is mode:
                # mode.__torch_dispatch__'s first branch, inline: an
                # operation that passes (detach, t, view: about half of a
                # training step's operations) costs one Python call less
                rec = _REC.get(id(func))
                if rec is not None and rec[0] == _PASS:
                    return func(*args, **(kwargs or {}))
            return old.__torch_dispatch__(func, types, args, kwargs)
        finally:
            if not _stack_len():    # as torch's _push_mode (PyTorch restores it too)
                _stack_set(self)
            _stack_push(old)


_STACK = _Stack()


def _use_stack():
    """_Stack as the C++-level object when this thread's dispatch stack is
    one repdl.mode."""
    if (_STACK_OK and _stack_len() == 1
            and isinstance(_stack_at(0), mode)):
        _stack_set(_STACK)


def _install_adamw():
    if ADAMW_ONE_CALL and _adamw_mod._single_tensor_adamw is _ADAMW_TORCH:
        _adamw_mod._single_tensor_adamw = _adamw_single


class mode(TorchDispatchMode):
    """with repdl.mode(): every floating-point aten operation, forward and
    backward, is computed by repdl (ROUTED), passes (PASSED: data movement,
    selection, comparisons, constants) or is refused.

    strict=True (the default): a floating-point operation that repdl does
    not compute raises UnsupportedOperationError naming the aten operation
    and the Python line that called it (for backward operations: the line
    that called .backward()).  strict=False: PyTorch computes it, and it is
    recorded in .outside (name -> [count, first line, reason]) and listed
    on stderr when the block exits.

    float32 tensors only (others are refused), on the CPU (CUDA tensors with
    the CUDA build of repdl._C).  Not re-entrant across threads: the mode
    applies to the thread that entered it (and autograd's CPU backward,
    which runs on that thread)."""

    def __init__(self, strict=True):
        super().__init__()
        self.strict = bool(strict)
        self.outside = collections.OrderedDict()

    def __enter__(self):
        _install_adamw()
        r = super().__enter__()
        _use_stack()
        return r

    def __exit__(self, *exc):
        _DB[0] = None
        r = super().__exit__(*exc)
        if not self.strict and self.outside:
            print('repdl.mode: operations computed outside repdl (not reproducible):',
                  file=sys.stderr)
            for name, (n, line, why) in self.outside.items():
                print(f'  {name} x{n} ({why}); first at {line}', file=sys.stderr)
        return r

    def _outside(self, func, why):
        """Strict: raise.  Permissive: record (PyTorch computes it)."""
        name = f'aten.{_packet_name(func)}'
        if self.strict:
            raise UnsupportedOperationError(
                f'repdl.mode: {name} ({func}) is not computed by repdl: {why}; called from '
                f'{_user_line()} (strict mode; repdl.mode(strict=False) runs it with PyTorch '
                'and lists it)')
        rec = self.outside.get(name)
        if rec is None:
            self.outside[name] = [1, _user_line(), why]
        else:
            rec[0] += 1

    def _route(self, rec, func, args, kwargs):
        """A routed operation: its handler's value, or (a configuration the
        handler refuses) the refusal."""
        try:
            return rec[1](func, args, kwargs)
        except _Refuse as e:
            self._outside(func, str(e))
            return func(*args, **kwargs)
        except NotImplementedError as e:
            # repdl._device: a repdl._C function with no CUDA form, called
            # on CUDA tensors (the CUDA build)
            if 'has no CUDA implementation' not in str(e):
                raise
            self._outside(func, str(e))
            return func(*args, **kwargs)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        rec = _REC.get(id(func)) or _record(func)
        kind = rec[0]
        if kind == _PASS:
            return func(*args, **(kwargs or {}))
        kwargs = kwargs or {}
        if kind == _ROUTE:
            if _any_float(args, kwargs):
                return self._route(rec, func, args, kwargs)
            return func(*args, **kwargs)
        if not _any_float(args, kwargs):
            r = func(*args, **kwargs)
            if _float_out(r):
                self._outside(func, 'it makes floating-point values (a random or computed '
                                    'factory)' + _hint(rec[2]))
            return r
        if _in_tensor_str():
            return func(*args, **kwargs)
        self._outside(func, 'repdl has no implementation of it' + _hint(rec[2]))
        return func(*args, **kwargs)


mode.ROUTED = ROUTED
mode.PASSED = PASSED
