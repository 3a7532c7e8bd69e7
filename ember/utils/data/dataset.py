"""Datasets: Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset and random_split."""
import bisect
import math
import warnings

import numpy as np

from ..._creation import randperm
from ...random import default_generator
from ._collate import _tensor_cls, default_collate


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__`` (and usually ``__len__``)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset that is a stream: subclasses define ``__iter__``."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample i is ``tuple(t[i] for t in tensors)``; all tensors share their first dimension."""

    def __init__(self, *tensors):
        if tensors and any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)

    def _batch(self, indices):
        """default_collate of the samples at ``indices``, indexing each tensor once; None where
        that could differ (a subclass's own item access, tensors that require grad)."""
        cls = type(self)
        if cls.__getitem__ is not TensorDataset.__getitem__ or hasattr(cls, "__getitems__"):
            return None
        if any(t.requires_grad for t in self.tensors):
            return None  # default_collate stacks these through autograd
        rows = np.asarray(indices)
        if rows.ndim != 1 or rows.dtype.kind not in "iu":
            return None
        return [_tensor_cls()._make(t._data[rows]) for t in self.tensors]


class ChainDataset(IterableDataset):
    """Iterates several IterableDatasets one after another."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        return sum(len(d) for d in self.datasets)


class ConcatDataset(Dataset):
    """Map-style datasets joined end to end."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    @staticmethod
    def cumsum(sequence):
        total, out = 0, []
        for d in sequence:
            total += len(d)
            out.append(total)
        return out

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)

    def _batch(self, indices):
        """The wrapped dataset's whole-batch fetch (see ``fetch``), or None."""
        cls, batch = type(self), getattr(self.dataset, "_batch", None)
        if (batch is None or cls.__getitem__ is not Subset.__getitem__
                or cls.__getitems__ is not Subset.__getitems__):
            return None
        return batch([self.indices[i] for i in indices])


def fetch(dataset, indices, collate_fn):
    """``collate_fn`` of the samples of a map-style ``dataset`` at ``indices``: through
    ``__getitems__`` where the dataset has one, else sample by sample. In-memory datasets
    (TensorDataset, a Subset of one) under ``default_collate`` index each tensor once for the
    whole batch instead: the same batch, without a tensor per sample."""
    if collate_fn is default_collate:
        batch = getattr(dataset, "_batch", None)
        data = batch(indices) if batch is not None else None
        if data is not None:
            return data
    getitems = getattr(dataset, "__getitems__", None)
    data = getitems(indices) if callable(getitems) else [dataset[i] for i in indices]
    return collate_fn(data)


def _lengths_from_fractions(fractions, n):
    """Floor each fraction's share; hand the remainder out one by one from the first subset."""
    lengths = [int(math.floor(n * f)) for f in fractions]
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. "
                          f"This might result in an empty dataset.", stacklevel=3)
    return lengths


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping random subsets of the given lengths or fractions."""
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        for i, f in enumerate(lengths):
            if f < 0 or f > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths = _lengths_from_fractions(lengths, n)
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = randperm(sum(lengths), generator=generator or default_generator).tolist()
    subsets, offset = [], 0
    for length in lengths:
        subsets.append(Subset(dataset, order[offset:offset + length]))
        offset += length
    return subsets


class StackDataset(Dataset):
    """Samples combined from several datasets of equal length, as a tuple or a dict."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        self.datasets = args or kwargs
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(len(d) != self._length for d in parts):
            raise ValueError("Size mismatch between datasets")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length
