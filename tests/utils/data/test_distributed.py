"""DistributedSampler with explicit num_replicas and rank (no process group): every rank's
indices, lengths and epochs equal torch's; the rank error. (Under MPI: tests/distributed.)"""
import pytest
import torch.utils.data as tdata

import ember.utils.data as edata


@pytest.mark.parametrize("n,replicas", [(10, 3), (12, 4), (5, 8), (1, 2)])
@pytest.mark.parametrize("shuffle,drop_last", [(True, False), (False, False), (True, True),
                                               (False, True)])
def test_indices_match_torch(n, replicas, shuffle, drop_last):
    for rank in range(replicas):
        kw = dict(num_replicas=replicas, rank=rank, shuffle=shuffle, seed=3, drop_last=drop_last)
        e, t = edata.DistributedSampler(range(n), **kw), tdata.DistributedSampler(range(n), **kw)
        for epoch in (0, 1, 5):
            e.set_epoch(epoch)
            t.set_epoch(epoch)
            assert list(e) == list(t), (rank, epoch)
            assert len(e) == len(t)


@pytest.mark.parametrize("rank", [-1, 3])
def test_invalid_rank_matches_torch(rank):
    errors = []
    for lib in (edata, tdata):
        with pytest.raises(ValueError) as info:
            lib.DistributedSampler(range(6), num_replicas=3, rank=rank)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_feeds_a_dataloader_like_torch():
    data = list(range(11))
    batches = []
    for lib in (edata, tdata):
        sampler = lib.DistributedSampler(data, num_replicas=2, rank=1, seed=7)
        sampler.set_epoch(2)
        batches.append([b.tolist() for b in lib.DataLoader(data, batch_size=4, sampler=sampler)])
    assert batches[0] == batches[1]
