"""DistributedDataParallel: one model replica per rank, gradients averaged during backward.

Gradients are copied into flat per-dtype buckets (torch's sizes: the first 1 MiB, then
``bucket_cap_mb``) as backward produces them (post-accumulate-grad hooks), in reverse parameter
order; each full bucket starts an all-reduce (non-blocking under MPI; under gloo it completes
in the hook) while backward continues, and the hook of the last parameter waits for all of them
and writes the averages back into ``p.grad`` in place, so optimizers (the fused path included)
see the same tensors as before.
"""
import weakref
from contextlib import contextmanager

import numpy as np

from ... import distributed as dist
from ..._tensor import Tensor
from ...autograd import grad_mode
from ...distributed import _group
from ..modules.module import Module
from ._buckets import Bucket, assign_buckets, broadcast_coalesced, unused_parameters

_FIRST_BUCKET_BYTES = 1024 * 1024  # torch: a small first bucket so communication starts early


class DistributedDataParallel(Module):
    """Wrap ``module`` so that ``loss.backward()`` leaves every rank with the averaged gradients.

    Accepted for compatibility and without effect: ``device_ids``, ``output_device``, ``dim``
    (CPU only), ``check_reduction``, ``gradient_as_bucket_view`` (gradients are copied into the
    buckets and back) and ``static_graph``. Checkpoint ``model.module.state_dict()`` from rank 0
    and load it on every rank (see ember.distributed's docstring).
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        pg = _group._default_group(process_group)
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have "
                               "any parameter that requires a gradient.")
        self.module = module
        self.process_group = pg
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        _verify_same_parameters(params, pg)
        broadcast_coalesced(list(module.parameters()) + list(module.buffers()), pg)
        self._params = params
        self._state = _Reducer(params, pg, self.bucket_bytes_cap, find_unused_parameters)

    def forward(self, *inputs, **kwargs):
        self._state.check_prior_reduction_finished()
        if self.broadcast_buffers and self.process_group.size() > 1:
            buffers = list(self.module.buffers())
            if buffers:
                broadcast_coalesced(buffers, self.process_group)
        output = self.module(*inputs, **kwargs)
        if grad_mode.is_grad_enabled() and self.require_backward_grad_sync:
            self._state.prepare_for_backward(output)
        return output

    @contextmanager
    def no_sync(self):
        """Inside this context backward accumulates gradients locally, without communication;
        the first backward after it averages everything accumulated."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def __del__(self):
        state = self.__dict__.get("_state")
        if state is not None:
            state.remove_hooks()


def _verify_same_parameters(params, pg):
    """Every rank must wrap the same architecture (the first bad rank is named)."""
    mine = np.array([len(params), sum(p._data.size for p in params)], dtype=np.int64)
    everyone = [Tensor._make(np.zeros(2, dtype=np.int64)) for _ in range(pg.size())]
    dist.all_gather(everyone, Tensor._make(mine))
    for rank, theirs in enumerate(everyone):
        if not np.array_equal(theirs._data, mine):
            raise RuntimeError(
                f"DistributedDataParallel: rank {pg.rank()} has {mine[0]} parameters "
                f"({mine[1]} elements) but rank {rank} has {theirs._data[0]} "
                f"({theirs._data[1]} elements); every rank must wrap the same model")


class _Reducer:
    """Per-iteration bookkeeping: which gradients are ready, which buckets are in flight."""

    def __init__(self, params, pg, cap_bytes, find_unused):
        self.params = params
        self.pg = pg
        self.find_unused = find_unused
        caps = [min(_FIRST_BUCKET_BYTES, cap_bytes), cap_bytes]
        self.buckets = [Bucket(group) for group in assign_buckets(params, caps)]
        self.where = {}
        for b, bucket in enumerate(self.buckets):
            for slot, index in enumerate(bucket.indices):
                self.where[index] = (b, slot)
        self.armed = False
        self.any_ready = False
        self.next_bucket = 0
        self.locally_used = None
        me = weakref.ref(self)
        self.handles = [p.register_post_accumulate_grad_hook(
            lambda p, i=i: _on_ready(me, i)) for i, p in enumerate(params)]

    def remove_hooks(self):
        for handle in self.handles:
            handle.remove()
        self.handles = []

    def prepare_for_backward(self, output):
        """Arm the hooks for the coming backward (called at the end of a syncing forward)."""
        for bucket in self.buckets:
            bucket.reset()
        self.next_bucket = 0
        self.armed = True
        self.any_ready = False
        if self.find_unused:
            unused = unused_parameters(output, self.params)
            self.locally_used = np.ones(len(self.params), dtype=np.uint8)
            for index in unused:
                self.locally_used[index] = 0
                self.mark_ready(index)

    def check_prior_reduction_finished(self):
        if not (self.armed and self.any_ready):
            self.armed = False
            return
        missing = [i for i in range(len(self.params)) if not self.is_ready(i)]
        raise RuntimeError(
            "Expected to have finished reduction in the prior iteration before starting a new "
            "one. This error indicates that your module has parameters that were not used in "
            "producing loss. You can enable unused parameter detection by passing the keyword "
            "argument `find_unused_parameters=True` to `ember.nn.parallel."
            "DistributedDataParallel`, and by making sure all `forward` function outputs "
            f"participate in calculating loss. Parameter indices which did not receive grad for "
            f"rank {self.pg.rank()}: {' '.join(map(str, missing))}")

    def is_ready(self, index):
        b, slot = self.where[index]
        return self.buckets[b].ready[slot]

    def mark_ready(self, index):
        """Copy this parameter's gradient into its bucket; launch every bucket now complete."""
        b, slot = self.where[index]
        bucket = self.buckets[b]
        if bucket.ready[slot]:
            return
        self.any_ready = True
        bucket.fill(slot, self.params[index].grad)
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].complete:
            self.buckets[self.next_bucket].launch(self.pg)  # in order: same on every rank
            self.next_bucket += 1
        for earlier in self.buckets[:self.next_bucket]:
            earlier.progress()
        if self.next_bucket == len(self.buckets):
            self.finalize()

    def finalize(self):
        """Wait for every bucket and write the averaged gradients into the parameters' .grad."""
        self.armed = False
        used = None
        if self.find_unused:
            used = Tensor._make(self.locally_used.copy())
            dist.all_reduce(used, op=dist.ReduceOp.MAX)
            used = used._data
        for bucket in self.buckets:
            bucket.finish(self.pg)
            for slot, index in enumerate(bucket.indices):
                if used is None or used[index]:
                    _write_grad(self.params[index], bucket.view(slot))


def _on_ready(reducer_ref, index):
    reducer = reducer_ref()
    if reducer is not None and reducer.armed:
        reducer.mark_ready(index)


def _write_grad(param, values):
    grad = param.grad
    if grad is None:
        param.grad = Tensor._make(values.astype(param._data.dtype))
        return
    np.copyto(grad._data, values, casting="unsafe")
    grad._vc[0] += 1
