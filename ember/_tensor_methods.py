"""Binds the functional API onto Tensor as methods and operators (one table, in one place)."""
import functools
import numbers

import numpy as np

from . import _creation as C
from . import _dtype, _memory_format, _random_args, linalg
from ._creation import full
from ._device import on_meta
from ._legacy import _TensorType, by_name
from ._tensor import Tensor
from .autograd.grad_mode import check_inplace
from .autograd.graph import _type_name
from .ops import (
    api,
    composites,
    counting,
    index_ops,
    matrix_functions,
    matrix_ops,
    order_stats,
    out,
    scan,
    shape_extra,
    sorting,
    statistics,
)
from .ops import elementwise as E
from .ops.fastpath import binary_operator, scalar_operator, unary_function
from .ops.indexing import one_ellipsis
from .ops.inplace import (
    CHECKS_INPUT_OVERLAP,
    ELEMENTWISE,
    OVERLAP,
    OVERLAP_ALLOWED,
    apply_inplace,
    overlaps,
    refuse_output_shape,
    refuse_partial_overlap,
    write_through_overlap,
)
from .random import _gen


def _unary(cls):
    fn = unary_function(cls, cls.apply)  # the general path for other dtypes, anomaly mode
    fn.__name__ = cls.__name__[:-9].lower()
    fn.__doc__ = cls.__doc__
    return fn


UNARY = {name: _unary(cls) for name, cls in {
    "exp": E.ExpBackward0, "log": E.LogBackward0, "log2": E.Log2Backward0,
    "log10": E.Log10Backward0, "log1p": E.Log1PBackward0, "expm1": E.Expm1Backward0,
    "sqrt": E.SqrtBackward0, "rsqrt": E.RsqrtBackward0, "sin": E.SinBackward0,
    "cos": E.CosBackward0, "tan": E.TanBackward0, "tanh": E.TanhBackward0,
    "sigmoid": E.SigmoidBackward0, "relu": E.ReluBackward0, "abs": E.AbsBackward0,
    "sign": E.SignBackward0, "floor": E.FloorBackward0, "ceil": E.CeilBackward0,
    "round": E.RoundBackward0, "trunc": E.TruncBackward0, "reciprocal": E.ReciprocalBackward0,
    "asin": E.AsinBackward0, "acos": E.AcosBackward0, "atan": E.AtanBackward0,
    "sinh": E.SinhBackward0, "cosh": E.CoshBackward0}.items()}


_plain_round = UNARY["round"]


def _round(input, decimals=None):
    """Round half to even (to ``decimals`` places)."""
    if decimals is not None:  # torch's round.decimals: floating only, even with 0
        _dtype.refuse_kinds(input._data.dtype, "round_cpu" if decimals else "round_vml_cpu",
                            "biuc")
    if decimals:
        return E.RoundBackward1.apply(input, decimals=decimals)
    return _plain_round(input)


UNARY["round"] = _round
UNARY["absolute"], UNARY["arcsin"], UNARY["arccos"], UNARY["arctan"] = (
    UNARY["abs"], UNARY["asin"], UNARY["acos"], UNARY["atan"])
UNARY["negative"] = api.neg
UNARY["fix"] = UNARY["trunc"]


def _inplace_unary(fn):
    def method(self, *args, **kwargs):
        return apply_inplace(self, fn, *args, **kwargs)
    method.__name__ = fn.__name__ + "_"
    return method


def _tensor_other(fn):
    """The method form of a function taking two tensors: torch names ``other`` position 1."""
    def method(self, other, *args, **kwargs):
        if not isinstance(other, Tensor):
            raise TypeError(f"{fn.__name__}(): argument 'other' (position 1) must be Tensor, "
                            f"not {type(other).__name__}")
        return fn(self, other, *args, **kwargs)
    method.__name__ = fn.__name__
    return method


def _clamp_(clamp_in_place):
    """Tensor.clamp_: with a float bound on an integer tensor, torch's message names the C++
    type (unlike the other in-place ops)."""
    def method(self, min=None, max=None):
        floats = [b for b in (min, max) if isinstance(b, float)]
        if floats and self._data.dtype.kind in "iu":
            raise RuntimeError(f"result type {_dtype.get_default_dtype().scalar_name} can't be "
                               f"cast to the desired output type {self.dtype.c_name}")
        return clamp_in_place(self, min, max)
    method.__name__ = "clamp_"
    return method


