# SPDX-License-Identifier: MIT
"""examples/train_fmnist.py: examples/train_fmnist.c from PyTorch.

LeNet-5 built from repdl.nn, initialised and shuffled with repdl.random,
trained with repdl.optim.SGD: the same three SHA-256 hashes as the C
program for the same arguments (docs/train.md, docs/python.md), at any
torch.set_num_threads.

    python3 examples/train_fmnist.py [--epochs E | --steps K] [--batch B]
        [--threads N] [--world W] [--seed S] [--lr LR] [--momentum M]
        [--test-limit T] [--data DIR] [--quiet]

--world W: data parallel over W processes on this machine
(torch.nn.parallel.DistributedDataParallel, gloo) with
repdl.distributed's batch-order hook: rank r trains on rows
repdl.distributed.shard_rows(B, W, r) of every batch, the loss divides by
the global B (CrossEntropyLoss(global_batch_size=B)), and the hook adds the
ranks' gradients by the batch tree: the same hashes as one process.  Under
torchrun (RANK and WORLD_SIZE set) the ranks are torchrun's.

Every number is repdl's: pixels byte / 255 (one IEEE binary32 division),
weights PyTorch's default bound RN(1 / RN(sqrt(fan_in))) drawn from the
Philox stream (seed, tensor t << 32) in the order conv1.w, conv1.b, ...,
fc3.b, the permutation of epoch e repdl_rng_permutation(n, seed, e), the
forward and backward passes repdl's (autograd Functions of repdl.ops), the
loss the mean cross-entropy, the update repdl_sgd_step_f32.  As in the C
program the last partial batch of an epoch is dropped. """
import argparse
import hashlib
import os
import socket
import sys
import time
import zlib

import numpy as np
import torch
import torch.distributed as dist

HERE = os.path.dirname(os.path.abspath(__file__))
try:  # the repdl on the path (PYTHONPATH, an install), else this source tree's
    import repdl
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'python'))
    import repdl  # noqa: E402
from repdl import nn as rnn  # noqa: E402

IMG = 28


IDX_MAX_BYTES = 1 << 32  # the most payload an IDX file may announce (train_idx.h's limit)


def _idx_chunks(p):
    """The bytes of p in chunks: a plain file as it is, a .gz file as exactly
    one gzip member with nothing after it (a second member or trailing
    garbage is refused, as the C loader does)."""
    with open(p, 'rb') as f:
        if not p.endswith('.gz'):
            while True:
                b = f.read(1 << 20)
                if not b:
                    return
                yield b
        d = zlib.decompressobj(wbits=31)
        while not d.eof:
            b = f.read(1 << 16)
            if not b:
                raise SystemExit(f'train_fmnist.py: {p}: truncated gzip stream')
            out = d.decompress(b, 1 << 20)
            while True:
                yield out
                if not d.unconsumed_tail:
                    break
                out = d.decompress(d.unconsumed_tail, 1 << 20)
        if d.unused_data or f.read(1):
            raise SystemExit(f'train_fmnist.py: {p}: data after the gzip member')


def read_idx(path):
    """An IDX file of unsigned bytes (gzip or plain), read header first: the
    payload is read only up to what the header announces (at most
    IDX_MAX_BYTES), so memory is bounded by the header's claim, and a file
    shorter or longer than its header says is refused."""
    for p in (path + '.gz', path):
        if os.path.exists(p):
            break
    else:
        raise SystemExit(f'train_fmnist.py: no {path}(.gz)')
    buf, want, dims = bytearray(), None, None
    for chunk in _idx_chunks(p):
        buf += chunk
        if want is None and len(buf) >= 4:
            if buf[0] or buf[1] or buf[2] != 8 or not 1 <= buf[3] <= 3:
                raise SystemExit(f'train_fmnist.py: {p}: not an IDX file of unsigned bytes')
            if len(buf) >= 4 + 4 * buf[3]:
                dims = [int.from_bytes(buf[4 + 4 * i:8 + 4 * i], 'big') for i in range(buf[3])]
                want = int(np.prod(dims, dtype=object))
                if want > IDX_MAX_BYTES:
                    raise SystemExit(f'train_fmnist.py: {p}: the header announces {want} bytes, '
                                     f'more than the limit of {IDX_MAX_BYTES}')
                want += 4 + 4 * buf[3]
        if want is not None and len(buf) > want:
            raise SystemExit(f'train_fmnist.py: {p}: longer than its header says ({want} bytes)')
    if want is None or len(buf) != want:
        raise SystemExit(f'train_fmnist.py: {p}: shorter than its header says')
    body = np.frombuffer(buf, dtype=np.uint8, offset=4 + 4 * len(dims))  # no copy
    return body.reshape(dims)


def lenet():
    """The C program's model; built after repdl.random.manual_seed(seed), its
    ten tensors take the Philox slots 0..9 in state_dict order."""
    return torch.nn.Sequential(
        rnn.Conv2d(1, 6, 5, padding=2), rnn.ReLU(), rnn.MaxPool2d(2),
        rnn.Conv2d(6, 16, 5), rnn.ReLU(), rnn.MaxPool2d(2),
        rnn.Flatten(),
        rnn.Linear(400, 120), rnn.ReLU(),
        rnn.Linear(120, 84), rnn.ReLU(),
        rnn.Linear(84, 10))


