# SPDX-License-Identifier: MIT
"""repdl.ops.linear(..., gemm='cr') and repdl.nn.Linear(..., gemm='cr')
(every product correctly rounded: repdl_gemm_cr_f32, include/repdl/gemm_cr.h):

- forward y = RN(x W^T + b) and backward dx = RN(dy W), dW = RN(dy^T x),
  db = RN(dy^T 1) equal the C library's repdl_gemm_cr_f32 through ctypes
  (librepdl.so, a path that shares no code with repdl._C), bit for bit,
  special values included;
- on small shapes they also equal an exact oracle written here (Python
  fractions: the exact sum, rounded once to nearest-even binary32);
- the same bits at torch.set_num_threads 1, 2 and 3, and a row's outputs do
  not depend on the other rows of the batch;
- an MLP of repdl.nn.Linear(gemm='cr') trained 5 SGD steps gives one
  state_dict hash at 1 and 2 threads, each in its own process, and another
  hash than the same MLP with gemm='fma' (the option reaches the product);
- from_torch_module(..., gemm='cr'), and bad gemm values (ValueError).

Run as a script (python3 test_gemm_cr.py THREADS GEMM) it prints the MLP's
hash.
"""
import ctypes
import hashlib
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
# the child processes import the package the parent tested (REPDL_TEST_PKG)
sys.path.insert(0, os.environ.get('REPDL_TEST_PKG') or os.path.dirname(HERE))

import repdl  # noqa: E402
from repdl import nn, ops  # noqa: E402

from common import assert_bits, data  # noqa: E402


# ---- the C library's product through ctypes ----

def clib_gemm_cr(clib, ta, tb, M, N, K, A, B, bias=None):
    from clib import I, SZ, VP, f32, p
    fn = clib.l.repdl_gemm_cr_f32
    fn.argtypes = [I, I, SZ, SZ, SZ, VP, SZ, VP, SZ, VP, VP, SZ]
    fn.restype = I
    A, B = f32(A), f32(B)
    bias = None if bias is None else f32(bias)
    C = np.empty((M, N), dtype=np.float32)
    st = fn(int(ta), int(tb), M, N, K, p(A), ta and M or K, p(B), tb and K or N, p(bias), p(C), N)
    assert st == 0, f'repdl_gemm_cr_f32 returned {st}'
    return C


def t2n(t):
    return t.detach().contiguous().numpy().copy()


def clib_linear(clib, x, w, b, g):
    """The C library's y, dx, dW, db for x [M x K], w [N x K], b [N], g [M x N]."""
    M, K = x.shape
    N = w.shape[0]
    y = clib_gemm_cr(clib, 0, 1, M, N, K, x, w, b)
    dx = clib_gemm_cr(clib, 0, 0, M, K, N, g, w)
    dw = clib_gemm_cr(clib, 1, 0, N, K, M, g, x)
    db = clib_gemm_cr(clib, 1, 0, N, 1, M, g, np.ones((M, 1), dtype=np.float32)).reshape(N)
    return y, dx, dw, db


def repdl_linear(x, w, b, g, gemm='cr'):
    x = x.clone().requires_grad_(True)
    w = w.clone().requires_grad_(True)
    b = None if b is None else b.clone().requires_grad_(True)
    y = ops.linear(x, w, b, gemm=gemm)
    y.backward(g)
    return y, x.grad, w.grad, None if b is None else b.grad


# ---- an exact oracle: Fraction sums rounded once to binary32 ----

def _f32_round(q):
    """q (a Fraction) rounded to nearest-even binary32 (inf beyond the
    range); the exact comparisons decide between the neighbours of a
    double-precision guess."""
    if q == 0:
        return np.float32(0.0)
    guess = np.float32(float(q))
    if np.isinf(guess):
        return guess
    best = None
    for c in (np.nextafter(guess, np.float32(-np.inf)), guess,
              np.nextafter(guess, np.float32(np.inf))):
        if np.isinf(c):
            continue
        d = abs(Fraction(float(c)) - q)
        if best is None or d < best[0] or (d == best[0] and int(c.view(np.int32)) % 2 == 0):
            best = (d, c)
    return np.float32(best[1])


