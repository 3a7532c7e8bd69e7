"""ember.save / ember.load: checkpoints as safetensors (arrays) + JSON (structure), never pickle."""
import collections
import json
import math
import os
import pickle
import tempfile

import numpy as np

_FORMAT = "ember.save/1"  # the __metadata__ key holding the structure; absent in foreign files
_PICKLE_HINT = ("ember never unpickles (loading a pickle can run arbitrary code); in PyTorch, "
                "re-save it with safetensors.torch.save_file(state_dict, path)")


def _safetensors():
    """The safetensors package (an optional extra), or an ImportError saying how to get it."""
    try:
        import safetensors
        import safetensors.numpy
    except ImportError:
        raise ImportError("ember.save/ember.load store checkpoints with the safetensors package, "
                          "which is not installed: pip install 'ember[train]' (or pip install "
                          "safetensors)") from None
    return safetensors


class _Encoder:
    """Walks a Python object, collecting its arrays (by dotted path) and a JSON-able skeleton."""

    def __init__(self):
        self.arrays, self._key_of = {}, {}

    def node(self, obj, path):
        from ._tensor import Tensor
        if obj is None or isinstance(obj, (bool, int, str)):
            return obj
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else {"float": repr(obj)}
        if isinstance(obj, Tensor):
            return self._tensor(obj, path)
        if isinstance(obj, (np.ndarray, np.generic)):
            return dict(self._array(np.asarray(obj), path, obj), numpy=isinstance(obj, np.ndarray))
        if isinstance(obj, dict):
            kind = "odict" if isinstance(obj, collections.OrderedDict) else "dict"
            return {kind: [[self.node(k, path + ("#key",)), self.node(v, path + (str(k),))]
                           for k, v in obj.items()]}
        if isinstance(obj, (list, tuple)):
            kind = "list" if isinstance(obj, list) else "tuple"
            return {kind: [self.node(v, path + (str(i),)) for i, v in enumerate(obj)]}
        return self._other(obj)

    def _tensor(self, t, path):
        node = self._array(t._data, path, t)
        node["requires_grad"] = bool(t.requires_grad)
        if type(t).__name__ == "Parameter":
            node["parameter"] = True
        return node

    def _array(self, array, path, owner):
        if array.dtype.kind not in "biuf":
            raise TypeError(f"ember.save: cannot store an array of dtype {array.dtype} "
                            f"(at '{'.'.join(path) or '<root>'}')")
        if id(owner) in self._key_of:  # the same object twice (e.g. tied weights): stored once
            return {"tensor": self._key_of[id(owner)]}
        key = ".".join(path) or "tensor"
        while key in self.arrays:
            key += "#"
        self.arrays[key] = array if array.flags.c_contiguous else array.copy(order="C")
        self._key_of[id(owner)] = key
        return {"tensor": key}

    @staticmethod
    def _other(obj):
        from ._dtype import dtype
        if isinstance(obj, dtype):
            return {"dtype": str(obj).split(".")[-1]}
        hint = (" (save module.state_dict() instead of the module)"
                if hasattr(obj, "state_dict") else "")
        raise TypeError(f"ember.save: cannot store an object of type {type(obj).__name__}: only "
                        "tensors, NumPy arrays, numbers, strings, None and dicts/lists/tuples of "
                        f"them are saved (never pickled){hint}")


def _decode(node, arrays, made):
    if not isinstance(node, dict):
        return node
    (kind, value), = [(k, v) for k, v in node.items() if k in _DECODERS]
    return _DECODERS[kind](node, value, arrays, made)


def _decode_tensor(node, key, arrays, made):
    from ._tensor import Tensor
    if key not in made:
        array = arrays[key]
        if node.get("numpy") is not None:
            made[key] = array if node["numpy"] else array[()]
        elif node.get("parameter"):
            from .nn import Parameter
            made[key] = Parameter(Tensor._make(array), node.get("requires_grad", True))
        else:
            made[key] = Tensor._make(array, node.get("requires_grad", False))
    return made[key]


def _decode_dtype(node, name, arrays, made):
    from . import _dtype
    return _dtype._by_name(name)


