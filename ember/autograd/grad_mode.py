"""Gradient-recording switches: no_grad, enable_grad, set_grad_enabled, inference_mode."""
import functools
import threading


class _GradState(threading.local):
    """Per-thread grad mode. ``n_disabled`` counts the threads where it is off, so that the hot
    paths can skip the thread-local read (about 50 ns) while it is on everywhere: they test
    ``not grad_mode.n_disabled or _state._enabled`` inline."""

    def __init__(self):
        self._enabled = True
        self.inference = False

    @property
    def enabled(self):
        return self._enabled

    @enabled.setter
    def enabled(self, value):
        global n_disabled
        value = bool(value)
        if value is not self._enabled:
            with _count_lock:
                n_disabled += -1 if value else 1
            self._enabled = value


n_disabled = 0  # threads with grad mode off (one that ends while off keeps it above 0: safe)
_count_lock = threading.Lock()
_state = _GradState()


class InferenceVersion(list):
    """The version counter of a tensor made in inference mode, which marks it as such: torch
    refuses to update it in place outside inference mode (every in-place op bumps the counter)
    and to save it for backward (``Node._record``)."""

    __slots__ = ()

    def __setitem__(self, index, value):
        check_inplace(self)
        list.__setitem__(self, index, value)


def check_inplace(version):
    """Raise torch's error for an in-place update of an inference tensor (its counter) now."""
    if type(version) is InferenceVersion and not _state.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not "
                           "allowed.You can make a clone to get a normal tensor before doing "
                           "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
                           "details.")


def new_version():
    """A new tensor's version counter: marks it an inference tensor inside inference mode."""
    return InferenceVersion((0,)) if _state.inference else [0]


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
