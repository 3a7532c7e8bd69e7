"""bfloat16 op math: an op on bfloat16 tensors computes in float32 and rounds its result once.

torch's CPU kernels compute a bfloat16 op in float32 (``opmath_type<BFloat16>`` is float) and
round only the result: ``x * 0.1`` multiplies by the float32 0.1 (not by 0.1 first rounded to
bfloat16), softmax, layer_norm, gelu and the reductions accumulate in float32. NumPy (with
ml_dtypes) would round after every step of a formula instead. ``Node.apply`` hands an op with
bfloat16 inputs to ``widen``: the op's forward sees float32 copies (which share the version
counter of the tensors they copy, so saved values are still checked), and ``narrow`` rounds the
result back to bfloat16 where torch's result dtype is bfloat16. A backward then also computes in
float32 from those saved values, and the engine rounds each gradient to its input's dtype.

Ops that move data rather than compute (views, casts, in-place writes, indexing) run on the
bfloat16 arrays as they are: a view must share the caller's memory, and moving a value never
rounds it.
"""
import weakref

import numpy as np

from .. import _dtype
from .._tensor import Tensor

_F32 = np.dtype(np.float32)
# modules whose ops move data (views, copies, casts, indexing, in-place writes, padding)
_NATIVE_MODULES = frozenset({"ember.ops.shape", "ember.ops.indexing", "ember.ops.api.copies",
                             "ember.ops.inplace", "ember.ops.pad_ops", "ember.ops.embedding",
                             "ember.ops.sorting", "ember.autograd.function"})
# (a node class with ``bf16_computes = True`` computes though its module moves data)
# ops elsewhere that return a view of their input, or step on bfloat16's own grid (nextafter)
_NATIVE_NODES = frozenset({"DiagonalBackward0", "NextafterBackward0"})
_computes = {}  # node class -> whether it computes (widened) or moves data (native)
# torch casts a scalar operand (a Python number, a 0-d tensor of another dtype) to bfloat16
# before these ops compute; mul and div instead read their second operand as float32
_SCALAR_ROUNDED = frozenset({"AddBackward0", "SubBackward0", "RsubBackward0", "RsubBackward1",
                             "PowBackward1", "PowBackward2", "RemainderBackward0",
                             "FmodBackward0",
                             "RemainderBackward1", "MaximumBackward0", "MinimumBackward0"})
_SCALAR_AS_FLOAT32 = frozenset({"MulBackward0", "DivBackward0", "DivBackward2"})
# normalizations whose result has the input's dtype also with float32 weights (torch's mixed type)
_INPUT_DTYPE = frozenset({"NativeLayerNormBackward0", "NativeGroupNormBackward0",
                          "NativeBatchNormBackward0"})


def _is_bf16(x):
    return type(x) is not bool and isinstance(x, Tensor) and x._data.dtype.kind == "V"


def widen(cls, inputs):
    """The inputs ``cls.forward`` runs on: float32 copies of the bfloat16 tensors (``inputs``
    itself when none is bfloat16 or the op only moves data)."""
    for t in inputs:
        if _is_bf16(t):
            break
    else:
        return inputs
    computes = _computes.get(cls)
    if computes is None:
        computes = _computes[cls] = getattr(cls, "bf16_computes", None) or (
            cls.__module__ not in _NATIVE_MODULES and cls.__name__ not in _NATIVE_NODES)
    if not computes:
        return inputs
    widened = [_float32_copy(t, source=True) if _is_bf16(t) else t for t in inputs]
    name = cls.__name__
    if name in _SCALAR_ROUNDED or name in _SCALAR_AS_FLOAT32 and len(inputs) > 1:
        last = len(inputs) if name in _SCALAR_ROUNDED else 1
        if _result_is_bf16(inputs):
            for i in range(last):
                widened[i] = _rounded_scalar(inputs[i], widened[i])
    return tuple(widened)


def rounded_kwargs(cls, kwargs):
    """``alpha`` of add/sub rounded to bfloat16, as torch casts it before computing."""
    alpha = kwargs.get("alpha", 1)
    if cls.__name__ in _SCALAR_ROUNDED and type(alpha) is float:
        kwargs = dict(kwargs, alpha=_round(alpha))
    return kwargs


def _round(value):
    return float(np.asarray(value, _F32).astype(_bf16_dtype()).astype(_F32))


def _bf16_dtype():
    return _dtype.bfloat16.np  # loaded: this module runs only once bfloat16 is in use


def _rounded_scalar(operand, widened):
    """A scalar operand as torch feeds it to a bfloat16 op: rounded to bfloat16 first."""
    if type(operand) is float or type(operand) is int:
        return _round(operand)
    if isinstance(operand, Tensor) and not operand._data.ndim and \
            operand._data.dtype.kind == "f":
        return _float32_copy(operand, np.asarray(_round(operand._data), _F32))
    return widened


