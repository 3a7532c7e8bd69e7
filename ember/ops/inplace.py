"""In-place ops: a direct NumPy write outside autograd, a rebased history inside it."""
import numpy as np

from .. import _dtype, _fp
from .._memory_format import is_dense
from .._tensor import Tensor
from ..autograd import forward_ad, grad_mode
from ..autograd import graph as _graph
from .indexing import CopySlices
from .shape import AsStridedBackward0

_new = object.__new__


def check_inplace(a, view=False):
    """torch's rule: a leaf that requires grad (or a view of one) can't be modified in place
    while recording."""
    if not grad_mode._state.enabled:
        return
    base = a._base
    if base is not None and "_multi_view" in a.__dict__:
        op, i = a.__dict__["_multi_view"]
        raise RuntimeError(f"Output {i} of {op} is a view and is being modified inplace. This "
                           "view is the output of a function that returns multiple views. Such "
                           "functions do not allow the output views to be modified inplace. You "
                           "should replace the inplace operation by an out-of-place one.")
    if base is not None and base._grad_fn is None and base._requires_grad:
        view = True
    elif not (a._grad_fn is None and a._requires_grad):
        return
    raise RuntimeError(f"a {'view of a ' if view else ''}leaf Variable that requires grad is "
                       "being used in an in-place operation.")


def _check_cast(result_dtype, target_dtype):
    src, dst = _dtype.from_numpy_dtype(result_dtype), _dtype.from_numpy_dtype(target_dtype)
    if src._category > dst._category:
        raise RuntimeError(f"result type {src.scalar_name} can't be cast to the desired output "
                           f"type {dst.scalar_name}")




def commit_inplace(a, new):
    """Write ``new`` into ``a``'s memory and make ``new``'s grad_fn the history of ``a``."""
    grad_mode.check_inplace(a._vc)  # before the write (the version bump would raise after it)
    if overlaps(a):
        raise RuntimeError(OVERLAP)
    data = new._data
    _check_cast(data.dtype, a._data.dtype)
    if data.shape != a._data.shape:
        raise RuntimeError(f"output with shape {list(a._data.shape)} doesn't match the broadcast "
                           f"shape {list(data.shape)}")
    np.copyto(a._data, data, casting="unsafe")
    a._vc[0] += 1
    if new._grad_fn is not None:
        node = new._grad_fn
        node._dtypes = (a._data.dtype,)
        _saved_in_place(node, new, a)
        if a._base is None or not _rebase_view(a, new):
            a._grad_fn, a._output_nr, a._requires_grad = node, 0, True
    if _graph._dual is not None:  # forward AD: ``a``'s tangent is now ``new``'s (its base's too)
        index = _view_index(a._data, a._base._data) if a._base is not None else None
        forward_ad.write_tangent(a, forward_ad.tangent_of(new), index)
    if _graph._observer is not None:  # a trace (onnx export): ``a`` holds ``new``'s value now
        _graph.observe_untracked("inplace", (new,), a)
    return a


def _saved_in_place(node, new, a):
    """An in-place op whose backward reads its own result (exp_, sigmoid_, relu_, ...) keeps it
    as torch does, as ``a`` at the version just written: a later write to ``a`` makes the
    backward refuse, as torch's (the values kept are still the result's own)."""
    saved = node._saved
    if not saved or node._versions is None:
        return
    kept = saved[-1]
    if type(kept) is _graph.SavedOutput and kept._vc is new._vc:
        kept._vc = a._vc
        node._versions = node._versions[:-1] + (a._vc[0],)


def _rebase_view(view, new):
    """After an in-place write through ``view``: the base's history becomes CopySlices (its old
    history with ``new`` put at the view's elements), the view's a re-read of the base."""
    base = view._base
    index = _view_index(view._data, base._data)
    if index is None:  # not laid out inside its base after all: recorded as a plain tensor
        return False
    copy = _new(CopySlices)
    copy._saved, copy.index = (), index
    copy._attach(base._data, (_alias(base), new))
    base._grad_fn, base._output_nr, base._requires_grad = copy, 0, True
    select = _new(AsStridedBackward0)
    select._saved, select.shape, select.index = (), base._data.shape, index
    select._attach(view._data, (base,))
    view._grad_fn, view._output_nr, view._requires_grad = select, 0, True
    return True


