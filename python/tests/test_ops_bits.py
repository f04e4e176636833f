# SPDX-License-Identifier: MIT
"""Every repdl.ops function, forward and backward, bit for bit against the
C library through ctypes (clib.py), special values included."""
import numpy as np
import pytest
import torch

import repdl
from common import assert_bits, canon, data, random_bits, t2n
from repdl import ops

# The elementwise functions: include/repdl/op_table.h's rows with a backward
# pass, as the extension was built from it.
UNARY = list(repdl._C.unary_ops)


def _apply(op, x):
    if op == 'gelu_tanh':
        return ops.gelu(x, approximate='tanh')
    return getattr(ops, op)(x)


def test_unary_ops_listed():
    # the table's functions, each with its public function in repdl.ops
    # (gelu_tanh: gelu(approximate='tanh'))
    assert {'exp', 'log', 'tanh', 'sqrt', 'sigmoid', 'relu', 'gelu', 'gelu_tanh', 'silu',
            'softplus'} <= set(UNARY)
    for op in UNARY:
        assert callable(getattr(ops, op if op != 'gelu_tanh' else 'gelu', None)), op


@pytest.mark.parametrize('op', UNARY)
def test_unary(clib, op):
    x = random_bits(1 << 15, 1).requires_grad_()
    y = _apply(op, x)
    assert_bits(y, clib.unary(op, t2n(x)), op)
    dy = data(x.shape, 2, specials=40)
    y.backward(dy)
    xn, yn, dn = t2n(x), t2n(y), t2n(dy)
    # exp, log, tanh, sqrt: the formulas written out here; the others: the
    # library's backward of x through ctypes
    with np.errstate(all='ignore'):
        if op == 'exp':
            want = clib.mul(dn, yn)
        elif op == 'log':
            want = canon(dn / xn)
        elif op == 'tanh':
            want = canon(dn * (np.float32(1) - yn * yn))
        elif op == 'sqrt':
            want = canon(dn / (np.float32(2) * yn))
        else:
            want = clib.unary_backward(op, xn, dn)
    assert_bits(x.grad, want, op + ' backward')


SHAPES = [((1000,), None), ((37, 129), None), ((37, 129), 1), ((37, 129), 0), ((3, 4, 5), 1),
          ((3, 4, 5), -1)]


@pytest.mark.parametrize('kind', ['sum', 'mean', 'var', 'norm'])
@pytest.mark.parametrize('shape,dim', SHAPES)
def test_reduction(clib, kind, shape, dim):
    x = data(shape, 3, specials=3 if len(shape) > 1 else 0).requires_grad_()
    kw = {'unbiased': False} if kind == 'var' and shape[0] == 37 else {}
    ddof = 0 if kw else 1 if kind == 'var' else 0
    y = getattr(ops, kind)(x, dim=dim, **kw)
    xn = t2n(x)
    if dim is None:
        want = np.array([clib.full(kind, xn, ddof)])
        x2 = xn.reshape(1, -1)
    else:
        x2 = np.moveaxis(xn, dim, -1).reshape(-1, shape[dim])
        want = clib.rows(kind, x2, ddof)
    assert_bits(y.reshape(-1), want, kind)
    dy = data(y.shape, 4)
    y.backward(dy)
    g = t2n(dy).reshape(-1, 1)
    n = np.float32(x2.shape[1])
    with np.errstate(all='ignore'):
        if kind == 'sum':
            dx2 = np.broadcast_to(g, x2.shape)
        elif kind == 'mean':
            dx2 = np.broadcast_to(g / n, x2.shape)
        elif kind == 'var':
            m = clib.rows('mean', x2).reshape(-1, 1)
            dx2 = (x2 - m) * ((np.float32(2) * g) / (n - np.float32(ddof)))
        else:
            yv = want.reshape(-1, 1)
            dx2 = np.where(yv == 0, np.float32(0), x2 * (g / yv))
    if dim is None:
        dxn = dx2.reshape(shape)
    else:
        moved = list(np.moveaxis(xn, dim, -1).shape)
        dxn = np.moveaxis(dx2.reshape(moved), -1, dim)
    assert_bits(x.grad, canon(dxn), kind + ' backward')