def exact_mm(A, B, bias=None):
    """RN(sum_k A[i][k] B[k][j] (+ bias[j])), finite inputs; an exact zero
    is +0 (the inputs here are never all -0)."""
    M, K = A.shape
    N = B.shape[1]
    C = np.empty((M, N), dtype=np.float32)
    Af = [[Fraction(float(v)) for v in row] for row in A]
    Bf = [[Fraction(float(v)) for v in row] for row in B]
    for i in range(M):
        for j in range(N):
            s = sum((Af[i][k] * Bf[k][j] for k in range(K)), Fraction(0))
            if bias is not None:
                s += Fraction(float(bias[j]))
            C[i, j] = _f32_round(s)
    return C


# ---- the tests ----

SHAPES = [(1, 1, 1), (5, 7, 3), (17, 33, 9), (64, 400, 120), (40, 300, 1), (3, 0, 4)]


@pytest.mark.parametrize('M,K,N', SHAPES)
@pytest.mark.parametrize('bias', [True, False])
def test_linear_cr_bits_vs_clib(clib, M, K, N, bias):
    """y, dx, dW, db of ops.linear(gemm='cr') = librepdl.so's
    repdl_gemm_cr_f32 (ctypes), bit for bit; specials in x in one shape."""
    x = data((M, K), 1 + M, specials=16 if (M, K) == (17, 33) else 0)
    w = data((N, K), 2 + N, scale=0.2)
    b = data((N,), 3) if bias else None
    g = data((M, N), 4 + K, scale=1e-2)
    y, dx, dw, db = repdl_linear(x, w, b, g)
    ry, rdx, rdw, rdb = clib_linear(clib, t2n(x), t2n(w), None if b is None else t2n(b), t2n(g))
    assert_bits(y, ry, 'y')
    assert_bits(dx, rdx, 'dx')
    assert_bits(dw, rdw, 'dW')
    if bias:
        assert_bits(db, rdb, 'db')


def test_linear_cr_exact_oracle():
    """On a small shape with wide exponents and cancellation: every output
    equals the exact sum rounded once (fractions), independently of the C
    library."""
    g0 = torch.Generator().manual_seed(7)
    M, K, N = 6, 9, 5
    x = torch.randn(M, K, generator=g0) * torch.exp2(torch.randint(-30, 30, (M, K), generator=g0))
    w = torch.randn(N, K, generator=g0)
    w[0] = -w[1]                      # cancellation in two outputs of every row
    x[:, 0] = x[:, 1]
    b = torch.randn(N, generator=g0) * 1e3
    g = torch.randn(M, N, generator=g0) * torch.exp2(torch.randint(-20, 20, (M, N), generator=g0))
    y, dx, dw, db = repdl_linear(x, w, b, g)
    X, W, B, G = t2n(x), t2n(w), t2n(b), t2n(g)
    assert_bits(y, exact_mm(X, W.T, B), 'y')
    assert_bits(dx, exact_mm(G, W), 'dx')
    assert_bits(dw, exact_mm(G.T, X), 'dW')
    assert_bits(db, exact_mm(G.T, np.ones((M, 1), dtype=np.float32)).reshape(N), 'db')


def test_linear_cr_threads_and_rows():
    """One set of bits at 1, 2 and 3 threads (shapes above the threading
    threshold), and each row's outputs the same when computed alone."""
    M, K, N = 96, 256, 80
    x, w, b = data((M, K), 11), data((N, K), 12, scale=0.1), data((N,), 13)
    g = data((M, N), 14, scale=1e-3)
    outs = []
    for t in (1, 2, 3):
        torch.set_num_threads(t)
        outs.append([t2n(v) for v in repdl_linear(x, w, b, g)])
    for t in (1, 2):
        for name, a, c in zip(('y', 'dx', 'dW', 'db'), outs[0], outs[t]):
            assert_bits(torch.from_numpy(c), a, f'{name} at {t + 1} threads')
    for r in (0, 37, M - 1):
        assert_bits(ops.linear(x[r:r + 1], w, b, gemm='cr'), outs[0][0][r:r + 1], f'row {r} alone')


