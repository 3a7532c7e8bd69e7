"""The ONNX graph being built from a trace: value names, initializers, constants and nodes."""
import itertools

import numpy as np

from .._tensor import Tensor

INT64_MAX = np.iinfo(np.int64).max


class Graph:
    """Nodes and initializers of the graph, and the name of every traced value.

    Values are looked up by the id of the ember tensor (or of its array, which some ops take as
    a keyword argument); ``keep`` holds them so that no id is reused while the graph is built.
    """

    def __init__(self, onnx, opset, state, export_params):
        self.onnx, self.opset, self.export_params = onnx, opset, export_params
        self.nodes, self.initializers, self.state_inputs = [], [], []
        self.names, self.keep, self.constant = {}, [], set()
        self.state = state  # id -> (name, tensor) of the model's parameters and buffers
        self.count = itertools.count()
        self.scalars = {}
        self.versions = {}  # id of a named tensor -> its version when it got the name
        self.dynamic = {}  # (example size, probe size) -> (input, axis), None if ambiguous
        self.second = {}  # name of an op's values -> makes the name of its indices (max, sort)

    def fresh(self, op):
        return f"/{op}_{next(self.count)}"

    def bind(self, value, name, constant=False, version=None):
        """Give the tensor ``value`` (and its array) the graph name ``name``."""
        self.names[id(value)] = name
        self.keep.append(value)
        if isinstance(value, Tensor):
            self.versions[id(value)] = value._vc[0] if version is None else version
            self.names[id(value._data)] = name
            self.keep.append(value._data)
        if constant:
            self.constant.add(name)
        return name

    def traced(self, value):
        """The name of a traced value, else None. A tensor is found by its array first: an
        in-place op runs on a wrapper of the array and writes into it, and ``.data`` shares it."""
        if isinstance(value, Tensor):
            found = self.names.get(id(value._data))
            if found is not None:
                return found
        return self.names.get(id(value))

    def known(self, value):
        return self.traced(value) is not None or id(value) in self.state

    def name(self, value):
        """The name of a tensor or array: traced, a parameter or buffer, or a new constant."""
        found = self.traced(value)
        if found is not None:
            return found
        entry = self.state.get(id(value))
        if entry is not None:
            return self._state_value(value, entry[0])
        array = value.detach().numpy() if isinstance(value, Tensor) else np.asarray(value)
        return self.bind(value, self.const(array), constant=True)

    def _state_value(self, tensor, name):
        array = tensor.detach().numpy()
        if self.export_params:
            self.initializers.append(self.onnx.numpy_helper.from_array(array, name))
            self.constant.add(name)
        else:
            self.state_inputs.append(self.onnx.helper.make_tensor_value_info(
                name, self.onnx.helper.np_dtype_to_tensor_dtype(array.dtype), array.shape))
        return self.bind(tensor, name)

    def const(self, array, name=None):
        """A new initializer holding ``array``; returns its name."""
        name = name or f"onnx::Const_{next(self.count)}"
        array = np.array(array, copy=not np.asarray(array).flags.c_contiguous)  # keeps 0-d
        self.initializers.append(self.onnx.numpy_helper.from_array(array, name))
        self.constant.add(name)
        return name

    def ints(self, values):
        """A 1-D int64 constant (shapes, axes, indices)."""
        return self.const(np.asarray(values, dtype=np.int64).reshape(-1))

    def scalar(self, value, dtype):
        """A 0-d constant of ``dtype`` holding the Python number ``value`` (shared)."""
        key = (repr(value), np.dtype(dtype).str)
        if key not in self.scalars:
            self.scalars[key] = self.const(np.asarray(value, dtype=dtype))
        return self.scalars[key]

    def operand(self, value, dtype):
        """A tensor operand's name (cast to ``dtype`` if needed), or a scalar as a constant."""
        if isinstance(value, Tensor):
            if value._data.dtype != np.dtype(dtype):
                return self.node("Cast", [self.name(value)], to=self.elem(dtype))
            return self.name(value)
        if isinstance(value, np.ndarray):
            return self.name(value)
        return self.scalar(value, dtype)

    def elem(self, dtype):
        return self.onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))

    def node(self, op, inputs, output=None, **attributes):
        """Append an ONNX node; return its output's name (a fresh one unless given)."""
        output = output or self.fresh(op)
        self.nodes.append(self.onnx.helper.make_node(op, list(inputs), [output], **attributes))
        return output

    def add_dynamic_size(self, size, probe_size, input_name, axis):
        """Say that graph input ``input_name`` has a dynamic ``axis`` (its sizes in the traces)."""
        key = (size, probe_size)
        self.dynamic[key] = (input_name, axis) if key not in self.dynamic else None

    def dynamic_size(self, size, probe_size):
        """A 1-D int64 value holding at run time the size of the dynamic axis whose sizes in
        the two traces were these, or None when no (or more than one) axis had them."""
        found = self.dynamic.get((size, probe_size))
        if found is None:
            return None
        shape = self.node("Shape", [found[0]])
        return self.node("Gather", [shape, self.ints([found[1]])], axis=0)

    def node_outputs(self, op, inputs, count, **attributes):
        """Append an ONNX node with ``count`` outputs; return their names."""
        outputs = [self.fresh(op) for _ in range(count)]
        self.nodes.append(self.onnx.helper.make_node(op, list(inputs), outputs, **attributes))
        return outputs

    def axes_op(self, op, data, axes, since, **attributes):
        """A node whose ``axes`` is an input from opset ``since`` on, an attribute before."""
        if self.opset >= since:
            return self.node(op, [data, self.ints(axes)], **attributes)
        return self.node(op, [data], axes=list(axes), **attributes)
