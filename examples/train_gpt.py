# SPDX-License-Identifier: MIT
"""examples/train_gpt.py: examples/train_gpt.c from PyTorch.

The character-level GPT of the C program built from repdl.nn (Embedding,
LayerNorm, Linear, RotaryEmbedding, GELU, scaled_dot_product_attention),
initialised and shuffled with repdl.random, clipped with
repdl.optim.clip_grad_norm_ and trained with repdl.optim.AdamW: the same
lines as the C program for the same arguments (tests/train/expected.txt,
[gpt-short], [gpt-long] and [gpt-short-cr]; docs/train.md, "The GPT
example"), at any torch.set_num_threads.  --gemm cr: every linear product
correctly rounded (repdl.nn.Linear(gemm='cr'), repdl.ops.linear(...,
gemm='cr')), the C program's --gemm cr.

    python3 examples/train_gpt.py [--layers L] [--dmodel D] [--heads H]
        [--ctx N] [--batch B] [--steps K] [--seed S] [--lr LR] [--wd WD]
        [--clip C] [--val-seqs K] [--threads T] [--data FILE] [--quiet]
        [--no-cache] [--gemm fma|cr]

Every number is repdl's, in the C program's order:
  data      the text's first 90% (bytes) trains, the rest validates;
            training windows of N + 1 bytes at multiples of N, epoch e in
            the order repdl.random.permutation(W, seed, e), B a step
  init      tensor t of the hash order (wte, per block ln1.g ln1.b qkv.w
            qkv.b proj.w proj.b ln2.g ln2.b fc.w fc.b out.w out.b, lnf.g
            lnf.b) from the Philox stream (seed, t << 32): N(0, 0.02), the
            two residual projections N(0, RN(0.02 / RN(sqrt(2 L)))); gains
            1, biases 0
  model     pre-LN blocks, RoPE (base 10000) on the queries and keys, causal
            attention at scale RN(1 / RN(sqrt(D / H))), GELU MLP, the logits
            LNf(x) wte^T (the table tied: its gradient RN(d_out + d_emb))
  gradient  the C program's data-parallel step: each of the B sequences'
            gradients alone (autograd, the loss its tokens' cross-entropy
            summed and divided by B N: repdl.ops.cross_entropy with
            global_batch_size=B N), then the buddy tree over the B
            sequences (repdl.distributed.units_combine, one unit a
            sequence), whatever the thread count
  clipping  repdl.optim.clip_grad_norm_ over the tensors in the hash order,
            max norm --clip, eps 1e-6
  update    repdl.optim.AdamW, betas (0.9, 0.95), eps 1e-8, weight decay
            --wd on wte and the four matrices of each block, 0 elsewhere
  printed   init_weights_sha256, trained_weights_sha256 (SHA-256 of the
            little-endian binary32 bytes, hash order), val_logits_sha256
            and val_loss of the first K validation windows (each token's
            cross-entropy, their canonical sum divided once by K N),
            sample_sha256 and sample: 200 bytes of greedy decoding (the
            first maximum of the last position's logits, repdl_argmax_f32's
            order: a NaN first, -0 below +0) over the last at most N bytes,
            positions from 0, from the first min(N / 2, 32) validation
            bytes, decoded through a key/value cache per block as the C
            program (--no-cache: by recomputation, the same bits)
Not here (the C program's): checkpoints, --generate, --serve-check, MPI.
Exit status: 0 done; 2 bad usage; 4 the data file is missing or unreadable.
"""
import argparse
import hashlib
import os
import sys
import zlib

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
try:  # the repdl on the path (PYTHONPATH, an install), else this source tree's
    import repdl
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'python'))
    import repdl  # noqa: E402
from repdl import nn as rnn  # noqa: E402
from repdl.nn import functional as rF  # noqa: E402

VOCAB = 256
SAMPLE_LEN = 200
DATA_MAX = 64 << 20  # the most text read (the C program's DATA_MAX)
DEFAULT_DATA = '/usr/share/doc/jargon-text/jargon.txt.gz'
EXIT_USAGE, EXIT_DATA = 2, 4
F32 = np.float32


def f32(s):
    """A binary32 option value, as the C program's strtof: finite, >= 0."""
    try:
        v = F32(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f'not a number: {s!r}') from None
    if not v >= 0 or not np.isfinite(v):
        raise argparse.ArgumentTypeError(f'must be finite and >= 0: {s!r}')
    return v


