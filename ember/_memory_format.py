"""Memory formats (torch.contiguous_format, channels_last, ...): how a tensor's elements lie in
memory. channels_last keeps a 4-d (N, C, H, W) tensor's channels innermost (NHWC in memory),
channels_last_3d a 5-d one's; the shape and values are unchanged, only stride() differs."""
import numpy as np


class memory_format:
    """One of torch's memory formats (compared by identity)."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"{__name__.split('.')[0]}.{self._name}"


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

# the dimensions from outermost to innermost in memory, for the channels-last formats
_ORDERS = {channels_last: (4, (0, 2, 3, 1)), channels_last_3d: (5, (0, 2, 3, 4, 1))}


def check_rank(ndim, fmt):
    """torch's RuntimeError when a channels-last format meets a tensor of another rank."""
    if fmt in _ORDERS and ndim != _ORDERS[fmt][0]:
        raise RuntimeError(f"required rank {_ORDERS[fmt][0]} tensor to use {fmt._name} format")


def relayout(array, fmt):
    """A copy of ``array`` laid out in ``fmt`` (preserve_format: see preserved_order)."""
    if fmt in _ORDERS:
        order = _ORDERS[fmt][1]
        return np.ascontiguousarray(array.transpose(order)).transpose(np.argsort(order))
    return array.copy(order=preserved_order(array) if fmt is preserve_format else "C")


def preserved_order(array):
    """NumPy's order for a copy of ``array`` in torch's preserve_format: 'K' (its own strides)
    when it is dense and non-overlapping, else 'C' (contiguous: an expanded tensor's copy, a
    slice's). NumPy's 'K' alone would give an expanded array's copy a permuted layout."""
    return "K" if array.flags.c_contiguous or is_dense(array) else "C"


