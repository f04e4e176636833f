# SPDX-License-Identifier: MIT
"""repdl on CUDA tensors (docs/python.md, "CUDA"): needs the CUDA build of
repdl._C (repdl.cuda_built) and a GPU (torch.cuda.is_available()); without
either, this module is one skipped test with the reason, never a pass.

Every repdl.ops function, forward and backward, repdl.random's fills,
repdl.optim's steps (optimizer state moved to the device and back) and a
small repdl.nn model give on CUDA tensors the bits they give on the CPU,
which test_ops_bits.py proves equal to the C library's; inputs on two
devices raise PyTorch's error; a function with no CUDA form raises
NotImplementedError; launches follow torch's current stream and device.
The checks of the CUDA build that need no GPU: test_cuda_build.py.
"""
import copy

import pytest
import torch

import repdl
from common import assert_bits, data, random_bits, t2n
from repdl import ops

if not repdl.cuda_built:
    pytest.skip('repdl._C is the CPU build (repdl.cuda_built is False): no CUDA op to compare; '
                'the CUDA build needs a torch with CUDA, nvcc and a GPU '
                '(bash scripts/python.sh build-cuda)', allow_module_level=True)
if not torch.cuda.is_available():
    pytest.skip(f'no GPU: torch.cuda.is_available() is False (torch {torch.__version__}, built '
                f'with CUDA {torch.version.cuda}): the CUDA build of repdl._C is compiled but no '
                'CUDA op can run here', allow_module_level=True)


# ---- With a GPU: the CUDA results are the CPU results, bit for bit ----

