"""The rest of torch's element-wise surface bound onto Tensor and the ember namespace: the extra
unary table, binary math, fused products, the in-place ``_`` forms (methods and torch.X_),
and Tensor's smaller attributes (storage_offset, nbytes, is_signed, resize_, fill_diagonal_,
apply_, squeeze_, the random fills bernoulli_, cauchy_, log_normal_, geometric_, ...)."""
import functools
import math
import operator
import warnings

import numpy as np

from . import _autograd_state, _dtype, _memory_format
from . import _creation as C
from . import _random_args as _args
from ._tensor import Tensor
from ._tensor_methods import _inplace_unary, _unary
from ._warn import warn_once
from .ops import (
    api,
    as_strided,
    fused_products,
    histogram,
    index_ops,
    pointwise,
    scatter_reduce,
    special,
)
from .ops import elementwise as E
from .ops import elementwise_extra as X
from .ops.inplace import apply_inplace, check_inplace
from .ops.shape import ALL_DIMS
from .random import _gen

UNARY_EXTRA = {name: _unary(cls) for name, cls in {
    "acosh": X.AcoshBackward0, "asinh": X.AsinhBackward0, "atanh": X.AtanhBackward0,
    "erfc": X.ErfcBackward0, "erfinv": X.ErfinvBackward0, "lgamma": X.LgammaBackward0,
    "digamma": X.DigammaBackward0, "i0": X.I0Backward0, "sinc": X.SincBackward0,
    "frac": X.FracBackward0, "exp2": X.Exp2Backward0, "sgn": X.SgnBackward0,
    "deg2rad": X.Deg2RadBackward0, "rad2deg": X.Rad2DegBackward0}.items()}
UNARY_EXTRA.update(arccosh=UNARY_EXTRA["acosh"], arcsinh=UNARY_EXTRA["asinh"],
                   arctanh=UNARY_EXTRA["atanh"])

# public functions (ember.X and Tensor.X) besides the unary table
FUNCTIONS = {name: getattr(module, name) for module, names in (
    (pointwise, ("atan2", "arctan2", "hypot", "fmod", "copysign", "fmax", "fmin", "logaddexp",
                 "logaddexp2", "xlogy", "ldexp", "nextafter", "gcd", "lcm", "heaviside",
                 "bitwise_left_shift", "bitwise_right_shift", "float_power", "logit",
                 "mvlgamma", "positive", "signbit", "isposinf", "isneginf", "isreal",
                 "is_nonzero", "frexp", "polygamma", "igamma", "igammac")),
    (fused_products, ("addcmul", "addcdiv", "addmv", "addr", "addbmm")),
    (scatter_reduce, ("scatter_reduce", "index_reduce"))) for name in names}
FUNCTIONS.update(UNARY_EXTRA)

# Tensor methods that get an in-place ``_`` form here (when Tensor has none yet)
_INPLACE = (*UNARY_EXTRA, "atan2", "arctan2", "hypot", "fmod", "copysign", "xlogy", "ldexp",
            "igamma", "igammac",
            "nextafter", "gcd", "lcm", "heaviside", "bitwise_left_shift", "bitwise_right_shift",
            "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "logit", "mvlgamma",
            "polygamma", "addcmul", "addcdiv", "addmv", "addr", "addbmm", "absolute", "tan",
            "exp2", "log10", "fix", "negative", "erf", "asin", "acos", "atan", "sinh", "cosh",
            "arcsin", "arccos", "arctan", "eq", "ne", "lt", "le", "gt", "ge", "greater",
            "greater_equal", "less", "less_equal", "not_equal", "logical_and", "logical_or",
            "logical_xor", "logical_not", "divide", "multiply", "subtract", "true_divide",
            "floor_divide", "sign", "sigmoid", "tanh", "scatter_reduce", "index_reduce")

# torch.X_ functions (the same as the methods: the tensor is the first argument)
TORCH_INPLACE = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_",
    "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_", "erf_", "erfc_", "exp2_", "exp_",
    "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_", "i0_", "lcm_", "ldexp_", "log10_",
    "log1p_", "log2_", "log_", "logit_", "neg_", "negative_", "rad2deg_", "reciprocal_",
    "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_",
    "tan_", "tanh_", "trunc_", "xlogy_", "zero_", "nan_to_num_", "conj_physical_",
    "resize_as_", "as_strided_")