def read_text(path):
    """The bytes of a gzip file, or of a plain file (as zlib's gzread)."""
    try:
        with open(path, 'rb') as f:
            raw = f.read(DATA_MAX + 1)
    except OSError as e:
        sys.stderr.write(
            f'train_gpt.py: cannot open {path}: {e.strerror}\n'
            '  The corpus is the Jargon File of Debian\'s package jargon-text\n'
            '  (apt-get install jargon-text; scripts/deps.sh installs it).  A system\n'
            '  that strips /usr/share/doc (Docker\'s minimal images do) removes it:\n'
            '  give a copy with --data FILE.\n')
        sys.exit(EXIT_DATA)
    if raw[:2] == b'\x1f\x8b':
        try:
            d = zlib.decompressobj(wbits=31)
            text = d.decompress(raw, DATA_MAX + 1)
        except zlib.error as e:
            sys.stderr.write(f'train_gpt.py: {path}: {e}\n')
            sys.exit(EXIT_DATA)
    else:
        text = raw
    if len(text) > DATA_MAX:
        sys.stderr.write(f'train_gpt.py: {path}: more than {DATA_MAX} bytes\n')
        sys.exit(EXIT_DATA)
    return np.frombuffer(text, dtype=np.uint8)


class Block(torch.nn.Module):
    """x += proj(attention(rope(q), rope(k), v)) of LN1(x);
    x += out(gelu(fc(LN2(x))))."""

    def __init__(self, D, H, rope, scale, gemm):
        super().__init__()
        self.D, self.H, self.hd, self.rope, self.scale = D, H, D // H, rope, scale
        self.ln1 = rnn.LayerNorm(D, eps=1e-5)
        self.qkv = rnn.Linear(D, 3 * D, gemm=gemm)
        self.proj = rnn.Linear(D, D, gemm=gemm)
        self.ln2 = rnn.LayerNorm(D, eps=1e-5)
        self.fc = rnn.Linear(D, 4 * D, gemm=gemm)
        self.out = rnn.Linear(4 * D, D, gemm=gemm)

    def forward(self, x, cache=None, pos0=0):
        """x [n][D] at positions pos0 .. pos0 + n - 1.  cache None: the
        whole sequence (pos0 0), causal attention.  cache a dict: its keys
        and values ([1][H][pos0][hd], RoPE applied; empty at pos0 0) are
        extended by these n tokens', and the queries attend over all of
        them: a prefill (pos0 0) causally, one token (n 1) over every key,
        all at positions up to its own; the rows' bits are those of the
        whole sequence (an attention row depends only on its query, the
        keys it sees and their positions: include/repdl/attention.h)."""
        n, D, H, hd = x.shape[0], self.D, self.H, self.hd
        # split (its backward concatenates: a copy, no addition of zeros)
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=1)
        q, k, v = (t.reshape(n, H, hd).transpose(0, 1).unsqueeze(0).contiguous() for t in (q, k, v))
        q, k = self.rope(q, pos0), self.rope(k, pos0)
        causal = True
        if cache is not None:
            if pos0:
                if n != 1:
                    raise ValueError('train_gpt.py: after the prefill, one token at a time')
                k = torch.cat([cache['k'], k], dim=2)
                v = torch.cat([cache['v'], v], dim=2)
                causal = False
            cache['k'], cache['v'] = k, v
        o = rF.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=self.scale,
                                            enable_gqa=True)
        x2 = x + self.proj(o[0].transpose(0, 1).reshape(n, D))
        return x2 + self.out(rF.gelu(self.fc(self.ln2(x2))))


class GPT(torch.nn.Module):
    """The C program's model; parameters() in its hash order.  gemm: the
    linear products, 'fma' (repdl_linear_*) or 'cr' (every product
    correctly rounded, repdl_gemm_cr_f32: the C program's --gemm cr)."""

    def __init__(self, L, D, H, N, gemm='fma'):
        super().__init__()
        self.N, self.gemm = N, gemm
        self.wte = rnn.Embedding(VOCAB, D)
        hd = D // H
        self.scale = float(F32(1.0) / np.sqrt(F32(hd)))  # RN(1 / RN(sqrt(hd)))
        self.rope = rnn.RotaryEmbedding(hd, max_positions=N, base=10000.0)
        self.blocks = torch.nn.ModuleList(Block(D, H, self.rope, self.scale, gemm)
                                          for _ in range(L))
        self.lnf = rnn.LayerNorm(D, eps=1e-5)

    def tensors(self):
        """(tensor, kind) in the hash order; kind: 'w' drawn, 'res' drawn
        with the residual std, 'gain' 1, 'bias' 0."""
        out = [(self.wte.weight, 'w')]
        for b in self.blocks:
            out += [(b.ln1.weight, 'gain'), (b.ln1.bias, 'bias'), (b.qkv.weight, 'w'),
                    (b.qkv.bias, 'bias'), (b.proj.weight, 'res'), (b.proj.bias, 'bias'),
                    (b.ln2.weight, 'gain'), (b.ln2.bias, 'bias'), (b.fc.weight, 'w'),
                    (b.fc.bias, 'bias'), (b.out.weight, 'res'), (b.out.bias, 'bias')]
        return out + [(self.lnf.weight, 'gain'), (self.lnf.bias, 'bias')]

    def init_weights(self, seed):
        L = len(self.blocks)
        std_res = F32(0.02) / np.sqrt(F32(2 * L))  # RN(0.02 / RN(sqrt(2 L)))
        with torch.no_grad():
            for t, (w, kind) in enumerate(self.tensors()):
                if kind == 'gain':
                    w.fill_(1.0)
                elif kind == 'bias':
                    w.fill_(0.0)
                else:
                    repdl.random.normal_(w, 0.0, float(std_res if kind == 'res' else F32(0.02)),
                                         seed=seed, offset=t << 32)

    def forward(self, ids, caches=None, pos0=0):
        """Logits [n][256] of one sequence of n <= N byte ids (int64 [n]);
        caches (a dict a block) and pos0 as Block.forward's."""
        x = self.wte(ids)
        for i, b in enumerate(self.blocks):
            x = b(x) if caches is None else b(x, caches[i], pos0)
        return rF.linear(self.lnf(x), self.wte.weight, gemm=self.gemm)


