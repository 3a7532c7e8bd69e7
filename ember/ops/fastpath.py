"""Fast paths for the hottest ops: one float tensor with a Python scalar, or a unary function.

``Node.apply`` is general (any inputs, kwargs, anomaly mode, numpy error translation). Most ops
in a training step are simpler: ``x * 0.5``, ``x + 1``, ``x.tanh()``. Here those skip the general
machinery and record the same graph (same grad_fn names, edges, saved values and version checks)
with fewer Python calls. Anything unusual (anomaly mode, other dtypes, tensor subclasses with
their own state) falls back to the general path, so the results are the same either way.
"""
import numpy as np
from numpy import ndarray as _ndarray

from .. import _autograd_state as _grad_mode
from .. import _fp
from .._autograd_state import _state as _grad_state
from .._meta import settle
from .._tensor import Tensor
from ..autograd import graph as _graph

_new = object.__new__
_NO_EDGE = (None, 0)
_call_quiet, _call_quiet_here = _fp.call_quiet, _fp.call_quiet_here

# A Python float operand is cast to the tensor's dtype by NumPy (a "weak" scalar, as torch's
# wrapped numbers), but that cast costs more than the arithmetic on a small array. These caches
# hold the already-cast 0-d arrays; the result is bit-identical. Zero is left out (0.0 == -0.0
# as a key, but they differ as factors), and so are values the dtype cannot hold exactly as NumPy
# would cast them (NaN never hits a dict, huge ints overflow).
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)  # (NumPy's one instance of each)
_SCALARS = {_F32: {}, _F64: {}}
_SCALARS_F32 = _SCALARS[_F32]
_CACHE_LIMIT = 1024
_LARGEST = {dt: float(np.finfo(dt).max) for dt in _SCALARS}


def scalar_array(value, dtype):
    """``value`` (a Python float or int) as a cached 0-d array of ``dtype``, or None."""
    cache = _SCALARS.get(dtype)
    if cache is None:
        return None
    s = cache.get(value)
    if s is None:
        if not value or value != value or type(value) is int and not -2**31 < value < 2**31:
            return None
        if float("inf") > abs(value) > _LARGEST[dtype]:  # overflows in the cast: NumPy warns
            return None
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        s = cache[value] = np.array(value, dtype=dtype)
    return s


def _none(*args):
    return None


def scalar_operator(cls, ufunc, general=_none):
    """``op(a, value)``: ``ufunc(a, value)`` recorded as ``cls`` for a tensor ``a`` and a Python
    scalar, else ``general(a, value)`` (by default None: the caller takes its slow path).

    The node saves (None, scalar) as the general path would for ``a`` op scalar: torch keeps the
    scalar (so a second backward without retain_graph fails) and not ``a``. The output keeps
    ``a``'s shape and dtype (the scalar is cast to it), so the node takes them from ``a``'s node.
    """
    return _binary(cls, ufunc, None, general)


# Tensor types the tensor-with-tensor fast path takes as operands: Tensor, and subclasses that
# add no state of their own (nn.parameter registers Parameter here).
OPERAND_TYPES = {Tensor}


def binary_operator(cls, ufunc, saves, general=_none):
    """``a op b``: the fast path with a Python scalar (``scalar_operator``), then with a float
    tensor of a's dtype and shape, else ``general(a, b)``.

    The node is the one ``cls.apply`` records (same class, edges, saved tensors and versions),
    made with fewer calls: ``saves`` says whether ``cls`` saves (a, b) for its backward.
    Broadcasting, promotion, other dtypes and anomaly mode take the general path.
    """
    return _binary(cls, ufunc, saves, general)


