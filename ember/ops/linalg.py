"""Matrix products: mm, bmm, mv, dot and the general broadcasting matmul."""
import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd import _opmath
from ..autograd.graph import Node, broadcast_message
from . import autocast as _autocast


def _check_matmul(x, y, name):
    """torch.matmul's errors, which depend on how it dispatches (dot, mv, mm or bmm)."""
    if x.ndim == 0 or y.ndim == 0:
        raise RuntimeError(f"both arguments to {name} need to be at least 1D, but they are "
                           f"{x.ndim}D and {y.ndim}D")
    kx = x.shape[-1]
    ky = y.shape[0] if y.ndim == 1 else y.shape[-2]
    if kx == ky:
        if x.ndim > 2 or y.ndim > 2:  # matrices have no batch dims to broadcast
            message = broadcast_message(x.shape[:-2], y.shape[:-2])
            if message:
                raise RuntimeError(message)
        return
    rows = int(np.prod(x.shape[:-1]))
    if x.ndim == 1 and y.ndim == 1:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{kx}] and src [{ky}] to "
                           f"have the same number of elements, but got {kx} and {ky} elements "
                           "respectively")
    if y.ndim == 1:
        raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{kx}), vec ({ky})")
    if y.ndim == 2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{kx} and "
                           f"{ky}x{y.shape[-1]})")
    batch = int(np.prod(np.broadcast_shapes(x.shape[:-2], y.shape[:-2])))
    raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                       f"[{batch}, {kx}] but got: [{batch}, {ky}].")


def _refuse_mixed_dtypes(na, nb, dtype_a, dtype_b):
    """torch's error for operands of ``na`` and ``nb`` dims and different (NumPy) dtypes,
    worded by the kernel its dispatch reaches (dot, addmv, mm or bmm)."""
    a, b = _dtype.of_numpy(dtype_a), _dtype.of_numpy(dtype_b)
    if na == nb == 1:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{a.scalar_name} and {b.scalar_name}")
    if na >= 2 and nb == 1:  # (a batch of matrices times a vector is folded into one mv)
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{b.scalar_name}, {a.scalar_name}, and {b.scalar_name}")
    if nb > 2 or na == 3 and nb == 3:
        raise RuntimeError(f"expected scalar type {a.scalar_name} but found {b.scalar_name}")
    raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a.c_name} != "
                       f"{b.c_name}")


def _refuse_bool(na, nb):
    """torch's error for bool operands, named after the kernel its dispatch reaches."""
    kernel = "dot" if na == nb == 1 else "addmv_impl_cpu" if (na, nb) == (2, 1) else \
        "addmm_impl_cpu_" if na <= 2 and nb <= 2 or nb == 2 else "bmm"
    raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


class MmBackward0(Node):
    """out = a @ b;  da = g @ b^T, db = a^T @ g (1-D operands promoted as torch.matmul)."""

    def forward(self, a, b):
        x, y = a._data, b._data
        # the dtypes as given (float16 and bfloat16 arrive widened to float32); torch checks
        # them after the shapes, but for a dot product before
        given = _opmath.given_dtype(a), _opmath.given_dtype(b)
        if given[0] != given[1] and x.ndim == y.ndim == 1:
            _refuse_mixed_dtypes(1, 1, *given)
        _check_matmul(x, y, "matmul")
        if given[0] != given[1]:
            _refuse_mixed_dtypes(x.ndim, y.ndim, *given)
        if x.dtype.kind == "b":  # NumPy would compute a logical product; torch has no kernel
            _refuse_bool(x.ndim, y.ndim)
        self.save(a, b)
        if x.ndim > 2 and y.ndim == 2:  # one GEMM over all leading dims (NumPy loops per matrix)
            return np.matmul(x.reshape(-1, x.shape[-1]), y).reshape(x.shape[:-1] + y.shape[1:])
        return np.matmul(x, y)

    def backward(self, m, g, a, b):
        need_a = self.next_functions[0][0] is not None
        need_b = self.next_functions[1][0] is not None
        if a.ndim == 1 and b.ndim == 1:
            return (g * b if need_a else None), (g * a if need_b else None)
        if a.ndim == 1:
            ga = m.matmul(m.unsqueeze(g, -2), m.mT(b)) if need_a else None
            gb = m.matmul(m.unsqueeze(a, -1), m.unsqueeze(g, -2)) if need_b else None
            return ga, gb
        if b.ndim == 1:
            ga = m.matmul(m.unsqueeze(g, -1), m.unsqueeze(b, 0)) if need_a else None
            gb = m.squeeze(m.matmul(m.mT(a), m.unsqueeze(g, -1)), -1) if need_b else None
            return ga, gb
        if a.ndim > 2 and b.ndim == 2:  # folded as in forward: gb is one GEMM, no batch sum
            g2 = m.reshape(g, (-1, b.shape[1]))
            ga = m.reshape(m.matmul(g2, m.mT(b)), a.shape) if need_a else None
            gb = m.matmul(m.mT(m.reshape(a, (-1, b.shape[0]))), g2) if need_b else None
            return ga, gb
        ga = m.matmul(g, m.mT(b)) if need_a else None
        gb = m.matmul(m.mT(a), g) if need_b else None
        return ga, gb


class BmmBackward0(MmBackward0):
    """out = batched a @ b (3-D)."""


class MvBackward0(MmBackward0):
    """out = matrix @ vector."""


class DotBackward0(MmBackward0):
    """out = vector . vector."""


class VdotBackward0(MmBackward0):
    """out = vector . vector, the first conjugated (for real vectors: dot's product)."""


class UnsafeViewBackward0(MmBackward0):
    """out = broadcasting batched matmul (torch names this node after its final view)."""


class SqueezeBackward4(MmBackward0):
    """out = vector @ matrix (torch: unsqueeze, mm, squeeze)."""


class CloneBackward0(MmBackward0):
    """out = matrix @ batch of matrices (torch's last step there is a clone)."""




def matmul(input, other):
    """Matrix product with torch.matmul's 1-D promotion and batch broadcasting."""
    a, b = input, other
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        name, bad = ("input", a) if not isinstance(a, Tensor) else ("other", b)
        raise TypeError(f"matmul(): argument '{name}' must be Tensor, not {type(bad).__name__}")
    a, b = _autocast.lower(a, b)
    na, nb = a._data.ndim, b._data.ndim
    if na == 2 and nb == 2:
        return MmBackward0.apply(a, b)
    if na == 1 and nb == 1:
        return DotBackward0.apply(a, b)
    if na == 2 and nb == 1:
        return MvBackward0.apply(a, b)
    if na == 1 and nb == 2:
        return SqueezeBackward4.apply(a, b)
    if na == 2:
        return CloneBackward0.apply(a, b)
    return UnsafeViewBackward0.apply(a, b)


def mm(input, mat2):
    """2-D matrix product."""
    a, b = _autocast.lower(input, mat2)
    if a._data.ndim != 2 or b._data.ndim != 2:
        raise RuntimeError(f"{'self' if a._data.ndim != 2 else 'mat2'} must be a matrix")
    return MmBackward0.apply(a, b)


def bmm(input, mat2):
    """Batched (3-D) matrix product."""
    a, b = _autocast.lower(input, mat2)
    if a._data.ndim != 3 or b._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if a._data.ndim != 3
                           else "batch2 must be a 3D tensor")
    if a._data.shape[0] != b._data.shape[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a._data.shape[0]}, {a._data.shape[2]}] but got: "
                           f"[{b._data.shape[0]}, {b._data.shape[1]}].")
    return BmmBackward0.apply(a, b)
