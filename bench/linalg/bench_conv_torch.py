# SPDX-License-Identifier: MIT
"""bench/linalg/bench_conv_torch.py: PyTorch's CPU conv2d (oneDNN) on the
shapes of bench/linalg/bench_conv.c, forward and forward + backward, at the
thread counts given (torch.set_num_threads), as medians of interleaved
repetitions; with --repdl BENCH_CONV (the bench_conv binary) it runs that
binary too and prints repdl ms / torch ms per shape (docs/bench-linalg.md).

    python3 bench_conv_torch.py [--reps R] [--threads 1,2] [--repdl PATH]

Forward: F.conv2d(x, w, b) on tensors without grad.  Backward: the three
gradients dx, dw, db of F.conv2d for a given dy (torch.autograd.grad), the
forward not included (repdl's bench times repdl_conv2d_backward_f32, which
computes the same three).  Each repetition times a loop of calls lasting at
least 20 ms; wall clock (time.perf_counter)."""
import argparse
import re
import subprocess
import time

import torch
import torch.nn.functional as F

SHAPES = [  # name, (n, c, h, w, oc, kh, kw, stride, pad): bench_conv.c's order
    ("lenet conv1 n64 1->6 5x5 28x28 p2", (64, 1, 28, 28, 6, 5, 5, 1, 2)),
    ("lenet conv2 n64 6->16 5x5 14x14", (64, 6, 14, 14, 16, 5, 5, 1, 0)),
    ("resnet n4 64->64 3x3 56x56 p1", (4, 64, 56, 56, 64, 3, 3, 1, 1)),
    ("resnet n4 128->128 3x3 28x28 p1", (4, 128, 28, 28, 128, 3, 3, 1, 1)),
    ("resnet n1 64->64 3x3 56x56 p1", (1, 64, 56, 56, 64, 3, 3, 1, 1)),
    ("resnet n8 256->256 3x3 14x14 p1", (8, 256, 14, 14, 256, 3, 3, 1, 1)),
]


def per_call(fn, min_s=0.02):
    fn()
    k, t0 = 0, time.perf_counter()
    while True:
        fn()
        k += 1
        t = time.perf_counter() - t0
        if t >= min_s:
            return t / k


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])


def torch_times(reps, threads):
    out = {}
    for name, (n, c, h, w, oc, kh, kw, st, pad) in SHAPES:
        g = torch.Generator().manual_seed(1)
        x = torch.rand(n, c, h, w, generator=g) - 0.5
        wt = torch.rand(oc, c, kh, kw, generator=g) - 0.5
        b = torch.rand(oc, generator=g) - 0.5
        xg, wg, bg = (t.clone().requires_grad_(True) for t in (x, wt, b))
        with torch.no_grad():
            y = F.conv2d(x, wt, b, stride=st, padding=pad)
        dy = torch.rand(y.shape, generator=g) - 0.5

        def fwd():
            with torch.no_grad():
                F.conv2d(x, wt, b, stride=st, padding=pad)

        yg = F.conv2d(xg, wg, bg, stride=st, padding=pad)

        def bwd():
            torch.autograd.grad(yg, (xg, wg, bg), dy, retain_graph=True)

        for T in threads:
            torch.set_num_threads(T)
            tf, tb = [], []
            for r in range(reps):
                tf.append(per_call(fwd))
                tb.append(per_call(bwd))
            out[(name, T)] = (median(tf), median(tb))
    return out


def repdl_times(path, reps, T):
    """bench_conv's medians: {(name, variant): ms}."""
    txt = subprocess.run([path, "--reps", str(reps), "--threads", str(T)], check=True,
                         capture_output=True, text=True).stdout
    print(txt)
    res, name = {}, None
    for line in txt.splitlines():
        m = re.match(r"^(\S.*?)  \(", line)
        if m:
            name = m.group(1)
            continue
        m = re.match(r"^  (.+?)\s+([0-9.]+) ms", line)
        if m and name:
            res[(name, m.group(1).strip())] = float(m.group(2))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repdl", default=None)
    a = ap.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    print("torch %s, oneDNN %s, medians of %d repetitions" %
          (torch.__version__, torch.backends.mkldnn.is_available(), a.reps))
    tt = torch_times(a.reps, threads)
    rr = repdl_times(a.repdl, a.reps, max(threads)) if a.repdl else {}
    print("%-36s %3s %10s %10s %10s %10s %8s %8s" %
          ("shape", "T", "torch fwd", "repdl fwd", "torch bwd", "repdl bwd", "fwd r/t", "bwd r/t"))
    for name, _ in SHAPES:
        for T in threads:
            f, b = tt[(name, T)]
            rf = rr.get((name, "fwd threads 1" if T == 1 else "fwd threads T"))
            rb = rr.get((name, "bwd threads 1" if T == 1 else "bwd threads T"))
            print("%-36s %3d %8.3fms %10s %8.3fms %10s %8s %8s" % (
                name, T, f * 1e3, "%.3fms" % rf if rf else "-", b * 1e3,
                "%.3fms" % rb if rb else "-",
                "%.2f" % (rf / (f * 1e3)) if rf else "-", "%.2f" % (rb / (b * 1e3)) if rb else "-"))
    print("r/t = repdl ms / torch ms (< 1: repdl faster); machine load: %s" %
          open("/proc/loadavg").read().strip())


if __name__ == "__main__":
    main()
