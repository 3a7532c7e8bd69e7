"""Padding layers (ConstantPad, ZeroPad, ReflectionPad, ReplicationPad, CircularPad; 1-3 d)."""
from .. import _functional_misc as F
from .module import Module

_KINDS = (("Constant", "constant"), ("Zero", "constant"), ("Reflection", "reflect"),
          ("Replication", "replicate"), ("Circular", "circular"))


def _expand(padding, dims):
    """An int pads every side; a tuple must give 2 * dims sizes."""
    if isinstance(padding, int):
        return (padding,) * (2 * dims)
    padding = tuple(padding)
    if len(padding) != 2 * dims:
        raise ValueError(f"expected padding to be a single integer value or a list of "
                         f"{2 * dims} values to match input dimensions, got {len(padding)}")
    return padding


class _Pad(Module):
    """Pads the last ``_dims`` dims by ``padding`` = (left, right, top, bottom, front, back)."""

    _dims, _mode = 1, "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _expand(padding, self._dims)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPad(_Pad):
    """Pads with ``value``."""

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class _ZeroPad(_ConstantPad):
    """Pads with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


_BASES = {"Constant": _ConstantPad, "Zero": _ZeroPad}
__all__ = []
for _kind, _mode in _KINDS:
    for _d in (1, 2, 3):
        _name = f"{_kind}Pad{_d}d"
        globals()[_name] = type(_name, (_BASES.get(_kind, _Pad),), {
            "_dims": _d, "_mode": _mode, "__module__": __name__,
            "__doc__": f"{_kind} padding of the last {_d} dim(s)."})
        __all__.append(_name)
