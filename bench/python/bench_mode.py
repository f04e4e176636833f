# SPDX-License-Identifier: MIT
"""bench/python/bench_mode.py: the dispatch overhead of repdl.mode (docs/python.md,
"repdl.mode"): a training step of a model run unmodified under repdl.mode() against
the same model converted by repdl.from_torch_module, in the same run, as ratios.

    /usr/bin/python3 bench/python/bench_mode.py [--threads 1,2] [--reps 9] [--min-time 200]
                                                [--cpu] [--profile] [--cprofile] [--models mlp,cnn]

Models (float32, CPU, batch 64):
  mlp   784-512-512-10: Linear, LayerNorm, GELU, Linear, LayerNorm, GELU, Linear
  cnn   Conv2d(1,8,5) BatchNorm2d ReLU MaxPool2d(2) Conv2d(8,16,5) BatchNorm2d ReLU
        MaxPool2d(2) Flatten Linear(256,10), 28x28 inputs
Rows:
  fwd+bwd  zero_grad(set_to_none), forward, cross-entropy, backward
  step     the same and an AdamW step: under the mode torch.optim.AdamW(foreach=False)
           (its statements as repdl.mode's handlers compute them, one pass over each
           parameter in one repdl._C.adamw_torch call a step: repdl.mode.ADAMW_ONE_CALL),
           converted repdl.optim.AdamW (one repdl_adam_step_f32 call a tensor)
  step-r   the step with repdl.optim.AdamW on both sides (under the mode too)
Under the mode the loss is F.cross_entropy (aten's log_softmax + nll_loss, both routed);
converted, repdl.nn.CrossEntropyLoss.

Timing: in each of R repetitions both sides run, alternately first, each looping until
MS milliseconds have passed (wall time, or with --cpu this process's CPU time over all
its threads, which other processes on a loaded machine disturb less); a row prints the
medians (ms per step), the ratio mode / converted and the smallest and largest paired
ratio.  Performance is never a test.
--profile prints torch.autograd.profiler's self CPU time per aten op of 20 mode steps;
--cprofile prints cProfile's 25 functions of most own time in 20 mode steps (the Python
cost of the dispatch: repdl/mode.py's functions against repdl._C's).
"""
import argparse
import copy
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'python'))
import repdl  # noqa: E402

F = torch.nn.functional
nn = torch.nn


def models():
    def mlp():
        return nn.Sequential(nn.Linear(784, 512), nn.LayerNorm(512), nn.GELU(), nn.Linear(512, 512),
                             nn.LayerNorm(512), nn.GELU(), nn.Linear(512, 10)), (64, 784)

    def cnn():
        return nn.Sequential(nn.Conv2d(1, 8, 5), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(8, 16, 5), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(256, 10)), (64, 1, 28, 28)
    return {'mlp': mlp, 'cnn': cnn}


def make_steps(make):
    torch.manual_seed(0)
    plain, shape = make()
    conv = repdl.from_torch_module(copy.deepcopy(plain))
    g = torch.Generator().manual_seed(1)
    x = torch.randn(shape, generator=g)
    y = torch.randint(0, 10, (shape[0],), generator=g)
    opt_m = torch.optim.AdamW(plain.parameters(), lr=1e-3, foreach=False)
    opt_c = repdl.optim.AdamW(conv.parameters(), lr=1e-3)
    opt_r = repdl.optim.AdamW(plain.parameters(), lr=1e-3)
    ce = repdl.nn.CrossEntropyLoss()

    def mode_fb():
        with repdl.mode():
            plain.zero_grad(set_to_none=True)
            F.cross_entropy(plain(x), y).backward()

    def mode_step():
        with repdl.mode():
            plain.zero_grad(set_to_none=True)
            F.cross_entropy(plain(x), y).backward()
            opt_m.step()

    def mode_step_r():
        with repdl.mode():
            plain.zero_grad(set_to_none=True)
            F.cross_entropy(plain(x), y).backward()
            opt_r.step()

    def conv_fb():
        conv.zero_grad(set_to_none=True)
        ce(conv(x), y).backward()

    def conv_step():
        conv.zero_grad(set_to_none=True)
        ce(conv(x), y).backward()
        opt_c.step()
    return {'fwd+bwd': (mode_fb, conv_fb), 'step': (mode_step, conv_step),
            'step-r': (mode_step_r, conv_step)}


