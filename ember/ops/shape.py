"""Shape primitives (view, transpose, expand, cat, split, ...): views where NumPy gives them."""
import numpy as np

from .. import _dtype, _memory_format
from .._memory_format import channels_last_or_contiguous
from .._tensor import Tensor, wrap_dim
from ..autograd.graph import Node, _edge


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, np.ndarray)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def dim_of_0d(ndim, d):
    """A dim of a reduction over slices (unique, split, ...): torch refuses any on a 0-d
    tensor; else the dim wrapped as _dim."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return _dim(ndim, d)


_PLAIN_TENSOR = {Tensor}


def tensor_list(name, tensors):
    """The tensors of a join (cat, stack, ...) as a list: torch takes a list or tuple only, and
    refuses a single tensor (iterating it would join its rows) or a generator."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    if set(map(type, tensors)) <= _PLAIN_TENSOR:  # all plain tensors: one pass in C
        return list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            kind = type(t)
            kind = kind.__name__ if kind.__module__ == "builtins" else \
                f"{kind.__module__}.{kind.__name__}"
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {kind}")
    return list(tensors)


def _dim(ndim, d):
    return wrap_dim(d, ndim)


class _AllDims:
    """The default ``dim`` of ops whose torch overloads leave dim out to reduce over every
    element (max(), median(), prod(), squeeze()): an explicit ``dim=None`` is not that, and
    torch's argument parser refuses it (see refuse_none_dim)."""

    def __repr__(self):
        return "<every dim>"


ALL_DIMS = _AllDims()


def refuse_none_dim(dim, name):
    """torch's TypeError for an explicit dim=None where its overloads take an int or no dim."""
    if dim is None:
        raise TypeError(f"{name}(): argument 'dim' must be int, not NoneType")


def refuse_repeated_dims(dims):
    """torch's error for a list of (wrapped) dims that names one twice."""
    if len(set(dims)) != len(dims):
        twice = next(d for i, d in enumerate(dims) if d in dims[:i])
        raise RuntimeError(f"dim {twice} appears multiple times in the list of dims")


class ViewBackward0(Node):
    """out = a viewed as ``shape``;  da = g reshaped back."""

    def forward(self, a, shape, copy_ok=True):
        x = a._data
        self.shape = x.shape
        shape = _infer_shape(x.size, shape)
        if not copy_ok and not x.flags.c_contiguous and x.size > 1:
            try:
                view = x.view()
                view.shape = shape  # raises if no view is possible without a copy
                return view
            except AttributeError:
                raise RuntimeError(
                    "view size is not compatible with input tensor's size and stride (at least "
                    "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                    "instead.") from None
        return x.reshape(shape)

    def backward(self, m, g):
        return (m.reshape(g, self.shape),)


def _infer_shape(size, shape):
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or size % known:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {size}")
        shape[shape.index(-1)] = size // known
    elif known != size:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {size}")
    return tuple(shape)


class UnsafeViewBackward0(ViewBackward0):
    """reshape that had to copy."""


class TransposeBackward0(Node):
    """out = a with dims d0 and d1 swapped;  da = g swapped back."""

    def forward(self, a, dim0, dim1):
        n = a._data.ndim
        self.d0, self.d1 = _dim(n, dim0), _dim(n, dim1)
        return np.swapaxes(a._data, self.d0, self.d1) if n > 1 else a._data.view()

    def backward(self, m, g):
        return (m.transpose(g, self.d0, self.d1) if g.ndim > 1 else g,)


class TBackward0(TransposeBackward0):
    """out = a.t() for a <=2-D tensor."""


class PermuteBackward0(Node):
    """out = a with dims permuted;  da = g with the inverse permutation."""

    def forward(self, a, dims):
        n = a._data.ndim
        if len(dims) != n:
            raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input "
                               f"does not match the length of the desired ordering of dimensions "
                               f"i.e. input.dim() = {n} is not equal to len(dims) = {len(dims)}")
        dims = tuple(_dim(n, d) for d in dims)
        if len(set(dims)) != n:
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        self.inverse = tuple(np.argsort(dims))
        return np.transpose(a._data, dims)

    def backward(self, m, g):
        return (m.permute(g, self.inverse),)


