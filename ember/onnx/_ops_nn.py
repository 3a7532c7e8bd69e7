"""ONNX conversions of the neural-network ops: linear, convolution, pooling, normalization,
embedding and attention (keyed by node class, as in ``_ops``)."""
import numpy as np

from ..ops import activation_ops as A
from ..ops import conv as CV
from ..ops import embedding as EM
from ..ops import linear_ops as LO
from ..ops import matrix_ops as M
from ..ops import normalization as N
from ..ops import pooling as PO
from ..ops import recurrent as RE
from ._ops import arg, converts, out_dtype, unsupported


@converts(LO.AddmmBackward0, LO.MmBackward0)
def _linear(g, call, other):
    bias, x, weight = call.inputs
    inputs = [g.name(x), g.name(weight)] + ([g.name(bias)] if bias is not None else [])
    return g.node("Gemm", inputs, transB=1)


@converts(M.AddmmBackward0)
def _addmm(g, call, other):
    c, a, b = call.inputs[:3]
    beta, alpha = arg(call, 3, "beta", 1), arg(call, 4, "alpha", 1)
    return g.node("Gemm", [g.name(a), g.name(b), g.name(c)], alpha=float(alpha), beta=float(beta))


def _ones(g, size, dtype, value=1.0):
    return g.const(np.full((size,), value, dtype=dtype))


def _output_padding(call, geom, n):
    """ConvTranspose's output_padding: the output size past (i-1)s - 2p + d(k-1) + 1."""
    x, weight, out_shape = call.inputs[0], call.inputs[1], arg(call, 5, "out_shape")
    spatial = zip(x.shape[2:], list(geom.stride)[-n:], list(geom.pad)[-n:],
                  list(geom.dilation)[-n:], weight.shape[2:], out_shape[2:])
    return [o - ((i - 1) * s - p[0] - p[1] + d * (k - 1) + 1) for i, s, p, d, k, o in spatial]


def _geometry(geom):
    return geom.stride, geom.dilation, geom.pad, geom.groups


@converts(CV.ConvolutionBackward0)
def _conv(g, call, other):
    """Conv, or ConvTranspose (its output size as output_padding, the same in both traces)."""
    x, weight, bias, geom = call.inputs[:3] + (arg(call, 3, "geom"),)
    kernel = list(weight.shape[2:])
    n = len(kernel)
    pads = [p for p in geom.pad][-n:]
    inputs = [g.name(x), g.name(weight)] + ([g.name(bias)] if bias is not None else [])
    attributes = dict(kernel_shape=kernel, strides=list(geom.stride)[-n:],
                      dilations=list(geom.dilation)[-n:], group=int(geom.groups),
                      pads=[p[0] for p in pads] + [p[1] for p in pads])
    if other is not None and _geometry(geom) != _geometry(arg(other, 3, "geom")):
        raise unsupported(call, "a geometry that changed on the second example input")
    if not arg(call, 4, "transposed", False):
        return g.node("Conv", inputs, **attributes)
    extra = _output_padding(call, geom, n)
    if other is not None and _output_padding(other, arg(other, 3, "geom"), n) != extra:
        raise unsupported(call, "an output size that follows a dynamic axis")
    return g.node("ConvTranspose", inputs, output_padding=extra, **attributes)


_conv.shape_aware = True  # a transposed convolution's out_shape follows the batch


def _ceil_mode(geom):
    """1 when the pool's output size needs ceil_mode (more windows than floor division)."""
    for n, k, s, p, d, o in zip(geom.in_hw, geom.kernel, geom.stride, geom.padding,
                                geom.dilation, geom.out_hw):
        if (n + 2 * p - d * (k - 1) - 1) // s + 1 != o:
            return 1
    return 0


def _pool_attributes(call, geom):
    if call.inputs[0].dim() != 4:
        raise unsupported(call, "an input that is not 4-D (N, C, H, W)")
    return dict(kernel_shape=list(geom.kernel), strides=list(geom.stride),
                pads=list(geom.padding) * 2, ceil_mode=_ceil_mode(geom))


@converts(PO.MaxPool2DWithIndicesBackward0)
def _max_pool(g, call, other):
    geom = arg(call, 1, "geom")
    return g.node("MaxPool", [g.name(call.inputs[0])], dilations=list(geom.dilation),
                  **_pool_attributes(call, geom))


