"""Reading the zip checkpoints torch.save writes, without unpickling.

A torch checkpoint is a zip archive: ``<dir>/data.pkl`` (a pickle stream describing the object),
``<dir>/data/<key>`` (each storage's raw bytes) and ``<dir>/byteorder``. The pickle stream is
read here by a small interpreter of pickle's opcodes that builds data only: dicts, lists,
tuples, strings, numbers, bytes, None and booleans. A global the stream names is never
imported or called: it is looked up in a fixed table of the reconstructors torch's
``weights_only`` loading allows (a tensor from a storage, a parameter, an OrderedDict, a dtype,
torch.Size, a NumPy scalar or array), each rebuilt here from plain data with bounds checked;
any other global (a pickled class, a function) stops the load with its name. So loading a torch
checkpoint can run no code, whatever the file holds.
"""
import collections
import io
import struct
import zipfile

import numpy as np

from . import _dtype
from ._checkpoint_file import CheckpointError
from ._tensor import Tensor
from .nn.parameter import Parameter

# the typed storages torch's stream names, by their element type
_STORAGES = {
    "FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32",
    "ShortStorage": "int16", "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool",
    "ComplexFloatStorage": "complex64", "ComplexDoubleStorage": "complex128",
}
_MAX_EXPANDED = 1 << 27  # elements a tensor may have beyond its storage's (expanded views)
_MAX_DEPTH = 1000  # nesting of MARKs: a crafted stream cannot exhaust memory through them


class _Global:
    """A name the stream refers to (never imported)."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __repr__(self):
        return f"{self.module}.{self.name}"


class _Storage:
    """A storage the stream refers to: its element type and key into the archive's data/."""

    __slots__ = ("dtype", "key", "numel", "array")

    def __init__(self, dtype, key, numel):
        self.dtype, self.key, self.numel, self.array = dtype, key, numel, None


def is_torch_zip(head):
    """Whether the first bytes of a file are a zip archive's (what torch.save writes)."""
    return head[:4] == b"PK\x03\x04"


_BROKEN = (IndexError, KeyError, TypeError, ValueError, struct.error, RecursionError, EOFError,
           OverflowError, UnicodeDecodeError, NotImplementedError, RuntimeError,
           zipfile.BadZipFile, zipfile.LargeZipFile)


def load(source, name, weights_only):
    """The object a torch.save zip checkpoint holds (``source``: a path or a binary file)."""
    try:
        return _load(source, name, weights_only)
    except CheckpointError:
        raise
    except _BROKEN as error:  # (zipfile's and the stream's own complaints, in one voice)
        raise CheckpointError(f"ember.load: '{name}' is a corrupt torch checkpoint "
                              f"({type(error).__name__}: {error})") from None


def _load(source, name, weights_only):
    archive = zipfile.ZipFile(source)
    with archive:
        for info in archive.infolist():
            if info.compress_type != zipfile.ZIP_STORED:  # (no decompression bomb can hide)
                raise CheckpointError(f"ember.load: '{name}' has a compressed member "
                                      f"'{info.filename}'; torch.save stores its members "
                                      "uncompressed")
        names = archive.namelist()
        pickles = [n for n in names if n.endswith("/data.pkl") or n == "data.pkl"]
        if len(pickles) != 1:
            raise CheckpointError(f"ember.load: '{name}' is a zip file but not a torch "
                                  "checkpoint (no single data.pkl in it)")
        prefix = pickles[0][:-len("data.pkl")]
        order = prefix + "byteorder"
        big = order in names and archive.read(order).strip() == b"big"
        reader = _Reader(archive, prefix, name, big, weights_only)
        return reader.run(archive.read(pickles[0]))


