"""Tensor creation: tensor, as_tensor, from_numpy, zeros/ones/full, ranges and random tensors."""
import math
import numbers
import warnings

import numpy as np

from . import _dtype, _fp, _memory_format, _meta, _random_args
from ._device import _default as _default_device
from ._device import on_meta
from ._tensor import Tensor
from ._warn import warn_once
from .random import _gen


def _np_dtype(dtype, default=None):
    if dtype is None:
        return default if default is not None else _dtype.get_default_dtype().np
    return _dtype.to_numpy_dtype(dtype)


_PY_NUMBERS = {float, int, bool, complex}


def _as_array(data):
    try:
        return np.asarray(data)
    except ValueError:  # ragged nested lists: NumPy's "inhomogeneous shape", in torch's words
        if isinstance(data, (list, tuple)):
            _check_nesting(data)
        raise


def _check_nesting(data):
    """torch's error for nested sequences that are not a rectangle: the shape read down the
    first elements, then every sequence checked against it."""
    shape, first = [], data
    while isinstance(first, (list, tuple)):
        shape.append(len(first))
        first = first[0] if first else None

    def walk(seq, dim):
        if dim == len(shape):
            if isinstance(seq, (list, tuple)):
                raise TypeError(f"'{type(seq).__name__}' object cannot be interpreted as an "
                                "integer")
            return
        if not isinstance(seq, (list, tuple)):
            raise TypeError("not a sequence")
        if len(seq) != shape[dim]:
            raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got "
                             f"{len(seq)})")
        for item in seq:
            walk(item, dim + 1)
    walk(data, 0)


def _infer(data, dtype=None):
    """NumPy array for Python data with torch's dtype inference (floats -> default dtype). With
    ``dtype`` (a NumPy dtype) given, Python floats go straight to it, never through float32."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, np.generic):  # a NumPy scalar keeps its dtype, as torch
        data = np.asarray(data)
    elif isinstance(data, (list, tuple)):
        # (a flat list of Python numbers, the common case, is told in one C pass)
        if not set(map(type, data)) <= _PY_NUMBERS and \
                any(isinstance(x, (Tensor, np.generic, np.ndarray)) for x in _flat(data)):
            items = list(_flat(data))  # each item's own dtype, promoted as torch does (an
            # array's too: its dtype, as a tensor's)
            _refuse_0d_first(data)
            with np.errstate(over="ignore"):  # past float32's range: inf, as torch
                data = np.asarray(_to_nested_arrays(data), dtype=dtype or _listed_dtype(items))
            if data.size and any(isinstance(x, np.ndarray) for x in items):
                warn_once("Creating a tensor from a list of numpy.ndarrays is extremely slow. "
                          "Please consider converting the list to a single numpy.ndarray with "
                          "numpy.array() before converting to a tensor.", stacklevel=None)
    arr = _as_array(data)
    if (arr.dtype == np.uint64 and dtype != np.uint64 or arr.dtype == object) and \
            not isinstance(data, np.ndarray):  # (ints past int64: for uint64 only)
        _refuse_objects(data)
    if arr.dtype.kind in "fc" and dtype is not None and not isinstance(data, np.ndarray):
        return arr  # Python floats at double precision: the caller casts once to ``dtype``
    if arr.dtype == np.float64 and not isinstance(data, np.ndarray):
        arr = arr.astype(_dtype.get_default_dtype().np)
    elif arr.dtype.kind == "i" and arr.dtype != np.int64 and not isinstance(data, np.ndarray):
        arr = arr.astype(np.int64)
    elif arr.dtype == np.complex128 and not isinstance(data, np.ndarray):  # Python complex
        arr = arr.astype(_dtype.default_complex().np)
    elif arr.dtype.kind == "u" and arr.dtype.itemsize == 8 and not isinstance(data, np.ndarray) \
            and dtype != np.uint64 \
            or arr.dtype.kind == "O" and any(type(x) is int for x in _flat([data])):
        raise ValueError("Overflow when unpacking long long")  # a Python int past int64
    elif arr.dtype.kind not in "biufVc":
        _refuse_kind(arr, data)
    return arr


def _refuse_0d_first(data):
    """torch sizes nested data by its first items: a 0-d array there has no length."""
    first = data
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
    if type(first) is np.ndarray and not first.ndim:
        raise TypeError("len() of unsized object")


def _refuse_kind(arr, data):
    """torch's errors for data of no tensor dtype (strings in its own words)."""
    if arr.dtype.kind in "US" and not isinstance(data, np.ndarray):
        if isinstance(data, str):
            raise TypeError("new(): invalid data type 'str'")
        raise ValueError("too many dimensions 'str'")
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def _refuse_objects(data):
    """torch's error for Python data NumPy could only hold as objects: an int past int64, or
    the first element that is not a number (None, a dict, an object)."""
    for x in _flat([data]):
        if type(x) is int:
            if not -2 ** 63 <= x < 2 ** 63:
                raise ValueError("Overflow when unpacking long long")
        elif not isinstance(x, (bool, float, complex, np.generic, Tensor)):
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")
    raise ValueError("Overflow when unpacking long long")


