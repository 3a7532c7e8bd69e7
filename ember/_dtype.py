"""dtype objects, their NumPy counterparts, and PyTorch's type-promotion rules."""
import math
import warnings

import numpy as np


class dtype:
    """A tensor element type (``ember.float32`` ...), mapped onto a NumPy dtype."""

    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize", "_category",
                 "scalar_name", "c_name")

    def __init__(self, name, np_dtype, category, scalar_name, c_name):
        self.name, self.scalar_name, self.c_name = name, scalar_name, c_name
        if np_dtype is not None:
            self.np = np.dtype(np_dtype)
        self.is_floating_point = category == 2
        self.is_signed = category >= 2 or name.startswith("int")
        self.itemsize = np.dtype(np_dtype or np.uint16).itemsize  # bfloat16: 2 bytes
        self._category = category  # 0 bool, 1 integer, 2 floating, 3 complex

    @property
    def is_complex(self):
        return self._category == 3

    def to_real(self):
        """The real counterpart of a complex dtype (complex64 -> float32); others: itself."""
        return _TO_REAL.get(self, self)

    def to_complex(self):
        """The complex counterpart of a floating dtype (float32 -> complex64)."""
        if self._category == 3:
            return self
        if self not in _TO_COMPLEX:
            raise RuntimeError(f"Unsupported dtype {self.scalar_name} for to_complex")
        return _TO_COMPLEX[self]

    def __repr__(self):
        return f"ember.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


class _OptionalDtype(dtype):
    """A dtype whose NumPy type is loaded on first use: bfloat16 from an optional package;
    float16, whose first use switches on the ops' float32 op math (``reduced_loaded``)."""

    __slots__ = ("_loaded",)

    def __init__(self, name, np_dtype, category, scalar_name, c_name):
        super().__init__(name, None, category, scalar_name, c_name)
        self._loaded = None

    @property
    def np(self):
        if self._loaded is None:
            self._loaded = _load_bfloat16() if self.name == "bfloat16" else _load_float16()
        return self._loaded


class _UnsupportedDtype(dtype):
    """A dtype torch names but ember cannot hold (no NumPy type): using it raises."""

    __slots__ = ()

    def __init__(self, name, itemsize, category, scalar_name, c_name):
        super().__init__(name, None, category, scalar_name, c_name)
        self.itemsize = itemsize

    @property
    def np(self):
        raise TypeError(f"ember has no {self.name} ({self.scalar_name}) tensors: NumPy has no "
                        f"such type; use complex64")


# The one table of element types. scalar_name is torch's ScalarType name (error messages, the
# legacy FloatTensor-style names and the Tensor.float()-style methods, lower-cased); c_name is
# the C++ type torch's kernels name in some messages; alias is the extra torch.<alias> name.
#        name        NumPy type  category scalar_name C++ name         alias
_TABLE = (("bool",     np.bool_,   0, "Bool",     "bool",           None),
          ("uint8",    np.uint8,   1, "Byte",     "unsigned char",  None),
          ("int8",     np.int8,    1, "Char",     "signed char",    None),
          ("int16",    np.int16,   1, "Short",    "short int",      "short"),
          ("int32",    np.int32,   1, "Int",      "int",            "int"),
          ("int64",    np.int64,   1, "Long",     "long int",       "long"),
          ("float16",  np.float16, 2, "Half",     "c10::Half",      "half"),
          ("bfloat16", None,       2, "BFloat16", "c10::BFloat16",  None),
          ("float32",  np.float32, 2, "Float",    "float",          "float"),
          ("float64",  np.float64, 2, "Double",   "double",         "double"))

_LAZY = ("float16", "bfloat16")  # their NumPy types are looked up on first use
_ALL = tuple((_OptionalDtype if row[0] in _LAZY else dtype)(*row[:5]) for row in _TABLE)
bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64 = _ALL
ALIASES = {row[5]: d for row, d in zip(_TABLE, _ALL) if row[5]}  # torch.float, torch.long, ...


class _ByNumpy(dict):
    """NumPy dtype -> ember dtype; float16 enters on its first lookup (an array from NumPy, a
    checkpoint's array)."""

    def __missing__(self, key):
        if key == _F16:
            return self[float16.np]  # loads and registers it
        raise KeyError(key)

    def __contains__(self, key):
        return dict.__contains__(self, key) or key == _F16 and self[key] is float16

    def get(self, key, default=None):
        return self[key] if key in self else default


