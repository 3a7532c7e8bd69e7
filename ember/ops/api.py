"""The public functional API (ember.add, ember.sum, ...): argument handling over the primitives."""
import builtins

import numpy as np

from .. import _dtype, _fp
from .._creation import tensor
from .._tensor import Tensor
from ..autograd import grad_mode
from . import elementwise as E
from . import indexing as I
from . import reduction as R
from . import shape as S
from .fastpath import binary_operator, unary_function
from .inplace import apply_inplace, fast_binary_inplace, needs_graph
from .linalg import bmm, matmul, mm  # noqa: F401  (re-exported)

# with a Python scalar or a tensor of the input's dtype and shape; None: take the general path
_fast_add = binary_operator(E.AddBackward0, np.add, False)
_fast_sub = binary_operator(E.SubBackward0, np.subtract, False)
_fast_mul = binary_operator(E.MulBackward0, np.multiply, True)
_fast_div = binary_operator(E.DivBackward0, np.true_divide, True)
_fast_neg = unary_function(E.NegBackward0)


def _t(x):
    if isinstance(x, Tensor):
        return x
    return tensor(x)


# ----------------------------------------------------------------- arithmetic
def add(input, other, *, alpha=1):
    """input + alpha * other, broadcasting."""
    if alpha == 1:
        out = _fast_add(input, other)
        if out is not None:
            return out
    if not isinstance(input, Tensor):
        return E.AddBackward0.apply(other, input, alpha=1) if alpha == 1 else \
            E.AddBackward0.apply(_t(input), other, alpha=alpha)
    return E.AddBackward0.apply(input, other, alpha=alpha)


def sub(input, other, *, alpha=1):
    """input - alpha * other, broadcasting."""
    if alpha == 1:
        out = _fast_sub(input, other)
        if out is not None:
            return out
    if not isinstance(input, Tensor):
        return rsub(other, input, alpha=alpha)
    if input._data.dtype.kind == "b" or isinstance(other, Tensor) and \
            other._data.dtype.kind == "b":
        _no_bool_sub(input, other)
    return E.SubBackward0.apply(input, other, alpha=alpha)


def _no_bool_sub(input, other):
    if isinstance(other, Tensor) and input._data.dtype.kind == other._data.dtype.kind == "b":
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                       "If you are trying to invert a mask, use the `~` or `logical_not()` "
                       "operator instead.")


def rsub(input, other, *, alpha=1):
    if input._data.dtype.kind == "b":
        _no_bool_sub(input, other)
    return E.RsubBackward1.apply(input, other, alpha=alpha)


def mul(input, other):
    """input * other, broadcasting."""
    out = _fast_mul(input, other)
    if out is not None:
        return out
    if not isinstance(input, Tensor):
        input, other = other, input
    return E.MulBackward0.apply(input, other)


def div(input, other, *, rounding_mode=None):
    """input / other (true division unless rounding_mode is 'trunc' or 'floor')."""
    if rounding_mode is None:
        out = _fast_div(input, other)
        if out is not None:
            return out
    if not isinstance(input, Tensor):
        if rounding_mode is None:  # s / x is reciprocal(x) * s, as torch records it
            return E.MulBackward0.apply(E.ReciprocalBackward0.apply(other), input)
        input = _t(input)
    cls = E.DivBackward0 if rounding_mode is None else E.DivBackward2
    return cls.apply(input, other, rounding_mode=rounding_mode)


def floor_divide(input, other):
    return div(input, other, rounding_mode="floor")


def remainder(input, other):
    """Python-style modulus (sign of the divisor)."""
    if not isinstance(input, Tensor):  # scalar % tensor: torch has no derivative for it
        return E.NoDerivative.apply(_t(input), other, op="remainder")
    if isinstance(other, Tensor):
        return E.RemainderBackward1.apply(input, other)
    return E.RemainderBackward0.apply(input, other)


def pow(input, exponent):
    """input ** exponent (either may be a scalar)."""
    if not isinstance(input, Tensor):
        return E.PowBackward2.apply(input, exponent)
    if isinstance(exponent, Tensor):
        return E.PowBackward1.apply(input, exponent)
    return E.PowBackward0.apply(input, exponent)


def neg(input):
    out = _fast_neg(input)
    if out is not None:
        return out
    if input._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return E.NegBackward0.apply(input)


