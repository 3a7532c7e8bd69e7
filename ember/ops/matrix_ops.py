"""Matrix-shaped primitives and their composites: tril/triu, diag/diagonal, addmm/baddbmm, outer,
lerp, clamp_min/clamp_max, roll, repeat_interleave and meshgrid."""
import warnings

import numpy as np

from .. import _dtype
from .._memory_format import channels_last_or_contiguous, contiguous_result
from .._tensor import Size, Tensor
from ..autograd import _opmath
from ..autograd.graph import Node
from . import _bf16_vec, api
from . import autocast as _autocast
from . import shape as S
from .api import mul, reshape
from .elementwise import ClampBackward0, ClampBackward1
from .linalg import _check_matmul


# ----------------------------------------------------------------- triangles
class TrilBackward0(Node):
    """out = a with the elements above diagonal k zeroed;  da = g zeroed the same way."""
    result_layout = contiguous_result

    _np = staticmethod(np.tril)

    def forward(self, a, diagonal=0):
        x = a._data
        if x.ndim < 2:
            raise RuntimeError(f"{type(self).__name__[:4].lower()}: input tensor must have at "
                               "least 2 dimensions")
        self.diagonal = diagonal  # a number, as torch saves: a second backward may run
        return self._np(x, diagonal)

    def backward(self, m, g):
        return (g * self._np(np.ones(g.shape[-2:], dtype=bool), self.diagonal),)


class TriuBackward0(TrilBackward0):
    """out = a with the elements below diagonal k zeroed."""

    _np = staticmethod(np.triu)


def tril(input, diagonal=0):
    """The lower triangle (on and below ``diagonal``) of the last two dims; the rest zero."""
    return TrilBackward0.apply(input, diagonal=diagonal)


def triu(input, diagonal=0):
    """The upper triangle (on and above ``diagonal``) of the last two dims; the rest zero."""
    return TriuBackward0.apply(input, diagonal=diagonal)


# ----------------------------------------------------------------- diagonals
def _diagonal_index(shape, offset, d1, d2):
    """Integer index arrays picking diagonal ``offset`` of dims d1, d2: the result has the other
    dims in order, then the diagonal (numpy's and torch's layout)."""
    rows = np.arange(max(0, min(shape[d1] + min(offset, 0), shape[d2] - max(offset, 0))))
    others = [d for d in range(len(shape)) if d not in (d1, d2)]
    ndim = len(others) + 1
    index = [None] * len(shape)
    for p, d in enumerate(others):
        index[d] = np.arange(shape[d]).reshape((-1,) + (1,) * (ndim - 1 - p))
    index[d1] = rows - min(offset, 0)
    index[d2] = rows + max(offset, 0)
    return tuple(index)


class DiagonalBackward0(Node):
    """out = a view of diagonal ``offset`` of dims d1, d2;  da = zeros with g on that diagonal."""

    def forward(self, a, offset=0, dim1=0, dim2=1):
        x = a._data
        d1, d2 = S._dim(x.ndim, dim1), S._dim(x.ndim, dim2)
        if d1 == d2:
            raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        self.shape, self.where = x.shape, (offset, d1, d2)  # plain values, as torch saves
        y = np.moveaxis(x, (d1, d2), (-2, -1))
        y = y[..., :, offset:] if offset >= 0 else y[..., -offset:, :]
        n = max(0, min(y.shape[-2], y.shape[-1]))
        return np.lib.stride_tricks.as_strided(  # a writable view, as torch's diagonal
            y, y.shape[:-2] + (n,), y.strides[:-2] + (y.strides[-2] + y.strides[-1],))

    def backward(self, m, g):
        index = _diagonal_index(self.shape, *self.where)
        return (m.index_into_zeros(g, self.shape, index, False),)


class DiagonalBackward0_copy(DiagonalBackward0):  # noqa: N801  (torch's name for diag(matrix))
    """out = a copy of diagonal k of a matrix (torch.diag of a 2-D tensor)."""

    def forward(self, a, offset=0, dim1=0, dim2=1):
        return super().forward(a, offset, dim1, dim2).copy()


