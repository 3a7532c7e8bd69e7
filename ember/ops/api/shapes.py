"""The public shape functions: views, reshapes, joins and splits (ember.reshape, ember.cat, ...)."""
import builtins

import numpy as np

from ... import _dtype, _memory_format
from ..._tensor import Tensor
from ...autograd import grad_mode as _grad_mode
from ...autograd import graph as _graph
from .. import indexing as I
from .. import shape as S


def reshape(input, *sizes, shape=None):
    """Same data in a new shape (a view when possible, else a copy: UnsafeViewBackward0); the
    shape as several ints, one sequence, or ``shape=`` as torch names it."""
    shape = S._shape_arg(sizes if shape is None else (shape,))
    x = input._data
    if x.flags.c_contiguous or S.view_possible(x, S._infer_shape(x.size, shape)):
        return S.as_view(S.ViewBackward0.apply(input, shape=shape), input)
    return S.UnsafeViewBackward0.apply(input, shape=shape)


def view(input, *shape, size=None, dtype=None):
    """A view with a new shape (or ``size=``); errors when the memory layout does not allow
    one. A dtype (or ``dtype=``): the same memory read as it."""
    if size is not None:
        shape = (size,)
    if dtype is not None:
        shape = (dtype,)
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        return _view_dtype(input, shape[0])
    return S.as_view(S.ViewBackward0.apply(input, shape=S._shape_arg(shape), copy_ok=False), input)


def _view_dtype(input, dtype):
    """The same memory read as ``dtype`` (a view; torch's checks where the sizes differ)."""
    x = input._data
    new = np.dtype(dtype.np)
    if new.itemsize != x.itemsize:
        names = (f"to view {input.dtype.scalar_name} as {dtype.scalar_name} (different element "
                 "sizes)")
        if x.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {names}")
        if x.shape[-1] != 1 and x.strides[-1] != x.itemsize and x.size:  # (empty: any stride)
            raise RuntimeError(f"self.stride(-1) must be 1 {names}, but got "
                               f"{x.strides[-1] // x.itemsize}")
        ratio = new.itemsize // x.itemsize
        if ratio > 1:
            offset = input.storage_offset()
            for what, value in (("size(-1)", x.shape[-1]), ("storage_offset()", offset)) + tuple(
                    (f"stride({d})", x.strides[d] // x.itemsize) for d in range(x.ndim - 1)):
                if value % ratio:
                    raise RuntimeError(f"self.{what} must be divisible by {ratio} {names}, "
                                       f"but got {value}")
        if x.strides[-1] != x.itemsize and (x.shape[-1] == 1 or not x.size):  # (NumPy wants
            # the last dim contiguous)
            x = np.lib.stride_tricks.as_strided(x, strides=x.strides[:-1] + (x.itemsize,))
    return S.as_view(Tensor._make(x.view(new)), input)


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims start_dim..end_dim into one."""
    shape = input._data.shape
    if not shape:
        S._dim(0, start_dim), S._dim(0, end_dim)  # torch's IndexError past 0 and -1
        return reshape(input, 1)
    s, e = S._dim(len(shape), start_dim), S._dim(len(shape), end_dim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    new = shape[:s] + (int(np.prod(shape[s:e + 1])),) + shape[e + 1:]
    return reshape(input, new)


def unflatten(input, dim, sizes):
    shape = input._data.shape
    if not shape:  # torch's wording: its dim check fails inside unflatten
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but "
                           "tensor has no dimensions")
    d = S._dim(len(shape), dim)
    given = [int(s) for s in sizes]
    known = int(np.prod([s for s in given if s != -1])) if given else 1
    if given.count(-1) <= 1 and (known != shape[d] if -1 not in given else
                                 known == 0 or shape[d] % known):
        raise RuntimeError(f"unflatten: Provided sizes {given} don't multiply up to the size of "
                           f"dim {d} ({shape[d]}) in the input tensor")
    sizes = S._infer_shape(shape[d], sizes)
    return reshape(input, shape[:d] + sizes + shape[d + 1:])


def squeeze(input, dim=S.ALL_DIMS):
    """Remove size-1 dims (all, or those in dim)."""
    shape = input._data.shape
    S.refuse_none_dim(dim, "squeeze")
    if dim is S.ALL_DIMS:
        dim = None
        dims = [i for i, s in enumerate(shape) if s == 1]
    else:
        dims = [S._dim(len(shape), d) for d in ((dim,) if isinstance(dim, int) else dim)]
        S.refuse_repeated_dims(dims)
    new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
    cls = S.SqueezeBackward0 if dim is None else (
        S.SqueezeBackward1 if isinstance(dim, int) else S.SqueezeBackward2)
    return S.as_view(cls.apply(input, shape=new), input)


def unsqueeze(input, dim):
    """Insert a size-1 dim at ``dim``."""
    shape = input._data.shape
    d = S._dim(len(shape) + 1, dim)
    return S.as_view(S.UnsqueezeBackward0.apply(input, shape=shape[:d] + (1,) + shape[d:]), input)


def transpose(input, dim0, dim1):
    """Swap two dims (a view)."""
    return S.as_view(S.TransposeBackward0.apply(input, dim0=dim0, dim1=dim1), input)


swapaxes = swapdims = transpose


def t(input):
    """Transpose a <=2-D tensor."""
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input._data.ndim}D")
    return S.as_view(S.TBackward0.apply(input, dim0=0, dim1=-1), input)


def permute(input, *order, dims=None):
    if dims is None and not order:  # (x.permute(()) is the way to give none)
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    return S.as_view(S.PermuteBackward0.apply(
        input, dims=S._shape_arg(order if dims is None else (dims,))), input)


def expand(input, *sizes, size=None):
    return S.as_view(S.ExpandBackward0.apply(
        input, shape=S._shape_arg(sizes if size is None else (size,))), input)


def broadcast_to(input, size):
    return expand(input, *size)


def repeat(input, *counts, repeats=None):
    return S.RepeatBackward0.apply(
        input, repeats=S._shape_arg(counts if repeats is None else (repeats,)))


def flip(input, *order, dims=None):
    """Reverse the order of elements along dims (a tuple, or several ints as torch's method)."""
    dims = order if dims is None else (dims,)
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    dims = dims[0] if len(dims) == 1 else dims
    return S.FlipBackward0.apply(input, dims=(dims,) if isinstance(dims, int) else tuple(dims))


def narrow(input, dim, start, length):
    """A view of ``length`` entries along dim from ``start`` (a negative start counts from the
    end), with torch's checks in its order."""
    start, length = _narrow_args("narrow", input, dim, start, length)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d, start = _narrow_start(input, dim, start, length)
    return I.getitem(input, (slice(None),) * d + (slice(start, start + length),))


def narrow_copy(input, dim, start, length):
    """narrow, copied (torch checks no negative length apart)."""
    start, length = _narrow_args("narrow_copy", input, dim, start, length)
    d, start = _narrow_start(input, dim, start, length)
    part = I.getitem(input, (slice(None),) * d + (slice(start, start + length),))
    return part.clone(memory_format=_memory_format.contiguous_format)  # contiguous, as torch


def _narrow_args(op, input, dim, start, length):
    if isinstance(start, Tensor):
        if start.ndim or start._data.dtype.kind not in "iu":
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start)
    if any(not isinstance(v, (int, np.integer)) or isinstance(v, bool) for v in (start, length)):
        got = ", ".join(type(v).__name__ for v in (input, dim, start, length))
        raise TypeError(f"{op}() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of:\n * (Tensor input, int dim, Tensor start, int "
                        f"length)\n * (Tensor input, int dim, int start, int length)\n")
    if not input._data.ndim:
        raise RuntimeError(f"{op}() cannot be applied to a 0-dim tensor.")
    return int(start), int(length)


def _narrow_start(input, dim, start, length):
    d = S._dim(input._data.ndim, dim)
    size = input._data.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    start = start + size if start < 0 else start
    if start + length > size or length < 0:  # (narrow_copy's message for a negative length)
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return d, start


def select(input, dim, index):
    if input._data.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = S._dim(input._data.ndim, dim)
    return S.as_view(S.SelectBackward0.apply(input, index=(slice(None),) * d + (int(index),)),
                     input)


def split(tensor, split_size_or_sections, dim=0):
    """Split into chunks of a size (or a list of sizes) along dim; the pieces are views."""
    if tensor._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    n = tensor._data.shape[S._dim(tensor._data.ndim, dim)]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got "
                               f"split_size={size}")
        if size == 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n}")
        # (at least one piece: an empty dim splits into one empty piece)
        sizes = [size] * (n // size) + ([n % size] if n % size else []) if n else [0]
    else:
        sizes = list(split_size_or_sections)
        if any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sizes}")
        if builtins.sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {dim}), but got split_sizes="
                               f"{sizes}")
    d = S._dim(tensor._data.ndim, dim)
    cls = S.SplitBackward0 if isinstance(split_size_or_sections, int) else \
        S.SplitWithSizesBackward0
    indices, start = [], 0
    for s in sizes:
        indices.append((slice(None),) * d + (slice(start, start + s),))
        start += s
    if tensor._requires_grad and _grad_mode._state.enabled and not _graph._anomaly_mode and \
            _graph._dual is None and type(tensor._data) is np.ndarray:  # one node for the
        # pieces (see SplitBackward0)
        return _multiple_views(S.record_pieces(cls, tensor, indices), tensor, cls)
    return _multiple_views(tuple(S.as_view(cls.apply(tensor, index=index), tensor)
                                 for index in indices), tensor, cls)


