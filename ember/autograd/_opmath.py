"""Reduced-precision op math: an op on bfloat16 or float16 tensors computes in float32 and
rounds its result once.

torch's CPU kernels compute a bfloat16 or float16 op in float32 (``opmath_type<BFloat16>`` and
``opmath_type<Half>`` are float) and round only the result: ``x * 0.1`` multiplies by the
float32 0.1 (not by 0.1 first rounded to the low dtype), softmax, layer_norm, gelu and the
reductions accumulate in float32. NumPy would round after every step of a formula instead.
``Node.apply`` hands an op with such inputs to ``widen``: the op's forward sees float32 copies
(which share the version counter of the tensors they copy, so saved values are still checked),
and ``narrow`` rounds the result back to the low dtype where torch's result has it. A backward
then also computes in float32 from those saved values, and the engine rounds each gradient to
its input's dtype.

Ops that move data rather than compute (views, casts, in-place writes, indexing) run on the
low-precision arrays as they are: a view must share the caller's memory, and moving a value never
rounds it. The kernels that reproduce torch's bfloat16 steps beyond that (``source``) stay keyed
on bfloat16.
"""
import contextvars
import weakref

import numpy as np

from .._tensor import Tensor

_F32 = np.dtype(np.float32)
# modules whose ops move data (views, copies, casts, indexing, in-place writes, padding)
_NATIVE_MODULES = frozenset({"ember.ops.shape", "ember.ops.indexing", "ember.ops.api.copies",
                             "ember.ops.inplace", "ember.ops.pad_ops", "ember.ops.embedding",
                             "ember.ops.sorting", "ember.autograd.function"})
# (a node class with ``reduced_computes = True`` computes though its module moves data)
# ops elsewhere that return a view of their input, step on the low dtype's own grid (nextafter),
# fill in a value (checked against the low dtype's range, as torch) or add in the low dtype's
# arithmetic, each product and sum rounded (torch's index_add kernel)
_NATIVE_NODES = frozenset({"DiagonalBackward0", "NextafterBackward0", "MaskedFillBackward0",
                           "MaskedFillBackward1", "IndexFillBackward0", "IndexFillBackward1",
                           "IndexAddBackward0"})
_computes = {}  # node class -> whether it computes (widened) or moves data (native)
# torch casts a scalar operand (a Python number, a 0-d tensor of another dtype) to the tensor's
# bfloat16 or float16 before these ops compute; mul and div read their second operand as float32
# (add/sub's alpha and pow's scalar base: ``fed_scalar`` in the node, whose backward reads them
# as given)
_SCALAR_ROUNDED = frozenset({"AddBackward0", "SubBackward0", "RsubBackward0", "RsubBackward1",
                             "PowBackward1", "RemainderBackward0",
                             "FmodBackward0",
                             "RemainderBackward1", "MaximumBackward0", "MinimumBackward0"})
_SCALAR_AS_FLOAT32 = frozenset({"MulBackward0", "DivBackward0", "DivBackward2"})
# normalizations whose result has the input's dtype also with float32 weights (torch's mixed type)
_INPUT_DTYPE = frozenset({"NativeLayerNormBackward0", "NativeGroupNormBackward0",
                          "NativeBatchNormBackward0"})


_REDUCED = "eE"  # the NumPy type characters of float16 and (ml_dtypes') bfloat16


def _is_reduced(x):
    return type(x) is not bool and isinstance(x, Tensor) and x._data.dtype.char in _REDUCED


def widen(cls, inputs):
    """The inputs ``cls.forward`` runs on: float32 copies of the bfloat16 and float16 tensors
    (``inputs`` itself when there are none or the op only moves data)."""
    for first in inputs:
        if _is_reduced(first):
            break
    else:
        return inputs
    computes = _computes.get(cls)
    if computes is None:
        computes = _computes[cls] = getattr(cls, "reduced_computes", None) or (
            cls.__module__ not in _NATIVE_MODULES and cls.__name__ not in _NATIVE_NODES)
    if not computes:
        return inputs
    widened = [_float32_copy(t, source=True) if _is_reduced(t) else t for t in inputs]
    _computing.set(first._data.dtype)
    name = cls.__name__
    if name in _SCALAR_ROUNDED or name in _SCALAR_AS_FLOAT32 and len(inputs) > 1:
        last = len(inputs) if name in _SCALAR_ROUNDED else 1
        low = _result_dtype(inputs)
        if low is not None:
            for i in range(last):
                widened[i] = _rounded_scalar(inputs[i], widened[i], low)
    return tuple(widened)


def fed_scalar(value, *inputs):
    """A Python number as torch feeds it to an op computing on ``inputs``: rounded to the op's
    bfloat16 or float16 result dtype (add/sub's alpha, pow's scalar base), else as given."""
    if type(value) is float or type(value) is int:
        low = result_source(*inputs)
        if low is not None:
            return _round(value, low)
    return value


def _round(value, low):
    return float(np.asarray(value, _F32).astype(low).astype(_F32))


