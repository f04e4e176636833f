# SPDX-License-Identifier: MIT
"""repdl.nn modules, repdl.from_torch_module, initialisation from repdl's
Philox, and the errors on bad input."""
import numpy as np
import pytest
import torch

import repdl
from common import assert_bits, data, t2n
from repdl import nn, ops

tnn = torch.nn


def lenet(m):
    """LeNet-5 of examples/train_fmnist.c from the module namespace m."""
    return m.Sequential(
        m.Conv2d(1, 6, 5, padding=2), m.ReLU(), m.MaxPool2d(2),
        m.Conv2d(6, 16, 5), m.ReLU(), m.MaxPool2d(2), m.Flatten(),
        m.Linear(400, 120), m.ReLU(), m.Linear(120, 84), m.ReLU(), m.Linear(84, 10))


def mlp(m):
    return m.Sequential(m.Linear(20, 32), m.LayerNorm(32), m.GELU(), m.Dropout(0.25),
                        m.Linear(32, 16), m.SiLU(), m.Linear(16, 5), m.LogSoftmax(dim=1))


def _run(model, x, t, loss_fn, seed):
    repdl.random.manual_seed(seed)  # the dropout stream
    model.zero_grad()
    y = model(x)
    loss_fn(y, t).backward()
    return [y.detach()] + [p.grad for p in model.parameters()]


@pytest.mark.parametrize('arch,shape,loss', [('lenet', (20, 1, 28, 28), 'ce'),
                                             ('mlp', (24, 20), 'nll')])
def test_from_torch_module_equals_repdl_nn(arch, shape, loss):
    build = lenet if arch == 'lenet' else mlp
    torch.manual_seed(0)
    tm = build(tnn)
    repdl.random.manual_seed(1)
    rm = build(nn)
    rm.load_state_dict(tm.state_dict())  # the same layout both ways
    before = {k: v.clone() for k, v in tm.state_dict().items()}
    conv = repdl.from_torch_module(tm)
    assert conv is tm
    for k, v in tm.state_dict().items():  # weights kept exactly
        assert torch.equal(v.view(torch.int32), before[k].view(torch.int32)), k
    assert all(type(m).__module__.startswith('repdl') or isinstance(m, tnn.Sequential)
               for m in tm.modules())
    x = data(shape, 60)
    t = torch.arange(shape[0]) % (10 if arch == 'lenet' else 5)
    lf = nn.CrossEntropyLoss() if loss == 'ce' else nn.NLLLoss()
    a, b = _run(tm, x, t, lf, 7), _run(rm, x, t, lf, 7)
    for i, (u, v) in enumerate(zip(a, b)):
        assert torch.equal(u.view(torch.int32), v.view(torch.int32)), f'tensor {i} differs'


def test_lenet_init_is_the_c_programs(clib):
    """repdl.nn's init from manual_seed(s): tensor t (conv1.w, conv1.b, ...,
    fc3.b) is repdl_rng_uniform_fill_f32(n, s, t << 32, -b, b), b =
    RN(1 / RN(sqrt(fan_in))): examples/train_fmnist.c's model_init_weights."""
    repdl.random.manual_seed(1)
    model = lenet(nn)
    fans = [25, 25, 150, 150, 400, 400, 120, 120, 84, 84]
    for t, (p, fan) in enumerate(zip(model.parameters(), fans)):
        bnd = np.float32(1) / clib.sqrt1(float(fan))
        assert_bits(p.reshape(-1), clib.uniform(p.numel(), 1, t << 32, -bnd, bnd), f'tensor {t}')


def test_state_dict_layout_and_signatures():
    for tm, rm in [(tnn.Linear(3, 4, bias=False), nn.Linear(3, 4, bias=False)),
                   (tnn.Conv2d(2, 3, (3, 1), stride=2, padding=1), nn.Conv2d(2, 3, (3, 1),
                                                                            stride=2, padding=1)),
                   (tnn.BatchNorm2d(5), nn.BatchNorm2d(5)), (tnn.LayerNorm([2, 3]),
                                                             nn.LayerNorm([2, 3]))]:
        ts, rs = tm.state_dict(), rm.state_dict()
        assert list(ts) == list(rs)
        assert all(ts[k].shape == rs[k].shape and ts[k].dtype == rs[k].dtype for k in ts)
        assert repr(tm) == repr(rm)


