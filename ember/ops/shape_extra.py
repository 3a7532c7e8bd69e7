"""More of torch's shape and arrangement functions, composed from ember's primitives (whose
nodes give the gradients): tile, movedim, broadcast_tensors/shapes, atleast_*d, the *stack and
*split families, tensordot/inner/vdot/chain_matmul, trace, diag_embed/diagflat, the *_scatter
functions, index_put/put, isin, msort, argwhere, unravel_index, renorm."""
import numpy as np

from .._creation import tensor as _tensor
from .._creation import zeros
from .._dtype import from_numpy_dtype
from .._tensor import Size, Tensor
from . import api
from . import complex_ops as _complex_ops
from . import linalg as _linalg
from .aliases import dot
from .composites import hstack, tensor_split, vstack
from .index_ops import index_add
from .indexing import check_put_shape, put_dtype_error, strip_leading_ones
from .inplace import apply_inplace
from .matrix_ops import diag, diagonal
from .shape import _dim, tensor_list
from .sorting import sort


def _dims_tuple(dims):
    return tuple(int(d) for d in dims) if isinstance(dims, (tuple, list, Size)) else (int(dims),)


def tile(input, *dims):
    """input repeated ``dims`` times along each dim (missing leading dims count as 1); the
    counts as one sequence (torch.tile) or several ints (Tensor.tile(2, 3))."""
    dims = _dims_tuple(dims[0] if len(dims) == 1 else dims)
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return api.repeat(input, dims)


def movedim(input, source, destination):
    """A view with the dims at ``source`` moved to ``destination``, the rest in order."""
    src, dst = _dims_tuple(source), _dims_tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} "
                           f"dims) should contain the same number of dims as destination "
                           f"({list(dst)} dims)")
    n = input.ndim
    src, dst = [_dim(n, d) for d in src], [_dim(n, d) for d in dst]
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(dims)})")
    if not n:  # a 0-d tensor takes dim 0 / -1 and stays as it is
        return api.getitem(input, Ellipsis)  # (torch records an alias)
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    return api.permute(input, [o if o is not None else next(rest) for o in order])


moveaxis = movedim


def broadcast_shapes(*shapes):
    """The shape every given shape broadcasts to."""
    for s in shapes:
        if not isinstance(s, (int, tuple, list)) or isinstance(s, bool):
            raise RuntimeError("Input shapes should be of type ints, a tuple of ints, or a list of "
                               f"ints, got {s}")
    sizes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    if any(n < 0 for size in sizes for n in size):
        raise ValueError("Attempting to broadcast a dimension with negative length!")
    try:
        return Size(np.broadcast_shapes(*sizes))
    except ValueError:
        raise RuntimeError("Shape mismatch: objects cannot be broadcast to a single shape."
                           ) from None


def broadcast_tensors(*tensors):
    """Views of the tensors expanded to their common broadcast shape; a tensor of that shape
    already is returned itself, as torch (no ExpandBackward0 node)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t if t.shape == shape else api.expand(t, shape) for t in tensors)


def _atleast(tensors, fix):
    single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    out = tuple(fix(t) for t in tensors)
    return out[0] if single else out


def atleast_1d(*tensors):
    return _atleast(tensors, lambda t: api.reshape(t, (1,)) if t.ndim == 0 else t)


def atleast_2d(*tensors):
    return _atleast(tensors, lambda t: api.reshape(t, (1, -1)) if t.ndim < 2 else t)


def _three(t):
    if t.ndim == 0:
        return api.reshape(t, (1, 1, 1))
    if t.ndim == 1:
        return api.reshape(t, (1, -1, 1))
    return api.unsqueeze(t, -1) if t.ndim == 2 else t


def atleast_3d(*tensors):
    return _atleast(tensors, _three)


def column_stack(tensors):
    """0-d and 1-d tensors become columns, then everything is joined along dim 1."""
    tensors = tensor_list("column_stack", tensors)
    return hstack([api.reshape(t, (-1, 1)) if t.ndim < 2 else t for t in tensors])


def row_stack(tensors):
    """vstack under another name."""
    return vstack(tensor_list("row_stack", tensors))


def dstack(tensors):
    """Join along the third dim (tensors made at least 3-d first)."""
    return api.cat([_three(t) for t in tensor_list("dstack", tensors)], 2)


def _split_along(name, input, sections, dim, least):
    if input.ndim < least:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {least} dimension, "
                           f"but got a tensor with {input.ndim} dimensions!")
    if isinstance(sections, int) and (sections == 0 or input.shape[dim] % sections):
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                           f"size of the dimension {input.shape[dim]} is not divisible by the "
                           f"split_size {sections}!")
    return tensor_split(input, sections, dim)


def hsplit(input, sections):
    return _split_along("hsplit", input, sections, 0 if input.ndim == 1 else 1, 1)


def vsplit(input, sections):
    return _split_along("vsplit", input, sections, 0, 2)


def dsplit(input, sections):
    return _split_along("dsplit", input, sections, 2, 3)


def argwhere(input):
    """The indices of the nonzero elements, one row each."""
    return api.nonzero(input)


def trace(input):
    """Sum of the main diagonal of a matrix."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if input._data.dtype == np.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return api.sum(diagonal(input))