def test_sum_threads_and_dot(clib):
    x = data((100003,), 5).requires_grad_()
    v = data((100003,), 6).requires_grad_()
    for t in (1, 2):
        torch.set_num_threads(t)
        assert_bits(ops.sum(x).reshape(1), np.array([clib.full('sum', t2n(x))]), f'sum {t}')
        assert_bits(ops.dot(x, v).reshape(1), np.array([clib.dot(t2n(x), t2n(v))]), f'dot {t}')
    d = ops.dot(x, v)
    d.backward(torch.tensor(0.75))
    assert_bits(x.grad, clib.scale(0.75, t2n(v)), 'dot dx')
    assert_bits(v.grad, clib.scale(0.75, t2n(x)), 'dot dy')


@pytest.mark.parametrize('log', [False, True])
@pytest.mark.parametrize('dim', [1, 0])
def test_softmax(clib, log, dim):
    x = data((7, 33), 7, specials=20).requires_grad_()
    y = (ops.log_softmax if log else ops.softmax)(x, dim=dim)
    x2 = t2n(x) if dim == 1 else t2n(x).T.copy()
    y2 = clib.softmax(x2, log)
    assert_bits(y, y2 if dim == 1 else y2.T, 'softmax')
    dy = data(y.shape, 8)
    y.backward(dy)
    d2 = t2n(dy) if dim == 1 else t2n(dy).T.copy()
    dx = clib.softmax_backward(y2, d2, log)
    assert_bits(x.grad, dx if dim == 1 else dx.T, 'softmax backward')


@pytest.mark.parametrize('M,K,N', [(17, 29, 13), (70, 80, 90), (1, 0, 3)])
def test_mm(clib, M, K, N):
    torch.set_num_threads(2)
    a = data((M, K), 9, specials=5).requires_grad_()
    b = data((K, N), 10).requires_grad_()
    c = ops.mm(a, b)
    assert_bits(c, clib.gemm(0, 0, M, N, K, t2n(a), t2n(b)), 'mm')
    dc = data((M, N), 11)
    c.backward(dc)
    assert_bits(a.grad, clib.gemm(0, 1, M, K, N, t2n(dc), t2n(b)), 'mm dA')
    assert_bits(b.grad, clib.gemm(1, 0, K, N, M, t2n(a), t2n(dc)), 'mm dB')
    assert_bits(ops.matmul(a, b), t2n(c), 'matmul')


def test_matmul_batched(clib):
    a = data((2, 3, 4, 5), 12)
    b = data((3, 5, 6), 13)
    y = ops.matmul(a, b)
    assert y.shape == (2, 3, 4, 6)
    for i in range(2):
        for j in range(3):
            assert_bits(y[i, j], clib.gemm(0, 0, 4, 6, 5, t2n(a[i, j]), t2n(b[j])), 'bmm')
    v = data((5,), 14)
    assert_bits(ops.matmul(a[0, 0], v), clib.gemm(0, 0, 4, 1, 5, t2n(a[0, 0]), t2n(v)).ravel(),
                'mv')


@pytest.mark.parametrize('M', [5, 40])
def test_linear(clib, M):
    x = data((M, 30), 15, specials=8).requires_grad_()
    w = data((20, 30), 16, scale=0.2).requires_grad_()
    b = data((20,), 17).requires_grad_()
    y = ops.linear(x, w, b)
    assert_bits(y, clib.linear_forward(t2n(x), t2n(w), t2n(b)), 'linear')
    dy = data((M, 20), 18)
    y.backward(dy)
    dx, dw, db = clib.linear_backward(t2n(x), t2n(w), t2n(dy))
    assert_bits(x.grad, dx, 'dx')
    assert_bits(w.grad, dw, 'dW')
    assert_bits(b.grad, db, 'db')