def _span(array):
    """The lowest and highest element offsets ``array`` reaches from its first element."""
    item = array.itemsize
    low = sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s < 0) // item
    high = sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s > 0) // item
    return low, high


def _view_index(view, base):
    """The elements of ``view`` as an advanced index into ``base`` (one memory, any strides)."""
    item = base.itemsize
    low, high = _span(base)
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    view_low, view_high = _span(view)
    if view.itemsize != item or view.size == 0 or offset + view_low < low or \
            offset + view_high > high:
        return None
    positions = np.full(high - low + 1, -1, np.intp)  # base's memory: each element's flat index
    step = positions.itemsize // item

    def laid_out(array, start):
        strides = tuple(s * step for s in array.strides)
        return np.lib.stride_tricks.as_strided(positions[start:], array.shape, strides)
    laid_out(base, -low)[...] = np.arange(base.size).reshape(base.shape)
    found = laid_out(view, offset - low).copy()
    return None if (found < 0).any() else np.unravel_index(found, base.shape)


def _alias(a):
    """A stand-in for ``a`` before the write: same memory, history and version counter."""
    old = Tensor._make(a._data, a._requires_grad, a._grad_fn)
    old._output_nr, old._vc = a._output_nr, a._vc
    return old


def _with_tangent(alias, a):
    """``alias`` given ``a``'s tangent when forward AD is on (the op then computes a's new one)."""
    if _graph._dual is not None:
        forward_ad.set_tangent(alias, forward_ad.tangent_of(a))
    return alias


def apply_inplace(a, op, *args, **kwargs):
    """Run ``op(a, *args)`` and store the result in ``a``, keeping autograd exact."""
    needs_graph = grad_mode._state.enabled and (
        a._requires_grad or any(isinstance(x, Tensor) and x._requires_grad for x in args))
    if not needs_graph:
        with grad_mode.no_grad():
            new = op(_with_tangent(Tensor._make(a._data), a), *args, **kwargs)
        return commit_inplace(a, new)
    check_inplace(a)
    old = _with_tangent(_alias(a), a)
    if _graph._saved_hooks is not None:  # a pack hook may keep ``old`` itself: the values before
        old._data, old._vc = old._data.copy(), [old._vc[0]]  # the write, as the copy below
    new = op(old, *args, **kwargs)
    node = new._grad_fn
    if node is not None:
        for s in node._saved:
            if s is old:
                old._data = old._data.copy()  # the backward needs the values from before
                old._vc = [old._vc[0]]  # the write
            elif type(s) is Tensor and s._vc is old._vc:  # a tensor made from old (float16's
                # float32 widening, a view): its own values and counter from before the write
                if np.shares_memory(s._data, old._data):
                    s._data = s._data.copy()
                s._vc = [s._vc[0]]
    return commit_inplace(a, new)


OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a "
           "single memory location. Please clone() the tensor before performing the operation.")


def overlaps(a):
    """True for a tensor whose elements share memory (an expand()ed one: NumPy's read-only
    broadcast view), which torch's element-wise in-place ops refuse to write to."""
    data = a._data
    return not data.flags.writeable and data.size > 1 and (
        0 in data.strides or _overlapping(data.shape, data.strides))


def _overlapping(shape, strides):
    """Whether two index tuples reach one element (an as_strided view): dims sorted by stride,
    each stride must step over everything the smaller ones span."""
    span = 0
    for stride, n in sorted((abs(s), n) for n, s in zip(shape, strides) if n > 1):
        if stride <= span:
            return True
        span += (n - 1) * stride
    return False


# In-place methods torch runs on a tensor whose elements share memory (no overlap check in
# their kernels): each element is written in order, so the last write to a location wins.
# (torch's map_, apply_ and baddbmm_ also run, but re-read what they wrote: ember refuses them.)
OVERLAP_ALLOWED = frozenset({"fill_", "zero_", "__setitem__", "index_put_", "masked_fill_",
                             "index_fill_", "fill_diagonal_", "tril_", "triu_"})


PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to "
                   "tensor refer to a single memory location. Please clone() the tensor before "
                   "performing the operation.")

# In-place methods whose kernels (torch's TensorIterator ones, index_add_/copy_, scatter_, put_)
# refuse an input that partly overlaps the tensor written to; masked_scatter_ and the fills
# (whose value is one element) run there.
CHECKS_INPUT_OVERLAP = frozenset(
    "add_ sub_ subtract_ mul_ multiply_ div_ divide_ true_divide_ floor_divide_ pow_ "
    "float_power_ lerp_ addcmul_ addcdiv_ atan2_ arctan2_ hypot_ fmod_ remainder_ copysign_ "
    "clamp_ clip_ clamp_min_ clamp_max_ eq_ ne_ not_equal_ lt_ less_ le_ less_equal_ gt_ "
    "greater_ ge_ greater_equal_ logical_and_ logical_or_ logical_xor_ bitwise_and_ "
    "bitwise_or_ bitwise_xor_ bitwise_left_shift_ bitwise_right_shift_ xlogy_ ldexp_ "
    "nextafter_ heaviside_ gcd_ lcm_ copy_ index_add_ index_copy_ scatter_ scatter_add_ "
    "scatter_reduce_ put_ index_reduce_ __setitem__".split())


# Those of them that run one element-wise TensorIterator kernel: its operands must broadcast to
# the tensor written before the kernel looks at their dtypes (heaviside_ checks them first).
ELEMENTWISE = CHECKS_INPUT_OVERLAP - frozenset(
    "copy_ index_add_ index_copy_ scatter_ scatter_add_ scatter_reduce_ put_ index_reduce_ "
    "__setitem__ heaviside_".split()) | {"igamma_", "igammac_"}


def refuse_output_shape(a, operands):
    """torch's error for a tensor operand of an element-wise in-place op on ``a`` that does not
    broadcast to ``a``'s shape (checked before the dtypes, as torch's TensorIterator)."""
    shape = a._data.shape
    for x in operands:
        if isinstance(x, Tensor) and x._data.shape != shape and (
                _graph.broadcast_message(shape, x._data.shape) is not None
                or np.broadcast_shapes(shape, x._data.shape) != shape):
            raise write_error(a, x._data.shape)


def refuse_partial_overlap(target, values):
    """torch's check that no input of an in-place op partly overlaps the array it writes
    (``target``, an ndarray): both dense and non-overlapping, in one memory, their byte ranges
    overlapping but not the very same elements. Arrays torch cannot judge cheaply (a strided
    slice) pass, as there; an input identical to the target (x.add_(x)) passes."""
    for value in values:
        if type(value) is not np.ndarray or value is target or \
                not np.may_share_memory(target, value):
            continue
        if not (target.size and value.size and is_dense(target, flipped=False) and
                is_dense(value, flipped=False)):
            continue
        if target.__array_interface__["data"][0] == value.__array_interface__["data"][0] \
                and target.nbytes == value.nbytes and target.strides == value.strides:
            continue  # the same elements: a full overlap
        raise RuntimeError(PARTIAL_OVERLAP)


def write_through_overlap(a, run, key=None):
    """``run(t)`` (an in-place method of OVERLAP_ALLOWED) for an expand()ed ``a``: run on a
    compact copy, then each element it wrote written into the shared memory in C order, so
    that the last write wins as in torch. Outside autograd only. ``key``: an item assignment's
    index; a basic one selecting overlapping elements refuses (torch's copy_)."""
    memory = _writable_alias(a._data)
    if memory is None or needs_graph(a) or (key is not None and _basic_overlap(a._data, key)):
        raise RuntimeError(OVERLAP)
    grad_mode.check_inplace(a._vc)
    old = a._data.copy()
    compact, marked = Tensor._make(old.copy()), Tensor._make(_flipped(old))
    result = run(compact)
    run(marked)  # the same write over other contents: what it kept is what it did not write
    kept = _bits_equal(compact._data, old) & _bits_equal(marked._data, _flipped(old))
    where = np.nonzero(~kept)
    memory[where] = compact._data[where]  # a fancy-index write runs in order: the last wins
    a._vc[0] += 1
    return a if result is compact else result