def torch_inplace(name):
    """torch.<name>(input, ...): the Tensor method ``name`` under torch's argument name."""
    method = getattr(Tensor, name)

    def fn(input, *args, **kwargs):
        return method(input, *args, **kwargs)
    fn.__name__ = name
    return fn


def _method_polygamma(self, n):
    return pointwise.polygamma(n, self)


def _bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 draws of probability p (a number or a tensor broadcast to self)."""
    _args.require_kind(self._data.dtype, "bernoulli_scalar_cpu_", "fVbiu")
    if isinstance(p, Tensor):  # (the probabilities in the order the draws are written)
        probs = np.broadcast_to(p._data, self._data.shape)
        perm = _memory_format.memory_perm(self._data)
        draws = _gen(generator).bernoulli_tensor(probs if perm is None else probs.transpose(perm))
    else:
        draws = _gen(generator).bernoulli(self._data.shape, p)
    return _fill(self, draws)


def poisson(input, generator=None):
    """Counts drawn from Poisson(rate) for each rate in ``input`` (torch's random stream), in
    input's dtype; the gradient is zero, as torch's."""
    x = input._data
    if x.dtype.kind not in "fV":
        raise NotImplementedError(f'"poisson_cpu" not implemented for '
                                  f"'{_dtype.of_numpy(x.dtype).scalar_name}'")
    rates = x.astype(np.float64)
    if not (rates >= 0).all():  # NaN too
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    counts = _gen(generator).poisson(rates).astype(x.dtype)
    return E.PoissonBackward0.apply(input, Tensor._make(counts))


def _concentrations(input, kernel):
    x = input._data
    if x.dtype.kind != "f" or x.dtype == np.float16:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype.of_numpy(x.dtype).scalar_name}'")
    return x


def _standard_gamma(input, generator=None):
    """Gamma(alpha, 1) draws for each alpha in ``input`` (torch's CPU stream), at least the
    dtype's smallest normal; differentiable in alpha (see standard_gamma_grad)."""
    x = _concentrations(input, "gamma_cpu")
    draws = _gen(generator).standard_gamma(x.astype(np.float64), x.dtype == np.float32)
    draws = np.maximum(draws.astype(x.dtype), np.finfo(x.dtype).tiny)
    return X.StandardGammaBackward0.apply(input, Tensor._make(draws))


def binomial(count, prob, generator=None):
    """Successes in ``count`` trials of probability ``prob`` (torch's CPU stream), in count's
    dtype; no gradient, as torch."""
    c, p = count._data, prob._data
    if c.dtype.kind not in "fV":
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{_dtype.of_numpy(c.dtype).scalar_name}")
    if p.dtype != c.dtype:
        raise RuntimeError(f"Found dtype {_dtype.of_numpy(p.dtype).scalar_name} but expected "
                           f"{_dtype.of_numpy(c.dtype).scalar_name}")
    _concentrations(count, "binomial_cpu")
    c, p = np.broadcast_arrays(c.astype(np.float64), p.astype(np.float64))
    draws = _gen(generator).binomial(c, p, count._data.dtype == np.float32)
    return X.BinomialBackward.apply(count, prob, Tensor._make(draws.astype(count._data.dtype)))


def _sample_dirichlet(input, generator=None):
    """Dirichlet draws over the last dim as torch's CPU kernel: float64 gammas (torch's
    stream) over their sum, kept within [smallest normal, 1) of the dtype; no gradient."""
    x = _concentrations(input, "dirichlet")
    gammas = np.maximum(_gen(generator).standard_gamma(x.astype(np.float64)),
                        np.finfo(np.float64).tiny)
    draws = np.clip(gammas / gammas.sum(-1, keepdims=True), np.finfo(x.dtype).tiny,
                    np.nextafter(x.dtype.type(1), x.dtype.type(0)))
    return Tensor._make(draws.astype(x.dtype))


def _dirichlet_grad(x, alpha, total):
    """d x / d alpha of Dirichlet draws x through their Beta(alpha, total - alpha) marginals,
    over (1 - x) (torch's _dirichlet_grad; exact where torch's kernel approximates)."""
    return Tensor._make(special.dirichlet_grad(x._data, alpha._data, total._data))


def _standard_gamma_grad(input, output):
    """d output / d alpha of Gamma(alpha, 1) draws, exact (torch's kernel approximates it to
    ~1e-4 relative)."""
    return Tensor._make(special.standard_gamma_grad(input._data, output._data))


def _fill(self, values):
    """Write ``values`` (drawn in sequence) into self in memory order, as torch's fills walk a
    tensor (a random fill: no history, as torch's)."""
    _autograd_state.check_inplace(self._vc)  # an inference tensor refuses before the write
    check_inplace(self)
    target = _memory_format.memory_order(self._data)
    np.copyto(target, np.reshape(values, target.shape), casting="unsafe")
    self._vc[0] += 1
    return self


def _uniform(self, generator):
    return _gen(generator).uniform(self._data.shape, np.dtype(np.float64))


def _cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """median + sigma * tan(pi (u - 1/2)), u uniform in float64 (torch's stream)."""
    _args.continuous(self._data.dtype, "Cauchy", c_name=True)
    _args.positive(sigma, "cauchy_", "sigma")
    return _fill(self, median + sigma * np.tan(math.pi * (_uniform(self, generator) - 0.5)))


def _log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """exp(mean + std * z), z standard normal drawn one at a time (torch's stream)."""
    _args.require_kind(self._data.dtype, "log_normal_cpu", "fV")
    for position, (name, value) in enumerate((("mean", mean), ("std", std)), 1):
        if isinstance(value, Tensor) and value._data.ndim:
            raise TypeError(f"log_normal_(): argument '{name}' (position {position}) must be "
                            f"float, not Tensor")
    mean, std = float(mean), float(std)
    _args.positive(std, "log_normal_", "std")
    z = _gen(generator).normal_serial(self._data.size).reshape(self._data.shape)
    with np.errstate(over="ignore"):  # exp to inf, silently as torch
        return _fill(self, np.exp(mean + std * z))


def _geometric_(self, p, *, generator=None):
    """ceil(log(u) / log(1 - p)): trials to the first success (torch's stream)."""
    _args.require_kind(self._data.dtype, "geometric_cpu", "fViu")
    _args.probability(p, "geometric_", closed=False)
    u = _uniform(self, generator)
    return _fill(self, np.ceil(np.log(u) / np.log1p(-p)))


# ---------------------------------------------------------------- Tensor's smaller attributes
def _storage_offset(self):
    """Elements between the start of the memory (the base's first element) and this view's."""
    base = self._base if self._base is not None else self
    return (self.data_ptr() - base.data_ptr()) // self._data.itemsize


def is_complex(input):
    """Whether the tensor holds complex numbers (complex64 or complex128)."""
    return input._data.dtype.kind == "c"


def is_signed(input):
    return input.dtype.is_signed


def is_same_size(input, other):
    return input._data.shape == other._data.shape


def _new(self, *args, **kwargs):
    """The legacy constructor in this tensor's dtype: new(sizes...), new(data), new()."""
    dtype = kwargs.pop("dtype", None) or self.dtype
    if not args:
        return C.empty(0, dtype=dtype)
    return Tensor(*args, dtype=dtype, **kwargs)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """An uninitialised tensor with the given strides (in elements) over its own memory."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    dt = C.empty(0, dtype=dtype)._data.dtype
    span = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    memory = np.empty(span, dt)
    data = np.lib.stride_tricks.as_strided(memory, size, [s * dt.itemsize for s in stride])
    return Tensor._make(data, requires_grad)


def result_type(tensor, other):
    """The dtype torch's promotion gives ``tensor op other`` (tensors or numbers)."""
    operands = [(t._data.dtype, t._data.ndim == 0) if isinstance(t, Tensor) else t
                for t in (tensor, other)]
    return _dtype.from_numpy_dtype(_dtype._result_from_operands(operands))


def can_cast(from_, to):
    """True unless the cast goes down a category (float to integer, integer or float to bool)."""
    return _dtype.as_dtype(from_)._category <= _dtype.as_dtype(to)._category


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """A 0-d tensor of ``s`` in ``dtype`` (the default float dtype when not given)."""
    return C.tensor(s, dtype=dtype or _dtype.get_default_dtype(), requires_grad=requires_grad)


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
    return empty_strided(size, stride, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _resize_(self, *sizes, memory_format=None):
    """Reshape in place to ``sizes``: the elements kept in order, new ones uninitialised."""
    shape = tuple(sizes[0]) if len(sizes) == 1 and not isinstance(sizes[0], int) else sizes
    if self._requires_grad and grad_mode_enabled():
        raise RuntimeError("cannot resize variables that require grad")
    _autograd_state.check_inplace(self._vc)
    count = int(np.prod(shape))
    flat = self._data.reshape(-1)
    if count <= flat.size and self._data.flags.c_contiguous:
        self._data = flat[:count].reshape(shape)
    else:
        grown = np.empty(count, self._data.dtype)
        kept = min(count, flat.size)
        grown[:kept] = flat[:kept]
        self._data = grown.reshape(shape)
    self._vc[0] += 1
    return self


def grad_mode_enabled():
    return _autograd_state._state.enabled


def _fill_diagonal_(self, fill_value, wrap=False):
    """Write ``fill_value`` on the main diagonal in place (every dim equal beyond 2-D; ``wrap``:
    a tall matrix's diagonal starts again after each square block, as torch's)."""
    shape = self._data.shape
    if self._data.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self._data.ndim > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    mask = np.zeros(shape, bool)
    np.fill_diagonal(mask, True, wrap=wrap)
    return apply_inplace(self, api.masked_fill, Tensor._make(mask), fill_value)


def _apply_(self, callable):
    """Replace each element x by callable(x) in place (Python, element by element)."""
    if self._requires_grad and grad_mode_enabled():
        raise RuntimeError("apply_ is only implemented on CPU tensors that do not require grad")
    values = [callable(v) for v in self._data.reshape(-1).tolist()]
    return _fill(self, np.asarray(values).reshape(self._data.shape))


def _map_(self, tensor, callable):
    """self[i] = callable(self[i], tensor[i]) in place (``tensor`` broadcast to self)."""
    other = np.broadcast_to(tensor._data, self._data.shape).reshape(-1).tolist()
    values = [callable(a, b) for a, b in zip(self._data.reshape(-1).tolist(), other)]
    return _fill(self, np.asarray(values).reshape(self._data.shape))


def _mT(self):
    """The transpose of the last two dims (a view)."""
    if self.ndim == 0:
        warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the identity in "
                  "these cases.")
        return api.view(self, ())
    if self.ndim == 1:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           "Got 1-D tensor.")
    return api.transpose(self, -2, -1)


def _adjoint(self, name="Tensor.mH"):
    """The conjugate transpose of the last two dims (a conjugate view for complex input)."""
    if self.ndim == 0:
        warn_once(f"{name} is deprecated on 0-D tensors. Consider using x.conj().")
        return self.conj()
    if self.ndim == 1:
        method = "mH" if name == "Tensor.mH" else name
        raise RuntimeError(f"tensor.{method} is only supported on matrices or batches of "
                           "matrices. Got 1-D tensor.")
    return api.transpose(self, -2, -1).conj()


def _H(self):
    """A matrix's conjugate transpose (torch records a transpose, not a permute)."""
    if self.ndim == 0:
        warn_once("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
        return self.conj()
    if self.ndim != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor." + (" For batches of matrices, consider "
                                                       "using tensor.mH" if self.ndim > 2 else ""))
    return api.transpose(self, 0, 1).conj()


