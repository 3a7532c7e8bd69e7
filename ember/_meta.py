"""The meta device: tensors with a shape and dtype but no data.

A meta tensor's array is a ``MetaArray``: a zero-stride view of one zero element, so its memory
is one element whatever its shape, and every view (reshape, transpose, slicing, expand) stays one
for free. Ops run their ordinary code on it: NumPy hands the ufuncs (elementwise, reductions,
matmul) and the array functions to ``MetaArray``, which computes only the result's shape and dtype
(from NumPy's own rules, run on a one-element sample) and returns a new placeholder. Values can
never be read: ``item``, ``tolist`` and truth tests raise torch's errors.
"""
import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

CANNOT_COPY = "Cannot copy out of meta tensor; no data!"


in_use = False  # set once a placeholder is made: Node.apply then checks for meta inputs


def placeholder(shape, dtype):
    """A MetaArray of ``shape`` and ``dtype``: a zero-stride view of one zero element."""
    global in_use
    in_use = True
    shape = tuple(int(s) for s in shape)
    one = np.zeros(1, dtype=dtype)
    return np.lib.stride_tricks.as_strided(one, shape, (0,) * len(shape)).view(MetaArray)


def recheck(data, inputs):
    """An op's ndarray result: a placeholder like it if any input was meta (code that made a
    plain array from placeholders, e.g. by np.asarray, still gives a meta tensor), after
    torch's device check."""
    for x in inputs:
        if type(getattr(x, "_data", None)) is MetaArray:
            return settle(like(data), inputs)
    return data


def like(array):
    """A placeholder with ``array``'s shape and dtype."""
    return placeholder(array.shape, array.dtype)


def is_meta(array):
    return type(array) is MetaArray


def _sample(x, shape=()):
    """A real one-element stand-in for an operand (its dtype, and a shape, e.g. kept dims)."""
    if isinstance(x, np.ndarray):
        return np.zeros(shape, x.dtype)
    return x


def check_same_device(arrays):
    """torch's error when meta arrays meet CPU arrays (0-d ones, like scalars, may mix)."""
    first = None
    for a in arrays:
        if not isinstance(a, np.ndarray) or (type(a) is not MetaArray and not any(a.strides)):
            continue  # a scalar, or one value broadcast: torch's 0-d tensors mix with any device
        kind = "meta" if type(a) is MetaArray else "cpu"
        if first is None:
            first = kind
        elif kind != first:
            raise RuntimeError(f"Tensor on device {kind} is not on the expected device {first}!")


def settle(data, inputs):
    """An op's result: an ndarray (from a NumPy scalar), or, when meta inputs made it a
    placeholder, that placeholder after torch's check that the inputs (tensors, arrays or
    scalars) share a device."""
    if type(data) is MetaArray:
        check_same_device([getattr(x, "_data", x) for x in inputs])
        return data
    return np.asarray(data)


def _broadcast(shapes):
    """The broadcast shape, or torch's meta error naming the operand that does not fit."""
    result = ()
    for index, shape in enumerate(shapes):
        try:
            result = np.broadcast_shapes(result, shape)
        except ValueError:
            at = next(-i for i in range(1, min(len(shape), len(result)) + 1)
                      if shape[-i] != result[-i] and 1 not in (shape[-i], result[-i]))
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {shape[at]} at {at}! Mismatching "
                f"argument at index {index} had torch.Size({list(shape)}); but expected shape "
                f"should be broadcastable to {list(result)}") from None
    return result


def _outputs(results, shape, out):
    """Placeholders of ``shape`` with the sample results' dtypes (or the given ``out``)."""
    single = not isinstance(results, tuple)
    results = (results,) if single else results
    if out is not None:
        made = out
    else:
        made = tuple(placeholder(shape, np.asarray(r).dtype) for r in results)
    return made[0] if single else made