_F16 = np.dtype(np.float16)
_FROM_NP = _ByNumpy({d.np: d for d in _ALL if d.name not in _LAZY})
_NAMES = {d.name: d for d in _ALL}
_NAMES.update(ALIASES)
_NAMES["bool_"] = bool_
# complex dtypes (category 3) stay out of _ALL, the real table the legacy names iterate
complex64 = dtype("complex64", np.complex64, 3, "ComplexFloat", "c10::complex<float>")
complex128 = dtype("complex128", np.complex128, 3, "ComplexDouble", "c10::complex<double>")
complex32 = _UnsupportedDtype("complex32", 4, 3, "ComplexHalf", "c10::complex<c10::Half>")
COMPLEX_ALIASES = {"cfloat": complex64, "cdouble": complex128, "chalf": complex32}
_FROM_NP.update({complex64.np: complex64, complex128.np: complex128})
_NAMES.update(complex64=complex64, complex128=complex128, complex32=complex32,
              **COMPLEX_ALIASES)
# torch's barebones unsigned dtypes (outside _ALL too: no legacy tensor types): created,
# loaded from NumPy, converted, indexed and printed; torch promotes them with no other dtype
uint16 = dtype("uint16", np.uint16, 1, "UInt16", "uint16_t")
uint32 = dtype("uint32", np.uint32, 1, "UInt32", "uint32_t")
uint64 = dtype("uint64", np.uint64, 1, "UInt64", "uint64_t")
_WIDE_UNSIGNED = frozenset(d.np for d in (uint16, uint32, uint64))
_FROM_NP.update({d.np: d for d in (uint16, uint32, uint64)})
_NAMES.update(uint16=uint16, uint32=uint32, uint64=uint64)
_TO_REAL = {complex64: float32, complex128: float64, complex32: float16}
_TO_COMPLEX = {v: k for k, v in _TO_REAL.items()}
_state = {"default": float32}


def _by_name(name):
    """The dtype called ``name`` ('float32', 'bfloat16', 'long', ...) in the table."""
    return _NAMES[name]


def _load_ml_dtypes():
    try:
        import ml_dtypes  # optional: NumPy has no bfloat16 of its own
    except ImportError:
        raise ImportError("ember.bfloat16 needs the ml_dtypes package: "
                          "pip install 'ember[bf16]'") from None
    return ml_dtypes


# set once bfloat16 or float16 is first used: ops then check for such inputs, which compute
# in float32 (autograd/_opmath.py); programs without them skip the check
reduced_loaded = False


def _load_bfloat16():
    global reduced_loaded
    npd = np.dtype(_load_ml_dtypes().bfloat16)
    _FROM_NP[npd] = bfloat16
    reduced_loaded = True
    return npd


def _load_float16():
    global reduced_loaded
    _FROM_NP[_F16] = float16
    reduced_loaded = True
    return _F16


def of_numpy(np_dtype):
    """The table's entry for an ndarray's dtype (its names: scalar_name, c_name)."""
    return _FROM_NP[np.dtype(np_dtype)]


def from_numpy_dtype(np_dtype):
    """The ember dtype for a NumPy dtype; TypeError for unsupported kinds."""
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        if np.dtype(np_dtype).name == "bfloat16":  # an ml_dtypes array before first use
            bfloat16.np  # noqa: B018  (loads and registers it)
            return bfloat16
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).type.__name__}. The only "
            "supported types "
            "are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
            "uint64, uint32, uint16, uint8, and bool."
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
    if d is complex:
        return np.dtype(np.complex128)
    if isinstance(d, str) and d in _NAMES:
        return _NAMES[d].np
    return from_numpy_dtype(d).np


def as_dtype(d):
    """Normalise anything dtype-like to an ember dtype."""
    return d if isinstance(d, dtype) else _FROM_NP[to_numpy_dtype(d)]


def refuse_complex(np_dtype, kernel=None, message=None, error=RuntimeError):
    """torch's refusal of a complex input (ops that order values): with ``kernel``, the
    NotImplementedError naming torch's kernel; else ``error(message)``."""
    if np_dtype.kind != "c":
        return
    if kernel is not None:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_FROM_NP[np_dtype].scalar_name}'")
    raise error(message)


