"""Index-driven ops real scripts use (index_add, index_copy, index_fill, take, take_along_dim,
Tensor.unfold) and the in-place transposes t_ and transpose_, which change a tensor's strides,
not its memory."""
import numpy as np

from .._dtype import from_numpy_dtype
from .._tensor import Tensor
from ..autograd import _opmath, forward_ad, grad_mode
from ..autograd import graph as _graph
from ..autograd.graph import Node
from . import api
from . import shape as S
from .elementwise import MaskedFillBackward0
from .indexing import _check_bounds
from .inplace import _alias, apply_inplace, check_inplace
from .shape import _dim


def _name(array):
    return from_numpy_dtype(array.dtype).scalar_name


# ------------------------------------------------------------------ index_add
def _index_add_index(a, index, source, dim):
    """The index vector of index_add, checked as torch checks it (its messages name index_add_
    for the out-of-place form too)."""
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype != np.int64 and idx.dtype != np.int32:
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{_name(idx)}")
    if idx.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: "
                         f"{idx.ndim} with type: {_name(idx)} and size: {list(idx.shape)}")
    x, s = a._data, source._data
    if x.dtype != s.dtype:
        raise RuntimeError(f"index_add_(): self ({_name(x)}) and source ({_name(s)}) must have "
                           "the same scalar type")
    src_len = s.shape[dim] if s.ndim else 1
    if idx.size != src_len:
        raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to "
                           f"source.size(dim): ({src_len}), for dim: {dim}")
    if x.ndim and s.ndim and (s.ndim != x.ndim or any(
            n != m for d, (n, m) in enumerate(zip(x.shape, s.shape)) if d != dim)):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(x.shape)} "
                           f"source.shape = {list(s.shape)}")
    _check_bounds(idx, x.shape[dim] if x.ndim else 1, dim)
    return idx.reshape(-1)


class IndexAddBackward0(Node):
    """out = a with alpha * source added at index along dim (repeats accumulate);
    da = g, dsource = alpha * g gathered at index along dim."""

    def forward(self, a, source, dim, index, alpha=1):
        x = a._data
        self.dim = _dim(max(x.ndim, 1), dim)
        idx = _index_add_index(a, index, source, self.dim)
        self.alpha = alpha
        self.index = (slice(None),) * self.dim + (idx,) if x.ndim else ()
        out = x.copy()
        s = source._data if alpha == 1 else source._data * np.asarray(alpha, x.dtype)
        np.add.at(out, self.index, s.reshape(x.shape[:self.dim] + idx.shape +
                                             x.shape[self.dim + 1:]))
        self.source_shape = source._data.shape
        return out

    def backward(self, m, g):
        gs = None
        if self.next_functions[1][0] is not None:
            gs = _source_grad(self, m, g)
            if self.alpha != 1:
                gs = gs * self.alpha
        return g, gs


def _source_grad(node, m, g):
    """The gradient of the source of index_add and index_copy: g read at the index."""
    return m.reshape(m.index(g, node.index), node.source_shape)


def index_add(input, dim, index, source, *, alpha=1):
    """input with alpha * source added at ``index`` along ``dim`` (repeated indices add up)."""
    if input._data.ndim == 0:  # a scalar's dim 0 (or -1): as that of one element
        _dim(0, dim)
        if isinstance(source, Tensor) and source._data.ndim:
            raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                               f"specified dimension. Got self.shape = [] source.shape = "
                               f"{list(source.shape)}")
        out = IndexAddBackward0.apply(api.reshape(input, (1,)), api.reshape(source, (1,)), dim=0,
                                      index=api.reshape(index, (-1,)), alpha=alpha)
        return api.reshape(out, ())
    return IndexAddBackward0.apply(input, source, dim=dim, index=index, alpha=alpha)


def index_add_(input, dim, index, source, *, alpha=1):
    """In-place index_add."""
    return apply_inplace(input, index_add, dim, index, source, alpha=alpha)


# ------------------------------------------------------------------ index_copy, index_fill
def _index_copy_index(a, index, source, dim):
    """The index vector of index_copy, checked in torch's order with torch's messages."""
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{_name(idx)}")
    if idx.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
    x, s = a._data, source._data
    if x.ndim and s.ndim and x.ndim != s.ndim:
        raise IndexError("index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({s.ndim}), "
                         f"destination dimensionality ({x.ndim})")
    x_slice, s_slice = x.shape[:dim] + x.shape[dim + 1:], s.shape[:dim] + s.shape[dim + 1:]
    if x_slice != s_slice:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {' '.join(map(str, x_slice))} at "
                           f"dimension {dim} and source slice shape: "
                           f"{' '.join(map(str, s_slice))} at dimension 0.")
    src_len = s.shape[dim] if s.ndim else 1
    if idx.size != src_len:
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to "
                         f"source.size(dim) ({src_len})")
    if _opmath.given_dtype(a) != _opmath.given_dtype(source):
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {_name(np.empty(0, _opmath.given_dtype(a)))} and "
                           f"(source) {_name(np.empty(0, _opmath.given_dtype(source)))}")
    size = x.shape[dim] if x.ndim else 1
    bad = idx[(idx < 0) | (idx >= size)]
    if bad.size:
        raise IndexError(f"index_copy_(): index {bad.flat[0]} is out of bounds for dimension "
                         f"{dim} with size {size}")
    return idx.reshape(-1)