class DiagEmbedBackward0(Node):
    """out = a square matrix with vector a on diagonal k;  da = that diagonal of g."""

    def forward(self, a, diagonal=0):
        x = a._data
        n = x.shape[0] + abs(diagonal)
        out = np.zeros((n, n), dtype=x.dtype)
        self.diagonal = diagonal  # a number, as torch saves: a second backward may run
        out[_diagonal_index(out.shape, diagonal, 0, 1)] = x
        return out

    def backward(self, m, g):
        return (m.index(g, _diagonal_index(g.shape, self.diagonal, 0, 1)),)


def diagonal(input, offset=0, dim1=0, dim2=1):
    """A view of the diagonal ``offset`` of dims dim1 and dim2, as the last dim."""
    return S.as_view(DiagonalBackward0.apply(input, offset=offset, dim1=dim1, dim2=dim2), input)


def diag(input, diagonal=0):
    """Vector -> square matrix with it on diagonal k; matrix -> its diagonal k (a copy)."""
    ndim = input._data.ndim
    if ndim == 1:
        return DiagEmbedBackward0.apply(input, diagonal=diagonal)
    if ndim == 2:
        return DiagonalBackward0_copy.apply(input, offset=diagonal)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")


# ----------------------------------------------------------------- products
class AddmmBackward0(Node):
    """out = beta * input + alpha * (mat1 @ mat2);  dinput = beta * g,
    dmat1 = alpha * g @ mat2^T, dmat2 = alpha * mat1^T @ g."""

    @staticmethod
    def product(x, y):
        """mat1 @ mat2 (the product each subclass forms: addmv's, addr's, addbmm's)."""
        _check_matmul(x, y, "addmm")
        return np.matmul(x, y)

    def forward(self, input, mat1, mat2, beta=1, alpha=1):
        self.beta, self.alpha = beta, alpha
        self.save(mat1, mat2)
        product = self.product(mat1._data, mat2._data)
        if alpha != 1:
            product = product * np.asarray(alpha, product.dtype)
        if beta == 0:  # torch ignores input then (its NaN and inf do not propagate)
            return np.broadcast_to(product, np.broadcast_shapes(product.shape, input.shape)).copy()
        bias = input._data if beta == 1 else input._data * np.asarray(beta, product.dtype)
        return product + bias

    def backward(self, m, g, mat1, mat2):
        need = [f is not None for f, _ in self.next_functions]
        gin = (g if self.beta == 1 else g * self.beta) if need[0] else None
        ga = m.matmul(g, m.mT(mat2)) if need[1] else None
        gb = m.matmul(m.mT(mat1), g) if need[2] else None
        if self.alpha != 1:
            ga = ga * self.alpha if ga is not None else None
            gb = gb * self.alpha if gb is not None else None
        return gin, ga, gb


class BaddbmmBackward0(AddmmBackward0):
    """out = beta * input + alpha * (batch1 @ batch2), batched over the first dim."""


def _need_ndim(tensors, names, ndim):
    for t, name in zip(tensors, names):
        if t._data.ndim != ndim:
            raise RuntimeError(f"{name} must be a {'matrix' if ndim == 2 else '3D tensor'}")


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2)."""
    _need_ndim((mat1, mat2), ("mat1", "mat2"), 2)
    input, mat1, mat2 = _autocast.lower(input, mat1, mat2)
    return AddmmBackward0.apply(input, mat1, mat2, beta=beta, alpha=alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * bmm(batch1, batch2)."""
    _need_ndim((batch1, batch2), ("batch1", "batch2"), 3)
    input, batch1, batch2 = _autocast.lower(input, batch1, batch2)
    return BaddbmmBackward0.apply(input, batch1, batch2, beta=beta, alpha=alpha)


def outer(input, vec2):
    """Outer product of two vectors (torch records it as a broadcast multiply)."""
    for t, name in ((input, "self"), (vec2, "vec2")):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got "
                               f"{t._data.ndim}-D")
    return mul(reshape(input, (-1, 1)), vec2)


# ----------------------------------------------------------------- interpolation and bounds
def _lerp(start, end, weight, source=None):
    """torch's two-sided formula: exact at weight 0 and 1. ``source``: the bfloat16 or float16
    array float32 ``start`` was widened from; where torch's vectorized loop reaches it, the
    kernel takes one fused multiply-add, (w or w - 1) * diff + (start or end), rounded once."""
    diff = end - start
    if not np.ndim(weight) and source is None:  # a number: one side
        return start + weight * diff if abs(weight) < 0.5 else end - diff * (1 - weight)
    small = np.abs(weight) < 0.5
    out = np.where(small, start + weight * diff, end - diff * (1 - weight))
    if source is not None:
        lanes = _bf16_vec.vector_lanes(source, any_order=False)
        if lanes.any():
            coeff = np.where(small, weight, weight - np.float32(1)).astype(np.float64)
            fused = (coeff * diff + np.where(small, start, end)).astype(np.float32)
            out = np.where(lanes, fused, out)
    return out