@pytest.mark.parametrize('n,stride,pad,dil', [(2, (1, 1), (0, 0), (1, 1)),
                                              (20, (2, 1), (1, 0), (1, 2))])
def test_conv2d(clib, n, stride, pad, dil):
    x = data((n, 3, 9, 8), 19, specials=10).requires_grad_()
    w = data((4, 3, 3, 2), 20, scale=0.3).requires_grad_()
    b = data((4,), 21).requires_grad_()
    y = ops.conv2d(x, w, b, stride, pad, dil)
    assert_bits(y, clib.conv2d_forward(t2n(x), t2n(w), t2n(b), stride, pad, dil), 'conv2d')
    dy = data(y.shape, 22)
    y.backward(dy)
    dx, dw, db = clib.conv2d_backward(t2n(x), t2n(w), t2n(dy), stride, pad, dil)
    assert_bits(x.grad, dx, 'conv dx')
    assert_bits(w.grad, dw, 'conv dw')
    assert_bits(b.grad, db, 'conv db')


@pytest.mark.parametrize('threads', [1, 2, 3, 4])
@pytest.mark.parametrize('n,oc', [(5, 13), (33, 8)])
def test_conv2d_threads(clib, threads, n, oc):
    # large enough for conv2d_threads.h to cut the work (above
    # REPDL_CONV_THREADS_MIN): by channels (n 5: one micro-batch) or by
    # micro-batch leaves (n 33); the C library's serial form gives the bits
    torch.set_num_threads(threads)
    x = data((n, 4, 12, 12), 31, specials=10).requires_grad_()
    w = data((oc, 4, 3, 3), 32, scale=0.3).requires_grad_()
    b = data((oc,), 33).requires_grad_()
    y = ops.conv2d(x, w, b, (1, 1), (1, 1), (1, 1))
    assert_bits(y, clib.conv2d_forward(t2n(x), t2n(w), t2n(b), (1, 1), (1, 1), (1, 1)), 'conv2d')
    dy = data(y.shape, 34)
    y.backward(dy)
    dx, dw, db = clib.conv2d_backward(t2n(x), t2n(w), t2n(dy), (1, 1), (1, 1), (1, 1))
    assert_bits(x.grad, dx, 'conv dx')
    assert_bits(w.grad, dw, 'conv dw')
    assert_bits(b.grad, db, 'conv db')


@pytest.mark.parametrize('k,st,pad', [((2, 2), (2, 2), (0, 0)), ((3, 2), (2, 1), (1, 1))])
def test_pool(clib, k, st, pad):
    x = data((2, 3, 7, 9), 23, specials=30).requires_grad_()
    y, idx = ops.max_pool2d(x, k, st, pad, return_indices=True)
    yw, iw = clib.max_pool2d(t2n(x), k, st, pad)
    assert_bits(y, yw, 'max_pool2d')
    assert np.array_equal(idx.numpy().view(np.uint64), iw)
    dy = data(y.shape, 24)
    y.backward(dy)
    assert_bits(x.grad, clib.max_pool2d_backward(t2n(x), iw, t2n(dy), k, st, pad), 'max bwd')
    for cip in (True, False):
        x.grad = None
        y = ops.avg_pool2d(x, k, st, pad, count_include_pad=cip)
        assert_bits(y, clib.avg_pool2d(t2n(x), k, st, pad, cip), 'avg_pool2d')
        y.backward(dy)
        assert_bits(x.grad, clib.avg_pool2d_backward(t2n(x), t2n(dy), k, st, pad, cip), 'avg bwd')