def test_linear_cr_differs_from_fma():
    """gemm='cr' reaches the correctly rounded product: on a long sum its
    bits differ from the FMA chain's somewhere (and match it where both are
    exact)."""
    x, w = data((32, 1000), 21), data((16, 1000), 22)
    assert not torch.equal(ops.linear(x, w, gemm='cr').view(torch.int32),
                           ops.linear(x, w).view(torch.int32))


def test_module_and_bad_values():
    lin = nn.Linear(6, 4, gemm='cr')
    assert lin.gemm == 'cr' and "gemm='cr'" in repr(lin)
    x = data((3, 6), 31)
    assert_bits(lin(x), t2n(ops.linear(x, lin.weight, lin.bias, gemm='cr')), 'module')
    assert nn.Linear(6, 4).gemm == 'fma'
    with pytest.raises(ValueError, match='gemm'):
        nn.Linear(6, 4, gemm='tf32')
    with pytest.raises(ValueError, match='gemm'):
        ops.linear(x, lin.weight, gemm='CR')


def test_from_torch_module_gemm():
    m = torch.nn.Sequential(torch.nn.Linear(5, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    x = data((4, 5), 41)
    with pytest.raises(ValueError, match='gemm'):
        repdl.from_torch_module(m, gemm='fast')
    assert type(m[0]) is torch.nn.Linear  # nothing converted
    repdl.from_torch_module(m, gemm='cr')
    assert m[0].gemm == 'cr' and m[2].gemm == 'cr'
    want = ops.linear(ops.relu(ops.linear(x, m[0].weight, m[0].bias, gemm='cr')),
                      m[2].weight, m[2].bias, gemm='cr')
    assert_bits(m(x), t2n(want), 'converted model')
    repdl.from_torch_module(m, gemm='fma')
    assert m[0].gemm == 'fma'


@pytest.mark.skipif(not repdl._device.cuda_available(), reason='no CUDA device')
def test_linear_cr_cuda_same_bits():
    x, w, b, g = data((33, 70), 51), data((19, 70), 52), data((19,), 53), data((33, 19), 54)
    host = repdl_linear(x, w, b, g)
    dev = repdl_linear(x.cuda(), w.cuda(), b.cuda(), g.cuda())
    for name, h, d in zip(('y', 'dx', 'dW', 'db'), host, dev):
        assert_bits(d.cpu(), t2n(h), name)


# ---- an MLP trained with gemm='cr', in separate processes ----

def train_hash(threads, gemm):
    torch.set_num_threads(threads)
    repdl.random.manual_seed(5)
    model = torch.nn.Sequential(nn.Linear(20, 64, gemm=gemm), nn.ReLU(),
                                nn.Linear(64, 32, gemm=gemm), nn.ReLU(),
                                nn.Linear(32, 4, gemm=gemm))
    opt = repdl.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(5):
        x = data((96, 20), 100 + step)
        t = data((96,), 200 + step).abs().mul(1.3).long().clamp(max=3)
        opt.zero_grad()
        loss = nn.CrossEntropyLoss()(model(x), t)
        loss.backward()
        opt.step()
    h = hashlib.sha256()
    for k, v in model.state_dict().items():
        h.update(k.encode())
        h.update(v.detach().contiguous().numpy().tobytes())
    return h.hexdigest()


def _run(threads, gemm):
    env = dict(os.environ)
    env['REPDL_TEST_PKG'] = os.path.dirname(os.path.dirname(os.path.abspath(repdl.__file__)))
    r = subprocess.run([sys.executable, os.path.abspath(__file__), str(threads), gemm],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_mlp_cr_threads_one_hash():
    """5 SGD steps of a 3-layer MLP of Linear(gemm='cr'): one state_dict
    hash at 1 and 2 threads (separate processes; about 1 s of CPU each,
    mostly importing torch), not the gemm='fma' one (computed here)."""
    h1, h2 = _run(1, 'cr'), _run(2, 'cr')
    assert len(h1) == 64 and h1 == h2, (h1, h2)
    assert train_hash(1, 'fma') != h1


if __name__ == '__main__':
    print(train_hash(int(sys.argv[1]), sys.argv[2]))
