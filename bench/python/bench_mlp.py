# SPDX-License-Identifier: MIT
"""bench/python/bench_mlp.py: where the time of a training step goes, repdl against PyTorch.

    /usr/bin/python3 bench/python/bench_mlp.py [--threads 1] [--batch 64] [--reps 9] [--ms 50]

The model of issue 31: a 784-512-512-10 MLP, Linear -> LayerNorm -> GELU
twice, then Linear, cross-entropy; forward + backward (no optimizer step)
at batch 64.  repdl.nn against torch.nn with the same weights.  Then each
part alone, forward + backward on the step's shapes (linear 784->512,
512->512, 512->10 on [64, in]; layer_norm and gelu on [64, 512];
cross_entropy on [64, 10]; the first linear without dx, as in the step,
whose input needs no gradient), so the step's ratio can be read as the
sum of its parts.  Last, repdl's step with every repdl._C call answered
by its recorded result: the Python, module and autograd overhead alone.

Threads: torch.set_num_threads and, when torch's mm runs OpenBLAS,
openblas_set_num_threads (bench_torch.set_threads).

Timing: for each row, R repetitions (--reps), each timing repdl then
PyTorch (the order alternates between repetitions) by looping calls for at
least --ms milliseconds; the median time per call of each side is
printed with the ratio repdl / torch and the smallest and largest paired
ratios (the row's noise).  CPU time of the process (time.process_time,
so that other jobs on a loaded machine do not count; at --threads 1 it is
the one thread's time).  Nothing here asserts a time; the noise shows in
the range column.
"""
import argparse
import os
import statistics
import sys
import time

import torch

try:
    import repdl
except ImportError:   # not installed: this checkout's python/ (scripts/python.sh build)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                    'python'))
    import repdl
from repdl import ops  # noqa: E402

F = torch.nn.functional


def per_call(fn, ms):
    fn()
    n, t0 = 0, time.process_time()
    while True:
        fn()
        n += 1
        t = time.process_time() - t0
        if t * 1000 >= ms:
            return t / n


def row(name, f_repdl, f_torch, reps, ms):
    r, t, ratios = [], [], []
    for i in range(reps):
        if i % 2 == 0:
            a = per_call(f_repdl, ms)
            b = per_call(f_torch, ms)
        else:
            b = per_call(f_torch, ms)
            a = per_call(f_repdl, ms)
        r.append(a)
        t.append(b)
        ratios.append(a / b)
    mr, mt = statistics.median(r), statistics.median(t)
    print(f'{name:<28} {mr * 1e3:9.3f} {mt * 1e3:9.3f} {mr / mt:7.2f}   '
          f'[{min(ratios):.2f}, {max(ratios):.2f}]', flush=True)
    return mr, mt


