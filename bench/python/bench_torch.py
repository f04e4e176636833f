# SPDX-License-Identifier: MIT
"""bench/python/bench_torch.py: every repdl.ops function and a LeNet-5 training step against
PyTorch's own CPU kernels, in the same run, as ratios (docs/bench-python.md).

    bash scripts/python.sh bench [--quick] [--threads 1,2] [--filter SUBSTR[,SUBSTR]]
                                 [--reps R] [--min-time MS] [--retries N]
                                 [--profile] [--repdl-path DIR] [--check]

For each op (forward, and forward + backward), on the same float32 CPU
inputs, repdl.ops.X and its PyTorch equivalent (torch.exp,
torch.nn.functional.linear, F.conv2d, ...) are timed alternately: in each
of R repetitions (default 9) both run, repdl first in even repetitions and
PyTorch first in odd ones, each looping over calls until at least MS
milliseconds (default 25) have passed (the call count is calibrated once
per side).  Wall-clock time (time.perf_counter).  A row reports:

    repdl ms, torch ms   the medians over the R repetitions of the time
                         per call
    ratio                repdl ms / torch ms (< 1: repdl faster)
    range                the smallest and largest of the R paired ratios
                         (repetition i's repdl time over repetition i's
                         torch time): the noise of the row
    cores r/t            process CPU time / wall time of each side: the
                         cores it kept busy (about 1.0 for one thread)
    other                the cores that other processes of the machine
                         used during the row (/proc/stat minus this
                         process): above 0.25 the row is measured again,
                         up to N times (--retries, default 4), after a
                         pause; a row that never got quieter is printed
                         from its least busy attempt and marked BUSY

Threads: torch.set_num_threads(T) for every T of --threads, which sets
PyTorch's OpenMP pool (elementwise, reductions, oneDNN convolutions) and
the thread count repdl's gemm, sum and dot read.  This PyTorch (Debian's
1.13.1, BLAS_INFO=generic) calls OpenBLAS for mm/linear, whose own pool
torch.set_num_threads does not touch, so the benchmark also calls
openblas_set_num_threads(T) when OpenBLAS is loaded (printed at the start).

Forward: inputs that do not require grad (no graph).  Forward + backward:
every floating input requires grad; torch.autograd.grad(y, inputs, dy) with
one fixed random dy (a scalar output: no dy).  The LeNet-5 step is
zero_grad(set_to_none=True), forward, cross-entropy, backward and an SGD
step (lr 0.01, momentum 0.9) on one fixed batch of 64 28x28 images:
repdl.nn + repdl.optim.SGD against torch.nn + torch.optim.SGD with the same
initial weights.  --profile also prints torch.autograd.profiler's self CPU
time per op for 20 LeNet-5 steps of each model at each thread count.

Performance is never a test: nothing here asserts a time.  --quick (small
shapes, 3 repetitions of 2 ms, no retries) only shows that every row runs;
with --check it exits 1 unless every repdl.ops function has its rows (the
meson test bench-python-quick).  --repdl-path DIR imports repdl from
another build of the package (e.g. one compiled with other flags).
"""
import argparse
import ctypes
import datetime
import gc
import math
import os
import platform
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


# ---- Timing ----

def _run(fn, calls):
    """Wall and process CPU seconds of `calls` calls of fn."""
    c0, t0 = time.process_time(), time.perf_counter()
    for _ in range(calls):
        fn()
    return time.perf_counter() - t0, time.process_time() - c0


def _calibrate(fn, min_s):
    """Calls per repetition: enough for min_s seconds (at least one)."""
    calls = 1
    while True:
        wall, _ = _run(fn, calls)
        if wall >= min_s:
            return calls
        calls = max(calls * 2, int(calls * 1.2 * min_s / max(wall, 1e-7)) + 1)


