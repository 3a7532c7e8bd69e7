"""Gradient buckets for DistributedDataParallel, and the helpers it runs at construction."""
import numpy as np

from ... import distributed as dist
from ..._tensor import Tensor
from ...autograd.graph import AccumulateGrad
from ...distributed import _group


def _wire_dtype(dtype):
    """MPI reduces half precision poorly: its gradients travel as float32."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def assign_buckets(params, caps):
    """Group parameter indices into buckets, in reverse order (roughly when backward produces
    their gradients), one dtype per bucket; bucket k holds at most caps[min(k, -1)] bytes."""
    open_buckets, closed = {}, []
    for index in reversed(range(len(params))):
        dtype = _wire_dtype(params[index]._data.dtype)
        indices, size = open_buckets.get(dtype, ([], 0))
        nbytes = params[index]._data.size * dtype.itemsize
        cap = caps[min(len(closed), len(caps) - 1)]
        if indices and size + nbytes > cap:
            closed.append(indices)
            indices, size = [], 0
        indices.append(index)
        open_buckets[dtype] = (indices, size + nbytes)
    closed.extend(indices for indices, _ in open_buckets.values())
    return [[(i, params[i]) for i in indices] for indices in closed]


class Bucket:
    """A flat buffer holding several gradients; all-reduced as one message."""

    def __init__(self, members):
        self.indices = [i for i, _ in members]
        self.shapes = [p._data.shape for _, p in members]
        sizes = [p._data.size for _, p in members]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int).tolist()
        self.buffer = np.zeros(self.offsets[-1], dtype=_wire_dtype(members[0][1]._data.dtype))
        self.ready = [False] * len(members)
        self.count = 0
        self.request = None

    def reset(self):
        self.ready = [False] * len(self.indices)
        self.count = 0
        self.request = None

    def view(self, slot):
        return self.buffer[self.offsets[slot]:self.offsets[slot + 1]].reshape(self.shapes[slot])

    def fill(self, slot, grad):
        target = self.view(slot)
        if grad is None:
            target[...] = 0
        else:
            np.copyto(target, grad._data, casting="unsafe")
        self.ready[slot] = True
        self.count += 1

    @property
    def complete(self):
        return self.count == len(self.indices)

    def launch(self, pg):
        self.request = pg.comm.Iallreduce(pg.api.IN_PLACE, self.buffer)

    def progress(self):
        """Let MPI move this bucket's data forward (it progresses only inside MPI calls); gloo's
        requests are already complete."""
        if self.request is not None and self.request.Test():
            self.request = _DONE

    def finish(self, pg):
        if self.request is not _DONE:
            _group.wait(self.request, pg, "DistributedDataParallel gradient all_reduce")
        self.request = None
        self.buffer /= pg.size()


class _Done:
    """Stands for a request that already completed."""

    def Test(self, status=None):
        return True


_DONE = _Done()


def broadcast_coalesced(tensors, pg, src=0):
    """Copy rank ``src``'s values into ``tensors`` on every rank (one message per dtype)."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t._data.dtype, []).append(t)
    for dtype, group in by_dtype.items():
        flat = Tensor._make(np.concatenate([t._data.reshape(-1) for t in group]))
        dist.broadcast(flat, src=src)
        if pg.rank() != src:
            offset = 0
            for t in group:
                n = t._data.size
                np.copyto(t._data, flat._data[offset:offset + n].reshape(t._data.shape))
                offset += n


def unused_parameters(output, params):
    """Indices of ``params`` that the autograd graph of ``output`` does not reach."""
    roots, stack = set(), [output]
    while stack:
        item = stack.pop()
        if isinstance(item, Tensor):
            if item.grad_fn is not None:
                roots.add(item.grad_fn)
            elif item.requires_grad:
                roots.add(item._accumulator())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    reached, seen, nodes = set(), set(roots), list(roots)
    while nodes:
        node = nodes.pop()
        if type(node) is AccumulateGrad:
            reached.add(id(node.variable))
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                nodes.append(nxt)
    return [i for i, p in enumerate(params) if id(p) not in reached]
