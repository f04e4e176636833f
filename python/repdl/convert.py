# SPDX-License-Identifier: MIT
"""repdl.from_torch_module: swaps a model's layers for repdl.nn's, in place.

Each supported module's class becomes its repdl.nn subclass (the object,
its parameters, buffers and hooks stay: the weights are kept exactly).
Before anything changes, every module is checked; if any cannot be made
reproducible (an unknown layer, an unsupported configuration, a non-float32
parameter, a user-defined module whose own forward() repdl cannot see),
UnsupportedModuleError names each of them and the model is left as it was:
a PyTorch kernel is never left silently in the path.
"""
import torch

from . import _device
from . import nn as rnn

__all__ = ['from_torch_module', 'UnsupportedModuleError']


class UnsupportedModuleError(TypeError):
    pass


_SWAP = {
    torch.nn.Linear: rnn.Linear, torch.nn.Conv2d: rnn.Conv2d, torch.nn.ReLU: rnn.ReLU,
    torch.nn.GELU: rnn.GELU, torch.nn.SiLU: rnn.SiLU, torch.nn.Sigmoid: rnn.Sigmoid,
    torch.nn.Tanh: rnn.Tanh, torch.nn.MaxPool2d: rnn.MaxPool2d,
    torch.nn.AvgPool2d: rnn.AvgPool2d, torch.nn.LayerNorm: rnn.LayerNorm,
    torch.nn.BatchNorm1d: rnn.BatchNorm1d, torch.nn.BatchNorm2d: rnn.BatchNorm2d,
    torch.nn.Dropout: rnn.Dropout, torch.nn.Softmax: rnn.Softmax,
    torch.nn.LogSoftmax: rnn.LogSoftmax, torch.nn.CrossEntropyLoss: rnn.CrossEntropyLoss,
    torch.nn.NLLLoss: rnn.NLLLoss, torch.nn.Flatten: rnn.Flatten,
    torch.nn.Identity: rnn.Identity,
}
_REPDL = set(_SWAP.values()) | {rnn.RMSNorm}
_CONTAINERS = (torch.nn.Sequential, torch.nn.ModuleList, torch.nn.ModuleDict)


def _config_problem(m):
    """Why a supported class in this configuration is not reproducible by
    repdl, or None."""
    if isinstance(m, torch.nn.Conv2d):
        if m.groups != 1:
            return f'groups={m.groups} (repdl: groups=1 only)'
        if m.padding_mode != 'zeros':
            return f"padding_mode={m.padding_mode!r} (repdl: 'zeros' only)"
        if m.padding == 'same' and any(d * (k - 1) % 2 for d, k in zip(m.dilation, m.kernel_size)):
            return "padding='same' with an asymmetric padding"
    if isinstance(m, torch.nn.MaxPool2d):
        if m.ceil_mode or m.dilation not in (1, (1, 1), [1, 1]):
            return 'ceil_mode=True or dilation > 1 (repdl: neither)'
    if isinstance(m, torch.nn.AvgPool2d):
        if m.ceil_mode or m.divisor_override is not None:
            return 'ceil_mode=True or divisor_override (repdl: neither)'
    if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.momentum is None:
        return 'momentum=None (cumulative average; repdl: a momentum)'
    if isinstance(m, (torch.nn.CrossEntropyLoss, torch.nn.NLLLoss)):
        if m.weight is not None or getattr(m, 'label_smoothing', 0.0) or \
                m.reduction not in ('mean', 'sum'):
            return "class weights, label smoothing or reduction='none' (repdl: none of them)"
    if isinstance(m, torch.nn.Softmax) or isinstance(m, torch.nn.LogSoftmax):
        if m.dim is None:
            return 'dim=None (repdl needs an explicit dim)'
    for name, t in list(m.named_parameters(recurse=False)) + list(m.named_buffers(recurse=False)):
        if t is None or not t.is_floating_point():
            continue
        if t.dtype != torch.float32:
            return f'{name} has dtype {t.dtype} (repdl: torch.float32 only)'
        if not _device.supported(t.device):
            return (f'{name} is on {t.device} (repdl computes on the CPU'
                    f'{" and CUDA" if _device.cuda_built else "; this build has no CUDA"})')
    return None


def from_torch_module(model, strict=True):
    """Converts model in place and returns it.

    strict=True (default): a module of a user-defined class with children
    (its own forward(), which may call PyTorch functions) is refused;
    strict=False converts its children and trusts its forward() to call
    only repdl.ops or data movement (reshape, flatten, ...).
    """
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f'repdl.from_torch_module: expected a torch.nn.Module, got '
                        f'{type(model).__name__}')
    problems, swaps = [], []
    for name, m in model.named_modules():
        label = name or '<root>'
        t = type(m)
        if t in _REPDL or t in _SWAP:
            why = _config_problem(m)
            if why:
                problems.append(f'{label} ({t.__module__}.{t.__name__}): {why}')
            elif t in _SWAP:
                swaps.append(m)
        elif t in _CONTAINERS:
            continue
        elif any(True for _ in m.children()) and not strict:
            continue
        elif any(True for _ in m.children()):
            problems.append(f'{label} ({t.__module__}.{t.__name__}): a user-defined module with '
                            'its own forward(), which repdl cannot see (rewrite it with repdl.ops '
                            'and pass strict=False, or build it from torch.nn.Sequential)')
        else:
            problems.append(f'{label} ({t.__module__}.{t.__name__}): no reproducible repdl '
                            'version of this module')
    if problems:
        raise UnsupportedModuleError('repdl.from_torch_module: cannot make these modules '
                                     'reproducible (nothing was converted):\n  ' +
                                     '\n  '.join(problems))
    for m in swaps:
        m.__class__ = _SWAP[type(m)]
    return model
