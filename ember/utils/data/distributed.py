"""DistributedSampler: each rank's share of a dataset, with indices identical to torch's."""
import math

import numpy as np

from ... import distributed as dist
from .sampler import Sampler


class DistributedSampler(Sampler):
    """The indices for rank ``rank`` of ``num_replicas``: padded (or cut, with ``drop_last``) to
    a multiple of ``num_replicas``, shuffled by a permutation seeded with ``seed + epoch``."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        num_replicas, rank = _replicas_and_rank(num_replicas, rank)
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        order = torch_randperm(n, self.seed + self.epoch) if self.shuffle else np.arange(n)
        if self.drop_last:
            order = order[:self.total_size]
        elif n:
            order = np.resize(order, self.total_size)  # pads by repeating from the start
        return iter(order[self.rank:self.total_size:self.num_replicas].tolist())

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Use a different shuffle each epoch (the same on every rank)."""
        self.epoch = epoch


def _replicas_and_rank(num_replicas, rank):
    if num_replicas is None or rank is None:
        if not dist.is_available():
            raise RuntimeError("Requires distributed package to be available")
        num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
        rank = dist.get_rank() if rank is None else rank
    return num_replicas, rank


def _mt19937(seed):
    """NumPy's MT19937 seeded like torch's CPU generator (the standard 32-bit init_genrand)."""
    key = np.empty(624, dtype=np.uint32)
    value = seed & 0xFFFFFFFF
    key[0] = value
    for i in range(1, 624):
        value = (1812433253 * (value ^ (value >> 30)) + i) & 0xFFFFFFFF
        key[i] = value
    bits = np.random.MT19937()
    bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}
    return bits


def torch_randperm(n, seed):
    """torch.randperm(n, generator=torch.Generator().manual_seed(seed)) on the CPU, as ndarray.

    torch swaps position i with i + (next 32-bit output % (n - i)), for i = 0 .. n-2.
    """
    if n >= 0xFFFFFFFF // 20:
        raise ValueError(f"DistributedSampler: datasets of {n} items are too large to shuffle "
                         "like torch (its 64-bit path is not reproduced)")
    order = np.arange(n, dtype=np.int64)
    if n < 2:
        return order
    offsets = _mt19937(seed).random_raw(n - 1).astype(np.int64) % np.arange(n, 1, -1)
    for i, j in enumerate((offsets + np.arange(n - 1)).tolist()):
        order[i], order[j] = order[j], order[i]
    return order
