# SPDX-License-Identifier: MIT
"""repdl's attention and rotary embeddings from Python (docs/python.md,
"Transformers"): repdl.nn.functional.scaled_dot_product_attention and
repdl.ops.rope against the C library through ctypes (bit for bit, forward
and backward), a query row's bits alone and in a batch, the same bits at
1, 2 and 3 threads (subprocesses), repdl.nn.MultiheadAttention and the
converted torch.nn.Transformer layers close to PyTorch's, and bad input."""
import ctypes
import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import repdl
import repdl.nn.functional as RF
from common import assert_bits, data, t2n

SZ, F, VP = ctypes.c_size_t, ctypes.c_float, ctypes.c_void_p


class AttnShape(ctypes.Structure):
    _fields_ = [(n, SZ) for n in ('batch', 'hq', 'hkv', 'nq', 'nk', 'd', 'q_pos0', 'kv_stride')] + \
        [('causal', ctypes.c_int)]


def _p(a):
    return None if a is None else a.ctypes.data_as(VP)


def _f(t):
    return None if t is None else np.ascontiguousarray(t2n(t), dtype=np.float32)


def c_attention(clib, q, k, v, mask=None, keep=None, causal=False, scale=None):
    """repdl_attention_forward/backward_f32 through ctypes on [B, H, n, d]
    tensors (hq = hkv = H); returns (out, lse, bwd(dout) -> dq, dk, dv)."""
    lib = clib.l
    if not hasattr(lib, 'repdl_attention_forward_f32'):
        pytest.skip(f'{clib.path} has no repdl_attention_forward_f32 (an old librepdl.so)')
    lib.repdl_attention_forward_f32.argtypes = [VP, F] + [VP] * 7
    lib.repdl_attention_backward_f32.argtypes = [VP, F] + [VP] * 11
    B, Hq, L, E = q.shape
    Hkv, S = k.shape[1], k.shape[2]
    s = AttnShape(B, Hq, Hkv, L, S, E, 0, 0, int(causal))
    sc = F(1.0 / np.sqrt(E) if scale is None else scale)
    qn, kn, vn, mn = _f(q), _f(k), _f(v), _f(mask)
    kk = None if keep is None else np.ascontiguousarray(keep.numpy(), dtype=np.uint8)
    out = np.empty((B, Hq, L, E), np.float32)
    lse = np.empty((B, Hq, L), np.float32)
    st = lib.repdl_attention_forward_f32(ctypes.byref(s), sc, _p(qn), _p(kn), _p(vn), _p(mn),
                                         _p(kk), _p(out), _p(lse))
    assert st == 0, f'repdl_attention_forward_f32 returned {st}'

    def bwd(dout):
        g = _f(dout)
        dq, dk, dv = np.empty_like(qn), np.empty_like(kn), np.empty_like(vn)
        st = lib.repdl_attention_backward_f32(ctypes.byref(s), sc, _p(qn), _p(kn), _p(vn),
                                              _p(mn), _p(kk), _p(out), _p(lse), _p(g), _p(dq),
                                              _p(dk), _p(dv))
        assert st == 0, f'repdl_attention_backward_f32 returned {st}'
        return dq, dk, dv
    return out, lse, bwd


def qkv(B, H, L, S, E, seed, scale=1.0):
    return (data((B, H, L, E), seed, scale), data((B, H, S, E), seed + 1, scale),
            data((B, H, S, E), seed + 2, scale))


# (B, H, L, S, E, causal, mask kind)
CASES = [(2, 3, 5, 7, 8, False, None), (1, 2, 9, 9, 16, True, None), (2, 1, 4, 6, 3, False, 'bool'),
         (3, 2, 6, 6, 4, True, 'float'), (1, 1, 1, 33, 5, False, 'float'), (2, 2, 70, 70, 8, True,
                                                                             None)]


def _mask(kind, B, H, L, S, seed):
    if kind is None:
        return None, None
    g = torch.Generator().manual_seed(seed)
    keep = torch.rand((B, 1, L, S), generator=g) > 0.3
    keep[..., 0] = True
    if kind == 'bool':  # sdpa's bool mask: True takes part
        f = torch.zeros(B, 1, L, S).masked_fill(~keep, float('-inf'))
        return keep, f.expand(B, H, L, S)
    m = torch.randn((B, 1, L, S), generator=g).masked_fill(~keep, float('-inf'))
    return m, m.expand(B, H, L, S)


