"""torch.nn.modules.instancenorm's path: the instance norm layers (defined in normalization.py
and lazy.py)."""
from .lazy import LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d
from .normalization import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm  # noqa

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]
