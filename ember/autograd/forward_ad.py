"""torch.autograd.forward_ad: dual tensors (a primal with a tangent) and forward-mode AD.

A tangent is not computed by a second set of derivative formulas: each op's own backward node
gives it. The node's backward ``u -> J^T u`` is linear in ``u``; run once on the tensor math with
``u`` a fresh leaf, its vector-Jacobian product with the input tangents ``t`` is
``d/du <J^T u, t> = J t``, the output's tangent. Every op with a backward therefore has a
forward derivative, and a tangent computed while a primal or a tangent requires grad carries a
graph (reverse mode over forward mode).

While a dual level is active, ``graph._dual`` is this module's op hook: Node.apply hands it every
op (the fast paths step aside), and it attaches the output's tangent.
"""
import collections
import contextlib
import weakref

import numpy as np

from .._tensor import Tensor
from . import _math, _saved
from . import grad_mode as _grad_mode
from . import graph as _graph
from .engine import grad as _engine_grad

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

UnpackedDualTensor = collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])

_KEY = "_fw_grad"  # a dual tensor's tangent, in its __dict__ (present only at the active level)
_level = None  # the active dual level (0) or None: torch has no nested levels
_duals = []  # weak references to the tensors given a tangent at the active level
_compact_at = 1024  # (its length when dead references are next dropped)


def enter_dual_level():
    """Start a dual level (the one level torch allows) and return it."""
    global _level
    if _level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _level = 0
    _graph._dual = _on_op
    return _level


def exit_dual_level(*, level=None):
    """End the dual level: every tangent made in it is dropped."""
    global _level
    if _level is None:
        raise RuntimeError("Dual level must be a positive number.")
    if level is not None and level != _level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was "
                           "created. This is not supported.")
    _graph._dual = None
    _level = None
    _saved.output_tangents.clear()
    for ref in _duals:
        t = ref()
        if t is not None:
            t.__dict__.pop(_KEY, None)
    _duals.clear()