def clamp(input, min=None, max=None):
    """Limit values to [min, max] (scalars, or tensors that also get gradients)."""
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return E.ClampBackward0.apply(input, min, max)
    return E.ClampBackward1.apply(input, min=min, max=max)


def where(condition, input=None, other=None):
    """Elements of input where condition holds, else of other; one argument: nonzero indices."""
    if input is None and other is None:
        return tuple(Tensor._make(i) for i in np.nonzero(_t(condition)._data))
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if cond.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {_dtype.from_numpy_dtype(cond.dtype)}")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = _t(input)
    return E.WhereBackward0.apply(cond, input, other)


def masked_fill(input, mask, value):
    """Replace elements where ``mask`` is True by ``value`` (a scalar or 0-dim tensor)."""
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value._data.ndim} dimension(s).")
        return E.MaskedFillBackward1.apply(input, mask, value)
    return E.MaskedFillBackward0.apply(input, mask, value)


def maximum(input, other):
    return E.MaximumBackward0.apply(input, other)


def minimum(input, other):
    return E.MinimumBackward0.apply(input, other)


# ----------------------------------------------------------------- comparisons and logic
def _compare(ufunc):
    def compare(input, other):
        x, y = E._operands(_t(input), other)
        return Tensor._make(np.asarray(ufunc(x, y)))
    compare.__name__ = ufunc.__name__
    compare.__doc__ = f"Element-wise {ufunc.__name__} (bool result)."
    return compare


eq, ne, lt, le, gt, ge = (_compare(f) for f in (np.equal, np.not_equal, np.less, np.less_equal,
                                                 np.greater, np.greater_equal))
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def _logical(ufunc):
    def logical(input, other=None):
        if other is None:
            return Tensor._make(np.asarray(ufunc(_t(input)._data)))
        return Tensor._make(np.asarray(ufunc(_t(input)._data, _t(other)._data)))
    logical.__name__ = ufunc.__name__
    return logical


logical_and, logical_or, logical_xor, logical_not = (
    _logical(f) for f in (np.logical_and, np.logical_or, np.logical_xor, np.logical_not))


def _bitwise(ufunc):
    def bitwise(input, other=None):
        if other is None:
            return Tensor._make(np.asarray(ufunc(_t(input)._data)))
        x, y = E._operands(_t(input), other)
        return Tensor._make(np.asarray(ufunc(x, y)))
    return bitwise


bitwise_and, bitwise_or, bitwise_xor, bitwise_not = (
    _bitwise(f) for f in (np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert))


def equal(input, other):
    """True if both tensors have the same shape and elements."""
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return Tensor._make(np.isclose(input._data, _t(other)._data, rtol, atol, equal_nan))


def isnan(input):
    return Tensor._make(np.isnan(input._data))


def isinf(input):
    return Tensor._make(np.isinf(input._data))


def isfinite(input):
    return Tensor._make(np.isfinite(input._data))