def _reflect(fn):
    return lambda self, other: fn(other, self)


_FOREIGN = (list, tuple, str, bytes, dict, set, type(None))


def _operand(fn):
    """An operator method that leaves operands no tensor op takes (a list, a string, None) to
    Python, which then words the TypeError as torch's ("unsupported operand type(s) for +:
    'Tensor' and 'list'"; a list's own concatenation message for ``[1] + t``)."""
    def operator(self, other):
        if isinstance(other, _FOREIGN):
            return NotImplemented
        return fn(self, other)
    return operator


_COMPARABLE = (Tensor, numbers.Number, np.generic, np.ndarray)


def _comparison(fn):
    """``t == x`` and friends: NotImplemented for non-numeric objects (``t == None`` is False)."""
    def operator(self, other):
        return fn(self, other) if isinstance(other, _COMPARABLE) else NotImplemented
    operator.__name__ = fn.__name__
    return operator


_TO_KEYWORDS = ("dtype", "device", "non_blocking", "copy", "memory_format")


def _to_type_error(args, kwargs):
    """torch's TypeError for a keyword Tensor.to does not take (``to(requires_grad=True)``)."""
    def name(v):
        return "Tensor" if isinstance(v, Tensor) else "ember.dtype" if isinstance(
            v, _dtype.dtype) else type(v).__name__
    got = [name(a) for a in args] + [f"{k}={name(v)}" for k, v in kwargs.items()]
    return TypeError(
        "to() received an invalid combination of arguments - got "
        f"({', '.join(got) + (', ' if not args else '')}), but expected one of:\n"
        " * (ember.device device = None, ember.dtype dtype = None, bool non_blocking = False, "
        "bool copy = False, *, ember.memory_format memory_format = None)\n"
        " * (ember.dtype dtype, bool non_blocking = False, bool copy = False, *, "
        "ember.memory_format memory_format = None)\n"
        " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
        "ember.memory_format memory_format = None)\n")


def _to(self, *args, **kwargs):
    """Cast to a dtype and/or move between the CPU and the meta device (other devices are
    refused); ``to(other)`` takes its dtype and device."""
    if any(k not in _TO_KEYWORDS for k in kwargs):
        raise _to_type_error(args, kwargs)
    dtype = kwargs.get("dtype")
    copy = kwargs.get("copy", False)
    target = kwargs.get("device")
    for a in args:
        if isinstance(a, (_dtype.dtype, type, np.dtype)) or (
                isinstance(a, str) and a in _dtype._NAMES):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, target = a.dtype, a.device
        elif a is not None and not isinstance(a, bool):
            target = a
    fmt = kwargs.get("memory_format")
    if target is not None and on_meta(target) != self.is_meta:
        out = api.to_device(self, on_meta(target), dtype)
    elif dtype is None:
        out = self if not copy else api.clone(self)
    else:
        out = api.to_dtype(self, dtype, copy)
    if fmt is not None and fmt is not _memory_format.preserve_format:
        out = api.to_memory_format(out, fmt)
    return out


def _cpu(self, memory_format=None):
    return _to(self, "cpu")


def _type(self, dtype=None, non_blocking=False):
    """The legacy type name, or a cast to a dtype / FloatTensor-style type (or its name)."""
    if dtype is None:
        return _type_name(self._data.dtype)
    if isinstance(dtype, str) and by_name(dtype) is not None:
        dtype = by_name(dtype)
    return _to(self, dtype.dtype if isinstance(dtype, _TensorType) else dtype)


def _new_factory(fn):
    def method(self, *sizes, size=None, dtype=None, device=None, requires_grad=False):
        return fn(*(sizes if size is None else (size,)), dtype=dtype or self.dtype,
                  device=device or self.device, requires_grad=requires_grad)
    return method


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    C.warn_copy_construct(data, "tensor.new_tensor", 2)
    return C.copy_of(data, dtype or self.dtype, requires_grad)


def _new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                requires_grad=requires_grad)