def refuse_kinds(np_dtype, kernel, kinds):
    """torch's NotImplementedError naming ``kernel`` when it has no loop for a dtype of a NumPy
    kind in ``kinds`` (integers "iu", bool "b", complex "c")."""
    if np_dtype.kind in kinds:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_FROM_NP[np_dtype].scalar_name}'")


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
    return 3 if isinstance(value, complex) else 2


def default_complex():
    """The complex dtype of Python complex numbers: the default dtype's complex counterpart."""
    return _TO_COMPLEX[_state["default"]]


def promote_types(a, b):
    """Result dtype of two dtypes (torch.promote_types)."""
    a, b = as_dtype(a), as_dtype(b)
    if a is b:
        return a
    return _FROM_NP[_np_promote(a.np, b.np)]


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
            npd = (np.dtype(np.bool_), np.dtype(np.int64), _state["default"].np)[cat] \
                if cat < 3 else default_complex().np
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
            if _cat(d) == 3 and _cat(result) == 2:  # complex over floating: its precision kept
                result = _FROM_NP[result].to_complex().np if result.kind == "f" else d
            else:
                result = d if prio > 0 else _category_default(d, result)
    return result


def _cat(npd):
    kind = npd.kind
    return 0 if kind == "b" else (2 if kind in "fV" else 3 if kind == "c" else 1)  # "V": bf16


def _category_default(scalar_dtype, current):
    if _cat(scalar_dtype) >= 2:
        return scalar_dtype
    return np.dtype(np.int64) if _cat(current) == 0 else current


def _np_promote(a, b):
    if a == b:  # (the common case: a list of tensors of one dtype)
        return a
    if a in _WIDE_UNSIGNED or b in _WIDE_UNSIGNED:
        other = b if a in _WIDE_UNSIGNED else a
        if other.kind in "fV":  # (a real floating dtype wins, as torch's)
            return other
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {_FROM_NP[a].scalar_name} and "
                           f"{_FROM_NP[b].scalar_name}")
    if a.kind == "c" or b.kind == "c":  # float64 with complex64: complex128; int: complex
        if _cat(a) < 2 or _cat(b) < 2 or a.kind == "V" or b.kind == "V":
            return a if a.kind == "c" else b
        return np.promote_types(a, b)
    if _cat(a) != _cat(b):
        return a if _cat(a) > _cat(b) else b
    if a.kind == "V" or b.kind == "V":  # bfloat16: with float16 both widen to float32
        if a == b:
            return a
        other = b if a.kind == "V" else a
        return other if other.itemsize > 2 else np.dtype(np.float32)
    return np.promote_types(a, b)


