"""ember.save / ember.load: checkpoints as safetensors (arrays) + JSON (structure), never pickle."""
import base64
import collections
import json
import math
import os

import numpy as np

from . import _device, _dtype, _module_io, _torch_zip
from ._atomic import atomic_write
from ._checkpoint_file import (
    CODE_OF,
    MAX_DEPTH,
    CheckpointError,
    depth_error,
    parse_json,
    read,
    serialize,
)
from ._module_io import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from ._tensor import Tensor
from .nn import Module, Parameter

_FORMAT = "ember.save/1"  # the __metadata__ key holding the structure; absent in foreign files

__all__ = ["save", "load", "CheckpointError", "MAX_DEPTH", "add_safe_globals", "safe_globals",
           "get_safe_globals", "clear_safe_globals"]


def _array_name(array, tensor):
    """The dtype name (a key of CODE_OF) an array is stored under; TypeError if none fits."""
    found = _dtype._FROM_NP.get(array.dtype)
    name = found.name if found is not None else array.dtype.name
    if name not in CODE_OF or (tensor and found is None):
        raise TypeError(f"ember.save: cannot store an array of dtype {array.dtype}")
    return name


def _storage_of(array):
    """The allocation ``array`` views (the ndarray at the end of its base chain) where it can
    be stored once with ``array`` as a view of it: C-contiguous, of the same dtype and native
    byte order, ``array``'s offset and strides whole elements; else None."""
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not root.flags.c_contiguous:
        return None
    if root is array:  # its own allocation (other tensors may view it)
        return root
    if root.dtype != array.dtype or array.size == 0:  # (big-endian arrays arrive as copies)
        return None
    offset = array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if offset % array.itemsize or any(s % array.itemsize for s in array.strides):
        return None
    return root


def _span(array, start):
    """The bytes [low, high) of memory ``array`` reaches, from the address ``start``."""
    base = array.__array_interface__["data"][0] - start
    if array.size == 0:
        return base, base
    low = base + sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s < 0)
    high = base + sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s > 0)
    return low, high + array.itemsize


def _overlapping(members, root):
    """``members`` (node, array, key) over ``root`` split into groups whose memory overlaps
    (transitively); an empty array overlaps nothing."""
    start = root.__array_interface__["data"][0]
    spans = sorted(((_span(m[1], start), m) for m in members), key=lambda x: x[0])
    groups, reach = [], None
    for (low, high), member in spans:
        if groups and reach is not None and low < reach and high > low:
            groups[-1].append(member)
            reach = max(reach, high)
        else:
            groups.append([member])
            reach = high if high > low else None
    return groups