@converts(PO.AvgPool2DBackward0)
def _avg_pool(g, call, other):
    x, geom, divisor = call.inputs[0], arg(call, 1, "geom"), arg(call, 2, "divisor")
    window = int(np.prod(geom.kernel))
    full = bool(np.all(np.asarray(divisor) == window))
    if not any(geom.padding) and not full and not _ceil_mode(geom):
        raise unsupported(call, "divisor_override")
    return g.node("AveragePool", [g.name(x)], count_include_pad=int(full and any(geom.padding)),
                  **_pool_attributes(call, geom))


@converts(PO.AdaptiveAvgPool2DBackward0)
def _adaptive_avg_pool(g, call, other):
    x, out_hw = call.inputs[0], tuple(arg(call, 1, "out_hw"))
    in_hw = tuple(x.shape[-2:])
    if out_hw == (1, 1) and x.dim() == 4:
        return g.node("GlobalAveragePool", [g.name(x)])
    if x.dim() != 4 or any(n % o for n, o in zip(in_hw, out_hw)):
        raise unsupported(call, "an output size that does not divide the input size")
    kernel = [n // o for n, o in zip(in_hw, out_hw)]
    return g.node("AveragePool", [g.name(x)], kernel_shape=kernel, strides=kernel)


@converts(N.NativeLayerNormBackward0)
def _layer_norm(g, call, other):
    x, weight, bias, eps = call.inputs[:4]
    k = call.kwargs.get("normalized_ndim", 1)
    if g.opset < 17:
        raise unsupported(call, f"opset_version {g.opset} (LayerNormalization needs 17)")
    dtype = out_dtype(call)
    scale = g.name(weight) if weight is not None else g.const(np.ones(x.shape[-k:], dtype))
    inputs = [g.name(x), scale] + ([g.name(bias)] if bias is not None else [])
    return g.node("LayerNormalization", inputs, axis=-k, epsilon=float(eps))


@converts(N.NativeGroupNormBackward0)
def _group_norm(g, call, other):
    """(N, C, *) as (N, G, -1) normalized per group (InstanceNormalization with unit scale),
    back to the input's shape, then the per-channel affine."""
    x, weight, bias, eps = call.inputs[:4]
    groups, dtype = call.kwargs.get("num_groups", 1), out_dtype(call)
    name = g.name(x)
    grouped = g.node("Reshape", [name, g.ints([0, groups, -1])])
    normed = g.node("InstanceNormalization", [grouped, _ones(g, groups, dtype),
                                              _ones(g, groups, dtype, 0.0)], epsilon=float(eps))
    out = g.node("Reshape", [normed, g.node("Shape", [name])])
    trailing = list(range(1, x.dim() - 1))  # (C,) -> (C, 1, ...) against (N, C, *)
    if weight is not None:
        out = g.node("Mul", [out, g.axes_op("Unsqueeze", g.name(weight), trailing, 13)])
    if bias is not None:
        out = g.node("Add", [out, g.axes_op("Unsqueeze", g.name(bias), trailing, 13)])
    return out


@converts(N.NativeBatchNormBackward0)
def _batch_norm(g, call, other):
    x, weight, bias, eps = call.inputs[:4]
    options = call.kwargs
    if options.get("training") or options.get("running_mean") is None:
        raise unsupported(call, "batch statistics (training mode or track_running_stats=False)")
    channels, dtype = x.shape[1], out_dtype(call)
    scale = g.name(weight) if weight is not None else _ones(g, channels, dtype)
    shift = g.name(bias) if bias is not None else _ones(g, channels, dtype, 0.0)
    inputs = [g.name(x), scale, shift, g.name(options["running_mean"]),
              g.name(options["running_var"])]
    return g.node("BatchNormalization", inputs, epsilon=float(eps))


@converts(A.GluBackward0)
def _glu(g, call, other):
    """The first half of ``dim`` times the sigmoid of the second."""
    dim, x = call.node.dim, g.name(call.inputs[0])
    if g.opset >= 18:  # two equal halves of whatever size the dim has at run time
        first, second = g.node_outputs("Split", [x], 2, axis=dim, num_outputs=2)
    elif other is not None and other.inputs[0].shape[dim] != call.inputs[0].shape[dim]:
        raise unsupported(call, f"a halved dim that is dynamic at opset_version {g.opset}")
    else:
        half = call.inputs[0].shape[dim] // 2
        first, second = g.node_outputs("Split", [x, g.ints([half, half])], 2, axis=dim)
    return g.node("Mul", [first, g.node("Sigmoid", [second])])


@converts(EM.EmbeddingBackward0)
def _embedding(g, call, other):
    weight = call.inputs[0]
    indices = call.inputs[1] if len(call.inputs) > 1 else call.kwargs["indices"]
    return g.node("Gather", [g.name(weight), g.name(indices)], axis=0)


@converts(EM.ScaledDotProductFlashAttentionForCpuBackward0)
def _attention(g, call, other):
    q, k, v = call.inputs[:3]
    bias, scale, keep = (arg(call, i, n) for i, n in ((3, "bias"), (4, "scale"), (5, "keep")))
    if keep is not None:
        raise unsupported(call, "dropout_p > 0 in training")
    dtype = out_dtype(call)
    perm = list(range(k.dim()))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    scores = g.node("MatMul", [g.name(q), g.node("Transpose", [g.name(k)], perm=perm)])
    scores = g.node("Mul", [scores, g.scalar(float(scale), dtype)])
    if bias is not None:
        scores = g.node("Add", [scores, g.name(bias)])
    return g.node("MatMul", [g.node("Softmax", [scores], axis=-1), g.name(v)])


# torch's gate blocks in ONNX's order: LSTM i,f,g,o -> i,o,f,c; GRU r,z,n -> z,r,h
_GATE_ORDER = {"LSTM": (0, 3, 1, 2), "GRU": (1, 0, 2), "RNN_TANH": (0,), "RNN_RELU": (0,)}


def _recurrent_weights(g, call, hidden):
    """W (a permutation: the traced projection already holds x W_ih^T + b_ih), R and B."""
    proj, w_hh, b_hh = call.inputs[:3]
    order = _GATE_ORDER[arg(call, 5, "mode")]
    rows = np.concatenate([np.arange(k * hidden, (k + 1) * hidden) for k in order])
    dtype = out_dtype(call)
    w = g.const(np.eye(len(rows), dtype=dtype)[rows][None])
    r = g.axes_op("Unsqueeze", g.node("Gather", [g.name(w_hh), g.ints(rows)], axis=0), [0], 13)
    zeros = g.const(np.zeros(len(rows), dtype))
    rb = g.node("Gather", [g.name(b_hh), g.ints(rows)], axis=0) if b_hh is not None else zeros
    b = g.axes_op("Unsqueeze", g.node("Concat", [zeros, rb], axis=0), [0], 13)
    return w, r, b


@converts(*{cls for cls in RE._NODES.values()})
def _recurrence(g, call, other):
    """One layer direction as one ONNX node; the traced LSTM op returns its hidden states and,
    as one more step, its final cell state (ONNX's Y and Y_c)."""
    proj, _, _, h0, c0 = call.inputs[:5]
    mode, reverse = arg(call, 5, "mode"), bool(arg(call, 6, "reverse"))
    hidden = h0.shape[-1]
    w, r, b = _recurrent_weights(g, call, hidden)
    inputs = [g.name(proj), w, r, b, "", g.axes_op("Unsqueeze", g.name(h0), [0], 13)]
    attributes = {"hidden_size": hidden, "direction": "reverse" if reverse else "forward"}
    if mode == "LSTM":
        if tuple(call.out.shape) != (proj.shape[0] + 1,) + tuple(h0.shape):
            raise unsupported(call, f"an output of shape {tuple(call.out.shape)}")
        inputs.append(g.axes_op("Unsqueeze", g.name(c0), [0], 13))
        y, _, c = g.node_outputs("LSTM", inputs, 3, **attributes)
        return g.node("Concat", [g.axes_op("Squeeze", y, [1], 13), c], axis=0)
    if mode == "GRU":
        y = g.node("GRU", inputs, linear_before_reset=1, **attributes)
    else:
        y = g.node("RNN", inputs, activations=["Tanh" if mode == "RNN_TANH" else "Relu"],
                   **attributes)
    return g.axes_op("Squeeze", y, [1], 13)
