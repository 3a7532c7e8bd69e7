"""Collectives on tensors (all_reduce, broadcast, gather, ...), in place as in torch, over the
group's communicator: mpi4py's (backend "mpi") or _gloo's sockets with the same methods."""
import enum

import numpy as np

from .._tensor import Tensor
from ._group import _default_group, wait


class ReduceOp(enum.Enum):
    """How all_reduce, reduce and reduce_scatter combine the ranks' values."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4


class Work:
    """A pending collective (``async_op=True``): ``wait()`` completes it and writes the result."""

    def __init__(self, request, pg, what, finish=None):
        self._request = request
        self._pg = pg
        self._what = what
        self._finish = finish
        self._done = False

    def wait(self, timeout=None):
        """Block until complete (raising after the group's timeout); returns True."""
        if not self._done:
            wait(self._request, self._pg, self._what)
            self._done = True
            if self._finish is not None:
                self._finish()
        return True

    def is_completed(self):
        if not self._done and self._request.Test():
            self.wait()
        return self._done

    def is_success(self):
        return self._done


def _run(work, async_op):
    if async_op:
        return work
    work.wait()
    return None


def _check_tensor(t, name):
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"ember.Tensor but got {type(t)} instead.")


def _check_list(tensors, name, like, size):
    """``tensors`` must be a list of ``size`` tensors with ``like``'s shape and dtype."""
    if not isinstance(tensors, (list, tuple)) or not all(isinstance(t, Tensor) for t in tensors):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        "List[ember.Tensor].")
    if len(tensors) != size:
        raise ValueError(f"{name} must hold world_size ({size}) tensors, got {len(tensors)}")
    for i, t in enumerate(tensors):
        if t._data.shape != like._data.shape or t._data.dtype != like._data.dtype:
            raise ValueError(f"{name}[{i}] has shape {list(t.shape)} and dtype {t.dtype}; "
                             f"expected shape {list(like.shape)} and dtype {like.dtype}")


def _check_rank(rank, pg, name):
    if not isinstance(rank, (int, np.integer)) or not 0 <= rank < pg.size():
        raise ValueError(f"Invalid {name} rank {rank}: expected 0 <= {name} < world_size "
                         f"({pg.size()})")


def _mpi_op(op, pg):
    if not isinstance(op, ReduceOp):
        raise TypeError(f"op must be an ember.distributed.ReduceOp, got {op!r}")
    MPI = pg.api
    return {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD,
            ReduceOp.MIN: MPI.MIN, ReduceOp.MAX: MPI.MAX}[op]


def _wire(arr):
    """A C-contiguous array MPI can reduce (half -> float, bool -> uint8); ``arr`` itself if it
    already is one, so the reduction lands in the tensor's own memory."""
    if arr.dtype == np.float16:
        return arr.astype(np.float32, order="C")
    if arr.dtype == np.bool_:
        return arr.astype(np.uint8, order="C")
    return arr if arr.flags.c_contiguous and arr.ndim else np.array(arr, order="C", ndmin=1)


def _raw(arr):
    """The array's bytes, for collectives that only move data."""
    return np.ascontiguousarray(arr).reshape(-1).view(np.uint8)


def _write(tensor, values, op=None, size=1):
    """Store a collective's result in ``tensor``'s memory (averaging for AVG); bump its version."""
    if op is ReduceOp.AVG:  # a new array: MPI has no average, so divide the sum
        values = values / size if values.dtype.kind == "f" else values // size
    if values is not tensor._data:
        np.copyto(tensor._data, values.reshape(tensor._data.shape).astype(tensor._data.dtype),
                  casting="unsafe")
    tensor._vc[0] += 1