_RANGE_WARNING = ("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).")


def range(start, end, step=1, *, dtype=None, layout=None, device=None,  # noqa: A001
          requires_grad=False):
    """torch.range (deprecated): start, start + step, ... up to end *included*, in the default
    float dtype unless ``dtype`` is given; each value start + i * step computed in double."""
    import warnings
    warnings.warn(_RANGE_WARNING, UserWarning, stacklevel=2)
    start, end, step = (float(v) if isinstance(v, Tensor) else v for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not all(math.isfinite(v) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = int(math.floor((end - start) / step)) + 1
    dtype = dtype or _dtype.get_default_dtype()
    if dtype.is_floating_point or dtype.is_complex:
        values = np.arange(count, dtype=np.float64) * step + start
    else:
        values = np.arange(count, dtype=np.int64) * int(step) + int(start)
    out = C.tensor(values.astype(_dtype.to_numpy_dtype(dtype)), dtype=dtype)
    return out.requires_grad_(requires_grad) if requires_grad else out


def _share_memory_(self):
    """Moves the array into shared memory (see ember.multiprocessing): a forked child writes
    the same memory, and a pickled tensor passes it to the process that loads it. Views made
    before the move keep the old memory. A no-op when already shared, and on the meta device."""
    if self.__dict__.get("_shared") or type(self._data) is not np.ndarray:
        return self
    from .multiprocessing import _shared  # lazy: loads multiprocessing when used
    self._data = _shared.share_array(self._data)
    if self._grad is not None:
        self._grad.share_memory_()
    self.__dict__["_shared"] = True
    return self


def _copy_of(name):
    """torch.X_copy: the view op X's result as a new tensor (each piece for a split/unbind)."""
    def copy(input, *args, **kwargs):
        out = getattr(Tensor, name[:-len("_copy")])(input, *args, **kwargs)
        dense = _memory_format.contiguous_format  # torch's X_copy results are contiguous
        if isinstance(out, (tuple, list)):
            return type(out)(t.clone(memory_format=dense) for t in out)
        return out.clone(memory_format=dense)
    copy.__name__ = copy.__qualname__ = name
    return copy


_COPIES = ("as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy", "permute_copy",
           "select_copy", "split_copy", "squeeze_copy", "t_copy", "transpose_copy",
           "unbind_copy", "unfold_copy", "unsqueeze_copy", "view_copy")
globals().update({_name: _copy_of(_name) for _name in _COPIES})


def detach(input):
    return input.detach()


def detach_(input):
    return input.detach_()


def fill(input, value):
    """torch.fill: a new tensor of ``input``'s shape and dtype, every element ``value``."""
    return input.clone().fill_(value) if input.requires_grad else \
        C.full_like(input, 0).fill_(value)


def split_with_sizes(input, split_sizes, dim=0):
    return input.split(list(split_sizes), dim)


def unsafe_chunk(input, chunks, dim=0):
    return input.chunk(chunks, dim)


def unsafe_split(input, split_size, dim=0):
    return input.split(split_size, dim)


def is_inference(input):
    return input.is_inference()


def adjoint(input):
    return _adjoint(input, "adjoint()")


# ember.X functions of this part (besides FUNCTIONS)
NAMESPACE = ("is_complex", "is_signed", "is_same_size", "result_type", "can_cast",
             "scalar_tensor", "empty_strided", "range", "detach", "detach_", "fill",
             "split_with_sizes", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes",
             "is_inference", "adjoint", "poisson", "get_device", "set_flush_denormal",
             "binomial", "_standard_gamma", "_standard_gamma_grad", "_sample_dirichlet",
             "_dirichlet_grad",
             *_COPIES)


def get_device(input):
    """torch.get_device: -1 for a CPU tensor (the device index of a GPU tensor in torch)."""
    return input.get_device()


def set_flush_denormal(mode):
    """torch.set_flush_denormal: whether the requested mode holds. NumPy keeps subnormal
    numbers (no flush-to-zero), so keeping them (False) holds and flushing (True) does not."""
    return not mode


def _conj_physical_(self):
    """In place: the complex conjugate (a real tensor is its own conjugate: unchanged)."""
    if self.is_complex():
        self.copy_(self.conj_physical())
    return self


def _module_load(self, other, assign=False):
    """How load_state_dict's swap path turns ``other`` into this parameter's value (torch's
    default: other itself detached with assign, else copied into self)."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()  # (load_state_dict calls it under no_grad, as torch)


def _resize(self, *sizes):
    """Tensor.resize (deprecated): a view of the same elements in another shape (autograd's
    resize keeps the number of elements)."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return _reshaped_same_count(self, sizes)


def _resize_as(self, other):
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _reshaped_same_count(self, tuple(other.shape))


def _reshaped_same_count(self, sizes):
    # torch multiplies the sizes with Python's `*`: it takes them one by one, and a tuple or
    # list among them repeats (then fails the count, or raises Python's TypeError), in its words
    count = functools.reduce(operator.mul, sizes) if sizes else 1
    if not isinstance(count, (tuple, list)):
        count = int(count)
    if count != self.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({count} elements "
                           f"in total), but the given tensor has a size of "
                           f"{'x'.join(map(str, self.shape))} ({self.numel()} elements). "
                           "autograd's resize can only change the shape of a given tensor, "
                           "while preserving the number of elements. ")
    return self.contiguous().view(*sizes)


def _as_subclass(self, cls):
    """The same data (an alias on the graph, as torch's AliasBackward0) as an instance of
    ``cls``, a Tensor subclass, without calling its constructor."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    out = self[...]
    out.__class__ = cls
    return out


_NEVER = ("is_xpu", "is_mps", "is_ipu", "is_mtia", "is_maia", "is_xla", "is_vulkan",
          "is_mkldnn", "is_quantized", "is_nested", "is_sparse_csr")


def _bind_attributes():
    Tensor.storage_offset = _storage_offset
    Tensor.as_strided, Tensor.as_strided_ = as_strided.as_strided, as_strided.as_strided_
    Tensor.nbytes = property(lambda self: self._data.nbytes)
    Tensor.itemsize = property(lambda self: self._data.itemsize)
    Tensor.is_cpu = property(lambda self: not self.is_meta)
    for flag in _NEVER:  # devices and layouts that no ember tensor is on
        setattr(Tensor, flag, property(lambda self: False))
    Tensor.output_nr = property(lambda self: self._output_nr)
    Tensor.is_complex, Tensor.is_signed, Tensor.is_same_size = is_complex, is_signed, \
        is_same_size
    Tensor.is_inference = lambda self: type(self._vc) is _autograd_state.InferenceVersion
    Tensor.new, Tensor.new_empty_strided = _new, _new_empty_strided
    Tensor.resize_ = _resize_
    Tensor.resize_as_ = lambda self, other, memory_format=None: _resize_(self, other.shape)
    Tensor.fill_diagonal_ = _fill_diagonal_
    Tensor.apply_, Tensor.map_ = _apply_, _map_
    Tensor.squeeze_ = lambda self, dim=ALL_DIMS: index_ops.view_in_place(
        self, lambda t: api.squeeze(t, dim))
    Tensor.unsqueeze_ = lambda self, dim: index_ops.view_in_place(
        self, lambda t: api.unsqueeze(t, dim))
    Tensor.mT, Tensor.mH, Tensor.H = property(_mT), property(_adjoint), property(_H)
    Tensor.adjoint = lambda self: _adjoint(self, "adjoint()")
    Tensor.share_memory_ = _share_memory_
    Tensor.conj_physical_, Tensor.as_subclass = _conj_physical_, _as_subclass
    Tensor.module_load, Tensor.resize, Tensor.resize_as = _module_load, _resize, _resize_as
    Tensor.is_shared = lambda self: self.__dict__.get("_shared", False)
    Tensor.is_pinned = lambda self, device=None: False  # no pinned memory off the GPU
    Tensor.split_with_sizes = split_with_sizes
    Tensor.histogram = histogram.histogram
    Tensor.unsafe_chunk, Tensor.unsafe_split = Tensor.chunk, Tensor.split
    Tensor.unsafe_split_with_sizes = split_with_sizes
    globals()["unsafe_split_with_sizes"] = split_with_sizes
    Tensor.prelu = lambda self, weight: _functional().prelu(self, weight)
    Tensor.hardshrink = lambda self, lambd=0.5: _functional().hardshrink(self, lambd)


def _functional():
    from .nn import functional  # lazy: nn is a layer above (and loads with it)
    return functional


def _contains(self, element):
    """``element in tensor``: any element equal to it (a number or a broadcastable tensor)."""
    if not isinstance(element, (Tensor, bool, int, float, complex)):
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed "
                           f"in a {type(element)}.")
    return bool(api.any(api.eq(self, element)).item())


def _bind():
    Tensor.__contains__ = _contains
    for name, fn in FUNCTIONS.items():
        setattr(Tensor, name, fn)
    Tensor.polygamma = _method_polygamma  # x.polygamma(n): the order comes after self
    Tensor.__lshift__ = pointwise.bitwise_left_shift
    Tensor.__rshift__ = pointwise.bitwise_right_shift
    Tensor.__rlshift__ = lambda self, other: pointwise.bitwise_left_shift(other, self)
    Tensor.__rrshift__ = lambda self, other: pointwise.bitwise_right_shift(other, self)
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"):
        setattr(Tensor, name, getattr(api, name))
    for name in _INPLACE:
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", _inplace_unary(getattr(Tensor, name)))
    for name, cls in (("asinh", X.AsinhBackward1), ("atanh", X.AtanhBackward1)):
        method = _inplace_unary(cls.apply)  # torch has no derivative for these in-place forms
        method.__name__ = name + "_"
        setattr(Tensor, name + "_", method)
        setattr(Tensor, "arc" + name[1:] + "_", method)
    Tensor.__ilshift__ = Tensor.bitwise_left_shift_
    Tensor.__irshift__ = Tensor.bitwise_right_shift_
    Tensor.float_power_ = pointwise.float_power_
    Tensor.swapaxes_ = Tensor.swapdims_ = index_ops.transpose_
    Tensor.bernoulli = C.bernoulli
    Tensor.bernoulli_, Tensor.cauchy_ = _bernoulli_, _cauchy_
    Tensor.log_normal_, Tensor.geometric_ = _log_normal_, _geometric_


_bind()
_bind_attributes()
