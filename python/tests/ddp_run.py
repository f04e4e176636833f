# SPDX-License-Identifier: MIT
"""Runner of python/tests/test_distributed.py: trains a small model for a
few steps and writes one line per step, the SHA-256 of every gradient and
of the weights after the update, to OUT (rank 0; every rank checks that
its weights equal rank 0's).

    python3 ddp_run.py MODE WORLD PORT MODEL BATCH OUT

MODE single: one process, no DDP (the reference; WORLD ignored).
MODE hook:   WORLD processes (gloo), DistributedDataParallel with
             repdl.distributed's hook, each rank on shard_rows.
MODE plain:  WORLD processes, DDP's own allreduce (average of the ranks'
             local means): shows that the test can tell the difference.
MODEL mlp (Linear, LayerNorm, GELU, Linear, SiLU, Linear) or conv (Conv2d,
ReLU, MaxPool2d, Conv2d, Tanh, AvgPool2d, Flatten, Linear).
"""
import hashlib
import os
import sys

import torch
import torch.distributed as dist

try:
    # the repdl on PYTHONPATH (scripts/python.sh test: python/; check-cuda:
    # the CUDA build in its temporary directory, while the source tree's
    # python/repdl may have no _C at all)
    import repdl
except ImportError:
    # run by hand: the package next to this directory
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import repdl  # noqa: E402
from repdl import nn as rnn  # noqa: E402

STEPS = 3


def model_of(kind):
    repdl.random.manual_seed(7)
    if kind == 'mlp':
        return torch.nn.Sequential(rnn.Linear(24, 32), rnn.LayerNorm(32), rnn.GELU(),
                                   rnn.Linear(32, 16), rnn.SiLU(), rnn.Linear(16, 5))
    return torch.nn.Sequential(rnn.Conv2d(2, 4, 3, padding=1), rnn.ReLU(), rnn.MaxPool2d(2),
                               rnn.Conv2d(4, 6, 3), rnn.Tanh(), rnn.AvgPool2d(2),
                               rnn.Flatten(), rnn.Linear(6, 5))


def data_of(kind, batch, step):
    shape = (batch, 24) if kind == 'mlp' else (batch, 2, 8, 8)
    x = torch.empty(shape)
    repdl.random.normal_(x, 0.0, 2.0, seed=11, offset=step)
    y = repdl.random.permutation(batch * 5, seed=12, offset=step)[:batch] % 5
    return x, y


def digest(tensors):
    h = hashlib.sha256()
    for t in tensors:
        h.update(t.detach().contiguous().numpy().tobytes())
    return h.hexdigest()


def train(mode, world, rank, kind, batch):
    model = model_of(kind)
    params = list(model.parameters())
    lo, hi = 0, batch
    net = model
    if mode == 'single':
        loss_fn = rnn.CrossEntropyLoss()
    else:
        net = torch.nn.parallel.DistributedDataParallel(model)
        if mode == 'hook':
            repdl.distributed.register_batch_order_hook(net, batch)
            lo, hi = repdl.distributed.shard_rows(batch, world, rank)
            loss_fn = rnn.CrossEntropyLoss(global_batch_size=batch)
        else:
            lo, hi = rank * batch // world, (rank + 1) * batch // world
            loss_fn = rnn.CrossEntropyLoss()
    opt = repdl.optim.SGD(params, lr=0.1, momentum=0.9)
    lines = []
    for step in range(STEPS):
        x, y = data_of(kind, batch, step)
        opt.zero_grad(set_to_none=True)
        loss_fn(net(x[lo:hi]), y[lo:hi]).backward()
        grads = digest([p.grad for p in params])
        opt.step()
        lines.append(f'step {step} grads {grads} weights {digest(params)}')
    return lines, torch.cat([p.detach().reshape(-1) for p in params])


def worker(rank, mode, world, port, kind, batch, out):
    os.environ['MASTER_ADDR'] = '127.0.0.1'
    os.environ['MASTER_PORT'] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group('gloo', rank=rank, world_size=world)
    lines, w = train(mode, world, rank, kind, batch)
    everyone = [torch.empty_like(w) for _ in range(world)]
    dist.all_gather(everyone, w)
    same = all(torch.equal(e.view(torch.int32), w.view(torch.int32)) for e in everyone)
    if rank == 0:
        with open(out, 'w') as f:
            f.write('\n'.join(lines) + '\n')
            f.write(f'ranks_agree {int(same)}\n')
    dist.destroy_process_group()


def main():
    mode, world, port, kind, batch, out = sys.argv[1:7]
    world, port, batch = int(world), int(port), int(batch)
    if mode == 'single':
        torch.set_num_threads(1)
        lines, _ = train(mode, 1, 0, kind, batch)
        with open(out, 'w') as f:
            f.write('\n'.join(lines) + '\n')
            f.write('ranks_agree 1\n')
        return
    torch.multiprocessing.spawn(worker, args=(mode, world, port, kind, batch, out), nprocs=world)


if __name__ == '__main__':
    main()