def _busy_cores_s():
    """CPU seconds all processes of the machine have used so far (the busy
    columns of /proc/stat; USER_HZ ticks), or None."""
    try:
        with open('/proc/stat') as f:
            v = [int(t) for t in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal ...: all but idle, iowait
    return (sum(v[:8]) - v[3] - v[4]) / os.sysconf('SC_CLK_TCK')


def compare(f_repdl, f_torch, reps, min_s):
    """Interleaved repetitions.  Returns per side the list of seconds per
    call and the cores it kept busy (process CPU time / wall time), and the
    cores that other processes of the machine used meanwhile."""
    busy0, own0, t0 = _busy_cores_s(), time.process_time(), time.perf_counter()
    for f in (f_repdl, f_torch):  # warm-up: allocator, thread pools, packing buffers
        f()
        f()
    calls = [_calibrate(f_repdl, min_s), _calibrate(f_torch, min_s)]
    per_call = ([], [])
    wall, cpu = [0.0, 0.0], [0.0, 0.0]
    gc.collect()
    for rep in range(reps):
        order = (0, 1) if rep % 2 == 0 else (1, 0)
        for side in order:
            w, c = _run((f_repdl, f_torch)[side], calls[side])
            per_call[side].append(w / calls[side])
            wall[side] += w
            cpu[side] += c
    busy1, own1, t1 = _busy_cores_s(), time.process_time(), time.perf_counter()
    other = None if busy0 is None else max(0.0, (busy1 - busy0) - (own1 - own0)) / (t1 - t0)
    return per_call, [cpu[i] / wall[i] for i in range(2)], other


# ---- The cases ----

class Case:
    """One op at one shape: args are the inputs shared by both sides
    (tensors), fr/ft the repdl and torch calls.  state(): per-side mutable
    arguments (batch norm's running statistics), passed as keyword args."""

    def __init__(self, op, shape, fr, ft, args, note='', state=None):
        self.op, self.shape, self.fr, self.ft, self.args = op, shape, fr, ft, args
        self.note = note
        self.state = state

    def calls(self, backward):
        st = (self.state(), self.state()) if self.state else ({}, {})
        if not backward:
            args = [a.detach() if isinstance(a, torch.Tensor) else a for a in self.args]
            return (lambda: self.fr(*args, **st[0]), lambda: self.ft(*args, **st[1]))
        args = [a.detach().requires_grad_(True)
                if isinstance(a, torch.Tensor) and a.is_floating_point() else a
                for a in self.args]
        leaves = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
        y = self.ft(*args, **st[1])
        dy = None if y.dim() == 0 else torch.randn(y.shape, generator=_rng(7))

        def fb(f, s):
            return lambda: torch.autograd.grad(f(*args, **s), leaves, dy)
        return fb(self.fr, st[0]), fb(self.ft, st[1])


def _rng(seed):
    return torch.Generator().manual_seed(seed)


def randn(*shape, seed=1, scale=1.0):
    return torch.randn(*shape, generator=_rng(seed)) * scale


def positive(*shape, seed=2):
    return torch.rand(*shape, generator=_rng(seed)) * 10 + 1e-3


def p2(n):
    e = int(math.log2(n))
    return f'2^{e}' if 1 << e == n else str(n)


# Ops without a backward pass (fwd rows only)
NO_BACKWARD = {'rope_table'}


def _torch_rope_table(positions, dim):
    i = torch.arange(0, dim // 2, dtype=torch.float32)
    theta = torch.pow(torch.tensor(10000.0), -2.0 * i / dim)
    ang = torch.outer(torch.arange(positions, dtype=torch.float32), theta)
    return torch.cos(ang), torch.sin(ang)


def _torch_rope(t, c, s):
    h = t.shape[-1] // 2
    a, b = t[..., :h], t[..., h:]
    n = t.shape[-2]
    c, s = c[:n], s[:n]
    return torch.cat([a * c - b * s, a * s + b * c], dim=-1)


def _torch_sdpa_causal(q, k, v):
    n = q.shape[-2]
    sc = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    sc = sc.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float('-inf'))
    return torch.softmax(sc, dim=-1) @ v


def cases(quick):
    import repdl.ops as R

    N = 1 << 12 if quick else 1 << 20          # elementwise and whole reductions
    ROWS = (16, 256) if quick else (256, 1024)  # row reductions, softmax, layer/rms norm
    MM = 64 if quick else 512
    LIN = [(8, 784, 120)] if quick else [(64, 784, 120), (256, 1024, 1024)]
    B = 2 if quick else 64                      # LeNet batch
    RB, RS = (1, 8) if quick else (8, 32)       # ResNet-like batch, spatial size
    LOSS = [(8, 10)] if quick else [(64, 10), (256, 1000)]
    rs = f'{ROWS[0]}x{ROWS[1]}'
    out = []
    x = randn(N, scale=3.0)
    xp = positive(N)
    for name, fr, ft, arg in [
            ('exp', R.exp, torch.exp, x), ('log', R.log, torch.log, xp),
            ('tanh', R.tanh, torch.tanh, x), ('sqrt', R.sqrt, torch.sqrt, xp),
            ('sigmoid', R.sigmoid, torch.sigmoid, x), ('relu', R.relu, F.relu, x),
            ('gelu', R.gelu, F.gelu, x),
            ('gelu_tanh', lambda t: R.gelu(t, approximate='tanh'),
             lambda t: F.gelu(t, approximate='tanh'), x),
            ('silu', R.silu, F.silu, x), ('softplus', R.softplus, F.softplus, x)]:
        out.append(Case(name, p2(N), fr, ft, [arg]))
    out.append(Case('exp', '1 (call cost)', R.exp, torch.exp, [randn(1)]))
    xr = randn(*ROWS, seed=3)
    for name, fr, ft in [('sum', R.sum, torch.sum), ('mean', R.mean, torch.mean),
                         ('var', R.var, torch.var), ('norm', R.norm, torch.norm)]:
        out.append(Case(name, p2(N), fr, ft, [x]))
        out.append(Case(name, rs + ' dim=1', lambda t, f=fr: f(t, dim=1),
                        lambda t, f=ft: f(t, dim=1), [xr]))
    out.append(Case('dot', p2(N), R.dot, torch.dot, [x, randn(N, seed=4)]))
    for name, fr, ft in [('softmax', R.softmax, F.softmax),
                         ('log_softmax', R.log_softmax, F.log_softmax)]:
        out.append(Case(name, rs + ' dim=1', lambda t, f=fr: f(t, dim=1),
                        lambda t, f=ft: f(t, dim=1), [xr]))
    out.append(Case('mm', f'{MM}x{MM}x{MM}', R.mm, torch.mm,
                    [randn(MM, MM, seed=5), randn(MM, MM, seed=6)]))
    hb, hs, hd = (2, 16, 8) if quick else (8, 256, 64)
    out.append(Case('matmul', f'{hb}x{hs}x{hd} @ {hb}x{hd}x{hs}', R.matmul, torch.matmul,
                    [randn(hb, hs, hd, seed=5), randn(hb, hd, hs, seed=6)]))
    for m, k, n in LIN:
        out.append(Case('linear', f'{m}x{k}->{n}', R.linear, F.linear,
                        [randn(m, k, seed=7), randn(n, k, seed=8, scale=0.03),
                         randn(n, seed=9, scale=0.03)]))
    for label, xs, ws, pad in [
            ('lenet conv1', (B, 1, 28, 28), (6, 1, 5, 5), 2),
            ('lenet conv2', (B, 6, 14, 14), (16, 6, 5, 5), 0),
            ('3x3 64->64', (RB, 64, RS, RS), (64, 64, 3, 3), 1)]:
        out.append(Case('conv2d', f'{label} n{xs[0]} {xs[2]}x{xs[3]}',
                        lambda a, w, b, p=pad: R.conv2d(a, w, b, 1, p),
                        lambda a, w, b, p=pad: F.conv2d(a, w, b, 1, p),
                        [randn(*xs, seed=10), randn(*ws, seed=11, scale=0.1),
                         randn(ws[0], seed=12, scale=0.1)]))
    for name, fr, ft, shapes in [
            ('max_pool2d', R.max_pool2d, F.max_pool2d, [(B, 6, 28, 28), (B, 16, 10, 10)]),
            ('avg_pool2d', R.avg_pool2d, F.avg_pool2d, [(B, 6, 28, 28), (B, 16, 10, 10)])]:
        for s in shapes:
            out.append(Case(name, f'{s[0]}x{s[1]}x{s[2]}x{s[3]} k2',
                            lambda t, f=fr: f(t, 2), lambda t, f=ft: f(t, 2), [randn(*s, seed=13)]))
    cols = ROWS[1]
    out.append(Case('layer_norm', rs, lambda t, w, b: R.layer_norm(t, (cols,), w, b),
                    lambda t, w, b: F.layer_norm(t, (cols,), w, b),
                    [xr, 1 + randn(cols, seed=14, scale=0.1), randn(cols, seed=15, scale=0.1)]))
    eps = torch.finfo(torch.float32).eps
    out.append(Case('rms_norm', rs, lambda t, w: R.rms_norm(t, (cols,), w, eps),
                    lambda t, w: t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps) * w,
                    [xr, 1 + randn(cols, seed=14, scale=0.1)],
                    note='torch: x * rsqrt(mean(x^2) + eps) * w (1.13 has no F.rms_norm)'))
    bn = (RB, 64, RS, RS)

    def bn_state(c=bn[1]):
        return dict(rm=torch.zeros(c), rv=torch.ones(c))
    out.append(Case('batch_norm', f'{bn[0]}x{bn[1]}x{bn[2]}x{bn[3]} train',
                    lambda t, w, b, rm, rv: R.batch_norm(t, rm, rv, w, b, training=True),
                    lambda t, w, b, rm, rv: F.batch_norm(t, rm, rv, w, b, training=True),
                    [randn(*bn, seed=16), 1 + randn(bn[1], seed=17, scale=0.1),
                     randn(bn[1], seed=18, scale=0.1)], state=bn_state))
    out.append(Case('dropout', f'{p2(N)} p=0.5', lambda t: R.dropout(t, 0.5, True),
                    lambda t: F.dropout(t, 0.5, True), [x]))
    for name, fr, ft, arg in [
            ('leaky_relu', R.leaky_relu, F.leaky_relu, x), ('erf', R.erf, torch.erf, x),
            ('sin', R.sin, torch.sin, x), ('cos', R.cos, torch.cos, x)]:
        out.append(Case(name, p2(N), fr, ft, [arg]))
    ap = (B, 16, 8, 8)
    out.append(Case('adaptive_avg_pool2d', f'{ap[0]}x{ap[1]}x{ap[2]}x{ap[3]} -> 1x1',
                    lambda t: R.adaptive_avg_pool2d(t, 1), lambda t: F.adaptive_avg_pool2d(t, 1),
                    [randn(*ap, seed=21)]))
    out.append(Case('mse_loss', p2(N), R.mse_loss, F.mse_loss, [x, randn(N, seed=22)]))
    V, D, T = (64, 32, 256) if quick else (50257, 768, 4096)
    ids = torch.randint(0, V, (T,), generator=_rng(23))
    out.append(Case('embedding', f'{T} ids, {V}x{D}', lambda w: R.embedding(ids, w),
                    lambda w: F.embedding(ids, w), [randn(V, D, seed=24)]))
    P, HD = (32, 16) if quick else (1024, 64)
    out.append(Case('rope_table', f'{P} positions, dim {HD}',
                    lambda: R.rope_table(P, HD), lambda: _torch_rope_table(P, HD), [],
                    note='torch: 10000^(-2i/d) by pow, outer product, cos and sin (fwd only: '
                         'a table has no backward)'))
    rc, rsn = R.rope_table(P, HD)
    tc, tsn = _torch_rope_table(P, HD)
    xq = randn(2, 4, P, HD, seed=25)
    out.append(Case('rope', f'2x4x{P}x{HD}', lambda t: R.rope(t, rc, rsn),
                    lambda t: _torch_rope(t, tc, tsn), [xq],
                    note='torch: x cos + rotate_half(x) sin (the tables fixed)'))
    qs = (1, 4, 32, 16) if quick else (1, 4, 512, 64)
    out.append(Case('scaled_dot_product_attention', f'{qs[0]}x{qs[1]}x{qs[2]}x{qs[3]} causal',
                    lambda q, k, v: R.scaled_dot_product_attention(q, k, v, is_causal=True),
                    _torch_sdpa_causal,
                    [randn(*qs, seed=26), randn(*qs, seed=27), randn(*qs, seed=28)],
                    note='torch 1.13: the math form, softmax(q k^T / sqrt(d) + causal mask) v'))
    for n, c in LOSS:
        logits = randn(n, c, seed=19, scale=2.0)
        tgt = torch.randint(0, c, (n,), generator=_rng(20))
        out.append(Case('cross_entropy', f'{n}x{c}', R.cross_entropy, F.cross_entropy,
                        [logits, tgt]))
        out.append(Case('nll_loss', f'{n}x{c}', R.nll_loss, F.nll_loss,
                        [F.log_softmax(logits, dim=1), tgt]))
    return out


