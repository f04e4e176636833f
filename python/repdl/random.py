# SPDX-License-Identifier: MIT
"""repdl.random: repdl's Philox4x32-10 streams (include/repdl/rng.h) from
Python, the same numbers as the C library for the same (seed, offset).

    repdl.random.uniform_(t, lo, hi, seed=1, offset=0)   # repdl_rng_uniform_fill_f32
    repdl.random.normal_(t, mean, std, seed=1, offset=0) # repdl_rng_normal_fill_f32
    repdl.random.permutation(n, seed=1, offset=0)        # repdl_rng_permutation

A Generator is a seed and a slot counter: each draw that takes no explicit
offset uses the next slot, offset = slot * 2^32 (a draw uses fewer than
2^32 counter blocks, so the slots never overlap).  This is the layout of
examples/train_fmnist.c (tensor t of the model at offset t << 32): a model
built from repdl.nn after repdl.random.manual_seed(s), its layers created
in the C program's order, has the C program's initial weights for seed s.
repdl.nn's Linear and Conv2d initialise weight then bias from the default
generator; Dropout takes one slot per call.  In the CUDA build the fills
also take CUDA tensors (repdl_cuda_rng_*_fill_f32: the same numbers);
permutation is computed on the host (Fisher-Yates is sequential).
"""
import torch

from . import _device
from ._device import C as _C

__all__ = ['Generator', 'default_generator', 'manual_seed', 'uniform_', 'normal_',
           'permutation', 'init_bound']

_U64 = (1 << 64) - 1


class Generator:
    """(seed, slot): the whole state, two integers."""

    def __init__(self, seed=0):
        self.manual_seed(seed)

    def manual_seed(self, seed):
        if not 0 <= int(seed) <= _U64:
            raise ValueError(f'repdl: seed must be in [0, 2^64), got {seed}')
        self._seed = int(seed)
        self._slot = 0
        return self

    def seed(self):
        return self._seed

    def next_offset(self):
        """The offset of the next slot (slot << 32); advances the slot."""
        off = (self._slot << 32) & _U64
        self._slot += 1
        return off

    def get_state(self):
        return (self._seed, self._slot)

    def set_state(self, state):
        self._seed, self._slot = int(state[0]), int(state[1])


default_generator = Generator(0)


def manual_seed(seed):
    """Seeds the default generator and rewinds it to slot 0."""
    return default_generator.manual_seed(seed)


def _target(t):
    if not isinstance(t, torch.Tensor) or t.dtype != torch.float32 or \
            not _device.supported(t.device):
        raise TypeError('repdl.random: the tensor must be a float32 CPU'
                        f'{" or CUDA" if _device.cuda_built else ""} tensor')


def _stream(seed, offset, generator):
    if seed is None:
        gen = generator if generator is not None else default_generator
        return gen.seed(), (gen.next_offset() if offset is None else int(offset))
    return int(seed), 0 if offset is None else int(offset)


def _fill(fn, t, a, b, seed, offset, generator):
    _target(t)
    s, o = _stream(seed, offset, generator)
    with torch.no_grad():
        if t.is_contiguous():
            fn(t, s, o, float(a), float(b))
        else:  # element j of the stream goes to element j in row-major order
            c = t.contiguous()
            fn(c, s, o, float(a), float(b))
            t.copy_(c)
    return t


def uniform_(tensor, a=0.0, b=1.0, seed=None, offset=None, generator=None):
    """tensor[j] = RN(a + RN(RN(b - a) * u_j)), u_j uniform j of the stream
    (seed, offset) (repdl_rng_uniform_fill_f32), j in row-major order."""
    return _fill(_C.uniform_fill, tensor, a, b, seed, offset, generator)


def normal_(tensor, mean=0.0, std=1.0, seed=None, offset=None, generator=None):
    """tensor[j] = RN(mean + RN(std * z_j)) (repdl_rng_normal_fill_f32)."""
    return _fill(_C.normal_fill, tensor, mean, std, seed, offset, generator)


def permutation(n, seed=None, offset=None, generator=None):
    """repdl_rng_permutation(n, seed, offset) as an int64 tensor."""
    s, o = _stream(seed, offset, generator)
    return _C.permutation(int(n), s, o)


def init_bound(fan_in):
    """PyTorch's default bound 1/sqrt(fan_in) for Linear and Conv2d weights
    and biases: RN(1 / RN(sqrt(fan_in))), as examples/train_fmnist.c."""
    return _C.init_bound(int(fan_in))
