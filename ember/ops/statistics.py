"""Statistics torch composes from other ops: quantile / nanquantile / nanmedian (sort, then
pick and interpolate), cov / corrcoef, trapezoid / cumulative_trapezoid, unique_consecutive."""
import warnings

import numpy as np

from .. import _dtype
from .._creation import tensor as _tensor
from .._tensor import Tensor
from . import api
from .counting import UniqueConsecutiveBackward0
from .matrix_ops import diag, lerp
from .order_stats import NanmedianBackward0, _named, _no_bool
from .reduction import check_nonempty
from .scan import cumsum
from .shape import ALL_DIMS, _dim, dim_of_0d, refuse_none_dim
from .shape_extra import movedim
from .sorting import sort

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_checks(input, q, interpolation, name):
    if input._data.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    qs = np.asarray(q._data if isinstance(q, Tensor) else q, dtype=np.float64)
    if qs.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if isinstance(q, Tensor) and q._data.dtype != input._data.dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    if qs.ndim == 0 and not 0 <= qs <= 1:
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {float(qs)}")
    if ((qs < 0) | (qs > 1)).any():
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    return qs


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, name):
    qs = _quantile_checks(input, q, interpolation, name)
    if input.numel() == 0:  # (before the dim: torch's order)
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if dim is not None and input.ndim == 0:  # a 0-d tensor's dim 0 (or -1): all of it
        _dim(0, dim)  # torch's IndexError past them
        dim = None
    x = api.reshape(input, (-1,)) if dim is None else movedim(input, _dim(input.ndim, dim), -1)
    if x.shape[-1] == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    values = sort(x, -1)[0]  # NaN sorts last
    nan = np.isnan(values._data)
    count = (~nan).sum(-1, keepdims=True) if ignore_nan else np.full(
        values.shape[:-1] + (1,), values.shape[-1])
    last = np.maximum(count - 1, 0).astype(np.float64)
    rank = qs.reshape(-1, *([1] * values.ndim)) * last  # (Q, ..., 1)
    if interpolation == "lower":
        rank = np.floor(rank)
    elif interpolation == "higher":
        rank = np.ceil(rank)
    elif interpolation == "nearest":
        rank = np.round(rank)  # half to even, as torch
    below = np.floor(rank).astype(np.int64)
    above = np.minimum(below + 1, np.maximum(last.astype(np.int64), 0))
    weight = rank - below
    if interpolation == "midpoint":
        weight = np.where(weight > 0, 0.5, 0.0)
    expanded = api.expand(api.unsqueeze(values, 0), (len(rank),) + tuple(values.shape))
    lo = api.gather(expanded, -1, _tensor(below))
    if interpolation in ("lower", "higher", "nearest"):  # an order statistic itself (torch
        out = lo  # reads it: no lerp, whose 0 * inf would make an infinite one NaN)
    else:
        hi = api.gather(expanded, -1, _tensor(above))
        out = lerp(lo, hi, _tensor(weight.astype(values._data.dtype)))
    poisoned = (nan.any(-1, keepdims=True) if not ignore_nan else count == 0)
    if poisoned.any():
        out = api.where(_tensor(np.broadcast_to(poisoned, out.shape)),
                        _tensor(np.array(np.nan, values._data.dtype)), out)
    if not keepdim:  # out is (Q, *kept dims, 1)
        out = api.squeeze(out, -1)
    elif dim is None:
        out = api.reshape(out, (out.shape[0],) + (1,) * input.ndim)
    else:
        out = movedim(out, -1, _dim(input.ndim, dim) + 1)
    return api.squeeze(out, 0) if qs.ndim == 0 else out


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The q-th quantiles along dim (all elements when None), interpolated between the two
    nearest order statistics; any NaN in a slice makes its quantiles NaN."""
    result = _quantile(input, q, dim, keepdim, interpolation, False, "quantile")
    return result if out is None else out.copy_(result)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """quantile ignoring NaN (NaN only where a slice holds nothing else); errors worded as
    quantile's, as torch's."""
    result = _quantile(input, q, dim, keepdim, interpolation, True, "quantile")
    return result if out is None else out.copy_(result)


def nanmedian(input, dim=ALL_DIMS, keepdim=False):
    """The lower median ignoring NaN; with dim: (values, indices) as torch.median."""
    refuse_none_dim(dim, "nanmedian")
    flat = dim is ALL_DIMS
    _no_bool(input._data, "median_cpu" if flat else "median_out")
    if flat and input._data.size == 0:
        return _tensor(np.nan, dtype=input.dtype)
    d = -1 if flat else _dim(input.ndim, dim)
    if not flat:
        check_nonempty(input._data, (d,) if input.ndim else (), "median")  # (torch's name)
    x = api.reshape(input, (-1,)) if flat or not input.ndim else input
    values, order = sort(x, dim=d, stable=True)
    valid = (~np.isnan(values._data)).sum(d, keepdims=True)
    k = np.maximum(valid - 1, 0) // 2
    picked = api.gather(values, d, _tensor(k))
    index = np.take_along_axis(order._data, k, d)
    if flat:  # torch's node: ties share the gradient evenly
        return NanmedianBackward0.apply(input, position=int(index[0]))
    if not keepdim or not input.ndim:  # a 0-d input keeps no dim
        picked, index = api.squeeze(picked, d), np.squeeze(index, d)
    return _named("nanmedian", picked, _tensor(index))


def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance matrix of the variables in input's rows (observations in columns)."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                         f"input with {input.ndim} dimensions")
    if input._data.dtype == np.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = api.reshape(input, (1, -1)) if input.ndim < 2 else input
    if x._data.dtype.kind in "iu":  # integers: the default float dtype, as torch's
        x = x.to(_dtype.get_default_dtype())
    n = x.shape[1]
    w = None
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is None:
            continue
        if weights.ndim > 1 or weights.shape[0] != n:
            raise RuntimeError(f"cov(): expected {name} to have one dimension of size {n} but "
                               f"got {list(weights.shape)}")
        w = weights if w is None else api.mul(w, weights)
    if w is None:
        avg = api.mean(x, 1, keepdim=True)
        total = float(n)
        factor = total - correction
    else:
        total = api.sum(w)
        avg = api.div(api.sum(api.mul(x, w), 1, keepdim=True), total)
        factor = (api.sub(total, correction) if aweights is None else api.sub(
            total, api.div(api.mul(api.sum(api.mul(w, aweights)), correction), total)))
    if float(np.min(factor._data if isinstance(factor, Tensor) else factor)) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
    centred = api.sub(x, avg)
    weighted = centred if w is None else api.mul(centred, w)
    product = api.mm(weighted, api.t(centred))
    out = api.div(product, api.clamp(factor, min=0) if isinstance(factor, Tensor)
                  else max(factor, 0))
    return api.squeeze(out)  # (one variable: a 0-d result, as torch)


def corrcoef(input):
    """Pearson correlation coefficients of the variables in input's rows, clipped to [-1, 1]."""
    c = cov(input)
    if c.ndim == 0:
        return api.div(c, c)
    std = diag(c).sqrt()
    c = api.div(api.div(c, api.unsqueeze(std, 1)), api.unsqueeze(std, 0))
    return api.clamp(c, -1, 1)


