# SPDX-License-Identifier: MIT
"""Shared helpers of the Python tests: test data with special values and
bitwise comparison (integer views, so +0/-0 and NaN payloads count)."""
import numpy as np
import torch

SPECIALS = [float('nan'), float('inf'), float('-inf'), 0.0, -0.0, 1e-45, -1e-45, 1e-40,
            -3e-39, 3.4e38, -3.4e38, 1.0, -1.0, 88.7, -104.0, 20.0]
CANON_NAN = np.int32(0x7fc00000)


def data(shape, seed, scale=3.0, specials=0):
    """Normal data (torch's generator: test inputs only), the first
    `specials` elements of the flattened tensor replaced by SPECIALS."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g) * scale
    if specials:
        flat = x.view(-1)
        k = min(specials, flat.numel())
        flat[:k] = torch.tensor((SPECIALS * (k // len(SPECIALS) + 1))[:k])
    return x


def random_bits(n, seed):
    """n float32 values of uniformly random bit patterns, plus SPECIALS."""
    g = torch.Generator().manual_seed(seed)
    b = torch.randint(-2**31, 2**31, (n,), generator=g, dtype=torch.int64).to(torch.int32)
    return torch.cat([torch.tensor(SPECIALS), b.view(torch.float32)])


def np_bits(a):
    return np.ascontiguousarray(np.asarray(a, dtype=np.float32)).view(np.int32)


def canon(a):
    """NaN made canonical (repdl's 0x7fc00000) in a numpy float32 array."""
    a = np.array(a, dtype=np.float32, copy=True)
    a[np.isnan(a)] = np.float32('nan')
    b = a.view(np.int32)
    b[np.isnan(a)] = CANON_NAN
    return a


def assert_bits(got, want, what=''):
    """got: a torch tensor (or numpy); want: numpy.  Bitwise equality."""
    if isinstance(got, torch.Tensor):
        assert got.dtype == torch.float32, f'{what}: dtype {got.dtype}'
        g = got.detach().contiguous().view(torch.int32).numpy()
    else:
        g = np_bits(got)
    w = np_bits(want)
    assert g.shape == w.reshape(g.shape).shape if g.size == w.size else False, \
        f'{what}: shape {g.shape} vs {w.shape}'
    w = w.reshape(g.shape)
    bad = np.flatnonzero(g.ravel() != w.ravel())
    assert bad.size == 0, (f'{what}: {bad.size} of {g.size} elements differ, first at {bad[:5]}: '
                           f'got {[hex(v & 0xffffffff) for v in g.ravel()[bad[:5]]]} want '
                           f'{[hex(v & 0xffffffff) for v in w.ravel()[bad[:5]]]}')


def t2n(t):
    return t.detach().contiguous().numpy().copy()
