"""ONNX export by tracing leaf-module calls (see ember.onnx)."""
from ..autograd import no_grad


def _onnx():
    try:
        import onnx  # optional: builds and writes the ModelProto
    except ImportError:
        raise ImportError("ember.onnx.export needs the onnx package: "
                          "pip install 'ember[onnx]'") from None
    return onnx


def _linear(h, m, x, y, name):
    inputs = [x, h.weight(m.weight, name + ".weight")]
    if m.bias is not None:
        inputs.append(h.weight(m.bias, name + ".bias"))
    h.node("Gemm", inputs, y, transB=1)


def _conv(h, m, x, y, name):
    if isinstance(m.padding, str):
        raise RuntimeError(f"ember.onnx.export: {name} (Conv2d) uses padding='{m.padding}'; "
                           "only numeric padding is supported")
    inputs = [x, h.weight(m.weight, name + ".weight")]
    if m.bias is not None:
        inputs.append(h.weight(m.bias, name + ".bias"))
    pads = list(_pair(m.padding)) * 2
    h.node("Conv", inputs, y, kernel_shape=list(m.kernel_size), strides=list(_pair(m.stride)),
           pads=pads, dilations=list(_pair(m.dilation)), group=m.groups)


def _pool(kind):
    def convert(h, m, x, y, name):
        kernel = list(_pair(m.kernel_size))
        stride = list(_pair(m.stride if m.stride is not None else m.kernel_size))
        extra = {"dilations": list(_pair(m.dilation))} if kind == "MaxPool" else {}
        h.node(kind, [x], y, kernel_shape=kernel, strides=stride,
               pads=list(_pair(m.padding)) * 2, ceil_mode=int(m.ceil_mode), **extra)
    return convert


def _flatten(h, m, x, y, name):
    if m.start_dim != 1 or m.end_dim != -1:
        raise RuntimeError(f"ember.onnx.export: {name} (Flatten) must flatten from dim 1 to -1")
    h.node("Flatten", [x], y, axis=1)


def _simple(op):
    return lambda h, m, x, y, name: h.node(op, [x], y)


def _softmax(op):
    return lambda h, m, x, y, name: h.node(op, [x], y, axis=m.dim if m.dim is not None else -1)


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


CONVERTERS = {"Linear": _linear, "Conv2d": _conv, "MaxPool2d": _pool("MaxPool"),
              "AvgPool2d": _pool("AveragePool"), "Flatten": _flatten, "ReLU": _simple("Relu"),
              "Sigmoid": _simple("Sigmoid"), "Tanh": _simple("Tanh"),
              "Softmax": _softmax("Softmax"), "LogSoftmax": _softmax("LogSoftmax"),
              "Identity": _simple("Identity"), "Dropout": _simple("Identity")}


class _Graph:
    """The nodes and initializers being built, and the traced values' names."""

    def __init__(self, onnx):
        self.onnx, self.nodes, self.initializers, self.names = onnx, [], [], {}

    def node(self, op, inputs, output, **attributes):
        self.nodes.append(self.onnx.helper.make_node(op, inputs, [output], **attributes))

    def weight(self, tensor, name):
        array = tensor.detach().numpy()
        self.initializers.append(self.onnx.numpy_helper.from_array(array, name))
        return name


def _trace(model, args):
    """Run ``model`` on ``args`` recording (name, module, input, output) for each leaf call."""
    calls, handles = [], []
    for name, module in model.named_modules():
        if next(iter(module.children()), None) is not None:
            continue
        if type(module).__name__ not in CONVERTERS:
            raise RuntimeError(f"ember.onnx.export: unsupported module {name or 'model'} "
                               f"({type(module).__name__}); supported: "
                               f"{', '.join(sorted(CONVERTERS))}")
        hook = (lambda n: lambda m, inp, out: calls.append((n, m, inp, out)))(name)
        handles.append(module.register_forward_hook(hook))
    was_training = model.training
    model.train(False)  # exported as in eval mode (dropout off), as torch's default
    try:
        with no_grad():
            output = model(*args)
    finally:
        model.train(was_training)
        for handle in handles:
            handle.remove()
    return calls, output


def _value_info(onnx, name, tensor, axes):
    shape = [axes.get(i, size) for i, size in enumerate(tensor.shape)]
    elem = onnx.helper.np_dtype_to_tensor_dtype(tensor.detach().numpy().dtype)
    return onnx.helper.make_tensor_value_info(name, elem, shape)


def _dynamic(dynamic_axes, name):
    axes = (dynamic_axes or {}).get(name, {})
    if isinstance(axes, (list, tuple)):
        return {i: f"{name}_dynamic_axes_{i}" for i in axes}
    return dict(axes)


def export(model, args, f, export_params=True, verbose=False, training=None, input_names=None,
           output_names=None, opset_version=None, dynamic_axes=None, **kwargs):
    """Write ``model`` as an ONNX model to ``f`` (a path or binary file), traced on ``args``."""
    onnx = _onnx()
    args = args if isinstance(args, tuple) else (args,)
    calls, output = _trace(model, args)
    graph = _Graph(onnx)
    input_names = list(input_names or [f"input.{i}" for i in range(len(args))])
    for arg, name in zip(args, input_names):
        graph.names[id(arg)] = name
    for index, (name, module, inputs, out) in enumerate(calls):
        source = graph.names.get(id(inputs[0])) if len(inputs) == 1 else None
        if source is None:
            raise RuntimeError(f"ember.onnx.export: the input of {name} "
                               f"({type(module).__name__}) was computed outside the supported "
                               "modules (a functional op or tensor method in forward); only "
                               "chains of supported module calls can be exported")
        graph.names[id(out)] = f"/{name}/output_{index}"
        CONVERTERS[type(module).__name__](graph, module, source, graph.names[id(out)], name)
    output_names = list(output_names or ["output"])
    if id(output) not in graph.names:
        raise RuntimeError("ember.onnx.export: the model's output is not the output of a "
                           "supported module call")
    graph.node("Identity", [graph.names[id(output)]], output_names[0])
    proto = onnx.helper.make_graph(
        graph.nodes, type(model).__name__,
        [_value_info(onnx, n, a, _dynamic(dynamic_axes, n)) for a, n in zip(args, input_names)],
        [_value_info(onnx, output_names[0], output, _dynamic(dynamic_axes, output_names[0]))],
        graph.initializers)
    opset = opset_version or 17
    model_proto = onnx.helper.make_model(
        proto, producer_name="ember", opset_imports=[onnx.helper.make_opsetid("", opset)])
    onnx.checker.check_model(model_proto)
    onnx.save_model(model_proto, f)
