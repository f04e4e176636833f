# SPDX-License-Identifier: MIT
"""repdl.optim: torch.optim optimizers whose updates are repdl's
(include/repdl/optim.h): every element one fixed sequence of correctly
rounded binary32 operations, no FMA, the same bits everywhere.

    opt = repdl.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    opt.zero_grad(); loss.backward(); opt.step()

SGD follows repdl_sgd_step_f32 (PyTorch's semantics: the first step's
momentum buffer is the gradient, dampening after that, nesterov, weight
decay); Adam and AdamW follow repdl_adam_step_f32 (beta1^t and beta2^t kept
as running products, one rounding per step: state['beta_pows']).
Parameters and gradients must be float32 CPU (or, in the CUDA build,
CUDA: repdl_cuda_sgd_step_f32, repdl_cuda_adam_step_f32), dense; maximize,
amsgrad, foreach, capturable, differentiable and fused are not supported.
"""
import torch
from torch.optim.optimizer import Optimizer, required

from . import _device
from ._device import C as _C

__all__ = ['SGD', 'Adam', 'AdamW', 'clip_grad_norm_']


def _check_param(p):
    if p.dtype != torch.float32 or not _device.supported(p.device):
        raise TypeError(f'repdl.optim: parameters must be float32 CPU'
                        f'{" or CUDA" if _device.cuda_built else ""} tensors, got {p.dtype} on '
                        f'{p.device}')
    if p.grad.is_sparse:
        raise RuntimeError('repdl.optim: sparse gradients are not supported')
    if not p.is_contiguous():
        raise RuntimeError('repdl.optim: parameters must be contiguous (updated in place)')


def _refuse(name, **flags):
    for k, v in flags.items():
        if v:
            raise NotImplementedError(f'repdl.optim.{name}: {k}=True is not supported')


class SGD(Optimizer):
    """torch.optim.SGD's arguments and semantics, each update
    repdl_sgd_step_f32 (momentum buffer, dampening, nesterov, weight decay
    as PyTorch; every element one fixed sequence of correctly rounded
    binary32 operations).  maximize, foreach, differentiable: refused."""

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False):
        if lr is not required and lr < 0.0:
            raise ValueError(f'Invalid learning rate: {lr}')
        if momentum < 0.0:
            raise ValueError(f'Invalid momentum value: {momentum}')
        if weight_decay < 0.0:
            raise ValueError(f'Invalid weight_decay value: {weight_decay}')
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError('Nesterov momentum requires a momentum and zero dampening')
        _refuse('SGD', maximize=maximize, foreach=foreach, differentiable=differentiable)
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov))

    @torch.no_grad()
    def step(self, closure=None):
        """One update of every parameter with a gradient (closure: as
        torch.optim, re-evaluates the loss, returned)."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group['params']:
                if p.grad is None:
                    continue
                _check_param(p)
                state = self.state[p]
                state['step'] = state.get('step', 0) + 1
                buf = None
                if group['momentum'] != 0:
                    buf = state.get('momentum_buffer')
                    if buf is None:
                        buf = state['momentum_buffer'] = torch.zeros_like(
                            p, memory_format=torch.contiguous_format)
                _C.sgd_step(p, p.grad.contiguous(), buf, group['lr'], group['momentum'],
                            group['dampening'], group['weight_decay'], group['nesterov'],
                            state['step'])
        return loss


class Adam(Optimizer):
    """torch.optim.Adam's arguments and semantics, each update
    repdl_adam_step_f32 (bias corrections from beta1^t, beta2^t kept as
    running products in state['beta_pows']; weight decay added to the
    gradient).  amsgrad, foreach, maximize, capturable, differentiable,
    fused: refused."""
    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=False):
        if not 0.0 <= lr:
            raise ValueError(f'Invalid learning rate: {lr}')
        if not 0.0 <= eps:
            raise ValueError(f'Invalid epsilon value: {eps}')
        if not 0.0 <= betas[0] < 1.0 or not 0.0 <= betas[1] < 1.0:
            raise ValueError(f'Invalid beta parameters: {betas}')
        if not 0.0 <= weight_decay:
            raise ValueError(f'Invalid weight_decay value: {weight_decay}')
        _refuse(type(self).__name__, amsgrad=amsgrad, foreach=foreach, maximize=maximize,
                capturable=capturable, differentiable=differentiable, fused=fused)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        """One update of every parameter with a gradient (closure: as
        torch.optim, re-evaluates the loss, returned)."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            b1, b2 = group['betas']
            for p in group['params']:
                if p.grad is None:
                    continue
                _check_param(p)
                state = self.state[p]
                if not state:
                    state['step'] = 0
                    state['exp_avg'] = torch.zeros_like(p, memory_format=torch.contiguous_format)
                    state['exp_avg_sq'] = torch.zeros_like(p,
                                                           memory_format=torch.contiguous_format)
                    state['beta_pows'] = torch.ones(2, dtype=torch.float32)
                state['step'] = _C.adam_step(p, p.grad.contiguous(), state['exp_avg'],
                                             state['exp_avg_sq'], state['beta_pows'],
                                             state['step'], group['lr'], b1, b2, group['eps'],
                                             group['weight_decay'], self._decoupled)
        return loss


