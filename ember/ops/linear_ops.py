"""nn.Linear's primitive: out = x @ W^T + b in one node (W^T a view, the bias added in place)."""
import numpy as np

from .. import _dtype
from ..autograd.graph import Node
from . import _rowsum
from .linalg import _check_matmul, _refuse_mixed_dtypes


def _check_linear(x, w):
    if x.dtype == np.bool_ and w.dtype == np.bool_:
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    if x.dtype != w.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                           f"{_dtype.of_numpy(x.dtype).scalar_name} and "
                           f"{_dtype.of_numpy(w.dtype).scalar_name}")


def refuse_mixed_dtypes(x, weight, bias):
    """torch's error for F.linear operands of different dtypes (checked before float16 and
    bfloat16 inputs are widened for computing): the bias against the weight first, then the
    input against the weight, worded as the kernel torch reaches (addmm with a bias, mm/matmul
    without one)."""
    name = lambda t: _dtype.of_numpy(t._data.dtype).scalar_name
    if bias is not None and bias._data.dtype != weight._data.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {name(bias)} and "
                           f"{name(weight)}")
    if bias is not None:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {name(x)} and "
                           f"{name(weight)}")
    _refuse_mixed_dtypes(x.ndim, 2, x._data.dtype, weight._data.dtype)


class AddmmBackward0(Node):
    """out = b + x @ W^T for 2-D x;  dx = g @ W, dW = g^T @ x, db = g summed over rows (one
    matrix-vector product with ones off the graph, ``_rowsum``).

    Fused (one node, no copy of W^T, bias added into the product's fresh buffer) for speed:
    torch records the same as addmm(b, x, W.t()).
    """

    def forward(self, bias, x, weight):
        xd, wd = x._data, weight._data
        wt = wd.T
        _check_matmul(xd, wt, "linear")
        _check_linear(xd, wd)
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
