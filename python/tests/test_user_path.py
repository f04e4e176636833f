# SPDX-License-Identifier: MIT
"""The package as a PyTorch user meets it (issue 31's list): conversion
refusals (hooks, parametrizations, PyTorch's own unsupported classes),
double backward, gradient accumulation with the whole batch's bits, the
modules and functions common models use (AdaptiveAvgPool2d, Softplus,
LeakyReLU, ignore_index, erf/sin/cos, BatchNorm backward in evaluation,
zero extents, RMSNorm), docstrings, and bad input (other dtypes, devices,
strides).  References: the C library through ctypes (clib), numpy's
binary32 arithmetic (each operation correctly rounded) or exact cases."""
import inspect

import numpy as np
import pytest
import torch

import repdl
from repdl import nn as rnn, ops
from common import assert_bits, data, random_bits, t2n, canon


def _req(t):
    return t.clone().requires_grad_(True)


# ---- from_torch_module: hooks, parametrizations, messages ----

def _linear():
    torch.manual_seed(0)
    return torch.nn.Linear(4, 3)


@pytest.mark.parametrize('wrap', ['weight_norm', 'spectral_norm', 'parametrize', 'pre_hook',
                                  'hook'])
def test_convert_refuses_hooks_and_parametrizations(wrap):
    lin = _linear()
    if wrap == 'weight_norm':
        lin = torch.nn.utils.weight_norm(lin)
    elif wrap == 'spectral_norm':
        lin = torch.nn.utils.spectral_norm(lin)
    elif wrap == 'parametrize':
        class Double(torch.nn.Module):
            def forward(self, w):
                return w * 2
        torch.nn.utils.parametrize.register_parametrization(lin, 'weight', Double())
    elif wrap == 'pre_hook':
        lin.register_forward_pre_hook(lambda m, a: None)
    else:
        lin.register_forward_hook(lambda m, a, o: None)
    model = torch.nn.Sequential(lin, torch.nn.ReLU())
    with pytest.raises(repdl.UnsupportedModuleError) as e:
        repdl.from_torch_module(model)
    msg = str(e.value)
    want = {'weight_norm': 'WeightNorm', 'spectral_norm': 'SpectralNorm',
            'parametrize': 'parametrized', 'pre_hook': 'forward pre-hook',
            'hook': 'forward hook'}[wrap]
    assert want in msg, msg
    # nothing converted
    assert type(model[1]) is torch.nn.ReLU
    assert not isinstance(model[0], rnn.Linear)


def test_convert_after_removing_weight_norm():
    lin = torch.nn.utils.weight_norm(_linear())
    torch.nn.utils.remove_weight_norm(lin)
    model = repdl.from_torch_module(torch.nn.Sequential(lin))
    assert type(model[0]) is rnn.Linear


def test_refusal_names_pytorch_class_not_user_defined():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Softsign(),
                                torch.nn.LSTM(4, 8))
    with pytest.raises(repdl.UnsupportedModuleError) as e:
        repdl.from_torch_module(model)
    msg = str(e.value)
    assert 'user-defined' not in msg
    assert "PyTorch's Softsign has no repdl version yet" in msg
    assert "PyTorch's LSTM has no repdl version yet" in msg
    assert 'repdl converts: ' in msg and 'LeakyReLU' in msg and 'AdaptiveAvgPool2d' in msg


def test_convert_new_modules():
    model = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3, padding=1), torch.nn.LeakyReLU(0.2),
                                torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                                torch.nn.Softplus())
    repdl.from_torch_module(model)
    assert [type(m) for m in model] == [rnn.Conv2d, rnn.LeakyReLU, rnn.AdaptiveAvgPool2d,
                                        rnn.Flatten, rnn.Softplus]
    with pytest.raises(repdl.UnsupportedModuleError, match='beta=2'):
        repdl.from_torch_module(torch.nn.Sequential(torch.nn.Softplus(beta=2)))


# ---- double backward ----

_DOUBLE = {
    'gelu': lambda x: ops.gelu(x),
    'exp': lambda x: ops.exp(x),
    'erf': lambda x: ops.erf(x),
    'leaky_relu': lambda x: ops.leaky_relu(x),
    'softplus': lambda x: ops.softplus(x),
    'sum': lambda x: ops.sum(x, 1),
    'softmax': lambda x: ops.softmax(x, 1),
    'linear': lambda x: ops.linear(x, torch.ones(2, 5, requires_grad=True)),
    'layer_norm': lambda x: ops.layer_norm(x, (5,)),
    'cross_entropy': lambda x: ops.cross_entropy(x, torch.tensor([0, 4, 2])),
}


