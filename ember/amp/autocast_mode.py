"""torch.autocast: the context manager and decorator scripts wrap their forward pass in.

Inside ``autocast('cpu')`` ops cast their inputs as torch's CPU autocast does
(ember/ops/autocast.py: matmul/linear/conv in bfloat16, the losses in float32, the rest in their
inputs' dtype).
A 'cuda' autocast is disabled with torch's warning, as on a CPU-only torch build.
"""
import functools
import warnings

from .. import _dtype
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
