# SPDX-License-Identifier: MIT
"""repdl.nn: PyTorch modules computed by repdl (docs/python.md).

Each class subclasses its torch.nn namesake: the same constructor
signature, attributes, parameters, buffers and state_dict layout (a
torch.nn state_dict loads into a repdl.nn model and back), with forward
computed by repdl.ops.  Linear and Conv2d draw PyTorch's default
initialisation (uniform in [-b, b), b = RN(1 / RN(sqrt(fan_in))), weight
then bias) from repdl.random.default_generator instead of torch's RNG.
Containers (Sequential, ModuleList, ModuleDict) are torch's own: they
compute nothing.
"""
import torch

from . import ops
from . import random as _random

Sequential = torch.nn.Sequential
ModuleList = torch.nn.ModuleList
ModuleDict = torch.nn.ModuleDict

__all__ = ['Linear', 'Conv2d', 'ReLU', 'GELU', 'SiLU', 'Sigmoid', 'Tanh', 'Softplus',
           'LeakyReLU', 'MaxPool2d', 'AvgPool2d', 'AdaptiveAvgPool2d', 'LayerNorm', 'RMSNorm', 'BatchNorm1d', 'BatchNorm2d', 'Dropout',
           'Softmax', 'LogSoftmax', 'CrossEntropyLoss', 'NLLLoss', 'Flatten', 'Identity', 'Embedding',
           'Sequential', 'ModuleList', 'ModuleDict']


def _default_init(tensor, fan_in, generator=None):
    """PyTorch's default init of Linear/Conv2d, drawn from repdl's Philox."""
    b = _random.init_bound(fan_in) if fan_in > 0 else 0.0
    _random.uniform_(tensor, -b, b, generator=generator)


class Linear(torch.nn.Linear):
    """torch.nn.Linear computed by repdl: y = x W^T + b by
    repdl_linear_forward_f32 (each output one fma chain over the inputs in
    ascending order: the same bits at every thread count and batch size);
    backward repdl_linear_backward_f32 (dW, db summed over the batch in the
    batch order, docs/canonical-order.md).  Zero extents (in_features or
    out_features 0, an empty batch) give PyTorch's empty or bias-only
    results.  Initialisation: PyTorch's bound, repdl's Philox (module doc)."""

    def reset_parameters(self):
        _default_init(self.weight, self.in_features)
        if self.bias is not None:
            _default_init(self.bias, self.in_features)

    def forward(self, input):
        return ops.linear(input, self.weight, self.bias)


class Conv2d(torch.nn.Conv2d):
    """torch.nn.Conv2d computed by repdl (ops.conv2d: im2col and the
    canonical gemm; dw, db in the batch order); groups=1 and
    padding_mode='zeros' only (NotImplementedError otherwise)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.groups != 1 or self.padding_mode != 'zeros':
            raise NotImplementedError('repdl.nn.Conv2d supports groups=1 and '
                                      "padding_mode='zeros' only")

    def reset_parameters(self):
        fan_in = self.in_channels // self.groups * self.kernel_size[0] * self.kernel_size[1]
        _default_init(self.weight, fan_in)
        if self.bias is not None:
            _default_init(self.bias, fan_in)

    def forward(self, input):
        return ops.conv2d(input, self.weight, self.bias, self.stride, self.padding,
                          self.dilation, self.groups)


class ReLU(torch.nn.ReLU):
    """max(x, 0) by repdl (ops.relu); inplace is ignored."""

    def forward(self, input):
        return ops.relu(input)


class GELU(torch.nn.GELU):
    """Correctly rounded GELU, exact or approximate='tanh' (ops.gelu)."""

    def forward(self, input):
        return ops.gelu(input, approximate=getattr(self, 'approximate', 'none'))


class SiLU(torch.nn.SiLU):
    """Correctly rounded x sigmoid(x) (ops.silu)."""

    def forward(self, input):
        return ops.silu(input)


class Sigmoid(torch.nn.Sigmoid):
    """Correctly rounded 1 / (1 + e^-x) (ops.sigmoid)."""

    def forward(self, input):
        return ops.sigmoid(input)


class Tanh(torch.nn.Tanh):
    """Correctly rounded tanh (ops.tanh)."""

    def forward(self, input):
        return ops.tanh(input)


class Softplus(torch.nn.Softplus):
    """Correctly rounded log(1 + e^x), x above threshold (ops.softplus);
    beta must be 1 (NotImplementedError otherwise)."""

    def __init__(self, beta=1, threshold=20):
        super().__init__(beta, threshold)
        if beta != 1:
            raise NotImplementedError(f'repdl.nn.Softplus supports beta=1 only, got {beta} '
                                      '(support for other betas is planned)')

    def forward(self, input):
        return ops.softplus(input, self.beta, self.threshold)


class LeakyReLU(torch.nn.LeakyReLU):
    """x where x > 0, else RN(negative_slope x): one correctly rounded
    product, PyTorch's bits (ops.leaky_relu); inplace is ignored."""

    def forward(self, input):
        return ops.leaky_relu(input, self.negative_slope)


class MaxPool2d(torch.nn.MaxPool2d):
    """Max pooling by repdl (ops.max_pool2d: the first maximum in window
    order, NaN propagates); dilation 1 and ceil_mode=False only."""

    def forward(self, input):
        return ops.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              self.ceil_mode, self.return_indices)


