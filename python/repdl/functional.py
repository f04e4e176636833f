# SPDX-License-Identifier: MIT
"""repdl.nn.functional: torch.nn.functional's names for repdl.ops'
functions (docs/python.md): each is the repdl.ops function itself."""
from . import ops as _ops

__all__ = ['scaled_dot_product_attention', 'rope', 'rope_table', 'linear', 'relu', 'gelu',
           'silu', 'softmax', 'log_softmax', 'layer_norm', 'rms_norm', 'dropout', 'embedding',
           'cross_entropy', 'nll_loss']

scaled_dot_product_attention = _ops.scaled_dot_product_attention
rope = _ops.rope
rope_table = _ops.rope_table
linear = _ops.linear
relu = _ops.relu
gelu = _ops.gelu
silu = _ops.silu
softmax = _ops.softmax
log_softmax = _ops.log_softmax
layer_norm = _ops.layer_norm
rms_norm = _ops.rms_norm
dropout = _ops.dropout
embedding = _ops.embedding
cross_entropy = _ops.cross_entropy
nll_loss = _ops.nll_loss