def _flipped(array):
    """``array`` with every bit inverted (booleans negated): differs from it everywhere."""
    if array.dtype.kind == "b":
        return ~array
    return (~array.view(f"u{array.itemsize}")).view(array.dtype) if array.itemsize <= 8 else \
        (~array.view(np.uint8)).view(array.dtype)


def _bits_equal(x, y):
    item = x.itemsize
    return (x.view(np.uint8).reshape(x.shape + (item,)) ==
            y.view(np.uint8).reshape(y.shape + (item,))).all(-1)


def _basic_overlap(data, key):
    """Whether ``data[key]`` is a basic-indexing view whose elements share memory."""
    parts = key if isinstance(key, tuple) else (key,)
    if not all(p is None or p is Ellipsis or isinstance(p, (int, slice)) for p in parts):
        return False  # advanced indexing: torch's index_put_, which writes anyway
    view = data[key]
    return 0 in view.strides and view.size > 1


def _writable_alias(data):
    """A writable view of the memory of a read-only broadcast view, or None where the memory
    itself is read-only."""
    root = data
    while True:  # down to the memory's owner, also through as_strided's interface holders
        below = root.base
        if below is not None and not isinstance(below, np.ndarray):
            below = getattr(below, "base", None)
        if not isinstance(below, np.ndarray):
            break
        root = below
    if not root.flags.writeable:
        return None
    interface = dict(data.__array_interface__)
    interface["data"] = (interface["data"][0], False)
    return np.asarray(_Interface(interface, root))


class _Interface:
    """An array interface NumPy builds a view from (holding the memory's owner alive)."""

    def __init__(self, interface, base):
        self.__array_interface__, self.base = interface, base


def write_error(a, shape):
    """torch's error for a write of something of ``shape`` into ``a`` that NumPy refused."""
    if overlaps(a):
        return RuntimeError(OVERLAP)
    out = list(a._data.shape)
    return RuntimeError(_graph.broadcast_message(tuple(out), tuple(shape))
                        or f"output with shape {out} doesn't match the broadcast shape "
                           f"{list(np.broadcast_shapes(tuple(out), tuple(shape)))}")


def fast_binary_inplace(a, ufunc, b, alpha=None):
    """a op= b directly into a's memory when no gradient is recorded (the optimizer's path)."""
    grad_mode.check_inplace(a._vc)
    ad = a._data
    if isinstance(b, Tensor):
        bd = b._data
        if bd.dtype != ad.dtype:  # torch's result type (a 0-d operand ranks below), not NumPy's
            _check_cast(_dtype._result_from_operands([(ad.dtype, ad.ndim == 0),
                                                      (bd.dtype, bd.ndim == 0)]), ad.dtype)
    else:
        bd = b
        # (a float tensor with a Python int or float, the optimizers' case: nothing to check)
        if isinstance(b, (int, float, complex)) and not (
                ad.dtype.kind in "fVc" and type(b) in (int, float)):
            _check_cast(_dtype._result_from_operands([(ad.dtype, ad.ndim == 0), b]), ad.dtype)
            if type(b) is int and ad.dtype.kind in "iu":  # torch wraps, NumPy 2 would raise
                bd = _dtype.wrap_int(b, ad.dtype)
    token = _fp.quiet()  # NaN and inf come silently, as torch's
    try:
        if alpha is not None and alpha != 1:
            bd = bd * alpha
        ufunc(a._data, bd, out=a._data, casting="unsafe")
    except ValueError:
        raise write_error(a, np.shape(bd)) from None
    finally:
        _fp.restore(token)
    a._vc[0] += 1
    return a


def needs_graph(a, *others):
    if _graph._dual is not None:  # forward AD: the node's path gives the tangent
        return True
    return grad_mode._state.enabled and (
        a._requires_grad or any(isinstance(x, Tensor) and x._requires_grad for x in others))