def _fill_drawn(self, draw):
    """Write ``draw(shape)`` into the tensor in place, drawn in memory order as torch's
    TensorIterator walks it (a transposed tensor's draws land in memory order); on the meta
    device nothing is drawn (torch's random stream stays where it is) nor written."""
    check_inplace(self._vc)  # an inference tensor refuses before the write
    if not self.is_meta:
        target = _memory_format.memory_order(self._data)
        target[...] = draw(target.shape)
    self._vc[0] += 1
    return self


def _uniform_(self, a=0.0, b=1.0, generator=None):
    dtype = self._data.dtype
    return _fill_drawn(self, lambda shape: _gen(generator).uniform(shape, dtype, a, b))


def _normal_(self, mean=0.0, std=1.0, generator=None):
    dtype, serial = self._data.dtype, not self._data.flags.c_contiguous  # (torch: one by one)
    return _fill_drawn(self, lambda shape: _gen(generator).normal(shape, dtype, mean, std,
                                                                  serial=serial))


def _exponential_(self, lambd=1.0, *, generator=None):
    """Fill with Exp(lambd) draws (torch's stream)."""
    dtype = self._data.dtype
    return _fill_drawn(self, lambda shape: _gen(generator).exponential(shape, dtype, lambd))


def _random_(self, *args, to=_random_args.NO_TO, generator=None):
    """Fill with integers from [from, to): random_(to), random_(from, to); to=None: up to the
    dtype's top; no bounds: _random_args.full_range."""
    low, high = _random_args.random_args(args, to)
    dtype = self._data.dtype
    if low is None:
        low, high = _random_args.full_range(dtype)
    elif high is None:
        bounds = _random_args.from_top(dtype, low, self._data.size)
        if bounds is None:
            return _fill_drawn(self, lambda shape: _gen(generator).full64(shape))
        low, high = bounds
    else:
        low, high = _random_args.from_to(dtype, low, high)
    return _fill_drawn(self, lambda shape: _gen(generator).integers(low, high, shape))


def _broadcast_to(self, size):
    """Tensor.broadcast_to also takes a single int as the size (torch.broadcast_to does not)."""
    return api.broadcast_to(self, (size,) if isinstance(size, numbers.Integral) else size)


def _bind():
    methods = dict(UNARY)
    for name in ("add", "sub", "mul", "div", "pow", "neg", "clamp", "masked_fill", "maximum",
                 "minimum", "eq", "ne", "lt", "le", "gt", "ge", "greater", "less",
                 "greater_equal", "less_equal", "not_equal", "logical_and", "logical_or",
                 "logical_xor", "logical_not", "bitwise_not", "equal", "allclose", "isclose",
                 "isnan", "isinf", "isfinite", "sum", "mean", "prod", "max", "min", "amax",
                 "amin", "argmax", "argmin", "var", "std", "logsumexp", "norm", "sum_to_size",
                 "all", "any", "count_nonzero", "reshape", "view", "flatten", "unflatten",
                 "squeeze", "unsqueeze", "transpose", "swapaxes", "swapdims", "t", "permute",
                 "expand", "broadcast_to", "repeat", "flip", "narrow", "narrow_copy", "select",
                 "split", "chunk",
                 "unbind", "contiguous", "clone", "gather", "scatter", "scatter_add",
                 "index_select", "masked_select", "nonzero", "matmul", "mm", "bmm",
                 "floor_divide", "remainder", "add_", "sub_", "mul_", "div_", "zero_", "fill_",
                 "copy_", "where"):
        methods[name] = getattr(api, name)
    methods["where"] = lambda self, condition, other: api.where(condition, self, other)
    methods["broadcast_to"] = _broadcast_to
    for name in ("maximum", "minimum", "logical_and", "logical_or", "logical_xor", "isclose",
                 "allclose", "equal"):
        methods[name] = _tensor_other(methods[name])
    methods["subtract"], methods["multiply"], methods["divide"] = api.sub, api.mul, api.div
    methods["clip"] = api.clamp
    methods["true_divide"] = api.div
    methods["dot"] = methods["mv"] = api.matmul
    methods["view_as"] = lambda self, other: api.view(self, other.shape)
    methods["reshape_as"] = lambda self, other: api.reshape(self, other.shape)
    methods["expand_as"] = lambda self, other: api.expand(self, other.shape)
    methods["type_as"] = lambda self, other: api.to_dtype(self, other.dtype)
    for name in ("exp", "log", "log1p", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid",
                 "relu", "abs", "neg", "floor", "ceil", "round", "sign", "reciprocal",
                 "clamp", "masked_fill", "pow", "trunc", "log2", "expm1", "scatter",
                 "scatter_add", "remainder"):
        methods[name + "_"] = _inplace_unary(methods[name])
    methods["clamp_"] = methods["clip_"] = _clamp_(methods["clamp_"])
    methods["T"] = property(lambda self: api.permute(self, *reversed(range(self.ndim))))
    methods["to"] = _to
    methods["type"] = _type
    for dt in _dtype._ALL:  # t.float(), t.long(), t.bfloat16(), ...
        methods[dt.scalar_name.lower()] = (
            lambda d: lambda self, memory_format=None: api.to_dtype(self, d))(dt)
    methods["cpu"] = _cpu
    methods["cuda"] = lambda self, *a, **k: _to(self, "cuda")
    methods["new_zeros"] = _new_factory(C.zeros)
    methods["new_ones"] = _new_factory(C.ones)
    methods["new_empty"] = _new_factory(C.empty)
    methods["new_tensor"] = _new_tensor
    methods["new_full"] = _new_full
    methods["uniform_"], methods["normal_"], methods["random_"] = _uniform_, _normal_, _random_
    methods["exponential_"] = _exponential_
    methods.update(_operators())
    for name, fn in methods.items():
        setattr(Tensor, name, fn)