# ---- LeNet-5 ----

def lenet(nn):
    """examples/train_fmnist's model from the module namespace nn."""
    return torch.nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(),
        nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, 10))


def lenet_steps(batch):
    """Step closures (repdl, torch) of two LeNet-5 models with the same
    initial weights on one fixed batch."""
    import repdl
    repdl.random.manual_seed(1)
    mr = lenet(repdl.nn)
    mt = lenet(torch.nn)
    mt.load_state_dict(mr.state_dict())
    x = torch.rand(batch, 1, 28, 28, generator=_rng(21))
    y = torch.randint(0, 10, (batch,), generator=_rng(22))
    sides = []
    for model, loss_fn, sgd in [(mr, repdl.nn.CrossEntropyLoss(), repdl.optim.SGD),
                                (mt, torch.nn.CrossEntropyLoss(), torch.optim.SGD)]:
        opt = sgd(model.parameters(), lr=0.01, momentum=0.9)
        def step(model=model, loss_fn=loss_fn, opt=opt):
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
        sides.append(step)
    return sides


def profile_lenet(batch, threads, steps=20):
    from torch.autograd import profiler
    sr, st = lenet_steps(batch)
    for t in threads:
        set_threads(t)
        for name, step in (('repdl', sr), ('torch', st)):
            for _ in range(3):
                step()
            with profiler.profile() as prof:
                for _ in range(steps):
                    step()
            print(f'\n# profile: LeNet-5 step, {name}, {t} thread(s), {steps} steps, '
                  'self CPU time (torch.autograd.profiler)')
            print(prof.key_averages().table(sort_by='self_cpu_time_total', row_limit=18))


