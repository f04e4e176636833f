# SPDX-License-Identifier: MIT
"""repdl._device: where an operation runs, by the device of its tensors
(docs/python.md, "CUDA").

The CPU build of repdl._C (Debian's torch has no CUDA) computes on CPU
tensors only: C is repdl._C itself and check() refuses every other device,
as before.  The CUDA build (python/setup.py, REPDL_TORCH_CUDA) has, next to
each function f of repdl._C that takes float32 tensors, a CUDA form with
the same arguments and results on CUDA tensors (csrc/cuda_ops.cpp: repdl's
CUDA launchers, the host's bits), listed in the dict repdl._C.cuda_forms
(f -> its CUDA form; the layer operations' entries registered from
include/repdl/layer_table.h's rows with a launcher).  C then stands for repdl._C in repdl.ops,
repdl.optim and repdl.random: C.f(...) calls f when the tensor arguments
are on the CPU and cuda_forms[f] when they are on a CUDA device, and raises
PyTorch's error when they are on two devices.  A function with no CUDA
form raises NotImplementedError naming it.
"""
import torch

from . import _C as _ext

__all__ = ['cuda_built', 'cuda_available', 'check', 'supported', 'C']

#: True when repdl._C was built with repdl's CUDA launchers.
cuda_built = bool(getattr(_ext, 'cuda_built', False))
# f -> the CUDA form of repdl._C.f (the CUDA build; empty in the CPU build)
_CUDA_FORMS = dict(getattr(_ext, 'cuda_forms', {}))


def cuda_available():
    """True when CUDA tensors can be computed on: a CUDA build of repdl._C
    and a torch that sees a GPU."""
    return cuda_built and torch.cuda.is_available()


def supported(device):
    """True for the devices this build computes on: the CPU, and CUDA
    devices in the CUDA build."""
    return device.type == 'cpu' or (cuda_built and device.type == 'cuda')


def check(x, name):
    """The device part of repdl.ops' argument check."""
    if supported(x.device):
        return
    if cuda_built:
        raise RuntimeError(f'repdl: {name} is on device {x.device}; repdl computes on CPU and '
                           'CUDA tensors only')
    raise RuntimeError(f'repdl: {name} is on device {x.device}, but this build of repdl has '
                       'no CUDA support (torch.utils.cpp_extension built it for the CPU): '
                       'move the tensor to the CPU with .cpu()')


# Tensor arguments that stay on the host whatever the device of the others:
# adam_step's state (beta1^t, beta2^t), advanced by repdl_adam_begin_step on
# the host (csrc/cuda_ops.cpp).
_HOST_ARGS = {'adam_step': (4,)}


def _device_of(name, args):
    """The device of the tensor arguments of C.name(*args); None if none."""
    dev = None
    skip = _HOST_ARGS.get(name, ())
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor) and i not in skip:
            if dev is None:
                dev = a.device
            elif a.device != dev:
                raise RuntimeError('Expected all tensors to be on the same device, but found at '
                                   f'least two devices, {dev} and {a.device}! (repdl: {name})')
    return dev


class _Dispatch:
    """repdl._C with each function sent to its CPU or CUDA form."""

    def __getattr__(self, name):
        cpu = getattr(_ext, name)
        if not callable(cpu):
            return cpu
        cuda = _CUDA_FORMS.get(name)

        def call(*args):
            dev = _device_of(name, args)
            if dev is None or dev.type != 'cuda':
                return cpu(*args)
            if cuda is None:
                raise NotImplementedError(f'repdl: {name} has no CUDA implementation (not in '
                                          f'repdl._C.cuda_forms); its tensors are on {dev}')
            return cuda(*args)

        call.__name__ = name
        setattr(self, name, call)  # looked up once
        return call


#: repdl._C for the CPU build; the dispatching stand-in for the CUDA build.
C = _Dispatch() if cuda_built else _ext