def per_call(f, n, clock=time.perf_counter):
    t = clock()
    for _ in range(n):
        f()
    return (clock() - t) / n


def calibrate(f, ms):
    f()
    n = 1
    while True:
        t = per_call(f, n)
        if t * n * 1e3 >= ms / 4 or n >= 1 << 16:
            return max(1, int(ms / 1e3 / max(t, 1e-9)))
        n *= 2


def measure(a, b, reps, ms, clock):
    na, nb = calibrate(a, ms), calibrate(b, ms)
    ta, tb = [], []
    for r in range(reps):
        if r % 2 == 0:
            ta.append(per_call(a, na, clock))
            tb.append(per_call(b, nb, clock))
        else:
            tb.append(per_call(b, nb, clock))
            ta.append(per_call(a, na, clock))
    ratios = [x / y for x, y in zip(ta, tb)]
    return statistics.median(ta), statistics.median(tb), min(ratios), max(ratios)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--threads', default='1,2')
    ap.add_argument('--models', default='mlp,cnn', help='comma-separated subset of mlp,cnn')
    ap.add_argument('--reps', type=int, default=9)
    ap.add_argument('--min-time', type=float, default=200.0)
    ap.add_argument('--profile', action='store_true')
    ap.add_argument('--cprofile', action='store_true')
    ap.add_argument('--cpu', action='store_true',
                    help='time.process_time (this process\'s CPU time, all threads) instead of '
                    'wall time: less sensitive to other processes on a loaded machine')
    o = ap.parse_args()
    clock = time.process_time if o.cpu else time.perf_counter
    print(f'torch {torch.__version__}, repdl {repdl.__version__}, {os.cpu_count()} CPUs, '
          f'load {os.getloadavg()[0]:.2f}')
    print(f'clock: {"process CPU time" if o.cpu else "wall"}')
    print(f'{"model":6} {"row":8} {"thr":>3} {"mode ms":>9} {"conv ms":>9} {"ratio":>6}  range')
    for T in [int(t) for t in o.threads.split(',')]:
        torch.set_num_threads(T)
        for name, make in models().items():
            if name not in o.models.split(','):
                continue
            for row, (a, b) in make_steps(make).items():
                ma, mb, lo, hi = measure(a, b, o.reps, o.min_time, clock)
                print(f'{name:6} {row:8} {T:3d} {ma * 1e3:9.3f} {mb * 1e3:9.3f} {ma / mb:6.3f}  '
                      f'{lo:.3f}-{hi:.3f}', flush=True)
    if o.profile:
        torch.set_num_threads(1)
        for name, make in models().items():
            step = make_steps(make)['step'][0]
            step()
            with torch.autograd.profiler.profile() as prof:
                for _ in range(20):
                    step()
            print(f'--- {name}: 20 steps under repdl.mode, 1 thread')
            print(prof.key_averages().table(sort_by='self_cpu_time_total', row_limit=15))
    if o.cprofile:
        import cProfile
        import pstats
        torch.set_num_threads(1)
        for name, make in models().items():
            step = make_steps(make)['step'][0]
            step()
            pr = cProfile.Profile()
            pr.enable()
            for _ in range(20):
                step()
            pr.disable()
            print(f'--- {name}: 20 steps under repdl.mode, 1 thread (cProfile)')
            pstats.Stats(pr, stream=sys.stdout).sort_stats('tottime').print_stats(25)


if __name__ == '__main__':
    main()
