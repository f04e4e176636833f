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
import math

import torch

from . import ops
from . import random as _random
from . import functional
import sys as _sys

# `import repdl.nn.functional` (as torch.nn.functional) finds repdl/functional.py
_sys.modules.setdefault(__name__ + '.functional', functional)

Sequential = torch.nn.Sequential
ModuleList = torch.nn.ModuleList
ModuleDict = torch.nn.ModuleDict

__all__ = ['Linear', 'Conv2d', 'ReLU', 'GELU', 'SiLU', 'Sigmoid', 'Tanh', 'Softplus',
           'LeakyReLU', 'MaxPool2d', 'AvgPool2d', 'AdaptiveAvgPool2d', 'LayerNorm', 'RMSNorm', 'BatchNorm1d', 'BatchNorm2d', 'Dropout',
           'Softmax', 'LogSoftmax', 'CrossEntropyLoss', 'NLLLoss', 'MSELoss', 'Flatten', 'Identity', 'Embedding',
           'MultiheadAttention', 'RotaryEmbedding', 'TransformerEncoderLayer',
           'TransformerDecoderLayer', 'TransformerEncoder', 'TransformerDecoder', 'Transformer',
           'functional', 'Sequential', 'ModuleList', 'ModuleDict']


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
    results.  Initialisation: PyTorch's bound, repdl's Philox (module doc).

    gemm='cr' (keyword, or the attribute gemm set later, as
    from_torch_module(..., gemm='cr') does): every product correctly
    rounded instead (ops.linear's gemm='cr': repdl_gemm_cr_f32 forward and
    backward); 'fma' the default above; another value: ValueError."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None,
                 gemm='fma'):
        self.gemm = ops._gemm_mode(gemm)
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)

    def reset_parameters(self):
        _default_init(self.weight, self.in_features)
        if self.bias is not None:
            _default_init(self.bias, self.in_features)

    def forward(self, input):
        return ops.linear(input, self.weight, self.bias, gemm=getattr(self, 'gemm', 'fma'))

    def extra_repr(self):
        r = super().extra_repr()
        return r + ", gemm='cr'" if getattr(self, 'gemm', 'fma') == 'cr' else r


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