def _call(ufunc, inputs, kwargs):
    """ufunc(*inputs): broadcast shape, dtype from a one-element sample (ufunc's own rules)."""
    out = kwargs.pop("out", None)
    kwargs.pop("where", None)
    if ufunc.signature is not None:
        shape, samples = _core_shape(ufunc, inputs)
    else:
        shape = _broadcast([np.shape(x) for x in inputs])
        samples = [_sample(x) for x in inputs]
    with np.errstate(all="ignore"):
        results = ufunc(*samples, **kwargs)
    return _outputs(results, shape, out)


def _parse_signature(signature):
    """'(n?,k),(k,m?)->(n?,m?)' -> ([[('n', True), ('k', False)], ...], [[...]])."""
    def operands(text):
        groups = text.strip()[1:-1].split("),(")
        return [[(d.rstrip("?"), d.endswith("?")) for d in g.split(",") if d] for g in groups]
    ins, outs = signature.replace(" ", "").split("->")
    return operands(ins), operands(outs)


def _core_shape(ufunc, inputs):
    """A generalised ufunc's output shape (matmul, vecdot) from its signature, NumPy's errors."""
    ins, outs = _parse_signature(ufunc.signature)
    sizes, missing, loops, samples = {}, set(), [], []
    for index, (x, core) in enumerate(zip(inputs, ins)):
        shape = np.shape(x)
        if len(shape) < len(core):
            missing.update(name for name, optional in core if optional)
            core = [d for d in core if not d[1]]
        if len(shape) < len(core):
            raise ValueError(f"{ufunc.__name__}: Input operand {index} does not have enough "
                             f"dimensions (has {len(shape)}, gufunc core with signature "
                             f"{ufunc.signature} requires {len(core)})")
        cut = len(shape) - len(core)
        for j, ((name, _), size) in enumerate(zip(core, shape[cut:])):
            if sizes.setdefault(name, size) != size:
                raise ValueError(f"{ufunc.__name__}: Input operand {index} has a mismatch in "
                                 f"its core dimension {j}, with gufunc signature "
                                 f"{ufunc.signature} (size {size} is different from "
                                 f"{sizes[name]})")
        loops.append(shape[:cut])
        samples.append(_sample(x, (1,) * len(core)))
    core_out = tuple(sizes[name] for name, _ in outs[0] if name not in missing)
    return _broadcast(loops) + core_out, samples


def _reduce(ufunc, array, axis=0, dtype=None, out=None, keepdims=False, **kwargs):
    """ufunc.reduce: the kept dimensions; dtype and NumPy's errors (an empty reduction without
    identity) from a sample with every dimension cut to at most one element."""
    axes = tuple(range(array.ndim)) if axis is None else normalize_axis_tuple(axis, array.ndim)
    small = np.zeros(tuple(min(s, 1) for s in array.shape), array.dtype)
    kwargs.pop("where", None)
    with np.errstate(all="ignore"):
        result = ufunc.reduce(small, axis=axis, dtype=dtype, keepdims=keepdims, **kwargs)
    shape = tuple(1 if i in axes else s for i, s in enumerate(array.shape) if keepdims
                  or i not in axes)
    if out is not None:
        return out[0]
    made = placeholder(shape, np.asarray(result).dtype)
    made._truth = ufunc is np.logical_and  # all(): true (see MetaArray.__bool__)
    return made


def _accumulate(ufunc, array, axis=0, dtype=None, out=None):
    small = np.zeros(tuple(min(s, 1) for s in array.shape), array.dtype)
    result = ufunc.accumulate(small, axis=axis, dtype=dtype)
    return out[0] if out is not None else placeholder(array.shape, result.dtype)


def _outer(ufunc, a, b, **kwargs):
    out = kwargs.pop("out", None)
    with np.errstate(all="ignore"):
        result = ufunc(_sample(a), _sample(b), **kwargs)
    return _outputs(result, np.shape(a) + np.shape(b), out)


_UFUNC_METHODS = {"__call__": lambda u, inputs, kw: _call(u, inputs, kw),
                  "reduce": lambda u, inputs, kw: _reduce(u, *inputs, **kw),
                  "accumulate": lambda u, inputs, kw: _accumulate(u, *inputs, **kw),
                  "outer": lambda u, inputs, kw: _outer(u, *inputs, **kw)}