class AdamW(Adam):
    """torch.optim.AdamW (decoupled weight decay, default 1e-2): Adam's
    rules, the parameter first scaled by RN(1 - RN(lr wd)) then updated
    (repdl_adam_step_f32 with decoupled = 1)."""
    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, **kwargs):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, **kwargs)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, eps=1e-6):
    """torch.nn.utils.clip_grad_norm_ (norm_type 2) by
    repdl_clip_grad_norm_f32 (include/repdl/clip.h): the global norm is
    RN(sqrt(S)), S the canonical sum over the list of each gradient's
    canonical sum of squares, the list in the order of `parameters` (a
    tensor or an iterable; parameters whose .grad is None are left out):
    the same bits on every machine and at every thread count.  When the
    norm is finite and c = RN(max_norm / RN(norm + eps)) < 1, every
    gradient element becomes RN(g c), in place; otherwise nothing changes
    (a NaN or infinite norm leaves the gradients as they are: the returned
    norm says so).  Returns the norm before clipping, a 0-dim float32
    tensor.  max_norm and eps are rounded once to binary32; gradients must
    be float32, contiguous, dense CPU tensors (TypeError, RuntimeError
    otherwise); norm_type other than 2: NotImplementedError; max_norm NaN
    or < 0: RuntimeError from the library, nothing written.
    error_if_nonfinite=True: RuntimeError, nothing written, when the norm
    is NaN or infinite (torch's behaviour)."""
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    if float(norm_type) != 2.0:
        raise NotImplementedError(f'repdl.optim.clip_grad_norm_: norm_type={norm_type} is not '
                                  'supported (2 only)')
    grads = [p.grad for p in parameters if p.grad is not None]
    for g in grads:
        if g.dtype != torch.float32 or g.device.type != 'cpu' or g.is_sparse:
            raise TypeError(f'repdl.optim.clip_grad_norm_: gradients must be dense float32 CPU '
                            f'tensors, got {g.dtype} on {g.device}')
        if not g.is_contiguous():
            raise RuntimeError('repdl.optim.clip_grad_norm_: gradients must be contiguous '
                               '(clipped in place)')
    if error_if_nonfinite:
        norm = _C.clip_grad_norm(grads, float('inf'), float(eps))
        if norm != norm or norm in (float('inf'), float('-inf')):
            raise RuntimeError(f'repdl.optim.clip_grad_norm_: the total norm of order 2.0 for '
                               f'gradients from `parameters` is non-finite ({norm}), so it '
                               'cannot be clipped')
    with torch.no_grad():
        norm = _C.clip_grad_norm(grads, float(max_norm), float(eps))
    return torch.tensor(norm, dtype=torch.float32)