def sha256_f32(tensors):
    """SHA-256 of the little-endian binary32 bytes, tensors concatenated."""
    h = hashlib.sha256()
    for t in tensors:
        h.update(t.detach().contiguous().numpy().astype('<f4', copy=False).tobytes())
    return h.hexdigest()


def argmax_first(row):
    """repdl_argmax_f32: the first NaN if any, else the first maximum in
    the total order of the bits (-0 below +0)."""
    u = row.detach().contiguous().numpy().view(np.uint32)
    nan = (u & 0x7fffffff) > 0x7f800000
    if nan.any():
        return int(np.argmax(nan))
    key = u ^ (np.uint32(0) - (u >> np.uint32(31)) | np.uint32(0x80000000))
    return int(np.argmax(key))


def token_losses(logits, targets):
    """Each row's cross-entropy (repdl_cross_entropy_f32 on the row alone,
    the C program's per-token loss), float32 [rows]."""
    return torch.stack([repdl.ops.cross_entropy(logits[r:r + 1], targets[r:r + 1],
                                                reduction='sum') for r in range(len(targets))])


def mean_count(losses):
    """The canonical sum of the losses divided once by their number
    (repdl_sum_f32, then repdl_div_count_f32: one binary32 division)."""
    s = F32(repdl.ops.sum(losses).item())
    return F32(s / F32(losses.numel()))  # count < 2^24: exact in binary32


def escaped(b):
    """The C program's print_escaped: \\n \\t \\" \\\\, other bytes outside
    32..126 as \\xNN."""
    out = []
    for c in b:
        if c == 10:
            out.append('\\n')
        elif c == 9:
            out.append('\\t')
        elif c in (34, 92):
            out.append('\\' + chr(c))
        elif c < 32 or c > 126:
            out.append(f'\\x{c:02x}')
        else:
            out.append(chr(c))
    return ''.join(out)