@pytest.mark.parametrize('case', CASES)
def test_sdpa_bits_as_c_library(clib, case):
    """Forward and backward: repdl._C's bits are the C library's (ctypes),
    with the heads folded into the batch by the Python side."""
    B, H, L, S, E, causal, kind = case
    q, k, v = qkv(B, H, L, S, E, 10 + L)
    m, mfull = _mask(kind, B, H, L, S, 5 + S)
    q.requires_grad_(), k.requires_grad_(), v.requires_grad_()
    out = RF.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal)
    # the C library with the mask per batch entry: [B * H] rows of [L, S]
    cm = None if mfull is None else mfull.reshape(B * H, L, S)
    r = lambda t: t.detach().reshape(B * H, 1, t.shape[2], E)
    want, _, bwd = c_attention(clib, r(q), r(k), r(v), cm, causal=causal)
    assert_bits(out, want, 'out')
    dout = data((B, H, L, E), 77)
    out.backward(dout)
    dq, dk, dv = bwd(dout.reshape(B * H, 1, L, E))
    assert_bits(q.grad, dq, 'dq')
    assert_bits(k.grad, dk, 'dk')
    assert_bits(v.grad, dv, 'dv')
    # the natural layout (batch B, H heads) in the C library: the same bits
    if mfull is None:
        want4, _, bwd4 = c_attention(clib, q.detach(), k.detach(), v.detach(), causal=causal)
        assert_bits(out, want4, 'out [B, H]')
        assert_bits(k.grad, bwd4(dout)[1], 'dk [B, H]')


def test_sdpa_gqa_bits_as_c_library(clib):
    q, k, v = data((2, 4, 6, 8), 1), data((2, 2, 6, 8), 2), data((2, 2, 6, 8), 3)
    for t in (q, k, v):
        t.requires_grad_()
    out = RF.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    want, _, bwd = c_attention(clib, q.detach(), k.detach(), v.detach(), causal=True)
    assert_bits(out, want, 'out')
    dout = data((2, 4, 6, 8), 4)
    out.backward(dout)
    dq, dk, dv = bwd(dout)
    assert_bits(q.grad, dq, 'dq'), assert_bits(k.grad, dk, 'dk'), assert_bits(v.grad, dv, 'dv')


def test_sdpa_close_to_torch():
    """The reference softmax(q k^T scale + mask) v in float64: close (PyTorch
    and this formula are not correctly rounded; repdl's bits are checked
    above)."""
    for B, H, L, S, E, causal, kind in CASES:
        q, k, v = qkv(B, H, L, S, E, 3 + S)
        m, mfull = _mask(kind, B, H, L, S, 9)
        out = RF.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal)
        sc = (q.double() @ k.double().transpose(-1, -2)) / np.sqrt(E)
        if mfull is not None:
            sc = sc + mfull.double()
        if causal:
            sc = sc.masked_fill(torch.ones(L, S).triu(1).bool(), float('-inf'))
        ref = torch.softmax(sc, -1) @ v.double()
        assert torch.allclose(out.double(), ref, rtol=1e-5, atol=1e-5), (B, H, L, S, E)


def test_row_alone_and_in_a_batch():
    """A query row's bits: alone, in the whole sequence, and its sequence
    in a batch of others (right-padded with key_padding_mask)."""
    H, E = 2, 8
    q, k, v = qkv(1, H, 12, 12, E, 21)
    full = RF.scaled_dot_product_attention(q, k, v, is_causal=True)
    for i in range(12):
        alone = RF.scaled_dot_product_attention(q[:, :, i:i + 1], k[:, :, :i + 1],
                                                v[:, :, :i + 1])
        assert_bits(alone, t2n(full[:, :, i:i + 1]), f'row {i}')
    # sequences of lengths 3, 12, 7 in one padded batch (bool mask: seen keys)
    lens = [3, 12, 7]
    qb, kb, vb = qkv(3, H, 12, 12, E, 40)
    qb[1], kb[1], vb[1] = q[0], k[0], v[0]
    seen = torch.zeros(3, 1, 12, 12, dtype=torch.bool)
    for b, n in enumerate(lens):
        seen[b, 0, :, :n] = True  # rows past the end: any keys (their output is not used)
        seen[b, 0, :n, :n] = torch.ones(n, n).tril().bool()
    out = RF.scaled_dot_product_attention(qb, kb, vb, attn_mask=seen)
    for b, n in enumerate(lens):
        own = RF.scaled_dot_product_attention(qb[b:b + 1, :, :n], kb[b:b + 1, :, :n],
                                              vb[b:b + 1, :, :n], is_causal=True)
        assert_bits(out[b:b + 1, :, :n], t2n(own), f'sequence {b}')
    assert_bits(out[1:2], t2n(full), 'the whole sequence in the batch')


