"""dtype objects, their NumPy counterparts, and PyTorch's type-promotion rules."""
import numpy as np


class dtype:
    """A tensor element type (``ember.float32`` ...), mapped onto a NumPy dtype."""

    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize", "_category")

    def __init__(self, name, np_dtype, category):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = category == 2
        self.is_signed = self.np.kind in "if"
        self.itemsize = self.np.itemsize
        self._category = category  # 0 bool, 1 integer, 2 floating

    @property
    def is_complex(self):
        return False

    def __repr__(self):
        return f"ember.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


bool_ = dtype("bool", np.bool_, 0)
uint8 = dtype("uint8", np.uint8, 1)
int8 = dtype("int8", np.int8, 1)
int16 = dtype("int16", np.int16, 1)
int32 = dtype("int32", np.int32, 1)
int64 = dtype("int64", np.int64, 1)
float16 = dtype("float16", np.float16, 2)
float32 = dtype("float32", np.float32, 2)
float64 = dtype("float64", np.float64, 2)

_ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64)
_FROM_NP = {d.np: d for d in _ALL}
_NAMES = {d.name: d for d in _ALL}
_NAMES.update({"half": float16, "float": float32, "double": float64, "long": int64,
               "int": int32, "short": int16, "bool_": bool_})
_state = {"default": float32}


def _by_name(name):
    return _NAMES[name]


def from_numpy_dtype(np_dtype):
    """The ember dtype for a NumPy dtype; TypeError for unsupported kinds."""
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported types "
            "are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
        ) from None


def to_numpy_dtype(d):
    """Accept an ember dtype, a NumPy dtype, a Python type or a torch-style name."""
    if isinstance(d, dtype):
        return d.np
    if d is float:
        return _state["default"].np
    if d is int:
        return np.dtype(np.int64)
    if d is bool:
        return np.dtype(np.bool_)
    if isinstance(d, str) and d in _NAMES:
        return _NAMES[d].np
    return from_numpy_dtype(d).np


def as_dtype(d):
    """Normalise anything dtype-like to an ember dtype."""
    return d if isinstance(d, dtype) else _FROM_NP[to_numpy_dtype(d)]


def get_default_dtype():
    """The floating dtype used for Python floats and new float tensors (float32)."""
    return _state["default"]


def set_default_dtype(d):
    """Set the default floating dtype (only float32 or float64, as torch)."""
    d = as_dtype(d)
    if d not in (float32, float64, float16):
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _state["default"] = d


def _scalar_category(value):
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return 1
    return 2


def promote_types(a, b):
    """Result dtype of two dtypes (torch.promote_types)."""
    a, b = as_dtype(a), as_dtype(b)
    if a is b:
        return a
    if a._category != b._category:
        return a if a._category > b._category else b
    return _FROM_NP[np.promote_types(a.np, b.np)]


def result_np_dtype(a, b):
    """NumPy dtype of ``a op b`` under torch's rules, for arrays (``dim0`` flag) and scalars.

    Each operand is (np_dtype, is_zero_dim) or a Python scalar. Dimensioned tensors beat
    zero-dim tensors, which beat Python scalars, within the same category (bool < int < float).
    """
    return _result_from_operands([a, b])


def _result_from_operands(operands):
    # priority: 2 = dimensioned tensor, 1 = zero-dim tensor, 0 = Python scalar
    best = [None, None, None]  # per priority: highest-category promoted dtype
    for op in operands:
        if isinstance(op, tuple):
            npd, zero_dim = op
            prio = 1 if zero_dim else 2
            cur = best[prio]
            best[prio] = npd if cur is None else _np_promote(cur, npd)
        else:
            cat = _scalar_category(op)
            npd = (np.dtype(np.bool_), np.dtype(np.int64), _state["default"].np)[cat]
            cur = best[0]
            best[0] = npd if cur is None else _np_promote(cur, npd)
    result = None
    for prio in (2, 1, 0):
        d = best[prio]
        if d is None:
            continue
        if result is None:
            result = d
        elif _cat(d) > _cat(result):
            # a lower-priority operand of a higher category lifts the category only
            result = d if prio > 0 else _category_default(d, result)
    return result


def _cat(npd):
    return 0 if npd.kind == "b" else (2 if npd.kind == "f" else 1)


def _category_default(scalar_dtype, current):
    if _cat(scalar_dtype) == 2:
        return _state["default"].np
    return np.dtype(np.int64) if _cat(current) == 0 else current


def _np_promote(a, b):
    if _cat(a) != _cat(b):
        return a if _cat(a) > _cat(b) else b
    return np.promote_types(a, b)
