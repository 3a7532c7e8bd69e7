"""ONNX export by tracing: every op the model's forward calls becomes ONNX node(s) (see ember.onnx).
"""
import enum

import numpy as np

from .._tensor import Tensor
from ..autograd.graph import Untracked
from . import _dynamic, _ops_index, _ops_nn, _ops_reduce, _trace  # noqa: F401  (registered)
from ._builder import Graph
from ._ops import CONVERTERS, UNTRACKED, unsupported
from ._ops_shape import shape_converter

DEFAULT_OPSET = 20  # torch 2.13's default for its TorchScript-based exporter
_ACCEPTED = {"dynamo", "external_data", "dynamic_shapes", "custom_translation_table", "report",
             "optimize", "verify", "profile", "dump_exported_program", "artifacts_dir",
             "keep_initializers_as_inputs", "training", "operator_export_type",
             "custom_opsets", "export_modules_as_functions", "autograd_inlining"}


def _onnx():
    try:
        import onnx  # optional: builds, checks and writes the ModelProto
    except ImportError:
        raise ImportError("ember.onnx.export needs the onnx package: pip install onnx "
                          "(or pip install 'ember[onnx]')") from None
    return onnx


def _split_args(args, kwargs):
    if isinstance(args, Tensor) or not isinstance(args, (tuple, list)):
        args = (args,)
    args = tuple(args)
    if args and isinstance(args[-1], dict) and kwargs is None:  # torch's legacy (x, {...})
        args, kwargs = args[:-1], args[-1]
    return args, dict(kwargs or {})


def _axes(dynamic_axes, name):
    axes = (dynamic_axes or {}).get(name, {})
    if isinstance(axes, (list, tuple)):
        return {int(i): f"{name}_dynamic_axes_{i + 1}" for i in axes}
    return {int(i): str(s) for i, s in axes.items()}


def _value_info(onnx, name, tensor, axes):
    shape = [axes.get(i, size) for i, size in enumerate(tensor.shape)]
    elem = onnx.helper.np_dtype_to_tensor_dtype(tensor._data.dtype)
    return onnx.helper.make_tensor_value_info(name, elem, shape)


def _same(a, b):
    if isinstance(a, (Tensor, np.ndarray)) or isinstance(b, (Tensor, np.ndarray)):
        return False  # tensors are compared by _check_constant
    if hasattr(type(a), "__slots__") and type(a) is type(b) and not isinstance(a, tuple):
        return all(_same(getattr(a, s), getattr(b, s)) for s in type(a).__slots__)
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b


def _array(value):
    return value._data if isinstance(value, Tensor) else np.asarray(value)