_THREADS_SCRIPT = r'''
import hashlib, sys, torch, repdl
torch.set_num_threads(int(sys.argv[1]))
g = torch.Generator().manual_seed(3)
h = hashlib.sha256()
def add(t):
    h.update(t.detach().contiguous().numpy().tobytes())
q, k, v = (torch.randn(2, 4, 37, 16, generator=g).requires_grad_() for _ in range(3))
out = repdl.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
out.backward(torch.randn(out.shape, generator=g))
for t in (out, q.grad, k.grad, v.grad):
    add(t)
repdl.random.manual_seed(5)
layer = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True,
                                         activation='gelu')
layer = repdl.from_torch_module(layer)
repdl.random.manual_seed(6)
mha = repdl.nn.MultiheadAttention(32, 4)
for p in list(layer.parameters()) + list(mha.parameters()):
    with torch.no_grad():
        repdl.random.uniform_(p, -0.3, 0.3)
x = torch.randn(3, 19, 32, generator=g, requires_grad=True)
kpm = torch.zeros(3, 19, dtype=torch.bool)
kpm[1, 11:] = True
y = layer(x, src_key_padding_mask=kpm, is_causal=False)
y2, w = mha(x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1), key_padding_mask=kpm)
(repdl.ops.sum(y) + repdl.ops.sum(y2) + repdl.ops.sum(w)).backward()
for t in [y, y2, w, x.grad] + [p.grad for p in layer.parameters()] + [p.grad for p in mha.parameters()]:
    add(t)
print(h.hexdigest())
'''


def test_threads_same_bits(tmp_path):
    """sdpa forward and backward, a converted TransformerEncoderLayer and a
    MultiheadAttention with need_weights: one hash at 1, 2 and 3 threads
    (fresh processes)."""
    script = tmp_path / 'threads.py'
    script.write_text(_THREADS_SCRIPT)
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(repdl.__file__)))] +
        [p for p in env.get('PYTHONPATH', '').split(os.pathsep) if p])
    runs = {t: subprocess.Popen([sys.executable, str(script), str(t)], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE) for t in (1, 2, 3)}
    hashes = {}
    for t, r in runs.items():
        out, err = r.communicate(timeout=300)
        assert r.returncode == 0, err[-3000:]
        hashes[t] = out.strip()
    assert len(set(hashes.values())) == 1 and len(hashes[1]) == 64, hashes


# ---- MultiheadAttention ----

def _pair_mha(batch_first, bias=True, seed=0):
    torch.manual_seed(seed)
    ref = torch.nn.MultiheadAttention(16, 4, bias=bias, batch_first=batch_first)
    with torch.no_grad():  # nonzero biases
        for p in ref.parameters():
            p.add_(torch.randn(p.shape) * 0.1)
    mine = repdl.nn.MultiheadAttention(16, 4, bias=bias, batch_first=batch_first)
    assert list(mine.state_dict().keys()) == list(ref.state_dict().keys())
    mine.load_state_dict(ref.state_dict())
    return ref, mine


