"""Gradient-recording switches: no_grad, enable_grad, set_grad_enabled, inference_mode."""
import functools

# re-exported: the state lives below Tensor (the hot paths read its n_disabled there)
from .._autograd_state import InferenceVersion, _state, check_inplace, new_version  # noqa: F401


def is_grad_enabled():
    """True when operations are being recorded for autograd (per thread)."""
    return _state.enabled


def is_inference_mode_enabled():
    """True inside ``inference_mode()``."""
    return _state.inference


class _Mode:
    """Base for the switches: context manager and decorator, restoring the previous state."""

    def _enter_value(self):
        raise NotImplementedError

    def __enter__(self):
        self._prev = (_state.enabled, _state.inference)
        _state.enabled, _state.inference = self._enter_value()
        return None

    def __exit__(self, *exc):
        _state.enabled, _state.inference = self._prev
        return False

    def clone(self):
        return self.__class__()

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper


class no_grad(_Mode):
    """Disable gradient recording inside the block (results have requires_grad=False)."""

    def __init__(self, orig_func=None):
        self._func = orig_func

    def __new__(cls, orig_func=None):
        self = super().__new__(cls)
        if callable(orig_func):  # used as @no_grad without parentheses
            self.__init__()
            return self(orig_func)
        return self

    def _enter_value(self):
        return False, _state.inference


class enable_grad(no_grad):
    """Re-enable gradient recording inside a no_grad block."""

    def _enter_value(self):
        return True, _state.inference


class set_grad_enabled(_Mode):
    """Set gradient recording on or off; takes effect immediately, also usable as a context."""

    def __init__(self, mode):
        self.mode = bool(mode)
        self._prev = (_state.enabled, _state.inference)
        _state.enabled = self.mode

    def _enter_value(self):
        return self.mode, _state.inference

    def __enter__(self):
        return None

    def clone(self):
        return set_grad_enabled(self.mode)

    def __call__(self, func):
        _state.enabled = self._prev[0]  # as a decorator it must not switch at decoration time
        return super().__call__(func)


class inference_mode(_Mode):
    """Like no_grad, for inference; ``inference_mode(False)`` is a no-op switch."""

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __new__(cls, mode=True):
        self = super().__new__(cls)
        if callable(mode) and not isinstance(mode, bool):
            self.__init__()
            return self(mode)
        return self

    def _enter_value(self):
        if not self.mode:
            return _state.enabled, _state.inference
        return False, True

    def clone(self):
        return inference_mode(self.mode)
