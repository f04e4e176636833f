# SPDX-License-Identifier: MIT
"""repdl.distributed: data-parallel training (torch DistributedDataParallel)
with the bits of the single-process run (docs/python.md, "Data parallel").

    import torch.distributed as dist, repdl
    dist.init_process_group('gloo')
    W, r = dist.get_world_size(), dist.get_rank()
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    repdl.distributed.register_batch_order_hook(ddp, batch_size=B)
    lo, hi = repdl.distributed.shard_rows(B, W, r)
    loss_fn = repdl.nn.CrossEntropyLoss(global_batch_size=B)
    ...  loss_fn(ddp(x[lo:hi]), y[lo:hi]).backward(); opt.step()

Why it gives the single-process bits.  repdl's backward passes reduce over
the batch in the batch order (docs/canonical-order.md, "The batch order"):
micro-batches of repdl._C.microbatch (16) samples, each reduced alone, the
micro-batch values added by the aligned buddy tree.  A run of micro-batches
[a, b) that is one *node* of that tree (a a multiple of 2^k and b - a =
2^k, or the last run, b = G, b - a <= 2^k) has as its value the backward
pass over those samples alone.  shard_bounds gives each rank one node, so
each rank's local backward computes its node exactly; the hook gathers the
W node vectors of every gradient bucket and adds them by the same tree
(repdl_units_combine_f32), so every rank holds the gradient of the single
process, bit for bit.  The loss must divide by the global batch B, not by
the shard's rows: CrossEntropyLoss / NLLLoss(global_batch_size=B).

The ranks' shares are the tree's nodes, so they are as even as the tree
allows (64 rows on 3 ranks: 16, 16, 32; 100 rows on 2: 64, 36).  Not supported, refused when the
hook is registered: BatchNorm (batch statistics need every rank's rows:
a cross-rank reduction that this hook does not do) and Dropout with p > 0
(its mask is numbered from the call's first element, so a shard would draw
other masks).
"""
import torch
import torch.distributed as dist

from . import _C

MICROBATCH = int(_C.microbatch)


def num_microbatches(batch_size):
    """G = ceil(batch_size / 16): the micro-batches of a batch."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f'repdl.distributed: batch_size must be a positive int, got {batch_size!r}')
    return (batch_size + MICROBATCH - 1) // MICROBATCH


def _split(begin, count):
    """The two children of node [begin, begin + count), count >= 2."""
    half = 1
    while 2 * half < count:
        half *= 2
    return (begin, half), (begin + half, count - half)


def shard_bounds(batch_size, world_size):
    """The ranks' micro-batch ranges as W + 1 bounds 0 = b_0 <= ... <= b_W = G:
    rank r gets micro-batches [b_r, b_{r+1}), each range one node of the
    batch tree.  Starting from the whole batch, the node with the most
    micro-batches (the first such) is split into its two children until
    there are W of them.  world_size must not exceed G (a rank with no
    samples has no backward to run)."""
    G = num_microbatches(batch_size)
    if isinstance(world_size, bool) or not isinstance(world_size, int) or world_size < 1:
        raise ValueError(f'repdl.distributed: world_size must be a positive int, got {world_size!r}')
    if world_size > G:
        raise ValueError(f'repdl.distributed: {world_size} ranks but a batch of {batch_size} has '
                         f'only {G} micro-batches of {MICROBATCH}: use at most {G} ranks or a '
                         f'larger batch')
    nodes = [(0, G)]
    while len(nodes) < world_size:
        i = max(range(len(nodes)), key=lambda j: (nodes[j][1], -j))
        nodes[i:i + 1] = list(_split(*nodes[i]))
    for b, c in nodes:
        assert _C.units_block_ok(b, c, G)
    return [b for b, _ in nodes] + [G]


def shard_rows(batch_size, world_size, rank):
    """(lo, hi): rank's rows [lo, hi) of every global batch of batch_size."""
    b = shard_bounds(batch_size, world_size)
    if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < world_size:
        raise ValueError(f'repdl.distributed: rank {rank!r} is not in [0, {world_size})')
    return (min(b[rank] * MICROBATCH, batch_size), min(b[rank + 1] * MICROBATCH, batch_size))