def _listed_dtype(items):
    """torch's dtype for listed scalars some of which are NumPy's: each one's own dtype (Python
    floats the default dtype, ints int64), promoted."""
    default = _dtype.get_default_dtype().np
    result = None
    for x in items:
        if isinstance(x, (np.generic, np.ndarray, Tensor)):
            dt = x._data.dtype if isinstance(x, Tensor) else x.dtype
        else:
            dt = np.dtype(np.bool_ if isinstance(x, bool) else np.int64 if isinstance(x, int)
                          else _dtype.default_complex().np if isinstance(x, complex)
                          else default)
        result = dt if result is None else _dtype._np_promote(result, dt)
    return result


def _flat(data):
    for x in data:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def _to_nested_arrays(data):
    if isinstance(data, Tensor):
        if data._data.size != 1 and data._data.dtype.kind in "biu":  # torch reads it by __index__
            raise TypeError("only integer tensors of a single element can be converted to an index")
        if data._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data.item()
    if isinstance(data, (list, tuple)):
        return [_to_nested_arrays(x) for x in data]
    return data


def _check_array(array):
    _dtype.from_numpy_dtype(array.dtype)  # unsupported dtypes: torch's TypeError
    if any(s < 0 for s in array.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors "
                         "with negative strides are not currently supported. (You can probably "
                         "work around this by making a copy of your array  with array.copy().) ")


def _tensor_data(data, dtype):
    if isinstance(data, np.ndarray):
        _check_array(data)
    if dtype is None:
        return _infer(data).copy()
    npd = _dtype.to_numpy_dtype(dtype)
    arr = _infer(data, npd)
    if isinstance(data, (list, tuple, int, float, complex)):
        _check_python_cast(arr, npd)
    token = _fp.quiet()  # a double past float32's range is inf, as torch, without a warning
    try:
        return _dtype.via_float32(arr, npd).astype(npd, copy=True)
    finally:
        _fp.restore(token)


def _check_python_cast(arr, npd):
    """torch's refusals casting Python numbers: complex to real, a number an integer dtype can't
    hold (ints wrap within -max..max for unsigned dtypes, as torch; floats must fit)."""
    if arr.dtype == npd:  # (NumPy held every number in that dtype already)
        return
    if arr.dtype.kind == "c" and npd.kind in "iuf":
        raise TypeError("'complex' object cannot be interpreted as an integer" if npd.kind in "iu"
                        else "must be real number, not complex")
    if npd.kind in "iu" and arr.dtype.kind in "iuf" and arr.size:
        info = _dtype.int_info(npd)
        low = info.min if npd.kind == "i" or arr.dtype.kind == "f" else -info.max
        if not (low <= arr.min() and arr.max() <= info.max):  # NaN fails both
            raise RuntimeError(f"value cannot be converted to type {npd.name} without overflow")


def warn_copy_construct(data, call, stacklevel):
    """torch's UserWarning when ``call`` (``torch.tensor``, ``tensor.new_tensor``) is given a
    tensor to copy (a list holding tensors is not warned about), pointing at the user's line
    ``stacklevel`` frames up."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()"
                      f".requires_grad_(True), rather than {call}(sourceTensor).", UserWarning,
                      stacklevel=stacklevel + 1)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of ``data`` (nested lists, scalars, arrays or tensors)."""
    warn_copy_construct(data, "torch.tensor", 3)  # (tensor is called through _on_device)
    return copy_of(data, dtype, requires_grad)


def copy_of(data, dtype, requires_grad):
    """tensor()'s work, without its warning (new_tensor warns in its own words)."""
    arr = _tensor_data(data, dtype)
    check_requires_grad(arr, requires_grad)
    return Tensor._make(arr, bool(requires_grad))


