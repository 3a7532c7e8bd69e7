"""nn.Linear's primitive: out = x @ W^T + b in one node (W^T a view, the bias added in place)."""
import math

import numpy as np

from .. import _dtype
from ..autograd.graph import Node
from . import _rowsum, api
from .linalg import _check_matmul, _refuse_mixed_dtypes
from .shape import expand_error


def addmm_linear(x, weight, bias):
    """bias + x W^T as torch's F.linear takes addmm: x flattened to its rows, then the result
    viewed with x's leading dims."""
    lead = x._data.shape[:-1]
    rows = lead[0] if len(lead) == 1 else math.prod(lead)
    _refuse_addmm(x._data, weight._data, bias._data, rows)
    if len(lead) == 1:
        return AddmmBackward0.apply(bias, x, weight)
    out = AddmmBackward0.apply(bias, api.reshape(x, (rows, x._data.shape[-1])), weight)
    return api.reshape(out, lead + (out._data.shape[-1],))


def fits(x, weight, bias):
    """Whether torch's matmul-then-add_ path for a non-contiguous x gives addmm's values on x's
    rows (which ember computes then, as it always did): no error (one dtype, fitting shapes),
    and float32/float64 (float16 and bfloat16 round the product before the bias there)."""
    xd, w, b = x._data, weight._data, bias._data
    return xd.dtype == w.dtype == b.dtype and xd.dtype.kind == "f" and xd.itemsize >= 4 and \
        w.ndim == 2 and xd.shape[-1] == w.shape[1] and b.shape == w.shape[:1]


def _refuse_addmm(x, w, b, rows):
    """torch's addmm errors (arrays: input, weight, bias) in its order: the bias's dtype against
    the weight's, the input's, the weight not a matrix, the shapes, the bias not expanding to
    the output (the dtypes as given, before float16 and bfloat16 are widened for computing)."""
    name = lambda a: _dtype.of_numpy(a.dtype).scalar_name
    if b.dtype != w.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {name(b)} and "
                           f"{name(w)}")
    if x.dtype != w.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {name(x)} and "
                           f"{name(w)}")
    if w.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {w.ndim}-D tensor")
    if x.shape[-1] != w.shape[1]:  # (x as addmm sees it, no copy)
        _check_matmul(np.broadcast_to(np.empty((), x.dtype), (rows, x.shape[-1])), w.T, "linear")
    if b.shape != w.shape[:1]:
        error = expand_error(b.shape, (rows, w.shape[0]), np_dtype=b.dtype)
        if error is not None:
            raise error


def refuse_mm(x, w):
    """torch's mm errors for x W^T (arrays): the shapes first, then the dtypes as given."""
    if x.shape[-1] != w.shape[1]:
        _check_matmul(x, w.T, "linear")
    if x.dtype != w.dtype:
        _refuse_mixed_dtypes(2, 2, x.dtype, w.dtype)


class AddmmBackward0(Node):
    """out = b + x @ W^T for 2-D x;  dx = g @ W, dW = g^T @ x, db = g summed over rows (one
    matrix-vector product with ones off the graph, ``_rowsum``).

    Fused (one node, no copy of W^T, bias added into the product's fresh buffer) for speed:
    torch records the same as addmm(b, x, W.t()).
    """

    def forward(self, bias, x, weight):
        xd, wd = x._data, weight._data
        wt = wd.T
        if xd.dtype == np.bool_:  # (F.linear has refused other mixed dtypes)
            raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
        self.save(x, weight)
        out = np.matmul(xd, wt)
        if bias is not None:
            out += bias._data
        return out

    def backward(self, m, g, x, weight):
        need_b, need_x, need_w = (fn is not None for fn, _ in self.next_functions)
        gb = (m.sum(g, 0) if m.is_graph else _rowsum.first_sum(g)) if need_b else None
        gx = m.matmul(g, weight) if need_x else None
        gw = m.matmul(m.mT(g), x) if need_w else None
        return gb, gx, gw


class MmBackward0(AddmmBackward0):
    """out = x @ W^T (Linear without bias; torch records mm(x, W.t()))."""