class AvgPool2d(torch.nn.AvgPool2d):
    """Average pooling by repdl (ops.avg_pool2d: each window's canonical
    sum divided once); ceil_mode=False and divisor_override=None only."""

    def forward(self, input):
        return ops.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool2d(torch.nn.AdaptiveAvgPool2d):
    """Adaptive average pooling where each output size divides the input
    size (ops.adaptive_avg_pool2d: then an avg_pool2d with equal windows);
    other sizes raise NotImplementedError when called."""

    def forward(self, input):
        return ops.adaptive_avg_pool2d(input, self.output_size)


class LayerNorm(torch.nn.LayerNorm):
    """Layer norm by repdl_layer_norm_forward_f32 (two-pass mean and
    variance, canonical sums); backward repdl_layer_norm_backward_f32
    (dgamma, dbeta in the batch order)."""

    def forward(self, input):
        return ops.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class RMSNorm(torch.nn.Module):
    """PyTorch 2.4's torch.nn.RMSNorm (not in PyTorch 1.13): weight of
    normalized_shape, initialised to ones; eps None is float32's epsilon.
    y = RN(RN(x rstd) w), rstd from the canonical sum of squares
    (repdl_rms_norm_forward_f32, ops.rms_norm); backward
    repdl_rms_norm_backward_f32 (dweight in the batch order)."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = torch.nn.Parameter(torch.ones(self.normalized_shape, device=device,
                                                        dtype=dtype))
        else:
            self.register_parameter('weight', None)

    def forward(self, input):
        return ops.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f'{self.normalized_shape}, eps={self.eps}, '
                f'elementwise_affine={self.elementwise_affine}')


class _BatchNormMixin:
    _want_dims = ()

    def forward(self, input):
        if input.dim() not in self._want_dims:
            raise ValueError(f'expected {" or ".join(f"{d}D" for d in self._want_dims)} input '
                             f'(got {input.dim()}D input)')
        if self.momentum is None:
            raise NotImplementedError('repdl: BatchNorm with momentum=None (cumulative moving '
                                      'average) is not supported')
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)  # an integer count, as PyTorch
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_running = not self.training or self.track_running_stats
        return ops.batch_norm(input, self.running_mean if use_running else None,
                              self.running_var if use_running else None, self.weight, self.bias,
                              bn_training, self.momentum, self.eps)


class BatchNorm1d(_BatchNormMixin, torch.nn.BatchNorm1d):
    """Batch norm by repdl (ops.batch_norm): training uses the batch's
    statistics (canonical sums in the batch order), evaluation the running
    ones; both have a backward pass.  momentum=None is refused."""
    _want_dims = (2, 3)


class BatchNorm2d(_BatchNormMixin, torch.nn.BatchNorm2d):
    """BatchNorm1d's rules over (N, C, H, W)."""
    _want_dims = (4,)


class Dropout(torch.nn.Dropout):
    """Each training call takes the next slot of its generator (the
    attribute `generator`, default repdl.random.default_generator)."""

    def forward(self, input):
        return ops.dropout(input, self.p, self.training,
                           generator=getattr(self, 'generator', None))


class Softmax(torch.nn.Softmax):
    """Softmax over dim by repdl_softmax_f32 (dim=None refused)."""

    def forward(self, input):
        return ops.softmax(input, self.dim)


class LogSoftmax(torch.nn.LogSoftmax):
    """Log-softmax over dim by repdl_log_softmax_f32 (dim=None refused)."""

    def forward(self, input):
        return ops.log_softmax(input, self.dim)


class CrossEntropyLoss(torch.nn.CrossEntropyLoss):
    """Cross-entropy by repdl_cross_entropy_f32 (ops.cross_entropy):
    reduction 'mean' or 'sum', ignore_index (default -100) honoured, no
    class weights or label smoothing.  torch's constructor, plus keyword
    global_batch_size (default None): the mean over a global batch of that many rows of which each call sees
    a shard (data parallel: repdl.distributed; ops.cross_entropy)."""

    def __init__(self, *args, global_batch_size=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.global_batch_size = global_batch_size

    def forward(self, input, target):
        return ops.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                                 reduction=self.reduction, label_smoothing=self.label_smoothing,
                                 global_batch_size=getattr(self, 'global_batch_size', None))


class NLLLoss(torch.nn.NLLLoss):
    """NLL loss by repdl_nll_loss_f32 (ops.nll_loss), CrossEntropyLoss's
    rules; torch's constructor, plus keyword global_batch_size."""

    def __init__(self, *args, global_batch_size=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.global_batch_size = global_batch_size

    def forward(self, input, target):
        return ops.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                            reduction=self.reduction,
                            global_batch_size=getattr(self, 'global_batch_size', None))


class Flatten(torch.nn.Flatten):
    """A reshape: computes nothing (torch's own forward)."""


class Identity(torch.nn.Identity):
    """Computes nothing (torch's own forward)."""


class Embedding(torch.nn.Embedding):
    """torch.nn.Embedding computed by repdl (ops.embedding: the lookup a
    copy, the weight's gradient summed over repeated indices in the batch
    order).  Initialisation: PyTorch's N(0, 1) drawn from repdl's Philox
    (repdl.random.default_generator), the padding_idx row then +0.
    max_norm, scale_grad_by_freq and sparse=True: NotImplementedError at
    construction."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.max_norm is not None or self.scale_grad_by_freq or self.sparse:
            raise NotImplementedError('repdl.nn.Embedding supports neither max_norm, '
                                      'scale_grad_by_freq nor sparse=True')

    def reset_parameters(self):
        _random.normal_(self.weight, 0.0, 1.0)
        if self.padding_idx is not None:
            with torch.no_grad():
                self.weight[self.padding_idx].fill_(0.0)

    def forward(self, input):
        return ops.embedding(input, self.weight, self.padding_idx)