def fwd_bwd(f, inputs, dy):
    def run():
        y = f(*inputs)
        torch.autograd.grad(y, [x for x in inputs if x.requires_grad], dy)
    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--batch', type=int, default=64)
    ap.add_argument('--reps', type=int, default=9)
    ap.add_argument('--ms', type=float, default=50.0)
    a = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bench_torch   # its OpenBLAS pool control: torch's mm calls OpenBLAS
    bench_torch._openblas = bench_torch._find_openblas()
    bench_torch.set_threads(a.threads)
    B = a.batch
    print(f'repdl {repdl.__version__}, torch {torch.__version__}, threads {a.threads}, batch {B}, '
          f'{a.reps} repetitions of >= {a.ms:g} ms; OpenBLAS: '
          f'{bench_torch._openblas[0] if bench_torch._openblas else "not loaded"}')
    print(f'{"row (forward + backward)":<28} {"repdl ms":>9} {"torch ms":>9} {"ratio":>7}   range')

    torch.manual_seed(0)
    tmodel = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.LayerNorm(512),
                                 torch.nn.GELU(), torch.nn.Linear(512, 512),
                                 torch.nn.LayerNorm(512), torch.nn.GELU(),
                                 torch.nn.Linear(512, 10))
    rmodel = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.LayerNorm(512),
                                 torch.nn.GELU(), torch.nn.Linear(512, 512),
                                 torch.nn.LayerNorm(512), torch.nn.GELU(),
                                 torch.nn.Linear(512, 10))
    rmodel.load_state_dict(tmodel.state_dict())
    repdl.from_torch_module(rmodel)
    x = torch.randn(B, 784)
    y = torch.randint(0, 10, (B,))

    def step(model, loss):
        def run():
            model.zero_grad(set_to_none=True)
            loss(model(x), y).backward()
        return run

    total = row('MLP step', step(rmodel, ops.cross_entropy), step(tmodel, F.cross_entropy),
                a.reps, a.ms)

    def req(*shape):
        return torch.randn(*shape).requires_grad_(True)

    parts = []
    for i, (k, n) in enumerate(((784, 512), (512, 512), (512, 10))):
        # the first layer's input is the data: no dx, as in the step
        xi = torch.randn(B, k) if i == 0 else req(B, k)
        w, b, dy = req(n, k), req(n), torch.randn(B, n)
        parts.append(row(f'linear {k}->{n}', fwd_bwd(ops.linear, (xi, w, b), dy),
                         fwd_bwd(F.linear, (xi, w, b), dy), a.reps, a.ms))
    for i in range(2):
        xi, g, bb, dy = req(B, 512), req(512), req(512), torch.randn(B, 512)
        parts.append(row(f'layer_norm [{B}, 512] #{i + 1}',
                         fwd_bwd(lambda u, v, w: ops.layer_norm(u, (512,), v, w), (xi, g, bb), dy),
                         fwd_bwd(lambda u, v, w: F.layer_norm(u, (512,), v, w), (xi, g, bb), dy),
                         a.reps, a.ms))
    for i in range(2):
        xi, dy = req(B, 512), torch.randn(B, 512)
        parts.append(row(f'gelu [{B}, 512] #{i + 1}', fwd_bwd(ops.gelu, (xi,), dy),
                         fwd_bwd(F.gelu, (xi,), dy), a.reps, a.ms))
    xi = req(B, 10)
    parts.append(row(f'cross_entropy [{B}, 10]',
                     fwd_bwd(lambda u: ops.cross_entropy(u, y), (xi,), None),
                     fwd_bwd(lambda u: F.cross_entropy(u, y), (xi,), None), a.reps, a.ms))
    sr, st = sum(p[0] for p in parts), sum(p[1] for p in parts)
    print(f'{"sum of the parts":<28} {sr * 1e3:9.3f} {st * 1e3:9.3f} {sr / st:7.2f}')
    print(f'step minus the parts (autograd, module and Python overhead, and the parts\' '
          f'cache effects): repdl {(total[0] - sr) * 1e3:.3f} ms, torch '
          f'{(total[1] - st) * 1e3:.3f} ms')
    over = [per_call(stubbed_step(rmodel, x, y), a.ms) for _ in range(a.reps)]
    print(f'repdl step with repdl._C\'s calls replaced by their recorded results (the Python, '
          f'module and autograd overhead alone): {statistics.median(over) * 1e3:.3f} ms '
          f'[{min(over) * 1e3:.3f}, {max(over) * 1e3:.3f}]')


class _Replay:
    """repdl.ops' repdl._C, each call answered by the result the same call
    gave in a recorded step (the step's calls come in one order)."""

    def __init__(self, real):
        self.real, self.rec, self.i, self.recording = real, [], 0, True

    def __getattr__(self, name):
        f = getattr(self.real, name)
        if not callable(f):
            return f

        def call(*args):
            if self.recording:
                self.rec.append(f(*args))
                return self.rec[-1]
            r = self.rec[self.i]
            self.i = (self.i + 1) % len(self.rec)
            return r
        return call


def stubbed_step(model, x, y):
    """The repdl step of main() with no arithmetic of repdl._C: what is
    left is the cost of repdl.nn's modules, repdl.ops' checks and autograd
    Functions, and PyTorch's autograd engine."""
    real = ops._C
    rep = _Replay(real)

    def run():
        ops._C = rep
        try:
            model.zero_grad(set_to_none=True)
            ops.cross_entropy(model(x), y).backward()
        finally:
            ops._C = real
    run()
    rep.recording = False
    return run


if __name__ == '__main__':
    main()