# ----------------------------------------------------------------- reductions
def _dim_or_none(dim):
    return None if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0) else dim


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over all elements or over ``dim`` (int or tuple)."""
    dim = _dim_or_none(dim)
    cls = R.SumBackward0 if dim is None else R.SumBackward1
    return cls.apply(input, dim=dim, keepdim=keepdim if dim is not None else False, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over all elements or over ``dim``."""
    dim = _dim_or_none(dim)
    cls = R.MeanBackward0 if dim is None else R.MeanBackward1
    return cls.apply(input, dim=dim, keepdim=keepdim if dim is not None else False, dtype=dtype)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product over all elements or over one ``dim``."""
    cls = R.ProdBackward0 if dim is None else R.ProdBackward1
    return cls.apply(input, dim=dim, keepdim=keepdim if dim is not None else False, dtype=dtype)


class _ValuesIndices(tuple):
    """(values, indices) as returned by max(dim)/min(dim)/sort/topk."""

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self):
        return f"{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def _minmax(full_cls, dim_cls, binary, name):
    def reduce(input, dim=None, keepdim=False, *, out=None):
        if isinstance(dim, Tensor):
            return binary(input, dim)
        if dim is None:
            return full_cls.apply(input)
        values = dim_cls.apply(input, dim=dim, keepdim=keepdim)
        node_indices = values._grad_fn.indices if values._grad_fn is not None else None
        if node_indices is None:  # no graph: recompute indices
            arg = np.argmax if name == "max" else np.argmin
            x = input._data
            node_indices = np.asarray(arg(x, axis=dim, keepdims=keepdim)) if x.ndim else \
                np.zeros((), np.int64)
        result = _ValuesIndices((values, Tensor._make(node_indices.astype(np.int64))))
        result._name = f"torch.return_types.{name}"
        return result
    reduce.__name__ = name
    reduce.__doc__ = f"{name} of all elements, (values, indices) along dim, or element-wise."
    return reduce


max = _minmax(R.MaxBackward1, R.MaxBackward0, maximum, "max")
min = _minmax(R.MinBackward1, R.MinBackward0, minimum, "min")


def amax(input, dim=(), keepdim=False):
    return R.AmaxBackward0.apply(input, dim=dim, keepdim=keepdim)


def amin(input, dim=(), keepdim=False):
    return R.AminBackward0.apply(input, dim=dim, keepdim=keepdim)


def argmax(input, dim=None, keepdim=False):
    """Index of the largest element (flattened when dim is None)."""
    return _arg_reduce(np.argmax, input, dim, keepdim, "argmax")


def argmin(input, dim=None, keepdim=False):
    return _arg_reduce(np.argmin, input, dim, keepdim, "argmin")


def _arg_reduce(fn, input, dim, keepdim, name):
    x = input._data
    if x.dtype.kind == "b":
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if x.size == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                               "input.numel() == 0.")
        return Tensor._make(np.asarray(fn(x), dtype=np.int64))
    dims = R._dims(x, dim)
    R.check_nonempty(x, dims, name)
    if not dims:  # a 0-d input
        return Tensor._make(np.zeros((), dtype=np.int64))
    return Tensor._make(np.asarray(fn(x, axis=dims[0], keepdims=keepdim), dtype=np.int64))


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance with Bessel's correction by default (correction=1)."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return R.VarBackward0.apply(input, dim=_dim_or_none(dim),
                                correction=_correction(unbiased, correction), keepdim=keepdim)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation with Bessel's correction by default."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return R.StdBackward0.apply(input, dim=_dim_or_none(dim),
                                correction=_correction(unbiased, correction), keepdim=keepdim)


def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input))) over dim, computed stably."""
    return R.LogsumexpBackward0.apply(input, dim=dim, keepdim=keepdim)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector p-norm over all elements or dim ('fro' = 2)."""
    if p in ("fro", None):
        p = 2
    return R.LinalgVectorNormBackward0.apply(input, p=p, dim=_dim_or_none(dim), keepdim=keepdim)


def sum_to_size(input, *size):
    """Sum input down to a broadcast-compatible size (input itself when already that size)."""
    size = S._shape_arg(size)
    if tuple(size) == input._data.shape:
        return input
    lead = input._data.ndim - len(size)
    if lead > 0:  # torch sums keeping dims, then views down to ``size``
        return reshape(sum_to_size(input, (1,) * lead + size), size)
    return R.SumToSizeBackward.apply(input, size=size)


def all(input, dim=None, keepdim=False):
    return Tensor._make(np.asarray(np.all(input._data, axis=dim, keepdims=keepdim)))


def any(input, dim=None, keepdim=False):
    return Tensor._make(np.asarray(np.any(input._data, axis=dim, keepdims=keepdim)))


def count_nonzero(input, dim=None):
    return Tensor._make(np.asarray(np.count_nonzero(input._data, axis=dim), dtype=np.int64))


# ----------------------------------------------------------------- shapes
def reshape(input, *shape):
    """Same data in a new shape (a view when possible, else a copy: UnsafeViewBackward0)."""
    shape = S._shape_arg(shape)
    x = input._data
    if x.flags.c_contiguous or S.view_possible(x, S._infer_shape(x.size, shape)):
        return S.as_view(S.ViewBackward0.apply(input, shape=shape), input)
    return S.UnsafeViewBackward0.apply(input, shape=shape)


def view(input, *shape):
    """A view with a new shape; errors when the memory layout does not allow one."""
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        return Tensor._make(input._data.view(shape[0].np))
    return S.as_view(S.ViewBackward0.apply(input, shape=S._shape_arg(shape), copy_ok=False), input)


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims start_dim..end_dim into one."""
    shape = input._data.shape
    if not shape:
        return reshape(input, 1)
    s, e = S._dim(len(shape), start_dim), S._dim(len(shape), end_dim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    new = shape[:s] + (int(np.prod(shape[s:e + 1])),) + shape[e + 1:]
    return reshape(input, new)


def unflatten(input, dim, sizes):
    shape = input._data.shape
    d = S._dim(len(shape), dim)
    sizes = S._infer_shape(shape[d], sizes)
    return reshape(input, shape[:d] + sizes + shape[d + 1:])


def squeeze(input, dim=None):
    """Remove size-1 dims (all, or those in dim)."""
    shape = input._data.shape
    if dim is None:
        dims = [i for i, s in enumerate(shape) if s == 1]
    else:
        dims = [S._dim(len(shape), d) for d in ((dim,) if isinstance(dim, int) else dim)]
    new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
    cls = S.SqueezeBackward0 if dim is None else (
        S.SqueezeBackward1 if isinstance(dim, int) else S.SqueezeBackward2)
    return S.as_view(cls.apply(input, shape=new), input)


def unsqueeze(input, dim):
    """Insert a size-1 dim at ``dim``."""
    shape = input._data.shape
    d = S._dim(len(shape) + 1, dim)
    return S.as_view(S.UnsqueezeBackward0.apply(input, shape=shape[:d] + (1,) + shape[d:]), input)


def transpose(input, dim0, dim1):
    """Swap two dims (a view)."""
    return S.as_view(S.TransposeBackward0.apply(input, dim0=dim0, dim1=dim1), input)


swapaxes = swapdims = transpose


def t(input):
    """Transpose a <=2-D tensor."""
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input._data.ndim}D")
    return S.as_view(S.TBackward0.apply(input, dim0=0, dim1=-1), input)