# ---- Machine ----

_openblas = None


def _find_openblas():
    """The OpenBLAS library this process has loaded (torch's BLAS), or None."""
    torch.mm(torch.ones(2, 2), torch.ones(2, 2))
    try:
        with open('/proc/self/maps') as f:
            libs = {ln.split()[-1] for ln in f if 'openblas' in ln and '.so' in ln}
    except OSError:
        return None
    # libopenblas*.so first (libblas.so.3 of the openblas alternative is a wrapper)
    for path in sorted(libs, key=lambda p: ('libopenblas' not in p, p)):
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_set_num_threads.argtypes = [ctypes.c_int]
            lib.openblas_get_num_threads.restype = ctypes.c_int
            return path, lib
        except (OSError, AttributeError):
            continue
    return None


def set_threads(t):
    torch.set_num_threads(t)
    if _openblas:
        _openblas[1].openblas_set_num_threads(t)


def _sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, cwd=ROOT,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ''


def load():
    return ' '.join(f'{v:.2f}' for v in os.getloadavg())


def header(o):
    global _openblas
    _openblas = _find_openblas()
    import repdl
    commit = _sh('git rev-parse --short HEAD') or '?'
    dirty = ' (uncommitted changes)' if _sh('git status --porcelain --untracked-files=no') else ''
    model = _sh("lscpu | sed -n 's/^Model name: *//p'") or platform.processor()
    print('# bench_torch: repdl.ops and a LeNet-5 step against PyTorch CPU kernels, same run')
    print(f'# date {datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")}; commit {commit}{dirty}')
    print(f'# machine: {model}, {os.cpu_count()} CPUs; Python {platform.python_version()}, '
          f'torch {torch.__version__} (CPU capability {_capability()}), '
          f'repdl {repdl.__version__} from {os.path.dirname(repdl.__file__)}')
    blas = 'not OpenBLAS (its threads not set)'
    if _openblas:
        blas = _openblas[0]
        try:
            _openblas[1].openblas_get_corename.restype = ctypes.c_char_p
            blas += f' (kernels: {_openblas[1].openblas_get_corename().decode()})'
        except (AttributeError, UnicodeDecodeError):
            pass
    env = ' '.join(f'{k}={v}' for k, v in sorted(os.environ.items())
                   if k.startswith(('OPENBLAS', 'OMP_', 'MKL_', 'GOMP')))
    print(f'# torch BLAS: {blas}; env: {env or "-"}')
    print(f'# threads {o.threads}; {o.reps} repetitions of >= {o.min_time:g} ms per side, '
          f'interleaved; {"quick shapes" if o.quick else "full shapes"}')
    print(f'# load average at start: {load()}')


