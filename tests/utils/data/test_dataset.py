"""Datasets and random_split against torch.utils.data."""
import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import ember
import ember.utils.data as edata


def _np(x):
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def test_tensor_dataset_items_and_len_match_torch():
    a, b = np.arange(12.0).reshape(6, 2), np.arange(6)
    e = edata.TensorDataset(ember.tensor(a), ember.tensor(b))
    t = tdata.TensorDataset(torch.tensor(a), torch.tensor(b))
    assert len(e) == len(t) == 6
    for i in (0, 3, -1):
        for x, y in zip(e[i], t[i]):
            np.testing.assert_array_equal(_np(x), _np(y))


def test_tensor_dataset_size_mismatch():
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        edata.TensorDataset(ember.zeros(3), ember.zeros(4))


def test_concat_and_subset_index_like_torch():
    parts = [list(range(3)), list(range(10, 14)), list(range(20, 22))]
    e, t = edata.ConcatDataset(parts), tdata.ConcatDataset(parts)
    assert len(e) == len(t) and e.cumulative_sizes == t.cumulative_sizes
    assert [e[i] for i in range(-len(e), len(e))] == [t[i] for i in range(-len(t), len(t))]
    with pytest.raises(ValueError, match="absolute value of index should not exceed"):
        e[-len(e) - 1]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        edata.ConcatDataset([])
    sub = edata.Subset(e, [8, 0, 4])
    assert [sub[i] for i in range(3)] == [tdata.Subset(t, [8, 0, 4])[i] for i in range(3)]
    assert len(sub) == 3


def test_dataset_add_concatenates():
    class Squares(edata.Dataset):
        def __getitem__(self, i):
            return i * i

        def __len__(self):
            return 3
    both = Squares() + Squares()
    assert isinstance(both, edata.ConcatDataset) and [both[i] for i in range(6)] == [0, 1, 4] * 2


@pytest.mark.parametrize("lengths", [[0.5, 0.5], [0.3, 0.3, 0.4], [0.1, 0.9], [2, 5]])
def test_random_split_lengths_match_torch(lengths):
    e = edata.random_split(range(7), lengths, generator=ember.Generator().manual_seed(0))
    t = tdata.random_split(range(7), lengths, generator=torch.Generator().manual_seed(0))
    assert [len(s) for s in e] == [len(s) for s in t]
    got = sorted(i for s in e for i in (s[k] for k in range(len(s))))
    assert got == list(range(7))  # disjoint and covering


def test_random_split_uses_generator_permutation():
    splits = edata.random_split(range(10), [4, 6], generator=ember.Generator().manual_seed(3))
    perm = ember.randperm(10, generator=ember.Generator().manual_seed(3)).tolist()
    assert splits[0].indices == perm[:4] and splits[1].indices == perm[4:]


def test_random_split_errors_match_torch():
    for lengths, match in [([2, 2], "Sum of input lengths does not equal"),
                           ([1.5, -0.5], "Fraction at index 0 is not between 0 and 1")]:
        with pytest.raises(ValueError, match=match):
            tdata.random_split(range(7), lengths)
        with pytest.raises(ValueError, match=match):
            edata.random_split(range(7), lengths)


def test_iterable_and_chain_dataset():
    class Stream(edata.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))
    assert list(Stream(2) + Stream(3)) == [0, 1, 0, 1, 2]
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        edata.ConcatDataset([Stream(2)])


def test_stack_dataset():
    s = edata.StackDataset(a=[1, 2], b=["x", "y"])
    assert s[1] == {"a": 2, "b": "y"} and len(s) == 2
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        edata.StackDataset([1], [1, 2])