def permute(input, *dims):
    return S.as_view(S.PermuteBackward0.apply(input, dims=S._shape_arg(dims)), input)


def expand(input, *sizes):
    return S.as_view(S.ExpandBackward0.apply(input, shape=S._shape_arg(sizes)), input)


def broadcast_to(input, size):
    return expand(input, *size)


def repeat(input, *repeats):
    return S.RepeatBackward0.apply(input, repeats=S._shape_arg(repeats))


def flip(input, *dims):
    """Reverse the order of elements along dims (a tuple, or several ints as torch's method)."""
    dims = dims[0] if len(dims) == 1 else dims
    return S.FlipBackward0.apply(input, dims=(dims,) if isinstance(dims, int) else tuple(dims))


def narrow(input, dim, start, length):
    d = S._dim(input._data.ndim, dim)
    start = int(start) % input._data.shape[d] if start < 0 else int(start)
    if start + length > input._data.shape[d]:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({input._data.shape[d]}).")
    return I.getitem(input, (slice(None),) * d + (slice(start, start + length),))


def select(input, dim, index):
    d = S._dim(input._data.ndim, dim)
    return S.as_view(S.SelectBackward0.apply(input, index=(slice(None),) * d + (int(index),)),
                     input)


def split(tensor, split_size_or_sections, dim=0):
    """Split into chunks of a size (or a list of sizes) along dim; the pieces are views."""
    n = tensor._data.shape[S._dim(tensor._data.ndim, dim)]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        sizes = [size] * (n // size) + ([n % size] if n % size else []) if size else [0]
    else:
        sizes = list(split_size_or_sections)
        if builtins.sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {dim}), but got split_sizes="
                               f"{sizes}")
    d = S._dim(tensor._data.ndim, dim)
    cls = S.SplitBackward0 if isinstance(split_size_or_sections, int) else \
        S.SplitWithSizesBackward0
    out, start = [], 0
    for s in sizes:
        index = (slice(None),) * d + (slice(start, start + s),)
        out.append(S.as_view(cls.apply(tensor, index=index), tensor))
        start += s
    return tuple(out)





