"""Tracing for ONNX export: run a model's forward once and record every op it calls.

Every op goes through ``Node.apply``; under anomaly mode even the fast paths do, and there
``autograd.graph._observer`` sees each op's node, inputs, keyword arguments and output. The tracer
switches both on for the one forward call, so that ops pay nothing when no export runs.
"""
import numpy as np

from .._tensor import Tensor
from ..autograd import graph as _graph
from ..autograd import no_grad

exporting = False  # True while a trace runs the model (torch.onnx.is_in_onnx_export)


class Call:
    """One op seen during the trace: its node, positional inputs, keyword arguments, output."""

    __slots__ = ("node", "inputs", "kwargs", "out", "versions")

    def __init__(self, node, inputs, kwargs, out):
        self.node, self.inputs, self.kwargs, self.out = node, inputs, kwargs, out
        # the tensors' versions when the op ran: an in-place write since shows as a new one
        self.versions = [t._vc[0] if isinstance(t, Tensor) else None for t in self.operands()]
        self.versions.append(out._vc[0])

    def operands(self):
        """The op's inputs, positional then keyword."""
        return list(self.inputs) + list(self.kwargs.values())

    @property
    def op(self):
        """The node's class name (torch's grad_fn name), or the name of an untracked op."""
        node = self.node
        return node.name if type(node) is _graph.Untracked else type(node).__name__


def run(model, args, kwargs):
    """Call ``model(*args, **kwargs)`` in eval mode without gradients; return (calls, output)."""
    global exporting
    calls = []

    def observe(node, inputs, op_kwargs, out):
        calls.append(Call(node, inputs, op_kwargs, out))

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
    return calls, output


def flat_outputs(output):
    """The model's output as a list of tensors (a tensor, or a tuple/list of them)."""
    if isinstance(output, Tensor):
        return [output]
    if isinstance(output, (tuple, list)) and all(isinstance(o, Tensor) for o in output):
        return list(output)
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


def probe_inputs(value, dynamic):
    """Second example inputs: each tensor's values permuted, and each dynamic axis one longer.

    A second trace on them shows which sizes follow the dynamic axes and which constants were
    computed from the inputs by an op the trace does not see (``dynamic``: {leaf index: axes}).
    """
    rng, count = np.random.default_rng(0), iter(range(1 << 62))

    def probe(tensor):
        data = tensor.detach().numpy()
        data = rng.permutation(data.reshape(-1)).reshape(data.shape)
        for axis in dynamic.get(next(count), ()):
            first = np.take(data, [0], axis=axis)
            data = np.concatenate([data, first], axis=axis)
        return Tensor._make(np.ascontiguousarray(data))
    return map_tensors(probe, value)
