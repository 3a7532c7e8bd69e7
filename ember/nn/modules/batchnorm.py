"""torch.nn.modules.batchnorm's path: the batch norm layers (defined in normalization.py,
sync_batchnorm.py and lazy.py), so that ``nn.modules.batchnorm._BatchNorm`` checks work."""
from .lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d
from .normalization import (  # noqa: F401
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    _BatchNorm,
    _NormBase,
)
from .sync_batchnorm import SyncBatchNorm

__all__ = ["BatchNorm1d", "LazyBatchNorm1d", "BatchNorm2d", "LazyBatchNorm2d", "BatchNorm3d",
           "LazyBatchNorm3d", "SyncBatchNorm"]