def is_dense(array, flipped=True):
    """Non-overlapping and dense, as torch judges it: a permutation of a contiguous layout
    (``flipped``: a negative stride counts as its absolute value)."""
    expected = array.itemsize
    strides = map(abs, array.strides) if flipped else array.strides
    for stride, size in sorted(zip(strides, array.shape)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def contiguous_result(data, inputs=()):
    """Node.result_layout of the ops whose result torch makes contiguous whatever the inputs'
    layout (reductions, softmax, scans, gather, index_select, ...; also called by the ops
    without a node), where NumPy's follow the inputs' memory order. Its size-1 dims get a
    contiguous tensor's strides too (a keepdim reduction of a non-contiguous input has the
    input's there in NumPy: is_contiguous either way, but stride() would differ from torch's)."""
    if not data.flags.c_contiguous:
        return np.ascontiguousarray(data)
    if 1 in data.shape and data.ndim > 1:  # (a contiguous input without size-1 dims gives
        # them already: repaired, a view, only otherwise)
        source = getattr(inputs[0], "_data", None) if inputs else None
        if source is None or not source.flags.c_contiguous or 1 in source.shape:
            return data.reshape(-1).reshape(data.shape)
    return data


def channels_last_or_contiguous(data, inputs):
    """Node.result_layout of the ops that keep a channels-last input's layout and otherwise
    make a contiguous result (cat, stack, roll, batch_norm): ``data`` as it is when every
    tensor input of rank 2 or more is channels-last (NumPy's order of such inputs is
    torch's; stack makes its own, see stacked; batch norm's per-channel weight, bias and
    running statistics do not count), else contiguous."""
    if data.flags.c_contiguous:
        return data
    arrays = [t._data for t in inputs if hasattr(t, "_data") and t._data.ndim > 1]
    if arrays and all(suggested(a) is not None for a in arrays):
        return data
    return np.ascontiguousarray(data)


def stacked(arrays, dim, dtype):
    """An empty array for ``stack(arrays, dim)`` of channels-last arrays, laid out as torch's:
    each array's layout with the new dim just outside ``dim`` in memory (stacked last:
    contiguous); None when they are not all channels-last."""
    fmt = suggested(arrays[0])
    if fmt is None or any(suggested(a) is not fmt for a in arrays):
        return None
    shape = arrays[0].shape[:dim] + (len(arrays),) + arrays[0].shape[dim:]
    if dim == arrays[0].ndim:
        return np.empty(shape, dtype)
    order = [d + (d >= dim) for d in _ORDERS[fmt][1]]  # (the arrays' dims, as the output's)
    order.insert(order.index(dim + 1), dim)
    return np.empty([shape[d] for d in order], dtype).transpose(np.argsort(order))


def is_laid_out(array, fmt):
    """True when ``array`` is dense in ``fmt`` (size-1 dimensions may have any stride)."""
    if fmt not in _ORDERS:
        return array.flags.c_contiguous
    if array.ndim != _ORDERS[fmt][0]:
        return False
    expected = array.itemsize
    for d in reversed(_ORDERS[fmt][1]):
        if array.shape[d] != 1:
            if array.strides[d] != expected:
                return False
            expected *= array.shape[d]
    return True


def lay_out(array, fmt, source=None):
    """``array`` in ``fmt``; for preserve_format (or None), in ``source``'s layout when that
    is another dense one (how torch's *_like factories keep a channels-last input's strides)."""
    if fmt in _ORDERS:
        return relayout(array, fmt)
    if fmt in (None, preserve_format) and source is not None and type(source) is np.ndarray \
            and not source.flags.c_contiguous and source.shape == array.shape \
            and preserved_order(source) == "K":
        out = np.empty_like(source, dtype=array.dtype)
        out[...] = array
        return out
    return array


def suggested(*arrays):
    """The channels-last format one of ``arrays`` is laid out in (not merely also C-ordered), else
    None: what a convolution's output follows, as torch's ("channels last dominates")."""
    for array in arrays:
        if type(array) is np.ndarray and not array.flags.c_contiguous:
            for fmt in _ORDERS:
                if is_laid_out(array, fmt):
                    return fmt
    return None


def follow(out, *sources):
    """``out`` laid out channels-last when a source is (a layer's output keeps its input's
    layout, as torch's conv, pooling and pointwise kernels)."""
    fmt = suggested(*sources)
    if fmt is None or type(out) is not np.ndarray or out.ndim != sources[0].ndim:
        return out
    return relayout(out, fmt)


def follow_or_contiguous(out, source):
    """``out`` channels-last when ``source`` is laid out so, else C-contiguous (torch's
    resampling kernels make their results, and gradients, in the suggested memory format)."""
    fmt = suggested(source)
    return np.ascontiguousarray(out) if fmt is None else relayout(out, fmt)  # (no copy when
    # it is laid out so: the strides of its size-1 dims are then torch's)


def in_memory_order(fn, array):
    """``fn(array)`` for an element-wise ``fn`` that makes a C-ordered result (it writes by
    flat index), computed on ``array`` seen in its memory order and the result seen back: laid
    out as ``array`` (as torch's element-wise kernels lay theirs out), at no copy. An expanded
    array is passed as it is (torch's result is contiguous then)."""
    perm = memory_perm(array)
    if perm is None or 0 in array.strides:
        return fn(array)
    return fn(array.transpose(perm)).transpose(np.argsort(perm))


def memory_order(array):
    """``array`` seen with its dims ordered by stride, largest first: the order in which
    torch's TensorIterator walks a non-contiguous tensor (random fills draw in that order, so a
    transposed tensor's draws land in memory order); ``array`` itself when that is its order."""
    perm = memory_perm(array)
    return array if perm is None else array.transpose(perm)


def memory_perm(array):
    """The dims of ``array`` by stride, largest first (see memory_order); None: as they are."""
    if array.ndim < 2 or array.flags.c_contiguous:
        return None
    perm = sorted(range(array.ndim), key=lambda d: -abs(array.strides[d]))
    return None if perm == list(range(array.ndim)) else perm