@pytest.mark.parametrize('batch_first', [False, True])
def test_mha_close_to_torch(batch_first):
    ref, mine = _pair_mha(batch_first)
    N, L, S = 3, 5, 7
    sh = (lambda n: (N, n, 16)) if batch_first else (lambda n: (n, N, 16))
    q, kv = data(sh(L), 1, 1.0), data(sh(S), 2, 1.0)
    kpm = torch.zeros(N, S, dtype=torch.bool)
    kpm[0, 4:] = True
    am = torch.rand(S, S, generator=torch.Generator().manual_seed(1)) > 0.7
    am[:, 0] = False
    am3 = torch.randn(N * 4, S, S)
    for q_ in (q, kv):  # cross attention (L queries), self attention (S)
        n = q_.shape[1] if batch_first else q_.shape[0]
        for kw in [{}, {'key_padding_mask': kpm}, {'attn_mask': am[:n]}, {'attn_mask': am3[:, :n]},
                   {'attn_mask': am[:n], 'key_padding_mask': kpm, 'average_attn_weights': False},
                   {'key_padding_mask': kpm.float() * -1e9}]:
            want, ww = ref(q_, kv, kv, **kw)
            got, gw = mine(q_, kv, kv, **kw)
            assert got.shape == want.shape and gw.shape == ww.shape, kw
            assert torch.allclose(got, want, rtol=1e-4, atol=1e-5), kw
            assert torch.allclose(gw, ww, rtol=1e-4, atol=1e-6), kw
        if q_ is kv:  # one projection for q, k, v: the same bits as three
            assert_bits(mine(kv, kv, kv)[0], t2n(mine(kv, kv.clone(), kv.clone())[0]), 'fused')
    # unbatched input, need_weights=False
    got, gw = mine(q[0] if batch_first else q[:, 0], kv[0] if batch_first else kv[:, 0],
                   kv[0] if batch_first else kv[:, 0], need_weights=False)
    want, _ = ref(q[0] if batch_first else q[:, 0], kv[0] if batch_first else kv[:, 0],
                  kv[0] if batch_first else kv[:, 0], need_weights=False)
    assert gw is None and torch.allclose(got, want, rtol=1e-4, atol=1e-5)


def test_mha_weights_are_the_attention_probabilities(clib):
    """need_weights: the probabilities the output used, bit for bit: the
    output before out_proj is their weighted sum, and each equals the C
    library's attention over one-hot values."""
    _, mine = _pair_mha(True, seed=3)
    x = data((2, 6, 16), 8, 1.0)
    _, w = mine(x, x, x, average_attn_weights=False, is_causal=True)
    qkv_ = repdl.ops.linear(x, mine.in_proj_weight, mine.in_proj_bias)
    q, k = (t.reshape(2, 6, 4, 4).permute(0, 2, 1, 3).contiguous() for t in qkv_.chunk(3, -1)[:2])
    W = 6
    pad = lambda t: torch.cat([t, torch.zeros(2, 4, 6, W - 4)], -1)
    eye = torch.eye(6).expand(2, 4, 6, 6).contiguous()
    want, _, _ = c_attention(clib, pad(q.detach()), pad(k.detach()), eye, causal=True,
                             scale=0.5)
    assert_bits(w, want, 'weights')
    assert torch.all(w.triu(1) == 0)
    assert torch.allclose(w.sum(-1), torch.ones(2, 4, 6), atol=1e-6)


def test_mha_backward_close_to_torch():
    ref, mine = _pair_mha(False, seed=4)
    x = data((5, 2, 16), 6, 1.0)
    xr, xm = x.clone().requires_grad_(), x.clone().requires_grad_()
    kpm = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
    ref(xr, xr, xr, key_padding_mask=kpm, need_weights=False)[0].sum().backward()
    repdl.ops.sum(mine(xm, xm, xm, key_padding_mask=kpm, need_weights=False)[0]).backward()
    assert torch.allclose(xm.grad, xr.grad, rtol=1e-4, atol=1e-5)
    for (n, a), b in zip(mine.named_parameters(), ref.parameters()):
        assert torch.allclose(a.grad, b.grad, rtol=1e-4, atol=1e-5), n


def test_mha_refusals():
    for kw in ({'kdim': 8}, {'vdim': 8}, {'add_bias_kv': True}, {'add_zero_attn': True}):
        with pytest.raises(NotImplementedError):
            repdl.nn.MultiheadAttention(16, 4, **kw)
    m = repdl.nn.MultiheadAttention(16, 4, dropout=0.1)
    x = data((3, 1, 16), 1)
    with pytest.raises(NotImplementedError, match='dropout'):
        m(x, x, x)
    m.eval()
    assert m(x, x, x)[0].shape == (3, 1, 16)
    with pytest.raises(RuntimeError, match='attn_mask'):
        m(x, x, x, attn_mask=torch.zeros(2, 3))