def expand_error(have_shape, target, given=None, np_dtype=None):
    """torch's error for expanding ``have_shape`` (of ``np_dtype``, named in one message) to
    ``target`` (None when it expands)."""
    lead = len(target) - len(have_shape)
    if lead < 0:
        name = _dtype.of_numpy(np_dtype).scalar_name if np_dtype is not None else "Float"
        name = f"CPU{name}Type" if name in ("BFloat16", "UInt16", "UInt32", "UInt64") else \
            f"ember.{name}Tensor"  # (torch's legacy type name, where one exists)
        return RuntimeError(f"expand({name}{{{list(have_shape)}}}, size="
                            f"{list(target if given is None else given)}): the number of sizes "
                            f"provided ({len(target)}) must be greater or equal to the number "
                            f"of dimensions in the tensor ({len(have_shape)})")
    for d in range(len(target) - 1, lead - 1, -1):
        have = have_shape[d - lead]
        if have != 1 and have != target[d]:
            return RuntimeError(f"The expanded size of the tensor ({target[d]}) must match the "
                                f"existing size ({have}) at non-singleton dimension {d}.  "
                                f"Target sizes: {list(target if given is None else given)}.  "
                                f"Tensor sizes: {list(have_shape)}")
    return None


class ExpandBackward0(Node):
    """out = a broadcast to ``shape`` (-1 keeps a dim);  da = g summed back (by the engine)."""

    def forward(self, a, shape):
        x = a._data
        lead = len(shape) - x.ndim
        if lead < 0:
            raise expand_error(x.shape, shape, np_dtype=x.dtype)
        if -1 in shape[:lead]:
            d = shape.index(-1)
            raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                               f"leading, non-existing dimension {d}")
        target = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(shape))
        error = expand_error(x.shape, target, shape)
        if error is not None:
            raise error
        return np.broadcast_to(x, target)

    def backward(self, m, g):
        return (g,)  # the engine sums the broadcast dims back to a's shape


class SqueezeBackward0(ViewBackward0):
    """out = a without size-1 dims."""


class SqueezeBackward1(ViewBackward0):
    """out = a without one size-1 dim."""


class SqueezeBackward2(ViewBackward0):
    """out = a without the size-1 dims listed."""


def view_possible(x, shape):
    """True when ``x`` can be seen in ``shape`` without copying."""
    try:
        x.view().shape = shape
        return True
    except AttributeError:
        return False


class UnsqueezeBackward0(ViewBackward0):
    """out = a with a new size-1 dim."""


class RepeatBackward0(Node):
    """out = a tiled ``repeats`` times;  da = sum over the tiles."""

    def forward(self, a, repeats):
        x = a._data
        if len(repeats) < x.ndim:
            raise RuntimeError("Number of dimensions of repeat dims can not be smaller than "
                               "number of dimensions of tensor")
        self.shape = (1,) * (len(repeats) - x.ndim) + x.shape
        if any(r < 0 for r in repeats):
            sizes = [r * s for r, s in zip(repeats, self.shape)]
            raise RuntimeError(f"Trying to create tensor with negative dimension "
                               f"{min(sizes)}: {sizes}")
        self.repeats = repeats
        return np.tile(x.reshape(self.shape), repeats)

    def backward(self, m, g):
        split = []
        for r, s in zip(self.repeats, self.shape):
            split += [r, s]
        g = m.reshape(g, tuple(split))
        g = m.sum(g, tuple(range(0, len(split), 2)))
        return (g,)


class FlipBackward0(Node):
    """out = a reversed along dims;  da = g reversed back."""

    def forward(self, a, dims):
        self.dims = tuple(_dim(a._data.ndim, d) for d in dims)
        refuse_repeated_dims(self.dims)
        if not a._data.ndim:  # a 0-d tensor's dim 0 (or -1) flips nothing
            self.dims = ()
        # torch's flip copies (so .view works on it), in the input's layout (a dense one)
        return _memory_format.relayout(np.flip(a._data, self.dims), _memory_format.preserve_format)

    def backward(self, m, g):
        return (m.flip(g, self.dims),)