def check_requires_grad(arr, requires_grad):
    """A factory's refusal of requires_grad=True for a dtype without gradients (torch's
    factories word it so; requires_grad_() otherwise)."""
    if requires_grad and arr.dtype.kind not in "fVc":  # "V": bfloat16
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")


def as_tensor(data, dtype=None, device=None):
    """A tensor sharing memory with ``data`` where possible."""
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray):
        _check_array(data)
        npd = _np_dtype(dtype, data.dtype)
        return Tensor._make(_dtype.via_float32(data, npd).astype(npd, copy=False))
    return tensor(data, dtype=dtype)


def from_numpy(ndarray):
    """A tensor sharing memory with ``ndarray``."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _check_array(ndarray)
    return Tensor._make(ndarray)


def _size(size, op=None):
    if len(size) == 1:
        if isinstance(size[0], (tuple, list)):
            size = tuple(size[0])
        elif isinstance(size[0], (bool, np.bool_)):  # torch: not a size alone
            raise TypeError("size must be a tuple of ints, but got bool")
    for s in size:  # (the common case: plain ints; a loop, not all() over a generator)
        if type(s) is not int or s < 0:
            size = _checked_sizes(size, op)
            break
    if math.prod(size) * 8 >= 1 << 63:  # torch counts the bytes in int64
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)}")
    return tuple(size)


def _checked_sizes(size, op):
    """Sizes given as tensors or NumPy ints read as ints; torch's errors for other types and
    negative sizes."""
    size = tuple(_index_value(s) for s in size)
    for s in size:
        if not isinstance(s, (int, np.integer)):
            raise TypeError(f"size must be a tuple of ints, but got {type(s).__name__}")
        if s < 0 and op is not None:
            raise RuntimeError(f"{op}: Dimension size must be non-negative.")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
    return tuple(int(s) for s in size)


def _index_value(s):
    """A one-element integer tensor stands for its int in a size (torch reads it by __index__)."""
    if isinstance(s, Tensor) and s.numel() == 1 and s._data.dtype.kind in "iu":
        return int(s.item())
    return s


def _given(sizes, size):
    """The shape of a factory called with sizes (``zeros(2, 3)``) or ``size=`` (keyword)."""
    return sizes if size is None else (size,)


def _new(arr, requires_grad):
    check_requires_grad(arr, requires_grad)
    t = Tensor._make(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def zeros(*sizes, size=None, dtype=None, device=None, requires_grad=False, out=None):
    """A tensor of zeros."""
    return _new(np.zeros(_size(_given(sizes, size), "zeros"), _np_dtype(dtype)), requires_grad)


def ones(*sizes, size=None, dtype=None, device=None, requires_grad=False, out=None):
    """A tensor of ones."""
    return _new(np.ones(_size(_given(sizes, size)), _np_dtype(dtype)), requires_grad)


def empty(*sizes, size=None, dtype=None, device=None, requires_grad=False, memory_format=None):
    """An uninitialised tensor (laid out in ``memory_format``)."""
    shape = _size(_given(sizes, size))
    _memory_format.check_rank(len(shape), memory_format)
    array = _memory_format.lay_out(np.empty(shape, _np_dtype(dtype)), memory_format)
    return _new(array, requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """A tensor filled with ``fill_value`` (its dtype inferred as torch does)."""
    shape, npd = _full_meta(size, fill_value, dtype=dtype)
    if npd.kind in "iufcV" and not isinstance(fill_value, (Tensor, np.ndarray)):
        fill_value = _dtype.scalar_as(fill_value, npd, half_inf=True)  # torch's checks, wrap
    return _new(np.full(shape, fill_value, npd), requires_grad)


def _full_meta(size, fill_value, *, dtype=None, **kwargs):
    """full's shape and NumPy dtype (inferred from ``fill_value`` as torch does)."""
    if not isinstance(fill_value, (numbers.Number, np.generic, np.ndarray, Tensor)):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not "
                        f"{type(fill_value).__name__}")
    if dtype is None:
        dtype = (_dtype.bool_ if isinstance(fill_value, bool) else
                 _dtype.int64 if isinstance(fill_value, int) else
                 _dtype.default_complex() if isinstance(fill_value, complex) else
                 _dtype.get_default_dtype())
    return _size((size,) if isinstance(size, int) else tuple(size)), _np_dtype(dtype)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    """Identity matrix (n x m)."""
    for name, v in (("n", n), ("m", m)):
        if v is not None and v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    return _new(np.eye(n, m, dtype=_np_dtype(dtype)), requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """Values from start to end (exclusive) by step."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    _check_range(*vals)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (vals[1] - vals[0]) * vals[2] < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    is_float = any(isinstance(v, float) for v in vals)
    default = _dtype.get_default_dtype().np if is_float else np.dtype(np.int64)
    npd = _np_dtype(dtype, default)
    if npd.kind in "iu" and is_float:  # torch's integer kernel: the bounds cast to integers
        return _new(_integer_arange(*vals, npd), requires_grad)
    if npd.kind == "V" or npd == np.float16 or npd.kind == "f" and not all(
            float(v).is_integer() for v in vals[::2]):  # torch's kernel's rounding steps
        from .ops import _bf16  # lazy: ops build on this module
        count = math.ceil((vals[1] - vals[0]) / vals[2])
        return _new(_bf16.arange(vals[0], vals[2], count, npd), requires_grad)
    arr = np.arange(*vals, dtype=np.float64 if is_float else None)
    return _new(arr.astype(npd), requires_grad)


def _integer_arange(start, end, step, np_dtype):
    """torch's arange into an integer dtype from float bounds: start and step truncated to
    integers (int64 truncates the end too and counts in integers; the narrower dtypes count
    from the bounds as given), the values wrapped into the dtype."""
    first, last, stride = (int(v) for v in (start, end, step))
    if stride == 0 and np_dtype == np.int64:  # (the narrower dtypes repeat the start)
        raise ValueError("step must be nonzero")
    count = -((first - last) // stride) if np_dtype == np.int64 else \
        math.ceil((end - start) / step)
    values = first + stride * np.arange(max(count, 0), dtype=np.int64)
    return values.astype(np_dtype)


def _check_range(start, end, step):
    """torch's errors for an arange whose bounds or length do not fit (never NumPy's)."""
    if any(isinstance(v, int) and not -(1 << 63) <= v < 1 << 63 for v in (start, end, step)):
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if step and math.isfinite(step):
        length = math.ceil((end - start) / step)
        if length >= 1 << 63:
            raise RuntimeError("invalid size, possible overflow?")
        _size((max(length, 0),))


def _linspace_values(start, end, steps, np_dtype):
    """torch's CPU linspace: start + step * i for the first half, end - step * (steps - 1 - i)
    for the second, in the output's float type (float64 for integer outputs, then truncated),
    each a fused multiply-add; float32 is exact in float64 before its one rounding; float16
    rounds each operation. An inf bound gives torch's NaNs (inf * 0, inf - inf), without
    NumPy's warnings; a NaN keeps its sign (the step is subtracted, never negated)."""
    work = np_dtype.type if np_dtype in (np.float32, np.float16) else np.float64
    lo, hi = (_dtype.scalar_as(v, np_dtype).astype(work) for v in (start, end))
    with np.errstate(all="ignore"):
        step = (hi - lo) / work(steps - 1)
        i = np.arange(steps, dtype=np.float64)
        first = np.arange(steps) < steps // 2
        counts = np.where(first, i, steps - 1 - i)
        if work == np.float16:  # torch's Half arithmetic: each product and sum rounded
            products = step * counts.astype(work)
            return np.where(first, lo + products, hi - products)
        base = np.where(first, np.float64(lo), np.float64(hi))
        products = np.float64(step) * counts
        # |step * i| has at most 48 significant bits for float32: exact in float64
        out = np.where(first, base + products, base - products)
        if work == np.float64:  # (where a bound or the step is not finite, the plain sum is
            signed = np.where(first, np.float64(step), -np.float64(step))  # the fused one)
            fused = _fp.fma64(signed, counts, base)
            out = np.where(np.isfinite(fused), fused, out)
        return out.astype(work).astype(np_dtype)