class dual_level(_grad_mode._Mode):
    """Context manager (or decorator) for a dual level: tangents live until it exits."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


def _check_level(level, api):
    if level is not None and level != _level and _level is not None:
        raise RuntimeError(f"Invalid level given to {api}")


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` carrying ``tangent`` (copied when its strides differ) as its tangent."""
    if _level is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    _check_level(level, "_make_dual")
    for name, t in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(t, Tensor):
            raise TypeError(f"make_dual(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
        if t._data.dtype.kind not in "fcV":
            raise ValueError(f"Expected {name} to be floating point or complex, but got: "
                             f"{t.dtype}")
    check_tangent(tensor, tangent)
    if _KEY in tensor.__dict__:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {_level} is not supported.")
    if tangent._data.strides != tensor._data.strides and tangent._data.size > 1:
        copy = np.empty_like(tensor._data, dtype=tangent._data.dtype)  # the primal's layout
        copy[...] = tangent._data
        tangent = Tensor._make(copy)  # torch copies the tangent into the primal's strides
    with hidden():
        dual = tensor.view(tensor.shape)
    _set(dual, tangent)
    return dual


def check_tangent(tensor, tangent):
    """torch's error for a tangent whose shape is not the primal's."""
    if tangent.shape != tensor.shape:
        raise RuntimeError("Trying to set a forward gradient that has a different size than that "
                           "of the original Tensor, this is not supported. Tensor is of size "
                           f"{list(tensor.shape)} while the given forward gradient is of size "
                           f"{list(tangent.shape)}.")


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of ``tensor``: the primal a view without tangent; tangent None if none."""
    if not isinstance(tensor, Tensor):
        return UnpackedDualTensor(tensor, None)
    tangent = tensor.__dict__.get(_KEY)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    _check_level(level, "_fw_primal")
    with hidden():
        primal = tensor.view(tensor.shape)
    return UnpackedDualTensor(primal, tangent)


def tangent_of(t):
    """The tangent of ``t`` at the active level, or None (also for a non-tensor)."""
    return t.__dict__.get(_KEY) if isinstance(t, Tensor) else None


def _set(t, tangent):
    global _compact_at
    t.__dict__[_KEY] = tangent
    _duals.append(weakref.ref(t))
    if len(_duals) > _compact_at:  # a long level: drop the references to dead tensors
        _duals[:] = [ref for ref in _duals if ref() is not None]
        _compact_at = max(1024, 2 * len(_duals))


def set_tangent(t, tangent):
    """Give ``t`` the tangent ``tangent`` (None removes it)."""
    if tangent is None:
        t.__dict__.pop(_KEY, None)
    else:
        _set(t, tangent)


def write_tangent(t, tangent, index=None):
    """After an in-place write into ``t``: its tangent becomes ``tangent``, written into the
    memory of the tangent it had (a view of its base's tangent, so the base's changes too, as
    torch's) where neither carries a graph; else, for a view without a tangent, into its base's
    tangent (zeros if none) at ``index`` (the view's elements in the base, or None)."""
    old = tangent_of(t)
    if tangent is None or tangent._requires_grad or (old is not None and old._requires_grad):
        set_tangent(t, tangent)
        return
    if old is not None:
        np.copyto(old._data, tangent._data, casting="unsafe")
        return
    base = t._base
    if base is not None and index is not None and (tangent_of(base) is None or
                                                   not tangent_of(base)._requires_grad):
        if tangent_of(base) is None:
            _set(base, Tensor._make(np.zeros_like(base._data)))
        tangent_of(base)._data[index] = tangent._data
    set_tangent(t, tangent)


@contextlib.contextmanager
def hidden(inputs=()):
    """Ops run without the hook: their outputs get no tangent (the hook's own work, a custom
    Function's forward, the primal view of unpack_dual); ``inputs`` show no tangent meanwhile
    (a custom Function's forward sees primals, as torch's)."""
    hook = _graph._dual
    _graph._dual = None
    kept = [(t, t.__dict__.pop(_KEY)) for t in inputs
            if isinstance(t, Tensor) and _KEY in t.__dict__]
    try:
        yield
    finally:
        _graph._dual = hook
        for t, tangent in kept:
            t.__dict__.setdefault(_KEY, tangent)


# ---------------------------------------------------------------- tangents of ops


def _on_op(node, data, inputs, kwargs):
    """graph._dual: Node.apply's end while a level is active; the output gets its tangent."""
    out = _output(node, data, inputs, kwargs)
    tangents = [t.__dict__.get(_KEY) if isinstance(t, Tensor) else None for t in inputs]
    if data.dtype.kind in "fcV" and any(t is not None for t in tangents):
        tangent = node_tangent(node, inputs, tangents, out)
        _set(out, tangent)
        if node.saves_output and out._grad_fn is node:  # the saved output keeps it too: a
            kept = node._saved[-1]  # backward through this node runs on a dual output
            if type(kept) is _graph.SavedOutput:
                _saved.output_tangents[id(kept)] = (kept, tangent, _set)
    return out


def _output(node, data, inputs, kwargs):
    """The output tensor as Node.apply makes it (recorded when an input requires grad)."""
    if _graph._anomaly_mode:
        return node._apply_anomaly(data, inputs, kwargs)
    if _grad_mode._state.enabled:
        for t in inputs:
            if isinstance(t, Tensor) and t._requires_grad:
                return node._attach(data, inputs)
        return Tensor._make(data)
    return _graph._made_without_grad(data, inputs)


def multi_output_tangents(node, inputs, outs, indices):
    """The tangents of the outputs ``indices`` of a node with several outputs: the node's own
    ``forward_tangents(tangents)`` where it has one (a formula torch fixes, e.g. a gauge that
    the transposed vjp would choose otherwise), else from its backward."""
    tangents = [tangent_of(t) for t in inputs]
    if any(t is not None for t in tangents):
        if hasattr(node, "forward_tangents"):
            for i, tangent in zip(indices, node.forward_tangents(tangents)):
                _set(outs[i], tangent)
            return
        for i in indices:
            if outs[i]._data.dtype.kind in "fcV":
                _set(outs[i], node_tangent(node, inputs, tangents, outs[i], (i, len(outs))))


_MARK = object()  # an edge standing for "this input has a tangent" (backward computes its part)


def node_tangent(node, inputs, tangents, out, slot=None):
    """``out``'s tangent from ``node``'s backward: the vjp of ``u -> J^T u`` with the tangents.

    ``tangents``: one per input of ``node`` (None: no tangent); ``slot``: (index, count) of
    ``out`` among the outputs of a node with several, else None. The computation runs on
    detached stand-ins of the saved values and tangents; where those require grad (grad mode
    on), the tangent gets a node through which reverse mode reaches them (``_TangentBackward``).
    """
    saved = [s for s in node._saved if type(s) is not _graph.SavedOutput]
    if node.saves_output and slot is None:
        saved.append(out)
    dual = {id(t) for t, tangent in zip(inputs, tangents) if tangent is not None}
    cut = _Cut(_grad_mode._state.enabled)
    with hidden(), _grad_mode.enable_grad():
        saved = [cut(s, id(s) in dual) if isinstance(s, Tensor) else s for s in saved]
        tangents = [cut(t) if t is not None else None for t in tangents]
        result = _transposed_vjp(node, saved, tangents, out, slot, bool(cut.pairs))
    return cut.attach(result, lambda: _transposed_vjp(node, cut.real(saved), cut.real(tangents),
                                                      out, slot, True))


class _Cut:
    """Detached stand-ins for the tensors a tangent is computed from, remembering which stand
    for tensors that require grad: the tangent's graph stays local (a long history below is
    not walked for each op), and ``attach`` links it to the real tensors."""

    def __init__(self, recording):
        self.recording = recording
        self.pairs = []  # (stand-in leaf, the tensor it stands for)

    def __call__(self, t, dual=False):
        leaf = t.detach()
        if self.recording and t._requires_grad:
            leaf.requires_grad_()
            self.pairs.append((leaf, t))
        elif dual:  # a backward that re-derives its op through autograd differentiates only
            leaf.requires_grad_()  # the inputs that require grad
        return leaf

    def real(self, items):
        """``items`` with each stand-in replaced by the tensor it stands for."""
        real = {id(leaf): t for leaf, t in self.pairs}
        return [real.get(id(x), x) for x in items]

    def attach(self, result, remake):
        """The tangent: ``result`` detached, with a node when it depends on a tensor that
        requires grad; ``remake()`` computes it again from the real tensors (a graph of it)."""
        if not self.pairs or not result._requires_grad:
            return result.detach()
        tangent = Tensor._make(result._data)
        node = _TangentBackward()
        node.local = (result, tuple(leaf for leaf, _ in self.pairs),
                      tuple(t for _, t in self.pairs), remake)
        node._record(tuple(_graph._edge(t) for _, t in self.pairs), (), out=tangent)
        return tangent


class _TangentBackward(_graph.Node):
    """A tangent computed while its primals or tangents require grad: its backward runs the
    reverse pass of the tangent's own (local) graph into them."""

    def backward(self, m, grad):
        if self.local is None:
            _graph._raise_freed()
        result, leaves, reals, remake = self.local
        if m.is_graph:  # a graph of the gradient: through the tangent made from the real tensors
            with hidden():
                result = remake()
            return _engine_grad((result,), reals, (grad,), create_graph=True, allow_unused=True)
        grads = _engine_grad((result,), leaves, (Tensor._make(grad),), retain_graph=True,
                             allow_unused=True)
        return tuple(None if g is None else g._data for g in grads)


def _transposed_vjp(node, saved, tangents, out, slot, keep):
    u = Tensor._make(np.zeros_like(out._data), True)
    grad = u
    if slot is not None:  # a node with several outputs: no gradient for the others
        grad = [u if i == slot[0] else None for i in range(slot[1])]
    back = _backward(node, grad, saved, tangents)
    outs, seeds = [], []
    for g, t in zip(back, tangents):
        if t is not None and isinstance(g, Tensor) and g._requires_grad:
            outs.append(g)
            seeds.append(_seed(t, g))
    if outs:
        (result,) = _engine_grad(outs, (u,), seeds, create_graph=keep, allow_unused=True)
        if result is not None:
            return result
    return Tensor._make(np.zeros_like(out._data))


def _backward(node, grad, saved, tangents):
    """``node``'s backward on the tensor math, computing the parts of the inputs with a tangent
    (a backward skips an input whose edge is None); its real edges are back before the vjp
    runs through them."""
    edges = getattr(node, "next_functions", None)  # (unset on a node not recorded)
    node.next_functions = tuple((_MARK, 0) if t is not None else (None, 0) for t in tangents)
    try:
        back = node.backward(_math.tensor_math, grad, *saved)
    finally:
        if edges is None:
            del node.next_functions
        else:
            node.next_functions = edges
    return back if type(back) is tuple else (back,)


def _seed(tangent, g):
    """The tangent as a gradient of ``g``: the engine sums ``g`` to the input's shape (or expands
    it), so the tangent goes the other way."""
    if tangent.shape != g.shape:
        tangent = tangent.expand(g.shape) if g.ndim >= tangent.ndim else \
            tangent.sum_to_size(g.shape)
    if tangent.dtype != g.dtype:
        tangent = tangent.to(g.dtype)
    return tangent
