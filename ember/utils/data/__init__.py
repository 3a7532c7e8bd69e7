"""ember.utils.data: datasets, samplers and the DataLoader, as torch.utils.data."""
# Placeholder for the distributed branch; the data branch's full version replaces it on merge.


def __getattr__(name):
    # DistributedSampler lives in distributed.py (the distributed area); loaded on first use
    if name == "DistributedSampler":
        from .distributed import DistributedSampler
        return DistributedSampler
    raise AttributeError(f"module 'ember.utils.data' has no attribute '{name}'")