def _float32_copy(t, data=None, source=False):
    """``t`` as float32: the same version counter and autograd identity, for saved values;
    with ``source``, the copy remembers the bfloat16 dtype it was widened from (``source``)."""
    data = t._data.astype(_F32) if data is None else data
    copy = Tensor._make(data, t._requires_grad, t._grad_fn)
    copy._vc = t._vc
    if source:
        copy.__dict__["_widened_from"] = t._data  # its dtype, and its layout for kernels
    if t._requires_grad and t._grad_fn is None:  # a leaf: create_graph reaches its own sink
        sink = copy.__dict__["_sink"] = t._accumulator()
        copy._acc = weakref.ref(sink)
    if t._output_nr:
        copy._output_nr = t._output_nr
    return copy


def source(t):
    """The bfloat16 NumPy dtype an op's float32 input was widened from, else None: for the few
    kernels where torch rounds an intermediate to bfloat16 (log_softmax)."""
    array = source_array(t)
    return None if array is None else array.dtype


def source_array(t):
    """The bfloat16 array an op's float32 input was widened from, else None: its strides say
    which elements torch's vectorized kernels reach."""
    return t.__dict__.get("_widened_from") if isinstance(t, Tensor) else None


def narrow(cls, data, inputs, kwargs):
    """``data`` (computed in float32) rounded to bfloat16 where torch's result is bfloat16: the
    op was not asked for a dtype and its floating inputs of the highest rank are all bfloat16
    (a 0-d float32 tensor, like a Python scalar, does not widen a bfloat16 tensor's result)."""
    if data.dtype != _F32 or kwargs.get("dtype") is not None:
        return data
    if not _result_is_bf16(inputs[:1] if cls.__name__ in _INPUT_DTYPE else inputs):
        return data
    return data.astype(_bf16_dtype())


def _result_is_bf16(inputs):
    floating = [t._data for t in inputs if isinstance(t, Tensor) and t._data.dtype.kind in "fV"]
    ranked = [x for x in floating if x.ndim] or floating
    for x in ranked:
        if x.dtype.kind != "V":
            return False
    return True


def bf16_grad(grad):
    """Whether a backward receives a bfloat16 gradient (one array, or one slot per output)."""
    if type(grad) is list:
        for g in grad:
            if g is not None and g.dtype.kind == "V":
                return True
        return False
    return grad.dtype.kind == "V"


def backward(node, m, grad):
    """``node.backward`` in float32 for bfloat16 gradients and saved values, as torch's backward
    kernels compute; the engine rounds each result to its input's dtype."""
    if type(node).__name__ in STEPWISE and type(grad) is not list:  # inputs saved: exact
        saved = [x.astype(_bf16_dtype()) if type(x) is np.ndarray and x.dtype == _F32 else x
                 for x in node._unpack(False)]
        return node.backward(m, grad, *saved)
    if type(grad) is list:
        grad = [_widened_array(g) for g in grad]
    else:
        grad = _widened_array(grad)
    saved = [_widened_array(x) for x in node._unpack(False)]
    steps = FORMULAS.get(type(node).__name__)  # torch's formula, rounded at each op
    if steps is not None and type(grad) is not list:
        grads = steps(node, grad, *saved)
        if grads is not None:  # None: this case rounds as the float formula computes
            return grads
    grads = node.backward(m, grad, *saved)
    if type(node).__name__ in MASKED:
        return _zeros_positive(grads, grad)
    return grads


# node name -> torch's bfloat16 backward formula, rounded where its ops round (the ops layer's
# _bf16_grad fills it): fn(node, grad, *saved float32 arrays) -> gradients, or None to compute
# as the float formula does
FORMULAS = {}
# backward formulas g * mask where torch writes where(mask, g, 0): +0.0 where the mask is off
MASKED = frozenset({"ReluBackward0", "HardtanhBackward0", "ThresholdBackward0",
                    "HardshrinkBackward0", "SoftshrinkBackward0", "HardsigmoidBackward0",
                    "MaximumBackward0", "MinimumBackward0", "FmaxBackward0", "FminBackward0",
                    "ClampBackward0", "ClampBackward1"})


def _zeros_positive(grads, grad):
    """Each gradient with +0.0 where a nonzero ``grad`` was masked off (g * 0 gave -0.0)."""
    single = type(grads) is not tuple
    fixed = []
    for g in (grads,) if single else grads:
        if type(g) is np.ndarray and g.shape == np.shape(grad):
            g = np.where((g == 0) & (grad != 0), _F32.type(0), g)
        fixed.append(g)
    return fixed[0] if single else tuple(fixed)


# backward formulas torch composes from bfloat16 tensor ops (derivatives.yaml: sin's is
# grad * self.cos()): each step rounds, so these run on the bfloat16 arrays themselves
STEPWISE = frozenset({"SinBackward0", "CosBackward0", "SinhBackward0", "CoshBackward0",
                      "CumprodBackward0"})


def _widened_array(x):
    if type(x) is np.ndarray and x.dtype.kind == "V":
        return x.astype(_F32)
    return x
