"""The public reductions (ember.sum, ember.max, ember.var, ...)."""
import numpy as np

from ... import _dtype
from ..._memory_format import contiguous_result
from ..._tensor import Tensor
from ...autograd.graph import observe_untracked
from .. import reduction as R
from .. import shape as S
from ..linalg_extra import _VectorNormExtremes
from .arithmetic import maximum, minimum
from .shapes import reshape


def _dim_or_none(dim):
    return None if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0) else dim


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over all elements or over ``dim`` (int or tuple; None or () with keepdim: every dim,
    kept as size 1, as torch)."""
    if dim is None and not keepdim:
        return R.SumBackward0.apply(input, dim=None, keepdim=False, dtype=dtype)
    return R.SumBackward1.apply(input, dim=_dim_or_none(dim), keepdim=keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over all elements or over ``dim`` (as sum's)."""
    if dim is None and not keepdim:
        return R.MeanBackward0.apply(input, dim=None, keepdim=False, dtype=dtype)
    return R.MeanBackward1.apply(input, dim=_dim_or_none(dim), keepdim=keepdim, dtype=dtype)


def prod(input, dim=S.ALL_DIMS, keepdim=False, *, dtype=None):
    """Product over all elements or over one ``dim``."""
    if dim is S.ALL_DIMS:
        return R.ProdBackward0.apply(input, dim=None, keepdim=False, dtype=dtype)
    if not isinstance(dim, (int, np.integer)):  # (one dim: not a tuple, not None)
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    return R.ProdBackward1.apply(input, dim=dim, keepdim=keepdim, dtype=dtype)


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
    def reduce(input, dim=S.ALL_DIMS, keepdim=False, *, out=None, other=None):
        if other is not None:  # torch.max(input, other=...): the element-wise form
            return binary(input, other)
        if isinstance(dim, Tensor):
            return binary(input, dim)
        S.refuse_none_dim(dim, name)
        every = dim is S.ALL_DIMS
        _dtype.refuse_complex(input._data.dtype, f"{name}_all" if every else None,
                              f"{name}(): does not support complex input")
        if every:
            return full_cls.apply(input)
        S._dim(input._data.ndim, dim)  # torch's IndexError (a 0-d tensor takes only 0 and -1)
        values = dim_cls.apply(input, dim=dim, keepdim=keepdim)
        node_indices = values._grad_fn.indices if values._grad_fn is not None else None
        if node_indices is None:  # no graph: recompute indices
            arg = np.argmax if name == "max" else np.argmin
            x = input._data
            node_indices = np.asanyarray(arg(x, axis=dim, keepdims=keepdim)) if x.ndim else \
                np.zeros((), np.int64)
        indices = Tensor._make(node_indices.astype(np.int64))
        result = _ValuesIndices((values, observe_untracked("indices", (values,), indices)))
        result._name = f"torch.return_types.{name}"
        return result
    reduce.__name__ = name
    reduce.__doc__ = f"{name} of all elements, (values, indices) along dim, or element-wise."
    return reduce


max = _minmax(R.MaxBackward1, R.MaxBackward0, maximum, "max")
min = _minmax(R.MinBackward1, R.MinBackward0, minimum, "min")


def amax(input, dim=(), keepdim=False):
    _dtype.refuse_complex(input._data.dtype, "max_values_cpu")
    return R.AmaxBackward0.apply(input, dim=dim, keepdim=keepdim)


def amin(input, dim=(), keepdim=False):
    _dtype.refuse_complex(input._data.dtype, "min_values_cpu")
    return R.AminBackward0.apply(input, dim=dim, keepdim=keepdim)


def argmax(input, dim=None, keepdim=False):
    """Index of the largest element (flattened when dim is None)."""
    out = _arg_reduce(np.argmax, input, dim, keepdim, "argmax")
    return observe_untracked("argmax", (input, dim, keepdim), out)


def argmin(input, dim=None, keepdim=False):
    out = _arg_reduce(np.argmin, input, dim, keepdim, "argmin")
    return observe_untracked("argmin", (input, dim, keepdim), out)


