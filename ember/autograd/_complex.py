"""torch's complex gradient convention for the ops whose formulas are written for real numbers.

torch's gradient of a real loss L with respect to z = x + iy is dL/dx + i dL/dy (the conjugate
Wirtinger derivative, doubled). For a holomorphic op w = f(z) that gradient is g * conj(f'(z)),
and a formula written for reals computes g * f'(z); so ``conj(backward(conj(g)))`` gives torch's
result from the one real formula (also for linear ops: sums, reshapes, indexing). Ops that are
not holomorphic (abs, angle, real, imag, conj, view_as_real, ...) set ``complex_aware`` and
write their own backward.
"""
import numpy as np


def is_complex_grad(grad):
    """Whether an incoming gradient (array, tensor, or a list of them) is complex."""
    if type(grad) is list:
        return any(g is not None and is_complex_grad(g) for g in grad)
    data = getattr(grad, "_data", grad)
    return isinstance(data, np.ndarray) and data.dtype.kind == "c"


def _conj(m, g):
    if g is None:
        return None
    if m.is_graph:
        return g.conj_physical() if g._data.dtype.kind == "c" else g
    return np.conj(g) if g.dtype.kind == "c" else g


def backward(node, m, grad, graph_mode):
    """``node.backward`` under torch's complex convention (see the module docstring)."""
    if type(grad) is list:
        grad = [_conj(m, g) for g in grad]
    else:
        grad = _conj(m, grad)
    outs = node.backward(m, grad, *node._unpack(graph_mode))
    if type(outs) is not tuple:
        outs = (outs,)
    return tuple(_conj(m, g) for g in outs)
