# SPDX-License-Identifier: MIT
"""repdl.from_torch_module: swaps a model's layers for repdl.nn's, in place.

Each supported module's class becomes its repdl.nn subclass (the object,
its parameters, buffers and hooks stay: the weights are kept exactly).
Before anything changes, every module is checked; if any cannot be made
reproducible (a layer repdl has no version of, an unsupported
configuration, a non-float32 parameter, a forward hook or pre-hook, a
parametrization such as weight_norm or spectral_norm, a module of the
user's own class whose forward() repdl cannot see), UnsupportedModuleError
names each of them and what repdl supports instead, and the model is left
as it was: a PyTorch kernel is never left silently in the path.
"""
import torch

from . import _device
from . import nn as rnn

__all__ = ['from_torch_module', 'UnsupportedModuleError']


class UnsupportedModuleError(TypeError):
    """Raised by from_torch_module: the message lists each module that
    cannot be made reproducible, and why."""


# repdl.nn's module classes, from the module itself: each public class
# of repdl.nn that subclasses torch.nn.Module; a class subclassing one of
# PyTorch's module classes (repdl.nn.Linear(torch.nn.Linear)) is what
# that class converts to, so a new module of repdl.nn needs no edit here.
_REPDL = {c for n, c in vars(rnn).items()
          if not n.startswith('_') and isinstance(c, type) and
          issubclass(c, torch.nn.Module) and c.__module__ == rnn.__name__}
_SWAP = {}
for _c in sorted(_REPDL, key=lambda c: c.__name__):
    for _b in _c.__mro__[1:]:
        if _b.__module__.startswith('torch.') and _b is not torch.nn.Module:
            if _b in _SWAP:
                raise ImportError(f'repdl.convert: repdl.nn.{_SWAP[_b].__name__} and '
                                  f'repdl.nn.{_c.__name__} both subclass {_b.__name__}')
            _SWAP[_b] = _c
            break
# MultiheadAttention's out_proj: its weight and bias are read by the
# attention's forward, its own forward never runs
_SWAP[torch.nn.modules.linear.NonDynamicallyQuantizableLinear] = rnn.Linear
_CONTAINERS = (torch.nn.Sequential, torch.nn.ModuleList, torch.nn.ModuleDict)


def _hook_problem(m):
    """Why m's hooks or parametrizations keep PyTorch in its path, or None."""
    if torch.nn.utils.parametrize.is_parametrized(m):
        return ('parametrized (torch.nn.utils.parametrize: ' +
                ', '.join(sorted(m.parametrizations.keys())) + '): PyTorch would compute the '
                'parameter in every call; repdl does not convert parametrizations yet (planned): '
                'fold them first with torch.nn.utils.parametrize.remove_parametrizations(module, '
                "name, leave_parametrized=True)")
    pre = list(getattr(m, '_forward_pre_hooks', {}).values())
    names = sorted({type(h).__name__ for h in pre})
    if any(n in ('WeightNorm', 'SpectralNorm') for n in names):
        return (f'carries {" and ".join(n for n in names if n in ("WeightNorm", "SpectralNorm"))} '
                '(torch.nn.utils.weight_norm / spectral_norm): PyTorch recomputes the weight in a '
                'forward pre-hook; repdl does not convert them yet (planned): fold the weight '
                'first with torch.nn.utils.remove_weight_norm / remove_spectral_norm')
    kinds = [k for k, d in (('forward pre-hook', pre),
                            ('forward hook', getattr(m, '_forward_hooks', {})),
                            ('backward hook', getattr(m, '_backward_hooks', {})))
             if len(d)]
    if kinds:
        return (f'has {" and ".join(kinds)}s: code repdl cannot see runs in every call; '
                'remove them (handle.remove()) before converting, or compute inside them with '
                'repdl.ops only and register them after converting')
    return None