def _operators():
    ops = {
        # x + t, x + 1.5 and 1.5 + x: the fast paths (exact: scalar addition and product commute)
        # (the fast paths hand any other operand to the general function: _operand's check)
        "__add__": binary_operator(E.AddBackward0, np.add, False, _operand(api.add)),
        "__radd__": scalar_operator(E.AddBackward0, np.add, _operand(_reflect(api.add))),
        "__iadd__": api.add_,
        "__sub__": binary_operator(E.SubBackward0, np.subtract, False, _operand(api.sub)),
        "__rsub__": _operand(_reflect(api.sub)), "__isub__": api.sub_,
        "__mul__": binary_operator(E.MulBackward0, np.multiply, True, _operand(api.mul)),
        "__rmul__": scalar_operator(E.MulBackward0, np.multiply, _operand(_reflect(api.mul))),
        "__imul__": api.mul_,
        "__truediv__": binary_operator(E.DivBackward0, np.true_divide, True, _operand(api.div)),
        "__rtruediv__": _operand(_reflect(api.div)), "__itruediv__": api.div_,
        "__floordiv__": _operand(api.floor_divide),
        "__rfloordiv__": _operand(_reflect(api.floor_divide)),
        "__mod__": _operand(api.remainder), "__rmod__": _operand(_reflect(api.remainder)),
        "__pow__": _operand(api.pow), "__rpow__": _operand(_reflect(api.pow)),
        "__matmul__": _operand(api.matmul), "__rmatmul__": _operand(_reflect(api.matmul)),
        "__neg__": unary_function(E.NegBackward0, api.neg),
        "__pos__": lambda self: self, "__abs__": UNARY["abs"],
        "__eq__": _comparison(api.eq), "__ne__": _comparison(api.ne),
        "__lt__": _comparison(api.lt), "__le__": _comparison(api.le),
        "__gt__": _comparison(api.gt), "__ge__": _comparison(api.ge),
        "__and__": api.bitwise_and, "__or__": api.bitwise_or, "__xor__": api.bitwise_xor,
        # in place as torch's (Python's fallback would rebind to a new tensor, never refusing)
        "__iand__": lambda self, other: self.bitwise_and_(other),
        "__ior__": lambda self, other: self.bitwise_or_(other),
        "__ixor__": lambda self, other: self.bitwise_xor_(other),
        "__ifloordiv__": lambda self, other: self.floor_divide_(other),
        "__imod__": lambda self, other: self.remainder_(other),
        "__ipow__": lambda self, other: self.pow_(other),
        "__rand__": _reflect(api.bitwise_and), "__ror__": _reflect(api.bitwise_or),
        "__invert__": _invert,
        "__getitem__": api.getitem, "__setitem__": api.setitem,
    }
    return ops


def _invert(self):
    if self._data.dtype.kind not in "biu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return api.bitwise_not(self)


_bind()
Tensor.__hash__ = lambda self: id(self)


_SOFTMAX_PARAMETERS = frozenset({"input", "dim", "dtype"})