# the low dtype (bfloat16 or float16) of the op computing now: set by ``widen`` and ``backward``
# before the op runs, read by the kernels that round where torch's do (a context variable: each
# thread has its own, and the parallel parts of an op run in a copy of its caller's context)
_computing = contextvars.ContextVar("low_dtype")


def low_dtype():
    """The NumPy dtype the reduced-precision op computing now rounds to."""
    return _computing.get()


def _rounded_scalar(operand, widened, low):
    """A scalar operand as torch feeds it to an op of dtype ``low``: rounded to it first."""
    if type(operand) is float or type(operand) is int:
        return _round(operand, low)
    if isinstance(operand, Tensor) and not operand._data.ndim and \
            operand._data.dtype.kind == "f" and operand._data.dtype.char not in _REDUCED:
        return _float32_copy(operand, np.asarray(_round(operand._data, low), _F32))
    return widened  # (a low-dtype 0-d tensor holds its value already: widened, its source kept)


def _float32_copy(t, data=None, source=False):
    """``t`` as float32: the same version counter and autograd identity, for saved values;
    with ``source``, the copy remembers the array it was widened from (``source_array``)."""
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
    """The bfloat16 or float16 NumPy dtype an op's float32 input was widened from, else None:
    for the kernels where torch rounds an intermediate to it (log_softmax)."""
    array = source_array(t)
    return None if array is None else array.dtype


def given_dtype(t):
    """The NumPy dtype ``t`` was given to the op with: its bfloat16/float16 dtype where it was
    widened to float32 for computing (dtype checks compare these, as torch does)."""
    array = t.__dict__.get("_widened_from") if isinstance(t, Tensor) else None
    return t._data.dtype if array is None else array.dtype


def source_array(t):
    """The bfloat16 or float16 array an op's float32 input was widened from, else None: its
    strides say which elements torch's vectorized kernels reach."""
    return t.__dict__.get("_widened_from") if isinstance(t, Tensor) else None


def narrow(cls, data, inputs, kwargs):
    """``data`` (computed in float32) rounded to the low dtype where torch's result has it: the
    op was not asked for a dtype and its floating inputs of the highest rank all have that one
    low dtype (a 0-d float32 tensor, like a Python scalar, does not widen the result)."""
    if data.dtype != _F32 or kwargs.get("dtype") is not None:
        return data
    low = _result_dtype(inputs[:1] if cls.__name__ in _INPUT_DTYPE else inputs)
    if low is None:
        return data
    with np.errstate(over="ignore"):  # past float16's range: inf, as torch, without NumPy's
        return data.astype(low)  # warning


def result_source(*inputs):
    """The bfloat16 or float16 dtype ``narrow`` rounds an op's result to, from the op's
    (widened) inputs, else None: for kernels that round in between only when it does."""
    return _result_dtype([t if source_array(t) is None else source_array(t) for t in inputs])


def _result_dtype(inputs):
    """The one bfloat16 or float16 dtype of the floating inputs (tensors or arrays) of the
    highest rank, else None (a float32 one, or both low dtypes, which promote to float32)."""
    arrays = [t._data if isinstance(t, Tensor) else t for t in inputs]
    floating = [x for x in arrays if isinstance(x, np.ndarray) and x.dtype.kind in "fV"]
    ranked = [x for x in floating if x.ndim] or floating
    low = None
    for x in ranked:
        if x.dtype.char not in _REDUCED or low is not None and x.dtype != low:
            return None
        low = x.dtype
    return low


def reduced_grad(grad):
    """Whether a backward receives a bfloat16 or float16 gradient (one array, or one slot per
    output)."""
    if type(grad) is list:
        for g in grad:
            if g is not None and g.dtype.char in _REDUCED:
                return True
        return False
    return grad.dtype.char in _REDUCED


def backward(node, m, grad):
    """``node.backward`` in float32 for bfloat16 or float16 gradients and saved values, as
    torch's backward kernels compute; the engine rounds each result to its input's dtype."""
    if type(node).__name__ in STEPWISE and type(grad) is not list:  # inputs saved: exact
        saved = [x.astype(grad.dtype) if type(x) is np.ndarray and x.dtype == _F32 else x
                 for x in node._unpack(False)]
        return node.backward(m, grad, *saved)
    if type(grad) is list:
        _computing.set(next(g.dtype for g in grad if g is not None and g.dtype.char in _REDUCED))
        grad = [_widened_array(g) for g in grad]
    else:
        _computing.set(grad.dtype)
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


# node name -> torch's backward formula on bfloat16 or float16, rounded (to ``low_dtype()``)
# where its ops round (the ops layer's _bf16_grad fills it): fn(node, grad, *saved float32
# arrays) -> gradients, or None to compute as the float formula does
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


# backward formulas torch composes from tensor ops (derivatives.yaml: sin's is
# grad * self.cos()): each step rounds, so these run on the bfloat16 or float16 arrays themselves
STEPWISE = frozenset({"SinBackward0", "CosBackward0", "SinhBackward0", "CoshBackward0",
                      "CumprodBackward0"})


def _widened_array(x):
    if type(x) is np.ndarray and x.dtype.char in _REDUCED:
        return x.astype(_F32)
    return x