def _config_problem(m):
    """Why a supported class in this configuration is not reproducible by
    repdl, or None."""
    if isinstance(m, torch.nn.Softplus) and m.beta != 1:
        return f'beta={m.beta} (repdl: beta=1; other betas are planned)'
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
    if isinstance(m, torch.nn.Embedding) and (m.max_norm is not None or
                                              m.scale_grad_by_freq or m.sparse):
        return 'max_norm, scale_grad_by_freq or sparse=True (repdl: none of them)'
    if isinstance(m, torch.nn.MultiheadAttention):
        if not m._qkv_same_embed_dim:
            return (f'kdim={m.kdim}, vdim={m.vdim} differ from embed_dim={m.embed_dim} '
                    '(repdl: equal)')
        if m.bias_k is not None or m.add_zero_attn:
            return 'add_bias_kv or add_zero_attn (repdl: neither)'
    if isinstance(m, (torch.nn.TransformerEncoderLayer, torch.nn.TransformerDecoderLayer)):
        act = m.activation
        if not (act is torch.nn.functional.relu or act is torch.nn.functional.gelu or
                isinstance(act, torch.nn.Module)):
            return (f'activation {getattr(act, "__name__", act)!r} (repdl: relu, gelu or a '
                    'module repdl converts)')
    if isinstance(m, torch.nn.Softmax) or isinstance(m, torch.nn.LogSoftmax):
        if m.dim is None:
            return 'dim=None (repdl needs an explicit dim)'
    # a repdl.nn class names its own refusals: a static method
    # _conversion_problem(m), the reason or None, for a module of the class
    # or of the PyTorch class it converts
    own = getattr(_SWAP.get(type(m), type(m)), '_conversion_problem', None)
    if own is not None:
        why = own(m)
        if why:
            return why
    for name, t in list(m.named_parameters(recurse=False)) + list(m.named_buffers(recurse=False)):
        if t is None or not t.is_floating_point():
            continue
        if t.dtype != torch.float32:
            return f'{name} has dtype {t.dtype} (repdl: torch.float32 only)'
        if not _device.supported(t.device):
            return (f'{name} is on {t.device} (repdl computes on the CPU'
                    f'{" and CUDA" if _device.cuda_built else "; this build has no CUDA"})')
    return None


_LIST = ', '.join(sorted(t.__name__ for t in _SWAP))


def from_torch_module(model, strict=True, gemm=None):
    """Converts model in place and returns it: each module of a class
    repdl supports becomes its repdl.nn subclass (the same object,
    parameters and buffers).  Refused, with UnsupportedModuleError naming
    each module and nothing converted: a class repdl has no version of
    (PyTorch's own: support may be planned; the supported classes are
    listed in the message), an unsupported configuration, a non-float32 or
    unsupported-device parameter, a forward hook, pre-hook or backward hook
    (weight_norm, spectral_norm among them), a parametrization.

    strict=True (default): a module of the user's own class with children
    (its own forward(), which may call PyTorch functions) is refused;
    strict=False converts its children and trusts its forward() to call
    only repdl.ops or data movement (reshape, flatten, ...).

    gemm='cr' or 'fma': every repdl.nn.Linear of the converted model
    computes its products that way (repdl.nn.Linear's gemm); None (default)
    leaves them as they are ('fma' for a converted torch.nn.Linear).
    Another value: ValueError, nothing converted.
    """
    if gemm is not None and gemm not in ('fma', 'cr'):
        raise ValueError(f"repdl.from_torch_module: gemm must be 'fma', 'cr' or None, got {gemm!r}")
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f'repdl.from_torch_module: expected a torch.nn.Module, got '
                        f'{type(model).__name__}')
    problems, swaps = [], []
    for name, m in model.named_modules():
        label = name or '<root>'
        t = type(m)
        why = _hook_problem(m)
        if why:
            problems.append(f'{label} ({t.__module__}.{t.__name__}): {why}')
            continue
        if t in _REPDL or t in _SWAP:
            why = _config_problem(m)
            if why:
                problems.append(f'{label} ({t.__module__}.{t.__name__}): {why}')
            elif t in _SWAP:
                swaps.append(m)
        elif t in _CONTAINERS:
            continue
        elif t.__module__.startswith('torch.'):
            problems.append(f'{label} ({t.__module__}.{t.__name__}): PyTorch\'s {t.__name__} has '
                            'no repdl version yet (support may be planned; the classes repdl '
                            'converts are listed below)')
        elif any(True for _ in m.children()) and not strict:
            continue
        elif any(True for _ in m.children()):
            problems.append(f'{label} ({t.__module__}.{t.__name__}): a module of your own class, '
                            'whose forward() repdl cannot see: pass strict=False to convert its '
                            'children if that forward() calls only repdl.ops and data movement '
                            '(reshape, flatten, ...)')
        else:
            problems.append(f'{label} ({t.__module__}.{t.__name__}): a module of your own class '
                            'with no children, whose forward() repdl cannot see: compute it with '
                            'repdl.ops (or repdl.nn modules)')
    if problems:
        raise UnsupportedModuleError('repdl.from_torch_module: cannot make these modules '
                                     'reproducible (nothing was converted):\n  ' +
                                     '\n  '.join(problems) + '\nrepdl converts: ' + _LIST +
                                     ' (containers Sequential, ModuleList, ModuleDict stay)')
    for m in swaps:
        m.__class__ = _SWAP[type(m)]
    if gemm is not None:
        for m in model.modules():
            if isinstance(m, rnn.Linear):
                m.gemm = gemm
    return model