def _along(x, dim, idx):
    """A bool mask broadcastable against ``x``: True at ``idx`` (negative counts from the end)
    along ``dim``."""
    if not x.ndim:
        return np.asarray(idx.size > 0)
    mask = np.zeros(x.shape[dim], dtype=bool)
    mask[idx] = True
    return mask.reshape((1,) * dim + (-1,) + (1,) * (x.ndim - dim - 1))


class IndexCopyBackward0(Node):
    """out = a with the slices at index along dim replaced by source's (of repeated indices the
    last wins, as torch's CPU kernel);  da = g zeroed there, dsource = g read at index."""

    def forward(self, a, source, dim, index):
        x = a._data
        self.dim = _dim(max(x.ndim, 1), dim)
        idx = _index_copy_index(a, index, source, self.dim)
        self.index = (slice(None),) * self.dim + (idx,) if x.ndim else ()
        self.mask = _along(x, self.dim, idx)
        self.source_shape = source._data.shape
        if not x.ndim:
            return source._data.reshape(()).copy()
        out = x.copy()
        out[self.index] = source._data.reshape(x.shape[:self.dim] + idx.shape +
                                               x.shape[self.dim + 1:])
        return out

    def backward(self, m, g):
        zero = m.zeros_like(g) if m.is_graph else np.zeros((), g.dtype)
        gs = _source_grad(self, m, g) if self.next_functions[1][0] is not None else None
        return m.where(self.mask, zero, g), gs


def index_copy(input, dim, index, source):
    """input with its slices at ``index`` along ``dim`` replaced by source's."""
    return IndexCopyBackward0.apply(input, source, dim=dim, index=index)


def index_copy_(input, dim, index, source):
    """In-place index_copy."""
    return apply_inplace(input, index_copy, dim, index, source)


class IndexFillBackward0(MaskedFillBackward0):
    """index_fill with a scalar: masked_fill with the mask of the index along dim."""


class IndexFillBackward1(MaskedFillBackward0):
    """index_fill with a 0-dim tensor value;  dvalue = sum of g over the filled slices (each
    once, however often the index repeats it)."""


def _index_fill_mask(input, dim, index, value):
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    x = input._data
    d = _dim(x.ndim, dim)
    if idx.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if idx.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s).")
    size = x.shape[d] if x.ndim else 1
    bad = idx[(idx < -size) | (idx >= size)]
    if bad.size:
        raise IndexError(f"index {bad.flat[0]} is out of bounds for dimension {d} with size "
                         f"{size}")
    return _along(x, d, idx.reshape(-1))


def index_fill(input, dim, index, value):
    """input with the slices at ``index`` along ``dim`` set to ``value`` (a scalar or 0-dim
    tensor)."""
    mask = _index_fill_mask(input, dim, index, value)
    node = IndexFillBackward1 if isinstance(value, Tensor) else IndexFillBackward0
    return node.apply(input, Tensor._make(mask), value)


def index_fill_(input, dim, index, value):
    """In-place index_fill."""
    return apply_inplace(input, index_fill, dim, index, value)


# ------------------------------------------------------------------ take
class TakeBackward0(Node):
    """out = a.flatten()[index] (negative indices count from the end);  da = g summed back."""

    def forward(self, a, index):
        idx = index._data if isinstance(index, Tensor) else np.asarray(index)
        if idx.dtype != np.int64:
            raise RuntimeError(f"take(): Expected a long tensor for index, but got {_name(idx)}")
        x = a._data
        n = x.size
        bad = idx[(idx < -n) | (idx >= n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {bad.flat[0]} on a tensor of "
                             f"{n} elements.")
        self.shape = x.shape
        self.index = np.unravel_index(np.where(idx < 0, idx + n, idx), x.shape) if x.ndim \
            else ()
        return x[self.index] if x.ndim else np.broadcast_to(x, idx.shape).copy()

    def backward(self, m, g):
        if not self.shape:
            return (m.sum(g, None),)
        return (m.index_into_zeros(g, self.shape, self.index, True),)


def take(input, index):
    """The elements of input read as a flat (row-major) tensor at ``index``."""
    return TakeBackward0.apply(input, index=index)


def take_along_dim(input, indices, dim=None):
    """gather along ``dim`` with input and indices broadcast against each other (dim=None:
    both flattened)."""
    if dim is None:
        return api.gather(api.reshape(input, (-1,)), 0, api.reshape(indices, (-1,)))
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.ndim} dimensions for input, "
                           f"and {indices.ndim} dimensions for indices")
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_name(indices._data)}")
    d = S.dim_of_0d(input.ndim, _dim(input.ndim, dim))  # torch names it wrapped
    shape_in, shape_idx = list(input.shape), list(indices.shape)
    shape_in[d] = shape_idx[d] = 1
    mismatch = _graph.broadcast_message(shape_in, shape_idx)
    if mismatch:
        raise RuntimeError(mismatch)
    common = np.broadcast_shapes(tuple(shape_in), tuple(shape_idx))
    target_in = common[:d] + (input.shape[d],) + common[d + 1:]
    target_idx = common[:d] + (indices.shape[d],) + common[d + 1:]
    if tuple(input.shape) != target_in:
        input = api.expand(input, target_in)
    if tuple(indices.shape) != target_idx:
        indices = api.expand(indices, target_idx)
    return api.gather(input, d, indices)