@pytest.mark.parametrize('name', sorted(_DOUBLE))
def test_double_backward_raises(name):
    x = _req(data((3, 5), 1))
    y = _DOUBLE[name](x)
    with pytest.raises(RuntimeError, match='double backward'):
        torch.autograd.grad(y.sum() if y.dim() else y, x, create_graph=True)
    # without create_graph: a gradient
    x2 = _req(data((3, 5), 1))
    y2 = _DOUBLE[name](x2)
    (g,) = torch.autograd.grad(ops.sum(y2) if y2.dim() else y2, x2)
    assert g.shape == x2.shape


# ---- gradient accumulation ----

def _mlp():
    repdl.random.default_generator.manual_seed(7)
    return torch.nn.Sequential(rnn.Linear(12, 24), rnn.LayerNorm(24), rnn.GELU(),
                               rnn.Linear(24, 5))


def _grads(model):
    return [p.grad.clone() for p in model.parameters()]


@pytest.mark.parametrize('B,chunks', [(100, 2), (100, 3), (100, 7), (64, 4), (33, 3), (16, 1)])
def test_gradient_accumulation_whole_batch_bits(B, chunks):
    x, y = data((B, 12), 3), torch.arange(B) % 5
    model = _mlp()
    ops.cross_entropy(model(x), y).backward()
    whole = _grads(model)

    model2 = _mlp()
    loss_fn = rnn.CrossEntropyLoss(global_batch_size=B)
    acc = repdl.distributed.GradientAccumulation(model2.parameters(), batch_size=B,
                                                 chunks=chunks, model=model2)
    rows = acc.rows()
    assert len(rows) == chunks and rows[0][0] == 0 and rows[-1][1] == B
    assert all(a[1] == b[0] for a, b in zip(rows, rows[1:]))
    for lo, hi in rows:
        acc.backward(loss_fn(model2(x[lo:hi]), y[lo:hi]))
    acc.finish()
    for i, (g, w) in enumerate(zip(_grads(model2), whole)):
        assert_bits(g, t2n(w), f'param {i}')


def test_gradient_accumulation_naive_chunks_differ():
    """What the API is for: .backward() per chunk adds in PyTorch's order,
    which gives other bits than the whole batch (chunks that are not nodes
    of the batch tree; this case: seen to differ)."""
    B = 100
    x, y = data((B, 12), 3), torch.arange(B) % 5
    model = _mlp()
    ops.cross_entropy(model(x), y).backward()
    whole = _grads(model)
    model2 = _mlp()
    loss_fn = rnn.CrossEntropyLoss(global_batch_size=B)
    for lo, hi in ((0, 50), (50, 100)):
        loss_fn(model2(x[lo:hi]), y[lo:hi]).backward()
    assert any(not torch.equal(g.view(torch.int32), w.view(torch.int32))
               for g, w in zip(_grads(model2), whole))


def test_gradient_accumulation_bad_use():
    model = torch.nn.Sequential(rnn.Linear(3, 2), rnn.BatchNorm1d(2))
    with pytest.raises(TypeError, match='BatchNorm1d'):
        repdl.distributed.GradientAccumulation(model.parameters(), 32, 2, model=model)
    model = _mlp()
    acc = repdl.distributed.GradientAccumulation(model.parameters(), 32, 2)
    with pytest.raises(RuntimeError, match='0 backward calls for 2 chunks'):
        acc.finish()
    with pytest.raises(ValueError, match='micro-batches'):
        repdl.distributed.GradientAccumulation(model.parameters(), 32, 3)


def test_units_combine_public(clib):
    nodes = [data((6,), 10), data((6,), 11), data((6,), 12)]
    bounds = repdl.distributed.shard_bounds(70, 3)
    got = repdl.distributed.units_combine(bounds[-1], bounds, nodes)
    want = clib.units_combine(bounds[-1], bounds, [t2n(n) for n in nodes], 6)
    assert_bits(got, want, 'units_combine')


# ---- modules and functions ----

@pytest.mark.parametrize('shape,out', [((2, 3, 8, 8), 1), ((2, 3, 8, 8), (4, 2)),
                                       ((3, 6, 4), (3, None)), ((1, 2, 6, 6), 6)])