def _unsqueeze_strides(out, index, x):
    """``out`` (= x[index]) with the dims that None inserted strided as torch strides them: torch
    applies the items left to right and unsqueezes before the next dim of x not yet indexed,
    taking that dim's size times its stride (one element past the last), where NumPy gives 0."""
    wanted, d, k = list(out.strides), 0, 0  # d: dim of out; k: next dim of x
    fill = x.ndim - sum(1 for i in index if i is not None and i is not Ellipsis)
    for item in index:
        if item is None:
            wanted[d] = x.shape[k] * x.strides[k] if k < x.ndim else x.itemsize
            d += 1
        elif item is Ellipsis:
            d, k = d + fill, k + fill
        else:  # an int drops the dim, a slice keeps it
            d, k = d + (type(item) is slice), k + 1
    if tuple(wanted) == out.strides:
        return out
    return np.lib.stride_tricks.as_strided(out, strides=wanted, writeable=out.flags.writeable)


class SliceBackward0(Node):
    """out = a[index] (basic indexing: a view);  da = zeros with g placed at index."""

    def forward(self, a, index):
        x = a._data
        self.shape, self.index = x.shape, index
        out = x[index]
        if type(out) is not np.ndarray:  # an int per dim gives a NumPy scalar (a copy) ...
            out = x[(index if type(index) is tuple else (index,)) + (Ellipsis,)]  # ... not so
        if index is None or (type(index) is tuple and None in index):
            out = _unsqueeze_strides(out, index if type(index) is tuple else (index,), x)
        return out

    def backward(self, m, g):
        return (m.index_into_zeros(g, self.shape, self.index, False),)


class AsStridedBackward0(SliceBackward0):
    """A view re-read from its base after an in-place write through it: base[index]."""


class SelectBackward0(SliceBackward0):
    """out = a[i] along a dim."""


class SplitBackward0(SliceBackward0):
    """split(size) / chunk: one node with an output per piece, as torch records it
    (``record_pieces``), whose backward writes the pieces' gradients into one buffer (zeros
    only where a piece got none); one piece a node under forward AD, anomaly mode or a trace."""

    indices = None  # each piece's index (one node for all pieces), else ``index``: one piece

    def backward(self, m, g):
        if self.indices is None:
            return super().backward(m, g)
        if len(self.indices) == 1:  # one output: a bare gradient, not a list of slots
            g = [g]
        if m.is_graph:  # (double backward: each piece's own formula, summed)
            parts = [m.index_into_zeros(gi, self.shape, index, False)
                     for gi, index in zip(g, self.indices) if gi is not None]
            total = parts[0]
            for part in parts[1:]:
                total = total + part
            return (total,)
        given = [gi for gi in g if gi is not None]
        out = (np.empty if len(given) == len(g) else np.zeros)(self.shape, given[0].dtype)
        for gi, index in zip(g, self.indices):
            if gi is not None:
                out[index] = gi
        return (out,)


class SplitWithSizesBackward0(SplitBackward0):
    """split([sizes]) (as SplitBackward0)."""


def record_pieces(cls, a, indices):
    """The pieces ``a[index]`` (views of ``a``), recorded as one node of ``cls`` (a
    SplitBackward0) with an output each: a gradient for ``a`` while recording."""
    x = a._data
    pieces = tuple(Tensor._make(x[index], True) for index in indices)
    node = cls()
    node._saved, node.shape, node.indices = (), x.shape, tuple(indices)
    node._record((_edge(a),), (), outputs=(tuple(p._data.shape for p in pieces),
                                           tuple(p._data.dtype for p in pieces)))
    for i, piece in enumerate(pieces):
        piece._grad_fn, piece._output_nr = node, i
        as_view(piece, a)
    return pieces


class UnbindBackward0(SliceBackward0):
    """one piece of unbind."""


