"""Tensors from other memory: torch.frombuffer (a Python buffer) and DLPack (torch.from_dlpack,
torch.utils.dlpack, and Tensor.__dlpack__ so NumPy, torch and others can take ember's tensors
without a copy)."""
import warnings

import numpy as np

from . import _dtype
from ._tensor import Tensor
from ._warn import warn_once

_NOT_WRITABLE = ("The given buffer is not writable, and PyTorch does not support non-writable "
                 "tensors. This means you can write to the underlying (supposedly non-writable) "
                 "buffer using the tensor. You may want to copy the buffer to protect its data "
                 "or make it writable before converting it to a tensor. This type of warning "
                 "will be suppressed for the rest of this program.")


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over ``buffer``'s bytes from ``offset`` (``count`` elements, or all that
    fit), sharing its memory; a read-only buffer (bytes) is warned about, as torch does, and
    copied (NumPy keeps read-only memory read-only)."""
    view = memoryview(buffer)
    size, item = view.nbytes, np.dtype(_dtype.to_numpy_dtype(dtype)).itemsize
    if size == 0 or count == 0:
        raise ValueError(f"both buffer length ({size}) and count ({count}) must not be 0")
    if not 0 <= offset < size:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({size} bytes) minus 1")
    if count < 0:
        if (size - offset) % item:
            raise ValueError(f"buffer length ({size - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({item})")
        count = (size - offset) // item
    elif count * item > size - offset:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({size} bytes)")
    data = np.frombuffer(view.cast("B"), dtype=_dtype.to_numpy_dtype(dtype), count=count,
                         offset=offset)
    if not data.flags.writeable:
        warn_once(_NOT_WRITABLE)
        data = data.copy()
    out = Tensor._make(data)
    return out.requires_grad_() if requires_grad else out


def from_dlpack(ext_tensor):
    """A tensor sharing memory with any object that speaks DLPack (NumPy, torch, JAX, ...)."""
    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    if type(ext_tensor).__name__ == "PyCapsule":  # a capsule (to_dlpack's), not an object
        ext_tensor = _Capsule(ext_tensor)
    try:
        data = np.from_dlpack(ext_tensor)
    except (TypeError, AttributeError) as err:
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ (a tensor of another "
                        f"library), got {type(ext_tensor).__name__}") from err
    except BufferError:
        with warnings.catch_warnings():  # a read-only export (NumPy refuses to share it)
            warnings.simplefilter("ignore")
            data = np.from_dlpack(ext_tensor, copy=True)
    return Tensor._make(data)


class _Capsule:
    """A DLPack capsule dressed as an object with __dlpack__ (what np.from_dlpack takes)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # the CPU


def to_dlpack(tensor):
    """A DLPack capsule of the tensor's memory (for another library's from_dlpack)."""
    return tensor.__dlpack__()


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    kwargs = {} if max_version is None else {"max_version": max_version}
    return self._data.__dlpack__(stream=stream, copy=copy, **kwargs)


Tensor.__dlpack__ = _dlpack
Tensor.__dlpack_device__ = lambda self: self._data.__dlpack_device__()
