# SPDX-License-Identifier: MIT
"""repdl.ops.mse_loss and repdl.nn.MSELoss (include/repdl/mse_loss.h):
against the definition of docs/nn.md ("Mean squared error") written here
in numpy (float32 terms, the canonical sum of docs/canonical-order.md: leaves
of 16 vectors of 64 lanes, each lane's adjacent pairwise tree, the lanes
folded by halving, the aligned buddy tree over the leaves; the divisions
in float64, exact to one rounding for n <= 2^24), bit for bit; against
torch.nn.functional.mse_loss within a tolerance; the module, its
conversion from torch.nn.MSELoss, special values and bad input."""
import numpy as np
import pytest
import torch

import repdl
from common import assert_bits, canon, data
from repdl import nn, ops

LEAF, LANES = 1024, 64


def _leaf(v):
    a = np.full(LEAF, -0.0, dtype=np.float32)
    a[:v.size] = v
    a = a.reshape(LEAF // LANES, LANES)
    while a.shape[0] > 1:  # adjacent pairs of vectors, lane by lane
        a = (a[0::2] + a[1::2]).astype(np.float32)
    a = a[0]
    while a.size > 1:  # the lanes fold by halving
        h = a.size // 2
        a = (a[:h] + a[h:]).astype(np.float32)
    return a[0]


def canonical_sum(s):
    if s.size == 0:
        return np.float32(-0.0)
    nodes = [_leaf(s[j:j + LEAF]) for j in range(0, s.size, LEAF)]
    while len(nodes) > 1:  # the aligned buddy tree: a lone last node passes up
        nodes = [np.float32(nodes[i] + nodes[i + 1]) if i + 1 < len(nodes) else nodes[i]
                 for i in range(0, len(nodes), 2)]
    return nodes[0]


def _div(a, n):
    return np.float32(np.float64(a) / np.float64(n))


def ref_loss(x, t, reduction):
    x, t = x.numpy().ravel(), t.numpy().ravel()
    with np.errstate(all='ignore'):
        d = (x - t).astype(np.float32)
        s = (d * d).astype(np.float32)
        S = canonical_sum(s)
        if reduction == 'mean':
            S = _div(S, x.size) if x.size else np.float32('nan')
    return canon(np.array([S], dtype=np.float32))[0]


def ref_grad(x, t, dloss, reduction):
    x, t = x.numpy(), t.numpy()
    with np.errstate(all='ignore'):
        g = _div(dloss, x.size) if reduction == 'mean' else np.float32(dloss)
        d2 = (np.float32(2) * (x - t).astype(np.float32)).astype(np.float32)
        return canon((d2 * g).astype(np.float32))


def _run(x, t, reduction, dloss):
    xr, tr = x.clone().requires_grad_(), t.clone().requires_grad_()
    loss = ops.mse_loss(xr, tr, reduction=reduction)
    loss.backward(torch.tensor(dloss))
    return loss, xr.grad, tr.grad


@pytest.mark.parametrize('shape', [(1,), (7,), (4, 9), (1024,), (3, 345), (2, 1500)])
@pytest.mark.parametrize('reduction', ['mean', 'sum'])
def test_bits_against_definition(shape, reduction):
    n = int(np.prod(shape))
    x = data(shape, n, specials=min(n // 100, 3))
    t = data(shape, n + 1, scale=2.0)
    for dloss in (1.0, 0.375, -3.0, 1e-30):
        loss, dx, dt = _run(x, t, reduction, dloss)
        assert loss.shape == ()
        assert_bits(loss.reshape(1), np.array([ref_loss(x, t, reduction)]), 'loss')
        want = ref_grad(x, t, np.float32(dloss), reduction)
        assert_bits(dx, want, 'dx')
        assert_bits(dt, canon(-want), 'dtarget')


@pytest.mark.parametrize('reduction', ['mean', 'sum'])
def test_against_torch(reduction):
    x = data((8, 300), 5)
    t = data((8, 300), 6)
    loss, dx, dt = _run(x, t, reduction, 0.5)
    xr, tr = x.clone().requires_grad_(), t.clone().requires_grad_()
    want = torch.nn.functional.mse_loss(xr, tr, reduction=reduction)
    want.backward(torch.tensor(0.5))
    torch.testing.assert_close(loss, want.detach(), rtol=1e-5, atol=0)
    torch.testing.assert_close(dx, xr.grad, rtol=1e-5, atol=1e-12)
    torch.testing.assert_close(dt, tr.grad, rtol=1e-5, atol=1e-12)


def test_specials_and_empty():
    inf, nan = float('inf'), float('nan')
    x = torch.tensor([inf, 1.0, nan, 2.0])
    t = torch.tensor([inf, 1.0, 0.0, 2.0])
    loss, dx, _ = _run(x, t, 'sum', 1.0)
    assert loss.view(torch.int32).item() == 0x7fc00000
    assert dx.view(torch.int32).tolist() == [0x7fc00000, 0, 0x7fc00000, 0]
    # x == t: +0; n == 0: mean NaN (as torch), sum -0.0 (the empty canonical sum)
    same = torch.tensor([1.5, -2.0])
    assert ops.mse_loss(same, same).view(torch.int32).item() == 0
    e = torch.zeros(0)
    assert ops.mse_loss(e, e).view(torch.int32).item() == 0x7fc00000
    assert torch.isnan(torch.nn.functional.mse_loss(e, e))
    assert ops.mse_loss(e, e, reduction='sum').view(torch.int32).item() == -2**31


def test_module_and_conversion():
    x, t = data((5, 6), 11), data((5, 6), 12)
    m = nn.MSELoss(reduction='sum')
    assert isinstance(m, torch.nn.MSELoss)
    assert_bits(m(x, t).reshape(1), np.array([ref_loss(x, t, 'sum')]), 'module')
    conv = repdl.from_torch_module(torch.nn.Sequential(torch.nn.MSELoss()))
    assert isinstance(conv[0], nn.MSELoss) and conv[0].reduction == 'mean'
    assert_bits(conv[0](x, t).reshape(1), np.array([ref_loss(x, t, 'mean')]), 'converted')
    with pytest.raises(repdl.UnsupportedModuleError):
        repdl.from_torch_module(torch.nn.Sequential(torch.nn.MSELoss(reduction='none')))
    with pytest.raises(NotImplementedError):
        nn.MSELoss(reduction='none')


def test_bad_input():
    x = torch.ones(3)
    with pytest.raises(NotImplementedError):
        ops.mse_loss(x, x, reduction='none')
    with pytest.raises(ValueError):
        ops.mse_loss(x, x, reduction='avg')
    with pytest.raises(NotImplementedError):
        ops.mse_loss(x, torch.ones(1))  # broadcasting
    with pytest.raises(NotImplementedError):
        ops.mse_loss(x, x, size_average=True)
    with pytest.raises(TypeError):
        ops.mse_loss(x.double(), x.double())
    with pytest.raises(TypeError):
        ops.mse_loss(x, [1.0, 1.0, 1.0])