class CatBackward0(Node):
    """out = concatenation along dim;  each input gets its slice of g."""
    result_layout = channels_last_or_contiguous

    def forward(self, *tensors, dim=0):
        arrays = [t._data for t in tensors]
        ref = next((a for a in arrays if a.shape != (0,)), arrays[0])
        self.dim = _dim(ref.ndim, dim)
        for i, a in enumerate(arrays):
            if a.ndim == 0:
                raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                                   "concatenated")
            if a.ndim == 1 and a.shape[0] == 0:  # torch's legacy empty tensor: skipped
                continue
            if a.ndim != ref.ndim:
                raise RuntimeError(f"Tensors must have same number of dimensions: got "
                                   f"{ref.ndim} and {a.ndim}")
            for d in range(ref.ndim):
                if d != self.dim and a.shape[d] != ref.shape[d] and a.size:
                    raise RuntimeError(
                        f"Sizes of tensors must match except in dimension {self.dim}. Expected "
                        f"size {ref.shape[d]} but got size {a.shape[d]} for tensor number {i} "
                        "in the list.")
        self.sizes = [a.shape[self.dim] if a.ndim else 0 for a in arrays]
        dtype = _promoted(arrays)
        return np.concatenate([a for a in arrays if a.size or a.ndim == ref.ndim], self.dim,
                              dtype=dtype)

    def backward(self, m, g):
        out, start = [], 0
        for s in self.sizes:
            index = (slice(None),) * self.dim + (slice(start, start + s),)
            out.append(m.index(g, index))
            start += s
        return tuple(out)


class StackBackward0(Node):
    """out = inputs stacked along a new dim;  each input gets its slice of g."""
    result_layout = channels_last_or_contiguous

    def forward(self, *tensors, dim=0):
        arrays = [t._data for t in tensors]
        self.dim = _dim(arrays[0].ndim + 1, dim)
        dtype = _promoted(arrays)
        if type(arrays[0]) is not np.ndarray:  # (meta placeholders: np.stack knows them)
            _check_equal_shapes(arrays)
            return np.stack(arrays, self.dim, dtype=dtype)
        # np.stack's own steps (each array viewed with the new axis, then one concatenate)
        # without its Python passes over the list; concatenate checks the shapes in C, and
        # torch's message is made only when they differ. Rows (a batch of 1-d samples) are
        # concatenated as they are and seen as (n, length): the C-contiguous array np.stack
        # makes, without a view per row.
        rows = self.dim == 0 and arrays[0].ndim == 1
        try:
            if rows:
                out = np.concatenate(arrays, 0, dtype=dtype)
            else:
                new_axis = (slice(None),) * self.dim + (None,)
                out = _memory_format.stacked(arrays, self.dim, dtype)  # (channels-last)
                if out is None:
                    return np.concatenate([a[new_axis] for a in arrays], self.dim, dtype=dtype)
                return np.concatenate([a[new_axis] for a in arrays], self.dim, out=out)
        except ValueError:
            _check_equal_shapes(arrays)
            raise
        if len(set(map(len, arrays))) != 1:  # (equal total sizes of unequal rows)
            _check_equal_shapes(arrays)
        return out.reshape(len(arrays), arrays[0].shape[0])

    def backward(self, m, g):
        n = g.shape[self.dim]
        return tuple(m.index(g, (slice(None),) * self.dim + (i,)) for i in range(n))


def _check_equal_shapes(arrays):
    """torch's error for stack's tensors of different shapes."""
    for i, a in enumerate(arrays):
        if a.shape != arrays[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(arrays[0].shape)} at entry 0 and {list(a.shape)} at "
                               f"entry {i}")


def _promoted(arrays):
    """torch's result dtype for tensors joined by cat/stack (float beats int beats bool)."""
    first = arrays[0].dtype if arrays else None
    # one dtype: itself (NumPy's built-in dtypes are single instances: ``is`` is the cheap test)
    if first is not None and all(a.dtype is first or a.dtype == first for a in arrays):
        return first
    return _dtype._result_from_operands([(a.dtype, False) for a in arrays])


def as_view(out, a):
    """Mark ``out`` as a view of ``a``: shared version counter, ``_base`` the memory's owner."""
    if isinstance(out, Tensor):
        out._vc = a._vc
        base = a._base
        out._base = a if base is None else base
    return out
