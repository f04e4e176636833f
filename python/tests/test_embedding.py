# SPDX-License-Identifier: MIT
"""repdl.ops.embedding and repdl.nn.Embedding (include/repdl/embedding.h):
the lookup against torch's, the weight's gradient against the definition
of docs/nn.md written here in numpy (every micro-batch's chain from +0,
then the aligned buddy tree), bit for bit; thread counts, padding_idx,
conversion of torch.nn.Embedding, bad input."""
import numpy as np
import pytest
import torch

import repdl
from common import data
from repdl import nn, ops

MB = 16  # REPDL_MICROBATCH


def _bits(t):
    return t.detach().contiguous().view(torch.int32)


def _tree(vals, lo, k):
    """The aligned buddy tree node (k, lo >> k) over vals (a list)."""
    if k == 0:
        return vals[lo]
    half = 1 << (k - 1)
    if lo + half >= len(vals):
        return _tree(vals, lo, k - 1)
    return np.float32(_tree(vals, lo, k - 1) + _tree(vals, lo + half, k - 1))


def ref_grad(dout, ids, vocab):
    """docs/nn.md's dtable, one element at a time (float32 throughout)."""
    dout = dout.numpy()
    ids = ids.reshape(-1).numpy()
    n, dim = dout.shape
    G = -(-n // MB)
    out = np.zeros((vocab, dim), dtype=np.float32)  # n == 0: +0
    for v in range(vocab):
        for d in range(dim):
            vals = []
            for g in range(G):
                acc = np.float32(0.0)
                for i in range(g * MB, min(n, (g + 1) * MB)):
                    if ids[i] == v:
                        acc = np.float32(acc + dout[i, d])
                vals.append(acc)
            if G:
                K = max(G - 1, 0).bit_length()
                out[v, d] = _tree(vals, 0, K)
    nan = np.isnan(out)
    out.view(np.int32)[nan] = 0x7fc00000
    return torch.from_numpy(out)


@pytest.mark.parametrize('n,vocab,dim', [(0, 3, 4), (1, 1, 1), (16, 5, 3), (17, 5, 3),
                                         (100, 7, 5), (333, 4, 2)])
def test_forward_backward_bits(n, vocab, dim):
    g = torch.Generator().manual_seed(n * 31 + vocab)
    ids = torch.randint(0, vocab, (n,), generator=g)
    w = data((vocab, dim), n + 1, specials=3).requires_grad_()
    y = ops.embedding(ids, w)
    assert torch.equal(_bits(y), _bits(torch.nn.functional.embedding(ids, w.detach())).
                       masked_fill(torch.isnan(y.detach()), 0x7fc00000))
    dy = data((n, dim), n + 2, specials=5)
    y.backward(dy)
    assert torch.equal(_bits(w.grad), _bits(ref_grad(dy, ids, vocab)))
    assert not torch.any(_bits(w.grad) == torch.tensor(-2**31, dtype=torch.int32))  # no -0


def test_shapes_threads_int32():
    ids = torch.randint(0, 50, (4, 37), generator=torch.Generator().manual_seed(3))
    w0 = data((50, 8), 4)
    dy = data((4, 37, 8), 5)
    grads = []
    for threads in (1, 2, 4):
        torch.set_num_threads(threads)
        for idx in (ids, ids.to(torch.int32)):
            w = w0.clone().requires_grad_()
            y = ops.embedding(idx, w)
            assert y.shape == (4, 37, 8)
            y.backward(dy)
            grads.append(_bits(w.grad))
    torch.set_num_threads(1)
    assert all(torch.equal(grads[0], g) for g in grads)
    assert torch.equal(grads[0], _bits(ref_grad(dy.reshape(-1, 8), ids, 50)))


def test_padding_idx_and_module():
    repdl.random.manual_seed(11)
    m = nn.Embedding(10, 4, padding_idx=2)
    assert torch.equal(_bits(m.weight[2]), torch.zeros(4, dtype=torch.int32))
    repdl.random.manual_seed(11)
    m2 = nn.Embedding(10, 4, padding_idx=2)
    assert torch.equal(_bits(m.weight), _bits(m2.weight))  # repdl's Philox, not torch's RNG
    t = torch.nn.Embedding(10, 4, padding_idx=2)
    t.load_state_dict(m.state_dict())  # torch's layout
    ids = torch.tensor([[2, 1, 2], [3, 2, 9]])
    y = m(ids)
    y.backward(torch.ones_like(y))
    assert torch.equal(_bits(y), _bits(t(ids)))
    assert torch.equal(_bits(m.weight.grad[2]), torch.zeros(4, dtype=torch.int32))
    assert torch.equal(m.weight.grad[1], torch.ones(4)) and torch.equal(m.weight.grad[0], torch.zeros(4))


def test_from_torch_module():
    torch.manual_seed(0)
    t = torch.nn.Sequential(torch.nn.Embedding(20, 6), torch.nn.Linear(6, 3))
    ids = torch.randint(0, 20, (5, 7))
    want = [p.detach().clone() for p in t.parameters()]
    conv = repdl.from_torch_module(t)
    assert isinstance(conv[0], nn.Embedding)
    assert all(torch.equal(_bits(p), _bits(q)) for p, q in zip(conv.parameters(), want))
    y = conv(ids)
    y.sum().backward()
    e = conv[0]
    dy = conv[1].weight.detach().sum(0).expand(35, 6).contiguous()  # d(sum)/d(embedding out)
    assert torch.equal(_bits(e.weight.grad), _bits(ref_grad(dy, ids, 20)))
    with pytest.raises(repdl.UnsupportedModuleError):
        repdl.from_torch_module(torch.nn.Embedding(5, 2, max_norm=1.0))


def test_bad_input():
    w = torch.zeros(4, 2)
    for bad in ([4], [-1], [0, 9]):
        with pytest.raises(RuntimeError):
            ops.embedding(torch.tensor(bad), w)
    with pytest.raises(RuntimeError):
        ops.embedding(torch.tensor([0.0]), w)  # float indices
    with pytest.raises(TypeError):
        ops.embedding(torch.tensor([0]), w.double())
    with pytest.raises(NotImplementedError):
        ops.embedding(torch.tensor([0]), w, max_norm=1.0)
    with pytest.raises(NotImplementedError):
        nn.Embedding(4, 2, sparse=True)
    assert ops.embedding(torch.zeros(0, dtype=torch.int64), w).shape == (0, 2)
