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

__all__ = ['Linear', 'Conv2d', 'ReLU', 'GELU', 'SiLU', 'Sigmoid', 'Tanh', 'MaxPool2d',
           'AvgPool2d', 'LayerNorm', 'RMSNorm', 'BatchNorm1d', 'BatchNorm2d', 'Dropout',
           'Softmax', 'LogSoftmax', 'CrossEntropyLoss', 'NLLLoss', 'Flatten', 'Identity',
           'Sequential', 'ModuleList', 'ModuleDict']


def _default_init(tensor, fan_in, generator=None):
    """PyTorch's default init of Linear/Conv2d, drawn from repdl's Philox."""
    b = _random.init_bound(fan_in) if fan_in > 0 else 0.0
    _random.uniform_(tensor, -b, b, generator=generator)


class Linear(torch.nn.Linear):
    def reset_parameters(self):
        _default_init(self.weight, self.in_features)
        if self.bias is not None:
            _default_init(self.bias, self.in_features)

    def forward(self, input):
        return ops.linear(input, self.weight, self.bias)


class Conv2d(torch.nn.Conv2d):
    """groups=1 and padding_mode='zeros' only (NotImplementedError otherwise)."""

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
    def forward(self, input):
        return ops.relu(input)


class GELU(torch.nn.GELU):
    def forward(self, input):
        return ops.gelu(input, approximate=getattr(self, 'approximate', 'none'))


class SiLU(torch.nn.SiLU):
    def forward(self, input):
        return ops.silu(input)


class Sigmoid(torch.nn.Sigmoid):
    def forward(self, input):
        return ops.sigmoid(input)


class Tanh(torch.nn.Tanh):
    def forward(self, input):
        return ops.tanh(input)


class MaxPool2d(torch.nn.MaxPool2d):
    def forward(self, input):
        return ops.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              self.ceil_mode, self.return_indices)


class AvgPool2d(torch.nn.AvgPool2d):
    def forward(self, input):
        return ops.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)


class LayerNorm(torch.nn.LayerNorm):
    def forward(self, input):
        return ops.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class RMSNorm(torch.nn.Module):
    """PyTorch 2.4's torch.nn.RMSNorm (not in PyTorch 1.13): weight of
    normalized_shape, initialised to ones; eps None is float32's epsilon."""

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
    _want_dims = (2, 3)


class BatchNorm2d(_BatchNormMixin, torch.nn.BatchNorm2d):
    _want_dims = (4,)


class Dropout(torch.nn.Dropout):
    """Each training call takes the next slot of its generator (the
    attribute `generator`, default repdl.random.default_generator)."""

    def forward(self, input):
        return ops.dropout(input, self.p, self.training,
                           generator=getattr(self, 'generator', None))


class Softmax(torch.nn.Softmax):
    def forward(self, input):
        return ops.softmax(input, self.dim)


class LogSoftmax(torch.nn.LogSoftmax):
    def forward(self, input):
        return ops.log_softmax(input, self.dim)


class CrossEntropyLoss(torch.nn.CrossEntropyLoss):
    """torch's constructor, plus keyword global_batch_size (default None):
    the mean over a global batch of that many rows of which each call sees
    a shard (data parallel: repdl.distributed; ops.cross_entropy)."""

    def __init__(self, *args, global_batch_size=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.global_batch_size = global_batch_size

    def forward(self, input, target):
        return ops.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                                 reduction=self.reduction, label_smoothing=self.label_smoothing,
                                 global_batch_size=getattr(self, 'global_batch_size', None))


class NLLLoss(torch.nn.NLLLoss):
    """torch's constructor, plus keyword global_batch_size (CrossEntropyLoss)."""

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
