"""The safetensors file under ember.save/ember.load, written and parsed by the safetensors package.

Before the package reads a file, a cheap pre-check of its header protects the user: pickles are
named (ember never unpickles), the 8-byte header length is bounded, the JSON header is parsed
with a nesting limit, only dtypes of ember's table pass, and the file's size must be what the
header describes, so a huge or endless non-checkpoint file is refused after its header alone.
Arrays come out through ember's dtype table (BF16 via ml_dtypes)."""
import json
import os
import pickle
import pickletools
import re
import stat

import numpy as np

from . import _dtype

MAX_HEADER = 100_000_000  # bytes: the safetensors format's own bound on its JSON header
MAX_DEPTH = 100  # containers nested in a checkpoint: ember.save refuses, ember.load rejects beyond
_JSON_DEPTH = 3 * MAX_DEPTH + 1  # a container costs <= 3 JSON levels: {"dict": [[k, v]]}
_SNIFF = 1 << 16  # bytes read to recognise what a non-safetensors file is
_PICKLE_HINT = ("ember never unpickles (loading a pickle can run arbitrary code); in PyTorch, "
                "re-save it with safetensors.torch.save_file(state_dict, path)")

# safetensors dtype code -> dtype name: ember's names (looked up in ember's dtype table), and
# uint16/32/64, which ember holds only as NumPy arrays (ember tensors have no such dtypes)
CODES = {"BOOL": "bool", "U8": "uint8", "I8": "int8", "I16": "int16", "I32": "int32",
         "I64": "int64", "F16": "float16", "BF16": "bfloat16", "F32": "float32", "F64": "float64",
         "U16": "uint16", "U32": "uint32", "U64": "uint64", "C64": "complex64"}
# (safetensors has no complex128 code: ember.save refuses complex128 tensors, naming the dtype)
CODE_OF = {name: code for code, name in CODES.items()}
NUMPY_ONLY = frozenset({"uint16", "uint32", "uint64"})


class CheckpointError(RuntimeError, pickle.UnpicklingError):
    """An unreadable checkpoint. Both a RuntimeError and an UnpicklingError, because torch.load
    raises one or the other for the same bad file (truncated zip vs. not a zip at all)."""


def depth_error(where):
    return CheckpointError(f"{where} nests containers deeper than the limit of {MAX_DEPTH} "
                           "levels that ember.save and ember.load share")


def numpy_dtype(name):
    """The NumPy dtype of a dtype name from CODES, or None when this ember cannot hold it."""
    if name in NUMPY_ONLY:
        return np.dtype(name)
    found = _dtype._NAMES.get(name)
    return None if found is None else found.np


def _unsupported(key, code, name):
    if code == "BF16":
        return CheckpointError(f"ember.load: '{name}' holds tensor '{key}' in bfloat16 (BF16), "
                               "which needs ember.bfloat16, backed by the ml_dtypes package: "
                               "pip install ml_dtypes")
    known = ", ".join(c for c in CODES if numpy_dtype(CODES[c]) is not None)
    return CheckpointError(f"ember.load: '{name}' holds tensor '{key}' of dtype {code}, which "
                           f"ember does not support (it reads {known})")


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def json_depth(text):
    """How deeply ``text``'s JSON nests, without parsing it (so no recursion at any depth)."""
    chars = np.frombuffer(_JSON_STRING.sub("", text).encode("utf-8"), np.uint8)
    steps = np.isin(chars, (ord("["), ord("{"))).astype(np.int64)
    steps -= np.isin(chars, (ord("]"), ord("}")))
    return int(np.cumsum(steps).max(initial=0))


def parse_json(text, where):
    """json.loads with ember's nesting limit checked first (CheckpointError beyond it)."""
    if json_depth(text) > _JSON_DEPTH:
        raise depth_error(where)
    return json.loads(text)


