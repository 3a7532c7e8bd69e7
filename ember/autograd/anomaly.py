"""Anomaly mode: name the op (and the user's source line) where a NaN/Inf first appears.

Beyond torch: in forward, the first op whose output holds NaN/Inf while its inputs were finite
is reported (an ``AnomalyWarning`` pointing at the user's line that called it); in backward, the
node whose gradient becomes NaN/Inf raises, naming the forward line that created it. When the
mode is off the cost is one module-level flag check per op (``graph._anomaly_mode``).
"""
import linecache
import sys
import warnings

import numpy as np

from . import graph as _graph

_check_nan = True
# detect_anomaly's own state: graph._anomaly_mode (the ops' slow-path flag) is also on while an
# observer (an ONNX trace, a profiler) watches the ops, which must not check for NaN/Inf
_enabled = False
_PACKAGE = __name__.split(".")[0]  # "ember": frames inside it are not the user's


class AnomalyWarning(UserWarning):
    """An op produced NaN/Inf from finite inputs while anomaly detection was on."""


def is_anomaly_enabled():
    """True while anomaly detection is on."""
    return _enabled


def is_anomaly_check_nan_enabled():
    """True while anomaly detection also checks values for NaN/Inf."""
    return _enabled and _check_nan


def _set(mode, check_nan):
    global _check_nan, _enabled
    _enabled = bool(mode)
    _graph._anomaly_mode = _enabled or _graph._observer is not None
    _check_nan = bool(check_nan)


class detect_anomaly:
    """Context manager / decorator turning anomaly detection on (and restoring it on exit)."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        self.prev = (_enabled, _check_nan)
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = (_enabled, _check_nan)
        _set(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        _set(*self.prev)
        return False

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
        return wrapper


class set_detect_anomaly:
    """Turn anomaly detection on or off now; as a context manager, restore it on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev = (_enabled, _check_nan)
        _set(mode, check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set(*self.prev)
        return False


# ----------------------------------------------------------------- where an op was called
def _user_site():
    """(filename, lineno, function, api) of the first frame outside ember; api: the ember
    function just below it (e.g. ``Linear.forward``), or None when the user called apply."""
    frame = sys._getframe(2)
    api = None
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module != _PACKAGE and not module.startswith(_PACKAGE + "."):
            code = frame.f_code
            return code.co_filename, frame.f_lineno, code.co_name, api
        api = frame.f_code.co_name
        frame = frame.f_back
    return None


def format_site(site):
    """A traceback-like description of a recorded call site."""
    if site is None:
        return "  (unknown location)"
    filename, lineno, function, api = site
    text = f'  File "{filename}", line {lineno}, in {function}'
    line = linecache.getline(filename, lineno).strip()
    if line:
        text += f"\n    {line}"
    if api is not None:
        text += f"\n  (inside ember's {api})"
    return text


def creation_site(node):
    """The user's source line that created ``node`` (recorded only under anomaly mode)."""
    return node.__dict__.get("_anomaly_site")


def _op_name(node):
    name = type(node).__name__
    cut = name.find("Backward")
    return name[:cut].lower() if cut > 0 else name


# ----------------------------------------------------------------- forward
def _bad_kind(array):
    """'nan', 'inf' or None for a floating array."""
    if np.isnan(array).any():
        return "nan"
    return "inf" if np.isinf(array).any() else None


def _all_finite(values):
    for v in values:
        data = getattr(v, "_data", v)
        if isinstance(data, float) and not np.isfinite(data):
            return False
        if isinstance(data, np.ndarray) and data.dtype.kind == "f" and \
                not np.isfinite(data).all():
            return False
    return True


def on_forward(node, inputs, kwargs, data, attached):
    """Called by Node.apply under anomaly mode: record the site; warn if NaN/Inf appears."""
    site = _user_site()
    if attached:
        node.__dict__["_anomaly_site"] = site
    if not _check_nan or data.dtype.kind != "f" or np.isfinite(data).all():
        return
    if not _all_finite(inputs) or not _all_finite(kwargs.values()):
        return  # the NaN/Inf came in from outside: the op that made it was reported already
    kind = _bad_kind(data)
    count = int((~np.isfinite(data)).sum())
    message = (f"Anomaly detected in forward: {type(node).__name__} ({_op_name(node)}) produced "
               f"{kind} values ({count} of {data.size} elements) from finite inputs. Called "
               f"from:\n{format_site(site)}")
    if site is None:
        warnings.warn(message, AnomalyWarning, stacklevel=3)
    else:
        warnings.warn_explicit(message, AnomalyWarning, site[0], site[1])


def on_function_forward(node, outputs):
    """Called by autograd.Function.apply under anomaly mode: record where it was called."""
    node.__dict__["_anomaly_site"] = _user_site()
    for o in outputs:
        data = getattr(o, "_data", None)
        if isinstance(data, np.ndarray):
            on_forward(node, (), {}, data, False)


# ----------------------------------------------------------------- backward
def check_backward(node, outs):
    """Called by the engine under anomaly mode after a node ran: raise on NaN/Inf gradients."""
    if not _check_nan:
        return
    for i, g in enumerate(outs):
        if g is None:
            continue
        data = getattr(g, "_data", g)
        if not isinstance(data, np.ndarray) or data.dtype.kind != "f" or \
                np.isfinite(data).all():
            continue
        kind = _bad_kind(data)
        if kind is not None:
            raise RuntimeError(f"Function '{type(node).__name__}' returned {kind} values in its "
                               f"{i}th output.\n{_forward_note(node)}")


def _forward_note(node):
    site = creation_site(node)
    if site is None:
        return ("The forward call that created it was not recorded: enable anomaly detection "
                "during the forward pass to see it.")
    return f"The forward call that created {type(node).__name__}:\n{format_site(site)}"


def annotate(error, node):
    """Add the failing node's forward site to an error raised during its backward."""
    note = f"Error detected in {type(node).__name__}. {_forward_note(node)}"
    if hasattr(error, "add_note"):
        error.add_note(note)
    return error
