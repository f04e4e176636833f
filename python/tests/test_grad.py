# SPDX-License-Identifier: MIT
"""Finite-difference sanity of every backward pass (float32, central
differences, tolerances: repdl's gradients are the library's, these tests
only catch a wrong formula or a wrong argument order), and bitwise equality
of outputs and gradients at torch.set_num_threads(1) and (2)."""
import pytest
import torch

from common import data
from repdl import ops


def _fd_check(f, inputs, h=1e-2, rtol=3e-2, atol=3e-3, probes=6):
    """d/dt sum(f(x + t e) * w) at t = 0 for a few random unit directions e,
    against the analytic gradient dotted with e."""
    g = torch.Generator().manual_seed(0)
    out = f(*inputs)
    w = torch.randn(out.shape, generator=g)
    (out * w).sum().backward()
    for k, x in enumerate(inputs):
        if x is None or not x.requires_grad:
            continue
        for _ in range(probes):
            e = torch.randn(x.shape, generator=g)
            e /= e.norm()
            with torch.no_grad():
                args_p = [a if j != k else a + h * e for j, a in enumerate(inputs)]
                args_m = [a if j != k else a - h * e for j, a in enumerate(inputs)]
                num = ((f(*args_p) * w).sum() - (f(*args_m) * w).sum()) / (2 * h)
            ana = (x.grad * e).sum()
            assert abs(float(num) - float(ana)) <= atol + rtol * abs(float(num)), \
                f'input {k}: numeric {float(num)} analytic {float(ana)}'


def _x(shape, seed, pos=False, scale=1.0):
    x = data(shape, seed, scale=scale)
    return (x.abs() + 0.5 if pos else x).requires_grad_()


CASES = {
    'exp': (lambda x: ops.exp(x), lambda: [_x((4, 5), 1)]),
    'log': (lambda x: ops.log(x), lambda: [_x((4, 5), 2, pos=True)]),
    'tanh': (lambda x: ops.tanh(x), lambda: [_x((4, 5), 3)]),
    'sqrt': (lambda x: ops.sqrt(x), lambda: [_x((4, 5), 4, pos=True)]),
    'sigmoid': (lambda x: ops.sigmoid(x), lambda: [_x((4, 5), 5)]),
    'gelu': (lambda x: ops.gelu(x), lambda: [_x((4, 5), 6)]),
    'gelu_tanh': (lambda x: ops.gelu(x, approximate='tanh'), lambda: [_x((4, 5), 7)]),
    'silu': (lambda x: ops.silu(x), lambda: [_x((4, 5), 8)]),
    'sum': (lambda x: ops.sum(x, dim=1), lambda: [_x((4, 5), 9)]),
    'mean': (lambda x: ops.mean(x), lambda: [_x((4, 5), 10)]),
    'var': (lambda x: ops.var(x, dim=0), lambda: [_x((6, 5), 11)]),
    'norm': (lambda x: ops.norm(x, dim=1), lambda: [_x((4, 5), 12)]),
    'dot': (lambda x, y: ops.dot(x, y), lambda: [_x((7,), 13), _x((7,), 14)]),
    'softmax': (lambda x: ops.softmax(x, dim=1), lambda: [_x((4, 5), 15)]),
    'log_softmax': (lambda x: ops.log_softmax(x, dim=0), lambda: [_x((4, 5), 16)]),
    'mm': (lambda a, b: ops.mm(a, b), lambda: [_x((3, 4), 17), _x((4, 5), 18)]),
    'linear': (lambda x, w, b: ops.linear(x, w, b),
               lambda: [_x((20, 4), 19), _x((3, 4), 20), _x((3,), 21)]),
    'conv2d': (lambda x, w, b: ops.conv2d(x, w, b, 1, 1),
               lambda: [_x((2, 2, 5, 5), 22), _x((3, 2, 3, 3), 23), _x((3,), 24)]),
    'avg_pool2d': (lambda x: ops.avg_pool2d(x, 2, 1, 1, count_include_pad=False),
                   lambda: [_x((1, 2, 4, 4), 25)]),
    'max_pool2d': (lambda x: ops.max_pool2d(x, 2), lambda: [_x((1, 2, 4, 4), 26, scale=10.0)]),
    'layer_norm': (lambda x, g, b: ops.layer_norm(x, (5,), g, b),
                   lambda: [_x((4, 5), 27), _x((5,), 28), _x((5,), 29)]),
    'rms_norm': (lambda x, g: ops.rms_norm(x, (5,), g), lambda: [_x((4, 5), 30), _x((5,), 31)]),
    'batch_norm': (lambda x, g, b: ops.batch_norm(x, None, None, g, b, training=True),
                   lambda: [_x((6, 3, 2, 2), 32), _x((3,), 33), _x((3,), 34)]),
    'cross_entropy': (lambda x: ops.cross_entropy(x, torch.tensor([1, 0, 4, 2])),
                      lambda: [_x((4, 5), 35)]),
    'nll_loss': (lambda x: ops.nll_loss(x, torch.tensor([1, 0, 4, 2]), reduction='sum'),
                 lambda: [_x((4, 5), 36)]),
}


@pytest.mark.parametrize('name', sorted(CASES))
def test_finite_differences(name):
    f, make = CASES[name]
    _fd_check(f, make())


def _mlp_conv_step(threads):
    torch.set_num_threads(threads)
    x = data((40, 1, 12, 12), 50).requires_grad_()
    w1, b1 = data((4, 1, 3, 3), 51, 0.3).requires_grad_(), data((4,), 52).requires_grad_()
    w2 = data((64, 100), 53, 0.1).requires_grad_()
    w3 = data((10, 64), 54, 0.1).requires_grad_()
    h = ops.max_pool2d(ops.relu(ops.conv2d(x, w1, b1)), 2)
    h = ops.gelu(ops.linear(h.reshape(40, -1), w2))
    h = ops.layer_norm(h, (64,))
    y = ops.linear(h, w3)
    t = torch.arange(40) % 10
    loss = ops.cross_entropy(y, t) + ops.sum(ops.mm(w2, w2.t().contiguous())) * 1e-3
    loss.backward()
    return [loss.detach()] + [v.grad for v in (x, w1, b1, w2, w3)]


def test_threads_1_vs_2_bitwise():
    a, b = _mlp_conv_step(1), _mlp_conv_step(2)
    for i, (u, v) in enumerate(zip(a, b)):
        assert torch.equal(u.view(torch.int32), v.view(torch.int32)), f'tensor {i} differs'
