"""ember.utils.data: datasets, samplers and the DataLoader, as torch.utils.data."""
from ._collate import default_collate, default_convert
from ._worker import get_worker_info
from .dataloader import DataLoader
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "IterableDataset", "RandomSampler", "Sampler",
           "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "default_collate", "default_convert", "get_worker_info",
           "random_split"]


def __getattr__(name):
    # DistributedSampler lives in distributed.py (the distributed area); loaded on first use
    if name == "DistributedSampler":
        from .distributed import DistributedSampler  # lazy: loaded on first use (PEP 562)
        return DistributedSampler
    raise AttributeError(f"module 'ember.utils.data' has no attribute '{name}'")