def _run(fn, inputs, device, grad_seed):
    """fn(*inputs on device); backward of every float output with fixed
    gradients; the outputs and the inputs' gradients, on the CPU."""
    xs = [t.detach().to(device).requires_grad_(t.requires_grad) if isinstance(t, torch.Tensor)
          else t for t in inputs]
    out = fn(*xs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    diff = [o for o in outs if o.requires_grad]
    if diff:
        gs = [data(o.shape, grad_seed + i, specials=5 if o.numel() > 16 else 0).to(device)
              for i, o in enumerate(diff)]
        torch.autograd.backward(diff, gs)
    grads = [x.grad.cpu() if isinstance(x, torch.Tensor) and x.grad is not None else None
             for x in xs]
    return [o.detach().cpu() for o in outs], grads


def same(fn, *inputs, what=''):
    """fn gives the same bits (outputs and gradients) on CUDA as on the CPU."""
    got, ggot = _run(fn, inputs, 'cuda', 7)
    want, gwant = _run(fn, inputs, 'cpu', 7)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        if w.dtype == torch.float32:
            assert_bits(g, t2n(w), f'{what} output {i}')
        else:
            assert torch.equal(g, w), f'{what} output {i}'
    for i, (g, w) in enumerate(zip(ggot, gwant)):
        assert (g is None) == (w is None), f'{what} grad {i}'
        if w is not None:
            assert_bits(g, t2n(w), f'{what} grad {i}')


def req(t):
    return t.requires_grad_()


@pytest.mark.parametrize('op', list(repdl._C.unary_ops))  # include/repdl/op_table.h's
def test_unary(op):
    f = (lambda x: ops.gelu(x, approximate='tanh')) if op == 'gelu_tanh' else getattr(ops, op)
    same(f, req(random_bits(1 << 15, 1)), what=op)


@pytest.mark.parametrize('kind', ['sum', 'mean', 'var', 'norm'])
@pytest.mark.parametrize('shape,dim', [((1000,), None), ((37, 129), None), ((37, 129), 1),
                                       ((37, 129), 0), ((3, 4, 5), 1), ((2, 70000), 1),
                                       ((300000,), None), ((4, 0), 1), ((0, 4), 1)])
def test_reduction(kind, shape, dim):
    for kw in ({},) if kind != 'var' else ({}, {'unbiased': False}, {'correction': 5}):
        same(lambda x: getattr(ops, kind)(x, dim=dim, **kw),
             req(data(shape, 3, specials=3 if len(shape) > 1 and shape[0] else 0)),
             what=f'{kind} {shape} dim={dim} {kw}')
    same(lambda x: getattr(ops, kind)(x, dim=dim, keepdim=True), req(data(shape, 4)),
         what=f'{kind} keepdim')


def test_dot_and_matmul():
    same(ops.dot, req(data((10000,), 1, specials=5)), req(data((10000,), 2)), what='dot')
    same(ops.mm, req(data((33, 70), 3)), req(data((70, 45), 4)), what='mm')
    same(ops.matmul, req(data((2, 3, 5, 7), 5)), req(data((3, 7, 4), 6)), what='batched matmul')
    same(ops.matmul, req(data((5, 7), 7)), req(data((7,), 8)), what='matrix-vector')


@pytest.mark.parametrize('bias', [True, False])
def test_linear(bias):
    b = req(data((45,), 3)) if bias else None
    same(lambda x, w, b: ops.linear(x, w, b), req(data((40, 70), 1, specials=4)),
         req(data((45, 70), 2)), b, what='linear')


def test_conv2d():
    same(lambda x, w, b: ops.conv2d(x, w, b, stride=2, padding=1),
         req(data((20, 3, 11, 9), 1, specials=4)), req(data((5, 3, 3, 3), 2)),
         req(data((5,), 3)), what='conv2d stride 2 padding 1')
    same(lambda x, w: ops.conv2d(x, w, None, padding='same', dilation=2),
         req(data((2, 4, 8, 8), 4)), req(data((3, 4, 3, 3), 5)), what='conv2d dilation 2')


def test_pooling():
    x = data((3, 2, 9, 8), 1, specials=8)
    same(lambda x: ops.max_pool2d(x, 3, 2, 1, return_indices=True), req(x.clone()),
         what='max_pool2d')
    for cip in (True, False):
        same(lambda x: ops.avg_pool2d(x, 3, 2, 1, count_include_pad=cip), req(x.clone()),
             what=f'avg_pool2d cip={cip}')


@pytest.mark.parametrize('dim', [0, 1, -1])
def test_softmax(dim):
    x = data((37, 129), 1, specials=4)
    same(lambda x: ops.softmax(x, dim), req(x.clone()), what='softmax')
    same(lambda x: ops.log_softmax(x, dim), req(x.clone()), what='log_softmax')


def test_norms():
    x = data((6, 5, 40), 1, specials=3)
    same(lambda x, g, b: ops.layer_norm(x, (40,), g, b), req(x.clone()),
         req(data((40,), 2)), req(data((40,), 3)), what='layer_norm')
    same(lambda x: ops.layer_norm(x, (5, 40)), req(x.clone()), what='layer_norm plain')
    same(lambda x, g: ops.rms_norm(x, (40,), g), req(x.clone()), req(data((40,), 4)),
         what='rms_norm')
    xb = data((20, 3, 4, 5), 5, specials=2)
    for training in (True, False):  # evaluation mode has no backward (docs/python.md)
        rm, rv = data((3,), 6), data((3,), 7).abs()
        rmc, rvc = rm.cuda(), rv.cuda()
        grad = req if training else (lambda t: t)
        same(lambda x, g, b: ops.batch_norm(x, rmc if x.is_cuda else rm,
                                            rvc if x.is_cuda else rv, g, b, training),
             grad(xb.clone()), grad(data((3,), 8)), grad(data((3,), 9)),
             what=f'batch_norm training={training}')
        assert_bits(rmc.cpu(), t2n(rm), 'running_mean')
        assert_bits(rvc.cpu(), t2n(rv), 'running_var')


def test_dropout():
    x = data((1000, 7), 1)
    same(lambda x: ops.dropout(x, 0.3, seed=5, offset=3 << 32), req(x.clone()), what='dropout')


@pytest.mark.parametrize('ce', [True, False])
@pytest.mark.parametrize('reduction,gbs', [('mean', None), ('sum', None), ('mean', 100)])
def test_losses(ce, reduction, gbs):
    """The loss and its gradient times the incoming one (a random scalar
    in same(): repdl_scale_f32's path); gbs: a shard of a global batch
    (repdl_cuda_div_count_f32 on the device)."""
    target = torch.arange(70) % 9
    fn = ops.cross_entropy if ce else ops.nll_loss
    same(lambda x: fn(x, target.to(x.device), reduction=reduction, global_batch_size=gbs),
         req(data((70, 9), 1, specials=3)), what=f'loss ce={ce} {reduction} {gbs}')


def test_random():
    for fill in (repdl.random.uniform_, repdl.random.normal_):
        a, b = torch.empty(10001), torch.empty(10001, device='cuda')
        fill(a, -2.0, 3.0, seed=9, offset=5)
        fill(b, -2.0, 3.0, seed=9, offset=5)
        assert_bits(b.cpu(), t2n(a), fill.__name__)
        nc_a, nc_b = torch.empty(30, 20).t(), torch.empty(30, 20, device='cuda').t()
        fill(nc_a, seed=1, offset=2)
        fill(nc_b, seed=1, offset=2)
        assert_bits(nc_b.cpu(), t2n(nc_a), fill.__name__ + ' non-contiguous')


@pytest.mark.parametrize('make', [
    lambda ps: repdl.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=1e-3),
    lambda ps: repdl.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
    lambda ps: repdl.optim.Adam(ps, lr=1e-2, weight_decay=1e-3),
    lambda ps: repdl.optim.AdamW(ps, lr=1e-2)])
