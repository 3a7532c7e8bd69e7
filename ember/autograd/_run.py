"""The steps of a backward pass: run one node, deliver a gradient into the buffers, fill a leaf.

Both walks of ``engine`` (frontier and exact) are made of these steps; they only choose the order.
"""
import numpy as np
from numpy import ndarray as _ndarray

from .._tensor import Tensor
from . import anomaly
from . import graph as _graph_module
from ._sparse_grad import SparseGrad, accumulate_leaf, buffer_sum
from .graph import AccumulateGrad, _type_name


class Run:
    """The state of one backward pass: gradient buffers and what to do at the leaves."""

    __slots__ = ("m", "create_graph", "retain_graph", "targets", "needed", "accumulate",
                 "buffers", "sinks", "captured")

    def __init__(self, m, create_graph, retain_graph, targets, accumulate):
        self.m, self.create_graph, self.retain_graph = m, create_graph, retain_graph
        self.targets, self.accumulate = targets, accumulate
        self.buffers, self.captured, self.needed, self.sinks = {}, {}, None, None


def run_node(run, node, grad):
    """Run ``node``'s backward (``Node._run_backward``) with this pass's math and modes."""
    return node._run_backward(run.m, grad, run.create_graph, run.retain_graph)


def run_general(run, node, grads):
    """A node with hooks, retained grads, capture targets or anomaly checks; None to skip it."""
    grads = _pre_hooks(node, grads if type(grads) is list else [grads], run.create_graph)
    if run.targets is not None:
        _capture(node, grads, run.targets, run.captured)
    if run.needed is not None and node not in run.needed:
        return None
    grad = grads[0] if len(grads) == 1 else grads
    if _graph_module._anomaly_mode and anomaly._enabled:  # not for an observer alone
        return _run_node_anomaly(run, node, grad)
    return run_node(run, node, grad)


def _run_node_anomaly(run, node, grad):
    _graph_module._anomaly_mode = False  # the checks themselves must not recurse
    try:
        outs = run_node(run, node, grad)
    except Exception as error:
        raise anomaly.annotate(error, node)
    finally:
        _graph_module._anomaly_mode = True
    anomaly.check_backward(node, outs)
    return outs


def deliver(run, node, nr, g):
    """Add ``g`` into ``node``'s buffer for its output ``nr`` (summed to that output's shape
    and cast to its dtype first); True when it is the node's first gradient of this pass."""
    shapes, buffers = node._shapes, run.buffers
    if type(g) is not _ndarray or g.shape != shapes[nr] or g.dtype is not node._dtypes[nr] \
            or run.create_graph:
        if type(g) is SparseGrad and type(node) is AccumulateGrad:
            prev = buffers.get(node)
            buffers[node] = g if prev is None else buffer_sum(prev, g)
            return prev is None
        g = run.m.conform(g, shapes[nr], node._dtypes[nr])  # (a sparse one: made dense)
    prev = buffers.get(node)
    if len(shapes) == 1:  # one output: the buffer holds the bare gradient
        buffers[node] = g if prev is None else prev + g
    else:
        slots = buffers[node] = [None] * len(shapes) if prev is None else prev
        slots[nr] = g if slots[nr] is None else slots[nr] + g
    return prev is None


def observed(sink):
    """Whether anything can see when this leaf's gradient lands (its hooks)."""
    return sink._special or bool(sink.variable.__dict__.get("_post_accumulate_hooks"))


def run_sink(run, node):
    """AccumulateGrad: hooks, capture for grad(), then add into the leaf's .grad."""
    grads = run.buffers.pop(node, None)
    if grads is None:
        return
    grads = _pre_hooks(node, [grads], run.create_graph)  # a sink has one input: a bare grad
    targets = run.targets
    if targets is not None:
        _capture(node, grads, targets, run.captured)
    if run.accumulate and (targets is None or node in targets) and grads[0] is not None:
        _accumulate_grad(node.variable, grads[0], run.create_graph)
        for hook in node.variable.__dict__.get("_post_accumulate_hooks", ()):
            hook(node.variable)


def _capture(node, grads, targets, captured):
    for nr in targets.get(node, ()):
        if grads[nr] is not None:
            captured[(node, nr)] = as_tensor(grads[nr])


def as_tensor(g):
    if type(g) is SparseGrad:
        return g.tensor()
    return g if isinstance(g, Tensor) else Tensor._make(g)


def _as_grad(t, create_graph):
    """A hook's tensor as a gradient of this pass."""
    if t.is_sparse:
        return SparseGrad.of(t)
    return t if create_graph else t._data


def _pre_hooks(node, grads, create_graph):
    hooks = node._tensor_pre_hooks
    if hooks:
        for nr, fn in list(hooks):
            if grads[nr] is None:
                continue
            res = fn(as_tensor(grads[nr]))
            if res is not None:
                _check_hook_result(fn, res, grads[nr])
                grads[nr] = _as_grad(res, create_graph)
    if node._pre_hooks:
        for fn in node._pre_hooks:
            res = fn(tuple(as_tensor(g) if g is not None else None for g in grads))
            if res is not None:
                grads = [g if g is None else _as_grad(g, create_graph) for g in res]
    _retain_grads(node, grads)
    return grads


def _check_hook_result(fn, res, grad):
    """A tensor hook may replace the gradient only by a tensor of its shape and dtype."""
    if not isinstance(res, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(res).__name__}'")
    name = getattr(fn, "__name__", type(fn).__name__)
    if res.is_sparse != (type(grad) is SparseGrad):
        raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                           f"{as_tensor(grad).type()} got {res.type()})")
    if res.is_sparse:
        return
    old = grad._data if isinstance(grad, Tensor) else grad
    if res._data.shape != old.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    if res._data.dtype != old.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                           f"{_type_name(str(old.dtype))} got {_type_name(str(res._data.dtype))})")


def _retain_grads(node, grads):
    retained = node._retained
    if not retained:
        return
    for nr, ref in retained.items():
        t = ref()
        if t is not None and grads[nr] is not None:
            g = grads[nr]
            g = Tensor._make(g.astype(g.dtype, copy=True)) if not isinstance(g, Tensor) else g
            t._grad = g if t._grad is None else Tensor._make(t._grad._data + g._data)


def _accumulate_grad(var, g, create_graph):
    if type(g) is SparseGrad or var._grad is not None and var._grad.is_sparse:
        accumulate_leaf(var, g)
        return
    if isinstance(g, Tensor):  # create_graph: grads are graph tensors; accumulate out of place
        var._grad = g if var._grad is None else var._grad + g
        return
    old = var._grad
    if old is None:
        # (astype, not np.array: a meta placeholder's copy is a placeholder)
        var._grad = Tensor._make(g.astype(var._data.dtype, copy=True))
    elif old._requires_grad:
        var._grad = Tensor._make(old._data + g)
    else:
        np.add(old._data, g, out=old._data, casting="unsafe")
