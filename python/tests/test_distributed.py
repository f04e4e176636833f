# SPDX-License-Identifier: MIT
"""repdl.distributed (docs/python.md, "Data parallel"): DistributedDataParallel
over 1-4 gloo processes with the batch-order hook gives the single-process
gradients and weights bit for bit (ddp_run.py: three SGD steps of an MLP
with LayerNorm/GELU/SiLU and of a conv/pool model, batches 64, 96 and 100,
the last one ending in a short micro-batch); DDP's own averaging does not
(the test can tell).  The pieces against independent references: the
shards are nodes of the batch tree (a recursive definition written here),
the loss of a shard against the C library's full MEAN call (ctypes), the
combination against ctypes repdl_units_combine_f32."""
import os
import socket
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.distributed as dist

import repdl
from repdl import nn as rnn
from repdl import ops
from common import assert_bits, data, t2n

HERE = os.path.dirname(os.path.abspath(__file__))

pytestmark = pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(),
                                reason='torch.distributed with gloo is not available')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def run(mode, world, kind, batch, tmp_path):
    out = tmp_path / f'{mode}-{world}-{kind}-{batch}.txt'
    subprocess.run([sys.executable, os.path.join(HERE, 'ddp_run.py'), mode, str(world),
                    str(free_port()), kind, str(batch), str(out)], check=True, timeout=300)
    lines = out.read_text().splitlines()
    assert len(lines) == 4 and lines[-1] == 'ranks_agree 1', lines
    return lines[:-1]


@pytest.mark.parametrize('kind,batch,worlds', [('mlp', 64, (2, 3, 4)), ('conv', 100, (2, 3))])
def test_ddp_hook_gives_single_process_bits(kind, batch, worlds, tmp_path):
    want = run('single', 1, kind, batch, tmp_path)
    for w in worlds:
        assert run('hook', w, kind, batch, tmp_path) == want, f'{w} processes'


def test_ddp_average_differs(tmp_path):
    # DDP's allreduce averages the ranks' local means (32 rows each): not the
    # single-process bits, so the equality above is not vacuous.
    assert run('plain', 3, 'mlp', 96, tmp_path) != run('single', 1, 'mlp', 96, tmp_path)