def test_optimizers(make):
    w0 = data((300,), 1)
    runs = []
    for dev in ('cpu', 'cuda'):
        w = torch.nn.Parameter(w0.clone().to(dev))
        opt = make([w])
        for step in range(3):
            w.grad = data((300,), 10 + step, specials=2).to(dev)
            opt.step()
            if step == 1:  # state to the device and back, as load_state_dict does
                opt.load_state_dict(copy.deepcopy(opt.state_dict()))
        runs.append(w.detach().cpu())
    assert_bits(runs[1], t2n(runs[0]), 'optimizer')


def test_model_from_repdl_nn():
    repdl.random.manual_seed(3)
    model = torch.nn.Sequential(
        repdl.nn.Conv2d(1, 4, 3), repdl.nn.ReLU(), repdl.nn.MaxPool2d(2), repdl.nn.Flatten(),
        repdl.nn.Linear(4 * 5 * 5, 16), repdl.nn.LayerNorm(16), repdl.nn.GELU(),
        repdl.nn.Linear(16, 10))
    x, t = data((20, 1, 12, 12), 1), torch.arange(20) % 10
    res = []
    for m, dev in ((model, 'cpu'), (copy.deepcopy(model).cuda(), 'cuda')):
        loss = repdl.nn.CrossEntropyLoss()(m(x.to(dev)), t.to(dev))
        loss.backward()
        res.append([loss.detach().cpu().reshape(1)] + [p.grad.cpu() for p in m.parameters()])
    for i, (g, w) in enumerate(zip(res[1], res[0])):
        assert_bits(g, t2n(w), f'model tensor {i}')


def test_mixed_devices_raise():
    with pytest.raises(RuntimeError, match='Expected all tensors to be on the same device'):
        ops.mm(torch.ones(2, 2, device='cuda'), torch.ones(2, 2))
    with pytest.raises(RuntimeError, match='Expected all tensors to be on the same device'):
        ops.cross_entropy(torch.ones(2, 3, device='cuda'), torch.zeros(2, dtype=torch.int64))


def test_no_cuda_form_raises(monkeypatch):
    monkeypatch.delattr(repdl._C, 'cuda_dot')
    with pytest.raises(NotImplementedError, match='dot has no CUDA implementation'):
        repdl._device._Dispatch().dot(torch.ones(3, device='cuda'), torch.ones(3, device='cuda'))


def test_side_stream_and_second_device():
    """The launches follow torch's current stream (and device): the same
    bits on a side stream, and on cuda:1 where there is one."""
    x = data((64, 300), 1)
    want = t2n(ops.softmax(x, 1))
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        y = ops.softmax(x.cuda(), 1)
    s.synchronize()
    assert_bits(y.cpu(), want, 'softmax on a side stream')
    if torch.cuda.device_count() > 1:
        assert_bits(ops.softmax(x.to('cuda:1'), 1).cpu(), want, 'softmax on cuda:1')
