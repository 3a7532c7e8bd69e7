"""Copies, casts and in-place writes: clone, contiguous, to_dtype, copy_, fill_, zero_, add_, ..."""
import numpy as np

from ... import _dtype, _fp, _memory_format, _meta
from ..._tensor import Tensor
from ...autograd import grad_mode
from ...autograd import graph as _graph
from .. import elementwise as E
from .._legacy_overloads import scalar_first
from ..inplace import apply_inplace, fast_binary_inplace, needs_graph, write_error
from .arithmetic import UFUNCS, _is_bool, _no_bool_sub, _t, add, div, mul, sub


def contiguous(input, memory_format=None):
    """``input`` itself when it is laid out in ``memory_format`` already, else a copy that is."""
    fmt = _memory_format.contiguous_format if memory_format is None else memory_format
    _memory_format.check_rank(input.dim(), fmt)
    if _memory_format.is_laid_out(input._data, fmt):
        return input
    return clone(input, memory_format=fmt)


class CloneBackward0(E.Node):
    """out = a copy of a (in a memory format);  da = g."""

    def forward(self, a, memory_format=_memory_format.preserve_format):
        if type(a._data) is not np.ndarray:  # a meta placeholder
            return a._data.copy()
        return _memory_format.relayout(a._data, memory_format)

    def backward(self, m, g):
        return (g,)


class ToCopyBackward0(E.Node):
    """out = a cast to another dtype (or moved to the meta device);  da = g cast back (by the
    engine)."""

    def forward(self, a, dtype, to_meta=False, memory_format=None):
        if to_meta:
            return _meta.placeholder(a._data.shape, dtype)
        out = _dtype.via_float32(a._data, dtype).astype(
            dtype, order=_memory_format.preserved_order(a._data), copy=memory_format is None)
        if memory_format is not None:  # Tensor.to(memory_format=): the copy in that layout
            out = _memory_format.relayout(out, memory_format)
        return out

    def backward(self, m, g):
        return (g,)


class CopyBackwards(E.Node):
    """out = src broadcast to a's shape and dtype (copy_);  da = 0, dsrc = g."""

    def forward(self, a, src):
        try:
            source = _dtype.via_float32(src._data, a._data.dtype)
            return np.broadcast_to(source, a._data.shape).astype(a._data.dtype)
        except ValueError:
            raise RuntimeError(f"The size of tensor a ({list(a._data.shape)}) must match the "
                               f"size of tensor b ({list(src._data.shape)})") from None

    def backward(self, m, g):
        return m.zeros_like(g), g


def to_memory_format(input, memory_format):
    """Tensor.to(memory_format=): ``input`` itself when laid out so already, else a copy that is
    (recorded as torch's ToCopyBackward0)."""
    _memory_format.check_rank(input.dim(), memory_format)
    if _memory_format.is_laid_out(input._data, memory_format):
        return input
    return ToCopyBackward0.apply(input, dtype=input._data.dtype, memory_format=memory_format)


def clone(input, *, memory_format=None):
    """A copy; ``preserve_format`` (the default) keeps the source's layout, as torch."""
    fmt = _memory_format.preserve_format if memory_format is None else memory_format
    _memory_format.check_rank(input.dim(), fmt)
    return CloneBackward0.apply(input, memory_format=fmt)


def to_dtype(input, dtype, copy=False):
    npd = _dtype.to_numpy_dtype(dtype)
    if npd == input._data.dtype and not copy:
        return input
    if input._data.dtype.kind == "c" and npd.kind != "c":
        _dtype.warn_discarding_imaginary(stacklevel=3)
        input = input.real
    if (npd.kind not in "fVc" or not input._requires_grad) and _graph._observer is None \
            and _graph._dual is None:
        # ("V": bfloat16); a trace (onnx export) and forward AD take the node's path
        token = _fp.quiet()  # NaN or inf cast to an integer: no NumPy warning, as torch
        try:
            return Tensor._make(_dtype.via_float32(input._data, npd).astype(
                npd, order=_memory_format.preserved_order(input._data)))
        finally:
            _fp.restore(token)
    return ToCopyBackward0.apply(input, dtype=npd)


def to_device(input, to_meta, dtype=None):
    """``input`` moved onto the meta device (its data dropped), or off it (torch's error: a
    meta tensor has no data to copy)."""
    if not to_meta:
        raise NotImplementedError(_meta.CANNOT_COPY)
    npd = input._data.dtype if dtype is None else _dtype.to_numpy_dtype(dtype)
    if input._requires_grad and npd.kind in "fVc":
        return ToCopyBackward0.apply(input, dtype=npd, to_meta=True)
    return Tensor._make(_meta.placeholder(input._data.shape, npd))


