# SPDX-License-Identifier: MIT
"""bench/attention/bench_attention_torch.py: the anchor of bench_attention.c.

PyTorch's CPU attention in the math form (torch 1.13 has no
scaled_dot_product_attention; this is the computation of
nn.MultiheadAttention's internals, F._scaled_dot_product_attention: one
batched matmul for the scores, an additive causal mask, softmax, one
batched matmul with v), forward, and its autograd backward (dq, dk, dv).
Same shapes as bench_attention.c: batch 1, H heads, head_dim 64, causal
(ATTN_CAUSAL=0 in the environment: no mask).

    python3 bench_attention_torch.py [reps] [heads] [threads...]
prints "seq threads forward_ms backward_ms forward_cpu_ms backward_cpu_ms"
lines (medians, ms; cpu: time.thread_time of the calling thread, the whole
work at 1 thread), after WARM untimed repetitions of each shape and thread
count (bench_attention.c does the same): the first calls of a shape run
slower (torch's, and glibc's, first allocations of its tensors), and with
7 repetitions and no warm-up their share moved torch's medians by up to
20% (results/attention-bench-2026-11-29f.txt)."""
import os
import statistics
import sys
import time

import torch

WARM = 3


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 31
    heads = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    threads = [int(t) for t in sys.argv[3:]] or [1, 2]
    causal = os.environ.get("ATTN_CAUSAL", "1")[:1] != "0"
    print(f"# torch {torch.__version__} math attention: batch 1, heads {heads}, head_dim 64, "
          f"{'causal' if causal else 'not causal'}, median of {reps} (ms)")
    print("# seq threads forward_ms backward_ms forward_cpu_ms backward_cpu_ms")
    gen = torch.Generator().manual_seed(1)
    for n in (128, 256, 512, 1024):
        q0, k0, v0, g = (torch.rand(heads, n, 64, generator=gen) * 2 - 1 for _ in range(4))
        mask = torch.full((n, n), float("-inf")).triu(1) if causal else torch.zeros(n, n)
        for t in threads:
            torch.set_num_threads(t)
            tf, tb, cf, cb = [], [], [], []
            for rep in range(WARM + reps):
                q, k, v = (x.clone().requires_grad_() for x in (q0, k0, v0))
                c0, t0 = time.thread_time(), time.perf_counter()
                s = torch.baddbmm(mask, q, k.transpose(1, 2), alpha=0.125)
                o = torch.bmm(torch.softmax(s, dim=-1), v)
                t1, c1 = time.perf_counter(), time.thread_time()
                o.backward(g)
                t2, c2 = time.perf_counter(), time.thread_time()
                if rep < WARM:
                    continue
                tf.append(t1 - t0)
                tb.append(t2 - t1)
                cf.append(c1 - c0)
                cb.append(c2 - c1)
            print(f"{n} {t} {1e3 * statistics.median(tf):.3f} {1e3 * statistics.median(tb):.3f} "
                  f"{1e3 * statistics.median(cf):.3f} {1e3 * statistics.median(cb):.3f}", flush=True)


if __name__ == "__main__":
    main()