class LerpBackward0(Node):
    """out = start + w * (end - start), scalar w;  dstart = g * (1 - w), dend = g * w."""

    def forward(self, start, end, weight):
        self.weight = weight
        x = start._data
        return _lerp(x, end._data, np.asarray(weight, x.dtype),
                     _opmath.source_array(start)).astype(x.dtype, copy=False)

    def backward(self, m, g):
        return g * (1 - self.weight), g * self.weight


class LerpBackward1(Node):
    """out = start + w * (end - start), tensor w;  dw = g * (end - start) as well."""

    def forward(self, start, end, weight):
        self.save(start, end, weight)
        x, w = start._data, weight._data
        # a 0-d weight of another dtype takes part in the type promotion as a 0-d operand
        dt = _dtype._result_from_operands([(x.dtype, x.ndim == 0), (w.dtype, w.ndim == 0)])
        return _lerp(x.astype(dt, copy=False), end._data.astype(dt, copy=False),
                     w.astype(dt, copy=False))

    def backward(self, m, g, start, end, weight):
        return g * m.one_minus(weight), g * weight, g * (end - start)


def lerp(input, end, weight):
    """input + weight * (end - input), weight a number or a tensor (broadcasting)."""
    _check_lerp(input, end, weight)
    if isinstance(weight, Tensor):
        return LerpBackward1.apply(input, end, weight)
    return LerpBackward0.apply(input, end, weight)


def _check_lerp(input, end, weight):
    """torch's checks: end (and a weight tensor with dims) of input's dtype, a floating or
    complex input, a number weight that the dtype holds."""
    if not isinstance(end, Tensor):
        raise TypeError(f"lerp() received an invalid combination of arguments - got (Tensor, "
                        f"{type(end).__name__}, {type(weight).__name__}), but expected one of:\n"
                        f" * (Tensor input, Tensor end, Tensor weight, *, Tensor out = None)\n"
                        f" * (Tensor input, Tensor end, Number weight, *, Tensor out = None)\n")
    weighted = isinstance(weight, Tensor)
    for name, other in (("end", end), ("weight", weight if weighted and weight.ndim else end)):
        if other.dtype != input.dtype:
            raise RuntimeError(f"expected dtype {input.dtype.c_name} for `{name}` but got dtype "
                               f"{other.dtype.c_name}")
    if input._data.dtype.kind not in "fcV":
        kernel = "lerp_kernel_tensor" if weighted else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{input.dtype.scalar_name}'")
    if not weighted:
        _dtype.scalar_as(weight, input._data.dtype)  # a complex weight for a real input


class ClampMinBackward0(ClampBackward1):
    """out = max(a, min) for a number min;  da = g where a >= min."""

    def forward(self, a, min):
        return super().forward(a, min=min)


class ClampMaxBackward0(ClampBackward1):
    """out = min(a, max) for a number max;  da = g where a <= max."""

    def forward(self, a, max):
        return super().forward(a, max=max)


class ClampMinBackward1(ClampBackward0):
    """out = max(a, min) for a tensor min;  dmin = g where a < min."""

    def forward(self, a, min):
        return super().forward(a, min, None)

    def backward(self, m, g, a, lo, hi):
        return super().backward(m, g, a, lo, hi)[:2]


class ClampMaxBackward1(ClampBackward0):
    """out = min(a, max) for a tensor max;  dmax = g where a > max."""

    def forward(self, a, max):
        return super().forward(a, None, max)

    def backward(self, m, g, a, lo, hi):
        grads = super().backward(m, g, a, lo, hi)
        return grads[0], grads[2]


def clamp_min(input, min):
    """max(input, min), element-wise."""
    api.arithmetic._refuse_complex_clamp(input)
    cls = ClampMinBackward1 if isinstance(min, Tensor) else ClampMinBackward0
    return cls.apply(input, min)


