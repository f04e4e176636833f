# SPDX-License-Identifier: MIT
"""bench/attention/bench_gpt_torch.py: the PyTorch anchor of one training
step of examples/train_gpt.c's default model ([gpt-long] in
tests/train/expected.txt), the same shapes and operations:

  vocabulary 256, 4 layers, d_model 128, 4 heads (head_dim 32), context
  128, batch 16; token embedding tied to the output projection, no
  position table; pre-LN blocks x += proj(attn(rope(q), rope(k), v)) of
  LN1(x), x += W2 gelu(W1 LN2(x)) with 4 d_model hidden units, biases on
  the four linear layers (q, k, v as one 3 d_model x d_model product), layer
  norms with eps 1e-5, exact (erf) GELU, causal attention with scale
  1/sqrt(head_dim), rotary embeddings base 10000 on q and k; LNf, logits
  = LNf(x) wte^T; mean cross-entropy over the 16 x 128 tokens; clipping by
  global norm 1.0; AdamW lr 1e-3, betas (0.9, 0.95), eps 1e-8, weight decay
  0.1 on the matrices and the table, 0 on biases and norms.

--attn math: attention in the math form (scores by one batched matmul,
additive causal mask, softmax, matmul with v: nn.MultiheadAttention's
internals in torch 1.13, which has no fused attention), with RoPE as the C
model.  --attn mha: torch.nn.MultiheadAttention itself (its own in/out
projections with biases, attn_mask causal, need_weights=False), which
cannot apply RoPE between its projection and its scores: the same shapes
and FLOPs less the rotation.  --attn both (default): both, one after the
other in this process.

    python3 bench_gpt_torch.py [steps] [threads...] [--attn math|mha|both] [--raw]
prints one line per (attention form, thread count):
    attn policy threads n wall_min wall_med cpu_min cpu_med
and with --raw, before it, one line per timed step:
    raw attn policy threads wall cpu
times in ms of each of `steps` steps (default 10) after 2 warm-up steps
(wall = time.perf_counter, cpu = time.process_time: all of the process's
threads); policy is the OpenMP wait policy the process was started with
(OMP_WAIT_POLICY, read by the OpenMP runtime at start: "passive" workers
sleep while waiting, "active" spin, "default" the runtime's choice).  Run
it with OPENBLAS_NUM_THREADS set to the thread count (gpt_step.sh does, one
process per count): Debian's torch calls OpenBLAS-pthread, whose own pool
torch.set_num_threads does not limit.  The data are random bytes (the time
of a step does not depend on them)."""
import math
import os
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

V, L, D, H, N, B = 256, 4, 128, 4, 128, 16


def rope_tables(n, hd):
    inv = 1.0 / (10000.0 ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
    ang = torch.outer(torch.arange(n, dtype=torch.float32), inv)
    ang = torch.cat([ang, ang], dim=-1)
    return ang.cos(), ang.sin()


def rope(x, cos, sin):
    h = x.shape[-1] // 2
    rot = torch.cat([-x[..., h:], x[..., :h]], dim=-1)
    return x * cos + rot * sin


class Block(nn.Module):
    def __init__(self, attn):
        super().__init__()
        self.attn_kind = attn
        self.ln1 = nn.LayerNorm(D, eps=1e-5)
        self.ln2 = nn.LayerNorm(D, eps=1e-5)
        if attn == "mha":
            self.mha = nn.MultiheadAttention(D, H, batch_first=True)
        else:
            self.qkv = nn.Linear(D, 3 * D)
            self.proj = nn.Linear(D, D)
        self.fc = nn.Linear(D, 4 * D)
        self.out = nn.Linear(4 * D, D)

    def forward(self, x, mask, cos, sin):
        y = self.ln1(x)
        if self.attn_kind == "mha":
            a, _ = self.mha(y, y, y, attn_mask=mask, need_weights=False)
        else:
            b, n, _ = y.shape
            q, k, v = self.qkv(y).view(b, n, 3, H, D // H).permute(2, 0, 3, 1, 4)
            q, k = rope(q, cos, sin), rope(k, cos, sin)
            s = torch.baddbmm(mask.expand(b * H, n, n), q.reshape(b * H, n, -1),
                              k.reshape(b * H, n, -1).transpose(1, 2),
                              alpha=1.0 / math.sqrt(D // H))
            a = torch.bmm(torch.softmax(s, dim=-1), v.reshape(b * H, n, -1))
            a = self.proj(a.view(b, H, n, -1).transpose(1, 2).reshape(b, n, D))
        x = x + a
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, attn):
        super().__init__()
        self.wte = nn.Embedding(V, D)
        self.blocks = nn.ModuleList(Block(attn) for _ in range(L))
        self.lnf = nn.LayerNorm(D, eps=1e-5)
        cos, sin = rope_tables(N, D // H)
        self.register_buffer("cos", cos)
        self.register_buffer("sin", sin)
        self.register_buffer("mask", torch.full((N, N), float("-inf")).triu(1))

    def forward(self, ids):
        x = self.wte(ids)
        for blk in self.blocks:
            x = blk(x, self.mask, self.cos, self.sin)
        return self.lnf(x) @ self.wte.weight.t()


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    raw = "--raw" in sys.argv
    attn = "both"
    if "--attn" in sys.argv:
        attn = sys.argv[sys.argv.index("--attn") + 1]
        args.remove(attn)
    if attn not in ("math", "mha", "both"):
        sys.exit("bench_gpt_torch.py: --attn math, mha or both")
    steps = int(args[0]) if args else 10
    threads = [int(t) for t in args[1:]] or [1, 2]
    policy = os.environ.get("OMP_WAIT_POLICY", "default").lower()
    torch.manual_seed(1)
    print(f"# torch {torch.__version__} GPT step: layers {L}, d_model {D}, heads {H}, ctx {N}, "
          f"batch {B}, vocab {V}; {steps} steps after 2 warm-up (ms)")
    print("# attn policy threads n wall_min wall_med cpu_min cpu_med")
    for form in (["math", "mha"] if attn == "both" else [attn]):
        for t in threads:
            torch.set_num_threads(t)
            model = GPT(form)
            decay = [p for n_, p in model.named_parameters() if p.dim() == 2]
            other = [p for n_, p in model.named_parameters() if p.dim() != 2]
            opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                     {"params": other, "weight_decay": 0.0}],
                                    lr=1e-3, betas=(0.9, 0.95), eps=1e-8)
            wall, cpu = [], []
            for i in range(steps + 2):
                data = torch.randint(0, V, (B, N + 1))
                c0, w0 = time.process_time(), time.perf_counter()
                logits = model(data[:, :N])
                loss = F.cross_entropy(logits.reshape(-1, V), data[:, 1:].reshape(-1))
                opt.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                c1, w1 = time.process_time(), time.perf_counter()
                if i >= 2:
                    wall.append(1e3 * (w1 - w0))
                    cpu.append(1e3 * (c1 - c0))
                    if raw:
                        print(f"raw {form} {policy} {t} {wall[-1]:.3f} {cpu[-1]:.3f}")
            print(f"{form} {policy} {t} {len(wall)} {min(wall):.1f} {statistics.median(wall):.1f} "
                  f"{min(cpu):.1f} {statistics.median(cpu):.1f}", flush=True)


if __name__ == "__main__":
    main()
