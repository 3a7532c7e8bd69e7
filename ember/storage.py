"""torch.storage: the memory under a tensor and its views, as Tensor.untyped_storage() (bytes)
and Tensor.storage() (deprecated in torch: elements of the tensor's dtype). A storage shares
the memory: writing to it writes to every tensor over it."""
import numpy as np

from . import _dtype
from ._tensor import Tensor, device
from ._warn import warn_once

__all__ = ["TypedStorage", "UntypedStorage"]

_TYPED_DEPRECATED = ("TypedStorage is deprecated. It will be removed in the future and "
                     "UntypedStorage will be the only storage class. This should only matter to "
                     "you if you are using storages directly.  To access UntypedStorage "
                     "directly, use tensor.untyped_storage() instead of tensor.storage()")


def _memory(array):
    """The bytes of the allocation under ``array`` (the array owning its memory, followed down
    its chain of views), as a flat uint8 array sharing them."""
    root = array
    while root.base is not None:
        base = root.base
        if not isinstance(base, np.ndarray):  # a strided view's interface holder (as_strided,
            base = getattr(base, "base", None)  # diagonal, unfold): its base owns the memory
            if not isinstance(base, np.ndarray):
                break
        root = base
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        root = array if array.flags.c_contiguous else np.ascontiguousarray(array)
    return root.reshape(-1, order="A").view(np.uint8)


class _Storage:
    """Shared behaviour: a flat NumPy array over the memory."""

    def __init__(self, flat):
        self._flat = flat

    def size(self):
        return self._flat.size

    def __len__(self):
        return self._flat.size

    def nbytes(self):
        return self._flat.nbytes

    def data_ptr(self):
        return self._flat.__array_interface__["data"][0]

    def element_size(self):
        return self._flat.itemsize

    @property
    def device(self):
        return device("cpu")

    def tolist(self):
        return self._flat.tolist()

    def __getitem__(self, index):
        item = self._flat[index]
        return type(self)._wrap(item) if isinstance(index, slice) else item.item()

    def __setitem__(self, index, value):
        self._flat[index] = value

    def is_shared(self):
        return False

    def is_pinned(self, device="cuda"):
        return False

    def cpu(self):
        return type(self)._wrap(self._flat)

    def clone(self):
        return type(self)._wrap(self._flat.copy())

    def __iter__(self):
        return iter(self.tolist())


class UntypedStorage(_Storage):
    """The bytes of a tensor's memory."""

    @classmethod
    def _wrap(cls, flat):
        return cls(flat.view(np.uint8))

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist())
        return f"{body}\n[torch.storage.UntypedStorage(device=cpu) of size {len(self)}]"


class TypedStorage(_Storage):
    """The memory of a tensor as elements of its dtype (deprecated in torch)."""

    @classmethod
    def _wrap(cls, flat, dtype=None):
        storage = cls(flat)
        storage._dtype = dtype or _dtype.from_numpy_dtype(flat.dtype)
        return storage

    @property
    def dtype(self):
        return self._dtype

    def untyped(self):
        return UntypedStorage._wrap(self._flat)

    def _untyped_storage(self):
        return self.untyped()

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist())
        return (f"{body}\n[torch.storage.TypedStorage(dtype={self._dtype}, device=cpu) of "
                f"size {len(self)}]")


def untyped_storage(self):
    """The tensor's memory as bytes (shared with the tensor and its views)."""
    return UntypedStorage._wrap(_memory(self._data))


def storage(self):
    """The tensor's memory as elements of its dtype (torch warns: TypedStorage is deprecated)."""
    warn_once(_TYPED_DEPRECATED)
    memory = _memory(self._data)
    usable = memory.size - memory.size % self._data.itemsize
    return TypedStorage._wrap(memory[:usable].view(self._data.dtype), self.dtype)


def _is_set_to(self, other):
    """True when both tensors view the same memory with the same offset, shape and strides."""
    return (untyped_storage(self).data_ptr() == untyped_storage(other).data_ptr()
            and self._data.__array_interface__["data"][0] ==
            other._data.__array_interface__["data"][0]
            and self._data.shape == other._data.shape
            and self._data.strides == other._data.strides)


Tensor.storage, Tensor.untyped_storage, Tensor.is_set_to = storage, untyped_storage, _is_set_to


def is_storage(obj):
    """torch.is_storage: True for a TypedStorage or UntypedStorage."""
    return isinstance(obj, (TypedStorage, UntypedStorage))
