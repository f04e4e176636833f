# SPDX-License-Identifier: MIT
"""repdl.optim.clip_grad_norm_ (repdl_clip_grad_norm_f32 through repdl._C)
against the C library reached by ctypes (librepdl.so): the same norm and
the same clipped gradients, bit for bit, in list order; its bad input
(docs/python.md)."""
import ctypes
import math

import numpy as np
import pytest
import torch

import repdl

SZ, F, VP = ctypes.c_size_t, ctypes.c_float, ctypes.c_void_p


def c_clip(clib, grads, max_norm, eps):
    """repdl_clip_grad_norm_f32 of the C library on copies: (norm bits,
    clipped arrays)."""
    fn = clib.l.repdl_clip_grad_norm_f32
    fn.restype = ctypes.c_int
    fn.argtypes = [SZ, VP, F, F, VP, VP]
    arrs = [np.ascontiguousarray(g.numpy().reshape(-1), dtype=np.float32).copy() for g in grads]
    sizes = (SZ * max(len(arrs), 1))(*[a.size for a in arrs])
    ptrs = (VP * max(len(arrs), 1))(*[a.ctypes.data_as(VP) for a in arrs])
    norm = F(0.0)
    clib.ok(fn(len(arrs), sizes, max_norm, eps, ptrs, ctypes.byref(norm)),
            'repdl_clip_grad_norm_f32')
    return np.array([norm.value], dtype=np.float32).view(np.uint32)[0], arrs


def bits(t):
    return t.detach().contiguous().numpy().view(np.uint32)


def params_with(grads):
    ps = []
    for g in grads:
        p = torch.zeros(g.shape, requires_grad=True)
        p.grad = g.clone()
        ps.append(p)
    return ps


def grads_of(sizes, seed, scale):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(n, generator=g) * scale).to(torch.float32) for n in sizes]


@pytest.mark.parametrize('sizes', [[5], [1023, 1, 1025], [3000, 0, 17, 4096, 2], [1] * 1030])
@pytest.mark.parametrize('max_norm', [1.0, 0.5, 1e30])
def test_norm_and_clipped_gradients_are_the_c_librarys(clib, sizes, max_norm):
    grads = grads_of(sizes, len(sizes) + sum(sizes), 1.5)
    want_norm, want = c_clip(clib, grads, max_norm, 1e-6)
    ps = params_with(grads)
    norm = repdl.optim.clip_grad_norm_(ps, max_norm)
    assert norm.dtype == torch.float32 and norm.dim() == 0
    assert bits(norm.reshape(1))[0] == want_norm
    for p, w in zip(ps, want):
        assert np.array_equal(bits(p.grad).reshape(-1), w.view(np.uint32))
    if max_norm == 1e30:  # nothing clipped: the gradients unchanged
        for p, g in zip(ps, grads):
            assert np.array_equal(bits(p.grad), bits(g))
    else:  # these gradients have norms above 0.5 and 1: clipped
        assert any(not np.array_equal(bits(p.grad), bits(g)) for p, g in zip(ps, grads))


def test_list_order_is_the_norms_order(clib):
    # the norm is defined in the order of `parameters`; a list of 1030
    # tensors spans two leaves of the tree over the per-tensor sums
    grads = grads_of([3] * 1030, 7, 1.0)
    for order in (grads, grads[::-1]):
        want_norm, _ = c_clip(clib, order, math.inf, 1e-6)
        norm = repdl.optim.clip_grad_norm_(params_with(order), math.inf)
        assert bits(norm.reshape(1))[0] == want_norm


def test_skips_parameters_without_gradient_and_takes_one_tensor(clib):
    g = grads_of([40, 9], 3, 2.0)
    ps = params_with(g)
    extra = torch.zeros(4, requires_grad=True)  # .grad None: left out
    want_norm, want = c_clip(clib, g, 1.0, 1e-6)
    norm = repdl.optim.clip_grad_norm_([ps[0], extra, ps[1]], 1.0)
    assert bits(norm.reshape(1))[0] == want_norm and extra.grad is None
    for p, w in zip(ps, want):
        assert np.array_equal(bits(p.grad).reshape(-1), w.view(np.uint32))
    one = params_with(g[:1])[0]
    want_norm, want = c_clip(clib, g[:1], 1.0, 1e-6)
    assert bits(repdl.optim.clip_grad_norm_(one, 1.0).reshape(1))[0] == want_norm
    assert np.array_equal(bits(one.grad), want[0].view(np.uint32))


def test_empty_list_is_minus_zero():
    assert bits(repdl.optim.clip_grad_norm_([], 1.0).reshape(1))[0] == 0x80000000


def test_nonfinite_norm_leaves_the_gradients():
    for bad in (float('nan'), float('inf')):
        g = torch.tensor([1.0, bad, 3.0])
        p = params_with([g])[0]
        before = bits(p.grad).copy()
        norm = float(repdl.optim.clip_grad_norm_([p], 0.1))
        assert not math.isfinite(norm)
        assert np.array_equal(bits(p.grad), before)
        with pytest.raises(RuntimeError, match='non-finite'):
            repdl.optim.clip_grad_norm_([p], 0.1, error_if_nonfinite=True)
        assert np.array_equal(bits(p.grad), before)


def test_bad_input_writes_nothing():
    p = params_with([torch.full((8,), 5.0)])[0]
    before = bits(p.grad).copy()
    with pytest.raises(NotImplementedError, match='norm_type'):
        repdl.optim.clip_grad_norm_([p], 1.0, norm_type=1)
    with pytest.raises(NotImplementedError, match='norm_type'):
        repdl.optim.clip_grad_norm_([p], 1.0, norm_type=math.inf)
    for m in (float('nan'), -1.0):
        with pytest.raises(RuntimeError, match='repdl_clip_grad_norm_f32'):
            repdl.optim.clip_grad_norm_([p], m)
    with pytest.raises(RuntimeError, match='repdl_clip_grad_norm_f32'):
        repdl.optim.clip_grad_norm_([p], 1.0, eps=float('nan'))
    assert np.array_equal(bits(p.grad), before)
    q = torch.zeros(8, dtype=torch.float64, requires_grad=True)
    q.grad = torch.ones(8, dtype=torch.float64)
    with pytest.raises(TypeError, match='float32'):
        repdl.optim.clip_grad_norm_([q], 1.0)
    r = torch.zeros(4, 4, requires_grad=True)
    r.grad = torch.full((4, 8), 3.0)[:, ::2]
    with pytest.raises(RuntimeError, match='contiguous'):
        repdl.optim.clip_grad_norm_([r], 1.0)