# ------------------------------------------------------------------ Tensor.unfold
class UnfoldBackward0(Node):
    """out = the windows of ``size`` every ``step`` along a dim, as a new last dim (a strided
    view);  da = each window's gradient summed back where it was read."""

    def forward(self, a, dimension, size, step):
        x = a._data
        d = _dim(x.ndim, dimension)
        length = x.shape[d] if x.ndim else 1
        if size > length:
            raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size "
                               f"is {size}")
        if step <= 0:
            raise RuntimeError(f"step is {step} but must be > 0")
        n = (length - size) // step + 1
        self.shape, self.ndim, self.dim = x.shape, x.ndim, d
        self.positions = (np.arange(n)[:, None] * step + np.arange(size)).astype(np.intp)
        if not x.ndim:
            return np.broadcast_to(x, (size,)).copy()
        shape = x.shape[:d] + (n,) + x.shape[d + 1:] + (size,)
        strides = x.strides[:d] + (x.strides[d] * step,) + x.strides[d + 1:] + (x.strides[d],)
        return np.lib.stride_tricks.as_strided(x, shape, strides)

    def backward(self, m, g):
        if not self.ndim:
            return (m.sum(g, None),)
        d, n = self.dim, self.ndim
        order = list(range(d)) + [d, n] + list(range(d + 1, n))  # the window dims together
        index = (slice(None),) * d + (self.positions,)
        return (m.index_into_zeros(m.permute(g, order), self.shape, index, True),)


def unfold(input, dimension, size, step):
    """Tensor.unfold: windows of ``size`` every ``step`` along ``dimension`` (a view)."""
    return S.as_view(UnfoldBackward0.apply(input, dimension=dimension, size=size, step=step),
                     input)


# ------------------------------------------------------------------ t_, transpose_
class TBackward1(S.TBackward0):
    """self.t_(): the in-place transpose (torch's node name for it)."""


class TransposeBackward1(S.TransposeBackward0):
    """self.transpose_(dim0, dim1), in place."""


def _swap_in_place(self, node_class, dim0, dim1):
    """Swap two dims of ``self`` in place: its strides change, its memory stays."""
    n = self._data.ndim
    d0, d1 = _dim(n, dim0), _dim(n, dim1)  # (checked before any change)
    return view_in_place(self, lambda t: node_class.apply(t, dim0=d0, dim1=d1))


def view_in_place(self, view):
    """Make ``self`` the tensor ``view(self)`` in place (t_, transpose_, squeeze_, unsqueeze_):
    its shape and strides change, its memory stays; its history gains the view's node."""
    recording = grad_mode._state.enabled and self._requires_grad
    if recording:
        check_inplace(self)
    grad_mode.check_inplace(self._vc)
    observing = _graph._observer is not None  # a trace (onnx export) sees the view as an op
    if recording or observing:
        alias = _alias(self)
        if observing:
            _graph.observe_untracked("inplace", (self,), alias)
        viewed = view(alias)
        if recording:
            self._grad_fn, self._output_nr = viewed._grad_fn, 0
    else:
        viewed = view(Tensor._make(self._data))
    self._data = viewed._data
    self._vc[0] += 1
    if observing:
        _graph.observe_untracked("inplace", (viewed,), self)
    if _graph._dual is not None and forward_ad.tangent_of(self) is not None:  # forward AD:
        forward_ad.set_tangent(self, view(forward_ad.tangent_of(self)))  # the tangent viewed too
    return self


def t_(self):
    """Transpose a <=2-D tensor in place."""
    if self._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self._data.ndim}D")
    return _swap_in_place(self, TBackward1, 0, -1)


def transpose_(self, dim0, dim1):
    """Swap dims dim0 and dim1 in place."""
    return _swap_in_place(self, TransposeBackward1, dim0, dim1)
