"""ember.nn.parallel: data-parallel training across processes, as torch.nn.parallel."""
from ..modules.data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