def test_batchnorm_module_updates_running_stats(clib):
    bn = nn.BatchNorm2d(3)
    x = data((4, 3, 2, 2), 61)
    rm, rv = t2n(bn.running_mean), t2n(bn.running_var)
    bn(x)
    _, _, _ = clib.batch_norm_train(t2n(x), t2n(bn.weight), t2n(bn.bias), rm, rv, 1e-5, 0.1)
    assert_bits(bn.running_mean, rm, 'running_mean')
    assert_bits(bn.running_var, rv, 'running_var')
    assert int(bn.num_batches_tracked) == 1
    bn.eval()
    bn(x)
    assert int(bn.num_batches_tracked) == 1


class Custom(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(3, 3)

    def forward(self, x):
        return torch.softmax(self.fc(x), 1)


def test_unsupported_modules_raise_and_change_nothing():
    model = tnn.Sequential(tnn.Linear(3, 3), tnn.LSTM(3, 3), tnn.Conv2d(2, 2, 3, groups=2),
                           tnn.ReLU())
    with pytest.raises(repdl.UnsupportedModuleError) as e:
        repdl.from_torch_module(model)
    msg = str(e.value)
    assert 'LSTM' in msg and '1 (' in msg and 'groups=2' in msg
    assert type(model[0]) is tnn.Linear and type(model[3]) is tnn.ReLU  # nothing converted
    with pytest.raises(repdl.UnsupportedModuleError, match='forward'):
        repdl.from_torch_module(tnn.Sequential(Custom()))
    c = repdl.from_torch_module(tnn.Sequential(Custom()), strict=False)
    assert type(c[0].fc) is nn.Linear
    with pytest.raises(repdl.UnsupportedModuleError, match='float64'):
        repdl.from_torch_module(tnn.Linear(2, 2).double())
    with pytest.raises(repdl.UnsupportedModuleError, match='Softsign'):
        repdl.from_torch_module(tnn.Softsign())


def test_bad_dtype_device_shape():
    x = torch.ones(2, 3)
    for dt in (torch.float64, torch.float16, torch.bfloat16, torch.int32):
        with pytest.raises(TypeError, match='float32'):
            ops.exp(x.to(dt))
    with pytest.raises(TypeError, match='float32'):
        ops.linear(x, torch.ones(4, 3, dtype=torch.float64))
    with pytest.raises(RuntimeError, match='CUDA'):
        ops.exp(torch.empty(3, device='meta'))
    with pytest.raises(RuntimeError, match=r'mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)'):
        ops.mm(x, torch.ones(4, 5))
    with pytest.raises(RuntimeError, match=r'mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)'):
        ops.linear(x, torch.ones(5, 4))
    with pytest.raises(RuntimeError, match='expected input'):
        ops.conv2d(torch.ones(1, 3, 5, 5), torch.ones(2, 1, 3, 3))
    with pytest.raises(RuntimeError, match='normalized_shape'):
        ops.layer_norm(x, (4,))
    with pytest.raises(RuntimeError, match='inconsistent tensor size'):
        ops.dot(torch.ones(3), torch.ones(4))
    with pytest.raises(IndexError, match='out of bounds'):
        ops.cross_entropy(x, torch.tensor([0, 3]))
    with pytest.raises(ValueError, match='batch_size'):
        ops.cross_entropy(x, torch.tensor([0, 1, 2]))
    with pytest.raises(IndexError, match='Dimension out of range'):
        ops.softmax(x, dim=2)
    with pytest.raises(ValueError, match='dropout probability'):
        ops.dropout(x, 1.5)
    with pytest.raises(NotImplementedError):
        ops.conv2d(torch.ones(1, 2, 5, 5), torch.ones(2, 1, 3, 3), groups=2)


def test_noncontiguous_and_requires_grad():
    base = data((6, 8), 62)
    nc = base.t()
    assert not nc.is_contiguous()
    assert torch.equal(ops.exp(nc).view(torch.int32), ops.exp(nc.contiguous()).view(torch.int32))
    assert torch.equal(ops.softmax(nc, 1).view(torch.int32),
                       ops.softmax(nc.contiguous(), 1).view(torch.int32))
    a = torch.ones(2, 3)
    assert not ops.exp(a).requires_grad
    w = torch.ones(4, 3, requires_grad=True)
    y = ops.linear(a, w)
    assert y.requires_grad and y.grad_fn is not None
    y.sum().backward()
    assert a.grad is None and w.grad is not None
    with torch.no_grad():
        assert not ops.linear(a, w).requires_grad