def _space_args(op, start, end, steps, dtype):
    """(steps, NumPy dtype) of linspace/logspace: torch's checks; complex bounds make the
    default dtype complex; bool has no kernel."""
    steps = _index_value(steps)
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool):
        raise TypeError(f"{op}(): argument 'steps' must be int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    _size((steps,))
    if dtype is None and any(isinstance(v, complex) or getattr(v, "is_complex", lambda: False)()
                             for v in (start, end)):
        dtype = _dtype.default_complex()
    np_dtype = _np_dtype(dtype)
    _random_args.require_kind(np_dtype, f"{op}_cpu", "iufVc")
    return steps, np_dtype


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from start to end inclusive, rounded as torch's."""
    steps, np_dtype = _space_args("linspace", start, end, steps, dtype)
    if steps == 0:
        return _new(np.empty(0, np_dtype), requires_grad)
    if steps == 1:  # torch fills start (its checks), never reading end
        with np.errstate(all="ignore"):
            value = float(start) if isinstance(start, Tensor) else start
            return _new(_dtype.scalar_as(value, np_dtype, half_inf=True).reshape(1),
                        requires_grad)
    if np_dtype in (np.float16, np.float32, np.float64) or np_dtype.kind in "iu":
        return _new(_linspace_values(start, end, steps, np_dtype), requires_grad)
    if np_dtype.kind == "V":  # bfloat16: torch's kernel rounds each step
        from .ops import _bf16  # lazy: ops build on this module
        for bound in (start, end):
            _dtype.scalar_as(bound, np_dtype)  # torch's overflow check
        with np.errstate(all="ignore"):
            values = _bf16.linspace(start, end, steps, np_dtype).reshape(-1)
        return _new(_float_to(values.astype(np.float32), np_dtype), requires_grad)
    lo, hi = (_dtype.scalar_as(v, np_dtype) for v in (start, end))
    with np.errstate(all="ignore"):
        return _new(np.linspace(lo, hi, steps).astype(np_dtype), requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, requires_grad=False):
    """base ** e for ``steps`` exponents e from start to end, as torch's CPU kernel: the bounds
    in the output dtype, e = start + step * i (first half) or end - step * (steps - 1 - i),
    pow in float64 (complex: in the complex dtype), then cast."""
    steps, np_dtype = _space_args("logspace", start, end, steps, dtype)
    if isinstance(base, complex) or getattr(base, "is_complex", lambda: False)():
        raise TypeError(f"logspace(): argument 'base' must be float, not "
                        f"{type(base).__name__}")
    work = np_dtype if np_dtype.kind == "c" else np.dtype(np.float64)
    if steps == 0:
        return _new(np.empty(0, np_dtype), requires_grad)
    if steps == 1:  # torch fills pow(base, start) in double (complex double): fill_'s checks
        value = float(_pow(float(base), np.asarray([float(start.real) if work.kind == "c"
                                                    else float(start)]))[0])
        if work.kind == "c" and base > 0:  # std::pow(real, complex): polar(pow, imag log)
            angle = complex(start).imag * math.log(base)
            value = complex(value * math.cos(angle), value * math.sin(angle))
        elif work.kind == "c":
            with np.errstate(all="ignore"):
                value = complex(np.power(complex(base), complex(start)))
        with np.errstate(all="ignore"):
            return _new(_dtype.scalar_as(value, np_dtype).reshape(1), requires_grad)
    lo, hi = (_dtype.scalar_as(v, np_dtype) for v in (start, end))
    with np.errstate(all="ignore"):
        span = int(hi) - int(lo) if np_dtype.kind in "iu" else hi - lo
        step = (np.asarray(span, work) / np.asarray(steps - 1, work)).astype(work)
        i = np.arange(steps)
        first = i < steps // 2
        exponents = np.where(first, lo.astype(work) + step * i.astype(work),
                             hi.astype(work) - step * (steps - 1 - i).astype(work))
        if work.kind == "c":  # std::pow of complex numbers: exp(e log(base))
            values = np.exp(exponents * np.log(np.asarray(base, work)))
        else:
            values = _pow(float(base), exponents)
        return _new(_float_to(values, np_dtype), requires_grad)


def _pow(base, exponents):
    """base ** exponents as the C library's pow (correctly rounded, where NumPy's may be an ulp
    off); NumPy's NaN and inf where there is no finite power."""
    with np.errstate(all="ignore"):
        values = np.power(base, exponents)
    for k in np.flatnonzero(np.isfinite(values)).tolist():
        values[k] = math.pow(base, float(exponents[k]))
    return values


def _float_to(values, np_dtype):
    """float64 values stored as torch's kernels store a double into an integer (a C cast: an
    int64 past its range or NaN is int64's lowest; narrower types go through int32)."""
    if np_dtype.kind == "V":  # torch's bfloat16 NaN is 0x7FC0, whatever the float's sign
        return np.where(np.isnan(values), np.nan, values).astype(np_dtype)
    if np_dtype.kind not in "iu":
        return values.astype(np_dtype)
    if np_dtype.itemsize == 8:
        return values.astype(np.int64)
    return values.astype(np.int32).astype(np_dtype)


def rand(*sizes, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform samples on [0, 1)."""
    shape = _size(_given(sizes, size))
    return _new(_gen(generator).uniform(shape, _np_dtype(dtype)), requires_grad)


def randn(*sizes, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal samples."""
    shape = _size(_given(sizes, size))
    return _new(_gen(generator).normal(shape, _np_dtype(dtype)), requires_grad)


def randint(low=None, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False):
    """Integers uniformly from [low, high)."""
    low, high, shape = _randint_args(low, high, size)
    npd = _np_dtype(dtype, np.dtype(np.int64))
    low, high = _random_args.from_to(npd, low, high)
    return Tensor._make(_gen(generator).integers(low, high, shape).astype(npd))


_RANDINT_SIGNATURES = "".join(
    f" * ({bounds}, tuple of ints size, *, {generator}Tensor out = None, torch.dtype dtype = "
    f"None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    f"bool requires_grad = False)\n"
    for bounds in ("int high", "int low, int high")
    for generator in ("torch.Generator generator, ", ""))


def _randint_args(low, high, size):
    """(low, high, shape) of randint's call forms: (high, size) and (low, high, size); the
    bounds as torch's ``int`` parameters read them."""
    given = (low, high, size)
    if size is None and isinstance(high, (tuple, list)):  # randint(high, size)
        low, high, size = 0, low, high
    if low is None and high is not None:  # randint(high=..., size=...)
        low = 0
    elif high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing 1 required positional argument: 'size'")
    bounds = _random_args.as_int(low), _random_args.as_int(high)
    if None in bounds or not isinstance(size, (int, tuple, list)) or isinstance(size, bool):
        if given[0] is None and given[1] is not None:
            raise TypeError(f"randint(): argument 'high' must be int, not "
                            f"{type(high).__name__}")
        if given[1] is None or given[2] is None and isinstance(given[1], (tuple, list)):
            raise TypeError(f"randint(): argument 'high' (position 1) must be int, not "
                            f"{type(high).__name__}")
        got = _random_args.type_names([v for v in given if v is not None])
        raise TypeError(f"randint() received an invalid combination of arguments - got "
                        f"({got}), but expected one of:\n{_RANDINT_SIGNATURES}")
    return bounds + (_size((size,) if isinstance(size, int) else tuple(size)),)


def _randint_meta(low=None, high=None, size=None, *, dtype=None, **kwargs):
    return _randint_args(low, high, size)[2], _np_dtype(dtype, np.dtype(np.int64))


def _sized_meta(*sizes, size=None, dtype=None, **kwargs):
    """The shape and NumPy dtype of zeros/ones/empty/rand/randn."""
    return _size(_given(sizes, size)), _np_dtype(dtype)


def _randperm_meta(n, *, dtype=None, **kwargs):
    return _size((n,)), _np_dtype(dtype, np.dtype(np.int64))


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0..n-1."""
    _size((n,))
    return Tensor._make(_gen(generator).permutation(n).astype(_np_dtype(dtype,
                                                                     np.dtype(np.int64))))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None):
    """Normal samples with the given mean and std (scalars or tensors)."""
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    shape = _size(tuple(size)) if size is not None else np.broadcast_shapes(np.shape(m),
                                                                             np.shape(s))
    npd = _np_dtype(dtype, getattr(m, "dtype", None) if isinstance(m, np.ndarray) else None)
    if not isinstance(m, np.ndarray) and not isinstance(s, np.ndarray):
        return Tensor._make(_gen(generator).normal(shape, npd, m, s))
    if isinstance(s, np.ndarray) and not (s >= 0).all():  # NaN too; before any draw
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not isinstance(s, np.ndarray) and not s >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(s):g}")
    return Tensor._make((_gen(generator).normal(shape, npd) * s + m).astype(npd))


def bernoulli(input, p=None, *, generator=None):
    """0/1 draws with probability ``p`` (or each element of ``input``), in input's dtype."""
    _check_bernoulli(input._data.dtype, p)
    if p is not None:
        draws = _gen(generator).bernoulli(input._data.shape, p)
    else:
        draws = _gen(generator).bernoulli_tensor(input._data)
    return Tensor._make(draws.astype(input._data.dtype))


def _check_bernoulli(np_dtype, p):
    """torch's kernels: probabilities in ``input`` must be floating; complex is never drawn."""
    if np_dtype.kind == "c" or p is None and np_dtype.kind in "biu":
        kernel = ("bernoulli_scalar_cpu_" if p is not None else "bernoulli_tensor_cpu_self_"
                  if np_dtype.kind == "c" else "bernoulli_tensor_cpu_p_")
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype.from_numpy_dtype(np_dtype).scalar_name}'")


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Sample category indices with probabilities proportional to ``input`` rows (torch's
    random stream: see Generator.multinomial)."""
    probs = input._data
    _check_multinomial(probs, num_samples, replacement)
    rows = probs.reshape(-1, probs.shape[-1])
    out = _gen(generator).multinomial(rows, num_samples, replacement)
    return Tensor._make(out.reshape(probs.shape[:-1] + (num_samples,)).astype(np.int64))


def _check_multinomial(probs, num_samples, replacement):
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if probs.dtype.kind not in "fV":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_dtype.of_numpy(probs.dtype).scalar_name}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > probs.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if not np.all(np.isfinite(probs)) or np.any(probs < 0):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(probs.reshape(-1, probs.shape[-1]).sum(axis=1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def _like(fn):
    def like(input, *args, dtype=None, device=None, requires_grad=False, memory_format=None,
             **kwargs):
        dt = dtype if dtype is not None else input.dtype
        device = device if device is not None else input.device
        if fn is full:  # (fill_value positional or by torch's name)
            value = args[0] if args else kwargs.pop("fill_value")
            out = full(input.shape, value, dtype=dt, device=device)
        elif fn is randint:
            out = randint(*args, size=input.shape, dtype=dt, device=device, **kwargs)
        else:
            out = fn(*input.shape, dtype=dt, device=device, **kwargs)
        if type(out._data) is np.ndarray:  # in input's layout, or memory_format's, as torch
            _memory_format.check_rank(out.dim(), memory_format)
            out._data = _memory_format.lay_out(out._data, memory_format, input._data)
        check_requires_grad(out._data, requires_grad)
        return out.requires_grad_(True) if requires_grad else out
    like.__name__ = fn.__name__ + "_like"
    like.__doc__ = f"{fn.__name__} with the shape (and dtype) of ``input``."
    return like


def _on_device(fn, meta=None):
    """``fn`` with its ``device=``: the CPU; or the meta device, where ``meta(*args, **kwargs)``
    gives the shape and dtype without making data (without it, the CPU result's, made and
    dropped: for factories whose size is their data's, e.g. tensor, arange); any other device
    fails as torch."""
    def placed(*args, device=None, **kwargs):
        if (device is not None or _default_device[0] is not None) and on_meta(device):
            return _on_meta(fn, meta, args, kwargs)
        return fn(*args, **kwargs)
    placed.__name__, placed.__qualname__, placed.__doc__ = fn.__name__, fn.__name__, fn.__doc__
    placed.__wrapped__ = fn
    return placed


def _on_meta(fn, meta, args, kwargs):
    if meta is None:
        state = _gen(None).get_state()  # torch draws no random numbers for the meta device
        made = fn(*args, **kwargs)
        _gen(None).set_state(state)
        return _new(_meta.like(made._data), made.requires_grad)
    shape, npd = meta(*args, **kwargs)
    return _new(_meta.placeholder(shape, npd), kwargs.get("requires_grad", False))


tensor, as_tensor, eye, arange, linspace = (
    _on_device(f) for f in (tensor, as_tensor, eye, arange, linspace))
zeros, ones, empty, rand, randn = (_on_device(f, _sized_meta)
                                   for f in (zeros, ones, empty, rand, randn))
full, randint, randperm = (_on_device(full, _full_meta), _on_device(randint, _randint_meta),
                           _on_device(randperm, _randperm_meta))
zeros_like, ones_like, empty_like, full_like, rand_like, randn_like, randint_like = (
    _like(f) for f in (zeros, ones, empty, full, rand, randn, randint))
