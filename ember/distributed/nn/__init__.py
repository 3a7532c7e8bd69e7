"""ember.distributed.nn: collectives that autograd differentiates (torch.distributed.nn)."""
from .functional import all_gather, all_reduce, broadcast, reduce

__all__ = ["all_gather", "all_reduce", "broadcast", "reduce"]