class _Reader:
    """The pickle-opcode interpreter (data only) over one archive."""

    def __init__(self, archive, prefix, name, big, weights_only):
        self.archive, self.prefix, self.name, self.big = archive, prefix, name, big
        self.weights_only = weights_only
        self.storages = {}

    def refuse(self, what):
        hint = ("" if self.weights_only is not False else
                " (weights_only=False would run that code in torch; ember never does)")
        raise CheckpointError(f"ember.load: '{self.name}' holds {what}, which ember cannot "
                              f"rebuild without running code from the file{hint}; save the "
                              "state_dict (tensors and plain data) instead")

    # ------------------------------------------------------------------ the interpreter
    def run(self, data):  # noqa: C901  (one opcode table, read in one place)
        f = io.BytesIO(data)
        read = f.read
        stack, marks, memo = [], [], {}

        def u(fmt, n):
            raw = read(n)
            if len(raw) != n:
                raise ValueError("the pickle stream ends early")
            return struct.unpack(fmt, raw)[0]

        def pop_mark():
            start = marks.pop()
            items = stack[start:]
            del stack[start:]
            return items

        while True:
            op = read(1)
            if not op:
                raise ValueError("the pickle stream has no STOP")
            code = op[0]
            if code == 0x80:  # PROTO
                read(1)
            elif code == 0x95:  # FRAME
                read(8)
            elif op == b".":  # STOP
                if len(stack) != 1:
                    raise ValueError("the pickle stream leaves a malformed stack")
                return stack[0]
            elif op == b"(":  # MARK
                if len(marks) > _MAX_DEPTH:
                    raise ValueError("the pickle stream nests too deep")
                marks.append(len(stack))
            elif op == b"}":
                stack.append({})
            elif op == b"]":
                stack.append([])
            elif op == b")":
                stack.append(())
            elif op == b"N":
                stack.append(None)
            elif code == 0x88:
                stack.append(True)
            elif code == 0x89:
                stack.append(False)
            elif op == b"J":
                stack.append(u("<i", 4))
            elif op == b"K":
                stack.append(u("<B", 1))
            elif op == b"M":
                stack.append(u("<H", 2))
            elif code == 0x8a:  # LONG1
                n = u("<B", 1)
                stack.append(int.from_bytes(read(n), "little", signed=True))
            elif code == 0x8b:  # LONG4
                n = u("<i", 4)
                if n < 0 or n > 1 << 16:
                    raise ValueError("an integer of absurd length")
                stack.append(int.from_bytes(read(n), "little", signed=True))
            elif op == b"G":
                stack.append(u(">d", 8))
            elif op in (b"X", b"B", b"T"):  # BINUNICODE, BINBYTES, BINSTRING
                n = u("<I", 4)
                raw = read(n)
                if len(raw) != n:
                    raise ValueError("a string runs past the stream")
                stack.append(raw.decode("utf-8", "surrogatepass") if op == b"X" else
                             raw if op == b"B" else raw.decode("latin-1"))
            elif code in (0x8c, 0x43, 0x55):  # SHORT_BINUNICODE, SHORT_BINBYTES, SHORT_BINSTRING
                n = u("<B", 1)
                raw = read(n)
                stack.append(raw.decode("utf-8", "surrogatepass") if code == 0x8c else
                             raw if code == 0x43 else raw.decode("latin-1"))
            elif op == b"c":  # GLOBAL
                module = f.readline()[:-1].decode("utf-8")
                attr = f.readline()[:-1].decode("utf-8")
                stack.append(_Global(module, attr))
            elif code == 0x93:  # STACK_GLOBAL
                attr = stack.pop()
                module = stack.pop()
                stack.append(_Global(str(module), str(attr)))
            elif op == b"q":
                memo[u("<B", 1)] = stack[-1]
            elif op == b"r":
                memo[u("<I", 4)] = stack[-1]
            elif code == 0x94:  # MEMOIZE
                memo[len(memo)] = stack[-1]
            elif op == b"h":
                stack.append(memo[u("<B", 1)])
            elif op == b"j":
                stack.append(memo[u("<I", 4)])
            elif op == b"t":
                stack.append(tuple(pop_mark()))
            elif code == 0x85:
                stack[-1:] = [(stack[-1],)]
            elif code == 0x86:
                stack[-2:] = [tuple(stack[-2:])]
            elif code == 0x87:
                stack[-3:] = [tuple(stack[-3:])]
            elif op == b"l":
                stack.append(pop_mark())
            elif op == b"d":
                items = pop_mark()
                stack.append(dict(zip(items[::2], items[1::2])))
            elif op == b"a":
                value = stack.pop()
                _append(stack[-1], [value])
            elif op == b"e":
                items = pop_mark()
                _append(stack[-1], items)
            elif op == b"s":
                value = stack.pop()
                key = stack.pop()
                _setitems(stack[-1], [key, value])
            elif op == b"u":
                items = pop_mark()
                _setitems(stack[-1], items)
            elif code == 0x8f:  # EMPTY_SET
                stack.append(set())
            elif code == 0x90:  # ADDITEMS
                items = pop_mark()
                if not isinstance(stack[-1], set):
                    raise TypeError("ADDITEMS on something other than a set")
                stack[-1].update(items)
            elif code == 0x91:  # FROZENSET
                stack.append(frozenset(pop_mark()))
            elif op == b"Q":  # BINPERSID
                stack.append(self.storage(stack.pop()))
            elif op == b"R":  # REDUCE
                args = stack.pop()
                fn = stack.pop()
                stack.append(self.reduce(fn, args))
            elif code == 0x81:  # NEWOBJ
                args = stack.pop()
                cls = stack.pop()
                stack.append(self.reduce(cls, args))
            elif op == b"b":  # BUILD
                state = stack.pop()
                stack[-1] = self.build(stack[-1], state)
            elif op == b"0":  # POP
                stack.pop()
            elif op == b"1":  # POP_MARK
                pop_mark()
            elif op == b"2":  # DUP
                stack.append(stack[-1])
            else:
                raise ValueError(f"pickle opcode {op!r} is not one torch.save writes")

    # ------------------------------------------------------------------ the allowed globals
    def storage(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise ValueError(f"an unknown persistent reference {pid!r}")
        _, kind, key, _location, numel = pid
        if not isinstance(kind, _Global) or not (
                kind.module == "torch" and kind.name in _STORAGES or
                kind.module in ("torch", "torch.storage") and kind.name == "UntypedStorage"):
            raise ValueError(f"an unknown storage type {kind!r}")
        if not isinstance(key, str) or not isinstance(numel, int) or numel < 0:
            raise ValueError("a malformed storage reference")
        dtype = _np_dtype(_STORAGES.get(kind.name, "uint8"))
        found = self.storages.get(key)
        if found is None:
            found = self.storages[key] = _Storage(dtype, key, numel)
        return found

    def array(self, storage):
        if storage.array is None:
            raw = self.archive.read(f"{self.prefix}data/{storage.key}")
            if len(raw) < storage.numel * storage.dtype.itemsize:
                raise ValueError(f"storage {storage.key} holds {len(raw)} bytes, fewer than "
                                 f"its {storage.numel} elements")
            flat = np.frombuffer(raw, storage.dtype.newbyteorder(">") if self.big else
                                 storage.dtype, count=storage.numel)
            # writable memory of its own, shared by every tensor over this storage
            storage.array = flat.astype(storage.dtype) if self.big else flat.copy()
        return storage.array

    def tensor(self, storage, offset, size, stride, requires_grad=False, *_, dtype=None):
        """A tensor over ``storage`` (read as ``dtype`` where given: an untyped storage's
        bytes, torch's layout for dtypes without a typed storage, uint16/32/64)."""
        if not isinstance(storage, _Storage):
            raise TypeError("a tensor without a storage")
        size, stride = tuple(size), tuple(stride)
        if not (isinstance(offset, int) and len(size) == len(stride) and
                all(isinstance(n, int) and n >= 0 for n in size + stride) and offset >= 0):
            raise ValueError(f"a malformed tensor (offset {offset}, size {size}, stride "
                             f"{stride})")
        flat = self.array(storage)
        if dtype is not None and dtype != flat.dtype:
            flat = flat[:flat.nbytes // dtype.itemsize * dtype.itemsize // flat.itemsize]
            flat = flat.view(dtype)
        count = int(np.prod(size, dtype=np.object_)) if size else 1
        if count > max(flat.size, _MAX_EXPANDED):  # (a stride-0 view of a small storage
            # would be copied into memory the file never paid for)
            raise ValueError(f"a tensor of {count} elements over a storage of {flat.size}")
        if count:
            last = offset + sum((n - 1) * s for n, s in zip(size, stride))
            if last >= flat.size:
                raise ValueError(f"a tensor reaches element {last} of a storage of "
                                 f"{flat.size}")
            overlapping = any(s == 0 and n > 1 for n, s in zip(size, stride))
            view = np.lib.stride_tricks.as_strided(
                flat[offset:], size, [s * flat.itemsize for s in stride],
                writeable=not overlapping)
            # tensors over one storage share its memory, as torch.load's do (an expanded,
            # self-overlapping one gets its own copy: writes to it stay elementwise)
            data = np.array(view) if overlapping else view
        else:
            data = np.zeros(size, flat.dtype)
        return Tensor._make(data, bool(requires_grad) and data.dtype.kind in "fc")

    def reduce(self, fn, args):
        if not isinstance(fn, _Global) or not isinstance(args, tuple):
            self.refuse(f"an object built by {fn!r}")
        where = ("builtins" if fn.module == "__builtin__" else fn.module, fn.name)  # (py2 name)
        rebuild = _REBUILDS.get(where)
        if rebuild is None:
            self.refuse(f"an object built by {fn!r}")
        return rebuild(self, args)

    def build(self, obj, state):
        if isinstance(obj, collections.OrderedDict) and isinstance(state, dict):
            for k, v in state.items():  # a state_dict's _metadata (prefixes -> versions)
                if k == "_metadata":
                    obj._metadata = v
            return obj
        if isinstance(obj, Tensor) and isinstance(state, (dict, tuple)):
            return obj  # a parameter's or tensor's extra state (hooks, attributes): dropped
        if isinstance(obj, np.generic) or isinstance(obj, np.dtype):
            return obj
        self.refuse(f"the state of {type(obj).__name__}")


def _rebuild_parameter(reader, args):
    data, requires_grad = args[0], args[1]
    if not isinstance(data, Tensor):
        raise TypeError("a parameter without a tensor")
    return Parameter(data, bool(requires_grad))


def _rebuild_tensor_v3(reader, args):
    """torch's tensor of a dtype without a typed storage: its dtype named in the stream."""
    if len(args) < 7 or not isinstance(args[6], _Global) or args[6].module != "torch" or \
            args[6].name not in _dtype._NAMES:
        raise ValueError("a malformed tensor (its dtype)")
    return reader.tensor(*args[:5], dtype=_np_dtype(args[6].name))


def _numpy_scalar(reader, args):
    return np.frombuffer(args[1], dtype=_numpy_dtype(args[0]), count=1)[0]


# the reconstructors the stream may name (torch's weights_only set), each rebuilt from plain
# data here: (module, name) -> rebuild(reader, args)
_REBUILDS = {
    ("torch._utils", "_rebuild_tensor_v2"): lambda r, a: r.tensor(*a[:5]),
    ("torch._utils", "_rebuild_tensor"): lambda r, a: r.tensor(*a[:5]),
    ("torch._utils", "_rebuild_tensor_v3"): _rebuild_tensor_v3,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
    ("torch._tensor", "_rebuild_from_type_v2"): lambda r, a: r.reduce(a[0], tuple(a[2])),
    ("collections", "OrderedDict"): lambda r, a: collections.OrderedDict(*a[:1]),
    ("torch", "Size"): lambda r, a: tuple(*a[:1]),
    ("builtins", "tuple"): lambda r, a: tuple(*a[:1]),
    ("builtins", "list"): lambda r, a: list(*a[:1]),
    ("builtins", "set"): lambda r, a: set(*a[:1]),
    ("builtins", "frozenset"): lambda r, a: frozenset(*a[:1]),
    ("builtins", "complex"): lambda r, a: complex(*a),
    ("builtins", "slice"): lambda r, a: slice(*a),
    ("_codecs", "encode"): lambda r, a: str(a[0]).encode("latin-1"),  # protocol 2's bytes
    ("numpy.core.multiarray", "scalar"): _numpy_scalar,
    ("numpy._core.multiarray", "scalar"): _numpy_scalar,
    ("numpy", "dtype"): lambda r, a: _numpy_dtype(a[0]),
}


def _np_dtype(name):
    return _dtype.to_numpy_dtype(getattr(_dtype, "bool_" if name == "bool" else name))


def _numpy_dtype(value):
    if isinstance(value, np.dtype):
        return value
    if isinstance(value, str) and value in ("f4", "f8", "f2", "i8", "i4", "i2", "i1", "u1", "b1",
                                             "c8", "c16"):
        return np.dtype(value)
    raise ValueError(f"a NumPy dtype {value!r} ember does not read")


def _append(target, items):
    if not isinstance(target, list):
        raise TypeError("APPENDS on something other than a list")
    target.extend(items)


def _setitems(target, items):
    if not isinstance(target, dict):
        raise TypeError("SETITEMS on something other than a dict")
    for k, v in zip(items[::2], items[1::2]):
        target[k] = v