def is_node(b, c, G):
    """[b, b + c) is a node of the buddy tree over G leaves: the recursive
    definition (root [0, 2^K) clipped to G, children the two halves)."""
    def walk(lo, size):
        if lo >= G:
            return False
        if lo == b and min(size, G - lo) == c:
            return True
        return size > 1 and (walk(lo, size // 2) or walk(lo + size // 2, size // 2))
    K = 1
    while K < G:
        K *= 2
    return walk(0, K)


def test_shards_are_nodes():
    for B in list(range(1, 70)) + [100, 255, 256, 1000]:
        G = (B + 15) // 16
        for W in range(1, min(G, 9) + 1):
            b = repdl.distributed.shard_bounds(B, W)
            assert b[0] == 0 and b[-1] == G and len(b) == W + 1
            for r in range(W):
                assert b[r] < b[r + 1] and is_node(b[r], b[r + 1] - b[r], G), (B, W, b)
            rows = [repdl.distributed.shard_rows(B, W, r) for r in range(W)]
            assert rows[0][0] == 0 and rows[-1][1] == B
            assert all(rows[r][1] == rows[r + 1][0] for r in range(W - 1))
    assert repdl.distributed.shard_bounds(64, 3) == [0, 1, 2, 4]
    assert repdl.distributed.shard_bounds(100, 2) == [0, 4, 7]


def test_shard_errors():
    with pytest.raises(ValueError, match='micro-batches'):
        repdl.distributed.shard_bounds(16, 2)
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError):
            repdl.distributed.shard_bounds(bad, 1)
        with pytest.raises(ValueError):
            repdl.distributed.shard_bounds(64, bad)
    with pytest.raises(ValueError):
        repdl.distributed.shard_rows(64, 2, 2)


@pytest.mark.parametrize('ce', [True, False])
def test_loss_of_a_shard(clib, ce):
    B = 70
    x = data((B, 10), 50, specials=0)
    x[5, 2] = float('nan')
    t = torch.randint(0, 10, (B,), generator=torch.Generator().manual_seed(51))
    _, g_full = clib.loss(ce, t2n(x), t.numpy(), 0)   # MEAN over all B rows
    fn = ops.cross_entropy if ce else ops.nll_loss
    for lo, hi in ((0, 16), (16, 48), (48, 70), (0, 70)):
        xs = x[lo:hi].clone().requires_grad_()
        loss = fn(xs, t[lo:hi], global_batch_size=B)
        s, _ = clib.loss(ce, t2n(xs), t[lo:hi].numpy(), 1)  # SUM over the shard
        assert_bits(loss.reshape(1), clib.div_count(np.array([s]), B), 'shard loss')
        loss.backward()
        assert_bits(xs.grad, g_full[lo:hi], f'rows {lo}:{hi}')
    m = rnn.CrossEntropyLoss(global_batch_size=B) if ce else rnn.NLLLoss(global_batch_size=B)
    xs = x[:16].clone().requires_grad_()
    m(xs, t[:16]).backward()
    assert_bits(xs.grad, g_full[:16], 'module')


def test_loss_global_batch_errors():
    x, t = data((4, 3), 52), torch.zeros(4, dtype=torch.int64)
    with pytest.raises(ValueError, match="reduction='mean'"):
        ops.cross_entropy(x, t, reduction='sum', global_batch_size=8)
    with pytest.raises(ValueError, match='smaller'):
        ops.cross_entropy(x, t, global_batch_size=3)
    with pytest.raises(TypeError):
        ops.nll_loss(x, t, global_batch_size=8.0)


def test_units_combine_against_c(clib):
    G, V = 7, 33
    for bounds in ([0, 7], [0, 4, 7], [0, 2, 4, 7], [0, 1, 2, 4, 6, 7], [0, 3, 7]):
        nodes = []
        for r in range(len(bounds) - 1):
            cut, s = 0, bounds[r]
            while s < bounds[r + 1]:  # the canonical cut: count this range's nodes
                c = 1
                while s % (2 * c) == 0 and s + 2 * c <= bounds[r + 1]:
                    c *= 2
                if bounds[r + 1] == G and is_node(s, G - s, G):
                    c = G - s
                s, cut = s + c, cut + 1
            nodes.append(data((cut * V,), 60 + r, specials=3 if r == 0 else 0))
        got = repdl._C.units_combine(G, bounds, nodes, V)
        assert_bits(got, clib.units_combine(G, bounds, [t2n(n) for n in nodes], V), str(bounds))
    with pytest.raises(RuntimeError, match='node'):
        repdl._C.units_combine(G, [0, 3, 7], [data((V,), 1), data((V,), 2)], V)


@pytest.fixture
def group(tmp_path):
    dist.init_process_group('gloo', init_method=f'file://{tmp_path}/pg', rank=0, world_size=1)
    yield
    dist.destroy_process_group()


def test_register_refuses_batch_norm_and_dropout(group):
    for bad in (rnn.BatchNorm1d(8), rnn.Dropout(0.5), torch.nn.BatchNorm2d(3)):
        model = torch.nn.Sequential(rnn.Linear(8, 8), bad, rnn.Linear(8, 2))
        with pytest.raises(TypeError, match='single-process'):
            repdl.distributed.register_batch_order_hook(
                torch.nn.parallel.DistributedDataParallel(model), 32)
    ok = torch.nn.Sequential(rnn.Linear(8, 8), rnn.Dropout(0.0), rnn.Linear(8, 2))
    st = repdl.distributed.register_batch_order_hook(torch.nn.parallel.DistributedDataParallel(ok), 32)
    assert st.bounds == [0, 2]
    with pytest.raises(TypeError, match='DistributedDataParallel'):
        repdl.distributed.register_batch_order_hook(ok, 32)
