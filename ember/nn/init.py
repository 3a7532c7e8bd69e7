"""nn.init: in-place initialisers (uniform_, kaiming_uniform_, orthogonal_, ...) as in torch."""
import math
import warnings

import numpy as np

from .. import _memory_format
from ..autograd import grad_mode
from ..ops.inplace import OVERLAP as _OVERLAP
from ..ops.inplace import overlaps as _overlaps
from ..random import _gen

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity, param=None):
    """The recommended scale for a nonlinearity: relu sqrt(2), tanh 5/3, leaky_relu
    sqrt(2/(1+slope^2)), selu 3/4, linear and sigmoid 1."""
    if nonlinearity in _LINEAR:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = int(np.prod(tensor.shape[2:])) if tensor.dim() > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _no_data_on_meta(init):
    """``init`` that leaves a meta tensor as it is: it has no data to write, and (as torch)
    nothing is drawn from the random stream for it."""
    def checked(tensor, *args, **kwargs):
        if getattr(tensor, "is_meta", False):
            return tensor
        return init(tensor, *args, **kwargs)
    checked.__name__, checked.__qualname__, checked.__doc__ = (init.__name__, init.__qualname__,
                                                               init.__doc__)
    checked.__wrapped__ = init
    return checked


def _fill(tensor, values):
    """Write ``values`` into the tensor's memory outside autograd (bumping its version); a
    function of a shape is drawn in the tensor's memory order, as torch's fills walk it."""
    grad_mode.check_inplace(tensor._vc)  # an inference tensor refuses before the write
    if _overlaps(tensor):  # expand()ed: torch fills it with a constant (fill_), refuses the rest
        if callable(values) or np.ndim(values):
            raise RuntimeError(_OVERLAP)
        with grad_mode.no_grad():
            return tensor.fill_(values)
    with grad_mode.no_grad():
        target = _memory_format.memory_order(tensor._data) if callable(values) else tensor._data
        target[...] = values(target.shape) if callable(values) else values
        tensor._vc[0] += 1
    return tensor


@_no_data_on_meta
def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with U(a, b) (drawn straight into a contiguous tensor's memory)."""
    data = tensor._data
    if data.flags.c_contiguous and data.dtype.kind in "fV" and not _overlaps(tensor):
        grad_mode.check_inplace(tensor._vc)  # an inference tensor refuses before the draw
        _gen(generator).uniform(data.shape, data.dtype, a, b, out=data.reshape(-1))
        tensor._vc[0] += 1
        return tensor
    return _fill(tensor, lambda shape: _gen(generator).uniform(shape, data.dtype, a, b))


@_no_data_on_meta
def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with N(mean, std^2)."""
    dtype, serial = tensor._data.dtype, not tensor._data.flags.c_contiguous  # (one by one)
    return _fill(tensor, lambda shape: _gen(generator).normal(shape, dtype, mean, std,
                                                              serial=serial))


@_no_data_on_meta
def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """N(mean, std^2) restricted to [a, b], sampled by rejection as torch does (and from the
    same draws): redraw-the-rejects from N(mean, std^2) when [a, b] holds over 30% of the mass,
    else uniform proposals on [a, b] accepted with probability pdf / peak pdf."""
    def cdf(v):
        return (1.0 + math.erf(v / math.sqrt(2.0))) / 2.0
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    gen, shape, dtype = _gen(generator), tuple(tensor.shape), tensor._data.dtype
    if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
        lo, hi = float(dtype.type(a)), float(dtype.type(b))
        result = gen.normal(shape, dtype, mean, std)
        while True:
            rejected = (result < lo) | (result > hi)
            if not rejected.any():
                return _fill(tensor, result)
            result = np.where(rejected, gen.normal(shape, dtype, mean, std), result)
    return _fill(tensor, _trunc_normal_uniform_proposals(gen, shape, dtype, mean, std, a, b))


def _trunc_normal_uniform_proposals(gen, shape, dtype, mean, std, a, b):
    mode = max(a, min(mean, b))
    log_peak = dtype.type(-0.5 * ((mode - mean) / std) ** 2)
    mean, std = dtype.type(mean), dtype.type(std)

    def log_ratio(v):
        return ((v - mean) / std) ** 2 * dtype.type(-0.5) - log_peak

    result = gen.uniform(shape, dtype, a, b)
    pending = np.log(gen.uniform(shape, dtype)) > log_ratio(result)
    while pending.any():
        candidates = gen.uniform(shape, dtype, a, b)
        result = np.where(pending, candidates, result)
        pending = np.where(pending, np.log(gen.uniform(shape, dtype)) > log_ratio(candidates),
                           pending)
    return result


@_no_data_on_meta
def constant_(tensor, val):
    """Fill with ``val``."""
    return _fill(tensor, val)


@_no_data_on_meta
def zeros_(tensor):
    return _fill(tensor, 0)


@_no_data_on_meta
def ones_(tensor):
    return _fill(tensor, 1)


@_no_data_on_meta
def eye_(tensor):
    """Fill a 2-D tensor with the identity matrix."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor.shape))


@_no_data_on_meta
def dirac_(tensor, groups=1):
    """Fill a {3,4,5}-D conv weight so the convolution preserves its input channels."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    values = np.zeros(sizes)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min(out_per_group, sizes[1])):
            values[(g * out_per_group + d, d) + centre] = 1
    return _fill(tensor, values)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-b, b) with b = gain * sqrt(3 / fan) (He et al.)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with std = gain / sqrt(fan) (He et al.)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


@_no_data_on_meta
def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix from the QR decomposition of a Gaussian one, times gain."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _gen(generator).normal((rows, cols), tensor._data.dtype).astype(np.float64)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))  # make the decomposition unique (positive diagonal of r)
    if rows < cols:
        q = q.T
    return _fill(tensor, gain * q.reshape(tensor.shape))


@_no_data_on_meta
def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A 2-D matrix with N(0, std^2) entries and a fraction ``sparsity`` of each column zero."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    gen = _gen(generator)
    values = gen.normal((rows, cols), tensor._data.dtype, 0.0, std)
    zeros = int(math.ceil(sparsity * rows))
    for c in range(cols):
        values[gen.permutation(rows)[:zeros], c] = 0
    return _fill(tensor, values)


# torch's deprecated aliases without the trailing underscore
uniform, normal, constant = uniform_, normal_, constant_
xavier_uniform, xavier_normal = xavier_uniform_, xavier_normal_
kaiming_uniform, kaiming_normal, orthogonal = kaiming_uniform_, kaiming_normal_, orthogonal_
dirac, eye, sparse = dirac_, eye_, sparse_
