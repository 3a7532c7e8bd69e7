"""torch.autocast: the context manager and decorator scripts wrap their forward pass in.

Inside ``autocast('cpu')`` ops cast their inputs as torch's CPU autocast does
(ember/ops/autocast.py: matmul/linear/conv in bfloat16, the losses in float32, the rest in their
inputs' dtype).
A 'cuda' autocast is disabled with torch's warning, as on a CPU-only torch build.
"""
import functools
import warnings

from .. import _dtype
from .._tensor import Tensor
from ..ops import autocast as _state

_enabled = _state.enabled  # device type -> enabled (read by the ops)
_dtypes = _state.dtypes  # device type -> dtype


def _default_dtype(device_type):
    return _dtype.bfloat16 if device_type == "cpu" else _dtype.float16


class autocast:
    """Mixed-precision region for ``device_type`` (a context manager or a decorator)."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if enabled and device_type == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=2)
            enabled = False
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else _default_dtype(device_type)
        self._enabled = bool(enabled)
        self._saved = []

    def __enter__(self):
        self._saved.append((_enabled.get(self.device, False), _dtypes.get(self.device)))
        _enabled[self.device] = self._enabled
        _dtypes[self.device] = self.fast_dtype
        return self

    def __exit__(self, *exc):
        _enabled[self.device], _dtypes[self.device] = self._saved.pop()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return wrapper


def is_autocast_enabled(device_type="cuda"):
    """Whether an enabled autocast region for ``device_type`` is active."""
    return _enabled.get(device_type, False)


def get_autocast_dtype(device_type):
    return _dtypes.get(device_type) or _default_dtype(device_type)


def is_autocast_available(device_type):
    """Whether autocast can be entered for ``device_type`` (torch: cpu and cuda, and others)."""
    return device_type in ("cpu", "cuda", "xpu", "mps", "hpu", "xla", "mtia", "maia")


def _cast_floats(value, dtype):
    """Floating tensors in ``value`` (nested in lists, tuples, dicts) cast to ``dtype``."""
    if isinstance(value, Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_floats(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast_floats(v, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """For a custom autograd.Function's forward: runs it under the caller's autocast state
    (recorded for custom_bwd), or, with ``cast_inputs`` inside an enabled autocast region,
    with autocast off and floating inputs cast to ``cast_inputs``."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def forward(*args, **kwargs):
        ctx, region = args[0], is_autocast_enabled(device_type)
        ctx._dtype = get_autocast_dtype(device_type)
        ctx._fwd_used_autocast = region and cast_inputs is None  # (cast: forward runs without)
        if cast_inputs is not None and region:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast_floats(args, cast_inputs), **_cast_floats(kwargs, cast_inputs))
        return fwd(*args, **kwargs)
    return forward


def custom_bwd(bwd=None, *, device_type):
    """For a custom autograd.Function's backward: runs it under the autocast state its
    forward ran under (recorded by custom_fwd)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def backward(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast,
                      dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return backward