class BatchOrderState:
    """The hook's state: the process group, the batch size and the bounds."""

    def __init__(self, batch_size, process_group=None):
        self.process_group = process_group
        self.world_size = dist.get_world_size(process_group)
        self.set_batch_size(batch_size)

    def set_batch_size(self, batch_size):
        """For a step with another global batch size (every rank must call
        it, with its rows from shard_rows)."""
        self.batch_size = batch_size
        self.bounds = shard_bounds(batch_size, self.world_size)
        self.units = self.bounds[-1]


def _check_model(module):
    bad = []
    for name, m in module.named_modules():
        if isinstance(m, torch.nn.modules.batchnorm._NormBase):
            bad.append(f'{name or type(m).__name__} ({type(m).__name__}): batch statistics over '
                       f'the shards are not combined by this hook')
        elif isinstance(m, torch.nn.modules.dropout._DropoutNd) and m.p > 0:
            bad.append(f'{name or type(m).__name__} ({type(m).__name__}, p={m.p}): the mask of a '
                       f'shard would be drawn from the wrong elements of the stream')
    if bad:
        raise TypeError('repdl.distributed: these modules would not give the single-process '
                        'bits under data parallelism:\n  ' + '\n  '.join(bad))


def batch_order_hook(state, bucket):
    """DDP communication hook: the bucket's gradient on every rank becomes the
    single-process gradient.  Gathers the W ranks' node vectors (their local
    gradients) and adds them by the batch tree; no division (the loss is
    already divided by the global batch)."""
    t = bucket.buffer()
    if t.dtype != torch.float32 or t.device.type != 'cpu':
        raise TypeError(f'repdl.distributed: gradients must be float32 CPU tensors, got '
                        f'{t.dtype} on {t.device}')
    flat = t.detach().contiguous()
    V = flat.numel()

    def combine(parts):
        return _C.units_combine(state.units, state.bounds, parts, V)

    if state.world_size == 1:
        fut = torch.futures.Future()
        fut.set_result(combine([flat]))
        return fut
    parts = [torch.empty_like(flat) for _ in range(state.world_size)]
    work = dist.all_gather(parts, flat, group=state.process_group, async_op=True)
    return work.get_future().then(lambda _: combine(parts))


def register_batch_order_hook(ddp_model, batch_size, process_group=None):
    """Registers batch_order_hook on a DistributedDataParallel model whose
    ranks train on shard_rows(batch_size, world_size, rank) of each global
    batch; returns its BatchOrderState (set_batch_size for another batch).
    Refuses models with BatchNorm or Dropout (p > 0)."""
    if not isinstance(ddp_model, torch.nn.parallel.DistributedDataParallel):
        raise TypeError('repdl.distributed: register_batch_order_hook takes a '
                        'torch.nn.parallel.DistributedDataParallel model')
    _check_model(ddp_model.module)
    state = BatchOrderState(batch_size, process_group)
    ddp_model.register_comm_hook(state, batch_order_hook)
    return state


def units_combine(units, bounds, nodes):
    """The canonical batch-order sum over `units` micro-batches from the node
    vectors of consecutive ranges (repdl_units_combine_f32).

    bounds: P + 1 micro-batch bounds 0 = b_0 <= ... <= b_P = units (from
    shard_bounds, each range one node of the batch tree); nodes: P float32
    CPU tensors, nodes[p] the value of range p (for a range that is one
    node, the backward pass over its rows alone), all of one size V.
    Returns a 1-D float32 tensor of V elements: the bits of the pass over
    the whole batch.  Bad bounds or sizes raise RuntimeError."""
    flat = [n.detach().reshape(-1).contiguous() for n in nodes]
    if not flat:
        raise ValueError('repdl.distributed.units_combine: no node vectors')
    return _C.units_combine(units, list(bounds), flat, flat[0].numel())