@pytest.mark.parametrize('affine', [True, False])
def test_layer_norm(clib, affine):
    x = data((5, 6, 7), 25, specials=3).requires_grad_()
    g = data((6, 7), 26).requires_grad_() if affine else None
    b = data((6, 7), 27).requires_grad_() if affine else None
    y = ops.layer_norm(x, (6, 7), g, b, eps=1e-5)
    x2 = t2n(x).reshape(5, 42)
    gn = None if g is None else t2n(g).ravel()
    yw, m, r = clib.layer_norm(x2, gn, None if b is None else t2n(b).ravel(), 1e-5)
    assert_bits(y, yw, 'layer_norm')
    dy = data(y.shape, 28)
    y.backward(dy)
    dx, dg, db = clib.layer_norm_backward(x2, gn, m, r, t2n(dy).reshape(5, 42))
    assert_bits(x.grad, dx, 'ln dx')
    if affine:
        assert_bits(g.grad, dg, 'ln dgamma')
        assert_bits(b.grad, db, 'ln dbeta')


def test_rms_norm(clib):
    x = data((40, 17), 29, specials=3).requires_grad_()
    g = data((17,), 30).requires_grad_()
    y = ops.rms_norm(x, 17, g, eps=1e-6)
    yw, r = clib.rms_norm(t2n(x), t2n(g), 1e-6)
    assert_bits(y, yw, 'rms_norm')
    dy = data(y.shape, 31)
    y.backward(dy)
    dx, dg = clib.rms_norm_backward(t2n(x), t2n(g), r, t2n(dy))
    assert_bits(x.grad, dx, 'rms dx')
    assert_bits(g.grad, dg, 'rms dgamma')


def test_batch_norm(clib):
    x = data((20, 3, 4, 5), 32, specials=2).requires_grad_()
    g = data((3,), 33).requires_grad_()
    b = data((3,), 34).requires_grad_()
    rm, rv = data((3,), 35), data((3,), 36).abs()
    rmn, rvn = t2n(rm), t2n(rv)
    y = ops.batch_norm(x, rm, rv, g, b, training=True, momentum=0.1, eps=1e-5)
    yw, sm, sr = clib.batch_norm_train(t2n(x), t2n(g), t2n(b), rmn, rvn, 1e-5, 0.1)
    assert_bits(y, yw, 'batch_norm')
    assert_bits(rm, rmn, 'running_mean')
    assert_bits(rv, rvn, 'running_var')
    dy = data(y.shape, 37)
    y.backward(dy)
    dx, dg, db = clib.batch_norm_backward(t2n(x), t2n(g), sm, sr, t2n(dy))
    assert_bits(x.grad, dx, 'bn dx')
    assert_bits(g.grad, dg, 'bn dgamma')
    assert_bits(b.grad, db, 'bn dbeta')
    ye = ops.batch_norm(x, rm, rv, g, b, training=False, eps=1e-5)
    assert_bits(ye, clib.batch_norm_infer(t2n(x), t2n(g), t2n(b), rmn, rvn, 1e-5), 'bn eval')


def test_dropout(clib):
    x = data((1001,), 38, specials=16).requires_grad_()
    y = ops.dropout(x, 0.3, True, seed=7, offset=5)
    yw, mask = clib.dropout(t2n(x), 0.3, 7, 5)
    assert_bits(y, yw, 'dropout')
    dy = data(y.shape, 39)
    y.backward(dy)
    assert_bits(x.grad, clib.dropout_backward(0.3, mask, t2n(dy)), 'dropout backward')
    assert ops.dropout(x, 0.3, training=False) is x
    gen = repdl.random.Generator(11)
    a = ops.dropout(x, 0.5, generator=gen)
    assert_bits(a, clib.dropout(t2n(x), 0.5, 11, 0)[0], 'slot 0')
    b2 = ops.dropout(x, 0.5, generator=gen)
    assert_bits(b2, clib.dropout(t2n(x), 0.5, 11, 1 << 32)[0], 'slot 1')