def _binary(cls, ufunc, saves, general):
    """The operator of ``scalar_operator`` (``saves`` None: tensor operands take ``general``)
    and of ``binary_operator``, in one frame per op."""
    saves_scalar, tensors, saves_output = cls.saves_scalar, saves is not None, cls.saves_output

    def op(a, b):
        kind = type(b)
        if kind is float or kind is int:
            if type(a) is not Tensor or _graph._anomaly_mode or _graph._dual is not None:
                return general(a, b)
            data = a._data
            dt = data.dtype
            cache = _SCALARS_F32 if dt is _F32 else _SCALARS.get(dt)  # (no dtype hash for float32)
            other = None if cache is None else cache.get(b)
            if other is None:
                other = scalar_array(b, dt)
                if other is None:
                    return general(a, b)
            rb, saved = False, ((None, other) if saves_scalar else ())
        elif tensors and kind in OPERAND_TYPES and type(a) in OPERAND_TYPES \
                and not _graph._anomaly_mode and _graph._dual is None:
            data, other = a._data, b._data
            dt = data.dtype
            if other.dtype is not dt or dt is not _F32 and dt is not _F64 and dt.char not in "fd" \
                    or data.shape != other.shape:  # (float16 computes in float32: general path)
                return general(a, b)
            rb, saved = b._requires_grad, ((a, b) if saves else ())
        else:
            return general(a, b)
        try:  # NaN and inf come silently, as torch's
            data = _call_quiet(ufunc, data, other)
        except RuntimeError:  # another thread is inside _fp's quiet context
            data = _call_quiet_here(ufunc, data, other)
        if type(data) is not _ndarray:  # 0-d: a NumPy scalar; meta: a placeholder
            data = settle(data, (a, b))
        out = _new(Tensor)
        out._data, out._vc, out._output_nr = data, [0], 0
        ra = a._requires_grad
        if not ((ra or rb) and (not _grad_mode.n_disabled or _grad_state._enabled)):
            return _unrecorded(out, b if rb else a)
        if ra:
            fn = a._grad_fn
            ea = (fn, a._output_nr) if fn is not None else (a._accumulator(), 0)
        else:
            ea = _NO_EDGE
        if rb:
            fn = b._grad_fn
            eb = (fn, b._output_nr) if fn is not None else (b._accumulator(), 0)
        else:
            eb = _NO_EDGE
        cls()._record((ea, eb), saved, out, (ea if ra else eb)[0], None, saves_output)
        return out
    return _graph._code_copy(op)  # (its own specialization caches: one node class per site)


def _unrecorded(out, a):
    out._requires_grad, out._grad_fn = False, None
    if _grad_state.inference:
        out._vc = _grad_mode.new_version()
    if a._requires_grad:  # grad mode is off: marked for autograd.explain_grad, as Node.apply
        out.__dict__["_no_grad_origin"] = True
    return out


def unary_function(cls, general=_none):
    """``op(input)``: ``cls.ufunc(input)`` recorded as ``cls`` for a floating tensor, else
    ``general(input)`` (by default None: the caller takes its slow path)."""
    ufunc, saves_input, saves_output = cls.ufunc, cls.saves_input, cls.saves_output

    def op(input):
        if type(input) is not Tensor or _graph._anomaly_mode or _graph._dual is not None:
            return general(input)
        data = input._data
        dt = data.dtype
        if dt is not _F32 and dt is not _F64 and dt.char not in "fd":  # (identity first: cheap;
            # float16 computes in float32, on the general path)
            return general(input)
        try:  # NaN and inf come silently, as torch's
            data = _call_quiet(ufunc, data)
        except RuntimeError:  # another thread is inside _fp's quiet context
            data = _call_quiet_here(ufunc, data)
        if type(data) is not _ndarray:  # 0-d: a NumPy scalar; meta: a placeholder
            data = settle(data, (input,))
        out = _new(Tensor)
        out._data, out._vc, out._output_nr = data, [0], 0
        if not (input._requires_grad and (not _grad_mode.n_disabled or _grad_state._enabled)):
            return _unrecorded(out, input)
        fn = input._grad_fn
        edge = (fn, input._output_nr) if fn is not None else (input._accumulator(), 0)
        cls()._record((edge,), (input,) if saves_input else (), out, edge[0], None, saves_output)
        return out
    return _graph._code_copy(op)  # (its own specialization caches: one node class per site)