def _capability():
    try:
        return torch.backends.cpu.get_cpu_capability()
    except AttributeError:
        cfg = torch.__config__.show()
        for ln in cfg.splitlines():
            if 'CPU capability usage' in ln:
                return ln.split(':')[-1].strip()
        return '?'


# ---- Main ----

def row(op, shape, pas, t, res, tries):
    (tr, tt), (cr, ct), other = res
    mr, mt = statistics.median(tr), statistics.median(tt)
    ratios = sorted(a / b for a, b in zip(tr, tt))
    flag = ' BUSY' if other is not None and other > BUSY else ''
    flag += f' (try {tries})' if tries > 1 else ''
    print(f'{op:<14} {shape:<30} {pas:<8} {t:>3} {mr * 1e3:>10.4f} {mt * 1e3:>10.4f} '
          f'{mr / mt:>7.2f}  {ratios[0]:>6.2f}-{ratios[-1]:<6.2f} {cr:>4.1f} {ct:>4.1f} '
          f'{"-" if other is None else format(other, ".1f"):>5}{flag}',
          flush=True)
    return mr, mt


# A row during which other processes kept more than BUSY cores busy is
# measured again (--retries), after a pause; if it never gets quieter the
# least busy attempt is printed, marked BUSY.
BUSY = 0.25