def sha256_f32(tensors):
    """SHA-256 of the little-endian binary32 bytes, tensors concatenated."""
    h = hashlib.sha256()
    for t in tensors:
        h.update(t.detach().contiguous().numpy().astype('<f4', copy=False).tobytes())
    return h.hexdigest()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--epochs', type=int, default=2)
    ap.add_argument('--steps', type=int)
    ap.add_argument('--batch', type=int, default=64)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--world', type=int, default=1)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--lr', type=float, default=0.05)
    ap.add_argument('--momentum', type=float, default=0.9)
    ap.add_argument('--test-limit', type=int)
    ap.add_argument('--data', default='/usr/share/datasets/fashion-mnist')
    ap.add_argument('--quiet', action='store_true')
    o = ap.parse_args(argv)
    if (o.batch < 1 or o.threads < 1 or o.epochs < 1 or o.world < 1
            or (o.steps is not None and o.steps < 0)):
        ap.error('--batch, --threads, --world and --epochs must be at least 1, --steps at least 0')
    if 'RANK' in os.environ and 'WORLD_SIZE' in os.environ:  # torchrun
        o.world = int(os.environ['WORLD_SIZE'])
        run(int(os.environ['RANK']), o, True)
    elif o.world > 1:
        try:
            repdl.distributed.shard_bounds(o.batch, o.world)
        except ValueError as e:
            ap.error(str(e))
        with socket.socket() as sk:  # a free port for the gloo rendezvous
            sk.bind(('127.0.0.1', 0))
            port = sk.getsockname()[1]
        os.environ.setdefault('MASTER_ADDR', '127.0.0.1')
        os.environ.setdefault('MASTER_PORT', str(port))
        torch.multiprocessing.spawn(run, args=(o, True), nprocs=o.world)
    else:
        run(0, o, False)


def run(rank, o, ddp):
    """Rank `rank` of o.world (ddp: in a gloo process group); rank 0 prints."""
    torch.set_num_threads(o.threads)
    if ddp:
        dist.init_process_group('gloo', rank=rank, world_size=o.world)

    tr_x = read_idx(os.path.join(o.data, 'train-images-idx3-ubyte'))
    tr_y = read_idx(os.path.join(o.data, 'train-labels-idx1-ubyte'))
    te_x = read_idx(os.path.join(o.data, 't10k-images-idx3-ubyte'))
    te_y = read_idx(os.path.join(o.data, 't10k-labels-idx1-ubyte'))
    if o.test_limit is not None:
        te_x, te_y = te_x[:o.test_limit], te_y[:o.test_limit]
    if o.batch > len(tr_x):
        sys.exit(f'train_fmnist.py: --batch {o.batch} exceeds the {len(tr_x)} training images')
    # byte / 255: one correctly rounded binary32 division (numpy float32 is IEEE)
    table = np.arange(256, dtype=np.float32) / np.float32(255.0)
    train_x = torch.from_numpy(table[tr_x].reshape(-1, 1, IMG, IMG))
    train_y = torch.from_numpy(tr_y.astype(np.int64))
    test_x = torch.from_numpy(table[te_x].reshape(-1, 1, IMG, IMG))

    repdl.random.manual_seed(o.seed)
    model = lenet()
    params = list(model.parameters())
    say = print if rank == 0 else (lambda *a, **k: None)
    say(f'init_weights_sha256 {sha256_f32(params)}')
    n, B = len(train_x), o.batch
    net, lo, hi = model, 0, B
    loss_fn = rnn.CrossEntropyLoss()
    if ddp:
        net = torch.nn.parallel.DistributedDataParallel(model)
        repdl.distributed.register_batch_order_hook(net, B)
        lo, hi = repdl.distributed.shard_rows(B, o.world, rank)
        loss_fn = rnn.CrossEntropyLoss(global_batch_size=B)
    opt = repdl.optim.SGD(params, lr=o.lr, momentum=o.momentum)
    spe = n // B
    total = o.steps if o.steps is not None else o.epochs * spe
    t0 = time.time()
    perm, cur = None, -1
    for step in range(total):
        e, k = divmod(step, spe)
        if e != cur:
            perm, cur = repdl.random.permutation(n, seed=o.seed, offset=e), e
        idx = perm[k * B + lo:k * B + hi]
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(net(train_x[idx]), train_y[idx])
        loss.backward()
        opt.step()
        if not o.quiet and ((step + 1) % spe == 0 or step + 1 == total):
            share = '' if not ddp else f": rank 0's part, its rows {lo}:{hi} summed / {B}"
            say(f'epoch {e + 1} step {step + 1} loss (last step{share}) {loss.item():.6f} '
                f'time {time.time() - t0:.1f} s', flush=True)
    if ddp:  # every rank holds the same weights: rank 0 checks, then evaluates alone
        w = torch.cat([p.detach().reshape(-1) for p in params])
        everyone = [torch.empty_like(w) for _ in range(o.world)]
        dist.all_gather(everyone, w)
        if any(not torch.equal(x.view(torch.int32), w.view(torch.int32)) for x in everyone):
            sys.exit('train_fmnist.py: the ranks hold different weights')
        dist.destroy_process_group()
        if rank != 0:
            return
    with torch.no_grad():
        logits = torch.cat([model(test_x[i:i + 1000]) for i in range(0, len(test_x), 1000)])
    correct = int((np.argmax(logits.numpy(), axis=1) == te_y).sum())  # first maximum, as argmax10
    say(f'trained_weights_sha256 {sha256_f32(params)}')
    say(f'test_logits_sha256 {sha256_f32([logits])}')
    say(f'test_accuracy {correct}/{len(test_x)}')
    if not o.quiet:
        say(f'time {time.time() - t0:.2f} s ({total} steps)')


if __name__ == '__main__':
    main()