def _multiple_views(views, input, cls):
    """The views of an op returning several (split, chunk, unbind): torch refuses to modify
    them in place while their history is recorded (checked by ops.inplace.check_inplace)."""
    if input._requires_grad and _grad_mode._state.enabled:
        op = cls.__name__[:cls.__name__.rfind("Backward")]
        for i, view in enumerate(views):
            view.__dict__["_multi_view"] = (op, i)
    return views


def chunk(input, chunks, dim=0):
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input._data.shape[S._dim(input._data.ndim, dim)]
    if not n:  # torch: ``chunks`` empty pieces
        return split(input, [0] * chunks, dim)
    return split(input, -(-n // chunks), dim)


def unbind(input, dim=0):
    d = S.dim_of_0d(input._data.ndim, S._dim(input._data.ndim, dim))  # torch names it wrapped
    return _multiple_views(tuple(
        S.as_view(S.UnbindBackward0.apply(input, index=(slice(None),) * d + (i,)), input)
        for i in range(input._data.shape[d])), input, S.UnbindBackward0)


def cat(tensors, dim=0):
    """Concatenate along an existing dim."""
    tensors = S.tensor_list("cat", tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return S.CatBackward0.apply(*tensors, dim=dim)


def concat(tensors, dim=0):
    """cat under another name."""
    return cat(S.tensor_list("concat", tensors), dim)


concatenate = cat


def stack(tensors, dim=0):
    """Stack equal-shaped tensors along a new dim."""
    tensors = S.tensor_list("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return S.StackBackward0.apply(*tensors, dim=dim)
