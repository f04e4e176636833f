# SPDX-License-Identifier: MIT
"""bench/train/torch_lenet.py: the job of examples/train_fmnist.c in plain
PyTorch (its own CPU kernels: OpenBLAS/oneDNN in Debian's python3-torch),
for bench/train/bench_torch.sh.  Same model (LeNet-5: conv 5x5 pad 2, relu,
max-pool 2, conv 5x5, relu, max-pool 2, 400-120-84-10), same data (bytes /
255), batch, SGD (lr, momentum), steps, and the same evaluation of the test
set at each epoch's end and at the last step; PyTorch's own initialisation
and shuffling (the time does not depend on them).  Prints
"time SECONDS s (STEPS steps)" for the training loop with its evaluations,
timed as the C program times its own (after the data are loaded).

    python3 torch_lenet.py [--epochs E | --steps K] [--batch B] [--threads N]
        [--data DIR]
"""
import argparse
import gzip
import os
import time

import numpy as np
import torch


def read_idx(path):
    with gzip.open(path + '.gz', 'rb') if os.path.exists(path + '.gz') else open(path, 'rb') as f:
        data = f.read()
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], 'big') for i in range(data[3])]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * data[3]).reshape(dims)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--epochs', type=int, default=2)
    ap.add_argument('--steps', type=int)
    ap.add_argument('--batch', type=int, default=64)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--lr', type=float, default=0.05)
    ap.add_argument('--momentum', type=float, default=0.9)
    ap.add_argument('--data', default='/usr/share/datasets/fashion-mnist')
    o = ap.parse_args()
    torch.set_num_threads(o.threads)
    torch.manual_seed(1)
    table = np.arange(256, dtype=np.float32) / np.float32(255.0)
    tr_x = torch.from_numpy(table[read_idx(os.path.join(o.data, 'train-images-idx3-ubyte'))]
                            .reshape(-1, 1, 28, 28))
    tr_y = torch.from_numpy(read_idx(os.path.join(o.data, 'train-labels-idx1-ubyte'))
                            .astype(np.int64))
    te_x = torch.from_numpy(table[read_idx(os.path.join(o.data, 't10k-images-idx3-ubyte'))]
                            .reshape(-1, 1, 28, 28))
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                          nn.Linear(84, 10))
    opt = torch.optim.SGD(model.parameters(), lr=o.lr, momentum=o.momentum)
    loss_fn = nn.CrossEntropyLoss()
    n, B = len(tr_x), o.batch
    spe = n // B
    total = o.steps if o.steps is not None else o.epochs * spe
    t0 = time.perf_counter()
    perm = None
    for step in range(total):
        e, k = divmod(step, spe)
        if k == 0:
            perm = torch.randperm(n)
        idx = perm[k * B:(k + 1) * B]
        opt.zero_grad(set_to_none=True)
        loss_fn(model(tr_x[idx]), tr_y[idx]).backward()
        opt.step()
        if (step + 1) % spe == 0 or step + 1 == total:
            with torch.no_grad():
                torch.cat([model(te_x[i:i + 1000]) for i in range(0, len(te_x), 1000)])
    with torch.no_grad():  # the C program's final evaluation (the logits it hashes)
        torch.cat([model(te_x[i:i + 1000]) for i in range(0, len(te_x), 1000)])
    print(f'time {time.perf_counter() - t0:.2f} s ({total} steps)')


if __name__ == '__main__':
    main()
