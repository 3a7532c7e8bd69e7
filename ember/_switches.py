"""torch's global switches that have no effect on a NumPy CPU backend, kept as plain state so
that scripts setting and reading them run: deterministic algorithms (ember's ops are
deterministic already), float32 matmul precision (NumPy's matmul is always full precision),
warn_always, and the inter-op thread count (ember runs ops one at a time); plus
set_anomaly_enabled / is_anomaly_enabled, which do switch ember's anomaly mode."""
import os
import warnings

from . import _warn
from .autograd import anomaly

_state = {"deterministic": False, "warn_only": False, "matmul_precision": "highest",
          "interop_threads": os.cpu_count() or 1}
_PRECISIONS = ("highest", "high", "medium")


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Record the setting (a no-op: ember's ops are deterministic)."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _state["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """torch's other form of use_deterministic_algorithms: 0/'default' off, 1/'warn' on with
    warnings only, 2/'error' on."""
    if not isinstance(debug_mode, (str, int)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_float32_matmul_precision(precision):
    """Record the setting (a no-op: NumPy's float32 matmul keeps full precision)."""
    if precision not in _PRECISIONS:  # torch warns and keeps the old setting
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _state["matmul_precision"]


def set_warn_always(b):
    """Warn-once warnings (torch.cholesky, torch.cross without dim, ...) then warn every time."""
    _warn.set_always(b)


def is_warn_always_enabled():
    return _warn.is_always()



def set_anomaly_enabled(enabled, check_nan=True):
    """Turn ember's anomaly detection on or off (as autograd.set_detect_anomaly)."""
    anomaly._set(enabled, check_nan)


def is_anomaly_enabled():
    return anomaly.is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    """The check_nan setting last given (True by default), whether or not anomaly mode is on."""
    return anomaly._check_nan


def get_num_interop_threads():
    return _state["interop_threads"]


def set_num_interop_threads(int):  # noqa: A002  (torch's parameter name)
    """Record the count (a no-op: ember runs one op at a time)."""
    if int < 1:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _state["interop_threads"] = int


NAMES = ("use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
         "set_deterministic_debug_mode", "get_deterministic_debug_mode",
         "is_deterministic_algorithms_warn_only_enabled", "set_float32_matmul_precision",
         "get_float32_matmul_precision", "set_warn_always", "is_warn_always_enabled",
         "set_anomaly_enabled", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
         "get_num_interop_threads",
         "set_num_interop_threads")