def _inplace_binary(name, op):
    ufunc = UFUNCS[name]

    def method(self, other, *deprecated, alpha=1, **kwargs):
        if deprecated and name in ("add", "sub"):  # torch's deprecated add_(alpha, other)
            alpha, (other,) = scalar_first(name + "_", "alpha", ("other",),
                                           (other, *deprecated), alpha != 1)
        elif deprecated:
            raise TypeError(f"{name}_() takes 1 positional argument but "
                            f"{1 + len(deprecated)} were given")
        if name == "sub" and (_is_bool(self) or _is_bool(other)):
            _no_bool_sub(self, other)
        if not needs_graph(self, other) and not kwargs and _graph._observer is None and \
                self._data.dtype.char not in "eE":  # (float16, bfloat16: the node's op math)
            if name == "div" and self._data.dtype.kind in "biu":  # (true division: floats)
                raise RuntimeError("result type Float can't be cast to the desired output type "
                                   f"{_dtype.of_numpy(self._data.dtype).scalar_name}")
            return fast_binary_inplace(self, ufunc, other, alpha if name in "addsub" else None)
        if name in ("add", "sub"):
            return apply_inplace(self, op, other, alpha=alpha)
        return apply_inplace(self, op, other, **kwargs)
    method.__name__ = name + "_"
    return method


add_, sub_, mul_, div_ = (_inplace_binary(n, f) for n, f in
                          (("add", add), ("sub", sub), ("mul", mul), ("div", div)))


class FillBackward2(E.Node):
    """out = ``value`` everywhere (fill_ with a scalar);  da = 0."""

    def forward(self, a, value):
        return np.full(a._data.shape, value, dtype=a._data.dtype)

    def backward(self, m, g):
        return m.zeros_like(g), None


class ZeroBackward0(FillBackward2):
    """out = zeros (zero_);  da = 0."""


def zero_(self):
    """Fill with zeros in place."""
    if not needs_graph(self):
        return fill_(self, 0)
    return apply_inplace(self, ZeroBackward0.apply, 0)


def fill_(self, value):
    """Fill with ``value`` (a number or a 0-d tensor) in place."""
    value = _fill_value(self, value)
    if not needs_graph(self, value):
        grad_mode.check_inplace(self._vc)  # an inference tensor refuses before the write
        self._data[...] = value._data if isinstance(value, Tensor) else _dtype.scalar_as(
            value, self._data.dtype, half_inf=True)  # (float16/bfloat16 overflow: inf)
        self._vc[0] += 1
        return self
    if not isinstance(value, Tensor):
        return apply_inplace(self, FillBackward2.apply, value)
    return apply_inplace(self, lambda a, v: E.MaskedFillBackward1.apply(
        a, np.ones(a._data.shape, bool), v), value)


def _fill_value(self, value):
    """torch's checks of fill_'s value; a complex tensor into a real one warns, as torch."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.ndim} dimensions.")
        if value._data.dtype.kind == "c" and self._data.dtype.kind != "c":
            _dtype.warn_discarding_imaginary(stacklevel=3)
            value = value.real
        return value
    if not isinstance(value, (int, float, complex, np.number, np.bool_)):
        raise TypeError(f"fill_() received an invalid combination of arguments - got "
                        f"({type(value).__name__}), but expected one of:\n * (Tensor value)\n"
                        f" * (Number value)\n")
    return value


def copy_(self, other, non_blocking=False):
    """Copy ``other`` (broadcast) into self in place (torch 2.13 names it other)."""
    src = _t(other)
    if src.is_meta and not self.is_meta:
        raise NotImplementedError(_meta.CANNOT_COPY)
    if src._data.dtype.kind == "c" and self._data.dtype.kind != "c":
        _dtype.warn_discarding_imaginary(stacklevel=3)  # (NumPy's ComplexWarning otherwise)
        src = src.real
    if self.is_meta and not src.is_meta:  # nothing is written: the shapes are checked
        src = Tensor._make(_meta.like(src._data))
    if not needs_graph(self, src):
        grad_mode.check_inplace(self._vc)  # an inference tensor refuses before the write
        try:
            source = _dtype.via_float32(src._data, self._data.dtype)
            np.copyto(self._data, np.broadcast_to(source, self._data.shape), casting="unsafe")
        except ValueError:
            raise write_error(self, src._data.shape) from None
        self._vc[0] += 1
        return self
    return apply_inplace(self, CopyBackwards.apply, src)
