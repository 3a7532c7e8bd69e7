"""ember.nn.parallel: data-parallel training across processes, as torch.nn.parallel."""
from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
