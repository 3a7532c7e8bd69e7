"""Samplers against torch.utils.data: orders, lengths, errors; random ones by their contract."""
import numpy as np
import pytest
import torch.utils.data as tdata

import ember
import ember.utils.data as edata


def test_sequential_sampler_matches_torch():
    assert list(edata.SequentialSampler(range(5))) == list(tdata.SequentialSampler(range(5)))
    assert len(edata.SequentialSampler(range(5))) == 5


@pytest.mark.parametrize("n,batch_size,drop_last", [(10, 3, False), (10, 3, True), (9, 3, True),
                                                    (2, 5, False), (2, 5, True), (7, 1, False)])
def test_batch_sampler_matches_torch(n, batch_size, drop_last):
    order = list(np.random.default_rng(n).permutation(n))
    e = edata.BatchSampler(order, batch_size, drop_last)
    t = tdata.BatchSampler(order, batch_size, drop_last)
    assert list(e) == list(t) and len(e) == len(t)


@pytest.mark.parametrize("args,err", [((range(3), 0, False), ValueError),
                                      ((range(3), 2, 1), ValueError),
                                      ((range(3), True, False), ValueError)])
def test_batch_sampler_errors_match_torch(args, err):
    with pytest.raises(err) as t_info:
        tdata.BatchSampler(*args)
    with pytest.raises(err) as e_info:
        edata.BatchSampler(*args)
    assert str(e_info.value) == str(t_info.value)


def test_random_sampler_is_a_permutation_and_reproducible():
    g = ember.Generator().manual_seed(5)
    first = list(edata.RandomSampler(range(20), generator=g))
    assert sorted(first) == list(range(20))
    again = list(edata.RandomSampler(range(20), generator=ember.Generator().manual_seed(5)))
    assert first == again
    assert first == ember.randperm(20, generator=ember.Generator().manual_seed(5)).tolist()


def test_random_sampler_num_samples_blocks_are_permutations():
    s = edata.RandomSampler(range(4), num_samples=10, generator=ember.Generator().manual_seed(1))
    got = list(s)
    assert len(got) == len(s) == 10
    assert sorted(got[:4]) == sorted(got[4:8]) == list(range(4))
    assert len(set(got[8:])) == 2


def test_random_sampler_with_replacement():
    s = edata.RandomSampler(range(3), replacement=True, num_samples=100,
                            generator=ember.Generator().manual_seed(0))
    got = list(s)
    assert len(got) == 100 and set(got) == {0, 1, 2}


def test_random_sampler_without_generator_follows_global_seed():
    ember.manual_seed(11)
    a = list(edata.RandomSampler(range(30)))
    ember.manual_seed(11)
    assert list(edata.RandomSampler(range(30))) == a


@pytest.mark.parametrize("kwargs,err", [(dict(num_samples=0), ValueError),
                                        (dict(replacement=1), TypeError)])
def test_random_sampler_errors_match_torch(kwargs, err):
    with pytest.raises(err) as t_info:
        tdata.RandomSampler(range(3), **kwargs)
    with pytest.raises(err) as e_info:
        edata.RandomSampler(range(3), **kwargs)
    assert str(e_info.value) == str(t_info.value)


def test_subset_random_sampler():
    idx = [10, 20, 30, 40]
    got = list(edata.SubsetRandomSampler(idx, generator=ember.Generator().manual_seed(2)))
    perm = ember.randperm(4, generator=ember.Generator().manual_seed(2)).tolist()
    assert got == [idx[i] for i in perm]


def test_weighted_random_sampler():
    w = [0.0, 1.0, 0.0, 3.0]
    s = edata.WeightedRandomSampler(w, 400, generator=ember.Generator().manual_seed(0))
    got = list(s)
    assert len(got) == len(s) == 400 and set(got) == {1, 3}
    assert 0.6 < got.count(3) / 400 < 0.9
    no_rep = list(edata.WeightedRandomSampler([1, 1, 1], 3, replacement=False))
    assert sorted(no_rep) == [0, 1, 2]


@pytest.mark.parametrize("args", [([1, 2], 0), ([[1, 2]], 2), ([1, 2], 2, 1)])
def test_weighted_random_sampler_errors_match_torch(args):
    with pytest.raises(ValueError) as t_info:
        tdata.WeightedRandomSampler(*args)
    with pytest.raises(ValueError) as e_info:
        edata.WeightedRandomSampler(*args)
    assert str(e_info.value) == str(t_info.value)
