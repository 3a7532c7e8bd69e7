"""NumPy's floating-point warnings, silenced inside ember's kernels (torch computes NaN and inf
without a word: ``x / 0``, ``log(0)``, ``inf - inf``).

``quiet()`` switches NumPy's error state to "ignore" for the current context only and returns a
token for ``restore(token)``; the caller's own ``np.errstate`` / ``np.seterr`` and other threads
are untouched. It sets NumPy's error-state context variable directly (a fraction of the cost of
entering ``np.errstate``, which builds a new state object each time); where that private name is
missing, it falls back to ``np.errstate``.
"""
import functools

import numpy as np

try:
    from numpy._core import _ufunc_config as _config
    _STATE = _config._extobj_contextvar
    _QUIET = _config._make_extobj(all="ignore")
except (ImportError, AttributeError):  # another NumPy: the public, slower context manager
    _STATE = None

if _STATE is not None:  # C calls only: no Python frame per op
    # ``enter(QUIET)`` is ``quiet()`` without the partial's call layer (the per-op fast paths)
    QUIET, enter = _QUIET, _STATE.set
    quiet = functools.partial(enter, QUIET)
    quiet.__doc__ = "Silence NumPy's floating-point warnings until ``restore(token)``."
    restore = _STATE.reset
else:
    QUIET = None

    def enter(_):
        """Silence NumPy's floating-point warnings until ``restore(token)``."""
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    quiet = functools.partial(enter, QUIET)

    def restore(token):
        token.__exit__(None, None, None)