def test_mha_init_reproducible():
    repdl.random.manual_seed(11)
    a = repdl.nn.MultiheadAttention(16, 2)
    torch.manual_seed(99)  # torch's RNG plays no part
    repdl.random.manual_seed(11)
    b = repdl.nn.MultiheadAttention(16, 2)
    for (n, p), q in zip(a.named_parameters(), b.parameters()):
        assert_bits(p, t2n(q), n)
    bound = float(np.sqrt(6.0 / 64))
    assert a.in_proj_weight.abs().max() <= bound and a.in_proj_weight.std() > bound / 3
    assert torch.all(a.in_proj_bias == 0) and torch.all(a.out_proj.bias == 0)


# ---- Conversion of PyTorch's transformer modules ----

def _perturb(model, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=g) * 0.05)


@pytest.mark.parametrize('norm_first', [False, True])
@pytest.mark.parametrize('activation', ['relu', 'gelu'])
def test_convert_transformer(norm_first, activation):
    import copy
    torch.manual_seed(7)
    ref = torch.nn.Transformer(d_model=16, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                               dim_feedforward=24, dropout=0.0, activation=activation,
                               batch_first=True, norm_first=norm_first)
    _perturb(ref, 1)
    model = repdl.from_torch_module(copy.deepcopy(ref))
    for name, m in model.named_modules():
        assert type(m).__module__ == 'repdl.nn' or isinstance(m, (torch.nn.ModuleList,)), name
    src, tgt = data((2, 7, 16), 1, 1.0), data((2, 5, 16), 2, 1.0)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(5)
    skpm = torch.zeros(2, 7, dtype=torch.bool)
    skpm[1, 5:] = True
    kw = dict(tgt_mask=tmask, src_key_padding_mask=skpm, memory_key_padding_mask=skpm)
    ref.eval(), model.eval()
    want = ref(src, tgt, **kw)
    got = model(src, tgt, **kw)
    assert torch.allclose(got, want, rtol=1e-4, atol=1e-4)
    model.train()
    s2 = src.clone().requires_grad_()
    repdl.ops.sum(model(s2, tgt, **kw)).backward()
    assert s2.grad is not None and torch.isfinite(s2.grad).all()
    assert all(p.grad is not None for p in model.parameters())


def test_convert_encoder_layer_causal_seq_first():
    import copy
    torch.manual_seed(8)
    ref = torch.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0)
    _perturb(ref, 2)
    model = repdl.from_torch_module(copy.deepcopy(ref))
    assert type(model.self_attn) is repdl.nn.MultiheadAttention
    x = data((9, 2, 16), 3, 1.0)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(9)
    ref.eval(), model.eval()
    want = ref(x, src_mask=mask)
    assert torch.allclose(model(x, src_mask=mask), want, rtol=1e-4, atol=1e-4)
    # is_causal without the mask: the same bits as the -inf mask
    assert_bits(model(x, is_causal=True), t2n(model(x, src_mask=mask)), 'is_causal')


def test_convert_refuses_by_name():
    import torch.nn.functional as F
    cases = [(torch.nn.MultiheadAttention(16, 4, kdim=8, vdim=8), 'kdim'),
             (torch.nn.MultiheadAttention(16, 4, add_bias_kv=True), 'add_bias_kv'),
             (torch.nn.TransformerEncoderLayer(16, 4, 32, activation=F.silu), 'silu'),
             (torch.nn.TransformerDecoderLayer(16, 4, 32, activation=torch.tanh), 'tanh')]
    for model, word in cases:
        before = type(model)
        with pytest.raises(repdl.UnsupportedModuleError, match=word):
            repdl.from_torch_module(model)
        assert type(model) is before  # nothing converted


# ---- Rotary embeddings ----