def _equal(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


def _check_constant(g, what, value, twin, traced_twins):
    """An operand the trace did not make must be the same in the second trace: a constant."""
    twin_array = twin._data if isinstance(twin, Tensor) else twin
    if id(twin) in traced_twins or id(twin_array) in traced_twins or \
            not isinstance(twin, (Tensor, np.ndarray)):
        ok = False
    else:
        a, b = _array(value), _array(twin)
        ok = _equal(a, b) or _dynamic.rebuild(g, value, a, b)
    if not ok:
        raise RuntimeError(
            f"ember.onnx.export: {what} was computed from the model's "
            "inputs by an op the export does not trace (a comparison, argmax, a dtype cast "
            "without gradient, an operation on .numpy() or .item()), or it follows a dynamic "
            "axis; it cannot be stored as a constant")


def _check_versions(g, call):
    """A named tensor read after an in-place write the trace could not follow is refused."""
    for index, (value, version) in enumerate(zip(call.operands(), call.versions)):
        if version is not None and g.versions.get(id(value), version) != version:
            raise RuntimeError(
                f"ember.onnx.export: operand {index} of {call.op} was modified in place after "
                "it was made (through a view, .data, or an in-place op the export does not "
                "follow); write that step out of place to export the model")


def _check_call(g, call, other, traced_twins, shape_aware):
    _check_versions(g, call)
    if call.written:
        raise RuntimeError(_trace._WRITTEN.format(f"operand {call.written[0]} of {call.op}"))
    if other is None:
        return
    for index, (value, twin) in enumerate(zip(call.operands(), other.operands())):
        if isinstance(value, (Tensor, np.ndarray)):
            if not g.known(value):
                _check_constant(g, f"operand {index} of {call.op}", value, twin, traced_twins)
        elif not shape_aware and not _same(value, twin):
            raise RuntimeError(f"ember.onnx.export: argument {index} of {call.op} was "
                               f"{value!r}, and {twin!r} on a second example input: it was "
                               "computed from the input's values (.item(), .tolist()) or from "
                               "a dynamic axis' size, and cannot be stored as a constant")


def _foldable(g, call, other):
    """True when every tensor operand is known at export time (no graph input reaches it) and
    the result is the same in the second trace (a slice ``:T`` of a buffer follows T)."""
    if other is not None and not _equal(call.out._data, other.out._data):
        return False
    for value in call.operands():
        if isinstance(value, (Tensor, np.ndarray)) and g.known(value):
            name = g.traced(value)
            if name is not None and name not in g.constant:
                return False
    return True


def _convert(g, call, other, traced_twins, fold):
    cls = type(call.node)
    if cls is Untracked:
        convert = UNTRACKED.get(call.node.name)
    else:
        convert = CONVERTERS.get(cls) or shape_converter(cls)
    _check_call(g, call, other, traced_twins, getattr(convert, "shape_aware", False))
    if fold and _foldable(g, call, other):  # left unnamed: a constant is made where it is used
        if other is not None:
            traced_twins.difference_update((id(other.out), id(other.out._data)))
        return
    if convert is None:
        raise unsupported(call)
    g.bind(call.out, convert(g, call, other), version=call.versions[-1])


PROBE_EXTRA = (1, 2, 4)  # how much longer each dynamic axis is in the second trace, by turns


def _probe(model, args, kwargs, dynamic):
    """The second trace: on the probe inputs with each dynamic axis one longer, or 2 or 4 longer
    when the model failed there (an axis that must be even, as GLU's and PixelUnshuffle's)."""
    tried = PROBE_EXTRA if any(dynamic.values()) else PROBE_EXTRA[:1]
    for extra in tried:
        probe_args, probe_kwargs = _trace.probe_inputs((args, kwargs), dynamic, extra)
        try:
            others, probe_output = _trace.run(model, probe_args, probe_kwargs)
        except Exception as error:  # the model's own error, whatever its type
            failure = error
            continue
        return _trace.leaves((probe_args, probe_kwargs)), others, probe_output
    raise RuntimeError("ember.onnx.export: the model's forward failed on the second example "
                       "input (the example's values permuted and each dynamic axis longer by "
                       f"{' or '.join(map(str, tried))}), run to see what follows those "
                       f"axes: {failure}") from failure


def _trace_twice(model, args, kwargs, dynamic):
    """The trace on the example inputs, and one on probe inputs (see _trace.probe_inputs)."""
    versions = [t._vc[0] for t in _trace.leaves((args, kwargs))]
    calls, output = _trace.run(model, args, kwargs)
    probe, others, probe_output = _probe(model, args, kwargs, dynamic)
    if [c.op for c in calls] != [c.op for c in others]:
        raise RuntimeError("ember.onnx.export: the model's forward ran different ops on a second "
                           "example input (control flow that depends on the input's values or "
                           "sizes); such a model cannot be exported by tracing")
    traced_twins = {i for t in probe for i in (id(t), id(t._data))}
    for c in others:
        traced_twins.update((id(c.out), id(c.out._data)))
    return calls, (output, probe_output), others, traced_twins, versions, probe


def _name_outputs(g, output, output_names, dynamic_axes, traced_twins):
    """The graph outputs' value infos. An output no traced op made must be the same in the
    second trace (a constant), as any operand (argsort's result was not seen); an axis whose
    size changed in the second trace is named (``{output}_dim_{axis}``) unless dynamic_axes
    names it, so that onnxruntime expects other sizes there."""
    outputs, twins = (_trace.flat_outputs(o) for o in output)
    names = list(output_names or [])
    names += [f"output_{i}" for i in range(len(names), len(outputs))]
    infos = []
    for index, (tensor, twin, name) in enumerate(zip(outputs, twins, names)):
        if not g.known(tensor):
            _check_constant(g, f"output {index} of the model", tensor, twin, traced_twins)
        g.node("Identity", [g.name(tensor)], name)
        axes = {i: f"{name}_dim_{i}" for i, (a, b) in enumerate(zip(tensor.shape, twin.shape))
                if a != b}
        infos.append(_value_info(g.onnx, name, tensor, {**axes, **_axes(dynamic_axes, name)}))
    return infos


def _state(model):
    state = {}
    for name, tensor in list(model.named_parameters()) + list(model.named_buffers()):
        state.setdefault(id(tensor), (name, tensor))
    return state


class TrainingMode(enum.IntEnum):
    """torch.onnx.TrainingMode: the mode the model is exported in (ember: eval only)."""

    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


def _check_options(f, opset, options, training):
    unknown = set(options) - _ACCEPTED
    if unknown:
        raise TypeError(f"export() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    if f is None:
        raise ValueError("ember.onnx.export needs f, the path or binary file to write to (it "
                         "returns no ONNXProgram)")
    if opset < 17:
        raise ValueError(f"ember.onnx.export writes opset 17 or newer, got opset_version={opset}")
    if options.get("dynamic_shapes") is not None:
        raise ValueError("ember.onnx.export does not take dynamic_shapes: name the dynamic axes "
                         "with dynamic_axes={input name: {axis: name}}")
    mode = TrainingMode(options.get("training", TrainingMode.EVAL))
    if mode == TrainingMode.TRAINING or mode == TrainingMode.PRESERVE and training:
        raise ValueError(f"ember.onnx.export exports in eval mode only, got training={mode!r} "
                         f"for a model in {'training' if training else 'eval'} mode")


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None,
           output_names=None, opset_version=None, export_params=True, dynamic_axes=None,
           do_constant_folding=True, **options):
    """Write ``model`` to ``f`` (a path or a binary file) as an ONNX model traced on ``args``."""
    opset = DEFAULT_OPSET if opset_version is None else int(opset_version)
    _check_options(f, opset, options, model.training)
    onnx = _onnx()
    args, kwargs = _split_args(args, kwargs)
    values = _trace.leaves((args, kwargs))  # nested tensors are inputs too, in order
    names = list(input_names or [])
    names += [f"input_{i}" for i in range(len(names), len(values))]
    dynamic = {i: sorted(_axes(dynamic_axes, n)) for i, n in enumerate(names[:len(values)])}
    calls, output, others, traced, versions, probe = _trace_twice(model, args, kwargs, dynamic)
    g = Graph(onnx, opset, _state(model), export_params)
    for i, (value, name) in enumerate(zip(values, names)):
        g.bind(value, name, version=versions[i])
        for axis in dynamic[i]:
            g.add_dynamic_size(value.shape[axis], probe[i].shape[axis], name, axis)
    for call, other in zip(calls, others):
        with call.as_run(), other.as_run():
            _convert(g, call, other, traced, do_constant_folding and export_params)
    outputs = _name_outputs(g, output, output_names, dynamic_axes, traced)
    inputs = [_value_info(onnx, n, v, _axes(dynamic_axes, n)) for v, n in zip(values, names)]
    _write(g, type(model).__name__, inputs + g.state_inputs, outputs, f, verbose)


def _write(g, name, inputs, outputs, f, verbose):
    onnx = g.onnx
    graph = onnx.helper.make_graph(g.nodes, name, inputs, outputs, g.initializers)
    proto = onnx.helper.make_model(graph, producer_name="ember",
                                   opset_imports=[onnx.helper.make_opsetid("", g.opset)])
    onnx.checker.check_model(proto)
    if verbose:
        print(onnx.helper.printable_graph(proto.graph))
    onnx.save_model(proto, f)
