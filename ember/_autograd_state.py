"""Per-thread grad mode and version counters: the autograd state Tensor itself reads.

It sits below ``_tensor`` (which cannot import the autograd package that builds on it);
``autograd.grad_mode`` re-exports it beside the user-facing switches.
"""
import threading


class _GradState(threading.local):
    """Per-thread grad mode. ``n_disabled`` counts the threads where it is off, so that the hot
    paths can skip the thread-local read (about 50 ns) while it is on everywhere: they test
    ``not _autograd_state.n_disabled or _state._enabled`` inline."""

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