class MSELoss(torch.nn.MSELoss):
    """Mean squared error by repdl_mse_loss_forward_f32 (ops.mse_loss):
    reduction 'mean' or 'sum'; torch's constructor.  reduction='none' is
    refused at construction and by from_torch_module."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        problem = self._conversion_problem(self)
        if problem:
            raise NotImplementedError(f'repdl.nn.MSELoss: {problem}')

    @staticmethod
    def _conversion_problem(m):
        if m.reduction not in ('mean', 'sum'):
            return f"reduction={m.reduction!r} (repdl supports 'mean' and 'sum')"
        return None

    def forward(self, input, target):
        return ops.mse_loss(input, target, reduction=self.reduction)


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


class RotaryEmbedding(torch.nn.Module):
    """Rotary position embedding (ops.rope, include/repdl/rope.h): the
    tables of max_positions positions for head dimension dim (even) and
    base, built once by repdl_rope_table_f32 (the same bits everywhere;
    buffers cos and sin, not in the state_dict).  forward(x, pos0=0)
    rotates x [..., n, dim], row t at position pos0 + t; a sequence past
    the table raises ValueError."""

    def __init__(self, dim, max_positions=2048, base=10000.0, device=None):
        super().__init__()
        self.dim, self.max_positions, self.base = int(dim), int(max_positions), float(base)
        c, s = ops.rope_table(self.max_positions, self.dim, self.base, device=device)
        self.register_buffer('cos', c, persistent=False)
        self.register_buffer('sin', s, persistent=False)

    def forward(self, x, pos0=0):
        return ops.rope(x, self.cos, self.sin, pos0)

    def extra_repr(self):
        return f'dim={self.dim}, max_positions={self.max_positions}, base={self.base}'


class MultiheadAttention(torch.nn.MultiheadAttention):
    """torch.nn.MultiheadAttention computed by repdl: the projections by
    ops.linear (in_proj_weight/in_proj_bias, out_proj: torch's parameter
    names and state_dict layout), attention by repdl_attention_forward_f32
    (ops.scaled_dot_product_attention's rules: a row's bits depend on its
    query and the keys it sees only).  batch_first both ways, unbatched
    input, key_padding_mask and attn_mask (bool: True masks out, as in
    torch; float: added; 2-D [L, S] or 3-D [N * num_heads, L, S]),
    is_causal (query i sees keys j <= i, attn_mask then optional).
    need_weights: the attention probabilities RN(p_j / l) exactly as the
    output used them (an attention of head dimension max(head_dim, S) with
    one-hot values: slower; TransformerEncoderLayer passes
    need_weights=False), averaged over the heads by ops.mean when
    average_attn_weights.  Refused at construction (NotImplementedError):
    kdim/vdim other than embed_dim, add_bias_kv, add_zero_attn; at a
    training call: dropout > 0 (no dropout inside attention).
    Initialisation: torch's (xavier uniform in_proj_weight, zero biases,
    out_proj.weight Linear's bound) drawn from repdl's Philox."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if (kdim is not None and kdim != embed_dim) or (vdim is not None and vdim != embed_dim):
            raise NotImplementedError('repdl.nn.MultiheadAttention: kdim/vdim other than '
                                      'embed_dim are not supported')
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError('repdl.nn.MultiheadAttention: add_bias_kv and add_zero_attn '
                                      'are not supported')
        super().__init__(embed_dim, num_heads, dropout, bias, add_bias_kv, add_zero_attn, kdim,
                         vdim, batch_first, device=device, dtype=dtype)

    def _reset_parameters(self):
        if not self._qkv_same_embed_dim:
            return  # refused by __init__ (torch's constructor calls this first)
        E = self.embed_dim
        b = math.sqrt(6.0 / (4 * E)) if E else 0.0  # xavier: fan_in E, fan_out 3E
        _random.uniform_(self.in_proj_weight, -b, b)
        _default_init(self.out_proj.weight, E)
        with torch.no_grad():
            if self.in_proj_bias is not None:
                self.in_proj_bias.zero_()
            if self.out_proj.bias is not None:
                self.out_proj.bias.zero_()

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        if not self._qkv_same_embed_dim or self.bias_k is not None or self.add_zero_attn:
            raise NotImplementedError('repdl.nn.MultiheadAttention: kdim/vdim, add_bias_kv and '
                                      'add_zero_attn are not supported')
        if self.training and self.dropout > 0:
            raise NotImplementedError(f'repdl.nn.MultiheadAttention: dropout={self.dropout} in '
                                      'training (repdl has no dropout inside attention): set '
                                      'the attribute dropout to 0.0, or call eval()')
        unbatched = query.dim() == 2
        if unbatched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        # (L, N, E) from here, torch's layout
        L, N, E = query.shape
        S = key.shape[0]
        H, hd = self.num_heads, self.head_dim
        if E != self.embed_dim or key.shape[2] != E or value.shape[2] != E or \
                value.shape[:2] != key.shape[:2] or key.shape[1] != N:
            raise RuntimeError(f'repdl.nn.MultiheadAttention: query {tuple(query.shape)}, key '
                               f'{tuple(key.shape)}, value {tuple(value.shape)} do not match '
                               f'embed_dim {self.embed_dim}')
        w, b = self.in_proj_weight, self.in_proj_bias
        if query is key and key is value:
            q, k, v = ops.linear(query, w, b).chunk(3, dim=-1)
        else:
            bq, bk, bv = (None, None, None) if b is None else b.chunk(3)
            wq, wk, wv = w.chunk(3)
            q, k, v = ops.linear(query, wq, bq), ops.linear(key, wk, bk), ops.linear(value, wv, bv)

        def heads(t, n):  # (n, N, E) -> (N, H, n, hd)
            return t.reshape(n, N, H, hd).permute(1, 2, 0, 3).contiguous()
        q, k, v = heads(q, L), heads(k, S), heads(v, S)
        mask, keep = self._masks(attn_mask, key_padding_mask, N, L, S)
        causal = bool(is_causal)
        if mask is not None:  # per head: heads folded into the batch
            q4, k4, v4 = (t.reshape(N * H, 1, t.shape[2], hd) for t in (q, k, v))
            keep4 = None if keep is None else keep.repeat_interleave(H, dim=0).contiguous()
            mask = mask.reshape(N * H, L, S).contiguous()
        else:
            q4, k4, v4, keep4 = q, k, v, keep
        out, _ = ops._attention(q4, k4, v4, mask, keep4, causal)
        out = out.reshape(N, H, L, hd).permute(2, 0, 1, 3).reshape(L, N, E)
        out = ops.linear(out, self.out_proj.weight, self.out_proj.bias)
        weights = None
        if need_weights:
            weights = self._weights(q4, k4, mask, keep4, causal, hd, N, H, L, S)
            if average_attn_weights:
                weights = ops.mean(weights, dim=1)
            if unbatched:
                weights = weights.squeeze(0)
        if unbatched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        return out, weights

    def _masks(self, attn_mask, key_padding_mask, N, L, S):
        """(float mask [N, H, L, S] or None, keep [N, S] uint8 or None)."""
        H = self.num_heads
        keep, mask = None, None
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (N, S):
                raise RuntimeError(f'repdl.nn.MultiheadAttention: key_padding_mask must be '
                                   f'{(N, S)}, got {tuple(key_padding_mask.shape)}')
            if key_padding_mask.dtype == torch.bool:
                keep = (~key_padding_mask).to(torch.uint8).contiguous()
            else:
                mask = ops._check(key_padding_mask, 'key_padding_mask').reshape(N, 1, 1, S)
        if attn_mask is not None:
            if attn_mask.dim() == 2 and tuple(attn_mask.shape) == (L, S):
                m = attn_mask.reshape(1, 1, L, S)
            elif attn_mask.dim() == 3 and tuple(attn_mask.shape) == (N * H, L, S):
                m = attn_mask.reshape(N, H, L, S)
            else:
                raise RuntimeError(f'repdl.nn.MultiheadAttention: attn_mask must be {(L, S)} or '
                                   f'{(N * H, L, S)}, got {tuple(attn_mask.shape)}')
            if m.dtype == torch.bool:  # torch's MultiheadAttention: True masks out
                m = torch.zeros(m.shape, dtype=torch.float32,
                                device=m.device).masked_fill(m, float('-inf'))
            else:
                m = ops._check(m, 'attn_mask')
            if mask is None:
                mask = m
            else:  # a float key_padding_mask and attn_mask: added, as torch does
                mask = mask + m  # one IEEE addition per element
        if mask is not None:
            mask = mask.expand(N, H, L, S)
        return mask, keep

    def _weights(self, q4, k4, mask, keep4, causal, hd, N, H, L, S):
        """The attention probabilities [N, H, L, S]: the attention of q4 and
        k4 (padded with +0 columns to width W = max(hd, S): the same scores
        up to the sign of a zero, the same probabilities) over the one-hot
        values e_j, whose output c is RN(p_c / l)."""
        W = max(hd, S)
        B = q4.shape[0]

        def pad(t):
            return t if W == hd else torch.cat(
                [t, torch.zeros(t.shape[:-1] + (W - hd,), dtype=t.dtype, device=t.device)], -1)
        eye = torch.zeros(B, k4.shape[1], S, W, dtype=torch.float32, device=q4.device)
        eye[:, :, torch.arange(S), torch.arange(S)] = 1.0
        p, _ = ops._attention(pad(q4), pad(k4), eye, mask, keep4, causal,
                              scale=1.0 / math.sqrt(hd))
        return p[..., :S].reshape(N, H, L, S)


