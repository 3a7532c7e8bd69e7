"""torch.as_strided: a view with any sizes, strides and storage offset into a tensor's memory.

Strides and the offset count elements of the storage (the memory of the view's base), not of
the input, as in torch. A view whose elements overlap is read-only (torch writes into one in an
order ember does not reproduce; an error beats a silently different result).
"""
import numpy as np

from ..autograd.graph import Node
from .inplace import _overlapping, check_inplace
from .shape import as_view


def _storage(a):
    """The flat memory a tensor views (its base's), and the input's first element's offset."""
    root = a._base if a._base is not None else a
    flat = np.ravel(root._data, order="K")
    if root._data.size and not np.shares_memory(flat, root._data):
        raise NotImplementedError("as_strided: the tensor's memory is not one contiguous block")
    item = a._data.itemsize
    offset = (a._data.__array_interface__["data"][0] -
              flat.__array_interface__["data"][0]) // item if a._data.size else 0
    return flat, offset


def _check(size, stride, offset, item, storage_size):
    size, stride = [int(s) for s in size], [int(s) for s in stride]
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={size} and "
                           f"strides={stride}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {stride}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > storage_size:
        raise RuntimeError(f"setStorage: sizes {size}, strides {stride}, storage offset "
                           f"{offset}, and itemsize {item} requiring a storage size of "
                           f"{needed * item} are out of bounds for storage of size "
                           f"{storage_size * item}")
    return tuple(size), tuple(stride)


def _positions(shape, stride, offset):
    """Each element's offset in the storage (an intp array of ``shape``)."""
    pos = np.full(shape, offset, np.intp)
    for d, (n, s) in enumerate(zip(shape, stride)):
        pos += (np.arange(n, dtype=np.intp) * s).reshape((n,) + (1,) * (len(shape) - d - 1))
    return pos


def _element_strides(array):
    return tuple(s // array.itemsize for s in array.strides)


class AsStridedBackward0(Node):
    """out = storage viewed with (size, stride, offset);  da = the storage's gradient (g summed
    into the elements it views) read at a's own elements."""

    def forward(self, a, size, stride, storage_offset=None):
        flat, offset = _storage(a)
        offset = offset if storage_offset is None else int(storage_offset)
        size, stride = _check(size, stride, offset, flat.itemsize, flat.size)
        start = offset * flat.itemsize
        item_strides = tuple(s * flat.itemsize for s in stride)
        if 0 in size:  # nothing to read: torch checks no bounds either
            view = np.lib.stride_tricks.as_strided(flat[min(offset, flat.size):], size,
                                                   item_strides)
        elif flat.flags.writeable and not _overlapping(size, stride):
            view = np.ndarray(size, flat.dtype, flat, start, item_strides)
        else:  # overlapping elements: read-only, as an expand()ed tensor's
            view = np.lib.stride_tricks.as_strided(flat[offset:], size, item_strides,
                                                   writeable=False)
        x = a._data
        a_offset = _storage(a)[1]
        self.storage_size, self.view = flat.size, _positions(size, stride, offset)
        self.mine = _positions(x.shape, _element_strides(x), a_offset)
        return view

    def backward(self, m, g):
        flat = m.reshape(g, (-1,))
        storage = m.scatter_add_zeros(flat, (self.storage_size,), 0, self.view.reshape(-1))
        return (m.index(storage, self.mine),)


def as_strided(input, size, stride, storage_offset=None):
    """A view of ``input``'s memory with these sizes, strides and storage offset (elements)."""
    return as_view(AsStridedBackward0.apply(input, tuple(size), tuple(stride), storage_offset),
                   input)


def as_strided_(input, size, stride, storage_offset=None):
    """``input`` itself re-viewed with these sizes, strides and storage offset."""
    check_inplace(input)
    out = as_strided(input, size, stride, storage_offset)
    input._data = out._data
    if out._grad_fn is not None:
        input._grad_fn, input._output_nr = out._grad_fn, 0
    return input
