"""DistributedSampler's indices equal torch's for the same dataset, seed and epoch."""
import json
import re

import numpy as np
import pytest
import torch
from torch.utils.data import DistributedSampler as TorchSampler

from ember.utils.data import DistributedSampler
from ember.utils.data.distributed import torch_randperm

from ._launch import assert_all_passed


@pytest.mark.parametrize("n, seed", [(0, 0), (1, 3), (2, 1), (10, 0), (1000, 123456789),
                                     (60000, 2**33 + 7), (37, -5)])
def test_randperm_equals_torch(n, seed):
    g = torch.Generator().manual_seed(seed)
    np.testing.assert_array_equal(torch_randperm(n, seed), torch.randperm(n, generator=g).numpy())


@pytest.mark.parametrize("n", [0, 1, 5, 10, 11, 101])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("shuffle", [False, True])
def test_indices_equal_torch(n, replicas, drop_last, shuffle):
    data = list(range(n))
    for epoch in (0, 3):
        for rank in range(replicas):
            ours = DistributedSampler(data, replicas, rank, shuffle, seed=7, drop_last=drop_last)
            theirs = TorchSampler(data, replicas, rank, shuffle, seed=7, drop_last=drop_last)
            ours.set_epoch(epoch)
            theirs.set_epoch(epoch)
            assert list(ours) == list(theirs)
            assert len(ours) == len(theirs) == len(list(ours))


def test_epochs_differ_and_repeat():
    s = DistributedSampler(list(range(50)), num_replicas=2, rank=0)
    first = list(s)
    s.set_epoch(1)
    assert list(s) != first
    s.set_epoch(0)
    assert list(s) == first


def test_invalid_rank():
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(list(range(4)), num_replicas=2, rank=2)


def test_rank_and_size_from_process_group():
    out = assert_all_passed("sampler.py", n=2)
    rows = json.loads(re.search(r"\[\[.*?\]\]", out).group())  # ranks' lines may interleave
    assert len(rows) == 2
    for rank, row in enumerate(rows):
        theirs = TorchSampler(list(range(23)), num_replicas=2, rank=rank, seed=5)
        theirs.set_epoch(2)
        assert row == list(theirs)