def test_adaptive_avg_pool2d_divisible(shape, out):
    # small integers: every window sum is exact and the window sizes are
    # powers of two or exact divisors here, so PyTorch's bits are the answer
    g = torch.Generator().manual_seed(5)
    x = torch.randint(-8, 9, shape, generator=g).float()
    k = [shape[-2] // (out if isinstance(out, int) else (out[0] or shape[-2])),
         shape[-1] // (out if isinstance(out, int) else (out[1] or shape[-1]))]
    got = rnn.AdaptiveAvgPool2d(out)(_req(x))
    want = torch.nn.functional.adaptive_avg_pool2d(x, out)
    if k[0] * k[1] in (1, 2, 4, 8, 16, 32, 64):
        assert_bits(got, t2n(want), 'adaptive_avg_pool2d')
    assert_bits(got, t2n(ops.avg_pool2d(x, k, k, 0)), 'as avg_pool2d')
    got.backward(torch.ones_like(got))


def test_adaptive_avg_pool2d_refuses_overlapping():
    with pytest.raises(NotImplementedError, match='divides'):
        rnn.AdaptiveAvgPool2d(3)(torch.zeros(1, 1, 8, 8))


def test_softplus(clib):
    x = torch.cat([random_bits(4000, 21), torch.tensor([15.0, 16.0, 19.9, 20.0, 20.5, 30.0])])
    m = rnn.Softplus()
    xr = _req(x)
    y = m(xr)
    sp = clib.unary('softplus', t2n(x))
    want = np.where(t2n(x) > 20, t2n(x), sp)
    assert_bits(y, canon(want), 'softplus')
    g = data(x.shape, 22)
    y.backward(g)
    wb = np.where(t2n(x) > 20, t2n(g), clib.unary_backward('softplus', t2n(x), t2n(g)))
    assert_bits(xr.grad, canon(wb), 'softplus backward')
    # threshold 20 changes nothing: above it the correctly rounded value is x
    assert_bits(ops.softplus(x, threshold=None), canon(sp), 'no threshold')
    with pytest.raises(NotImplementedError, match='beta=1'):
        rnn.Softplus(beta=2)


@pytest.mark.parametrize('slope', [0.01, 0.2, 1.5])
def test_leaky_relu(slope):
    x = random_bits(5000, 31)
    xr = _req(x)
    y = rnn.LeakyReLU(slope)(xr)
    xn, s = t2n(x), np.float32(slope)
    with np.errstate(all='ignore'):
        want = np.where(xn > 0, xn, s * xn)
    assert_bits(y, canon(want), 'leaky_relu')
    g = random_bits(5000, 32)
    y.backward(g)
    with np.errstate(all='ignore'):
        wg = np.where(xn > 0, t2n(g), s * t2n(g))
    wg[np.isnan(xn)] = np.nan
    assert_bits(xr.grad, canon(wg), 'leaky_relu backward')
    # PyTorch's own (one rounded product): the same values where no NaN
    tv = torch.nn.functional.leaky_relu(x, slope)
    ok = ~torch.isnan(tv)
    assert torch.equal(y.detach()[ok].view(torch.int32), tv[ok].view(torch.int32))


@pytest.mark.parametrize('ce', [True, False])
@pytest.mark.parametrize('reduction', ['mean', 'sum'])
def test_ignore_index(clib, ce, reduction):
    x = data((9, 6), 41)
    t = torch.tensor([0, -100, 5, 3, -100, 2, 1, -100, 4])
    fn = ops.cross_entropy if ce else ops.nll_loss
    xr = _req(x)
    loss = fn(xr, t, reduction=reduction)
    loss.backward()
    keep = (t != -100).nonzero().reshape(-1)
    wl, wg = clib.loss(ce, t2n(x)[keep.numpy()], t[keep].numpy(), 0 if reduction == 'mean' else 1)
    assert_bits(loss, np.float32(wl), 'loss')
    full = np.zeros((9, 6), np.float32)
    full[keep.numpy()] = wg
    assert_bits(xr.grad, full, 'grad')
    # another ignore_index, and the module
    t2 = torch.where(t == -100, torch.tensor(7), t)
    m = (rnn.CrossEntropyLoss if ce else rnn.NLLLoss)(ignore_index=7, reduction=reduction)
    assert_bits(m(x, t2), np.float32(wl), 'module ignore_index=7')


def test_ignore_index_all_rows():
    loss = ops.cross_entropy(data((3, 4), 1), torch.full((3,), -100))
    assert torch.isnan(loss)
    loss = ops.cross_entropy(data((3, 4), 1), torch.full((3,), -100), reduction='sum')
    assert loss.view(torch.int32).item() == np.int32(np.float32(-0.0).view(np.int32))


@pytest.mark.parametrize('op', ['erf', 'sin', 'cos'])
def test_erf_sin_cos(clib, op):
    x = random_bits(6000, 51)
    xr = _req(x)
    y = getattr(ops, op)(xr)
    assert_bits(y, canon(clib.unary(op, t2n(x))), op)
    g = data(x.shape, 52)
    y.backward(g)
    xn, gn = t2n(x), t2n(g)
    if op == 'sin':
        d = clib.unary('cos', xn)
    elif op == 'cos':
        d = clib.scale(-1.0, clib.unary('sin', xn))
    else:
        d = clib.scale(np.float32(2 / np.sqrt(np.pi)),
                       clib.unary('exp', clib.scale(-1.0, clib.mul(xn, xn))))
    assert_bits(xr.grad, canon(clib.mul(gn, d)), op + ' backward')


@pytest.mark.parametrize('affine', [True, False])
@pytest.mark.parametrize('shape', [(6, 3), (4, 3, 5, 2)])
def test_batch_norm_eval_backward(clib, affine, shape):
    c = shape[1]
    m = (rnn.BatchNorm1d if len(shape) == 2 else rnn.BatchNorm2d)(c, affine=affine)
    with torch.no_grad():
        m.running_mean.copy_(data((c,), 61))
        m.running_var.copy_(data((c,), 62).abs() + 0.5)
        if affine:
            m.weight.copy_(data((c,), 63))
            m.bias.copy_(data((c,), 64))
    m.eval()
    x = _req(data(shape, 65))
    y = m(x)
    g = data(shape, 66)
    y.backward(g)
    rv, eps = t2n(m.running_var), np.float32(m.eps)
    rs = np.float32(1) / np.sqrt(rv + eps)          # each step correctly rounded
    assert rs.dtype == np.float32
    gam = t2n(m.weight) if affine else None
    k = (gam * rs) if affine else rs
    kx = k.reshape([1, c] + [1] * (len(shape) - 2))
    assert_bits(x.grad, t2n(g) * kx, 'dx')
    if affine:
        _, dg, db = clib.batch_norm_backward(t2n(x), gam, t2n(m.running_mean), rs, t2n(g))
        assert_bits(m.weight.grad, dg, 'dgamma')
        assert_bits(m.bias.grad, db, 'dbeta')


def test_linear_zero_extents():
    repdl.random.default_generator.manual_seed(1)
    m = rnn.Linear(0, 3)
    with torch.no_grad():
        m.bias.copy_(torch.tensor([1.5, -2.0, 0.25]))
    x = _req(torch.zeros(4, 0))
    y = m(x)
    assert y.shape == (4, 3)
    assert_bits(y, np.tile(t2n(m.bias), (4, 1)), 'bias only')
    y.backward(torch.ones(4, 3))
    assert m.weight.grad.shape == (3, 0) and x.grad.shape == (4, 0)
    assert_bits(m.bias.grad, np.full(3, 4.0, np.float32), 'db')
    m2 = rnn.Linear(5, 0)
    y2 = m2(_req(data((2, 7, 5), 1)))
    assert y2.shape == (2, 7, 0)
    m3 = rnn.Linear(5, 2)
    x3 = _req(torch.zeros(0, 5))
    y3 = m3(x3)
    assert y3.shape == (0, 2)
    y3.sum().backward()
    assert x3.grad.shape == (0, 5)
    assert m3.weight.grad.shape == (2, 5)
    y4 = rnn.Linear(0, 0)(torch.zeros(3, 0))
    assert y4.shape == (3, 0)


def test_rms_norm_module(clib):
    m = rnn.RMSNorm(7, eps=1e-6)
    with torch.no_grad():
        m.weight.copy_(data((7,), 71))
    x = _req(data((5, 7), 72))
    y = m(x)
    wy, r = clib.rms_norm(t2n(x), t2n(m.weight), np.float32(1e-6))
    assert_bits(y, wy, 'rms_norm')
    g = data((5, 7), 73)
    y.backward(g)
    dx, dg = clib.rms_norm_backward(t2n(x), t2n(m.weight), r, t2n(g))
    assert_bits(x.grad, dx, 'dx')
    assert_bits(m.weight.grad, dg, 'dweight')
    assert set(m.state_dict()) == {'weight'}


# ---- docstrings ----

def _public():
    out = []
    for mod, names in ((rnn, rnn.__all__), (ops, ops.__all__), (repdl.optim, repdl.optim.__all__),
                       (repdl.distributed, ['GradientAccumulation', 'units_combine',
                                            'shard_bounds', 'shard_rows',
                                            'register_batch_order_hook'])):
        for n in names:
            obj = getattr(mod, n, None)
            if obj in (torch.nn.Sequential, torch.nn.ModuleList, torch.nn.ModuleDict):
                continue
            out.append((f'{mod.__name__}.{n}', obj))
    out.append(('repdl.from_torch_module', repdl.from_torch_module))
    out.append(('repdl.UnsupportedModuleError', repdl.UnsupportedModuleError))
    return out


@pytest.mark.parametrize('name,obj', _public(), ids=[n for n, _ in _public()])
def test_docstring(name, obj):
    # the object's own docstring, not one inherited from torch's class
    assert obj is not None, f'{name} does not exist'
    doc = obj.__dict__.get('__doc__') if inspect.isclass(obj) else obj.__doc__
    assert doc and len(doc.strip()) > 20, f'{name} has no docstring of its own'


# ---- bad input ----

@pytest.mark.parametrize('dtype', [torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize('fn', ['gelu', 'linear', 'layer_norm', 'module'])
def test_other_dtypes_refused(dtype, fn):
    x = torch.ones(2, 4, dtype=dtype)
    call = {'gelu': lambda: ops.gelu(x),
            'linear': lambda: ops.linear(x, torch.ones(3, 4)),
            'layer_norm': lambda: ops.layer_norm(x, (4,)),
            'module': lambda: rnn.Linear(4, 3)(x)}[fn]
    with pytest.raises(TypeError, match=str(dtype).replace('.', r'\.') + '.*float32'):
        call()


def test_other_dtype_parameters_refused_by_convert():
    with pytest.raises(repdl.UnsupportedModuleError, match='float64'):
        repdl.from_torch_module(torch.nn.Sequential(torch.nn.Linear(2, 2).double()))


class _OnDevice:
    def __init__(self, dev):
        self.device = torch.device(dev)


@pytest.mark.skipif(repdl.cuda_built, reason='the CUDA build computes on CUDA tensors')
def test_cuda_tensor_without_cuda_build():
    with pytest.raises(RuntimeError, match=r'no CUDA support.*\.cpu\(\)'):
        repdl._device.check(_OnDevice('cuda:0'), 'input')


def test_other_device_refused():
    x = torch.empty(2, 3, device='meta')
    with pytest.raises(RuntimeError, match='device meta'):
        ops.gelu(x)


def test_non_contiguous_and_channels_last_same_bits():
    repdl.random.default_generator.manual_seed(3)
    conv = rnn.Conv2d(3, 4, 3, padding=1)
    x = data((2, 3, 6, 5), 81)
    want = conv(x)
    xc = x.to(memory_format=torch.channels_last)
    assert not xc.is_contiguous()
    assert_bits(conv(xc), t2n(want), 'conv2d channels_last')
    xr, xcr = _req(x), _req(xc)
    conv(xr).backward(torch.ones(2, 4, 6, 5))
    g1 = conv.weight.grad.clone()
    conv.weight.grad = None
    conv(xcr).backward(torch.ones(2, 4, 6, 5))
    assert_bits(conv.weight.grad, t2n(g1), 'conv2d dw channels_last')
    assert_bits(xcr.grad, t2n(xr.grad), 'conv2d dx channels_last')
    # a transposed (strided) input to linear and a strided slice to gelu
    xt = data((5, 8), 82).t()
    assert not xt.is_contiguous()
    lin = rnn.Linear(5, 2)
    assert_bits(lin(xt), t2n(lin(xt.contiguous())), 'linear transposed')
    xs = data((40,), 83)[::3]
    assert_bits(ops.gelu(xs), t2n(ops.gelu(xs.contiguous())), 'gelu strided')