def _arg_reduce(fn, input, dim, keepdim, name):
    x = input._data
    if x.dtype.kind == "b":
        raise RuntimeError(f"{name}(): does not support bool input")
    _dtype.refuse_complex(x.dtype, message=f"{name}(): does not support complex input")
    if dim is None:
        if x.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                               "input.numel() == 0.")
        flat = np.asarray(fn(x), dtype=np.int64)  # (keepdim: every dim kept, as torch)
        return Tensor._make(flat.reshape((1,) * x.ndim) if keepdim else flat)
    if not isinstance(dim, (int, np.integer)):  # (one dim: not a tuple)
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    dims = R._dims(x, dim)
    R.check_nonempty(x, dims, name)
    if not dims:  # a 0-d input
        return Tensor._make(np.zeros((), dtype=np.int64))
    return Tensor._make(np.asanyarray(fn(x, axis=dims[0], keepdims=keepdim),
                                       dtype=np.int64))


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance with Bessel's correction by default (correction=1); of complex input the real
    sum of the variances of the real and imaginary parts, as torch."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if input._data.dtype.kind == "c":
        from ..complex_ops import complex_var  # complex_ops builds on api (a cycle)
        return complex_var(input, _dim_or_none(dim), _correction(unbiased, correction), keepdim)
    return R.VarBackward0.apply(input, dim=_dim_or_none(dim),
                                correction=_correction(unbiased, correction), keepdim=keepdim)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation with Bessel's correction by default."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if input._data.dtype.kind == "c":
        from ..complex_ops import complex_var  # complex_ops builds on api (a cycle)
        return complex_var(input, _dim_or_none(dim), _correction(unbiased, correction), keepdim,
                           root=True)
    return R.StdBackward0.apply(input, dim=_dim_or_none(dim),
                                correction=_correction(unbiased, correction), keepdim=keepdim)


def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input))) over dim, computed stably."""
    if dim is None:
        raise TypeError("logsumexp(): argument 'dim' must be tuple of ints, not NoneType")
    ndim = input._data.ndim
    if isinstance(dim, (tuple, list)) and not dim and not keepdim and ndim and input._data.size:
        # torch's kernel adds the max over every dim, kept as [1, ..., 1], in place into the
        # 0-d sum (an empty input skips that step)
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape {[1] * ndim}")
    if input._data.dtype.kind == "c":
        from ..complex_ops import complex_logsumexp  # complex_ops builds on api (a cycle)
        return complex_logsumexp(input, dim, keepdim)
    return R.LogsumexpBackward0.apply(input, dim=dim, keepdim=keepdim)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector p-norm over all elements or dim ('fro' = 2)."""
    if p in ("fro", None):
        p = 2
    elif isinstance(p, str):  # 'nuc' (or an order torch refuses): a matrix norm
        from ... import linalg  # late binding up: ember.linalg builds on ops
        dims = tuple(range(input._data.ndim)) if dim is None else \
            (dim,) if isinstance(dim, int) else dim
        return linalg.matrix_norm(input, p, dims, keepdim, dtype=dtype)
    if input._data.dtype.kind == "c":  # the norm of the moduli (a real result, as torch)
        return norm(input.abs(), p, dim, keepdim, dtype)
    if p == 0 or p == -float("inf"):  # the count of nonzeros, the least |a|: their own node
        return _VectorNormExtremes.apply(input, p=p, dim=_dim_or_none(dim), keepdim=keepdim)
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


def _axis(x, dim):
    """``dim`` (None, an int or a sequence) as NumPy's axis, checked as torch checks it
    (IndexError; a 0-d array takes 0 and -1, and has no axis to give NumPy)."""
    if dim is None:
        return None
    axes = tuple(S._dim(x.ndim, d) for d in ((dim,) if isinstance(dim, int) else dim))
    S.refuse_repeated_dims(axes)
    if x.ndim == 0:
        return None
    return axes[0] if isinstance(dim, int) else axes


def all(input, dim=None, keepdim=False):
    x = input._data
    return _truth(x, np.all(x, axis=_axis(x, dim), keepdims=keepdim), input)


def any(input, dim=None, keepdim=False):
    x = input._data
    return _truth(x, np.any(x, axis=_axis(x, dim), keepdims=keepdim), input)


_UINT8 = np.dtype(np.uint8)


def _truth(x, out, input):
    """all/any's result: bool, but uint8 for a uint8 input (torch keeps that legacy dtype)."""
    out = np.asarray(out, _UINT8 if x.dtype == _UINT8 else None)
    return Tensor._make(contiguous_result(out, (input,)))


def count_nonzero(input, dim=None):
    x = input._data
    axis = _axis(x, dim)  # (an empty list of dims: every dim, as torch's count_nonzero)
    return Tensor._make(np.asarray(np.count_nonzero(x, axis=axis if axis != () else None),
                                   dtype=np.int64))
