"""Dropout layers: zero elements (Dropout) or whole channels (Dropout1d/2d/3d) at random during
training, scaling the rest by 1 / (1 - p); identity in eval mode."""
from .. import functional as F
from .._functional_misc import check_dropout_p
from .module import Module


class _DropoutNd(Module):
    """Shared by every dropout layer: checks p, calls its functional form ``_fn``."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        check_dropout_p(p)
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return self._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Each element is zeroed with probability p in training mode."""

    _fn = staticmethod(F.dropout)


class Dropout1d(_DropoutNd):
    """In training, zero whole channels of (N, C, L) with probability p."""

    _fn = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """In training, zero whole channels of (N, C, H, W) with probability p."""

    _fn = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    """In training, zero whole channels of (N, C, D, H, W) with probability p."""

    _fn = staticmethod(F.dropout3d)