def _activation(fn, x):
    """A transformer layer's activation: torch's F.relu / F.gelu (by
    name, as the layer stores it) as repdl's, or a repdl module."""
    if fn is torch.nn.functional.relu:
        return ops.relu(x)
    if fn is torch.nn.functional.gelu:
        return ops.gelu(x)
    if isinstance(fn, torch.nn.Module) and type(fn).__module__ == __name__:
        return fn(x)
    raise NotImplementedError(f'repdl: transformer activation {fn!r} is not supported (relu, '
                              'gelu or a repdl.nn module)')


class TransformerEncoderLayer(torch.nn.TransformerEncoderLayer):
    """torch.nn.TransformerEncoderLayer computed by repdl (its children
    repdl.nn modules: MultiheadAttention, Linear, LayerNorm, Dropout;
    activation relu or gelu; residual additions one IEEE addition each;
    PyTorch's fused fast path never runs).  norm_first both ways."""

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff(self.norm2(x))
        else:
            x = self.norm1(x + self._sa(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff(x))
        return x

    def _sa(self, x, mask, kpm, is_causal):
        x = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=kpm, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff(self, x):
        return self.dropout2(self.linear2(self.dropout(_activation(self.activation,
                                                                  self.linear1(x)))))


class TransformerDecoderLayer(torch.nn.TransformerDecoderLayer):
    """torch.nn.TransformerDecoderLayer computed by repdl
    (TransformerEncoderLayer's rules)."""

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha(self.norm2(x), memory, memory_mask, memory_key_padding_mask,
                              memory_is_causal)
            x = x + self._ff(self.norm3(x))
        else:
            x = self.norm1(x + self._sa(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha(x, memory, memory_mask, memory_key_padding_mask,
                                         memory_is_causal))
            x = self.norm3(x + self._ff(x))
        return x

    def _sa(self, x, mask, kpm, is_causal):
        return self.dropout1(self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=kpm,
                                            need_weights=False, is_causal=is_causal)[0])

    def _mha(self, x, mem, mask, kpm, is_causal):
        return self.dropout2(self.multihead_attn(x, mem, mem, attn_mask=mask, key_padding_mask=kpm,
                                                 need_weights=False, is_causal=is_causal)[0])

    def _ff(self, x):
        return self.dropout3(self.linear2(self.dropout(_activation(self.activation,
                                                                  self.linear1(x)))))


class TransformerEncoder(torch.nn.TransformerEncoder):
    """torch.nn.TransformerEncoder over repdl layers: each layer in turn,
    then norm if any (no nested-tensor fast path)."""

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                      is_causal=bool(is_causal))
        return self.norm(x) if self.norm is not None else x


class TransformerDecoder(torch.nn.TransformerDecoder):
    """torch.nn.TransformerDecoder over repdl layers, then norm if any."""

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return self.norm(x) if self.norm is not None else x


class Transformer(torch.nn.Transformer):
    """torch.nn.Transformer whose encoder and decoder are repdl's (its own
    forward only checks shapes and calls them).  Made by from_torch_module
    from a torch.nn.Transformer; building one directly builds torch's
    layers: convert it with repdl.from_torch_module."""