def test_rope_bits_as_c_library(clib):
    lib = clib.l
    if not hasattr(lib, 'repdl_rope_table_f32'):
        pytest.skip(f'{clib.path} has no repdl_rope_table_f32 (an old librepdl.so)')
    lib.repdl_rope_table_f32.argtypes = [SZ, SZ, F, VP, VP]
    lib.repdl_rope_forward_f32.argtypes = [SZ] * 6 + [VP] * 4
    lib.repdl_rope_backward_f32.argtypes = [SZ] * 6 + [VP] * 4
    P, d = 40, 12
    c, s = repdl.ops.rope_table(P, d, 500.0)
    cw, sw = np.empty((P, d // 2), np.float32), np.empty((P, d // 2), np.float32)
    assert lib.repdl_rope_table_f32(P, d, F(500.0), _p(cw), _p(sw)) == 0
    assert_bits(c, cw, 'cos'), assert_bits(s, sw, 'sin')
    x = data((2, 3, 9, d), 5, specials=20).requires_grad_()
    y = repdl.ops.rope(x, c, s, pos0=31)
    xn, yw = _f(x), np.empty((2, 3, 9, d), np.float32)
    assert lib.repdl_rope_forward_f32(2, 3, 9, d, 31, P, _p(cw), _p(sw), _p(xn), _p(yw)) == 0
    assert_bits(y, yw, 'rope forward')
    dy = data((2, 3, 9, d), 6)
    y.backward(dy)
    dyn, dxw = _f(dy), np.empty((2, 3, 9, d), np.float32)
    assert lib.repdl_rope_backward_f32(2, 3, 9, d, 31, P, _p(cw), _p(sw), _p(dyn), _p(dxw)) == 0
    assert_bits(x.grad, dxw, 'rope backward')
    # the module, and a position's bits alone and in the sequence
    rot = repdl.nn.RotaryEmbedding(d, P, 500.0)
    assert_bits(rot(x.detach(), 31), yw, 'RotaryEmbedding')
    assert_bits(rot(x.detach()[:, :, 4:5], 35), yw[:, :, 4:5], 'position 35 alone')
    assert 'cos' not in rot.state_dict()


def test_rope_close_to_float64():
    P, d = 64, 16
    c, s = repdl.ops.rope_table(P, d)
    i = np.arange(d // 2)
    ang = np.arange(P)[:, None] * 10000.0 ** (-2.0 * i / d)[None, :]
    assert np.allclose(t2n(c), np.cos(ang), atol=2e-5) and np.allclose(t2n(s), np.sin(ang),
                                                                       atol=2e-5)


# ---- Bad input: a clear Python error, nothing computed ----

def test_bad_input():
    q = data((1, 2, 4, 8), 1)
    with pytest.raises(ValueError, match='head dimension 0'):
        RF.scaled_dot_product_attention(torch.zeros(1, 1, 3, 0), torch.zeros(1, 1, 3, 0),
                                        torch.zeros(1, 1, 3, 0))
    with pytest.raises(ValueError, match='fewer keys'):
        RF.scaled_dot_product_attention(q, q[:, :, :2], q[:, :, :2], is_causal=True)
    with pytest.raises(RuntimeError, match='does not broadcast'):
        RF.scaled_dot_product_attention(q, q, q, attn_mask=torch.zeros(3, 4))
    with pytest.raises(NotImplementedError, match='dropout_p'):
        RF.scaled_dot_product_attention(q, q, q, dropout_p=0.1)
    with pytest.raises(NotImplementedError, match='value head dimension'):
        RF.scaled_dot_product_attention(q, q, data((1, 2, 4, 6), 2))
    with pytest.raises(TypeError, match='float64'):
        RF.scaled_dot_product_attention(q.double(), q.double(), q.double())
    with pytest.raises(NotImplementedError, match='no gradient'):
        RF.scaled_dot_product_attention(q, q, q, attn_mask=torch.zeros(4, 4, requires_grad=True))
    c, s = repdl.ops.rope_table(4, 8)
    with pytest.raises(ValueError, match='past the'):
        repdl.ops.rope(q, c, s, pos0=1)
    with pytest.raises(ValueError, match='even'):
        repdl.ops.rope_table(4, 7)
    with pytest.raises(ValueError, match='twice'):
        repdl.ops.rope(data((1, 4, 6), 1), c, s)
    with pytest.raises(RuntimeError):  # base <= 0: the library's REPDL_ERR_INVALID
        repdl.ops.rope_table(4, 8, base=-1.0)
    # a row that sees no key: 0 (PyTorch: NaN), documented
    none = torch.zeros(1, 1, 4, 4, dtype=torch.bool)
    assert torch.all(RF.scaled_dot_product_attention(q, q, q, attn_mask=none) == 0)
