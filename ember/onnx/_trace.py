"""Tracing for ONNX export: run a model's forward once and record every op it calls.

Every op goes through ``Node.apply``; under anomaly mode even the fast paths do, and there
``autograd.graph._observer`` sees each op's node, inputs, keyword arguments and output. The tracer
switches both on for the one forward call, so that ops pay nothing when no export runs. Each op
keeps its tensors' arrays and versions as they were when it ran (a later in-place write or
transpose_ changes them), and a copy of every value seen finds writes that bypass the ops.
"""
import contextlib

import numpy as np

from .._tensor import Tensor
from ..autograd import graph as _graph
from ..autograd import no_grad

exporting = False  # True while a trace runs the model (torch.onnx.is_in_onnx_export)


class Call:
    """One op seen during the trace: its node, positional inputs, keyword arguments, output."""

    __slots__ = ("node", "inputs", "kwargs", "out", "versions", "written", "arrays", "out_vc")

    def __init__(self, node, inputs, kwargs, out):
        self.node, self.inputs, self.kwargs, self.out = node, inputs, kwargs, out
        # the tensors' versions when the op ran: an in-place write since shows as a new one
        self.versions = [t._vc[0] if isinstance(t, Tensor) else None for t in self.operands()]
        self.versions.append(out._vc[0])
        self.out_vc = out._vc
        # the tensors' arrays when the op ran: an in-place transpose_ replaces one later
        self.arrays = [t._data if isinstance(t, Tensor) else None for t in self.operands()]
        self.arrays.append(out._data)
        self.written = ()  # operands whose values changed outside the traced ops (see Copies)

    def operands(self):
        """The op's inputs, positional then keyword."""
        return list(self.inputs) + list(self.kwargs.values())

    def settle(self):
        """Read the output's version again once the op returned: a view made by it gets its
        base's version counter only then."""
        if self.out._vc is not self.out_vc:
            self.out_vc, self.versions[-1] = self.out._vc, self.out._vc[0]

    @contextlib.contextmanager
    def as_run(self):
        """The op's tensors hold the arrays (shapes, names) they had when it ran, meanwhile."""
        tensors = [t for t in self.operands() if isinstance(t, Tensor)] + [self.out]
        arrays = [a for a in self.arrays if a is not None]
        now = [t._data for t in tensors]
        try:
            for tensor, array in zip(tensors, arrays):
                tensor._data = array
            yield self
        finally:
            for tensor, array in zip(tensors, now):
                tensor._data = array

    @property
    def op(self):
        """The node's class name (torch's grad_fn name), or the name of an untracked op."""
        node = self.node
        return node.name if type(node) is _graph.Untracked else type(node).__name__


def _equal(a, b):
    return np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


class Copies:
    """A copy of each array the trace saw last made or written by an op, to find writes that
    bypass ember's ops (through ``.numpy()``, ``np.asarray`` or ``__array__``): the graph would
    compute without them, so they are refused."""

    def __init__(self, tensors):
        self.copies, self.pending = {}, None
        for tensor in tensors:
            self.take(tensor)

    def take(self, tensor):
        """Copy ``tensor``'s values and version now; a view gets its base's version counter only
        after the op that made it returned: its version is read from that when the next op runs
        (``copies`` maps an array's id to [array, copy, tensor, version counter, version])."""
        entry = self.pending
        if entry is not None and entry[2]._vc is not entry[3]:
            entry[3], entry[4] = entry[2]._vc, entry[2]._vc[0]
        self.pending = None
        if tensor is not None:
            array = tensor._data
            self.pending = self.copies[id(array)] = [array, array.copy(), tensor, tensor._vc,
                                                     tensor._vc[0]]

    def changed(self, values):
        """The positions of ``values`` whose array differs from its copy although no ember op
        wrote it (its version is the same: an in-place op through a view bumps it, and is
        refused by the export's version check instead)."""
        found = []
        for index, value in enumerate(values):
            array = value._data if isinstance(value, Tensor) else value
            entry = self.copies.get(id(array)) if isinstance(array, np.ndarray) else None
            if entry is not None and entry[2]._vc is entry[3] and entry[3][0] == entry[4] \
                    and not _equal(array, entry[1]):
                found.append(index)
        return tuple(found)

    def check_all(self, calls):
        """Refuse a write seen at the end of the forward, unless an op read the written value
        (the export then names that op's operand)."""
        self.take(None)
        arrays = [entry[0] for entry in self.copies.values()]
        if not any(call.written for call in calls) and self.changed(arrays):
            raise RuntimeError(_WRITTEN.format("a tensor of the model's forward"))