_DECODERS = {
    "tensor": _decode_tensor,
    "float": lambda node, v, a, m: float(v),
    "dict": lambda node, v, a, m: {_decode(k, a, m): _decode(x, a, m) for k, x in v},
    "odict": lambda node, v, a, m: collections.OrderedDict(
        (_decode(k, a, m), _decode(x, a, m)) for k, x in v),
    "list": lambda node, v, a, m: [_decode(x, a, m) for x in v],
    "tuple": lambda node, v, a, m: tuple(_decode(x, a, m) for x in v),
    "dtype": _decode_dtype,
}


def _to_bytes(obj):
    st_save = _safetensors().numpy.save
    encoder = _Encoder()
    structure = encoder.node(obj, ())
    return st_save(encoder.arrays, metadata={_FORMAT: json.dumps(structure)})


def _fsync_dir(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # e.g. platforms that cannot open directories
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _atomic_write(path, blob, chunk=1 << 24):
    """Write to a temporary file beside ``path``, fsync, then rename over it: all or nothing."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            view = memoryview(blob)
            for start in range(0, len(view), chunk):
                f.write(view[start:start + chunk])
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _fsync_dir(directory)


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save tensors, state_dicts and nested containers of them to a path or a binary file.

    The file is a valid safetensors file (any safetensors reader sees the tensors, named by their
    dotted path); the structure is JSON in its metadata. Saving to a path is atomic."""
    blob = _to_bytes(obj)
    if isinstance(f, (str, os.PathLike)):
        _atomic_write(os.fspath(f), blob)
    else:
        f.write(blob)


def _read(f):
    if isinstance(f, (str, os.PathLike)):
        name = os.fspath(f)
        if not os.path.exists(name):
            raise FileNotFoundError(f"ember.load: no such file: '{name}'")
        with open(name, "rb") as fh:
            return fh.read(), name
    return f.read(), getattr(f, "name", "<file object>")


class CheckpointError(RuntimeError, pickle.UnpicklingError):
    """An unreadable checkpoint. Both a RuntimeError and an UnpicklingError, because torch.load
    raises one or the other for the same bad file (truncated zip vs. not a zip at all)."""


def _check_header(blob, name):
    safetensors_like = blob[8:9] == b"{"  # its 8-byte length may start with 0x80 or "PK"
    if not safetensors_like and (blob[:2] == b"PK" or blob[:1] == b"\x80"):
        raise CheckpointError(f"ember.load: '{name}' is a pickle/zip checkpoint (as torch.save "
                              f"writes), not a safetensors file; {_PICKLE_HINT}")
    if len(blob) < 8:
        raise CheckpointError(f"ember.load: '{name}' is truncated or not a checkpoint "
                              f"({len(blob)} bytes)")
    size = int.from_bytes(blob[:8], "little")
    if size > len(blob) - 8:
        raise CheckpointError(f"ember.load: '{name}' is truncated or not a safetensors file "
                              f"(header says {size} bytes, the file has {len(blob) - 8} after "
                              "the length)")
    try:
        return json.loads(blob[8:8 + size].decode("utf-8")).get("__metadata__") or {}
    except (UnicodeDecodeError, ValueError, AttributeError) as error:
        raise CheckpointError(f"ember.load: '{name}' is corrupt or not a safetensors file "
                              f"(bad header: {error})") from None


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None,
         **pickle_load_args):
    """Load what ``save`` wrote; a foreign safetensors file loads as {name: tensor}."""
    from ._tensor import Tensor
    st = _safetensors()
    SafetensorError, st_load = st.SafetensorError, st.numpy.load
    blob, name = _read(f)
    metadata = _check_header(blob, name)
    try:
        arrays = st_load(blob)
    except SafetensorError as error:
        raise CheckpointError(f"ember.load: '{name}' is truncated or corrupt ({error})") from None
    if _FORMAT not in metadata:
        return {k: Tensor._make(v) for k, v in arrays.items()}
    try:
        return _decode(json.loads(metadata[_FORMAT]), arrays, {})
    except (ValueError, KeyError, TypeError) as error:
        raise CheckpointError(f"ember.load: '{name}' has a corrupt structure record "
                              f"({type(error).__name__}: {error})") from None