class finfo:
    """Machine limits of a floating dtype (torch.finfo): bits, eps, max, min, tiny, ..."""

    def __init__(self, type=None):
        d = as_dtype(type if type is not None else _state["default"]).to_real()
        if not d.is_floating_point:
            raise TypeError(f"torch.finfo() requires a floating point input type. Use "
                            f"torch.iinfo to handle '{d.name}'")
        info = _load_ml_dtypes().finfo(d.np) if d is bfloat16 else np.finfo(d.np)
        self.dtype, self.bits = d.name, d.itemsize * 8
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype (torch.iinfo): bits, min, max."""

    def __init__(self, type):
        d = as_dtype(type)
        if d.is_floating_point:
            raise TypeError(f"torch.iinfo() requires an integer input type. Use torch.finfo to "
                            f"handle '{d.name}'")
        info = np.iinfo(d.np) if d is not bool_ else np.iinfo(np.uint8)
        self.dtype, self.bits = d.name, d.itemsize * 8
        self.min, self.max = int(info.min), int(info.max)

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


_IINFO = {}


def int_info(np_dtype):
    """np.iinfo of an integer dtype, made once (np.iinfo costs ~1 us a call: per element in
    a[i] = number and tensor creation)."""
    info = _IINFO.get(np_dtype)
    if info is None:
        info = _IINFO[np_dtype] = np.iinfo(np_dtype)
    return info


def wrap_int(value, np_dtype):
    """A Python int as torch casts it to a narrower integer dtype: modulo 2**bits (uint8's
    -1 is 255), where NumPy 2 raises OverflowError."""
    info = int_info(np_dtype)
    if info.min <= value <= info.max:
        return value
    value %= 1 << info.bits
    return value - (1 << info.bits) if value > info.max else value


def via_float32(value, dtype):
    """``value`` (an array or a Python/NumPy float) as torch casts it into ``dtype``, where that
    differs from a direct cast: a double bound for float16 is rounded to float32 first (torch
    converts double -> float -> half), so a double just past a float16 halfway point rounds as in
    torch (1 + 2**-11 + 2**-40 becomes 1.0, where a direct cast gives 1.0009765625); the result
    is then already a float16 array. A float64 array bound for uint8 goes through int64, as
    torch's CPU cast does (values past uint8 wrap modulo 256 where NumPy's direct cast gives 0).
    Anything else is returned as it is."""
    if dtype != _FLOAT16:  # (a dtype instance: comparing with the type converts it each time)
        if dtype == _UINT8 and isinstance(value, np.ndarray) and value.dtype == np.float64:
            with np.errstate(invalid="ignore"):  # (NaN and the out-of-range: int64's minimum)
                return np.where(np.abs(value) < 2.0 ** 63, value, -2.0 ** 63).astype(np.int64)
        return value
    if isinstance(value, np.ndarray) and value.dtype == np.float64 or isinstance(value, float):
        with np.errstate(over="ignore"):  # past the range: inf, as torch, without a warning
            return np.asarray(value, np.float32).astype(np.float16)
    return value


_FLOAT16 = np.dtype(np.float16)
_UINT8 = np.dtype(np.uint8)
_TOPS = {}  # a floating dtype's largest finite value (its finfo's max), for scalar_as


def scalar_as(value, dtype, half_inf=False):
    """``value`` as a 0-d array of ``dtype``; torch's error when the dtype can't hold it (an
    int in range is taken modulo 2**bits, as torch: uint8's -1 is 255; a complex number's
    imaginary part must be 0 for a real dtype; a finite float must not pass the dtype's max).
    ``half_inf``: float16 and bfloat16 take an overflowing float as inf (torch's setitem, full,
    fill_ and one-step linspace; masked_fill refuses it)."""
    dtype = np.dtype(dtype)
    if half_inf and (dtype == _FLOAT16 or dtype.kind == "V") and isinstance(
            value, (int, float)) and not isinstance(value, bool):
        with np.errstate(over="ignore"):
            return np.asarray(via_float32(value, dtype), dtype=dtype)
    if isinstance(value, (complex, np.complexfloating)) and dtype.kind not in "cb":
        if value.imag != 0:
            _overflow(dtype)
        value = value.real
    if dtype.kind in "iu":
        info = int_info(dtype)
        exact = isinstance(value, (int, np.integer))
        v = int(value) if exact else float(value)
        # torch: uint8 takes an int in -255..255, a float in 0..255
        lo = info.min if dtype.kind == "i" or not exact else -info.max
        if not lo <= v <= info.max:  # NaN and inf included
            _overflow(dtype)
        if exact:
            value = wrap_int(v, dtype)
    elif dtype.kind in "fcV" and dtype.itemsize < 8 + 8 * (dtype.kind == "c") and isinstance(
            value, (int, float, complex, np.number)) and not isinstance(value, bool):
        top = _TOPS.get(dtype)
        if top is None:
            top = _TOPS[dtype] = float(finfo(from_numpy_dtype(dtype)).max)
        parts = (value.real, value.imag) if isinstance(value, (complex, np.complexfloating)) \
            else (value,)
        if any(math.isfinite(p) and abs(p) > top for p in parts):
            _overflow(dtype)
    return np.asarray(via_float32(value, dtype), dtype=dtype)


def _overflow(np_dtype):
    d = from_numpy_dtype(np_dtype)
    name = (f"{d.name}_t" if np_dtype.kind in "iu" and np_dtype != np.int32 else
            "int" if np_dtype == np.int32 else d.c_name)
    raise RuntimeError(f"value cannot be converted to type {name} without overflow")


def sort_key(x):
    """``x`` as NumPy sorts it correctly: bfloat16 (ml_dtypes) as float32 (exact), whose sort
    puts NaN last; ml_dtypes' own comparisons order NaN arbitrarily (and warn)."""
    return x.astype(np.float32) if x.dtype.kind == "V" else x


def warn_discarding_imaginary(stacklevel=2):
    """torch's warning when complex values are written or cast into a real tensor (the
    imaginary part is dropped): one text for casts, copies, fills and indexed writes."""
    warnings.warn("Casting complex values to real discards the imaginary part", UserWarning,
                  stacklevel=stacklevel + 1)