_WRITTEN = ("ember.onnx.export: {} was changed outside ember's ops (a write through .numpy(), "
            "np.asarray or __array__), which the export cannot follow: the exported model would "
            "compute without that write; make the change with tensor ops")


def run(model, args, kwargs):
    """Call ``model(*args, **kwargs)`` in eval mode without gradients; return (calls, output)."""
    global exporting
    calls = []
    copies = Copies(leaves((args, kwargs)) + list(model.parameters()) + list(model.buffers()))

    def observe(node, inputs, op_kwargs, out):
        if calls:
            calls[-1].settle()
        call = Call(node, inputs, op_kwargs, out)
        copies.take(out)
        call.written = copies.changed(call.operands())
        calls.append(call)

    saved = (_graph._anomaly_mode, _graph._observer, exporting)
    was_training = model.training
    model.train(False)  # exported as in eval mode (dropout off, running statistics), as torch's
    try:
        _graph._anomaly_mode, _graph._observer, exporting = True, observe, True
        with no_grad():
            output = model(*args, **kwargs)
    finally:
        _graph._anomaly_mode, _graph._observer, exporting = saved
        model.train(was_training)
    if calls:
        calls[-1].settle()
    copies.check_all(calls)
    return calls, output


def flat_outputs(output):
    """The model's output as a list of tensors: nested tuples and lists flattened in order and
    None left out, as torch's export (nanoGPT returns ``logits, None`` without targets)."""
    if isinstance(output, Tensor):
        return [output]
    if output is None:
        return []
    if isinstance(output, (tuple, list)):
        return [t for o in output for t in flat_outputs(o)]
    raise RuntimeError("ember.onnx.export: the model must return a tensor or a tuple/list of "
                       f"tensors, not {type(output).__name__}")


def map_tensors(fn, value):
    """``value`` with each tensor in it (also inside tuples, lists and dicts) replaced by fn's."""
    if isinstance(value, Tensor):
        return fn(value)
    if isinstance(value, (tuple, list)):
        return type(value)(map_tensors(fn, v) for v in value)
    if isinstance(value, dict):
        return {k: map_tensors(fn, v) for k, v in value.items()}
    return value


def leaves(value):
    """The tensors in ``value`` in order: the graph inputs of nested example arguments."""
    found = []
    map_tensors(found.append, value)
    return found


def probe_inputs(value, dynamic, extra=1):
    """Second example inputs: each tensor's values permuted, and each dynamic axis ``extra``
    longer (its first slices repeated at the end).

    A second trace on them shows which sizes follow the dynamic axes and which constants were
    computed from the inputs by an op the trace does not see (``dynamic``: {leaf index: axes}).
    """
    rng, count = np.random.default_rng(0), iter(range(1 << 62))

    def probe(tensor):
        data = tensor.detach().numpy()
        data = rng.permutation(data.reshape(-1)).reshape(data.shape)
        for axis in dynamic.get(next(count), ()):
            first = np.take(data, np.arange(extra) % max(data.shape[axis], 1), axis=axis)
            data = np.concatenate([data, first], axis=axis)
        return Tensor._make(np.ascontiguousarray(data))
    return map_tensors(probe, value)