class _Encoder:
    """Walks a Python object, collecting its arrays (by dotted path) and a JSON-able skeleton."""

    def __init__(self):
        self.arrays, self._key_of = {}, {}
        self._tensors = []  # (node, array, key) of each tensor, its array stored by finish()

    def node(self, obj, path, depth=0):
        if obj is None or isinstance(obj, (bool, int, str)):
            return obj
        if isinstance(obj, (np.ndarray, np.generic)):  # before float: np.float64 is a float
            return dict(self._array(np.asarray(obj), path, obj), numpy=isinstance(obj, np.ndarray))
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else {"float": repr(obj)}
        if isinstance(obj, Tensor):
            return self._tensor(obj, path)
        if isinstance(obj, (dict, list, tuple, set, frozenset)):
            return self._container(obj, path, depth + 1)
        if isinstance(obj, Module):
            if depth + 1 > MAX_DEPTH:
                raise depth_error(f"ember.save: the object (at '{'.'.join(path) or '<root>'}')")
            return _module_io.encode(self, obj, path, depth + 1)
        return self._other(obj)

    def _container(self, obj, path, depth):
        if depth > MAX_DEPTH:
            raise depth_error(f"ember.save: the object (at '{'.'.join(path) or '<root>'}')")
        if isinstance(obj, dict):
            kind = "odict" if isinstance(obj, collections.OrderedDict) else "dict"
            return {kind: [[self.node(k, path + ("#key",), depth),
                            self.node(v, path + (str(k),), depth)] for k, v in obj.items()]}
        kind = {list: "list", tuple: "tuple", set: "set", frozenset: "set"}.get(type(obj))
        kind = kind or ("list" if isinstance(obj, list) else "tuple")
        items = sorted(obj, key=repr) if kind == "set" else obj  # a set's order: not kept
        return {kind: [self.node(v, path + (str(i),), depth) for i, v in enumerate(items)]}

    def _tensor(self, t, path):
        node = self._array(t._data, path, t)
        node["requires_grad"] = bool(t.requires_grad)
        if type(t).__name__ == "Parameter":
            node["parameter"] = True
        return node

    def _array(self, array, path, owner):
        try:
            _array_name(array, isinstance(owner, Tensor))
        except TypeError as error:
            raise TypeError(f"{error} (at '{'.'.join(path) or '<root>'}')") from None
        if array.dtype.byteorder == ">":  # safetensors is little-endian
            array = array.astype(array.dtype.newbyteorder("<"))
        if id(owner) in self._key_of:  # the same object twice (e.g. tied weights): stored once
            return dict(self._key_of[id(owner)])
        key = ".".join(path) or "tensor"
        while key in self.arrays:
            key += "#"
        self.arrays[key] = None  # (reserved; finish() stores the array or the shared storage)
        node = {"tensor": key}
        self._key_of[id(owner)] = node
        self._tensors.append((node, array, key))
        return node

    def finish(self):
        """Store the collected arrays. Tensors whose memory overlaps (tied weights' detached
        copies, a tensor and its slices) store the region they cover once, each as a view of
        it (offset, shape, strides in elements), so that they load sharing memory, as
        torch.load's do; every other array is stored alone, contiguous, under its own name
        (disjoint parts of one buffer, e.g. parameters packed for a fused optimizer, stay
        separate tensors for any safetensors reader; a lone slice is stored without the rest
        of its buffer, where torch would save all of it)."""
        groups = {}
        for member in self._tensors:
            root = _storage_of(member[1])
            groups.setdefault(id(root) if root is not None else id(member[0]), []).append(
                (member, root))
        for group in groups.values():
            root = group[0][1]
            for component in (_overlapping([m for m, _ in group], root) if root is not None
                              else [[group[0][0]]]):
                if len(component) == 1:
                    node, array, key = component[0]
                    self.arrays[key] = array if array.flags.c_contiguous else \
                        array.copy(order="C")
                else:
                    self._store_shared(component, root)

    def _store_shared(self, component, root):
        """Overlapping arrays over ``root``: the region they cover stored once (in the shape of
        a member that is exactly that region, where one is, under its name), the others as
        views of it."""
        item = root.itemsize
        start = root.__array_interface__["data"][0]
        spans = [_span(array, start) for _, array, _ in component]
        low, high = min(lo for lo, _ in spans), max(hi for _, hi in spans)
        region = root.reshape(-1)[low // item:high // item]
        whole = next((m for m, (lo, hi) in zip(component, spans)
                      if m[1].flags.c_contiguous and (lo, hi) == (low, high)), None)
        storage_key = (whole or component[0])[2]
        self.arrays[storage_key] = region if whole is None else region.reshape(whole[1].shape)
        for node, array, key in component:
            if key != storage_key:
                del self.arrays[key]
            if whole is not None and key == storage_key:
                continue
            offset = (array.__array_interface__["data"][0] - start - low) // item
            node.update(tensor=storage_key, view=[offset, list(array.shape),
                                                  [s // item for s in array.strides]])

    @staticmethod
    def _other(obj):
        if isinstance(obj, _dtype.dtype):
            return {"dtype": obj.name}
        if isinstance(obj, _device.device):
            return {"device": str(obj)}
        if isinstance(obj, (bytes, bytearray)):
            return {"bytes": base64.b64encode(obj).decode("ascii"),
                    "bytearray": isinstance(obj, bytearray)}
        name = _module_io.function_name(obj)
        if name is not None:  # e.g. a TransformerEncoderLayer's activation, F.relu
            return {"function": name}
        hint = (" (save module.state_dict() instead)" if hasattr(obj, "state_dict") else "")
        raise TypeError(f"ember.save: cannot store an object of type {type(obj).__name__}: only "
                        "tensors, NumPy arrays, numbers, strings, None and dicts/lists/tuples of "
                        f"them are saved (never pickled){hint}")


class _Decoder:
    """Rebuilds the object from the JSON skeleton and the arrays, one container level at a
    time (at most MAX_DEPTH deep); resolves only what ember itself defines."""

    def __init__(self, arrays, name, weights_only=True):
        self.arrays, self.name, self.made = arrays, name, {}
        self.weights_only = weights_only is not False  # torch's default: True

    def node(self, node, depth=0):
        if not isinstance(node, dict):
            return node
        (kind, value), = [(k, v) for k, v in node.items() if k in _KINDS]
        if kind in ("dict", "odict", "list", "tuple", "set", "module"):
            if depth >= MAX_DEPTH:
                raise depth_error(f"ember.load: '{self.name}'")
            if kind == "module":
                return _module_io.decode(self, node, depth + 1)
            return self._container(kind, value, depth + 1)
        leaf = {"tensor": self._tensor, "float": self._float, "dtype": self._dtype,
                "function": self._function, "device": self._device,
                "bytes": self._bytes}[kind]
        return leaf(node, value)

    def _container(self, kind, value, depth):
        if kind in ("dict", "odict"):
            pairs = ((self.node(k, depth), self.node(v, depth)) for k, v in value)
            return collections.OrderedDict(pairs) if kind == "odict" else dict(pairs)
        items = [self.node(x, depth) for x in value]
        return {"list": list, "tuple": tuple, "set": set}[kind](items)

    def _float(self, node, text):
        if text not in ("nan", "inf", "-inf"):
            raise ValueError(f"bad float {text!r}")
        return float(text)

    def _function(self, node, name):
        return _module_io.resolve_function(name, self.name)

    def _device(self, node, name):
        try:
            return _device.device(name)
        except RuntimeError as error:  # a string torch.device refuses: a corrupt record
            raise ValueError(str(error)) from None

    def _bytes(self, node, text):
        data = base64.b64decode(text.encode("ascii"), validate=True)
        return bytearray(data) if node.get("bytearray") else data

    def _dtype(self, node, name):
        found = _dtype._NAMES.get(name) if isinstance(name, str) else None
        if found is None:
            raise ValueError(f"unknown dtype {name!r}")
        return found

    def _tensor(self, node, key):
        view = node.get("view")
        made = (key, json.dumps(view)) if view is not None else key
        if made not in self.made:
            array = self.arrays[key]
            if view is not None:
                array = _view_of(array, view, key, self.name)
            self.made[made] = self._make(node, array, key)
        return self.made[made]

    def _make(self, node, array, key):
        if node.get("numpy") is not None:
            return array if node["numpy"] else array[()]
        if array.dtype not in _dtype._FROM_NP:
            raise CheckpointError(f"ember.load: '{self.name}' holds tensor '{key}' as "
                                  f"{array.dtype}, which ember tensors cannot hold")
        if node.get("parameter"):
            return Parameter(Tensor._make(array), node.get("requires_grad", True))
        return Tensor._make(array, node.get("requires_grad", False))


def _view_of(storage, view, key, name):
    """The array a "view" record describes over a stored 1-D storage, after checking that every
    element it reaches lies inside the storage (a crafted record is refused, not followed)."""
    offset, shape, strides = view
    ints = [offset, *shape, *strides]
    storage = storage.reshape(-1) if storage.flags.c_contiguous else storage
    if storage.ndim != 1 or len(shape) != len(strides) or len(shape) > 64 or \
            not all(type(v) is int for v in ints) or offset < 0 or min(shape, default=0) < 0:
        raise CheckpointError(f"ember.load: '{name}' has a malformed view of '{key}'")
    if 0 not in shape:
        low = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
        high = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
        if low < 0 or high >= storage.size:
            raise CheckpointError(f"ember.load: '{name}' has a view of '{key}' reaching past "
                                  f"its {storage.size} elements")
    return np.lib.stride_tricks.as_strided(storage[offset:] if 0 not in shape else storage,
                                           shape, [s * storage.itemsize for s in strides])


_KINDS = ("tensor", "float", "dtype", "function", "device", "bytes", "dict", "odict", "list",
          "tuple", "set", "module")


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save tensors, state_dicts and nested containers of them to a path or a binary file.

    The file is written by the safetensors package (any safetensors reader sees the tensors, named
    by their dotted path); the structure is JSON in its metadata. Saving to a path is atomic (see
    ember._atomic.atomic_write: symlinks followed, the file's mode kept)."""
    encoder = _Encoder()
    structure = encoder.node(obj, ())
    encoder.finish()
    arrays = {k: (_array_name(a, False), a) for k, a in encoder.arrays.items()}
    data = serialize(arrays, {_FORMAT: json.dumps(structure)})
    if isinstance(f, (str, os.PathLike)):
        atomic_write(f, data)
    else:
        f.write(data)


def _peek(f):
    """(the first 4 bytes, the name) of a path or a seekable binary file (left where it was)."""
    if isinstance(f, (str, os.PathLike)):
        name = os.fspath(f)
        if not os.path.isfile(name):
            return b"", name
        with open(name, "rb") as fh:
            return fh.read(4), name
    name = getattr(f, "name", "<file object>")
    if not (hasattr(f, "seekable") and f.seekable()):
        return b"", name
    where = f.tell()
    head = f.read(4)
    f.seek(where)
    return head, name


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load what ``save`` wrote; a foreign safetensors file loads as {name: tensor}.

    Only the header is read before it is checked (size bound, then JSON, dtypes, file size); then
    the safetensors package parses the file; dtypes resolve through ember's own dtype table;
    nothing is ever unpickled. A zip checkpoint written by torch.save is read as data (see
    ember._torch_zip): tensors, parameters and plain containers load; pickled classes do not."""
    head, name = _peek(f)
    if _torch_zip.is_torch_zip(head):
        return _torch_zip.load(f, name, weights_only)
    arrays, metadata, name = read(f)
    decoder = _Decoder(arrays, name, weights_only)
    if _FORMAT not in metadata:
        return {k: decoder._make({}, v, k) for k, v in arrays.items()}
    try:
        return decoder.node(parse_json(metadata[_FORMAT], f"ember.load: '{name}'"))
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise CheckpointError(f"ember.load: '{name}' has a corrupt structure record "
                              f"({type(error).__name__}: {error})") from None