class MetaArray(np.ndarray):
    """A placeholder array: NumPy's ufuncs and array functions on it compute only the result's
    shape and dtype (see the module docstring); reading a value raises as torch does."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "at":
            return None
        run = _UFUNC_METHODS.get(method)
        if run is None:
            raise NotImplementedError(f"ember: {ufunc.__name__}.{method} on meta tensors")
        return run(ufunc, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        handler = _FUNCTIONS.get(func)
        if handler is not None:
            return handler(*args, **kwargs)
        return _rewrap(super().__array_function__(func, types, args, kwargs))

    # ----- methods NumPy implements in C (they would compute over every element) -----
    def copy(self, order="C"):
        return like(self)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        return placeholder(self.shape, dtype)

    def __repr__(self):
        return f"MetaArray(shape={self.shape}, dtype={self.dtype})"

    def __reduce__(self):  # pickled as its shape and dtype, whatever its size
        return placeholder, (self.shape, self.dtype)

    def __getitem__(self, key):
        if has_mask(key):  # (an op's own selection: none, as for any() above; a user's
            return _masked(self, key)  # mask on a meta tensor is refused by getitem)
        result = super().__getitem__(key)
        if isinstance(result, np.ndarray) and any(result.strides):  # fancy indexing: a copy
            return like(result)
        return result if isinstance(result, np.ndarray) else placeholder((), self.dtype)

    def __setitem__(self, key, value):
        self._check_index(key)

    def _check_index(self, key):
        """Raise NumPy's own error for an index that does not fit (nothing is written)."""
        np.broadcast_to(np.zeros((), self.dtype), self.shape)[key]

    def fill(self, value):
        pass

    def sort(self, axis=-1, kind=None, order=None, stable=None):
        pass

    def argsort(self, axis=-1, kind=None, order=None, stable=None):
        return placeholder(self.shape if axis is not None else (self.size,), np.intp)

    def argmax(self, axis=None, out=None, keepdims=False):
        return self._arg_reduce(axis, keepdims)

    def argmin(self, axis=None, out=None, keepdims=False):
        return self._arg_reduce(axis, keepdims)

    def _arg_reduce(self, axis, keepdims):
        if axis is None:
            return placeholder((1,) * self.ndim if keepdims else (), np.intp)
        (axis,) = normalize_axis_tuple(axis, self.ndim)
        shape = tuple(1 if i == axis else s for i, s in enumerate(self.shape)
                      if keepdims or i != axis)
        return placeholder(shape, np.intp)

    def nonzero(self):
        raise NotImplementedError(_NO_SHAPE)

    # ----- values cannot be read -----
    def item(self, *args):
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")

    def __bool__(self):
        """The outcome of an op's own check on values it does not have (a tensor's truth
        value is refused by Tensor.__bool__): as torch's meta kernels, which skip such checks,
        ``any`` of a placeholder is false and ``all`` true, so that ``if (i < 0).any(): raise``
        and ``if not (p >= 0).all(): raise`` both pass."""
        return self._truth

    _truth = False

    __float__ = __int__ = __complex__ = item

    def tolist(self):
        raise NotImplementedError(CANNOT_COPY)

    def tobytes(self, order="C"):
        raise NotImplementedError(CANNOT_COPY)


def has_mask(key):
    """True for an index holding a boolean array (its selection depends on values)."""
    return any(isinstance(part, np.ndarray) and part.dtype == bool and part.ndim
               for part in (key if isinstance(key, tuple) else (key,)))


def _masked(array, key):
    """``array[key]`` with every mask selecting nothing."""
    parts = key if isinstance(key, tuple) else (key,)
    empty = tuple(np.zeros((0,) * part.ndim, bool) if isinstance(part, np.ndarray) and
                  part.dtype == bool and part.ndim else part for part in parts)
    return like(np.broadcast_to(np.zeros((), array.dtype), array.shape)[empty])


def refuse(what):
    """torch's refusal of an op whose output shape depends on a meta tensor's values."""
    raise NotImplementedError(f"{what}: {_NO_SHAPE}")


_NO_SHAPE = ("ember: the output shape of this op depends on the values of its input, which a "
             "meta tensor does not have")