def _spacing(y, x, dx, dim):
    if x is not None:
        d = _dim(y.ndim, dim)
        if x.ndim == 1:
            shape = [1] * y.ndim
            shape[d] = -1
            x = api.reshape(x, shape)
        n = x.shape[d if x.ndim == y.ndim else -1]
        return api.sub(api.narrow(x, d, 1, n - 1), api.narrow(x, d, 0, n - 1))
    return 1.0 if dx is None else dx


def _no_bool_y(y, name):
    if y._data.dtype == np.bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along ``dim`` (samples spaced by dx, or at the points x)."""
    _no_bool_y(y, "trapezoid")
    d = dim_of_0d(y.ndim, dim)
    n = y.shape[d]
    if n == 0:
        return api.sum(y, d)
    if x is None:
        ends = api.add(api.select(y, d, 0), api.select(y, d, n - 1))
        return api.mul(api.sub(api.sum(y, d), api.mul(ends, 0.5)), 1.0 if dx is None else dx)
    pairs = api.add(api.narrow(y, d, 1, n - 1), api.narrow(y, d, 0, n - 1))
    return api.div(api.sum(api.mul(_spacing(y, x, dx, d), pairs), d), 2)


def trapz(y, x=None, *, dx=None, dim=-1):
    """Older name of trapezoid."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Running trapezoidal integral along ``dim`` (one element shorter)."""
    _no_bool_y(y, "cumulative_trapezoid")
    if y.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = _dim(y.ndim, dim)
    n = y.shape[d]
    if n == 0:  # torch: an empty integral, not the slice error
        return api.div(y, 2)  # (empty; its dtype the integral's)
    pairs = api.add(api.narrow(y, d, 1, max(n - 1, 0)), api.narrow(y, d, 0, max(n - 1, 0)))
    return cumsum(api.div(api.mul(_spacing(y, x, dx, d), pairs), 2), d)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Each run of equal consecutive values (or slices along dim) kept once."""
    data = input._data
    _dtype.refuse_complex(data.dtype, "unique")
    if dim is None:
        flat = data.reshape(-1)
        starts = np.ones(flat.shape[0], bool)
        starts[1:] = flat[1:] != flat[:-1]
        values = flat[starts]
        inverse = (np.cumsum(starts) - 1).reshape(data.shape)
    else:
        d = dim_of_0d(data.ndim, dim)
        moved = np.moveaxis(data, d, 0).reshape(data.shape[d], -1)
        starts = np.ones(moved.shape[0], bool)
        starts[1:] = (moved[1:] != moved[:-1]).any(1)
        values = np.compress(starts, data, axis=d)
        inverse = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.flatnonzero(starts), starts.shape[0]))
    out = [UniqueConsecutiveBackward0.apply(input, values=np.ascontiguousarray(values))]
    if return_inverse:
        out.append(_tensor(inverse.astype(np.int64)))
    if return_counts:
        out.append(_tensor(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)
