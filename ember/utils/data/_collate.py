"""default_collate / default_convert: turn a list of samples into a batch of tensors."""
import collections.abc
import numbers

import numpy as np

from ..._tensor import Tensor
from ...ops.api import stack
from ...ops.shape import _check_equal_shapes  # (stack's own check: torch's message)

_BAD_TYPE = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
             "found {}")


def _tensor_cls():
    return Tensor


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def _collate_tensors(batch):
    first = batch[0]._data.dtype
    if any(t.requires_grad or t._data.dtype != first for t in batch):
        return stack(list(batch), 0)  # (torch's type promotion for mixed dtypes)
    _check_equal_shapes([t._data for t in batch])
    return _tensor_cls()._make(np.stack([t._data for t in batch]))


def _collate_arrays(batch):
    if batch[0].dtype.kind in "USOa":
        raise TypeError(_BAD_TYPE.format(batch[0].dtype))
    _check_equal_shapes(batch)
    return _tensor_cls()._make(np.stack(batch))


def _collate_numbers(batch):
    elem = batch[0]
    if isinstance(elem, bool):
        dtype = np.bool_
    elif isinstance(elem, numbers.Integral):
        dtype = np.int64
    else:
        dtype = np.float64  # Python floats collate to float64, as in torch
    return _tensor_cls()._make(np.array(batch, dtype=dtype))


def _collate_sequences(batch):
    elem = batch[0]
    if any(len(sample) != len(elem) for sample in batch):
        raise RuntimeError("each element in list of batch should be of equal size")
    columns = [default_collate(samples) for samples in zip(*batch)]
    if _is_namedtuple(elem):
        return type(elem)(*columns)
    if isinstance(elem, (tuple, list)):
        return columns
    try:
        return type(elem)(columns)
    except TypeError:
        return columns


def default_collate(batch):
    """Stack tensors/arrays/numbers along a new first dimension; recurse into dicts and tuples."""
    elem = batch[0]
    if isinstance(elem, _tensor_cls()):
        return _collate_tensors(batch)
    if isinstance(elem, np.ndarray):
        return _collate_arrays(batch)
    if isinstance(elem, np.generic) and elem.dtype.kind not in "USOa":
        return _tensor_cls()._make(np.array(batch, dtype=elem.dtype))
    if isinstance(elem, (bool, numbers.Number)) and not isinstance(elem, np.generic):
        return _collate_numbers(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        keys = elem.keys()
        collated = {k: default_collate([sample[k] for sample in batch]) for k in keys}
        try:
            return type(elem)(collated)
        except TypeError:
            return collated
    if isinstance(elem, collections.abc.Sequence):
        return _collate_sequences(batch)
    raise TypeError(_BAD_TYPE.format(type(elem)))


def default_convert(data):
    """Turn NumPy arrays and scalars into tensors (recursing into containers); keep the rest."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "USOa":
        return _tensor_cls()._make(data)
    if isinstance(data, np.generic) and data.dtype.kind not in "USOa":
        return _tensor_cls()._make(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data