def measure(f_repdl, f_torch, reps, min_s, retries):
    best, tries = None, 0
    for tries in range(1, retries + 2):
        res = compare(f_repdl, f_torch, reps, min_s)
        if best is None or (res[2] or 0) < (best[2] or 0):
            best = res
        if res[2] is None or res[2] <= BUSY or tries > retries:
            break
        time.sleep(2.0)
    return best, tries


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--quick', action='store_true', help='small shapes, 3 reps of 2 ms')
    ap.add_argument('--threads', default='1,2', help='comma-separated thread counts (1,2)')
    ap.add_argument('--filter', default='',
                    help='only rows whose "op shape" contains this (several: comma-separated)')
    ap.add_argument('--reps', type=int, help='repetitions per side (default 9; quick 3)')
    ap.add_argument('--min-time', type=float, help='ms per repetition (default 25; quick 2)')
    ap.add_argument('--retries', type=int,
                    help=f'measure a row again, up to this many times, while other processes '
                         f'keep more than {BUSY} cores busy (default 4; quick 0)')
    ap.add_argument('--profile', action='store_true',
                    help='also a torch.autograd.profiler table of the LeNet-5 steps')
    ap.add_argument('--repdl-path', help='import repdl from this directory (another build)')
    ap.add_argument('--check', action='store_true',
                    help='exit 1 unless every repdl.ops function and the LeNet-5 step got a '
                         'row for each pass and thread count, every time finite and positive '
                         '(the smoke test; asserts no speed)')
    o = ap.parse_args(argv)
    o.threads = [int(v) for v in o.threads.split(',') if v]
    o.reps = o.reps or (3 if o.quick else 9)
    o.min_time = o.min_time or (2.0 if o.quick else 25.0)
    if o.retries is None:
        o.retries = 0 if o.quick else 4
    if o.reps < 1 or o.min_time <= 0 or not o.threads or min(o.threads) < 1 or o.retries < 0:
        ap.error('--reps and --threads must be at least 1, --min-time positive, '
                 '--retries not negative')
    sys.path.insert(0, o.repdl_path or os.path.join(ROOT, 'python'))
    header(o)
    t_start = time.time()
    print(f'{"op":<14} {"shape":<30} {"pass":<8} {"thr":>3} {"repdl ms":>10} {"torch ms":>10} '
          f'{"ratio":>7}  {"range":<13} {"cores r/t":>9} {"other":>5}')
    ratios = {}
    notes = []
    seen = set()
    bad = []

    def record(op, shape, pas, t, fr, ft, min_s):
        res, tries = measure(fr, ft, o.reps, min_s, o.retries)
        mr, mt = row(op, shape, pas, t, res, tries)
        if not (0 < mr < math.inf and 0 < mt < math.inf):
            bad.append(f'{op} {shape} {pas} {t}')
        seen.add((op, pas, t))
        if 'call cost' not in shape:
            ratios.setdefault((pas, t), []).append(mr / mt)
    pats = o.filter.split(',')

    def wanted(name):
        return any(p in name for p in pats)
    todo = [c for c in cases(o.quick) if wanted(f'{c.op} {c.shape}')]
    for i, c in enumerate(todo):
        if i and i % 10 == 0:
            print(f'# load average: {load()}', flush=True)
        if c.note and f'{c.op}: {c.note}' not in notes:
            notes.append(f'{c.op}: {c.note}')
        for backward in ((False,) if c.op in NO_BACKWARD else (False, True)):
            for t in o.threads:
                set_threads(t)
                fr, ft = c.calls(backward)
                pas = 'fwd+bwd' if backward else 'fwd'
                record(c.op, c.shape, pas, t, fr, ft, o.min_time / 1e3)
    batch = 2 if o.quick else 64
    if wanted(f'lenet5_step batch {batch}'):
        sr, st = lenet_steps(batch)
        for t in o.threads:
            set_threads(t)
            record('lenet5_step', f'batch {batch} 28x28, SGD m=0.9', 'step', t, sr, st,
                   4 * o.min_time / 1e3)
    for n in notes:
        print(f'# note {n}')
    for (pas, t), rs in sorted(ratios.items()):
        if pas != 'step':
            g = math.exp(sum(math.log(v) for v in rs) / len(rs))
            print(f'# geometric mean of the ratios, {pas}, {t} thread(s), {len(rs)} rows '
                  f'(the call-cost row left out): {g:.2f}')
    print(f'# load average at end: {load()}; {time.time() - t_start:.0f} s')
    if o.profile:
        profile_lenet(batch, o.threads)
    if o.check:
        import repdl.ops
        want = [(op, pas, t) for op in repdl.ops.__all__ for pas in ('fwd', 'fwd+bwd')
                for t in o.threads if not (op in NO_BACKWARD and pas == 'fwd+bwd')] + [('lenet5_step', 'step', t) for t in o.threads]
        missing = [' '.join(map(str, w)) for w in want if w not in seen]
        for what, lst in (('no row', missing), ('time not finite and positive', bad)):
            if lst:
                print(f'bench_torch: FAIL: {what}: {", ".join(lst)}')
        if missing or bad:
            return 1
        print(f'bench_torch: PASS: all {len(repdl.ops.__all__)} repdl.ops functions (fwd, '
              f'fwd+bwd) and the LeNet-5 step have rows at threads {o.threads}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