def _write_bytes(tensor, raw):
    _write(tensor, raw.view(tensor._data.dtype).reshape(tensor._data.shape))


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` across all ranks; every rank gets the result in place."""
    pg = _default_group(group)
    _check_tensor(tensor, "tensor")
    mpi_op = _mpi_op(op, pg)
    buf = _wire(tensor._data)
    request = pg.comm.Iallreduce(pg.api.IN_PLACE, buf, op=mpi_op)
    return _run(Work(request, pg, "all_reduce", lambda: _avg_write(tensor, buf, op, pg)),
                async_op)


def _avg_write(tensor, buf, op, pg):
    _write(tensor, buf, op, pg.size())


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` across all ranks into rank ``dst``'s tensor."""
    pg = _default_group(group)
    _check_tensor(tensor, "tensor")
    _check_rank(dst, pg, "dst")
    mpi_op = _mpi_op(op, pg)
    buf = _wire(tensor._data)
    if pg.rank() == dst:
        request = pg.comm.Ireduce(pg.api.IN_PLACE, buf, op=mpi_op, root=dst)
        finish = lambda: _avg_write(tensor, buf, op, pg)
    else:
        request, finish = pg.comm.Ireduce(buf, None, op=mpi_op, root=dst), None
    return _run(Work(request, pg, "reduce", finish), async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """Copy rank ``src``'s tensor into ``tensor`` on every rank."""
    pg = _default_group(group)
    _check_tensor(tensor, "tensor")
    _check_rank(src, pg, "src")
    raw = _raw(tensor._data)
    request = pg.comm.Ibcast(raw, root=src)
    finish = None if pg.rank() == src else lambda: _write_bytes(tensor, raw)
    return _run(Work(request, pg, "broadcast", finish), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fill ``tensor_list[i]`` with rank i's ``tensor`` on every rank."""
    pg = _default_group(group)
    _check_tensor(tensor, "tensor")
    _check_list(tensor_list, "tensor_list", tensor, pg.size())
    send = _raw(tensor._data)
    recv = np.empty((pg.size(), send.size), dtype=np.uint8)
    request = pg.comm.Iallgather(send, recv)

    def finish():
        for t, row in zip(tensor_list, recv):
            _write_bytes(t, row)
    return _run(Work(request, pg, "all_gather", finish), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gather every rank's ``input_tensor`` into ``output_tensor`` (concatenated or stacked)."""
    pg = _default_group(group)
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    _check_sizes(output_tensor, input_tensor, pg.size(), "output_tensor", "input_tensor")
    send = _raw(input_tensor._data)
    recv = np.empty(send.size * pg.size(), dtype=np.uint8)
    request = pg.comm.Iallgather(send, recv)
    return _run(Work(request, pg, "all_gather_into_tensor",
                     lambda: _write_bytes(output_tensor, recv)), async_op)


def _check_sizes(big, small, size, big_name, small_name):
    if big._data.dtype != small._data.dtype:
        raise ValueError(f"{big_name} ({big.dtype}) and {small_name} ({small.dtype}) must "
                         "have the same dtype")
    if big._data.size != small._data.size * size:
        raise ValueError(f"{big_name} must have world_size ({size}) times as many elements as "
                         f"{small_name}: got {list(big.shape)} and {list(small.shape)}")


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Rank i gets the reduction over ranks of ``input_list[i]``, written into ``output``."""
    pg = _default_group(group)
    _check_tensor(output, "output")
    _check_list(input_list, "input_list", output, pg.size())
    send = np.concatenate([_wire(t._data).reshape(-1) for t in input_list])
    return _reduce_scatter(output, send, op, pg, "reduce_scatter", async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """As reduce_scatter, with the inputs concatenated along dim 0 of one tensor."""
    pg = _default_group(group)
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    _check_sizes(input, output, pg.size(), "input", "output")
    send = _wire(input._data).reshape(-1)
    return _reduce_scatter(output, send, op, pg, "reduce_scatter_tensor", async_op)


def _reduce_scatter(output, send, op, pg, what, async_op):
    mpi_op = _mpi_op(op, pg)
    recv = np.empty(send.size // pg.size(), dtype=send.dtype)
    request = pg.comm.Ireduce_scatter_block(send, recv, op=mpi_op)
    return _run(Work(request, pg, what, lambda: _write(output, recv, op, pg.size())), async_op)


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """Collect every rank's ``tensor`` into ``gather_list`` on rank ``dst``."""
    pg = _default_group(group)
    _check_tensor(tensor, "tensor")
    _check_rank(dst, pg, "dst")
    _check_root_list(gather_list, "gather_list", pg.rank() == dst, "destination")
    send = _raw(tensor._data)
    if pg.rank() != dst:
        return _run(Work(pg.comm.Igather(send, None, root=dst), pg, "gather"), async_op)
    _check_list(gather_list, "gather_list", tensor, pg.size())
    recv = np.empty((pg.size(), send.size), dtype=np.uint8)
    request = pg.comm.Igather(send, recv, root=dst)

    def finish():
        for t, row in zip(gather_list, recv):
            _write_bytes(t, row)
    return _run(Work(request, pg, "gather", finish), async_op)


def _check_root_list(tensors, name, is_root, role):
    if is_root and not tensors:
        raise ValueError(f"Argument ``{name}`` must be specified on {role} rank.")
    if not is_root and tensors:
        raise ValueError(f"Argument ``{name}`` must NOT be specified on non-{role} ranks.")


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Rank i receives ``scatter_list[i]`` of rank ``src`` into ``tensor``."""
    pg = _default_group(group)
    _check_tensor(tensor, "tensor")
    _check_rank(src, pg, "src")
    _check_root_list(scatter_list, "scatter_list", pg.rank() == src, "source")
    send = None
    if pg.rank() == src:
        _check_list(scatter_list, "scatter_list", tensor, pg.size())
        send = np.concatenate([_raw(t._data) for t in scatter_list])
    recv = np.empty(tensor._data.nbytes, dtype=np.uint8)
    request = pg.comm.Iscatter(send, recv, root=src)
    return _run(Work(request, pg, "scatter", lambda: _write_bytes(tensor, recv)), async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank has reached this barrier."""
    pg = _default_group(group)
    return _run(Work(pg.comm.Ibarrier(), pg, "barrier"), async_op)


def send(tensor, dst, group=None, tag=0):
    """Send ``tensor`` to rank ``dst`` (blocks until the message is handed over)."""
    pg = _default_group(group)
    _check_tensor(tensor, "tensor")
    _check_rank(dst, pg, "dst")
    if dst == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as "
                         "the rank of the current process.")
    Work(pg.comm.Isend(_raw(tensor._data), dest=dst, tag=tag), pg, "send").wait()


def recv(tensor, src=None, group=None, tag=0):
    """Receive into ``tensor`` from rank ``src`` (any rank if None); returns the sender's rank."""
    pg = _default_group(group)
    _check_tensor(tensor, "tensor")
    MPI = pg.api
    if src is not None:
        _check_rank(src, pg, "src")
        if src == pg.rank():  # torch: gloo's "Pair is not connected"
            raise RuntimeError("Invalid source rank: a process cannot receive from itself "
                               f"(src={src} is this process's rank)")
    raw = np.empty(tensor._data.nbytes, dtype=np.uint8)
    status = MPI.Status()
    request = pg.comm.Irecv(raw, source=MPI.ANY_SOURCE if src is None else src, tag=tag)
    wait(request, pg, "recv", status)
    _write_bytes(tensor, raw)
    return status.Get_source()