@pytest.mark.parametrize('ce', [True, False])
@pytest.mark.parametrize('reduction', ['mean', 'sum'])
def test_losses(clib, ce, reduction):
    x = data((20, 10), 40, specials=0).requires_grad_()
    x.data[3, 4] = float('-inf')
    t = torch.randint(0, 10, (20,), generator=torch.Generator().manual_seed(41))
    fn = ops.cross_entropy if ce else ops.nll_loss
    loss = fn(x, t, reduction=reduction)
    lw, gw = clib.loss(ce, t2n(x), t.numpy(), 0 if reduction == 'mean' else 1)
    assert_bits(loss.reshape(1), np.array([lw]), 'loss')
    loss.backward()
    assert_bits(x.grad, gw, 'loss grad')
    x.grad = None
    fn(x, t, reduction=reduction).backward(torch.tensor(0.3))
    assert_bits(x.grad, clib.scale(0.3, gw), 'loss grad scaled')


def test_random(clib):
    t = torch.empty(3, 5, 7)
    repdl.random.uniform_(t, -0.5, 0.25, seed=3, offset=9)
    assert_bits(t.reshape(-1), clib.uniform(105, 3, 9, -0.5, 0.25), 'uniform')
    repdl.random.normal_(t, 1.0, 2.0, seed=3, offset=9)
    assert_bits(t.reshape(-1), clib.normal(105, 3, 9, 1.0, 2.0), 'normal')
    p = repdl.random.permutation(1000, seed=5, offset=2)
    assert p.dtype == torch.int64
    assert np.array_equal(p.numpy(), clib.permutation(1000, 5, 2).astype(np.int64))
    nc = torch.empty(7, 15)[:, ::3]
    repdl.random.uniform_(nc, 0.0, 1.0, seed=3, offset=9)
    assert_bits(nc.contiguous().reshape(-1), clib.uniform(35, 3, 9, 0.0, 1.0), 'non-contiguous')
    for fan in (1, 25, 150, 400, 3):
        assert repdl.random.init_bound(fan) == np.float32(1) / clib.sqrt1(float(fan))


@pytest.mark.parametrize('momentum,nesterov,wd,damp', [(0.0, False, 0.0, 0.0),
                                                       (0.9, False, 1e-4, 0.1),
                                                       (0.9, True, 1e-3, 0.0)])
def test_sgd(clib, momentum, nesterov, wd, damp):
    w = data((33,), 42).requires_grad_()
    opt = repdl.optim.SGD([w], lr=0.05, momentum=momentum, dampening=damp, weight_decay=wd,
                          nesterov=nesterov)
    wn, buf = t2n(w), np.zeros(33, np.float32)
    for step in range(1, 4):
        g = data((33,), 100 + step)
        w.grad = g.clone()
        opt.step()
        clib.sgd_step(wn, t2n(g), buf if momentum else None, 0.05, momentum, damp, wd, nesterov,
                      step)
        assert_bits(w, wn, f'sgd step {step}')


@pytest.mark.parametrize('cls,wd', [('Adam', 0.0), ('Adam', 0.01), ('AdamW', 0.01)])
def test_adam(clib, cls, wd):
    w = data((33,), 43).requires_grad_()
    opt = getattr(repdl.optim, cls)([w], lr=1e-2, betas=(0.9, 0.99), eps=1e-8, weight_decay=wd)
    wn, m, v = t2n(w), np.zeros(33, np.float32), np.zeros(33, np.float32)
    s = clib.adam_init()
    for step in range(1, 4):
        g = data((33,), 200 + step)
        w.grad = g.clone()
        opt.step()
        clib.adam_step(s, wn, t2n(g), m, v, 1e-2, 0.9, 0.99, 1e-8, wd, cls == 'AdamW')
        assert_bits(w, wn, f'{cls} step {step}')
    assert_bits(opt.state[w]['exp_avg'], m, 'exp_avg')
    assert_bits(opt.state[w]['exp_avg_sq'], v, 'exp_avg_sq')