def _activation(name):
    """A Tensor method / top-level function whose primitive lives in ops.activation_ops."""
    def fn(input, *args, **kwargs):
        if kwargs:  # softmax(x, axis=1), as torch's argument parser takes it
            out.rename_numpy_keywords(kwargs, _SOFTMAX_PARAMETERS)
        from .ops import activation_ops  # lazy: ``import ember`` does not load the activations
        return getattr(activation_ops, name)(input, *args, **kwargs)
    fn.__name__ = name
    return fn


ACTIVATIONS = {name: _activation(name) for name in ("softmax", "log_softmax", "erf")}
for _name, _fn in ACTIVATIONS.items():
    setattr(Tensor, _name, _fn)


def _bind_math_methods():
    """Tensor methods of the issue-14 math API (sorting, scans, triangles, linalg)."""
    methods = {name: getattr(module, name) for module, names in (
        (sorting, ("sort", "argsort", "topk")), (scan, ("cumsum", "cumprod", "logcumsumexp")),
        (matrix_ops, ("tril", "triu", "diag", "diagonal", "outer", "lerp", "addmm", "baddbmm",
                      "clamp_min", "clamp_max", "roll", "repeat_interleave"))) for name in names}
    methods.update(ger=matrix_ops.outer, det=linalg.det, inverse=linalg.inv)
    methods.update(linalg.TENSOR_METHODS)
    for name in ("tril", "triu", "cumsum", "cumprod", "lerp", "addmm", "baddbmm", "clamp_min",
                 "clamp_max"):
        methods[name + "_"] = _inplace_unary(methods[name])
    for name, fn in methods.items():
        setattr(Tensor, name, fn)


_bind_math_methods()


def _bind_index_methods():
    """Tensor methods of index_ops (index_add, index_copy, index_fill, take, take_along_dim, t_,
    transpose_, unfold)."""
    for name in ("index_add", "index_add_", "index_copy", "index_copy_", "index_fill",
                 "index_fill_", "take", "take_along_dim", "t_", "transpose_", "unfold"):
        setattr(Tensor, name, getattr(index_ops, name))


_bind_index_methods()