def _rewrap(result):
    """A NumPy result made from meta arrays, as placeholders (arrays computed in full by C code
    become placeholders of their shape; views of placeholders stay)."""
    if isinstance(result, np.ndarray):
        return result if type(result) is MetaArray and not any(result.strides) else like(result)
    if isinstance(result, (tuple, list)):
        return type(result)(_rewrap(r) for r in result)
    return result


def _like_function(fill=False):
    def made(a, *args, dtype=None, order="K", subok=True, shape=None, **kwargs):
        if fill and len(args) > 1:
            dtype = args[1]
        elif not fill and args:
            dtype = args[0]
        dtype = dtype if dtype is not None else np.asarray(a).dtype
        return placeholder(np.shape(a) if shape is None else np.atleast_1d(shape), dtype)
    return made


def _copyto(dst, src, casting="same_kind", where=True):
    np.broadcast_shapes(np.shape(src), dst.shape)


def _concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    """NumPy's shape checks; the dtype from one-element samples."""
    arrays = list(arrays)
    if axis is None:
        arrays, axis = [np.reshape(a, -1) for a in arrays], 0
    shapes = [np.shape(a) for a in arrays]
    small = [np.zeros(tuple(min(1, n) for n in s), np.asarray(a).dtype)
             for s, a in zip(shapes, arrays)]
    joined = np.concatenate(small, axis=axis, dtype=dtype, casting=casting)
    cut = normalize_axis_tuple(axis, len(shapes[0]))[0]
    for index, s in enumerate(shapes[1:], 1):
        for dim, (first, other) in enumerate(zip(shapes[0], s)):
            if dim != cut and first != other:
                raise ValueError(f"all the input array dimensions except for the concatenation "
                                 f"axis must match exactly, but along dimension {dim}, the array "
                                 f"at index 0 has size {first} and the array at index {index} "
                                 f"has size {other}")
    shape = list(shapes[0])
    shape[cut] = sum(s[cut] for s in shapes)
    return out if out is not None else placeholder(shape, joined.dtype)


def _where(condition, *choices):
    if not choices:
        raise NotImplementedError(_NO_SHAPE)
    operands = (condition,) + choices
    shape = _broadcast([np.shape(x) for x in operands])
    return placeholder(shape, np.where(*(_sample(x) for x in operands)).dtype)


def _take(a, indices, axis=None, out=None, mode="raise"):
    index_shape = np.shape(indices)
    if axis is None:
        return placeholder(index_shape, a.dtype)
    (axis,) = normalize_axis_tuple(axis, a.ndim)
    return placeholder(a.shape[:axis] + index_shape + a.shape[axis + 1:], a.dtype)


def _pad(array, pad_width, mode="constant", **kwargs):
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (array.ndim, 2))
    return placeholder(tuple(s + int(b) + int(e) for s, (b, e) in zip(array.shape, widths)),
                       array.dtype)


def _dot(a, b, out=None):
    if np.ndim(a) > 2 or np.ndim(b) > 2:
        raise NotImplementedError("ember: numpy.dot of arrays above 2-D on meta tensors")
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return np.multiply(a, b)
    return np.matmul(a, b)


def _no_shape(*args, **kwargs):
    raise NotImplementedError(_NO_SHAPE)


def _no_match(a):
    """np.flatnonzero inside an op (user-level nonzero refuses meta tensors first): none."""
    return placeholder((0,), np.intp)


def _no_op(*args, **kwargs):
    return None


_FUNCTIONS = {np.empty_like: _like_function(), np.zeros_like: _like_function(),
              np.ones_like: _like_function(), np.full_like: _like_function(fill=True),
              np.copyto: _copyto, np.concatenate: _concatenate, np.where: _where,
              np.take: _take, np.pad: _pad, np.dot: _dot, np.nonzero: _no_shape,
              np.argwhere: _no_shape, np.flatnonzero: _no_match, np.unique: _no_shape,
              np.put: _no_op, np.put_along_axis: _no_op, np.place: _no_op,
              np.putmask: _no_op}