def tensordot(a, b, dims=2, out=None):
    """Sum of products over the last ``dims`` dims of a and the first of b (or the given
    lists of dims), as one matrix product."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = (list(_dims_tuple(d)) for d in dims)
    da, db = [_dim(a.ndim, d) for d in da], [_dim(b.ndim, d) for d in db]
    for i, j in zip(da, db):
        if a.shape[i] != b.shape[j]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[i]} in dim {i} and second has size {b.shape[j]} in "
                               f"dim {j}")
    keep_a = [i for i in range(a.ndim) if i not in da]
    keep_b = [j for j in range(b.ndim) if j not in db]
    def count(t, dims):  # sizes multiplied out, not inferred: a 0 among them leaves -1 open
        return int(np.prod([t.shape[i] for i in dims], dtype=np.int64))
    size = count(a, da)
    left = api.reshape(api.permute(a, keep_a + da), (count(a, keep_a), size))
    right = api.reshape(api.permute(b, db + keep_b), (size, count(b, keep_b)))
    shape = [a.shape[i] for i in keep_a] + [b.shape[j] for j in keep_b]
    result = api.reshape(api.mm(left, right), shape)
    return result if out is None else out.copy_(result)


def inner(input, other, *, out=None):
    """Sum of products over the last dims (a product if either is 0-d)."""
    if input.ndim == 0 or other.ndim == 0:
        result = api.mul(input, other)
    else:
        if input.shape[-1] != other.shape[-1]:
            raise RuntimeError(f"inner() the last dimension must match on both input tensors "
                               f"but got shapes {list(input.shape)} and {list(other.shape)}")
        result = tensordot(input, other, ([-1], [-1]))
    return result if out is None else out.copy_(result)


def vdot(input, other, *, out=None):
    """Dot product of two 1-D tensors, the first conjugated (ember's real vdot was right; its
    complex one did not conjugate)."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D "
                           f"tensors")
    if input.is_complex():  # (a differentiable conjugate, then dot: the node is dot's)
        result = dot(_complex_ops.conj(input), other)
    else:
        dot(input, other) if input.dtype != other.dtype else None  # dot's checks and errors
        result = _linalg.VdotBackward0.apply(input, other)
    return result if out is None else out.copy_(result)


def chain_matmul(*matrices, out=None):
    """The product of 2-D matrices, left to right."""
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    result = matrices[0]
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    for m in matrices[1:]:
        result = api.mm(result, m)
    if len(matrices) == 1:
        result = api.clone(result)
    return result if out is None else out.copy_(result)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose (dim1, dim2) diagonals (shifted by ``offset``) hold input's last dim."""
    n = input.shape[-1] if input.ndim else 1
    m = n + abs(offset)
    out_ndim = input.ndim + 1
    d1, d2 = _dim(out_ndim, dim1), _dim(out_ndim, dim2)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    out = zeros(tuple(input.shape[:-1]) + (m, m), dtype=input.dtype)
    rows = np.arange(n) + max(-offset, 0)
    cols = np.arange(n) + max(offset, 0)
    api.setitem(out, (Ellipsis, _tensor(rows), _tensor(cols)), input)
    return movedim(out, (-2, -1), (d1, d2))


def diagflat(input, offset=0):
    """A matrix with the flattened input on its ``offset`` diagonal."""
    return diag(api.reshape(input, (-1,)), offset)


def _scatter_view(name, input, src, view):
    out = api.clone(input)
    target = view(out)
    if tuple(target.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                           f"= {list(src.shape)}, slice size = {list(target.shape)}")
    target.copy_(src)
    return out