def _spectral(name):
    """Tensor.stft / Tensor.istft: torch.stft / istft of the tensor (ember._spectral)."""
    def method(self, *args, **kwargs):
        from . import _spectral  # lazy: ``import ember`` does not load torch.fft
        return getattr(_spectral, name)(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    return method


Tensor.stft, Tensor.istft = _spectral("stft"), _spectral("istft")


def _bind_composite_methods():
    """Tensor methods of the composites, order statistics and counting functions."""
    table = {composites: ("square", "ravel", "fliplr", "flipud", "rot90", "tensor_split",
                          "masked_scatter", "masked_scatter_", "nan_to_num", "diff", "cross",
                          "kron"),
             order_stats: ("kthvalue", "median", "mode", "cummax", "cummin", "aminmax",
                           "nansum", "nanmean"),
             counting: ("unique", "bincount", "histc"),
             matrix_functions: ("dist", "matrix_exp")}
    for module, names in table.items():
        for name in names:
            setattr(Tensor, name, getattr(module, name))
    for name in ("square", "nan_to_num"):
        setattr(Tensor, name + "_", _inplace_unary(getattr(composites, name)))
    Tensor.multinomial = C.multinomial
    Tensor.pin_memory = lambda self, device=None: self  # no pinned memory off the GPU


_bind_composite_methods()


def _bind_shape_statistics_methods():
    """Tensor methods of ops.shape_extra and ops.statistics (tile, movedim, trace, quantile...)."""
    names = {shape_extra: ("argwhere", "diag_embed", "diagflat", "diagonal_scatter",
                           "dsplit", "hsplit", "vsplit", "index_put", "index_put_", "inner",
                           "moveaxis", "movedim", "msort", "put", "put_", "renorm",
                           "select_scatter", "slice_scatter", "tile", "trace", "vdot"),
             statistics: ("unique_consecutive", "quantile", "nanquantile", "nanmedian", "cov",
                          "corrcoef")}
    for module, listed in names.items():
        for name in listed:
            setattr(Tensor, name, getattr(module, name))
    Tensor.renorm_ = _inplace_unary(shape_extra.renorm)


_bind_shape_statistics_methods()


def _refusing_overlap(method, name):
    """``method`` (an in-place one) raising torch's error for a tensor whose elements share
    memory (an expand()ed one) instead of NumPy's read-only ValueError, or, for the methods
    torch allows there, writing through to the shared memory; costs nothing else."""
    allowed = name in OVERLAP_ALLOWED
    checked = name in CHECKS_INPUT_OVERLAP
    elementwise = name in ELEMENTWISE
    setitem = name == "__setitem__"

    def inplace(self, *args, **kwargs):
        if elementwise:
            refuse_output_shape(self, args + tuple(kwargs.values()))
        if checked:
            _check_input_overlap(self, args, kwargs, setitem)
        if allowed and overlaps(self):
            key = args[0] if name == "__setitem__" else None
            return write_through_overlap(self, lambda t: method(t, *args, **kwargs), key)
        try:
            return method(self, *args, **kwargs)
        except ValueError as error:
            if "read-only" in str(error) and overlaps(self):
                raise RuntimeError(OVERLAP) from None
            raise
    inplace.__name__, inplace.__doc__ = method.__name__, method.__doc__
    inplace.__wrapped__ = method
    return inplace


def _check_input_overlap(self, args, kwargs, setitem):
    """torch's refusal of an input that partly overlaps the tensor an in-place op writes (for
    an item assignment: the indexed part, when the index is basic)."""
    values = [a._data for a in args if isinstance(a, Tensor)]
    values += [v._data for v in kwargs.values() if isinstance(v, Tensor)]
    if not values:
        return
    target = self._data
    if setitem:
        values = values[-1:]  # the value (the key's tensors are indices)
        if not np.may_share_memory(target, values[0]):
            return
        key = args[0]
        items = key if type(key) is tuple else (key,)
        if not all(i is None or i is Ellipsis or type(i) in (int, slice) for i in items):
            return  # advanced indexing: index_put_ copies its values first
        target = target[one_ellipsis(key, target.ndim) if type(key) is tuple else key]
    refuse_partial_overlap(target, values)


def take_numpy_names():
    """Let every Tensor method with a ``dim`` or ``keepdim`` parameter take NumPy's names for
    them (``x.sum(axis=1, keepdims=True)``), as torch's argument parser does (called once,
    after every module has bound its methods; the namespace functions get it with out=)."""
    for name, method in list(vars(Tensor).items()):
        code = getattr(method, "__code__", None)
        if code is None or name.startswith("__") or name == "norm" or code.co_flags & 0x08:
            continue  # (torch's Tensor.norm is Python: NumPy's names are a TypeError there)
        params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        if "dim" in params or "keepdim" in params:
            setattr(Tensor, name, _numpy_names(method, frozenset(params)))


def _numpy_names(method, accepted):
    @functools.wraps(method)
    def renaming(self, *args, **kwargs):
        if kwargs:
            out.rename_numpy_keywords(kwargs, accepted)
        return method(self, *args, **kwargs)
    return renaming


def guard_inplace_methods():
    """Wrap every in-place Tensor method (``x_``) and item assignment with _refusing_overlap
    (called once, after every module has bound its methods)."""
    for name in [n for n in dir(Tensor) if n.endswith("_") and not n.startswith("_")]:
        method = getattr(Tensor, name)
        if callable(method) and not hasattr(method, "__wrapped__"):
            setattr(Tensor, name, _refusing_overlap(method, name))
    Tensor.__setitem__ = _refusing_overlap(Tensor.__setitem__, "__setitem__")
    for dunder, name in (("__iadd__", "add_"), ("__isub__", "sub_"), ("__imul__", "mul_"),
                         ("__itruediv__", "div_"), ("__ifloordiv__", "floor_divide_"),
                         ("__imod__", "remainder_"), ("__ipow__", "pow_"),
                         ("__iand__", "bitwise_and_"), ("__ior__", "bitwise_or_"),
                         ("__ixor__", "bitwise_xor_"), ("__ilshift__", "bitwise_left_shift_"),
                         ("__irshift__", "bitwise_right_shift_")):
        guarded = getattr(Tensor, name, None)  # x += y: the method's guards too
        if getattr(guarded, "__wrapped__", None) is getattr(Tensor, dunder, None):
            setattr(Tensor, dunder, guarded)
