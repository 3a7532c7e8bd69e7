"""torch's TORCH_WARN_ONCE: a warning shown the first time in a process, and on every call once
``torch.set_warn_always(True)`` is set (the switch lives here, below the ops that warn)."""
import warnings

_always = [False]
_warned = set()


def set_always(b):
    _always[0] = bool(b)


def is_always():
    return _always[0]


def warn_once(message, stacklevel=3):
    """A UserWarning the first time ``message`` is warned in the process (always if set)."""
    if message in _warned and not _always[0]:
        return
    _warned.add(message)
    warnings.warn(message, UserWarning, stacklevel=stacklevel)