# what a pickle can begin with: a protocol mark, or (protocols 0 and 1) a value or a MARK
_PICKLE_STARTS = frozenset({"PROTO", "MARK", "EMPTY_DICT", "EMPTY_LIST", "EMPTY_TUPLE", "GLOBAL",
                            "NONE", "INT", "BININT", "BININT1", "BININT2", "LONG", "FLOAT",
                            "BINFLOAT", "STRING", "BINSTRING", "SHORT_BINSTRING", "UNICODE",
                            "BINUNICODE"})


def _looks_like_pickle(prefix):
    """True for pickles of any protocol (0 and 1 have no magic number: parse a few opcodes)."""
    ops = 0
    try:
        for opcode, _, _ in pickletools.genops(prefix):
            if ops == 0 and opcode.name not in _PICKLE_STARTS:
                return False
            ops += 1
            if opcode.name == "STOP" or ops >= 3:
                return True
    except (ValueError, UnicodeDecodeError):  # not opcodes, or cut off by the prefix
        pass
    return False


def _not_safetensors(fh, head, name):
    prefix = head + fh.read(_SNIFF)
    if prefix[:2] == b"PK" or _looks_like_pickle(prefix):
        return CheckpointError(f"ember.load: '{name}' is a pickle/zip checkpoint (as torch.save "
                               f"writes), not a safetensors file; {_PICKLE_HINT}")
    if len(prefix) < 9:
        return CheckpointError(f"ember.load: '{name}' is truncated or not a checkpoint "
                               f"({len(prefix)} bytes)")
    return CheckpointError(f"ember.load: '{name}' is truncated or not a safetensors file (it "
                           "does not begin with an 8-byte header length and a JSON header)")


def _read_exact(fh, size):
    """Up to ``size`` bytes of ``fh`` (fewer only at the end of the file), in bounded reads."""
    chunks, got = [], 0
    while got < size:
        chunk = fh.read(min(size - got, 1 << 24))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _read_header(fh, name, file_size):
    """(header dict, the raw 8-byte length + header bytes): read only after the bound check."""
    head = fh.read(9)
    if len(head) < 9 or head[8:9] != b"{":
        raise _not_safetensors(fh, head, name)
    size = int.from_bytes(head[:8], "little")
    available = None if file_size is None else file_size - 8
    if size > MAX_HEADER or (available is not None and size > available):
        raise CheckpointError(f"ember.load: '{name}' is truncated or not a safetensors file "
                              f"(header says {size} bytes, "
                              + (f"the file has {available} after the length)"
                                 if available is not None else f"the limit is {MAX_HEADER})"))
    raw = head + _read_exact(fh, size - 1)
    if len(raw) < 8 + size:
        raise CheckpointError(f"ember.load: '{name}' is truncated or not a safetensors file "
                              f"(header says {size} bytes, the file has {len(raw) - 8} after "
                              "the length)")
    try:
        header = parse_json(raw[8:].decode("utf-8"), f"ember.load: '{name}'")
    except (UnicodeDecodeError, ValueError) as error:
        raise CheckpointError(f"ember.load: '{name}' is corrupt or not a safetensors file "
                              f"(bad header: {error})") from None
    return header, raw


# Pre-check of the header's entries. The package checks offsets and shapes again when it parses;
# these give ember's clear messages before any of the body is read, refuse dtypes outside ember's
# table, and yield the body's length, which the file's size must match.
def _entry(key, info, name):
    """(numpy dtype, shape, begin, end) of one header entry, checked."""
    try:
        code, shape, (begin, end) = info["dtype"], info["shape"], info["data_offsets"]
        valid = (isinstance(code, str) and all(type(n) is int and n >= 0 for n in shape)
                 and type(begin) is int and type(end) is int and 0 <= begin <= end)
    except (KeyError, TypeError, ValueError):
        valid = False
    if not valid:
        raise CheckpointError(f"ember.load: '{name}' is corrupt or not a safetensors file "
                              f"(bad header entry for '{key}')")
    dtype = numpy_dtype(CODES.get(code))
    if dtype is None:
        raise _unsupported(key, code, name)
    if end - begin != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize:
        raise CheckpointError(f"ember.load: '{name}' is corrupt: tensor '{key}' of shape "
                              f"{tuple(shape)} does not fill its {end - begin} bytes")
    return dtype, tuple(shape), begin, end


