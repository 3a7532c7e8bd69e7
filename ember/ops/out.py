"""``out=``: one wrapper gives a public function torch's out argument (write the result into a
given tensor, resizing it as torch does, and return that tensor)."""
import functools
import inspect
import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd import grad_mode
from .inplace import OVERLAP, _check_cast, overlaps, refuse_partial_overlap


def _tensors(values):
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _tensors(v)


def _check_autograd(name, args, kwargs, outs):
    """torch refuses out= while recording a graph that any argument (or out) takes part in."""
    if not grad_mode._state.enabled:
        return
    if any(t._requires_grad for t in _tensors((*args, *kwargs.values(), *outs))):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


def _write(result, out):
    """Copy ``result`` into ``out`` (resized when its shape differs) and bump its version."""
    data = result._data
    if overlaps(out):
        raise RuntimeError(OVERLAP)
    _check_cast(data.dtype, out._data.dtype)
    if out._data.shape != data.shape:
        if out._data.size:
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out._data.shape)}, which does not match the required output "
                          f"shape {list(data.shape)}. This behavior is deprecated, and in a "
                          "future PyTorch release outputs will not be resized unless they have "
                          "zero elements. You can explicitly reuse an out tensor t by resizing "
                          "it, inplace, to zero elements with t.resize_(0).", UserWarning,
                          stacklevel=4)
        out._data = np.empty(data.shape, out._data.dtype)
    np.copyto(out._data, data, casting="unsafe")
    out._vc[0] += 1
    return out


def _factory_dtype(name, kwargs, out):
    """Factories build in out's dtype; an explicit different dtype is an error, as in torch."""
    dtype = kwargs.get("dtype")
    if dtype is None:
        kwargs["dtype"] = out.dtype
    elif str(dtype) != str(out.dtype):
        have = _dtype.as_dtype(dtype).scalar_name
        raise RuntimeError(f"dtype {have} does not match dtype of out parameter "
                           f"({_dtype.of_numpy(out._data.dtype).scalar_name})")


# torch's argument parser takes NumPy's names for these arguments too (torch.sum(x, axis=0))
_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input",
                "x2": "other"}


def rename_numpy_keywords(kwargs, accepted):
    for key in [k for k in kwargs if k in _NUMPY_NAMES and k not in accepted]:
        if _NUMPY_NAMES[key] in accepted and _NUMPY_NAMES[key] not in kwargs:
            kwargs[_NUMPY_NAMES[key]] = kwargs.pop(key)


# out= forms whose torch kernels (TensorIterator's, cat's) refuse an input that partly
# overlaps ``out`` (reductions, scans, sorting and the matrix products do not check)
CHECKS_INPUT_OVERLAP = frozenset(
    "add sub subtract mul multiply div divide true_divide floor_divide remainder pow neg "
    "negative clamp clip clamp_min clamp_max where maximum minimum eq ne lt le gt ge greater "
    "greater_equal less less_equal not_equal logical_and logical_or logical_xor logical_not "
    "bitwise_and bitwise_or bitwise_xor bitwise_not lerp cat concat concatenate erf atan2 "
    "arctan2 hypot fmod copysign xlogy ldexp nextafter heaviside gcd lcm addcmul addcdiv "
    "logaddexp logaddexp2 float_power fmax fmin".split())


def _tensor_inputs(args, kwargs):
    """The arrays of the tensors among ``args`` and ``kwargs`` (in lists and tuples too)."""
    found = []
    for value in (*args, *kwargs.values()):
        if isinstance(value, (list, tuple)):
            found += [v._data for v in value if isinstance(v, Tensor)]
        elif isinstance(value, Tensor):
            found.append(value._data)
    return found


def with_out(fn, name=None, factory=False, checks_overlap=None, differentiable=True):
    """``fn`` with a keyword-only ``out``: a tensor (or a tuple for (values, indices) results)
    that receives the result and is returned. NumPy's keyword names (axis, keepdims, x) are
    taken as torch takes them. ``differentiable=False``: an op torch gives no derivative, whose
    out= takes inputs that require grad."""
    name = name or fn.__name__
    if checks_overlap is None:
        checks_overlap = name in CHECKS_INPUT_OVERLAP
    try:
        signature = inspect.signature(fn)  # read once at import: names, and help()'s out=
    except (TypeError, ValueError):
        signature = None
    accepted = frozenset(signature.parameters) if signature is not None else frozenset()

    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        if kwargs:
            rename_numpy_keywords(kwargs, accepted)
        if out is None:
            return fn(*args, **kwargs)
        outs = _checked_outs(name, out, args, kwargs, checks_overlap, differentiable)
        if factory:
            _factory_dtype(name, kwargs, outs[0])
        result = fn(*args, **kwargs)
        if isinstance(result, tuple):
            if len(outs) != len(result):
                raise RuntimeError(f"{name}(): expected out= to be a tuple of {len(result)} "
                                   f"tensors, got {len(outs)}")
            written = type(result)(_write(r, o) for r, o in zip(result, outs))
            if hasattr(written, "__dict__"):  # (return types with __slots__ have none)
                written.__dict__.update(getattr(result, "__dict__", {}))
            return written
        return _write(result, outs[0])

    if signature is not None:
        wrapper.__signature__ = _signature_with_out(signature)
    return wrapper


def _checked_outs(name, out, args, kwargs, checks_overlap, differentiable):
    """``out`` as a tuple of tensors, after torch's checks: tensors, autograd's rules (for a
    ``differentiable`` op), and (``checks_overlap``) no input partly overlapping one."""
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(o).__name__}")
    if differentiable:
        _check_autograd(name, args, kwargs, outs)
    if checks_overlap:
        inputs = _tensor_inputs(args, kwargs)
        for o in outs:
            refuse_partial_overlap(o._data, inputs)
    return outs


def _signature_with_out(sig):
    """The signature with a keyword-only ``out=None`` (for help() and inspect)."""
    params = [p for p in sig.parameters.values() if p.name != "out"]
    out_param = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
    at = next((i for i, p in enumerate(params) if p.kind == p.VAR_KEYWORD), len(params))
    return sig.replace(parameters=params[:at] + [out_param] + params[at:])


def install(namespace, names, factories=(), elementwise=()):
    """Replace each named function in ``namespace`` by its out= form (``elementwise``: more
    names whose out= refuses a partly overlapping input, with CHECKS_INPUT_OVERLAP's)."""
    for n in names:
        namespace[n] = with_out(namespace[n], n,
                                checks_overlap=n in CHECKS_INPUT_OVERLAP or n in elementwise)
    for n in factories:
        namespace[n] = with_out(namespace[n], n, factory=True)
