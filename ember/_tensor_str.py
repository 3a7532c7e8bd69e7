"""PyTorch-style printing of tensors: tensor([1., 2.], requires_grad=True)."""
import math

import numpy as np

from . import _dtype
from ._meta import MetaArray

_OPTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


_PROFILES = {  # torch's named sets of print options
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=float("inf"), edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Change how tensors print (as torch.set_printoptions)."""
    if profile in _PROFILES:
        _OPTS.update(_PROFILES[profile])
    for key, val in (("precision", precision), ("threshold", threshold),
                     ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if val is not None:
            _OPTS[key] = val
    _OPTS["sci_mode"] = sci_mode


class _Formatter:
    """torch's rules: the width and mode come from the nonzero finite values only."""

    def __init__(self, values, floating):
        self.floating, self.int_mode, self.sci_mode = floating, True, False
        self.width = 1
        if not floating:
            self.width = max((len(str(v)) for v in values), default=1)
            return
        finite = values[np.isfinite(values) & (values != 0)].astype(np.float64)
        if finite.size:
            self.int_mode = bool(np.all(finite == np.ceil(finite)))
            absv = np.abs(finite)
            lo, hi = absv.min(), absv.max()
            big = float(hi) / float(lo) > 1000.0 or hi > 1.0e8  # (Python floats: inf, no warning)
            self.sci_mode = big if self.int_mode else big or lo < 1.0e-4
        if _OPTS["sci_mode"] is not None:  # (before the widths: they depend on the mode)
            self.sci_mode = _OPTS["sci_mode"]
        for v in finite:
            self.width = max(self.width, len(self._raw(float(v), _OPTS["precision"])))

    def _raw(self, v, prec):
        if math.isnan(v) or math.isinf(v):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        if self.sci_mode:
            return f"{v:.{prec}e}"
        if self.int_mode:
            return f"{v:.0f}."
        return f"{v:.{prec}f}"

    def format(self, v):
        s = self._raw(float(v), _OPTS["precision"]) if self.floating else str(v)
        return " " * (self.width - len(s)) + s


class _ComplexFormatter:
    """torch's complex printing: the real and the imaginary parts each get their own format;
    an element is ``real+imagj`` (the imaginary part's padding moved to the front)."""

    def __init__(self, values):
        self.real, self.imag = _Formatter(values.real, True), _Formatter(values.imag, True)
        self.width = self.real.width + self.imag.width + 1  # the "j"

    def format(self, v):
        imag = (self.imag.format(v.imag) + "j").lstrip()
        return self.real.format(v.real) + ("" if imag[0] in "+-" else "+") + imag


def _summary_values(arr):
    """The values the printout shows (they alone pick the format, as in torch)."""
    return arr.reshape(-1) if arr.size <= _OPTS["threshold"] else _shown(arr)


def _shown(arr):
    e = _OPTS["edgeitems"]
    if arr.ndim == 1:
        return arr if arr.shape[0] <= 2 * e else np.concatenate([arr[:e], arr[-e:]])
    rows = arr if arr.shape[0] <= 2 * e else list(arr[:e]) + list(arr[-e:])
    return np.concatenate([_shown(a) for a in rows])


def _vector(arr, fmt, indent, summarize):
    e = _OPTS["edgeitems"]
    if summarize and arr.shape[0] > 2 * e:
        items = [fmt.format(v) for v in arr[:e]] + [" ..."] + [fmt.format(v) for v in arr[-e:]]
    else:
        items = [fmt.format(v) for v in arr]
    per_line = max(1, int((_OPTS["linewidth"] - indent) // (fmt.width + 2)))
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _body(arr, fmt, indent, summarize):
    if arr.ndim == 0:
        return fmt.format(arr.item())
    if arr.ndim == 1:
        return _vector(arr, fmt, indent, summarize)
    e = _OPTS["edgeitems"]
    if summarize and arr.shape[0] > 2 * e:
        rows = [_body(a, fmt, indent + 1, summarize) for a in arr[:e]] + ["..."] + \
               [_body(a, fmt, indent + 1, summarize) for a in arr[-e:]]
    else:
        rows = [_body(a, fmt, indent + 1, summarize) for a in arr]
    sep = "," + "\n" * (arr.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(rows) + "]"


_IMPLIED = (np.dtype(np.int64), np.dtype(np.bool_))  # dtypes a non-empty repr leaves unsaid


def tensor_repr(t, prefix="tensor("):
    arr = t._data
    if type(arr) is MetaArray:
        return _meta_repr(t, prefix)
    suffixes = []
    default = _dtype.get_default_dtype().np
    if arr.size == 0 and arr.shape != (0,):
        suffixes.append(f"size={tuple(arr.shape)}")
    if arr.dtype != default and (arr.size == 0 or (
            arr.dtype not in _IMPLIED and arr.dtype != _dtype.default_complex().np)):
        suffixes.append(f"dtype={t.dtype}")
    if arr.size == 0:
        body = "[]"
    else:
        summarize = arr.size > _OPTS["threshold"]
        floating = arr.dtype.kind in "fV"  # "V": bfloat16
        values = _summary_values(arr)
        if arr.dtype.kind == "c":
            fmt = _ComplexFormatter(values)
        elif arr.dtype == np.bool_:
            fmt = _Formatter(np.array(["True" if v else "False" for v in values]), False)
            arr = np.where(arr, "True", "False")
        else:
            fmt = _Formatter(values, floating)
        body = _body(arr, fmt, len(prefix), summarize)
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    tangent = t.__dict__.get("_fw_grad")  # a dual tensor's (autograd.forward_ad)
    if tangent is not None:
        suffixes.append(f"tangent={tangent.item() if tangent.ndim == 0 else tangent!r}")
    return _add_suffixes(prefix + body, suffixes, len(prefix))


def _meta_repr(t, prefix):
    """A meta tensor has no values: torch prints ``...`` and its device, size and dtype."""
    suffixes = ["device='meta'", f"size={tuple(t._data.shape)}"]
    if t._data.dtype != _dtype.get_default_dtype().np:
        suffixes.append(f"dtype={t.dtype}")
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + "...", suffixes, len(prefix))


def _add_suffixes(text, suffixes, indent):
    """Append ", suffix" each, starting a new line where it would pass the line width."""
    parts = [text]
    line = len(text) - text.rfind("\n") + 1  # torch's count: the last line's length + 2
    for suffix in suffixes:
        if line + len(suffix) + 2 > _OPTS["linewidth"]:
            parts.append(",\n" + " " * indent + suffix)
            line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line += len(suffix) + 2
    return "".join(parts) + ")"