def _layout(header, name):
    """{key: (dtype, shape, begin, end)} and the body's length; the tensors must tile it."""
    entries = {k: _entry(k, v, name) for k, v in header.items() if k != "__metadata__"}
    body = 0
    for _, _, begin, end in sorted(entries.values(), key=lambda e: (e[2], e[3])):
        if begin != body:
            raise CheckpointError(f"ember.load: '{name}' is corrupt or not a safetensors file "
                                  "(tensor data overlap or leave gaps)")
        body = end
    return entries, body


def _read_open(fh, name, file_size):
    """The pre-check (header only), then the safetensors package parses the whole file."""
    st = package()
    header, raw = _read_header(fh, name, file_size)
    metadata = header.get("__metadata__") or {}
    if not isinstance(metadata, dict):
        raise CheckpointError(f"ember.load: '{name}' is corrupt (bad __metadata__)")
    entries, length = _layout(header, name)
    if file_size is not None and file_size != len(raw) + length:
        raise CheckpointError(f"ember.load: '{name}' is truncated or corrupt (its header "
                              f"describes {len(raw) + length} bytes, the file has {file_size})")
    data = raw + _read_exact(fh, length)
    if len(data) < len(raw) + length:
        raise CheckpointError(f"ember.load: '{name}' is truncated or corrupt (the data has "
                              f"{len(data) - len(raw)} of its {length} bytes)")
    try:
        parsed = st.deserialize(data)
    except st.SafetensorError as error:
        raise CheckpointError(f"ember.load: '{name}' is corrupt ({error})") from None
    del data
    return {key: _array(info, entries[key][0]) for key, info in parsed}, metadata


def _array(info, dtype):
    """A writable NumPy array of one tensor the package parsed (bytes in ``info["data"]``)."""
    array = np.frombuffer(info["data"], dtype).reshape(info["shape"])
    return array if array.flags.writeable else array.copy()


def package():
    """The safetensors package (the "train" extra), or an ImportError saying how to get it."""
    try:
        import safetensors
    except ImportError:
        raise ImportError("ember.save/ember.load store checkpoints with the safetensors package, "
                          "which is not installed: pip install 'ember[train]' (or pip install "
                          "safetensors)") from None
    return safetensors


def _spec(st, name, array):
    """The package's description of one C-contiguous little-endian array stored as ``name``."""
    if hasattr(st, "TensorSpec"):  # safetensors >= 0.8: by address; ``array`` must stay alive
        return st.TensorSpec(dtype=name, shape=list(array.shape), data_ptr=array.ctypes.data,
                             data_len=array.nbytes)
    return {"dtype": name, "shape": list(array.shape), "data": array.tobytes()}


def serialize(arrays, metadata):
    """The bytes of the safetensors file of ``arrays`` ({key: (dtype name of CODES, array)}),
    built by the safetensors package (BF16 arrays of ml_dtypes included)."""
    st = package()
    return st.serialize({k: _spec(st, n, a) for k, (n, a) in arrays.items()}, metadata=metadata)


def read(f):
    """({key: ndarray}, metadata, name) from a path or a binary file object."""
    if not isinstance(f, (str, os.PathLike)):
        name = getattr(f, "name", "<file object>")
        return (*_read_open(f, name, None), name)
    name = os.fspath(f)
    if not os.path.exists(name):
        raise FileNotFoundError(2, "No such file or directory", name)  # (as open()'s, torch's)
    with open(name, "rb") as fh:
        info = os.fstat(fh.fileno())
        size = info.st_size if stat.S_ISREG(info.st_mode) else None
        return (*_read_open(fh, name, size), name)