def greedy(model, prompt, N, no_cache=False, count=SAMPLE_LEN, rows=None):
    """SAMPLE_LEN bytes of greedy decoding, each the argmax of the last
    position's logits over the last at most N bytes, positions from 0.
    Through a key/value cache per block (the C program's greedy_cached):
    the prompt's last at most N bytes prefilled, then each new byte at its
    position while the sequence fits the context; past it the window of
    the last N bytes has positions 0 .. N - 1, so each step prefills that
    window anew.  no_cache: forward() over the window at every step (the
    same bits).  count: the bytes decoded; rows (a list) receives the
    logits row each byte came from."""
    seq = list(int(c) for c in prompt)
    caches = [dict() for _ in model.blocks]
    with torch.no_grad():
        for k in range(count):
            if no_cache:
                logits = model(torch.tensor(seq[-N:], dtype=torch.int64))
            elif k == 0 or len(seq) > N:
                caches = [dict() for _ in model.blocks]
                logits = model(torch.tensor(seq[-N:], dtype=torch.int64), caches, 0)
            else:
                logits = model(torch.tensor(seq[-1:], dtype=torch.int64), caches, len(seq) - 1)
            seq.append(argmax_first(logits[-1]))
            if rows is not None:
                rows.append(logits[-1].clone())
    return bytes(seq[len(prompt):])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--layers', type=int, default=4)
    ap.add_argument('--dmodel', type=int, default=128)
    ap.add_argument('--heads', type=int, default=4)
    ap.add_argument('--ctx', type=int, default=128)
    ap.add_argument('--batch', type=int, default=16)
    ap.add_argument('--steps', type=int, default=100)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--lr', type=f32, default=F32('1e-3'))
    ap.add_argument('--wd', type=f32, default=F32('0.1'))
    ap.add_argument('--clip', type=f32, default=F32('1.0'))
    ap.add_argument('--val-seqs', type=int, default=8)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--data', default=DEFAULT_DATA)
    ap.add_argument('--quiet', action='store_true')
    ap.add_argument('--no-cache', action='store_true')
    ap.add_argument('--gemm', choices=('fma', 'cr'), default='fma')
    o = ap.parse_args(argv)
    # the C program's limits (parse_args)
    limits = [('layers', 1, 64), ('dmodel', 2, 4096), ('heads', 1, 4096), ('ctx', 2, 4096),
              ('batch', 1, 65536), ('steps', 0, 2 ** 64 - 1), ('seed', 0, 2 ** 64 - 1),
              ('val_seqs', 0, 65536), ('threads', 1, 256)]
    for name, lo, hi in limits:
        if not lo <= getattr(o, name) <= hi:
            ap.error(f'--{name.replace("_", "-")} must be in [{lo}, {hi}]')
    if o.dmodel % o.heads or (o.dmodel // o.heads) % 2:
        ap.error('--dmodel must be --heads times an even head size')
    torch.set_num_threads(o.threads)

    text = read_text(o.data)
    N, B = o.ctx, o.batch
    ntrain = len(text) - len(text) // 10
    nval = len(text) - ntrain
    W = (ntrain - 1) // N if ntrain > N else 0
    K = min((nval - 1) // N if nval > N else 0, o.val_seqs)
    if W < B:
        sys.stderr.write(f'train_gpt.py: {o.data}: {W} training windows of {N + 1} bytes, fewer '
                         f'than --batch {B}\n')
        sys.exit(EXIT_DATA)
    train, val = text[:ntrain], text[ntrain:]

    def window(src, w):
        s = torch.from_numpy(src[w * N:w * N + N + 1].astype(np.int64))
        return s[:N], s[1:]

    model = GPT(o.layers, o.dmodel, o.heads, N, o.gemm)
    model.init_weights(o.seed)
    tens = model.tensors()
    params = [w for w, _ in tens]
    print(f'init_weights_sha256 {sha256_f32(params)}', flush=True)
    decay = [w for w, k in tens if k in ('w', 'res')]  # wte and the matrices
    rest = [w for w, k in tens if k not in ('w', 'res')]
    opt = repdl.optim.AdamW([{'params': decay, 'weight_decay': float(o.wd)},
                             {'params': rest, 'weight_decay': 0.0}],
                            lr=float(o.lr), betas=(0.9, 0.95), eps=1e-8)
    per_epoch = W // B
    units = list(range(B + 1))  # one sequence a unit, each its own node
    perm, cur = None, -1
    for step in range(o.steps):
        e, k = divmod(step, per_epoch)
        if e != cur:
            perm, cur = repdl.random.permutation(W, seed=o.seed, offset=e), e
        grads, losses = [], []
        for s in range(B):
            ids, tgt = window(train, int(perm[k * B + s]))
            logits = model(ids)
            loss = repdl.ops.cross_entropy(logits, tgt, global_batch_size=B * N)
            grads.append(torch.autograd.grad(loss, params))
            if not o.quiet:
                losses.append(token_losses(logits.detach(), tgt))
        for i, p in enumerate(params):
            sums = repdl.distributed.units_combine(B, units, [g[i] for g in grads])
            p.grad = sums.reshape(p.shape)
        norm = repdl.optim.clip_grad_norm_(params, float(o.clip), eps=1e-6)
        opt.step()
        if not o.quiet:
            print(f'step {step + 1} loss {float(mean_count(torch.cat(losses))):.6f} '
                  f'grad_norm {float(norm):.6f}', flush=True)
    print(f'trained_weights_sha256 {sha256_f32(params)}')
    with torch.no_grad():
        vlogits, vloss = [], []
        for s in range(K):
            ids, tgt = window(val, s)
            lg = model(ids)
            vlogits.append(lg)
            vloss.append(token_losses(lg, tgt))
        vl = mean_count(torch.cat(vloss)) if K else F32('nan')
    print(f'val_logits_sha256 {sha256_f32(vlogits)}')
    print(f'val_loss {float(vl):.6f} 0x{int(np.array(vl, dtype=np.float32).view(np.uint32)):08x}')
    plen = min(N // 2, 32, nval)
    if plen == 0:
        sys.exit('train_gpt.py: generation failed (no validation text)')
    out = greedy(model, bytes(val[:plen]), N, o.no_cache)
    print(f'sample_sha256 {hashlib.sha256(out).hexdigest()}')
    print(f'sample "{escaped(out)}"')


if __name__ == '__main__':
    main()