def clamp_max(input, max):
    """min(input, max), element-wise."""
    api.arithmetic._refuse_complex_clamp(input)
    cls = ClampMaxBackward1 if isinstance(max, Tensor) else ClampMaxBackward0
    return cls.apply(input, max)


# ----------------------------------------------------------------- rearrangements
class RollBackward0(Node):
    """out = a shifted cyclically along dims (flattened when dims is None);  da = g rolled back."""
    result_layout = channels_last_or_contiguous

    def forward(self, a, shifts, dims=None):
        x = a._data
        if not isinstance(shifts, (int, tuple, list, Size)) or isinstance(shifts, bool):
            raise TypeError(f"roll(): argument 'shifts' (position 2) must be tuple of ints, not "
                            f"{type(shifts).__name__}")
        shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
        if not shifts:
            raise RuntimeError("`shifts` required")
        dims = dims if dims is None or not isinstance(dims, int) else (dims,)
        if dims is not None and x.ndim == 0 and len(dims):
            raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
        if dims is not None and len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               f"dims:{len(dims)}")
        if dims is None and len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        self.shifts = shifts
        self.dims = None if dims is None else tuple(S._dim(x.ndim, d) for d in dims)
        if self.dims is None:
            return np.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
        return np.roll(x, shifts, axis=self.dims)

    def backward(self, m, g):
        back = tuple(-s for s in self.shifts)
        if m.is_graph:
            return (RollBackward0.apply(g, shifts=back, dims=self.dims),)
        if self.dims is None:
            return (np.roll(g.reshape(-1), back[0]).reshape(g.shape),)
        return (np.roll(g, back, axis=self.dims),)


def roll(input, shifts, dims=None):
    """Shift elements cyclically along dims (over the flattened tensor when dims is None)."""
    if dims is not None and input._data.ndim == 0:
        for d in (dims,) if isinstance(dims, int) else dims:
            S.dim_of_0d(0, d)
    return RollBackward0.apply(input, shifts=shifts, dims=dims)


def _check_repeats(repeats):
    """torch takes an int or an int32/int64 tensor of counts (a float was truncated)."""
    if isinstance(repeats, Tensor):
        if repeats._data.dtype not in (np.int64, np.int32):
            name = _dtype.from_numpy_dtype(repeats._data.dtype).scalar_name
            raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for \'{name}\'')
    elif isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)):
        raise TypeError(f"repeat_interleave() received an invalid combination of arguments - got "
                        f"(Tensor, {type(repeats).__name__}), but expected one of:\n"
                        " * (Tensor input, Tensor repeats, int dim = None, *, int output_size = "
                        "None)\n * (Tensor repeats, *, int output_size = None)\n"
                        " * (Tensor input, int repeats, int dim = None, *, int output_size = "
                        "None)\n")


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element ``repeats`` times (an int, or one count per element) along dim."""
    _check_repeats(input if repeats is None else repeats)
    if repeats is None:  # repeat_interleave(counts): indices repeated by their counts
        counts = input._data
        return Tensor._make(np.repeat(np.arange(counts.shape[0]), counts).astype(np.int64))
    if dim is None:
        input, dim = api.flatten(input), 0
    d = S._dim(input._data.ndim, dim)
    if isinstance(repeats, Tensor) and repeats._data.ndim:
        counts, size = repeats._data, input._data.shape[d]
        if counts.shape[0] != size and counts.shape[0] != 1:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {counts.shape[0]} and input.size({d}) = "
                               f"{size}")
        index = np.repeat(np.arange(size), np.broadcast_to(counts, (size,)))
        return api.index_select(input, d, Tensor._make(index.astype(np.int64)))
    n = int(repeats)
    shape = input._data.shape
    wide = api.expand(api.unsqueeze(input, d + 1), shape[:d + 1] + (n,) + shape[d + 1:])
    return api.reshape(api.contiguous(wide), shape[:d] + (shape[d] * n,) + shape[d + 1:])


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors ('ij': matrix indexing, 'xy': Cartesian)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t!r}")
    order = list(range(len(tensors)))
    if indexing == "xy" and len(order) > 1:
        order[0], order[1] = 1, 0
    shape = [0] * len(tensors)
    for i, t in enumerate(tensors):
        shape[order[i]] = t._data.size
    out = []
    for i, t in enumerate(tensors):
        view = [1] * len(tensors)
        view[order[i]] = -1
        out.append(api.expand(api.reshape(t, view), shape))
    return tuple(out)