def select_scatter(input, src, dim, index):
    """input with its ``index`` slice along ``dim`` replaced by src."""
    return _scatter_view("select_scatter", input, src, lambda t: api.select(t, dim, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with the slice start:end:step along ``dim`` replaced by src."""
    d = _dim(input.ndim, dim)
    key = (slice(None),) * d + (slice(start, end, step),)
    return _scatter_view("slice_scatter", input, src, lambda t: api.getitem(t, key))


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with its diagonal (offset, dim1, dim2) replaced by src."""
    return _scatter_view("diagonal_scatter", input, src,
                         lambda t: diagonal(t, offset, dim1, dim2))


def _linear_index(shape, indices):
    """Flat positions, in row-major order of ``input[indices]``, of an advanced index given
    as integer index tensors or bool masks for the leading dims."""
    grids, dim = [], 0
    for idx in indices:
        data = np.asarray(idx._data if isinstance(idx, Tensor) else idx)
        if data.dtype == np.uint8:  # torch: a byte tensor is a (deprecated) mask
            data = data.astype(bool)
        if data.dtype == np.bool_:
            _check_mask(data.shape, shape, dim)
            grids.extend(np.nonzero(data))
            dim += data.ndim
            continue
        if data.dtype.kind not in "iu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if data.size and ((data < -shape[dim]).any() or (data >= shape[dim]).any()):
            raise IndexError(f"index {data.max()} is out of bounds for dimension {dim} with "
                             f"size {shape[dim]}")
        grids.append(np.where(data < 0, data + shape[dim], data))
        dim += 1
    flat = np.ravel_multi_index(tuple(np.broadcast_arrays(*grids)), tuple(shape[:len(grids)]))
    rest = int(np.prod(shape[len(grids):], dtype=np.int64))
    return (flat[..., None] * rest + np.arange(rest)).reshape(-1)


def _check_mask(mask, shape, dim):
    for j, size in enumerate(mask):
        if dim + j >= len(shape) or size != shape[dim + j]:
            raise IndexError(f"The shape of the mask {list(mask)} at index {j} does not match "
                             f"the shape of the indexed tensor {list(shape)} at index {dim + j}")


def _index_put_args(indices, values, op="index_put_"):
    """torch's argument types: a tuple or list of index tensors, a tensor of values."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{op}(): argument 'indices' (position 1) must be tuple of Tensors, "
                        f"not {type(indices).__name__}")
    for i, idx in enumerate(indices):
        if not isinstance(idx, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(idx).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"{op}(): argument 'values' (position 2) must be Tensor, not "
                        f"{type(values).__name__}")
    return tuple(indices)


def index_put(input, indices, values, accumulate=False):
    """input with ``input[indices] = values`` (accumulate: values at repeated positions add
    up, as index_put_(..., accumulate=True))."""
    indices = _index_put_args(indices, values)
    if not accumulate:
        out = api.clone(input)
        api.setitem(out, indices, values, masked_fill=True)
        return out
    linear = _linear_index(tuple(input.shape), indices)
    picked = tuple(api.getitem(input.detach(), indices).shape)
    check_put_shape(values._data.shape, picked)
    if values._data.dtype != input._data.dtype:
        raise put_dtype_error(input, values)
    flat_values = api.reshape(api.expand(values.reshape(
        strip_leading_ones(values.shape)), picked), (-1,))
    flat = index_add(api.reshape(input, (-1,)), 0, _tensor(linear), flat_values)
    return api.reshape(flat, tuple(input.shape))


def index_put_(input, indices, values, accumulate=False):
    return apply_inplace(input, index_put, indices, values, accumulate)


def put(input, index, source, accumulate=False):
    """input with input.flatten()[index] = source (accumulate: added)."""
    for name, position, arg in (("index", 1, index), ("source", 2, source)):
        if not isinstance(arg, Tensor):
            raise TypeError(f"put_(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type(arg).__name__}")
    if index._data.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{index.dtype.scalar_name}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {input.dtype.scalar_name} and source.dtype = "
                           f"{source.dtype.scalar_name}")
    flat = api.reshape(input, (-1,))
    idx = api.reshape(index, (-1,))
    src = api.reshape(source, (-1,))
    if idx.numel() != src.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {src.numel()}, index.numel() = "
                           f"{idx.numel()}")
    return api.reshape(index_put(flat, (idx,), src, accumulate), tuple(input.shape))


def put_(input, index, source, accumulate=False):
    return apply_inplace(input, put, index, source, accumulate)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element occurs in test_elements (a bool tensor of elements' shape)."""
    def data(x):
        return x._data if isinstance(x, Tensor) else np.asarray(x)
    arrays = data(elements), data(test_elements)
    for x in arrays:  # torch names the first bool or complex one (Python complex: ComplexDouble)
        if x.dtype.kind in "bc":
            raise RuntimeError("Unsupported input type encountered for isin(): "
                               f"{from_numpy_dtype(x.dtype).scalar_name}")
    return _tensor(np.isin(*arrays, invert=invert))


def msort(input):
    """input sorted along dim 0."""
    return sort(input, 0)[0]


def unravel_index(indices, shape):
    """The coordinates in ``shape`` of flat indices (a tuple of int64 tensors); indices out of
    range wrap around, as torch's do."""
    idx = np.asarray(indices._data if isinstance(indices, Tensor) else indices)
    if idx.dtype.kind not in "iu":
        raise TypeError("expected 'indices' to be integer dtype, but got "
                        f"{indices.dtype if isinstance(indices, Tensor) else idx.dtype}")
    shape = _dims_tuple(shape)
    size = int(np.prod(shape, dtype=np.int64))
    coords = np.unravel_index(np.mod(idx, size) if size else idx, shape)  # wraps, as torch
    return tuple(_tensor(np.asarray(c, np.int64)) for c in coords)


def renorm(input, p, dim, maxnorm):
    """Each slice along ``dim`` whose p-norm exceeds maxnorm scaled down to norm maxnorm."""
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if not maxnorm >= 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} "
                           f"dimensions")
    d = _dim(input.ndim, dim)
    others = [i for i in range(input.ndim) if i != d]
    norms = api.norm(input, p, others, keepdim=True) if others else input.abs()
    over = api.gt(norms, maxnorm)
    scale = api.where(over, api.div(maxnorm, api.add(norms, 1e-7)), 1.0)
    return api.mul(input, scale)
