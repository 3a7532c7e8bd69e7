"""torch's TORCH_WARN_ONCE: a warning shown the first time in a process, and on every call once
``torch.set_warn_always(True)`` is set (the switch lives here, below the ops that warn)."""
import os
import sys
import warnings

_always = [False]
_warned = set()


def set_always(b):
    _always[0] = bool(b)


def is_always():
    return _always[0]


def warn_once(message, stacklevel=3):
    """A UserWarning the first time ``message`` is warned in the process (always if set);
    ``stacklevel=None`` points at the first caller outside ember (for helpers reached by many
    paths)."""
    if message in _warned and not _always[0]:
        return
    _warned.add(message)
    warnings.warn(message, UserWarning, stacklevel=stacklevel or _user_level())


_EMBER_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _user_level():
    frame, level = sys._getframe(2), 2  # (warn_once's caller is level 2 for warnings.warn)
    while frame is not None and frame.f_code.co_filename.startswith(_EMBER_DIR):
        frame, level = frame.f_back, level + 1
    return level