class GradientAccumulation:
    """Gradient accumulation with the bits of the whole batch.

        acc = repdl.distributed.GradientAccumulation(model.parameters(),
                                                     batch_size=B, chunks=4)
        loss_fn = repdl.nn.CrossEntropyLoss(global_batch_size=B)
        for lo, hi in acc.rows():
            acc.backward(loss_fn(model(x[lo:hi]), y[lo:hi]))
        acc.finish()           # each p.grad: the gradient of the whole batch
        opt.step()

    Calling .backward() per chunk adds each chunk's gradient into .grad in
    PyTorch's order, which is not the batch order (docs/canonical-order.md):
    the bits differ from one backward over the whole batch.  Here the
    chunks are nodes of the batch tree (shard_bounds(batch_size, chunks):
    as even as the tree allows), each chunk's backward computes its node
    exactly, and finish() adds the nodes by the tree (units_combine), so
    every p.grad is the whole batch's, bit for bit, for models whose
    backward sums over the batch only in repdl's batch order (repdl.nn's
    layers) and whose loss divides by the whole batch (global_batch_size=B).
    Not for BatchNorm in training (statistics per chunk) nor Dropout with
    p > 0 (masks numbered per call): refused.

    Under repdl.mode (plain torch.nn models: docs/python.md, "Gradient
    accumulation") the backward sums over the batch in the batch order too,
    so the same holds with a torch loss written as the same formula for
    the whole batch and the chunks, e.g.
    F.cross_entropy(out, y, reduction='sum') / B (tested: 64 rows whole,
    2 x 32 and 4 x 16 chunks, one state_dict hash after AdamW steps).

    backward(loss) runs torch.autograd.grad for the chunk (p.grad is not
    touched); finish() sets p.grad (replacing it, as a backward after
    zero_grad(set_to_none=True)); a parameter with no gradient in any chunk
    keeps p.grad, one with a gradient in some chunks only counts +0 for the
    others.  Chunks must be run in order, each once.
    """

    def __init__(self, params, batch_size, chunks, model=None):
        self.params = [p for p in params if p.requires_grad]
        self.batch_size = batch_size
        self.bounds = shard_bounds(batch_size, chunks)
        self.units = self.bounds[-1]
        if model is not None:
            _check_model(model)
        self._nodes = []

    def rows(self):
        """The chunks' row ranges (lo, hi), in order."""
        return [(min(a * MICROBATCH, self.batch_size), min(b * MICROBATCH, self.batch_size))
                for a, b in zip(self.bounds[:-1], self.bounds[1:])]

    def backward(self, loss):
        """The next chunk's backward (of its loss, divided by the whole
        batch): its gradients are kept for finish()."""
        if len(self._nodes) == len(self.bounds) - 1:
            raise RuntimeError('repdl.distributed.GradientAccumulation: more backward calls than '
                               f'chunks ({len(self.bounds) - 1})')
        gs = torch.autograd.grad(loss, self.params, allow_unused=True)
        self._nodes.append([None if g is None else g.detach() for g in gs])

    def finish(self):
        """Sets each p.grad to the batch-order sum of the chunks' gradients."""
        P = len(self.bounds) - 1
        if len(self._nodes) != P:
            raise RuntimeError(f'repdl.distributed.GradientAccumulation: {len(self._nodes)} '
                               f'backward calls for {P} chunks')
        for i, p in enumerate(self.params):
            gs = [node[i] for node in self._nodes]
            if all(g is None for g in gs):
                continue
            parts = [torch.zeros_like(p) if g is None else g for g in gs]
            p.grad = units_combine(self.units, self.bounds, parts).reshape(p.shape)
        self._nodes = []
