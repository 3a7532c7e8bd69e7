"""Collectives as autograd functions: each returns new tensors (the input is left alone) and
its backward is the collective that carries gradients the other way (broadcast <-> reduce to
the root, all_reduce -> all_reduce of the gradient with the same op, all_gather -> the sum over
ranks of the gradients of this rank's slot). The backwards call these functions themselves, so
higher-order gradients flow through them too."""
from ..._creation import empty_like
from ...autograd.function import Function
from ...ops import api
from .. import _collectives as C
from .. import _group


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group = src, group
        out = tensor.clone()
        C.broadcast(out, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        grad = _Reduce.apply(ctx.src, C.ReduceOp.SUM, ctx.group, grad_output)
        if _group.get_rank(ctx.group) != ctx.src:
            grad = grad * 0   # only the root's input reached the other ranks
        return None, None, grad


class _Reduce(Function):
    @staticmethod
    def forward(ctx, dst, op, group, tensor):
        ctx.dst, ctx.group = dst, group
        out = tensor.clone()
        C.reduce(out, dst, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, None, _Broadcast.apply(ctx.dst, ctx.group, grad_output)


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.op, ctx.group = op, group
        out = tensor.clone()
        C.all_reduce(out, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, _AllReduce.apply(ctx.op, ctx.group, grad_output)


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group = group
        outs = [empty_like(tensor) for _ in range(_group.get_world_size(group))]
        C.all_gather(outs, tensor.contiguous(), group=group)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        # This rank's input went to slot ``rank`` of every rank's output: the sum over ranks of
        # their slot-``rank`` gradients, one all-reduce of all slots at once.
        summed = _AllReduce.apply(C.ReduceOp.SUM, ctx.group, api.stack(grad_outputs))
        return None, summed[_group.get_rank(ctx.group)]


def broadcast(tensor, src, group=None):
    """Rank ``src``'s ``tensor`` on every rank (a new tensor); the gradient is summed into
    ``src``'s input, the other ranks' inputs get zeros."""
    return _Broadcast.apply(src, group, tensor)


def reduce(tensor, dst, op=C.ReduceOp.SUM, group=None):
    """``tensor`` reduced across ranks into rank ``dst``'s result (a new tensor; the others keep
    their input's values); the gradient is ``dst``'s, broadcast to every rank."""
    return _Reduce.apply(dst, op, group, tensor)


def all_reduce(tensor, op=C.ReduceOp.SUM, group=None):
    """``tensor`` reduced across ranks (a new tensor on every rank); the gradient is all-reduced
    with the same op."""
    return _AllReduce.apply(op, group, tensor)


def all_gather(tensor, group=None):
    """A tuple holding every rank's ``tensor``, in rank order, on every rank."""
    return _AllGather.apply(group, tensor)