def chunk(input, chunks, dim=0):
    n = input._data.shape[S._dim(input._data.ndim, dim)]
    size = -(-n // chunks)
    return split(input, size, dim) if size else (input,)


def unbind(input, dim=0):
    d = S._dim(input._data.ndim, dim)
    return tuple(S.as_view(S.UnbindBackward0.apply(input, index=(slice(None),) * d + (i,)), input)
                 for i in range(input._data.shape[d]))


def cat(tensors, dim=0):
    """Concatenate along an existing dim."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return S.CatBackward0.apply(*tensors, dim=dim)


concat = concatenate = cat


def stack(tensors, dim=0):
    """Stack equal-shaped tensors along a new dim."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return S.StackBackward0.apply(*tensors, dim=dim)


def contiguous(input, memory_format=None):
    if input._data.flags.c_contiguous:
        return input
    return clone(input)


class CloneBackward0(E.Node):
    """out = a copy of a;  da = g."""

    def forward(self, a):
        return a._data.copy()

    def backward(self, m, g):
        return (g,)


class ToCopyBackward0(E.Node):
    """out = a cast to another dtype;  da = g cast back (by the engine)."""

    def forward(self, a, dtype):
        return a._data.astype(dtype)

    def backward(self, m, g):
        return (g,)


class CopyBackwards(E.Node):
    """out = src broadcast to a's shape and dtype (copy_);  da = 0, dsrc = g."""

    def forward(self, a, src):
        try:
            return np.broadcast_to(src._data, a._data.shape).astype(a._data.dtype)
        except ValueError:
            raise RuntimeError(f"The size of tensor a ({list(a._data.shape)}) must match the "
                               f"size of tensor b ({list(src._data.shape)})") from None

    def backward(self, m, g):
        return m.zeros_like(g), g


def clone(input, *, memory_format=None):
    return CloneBackward0.apply(input)


def to_dtype(input, dtype, copy=False):
    npd = _dtype.to_numpy_dtype(dtype)
    if npd == input._data.dtype and not copy:
        return input
    if npd.kind not in "fV" or not input._requires_grad:  # "V": bfloat16
        token = _fp.quiet()  # NaN or inf cast to an integer: no NumPy warning, as torch
        try:
            return Tensor._make(input._data.astype(npd))
        finally:
            _fp.restore(token)
    return ToCopyBackward0.apply(input, dtype=npd)


# ----------------------------------------------------------------- indexing
def gather(input, dim, index):
    return I.GatherBackward0.apply(input, dim=dim, index=index)


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    src = src if src is not None else value
    cls = I.ScatterBackward0 if isinstance(src, Tensor) else I.ScatterBackward1
    return cls.apply(input, src, dim=dim, index=index, reduce=reduce)


def scatter_add(input, dim, index, src):
    return I.ScatterAddBackward0.apply(input, src, dim=dim, index=index)


def index_select(input, dim, index):
    return I.IndexSelectBackward0.apply(input, dim=dim, index=index)


def masked_select(input, mask):
    """The elements of input where the (broadcast) boolean mask is True, as a 1-D tensor."""
    m = mask._data if mask.shape == input.shape else np.broadcast_to(mask._data, input.shape)
    return I.MaskedSelectBackward0.apply(input, index=m)


def nonzero(input, *, as_tuple=False):
    idx = np.nonzero(input._data)
    if as_tuple:
        return tuple(Tensor._make(i.astype(np.int64)) for i in idx)
    return Tensor._make(np.stack(idx, axis=1).astype(np.int64))


# ----------------------------------------------------------------- in-place
_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}


def _inplace_binary(name, op):
    ufunc = _UFUNCS[name]

    def method(self, other, *, alpha=1, **kwargs):
        if not needs_graph(self, other) and not kwargs:
            if name == "div" and self._data.dtype.kind != "f":
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
    """Fill with ``value`` in place."""
    if not needs_graph(self, value):
        grad_mode.check_inplace(self._vc)  # an inference tensor refuses before the write
        self._data[...] = value._data if isinstance(value, Tensor) else E.scalar_as(
            value, self._data.dtype)
        self._vc[0] += 1
        return self
    if not isinstance(value, Tensor):
        return apply_inplace(self, FillBackward2.apply, value)
    return apply_inplace(self, lambda a, v: E.MaskedFillBackward1.apply(
        a, np.ones(a._data.shape, bool), v), value)


def copy_(self, src, non_blocking=False):
    """Copy src (broadcast) into self in place."""
    src = _t(src)
    if not needs_graph(self, src):
        grad_mode.check_inplace(self._vc)  # an inference tensor refuses before the write
        try:
            np.copyto(self._data, np.broadcast_to(src._data, self._data.shape),
                      casting="unsafe")
        except ValueError:
            raise RuntimeError(f"The size of tensor a ({self._data.shape}) must match the size "
                               f"of tensor b ({src._data.shape})") from None
        self._vc[0] += 1
        return self
    return apply_inplace(self, CopyBackwards.apply, src)


def setitem(self, index, value):
    I.setitem(self, index, value)


def getitem(self, index):
    return I.getitem(self, index)
