"""Fused multiply-adds: addcmul, addcdiv (custom optimizers' updates) and the products that add
to an input as addmm does: addmv, addr, addbmm (subclasses of addmm's node, each with its own
product and, where the shapes differ, its own backward)."""
import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd import _opmath
from ..autograd._math import fma
from ..autograd.graph import Node
from . import api
from . import autocast as _autocast
from . import elementwise as E
from ._legacy_overloads import scalar_first
from .matrix_ops import AddmmBackward0


def _common(*tensors):
    """The arrays of ``tensors`` in torch's promoted dtype."""
    dt = _dtype._result_from_operands([(t._data.dtype, t._data.ndim == 0) for t in tensors])
    return [t._data.astype(dt, copy=False) for t in tensors]


def _integral_scalar(name, value, arrays):
    if isinstance(value, float) and all(a.dtype.kind in "biu" for a in arrays):
        raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating "
                           "point number.")


class AddcmulBackward0(Node):
    """out = input + value * t1 * t2 (rounded once, a fused multiply-add);  dinput = g,
    dt1 = g (t2 value), dt2 = g (t1 value)."""

    def forward(self, input, tensor1, tensor2, value=1):
        x, y, z = _common(input, tensor1, tensor2)
        if x.dtype.kind == "b":
            raise NotImplementedError('"addcmul_cpu_out" not implemented for \'Bool\'')
        _integral_scalar("value", value, (x, y, z))
        self.value = value
        self.save(tensor1, tensor2)
        if _opmath.source(tensor1) is not None:  # torch's bfloat16 kernel: fma(value t1, t2, x)
            scaled = y * np.float32(value) if value != 1 else y
            return (scaled.astype(np.float64) * z + x).astype(np.float32)
        scaled = y if value == 1 else y * np.asarray(value, y.dtype)
        return fma(scaled, z, x)  # torch's kernel: fma(value * t1, t2, input), rounded once

    def backward(self, m, g, t1, t2):
        value = self.value  # torch's steps: grad * (t2 * value), grad * (t1 * value)
        return (g, g * (t2 if value == 1 else t2 * value) if E._needs(self, 1) else None,
                g * (t1 if value == 1 else t1 * value) if E._needs(self, 2) else None)


class AddcdivBackward0(Node):
    """out = input + (value t1) / t2;  dinput = g, dt1 = g (value / t2),
    dt2 = -g ((value t1) / (t2 t2))."""

    def forward(self, input, tensor1, tensor2, value=1):
        if tensor1._data.dtype.kind in "biu" and tensor2._data.dtype.kind in "biu":
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future  release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
                "tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
        x, y, z = _common(input, tensor1, tensor2)
        self.value = value
        self.save(tensor1, tensor2)
        scaled = y if value == 1 else y * np.asarray(value, y.dtype)
        return x + scaled / z  # torch's steps: input + (value * t1) / t2

    def backward(self, m, g, t1, t2):
        # torch's steps: grad * (value / t2) and -grad * ((value * t1) / (t2 * t2))
        return g, g * (self.value / t2) if E._needs(self, 1) else None, \
            (-g * (self.value * t1 / (t2 * t2)) if E._needs(self, 2) else None)


def _tensor_operands(name, tensor1, tensor2):
    """torch's TypeError for a number where tensor1 or tensor2 goes (no AttributeError)."""
    for position, t in ((1, tensor1), (2, tensor2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument 'tensor{position}' (position {position}) must "
                            f"be Tensor, not {type(t).__name__}")


def addcmul(input, tensor1, tensor2, *deprecated, value=1):
    """input + value * tensor1 * tensor2 (broadcasting; also torch's deprecated
    addcmul(value, tensor1, tensor2))."""
    if deprecated:
        value, (tensor1, tensor2) = scalar_first("addcmul", "value", ("tensor1", "tensor2"),
                                                 (tensor1, tensor2, *deprecated), value != 1)
    _tensor_operands("addcmul", tensor1, tensor2)
    return AddcmulBackward0.apply(input, tensor1, tensor2, value=value)


def addcdiv(input, tensor1, tensor2, *deprecated, value=1):
    """input + value * tensor1 / tensor2 (broadcasting; integer tensor1 and tensor2 refused;
    also torch's deprecated addcdiv(value, tensor1, tensor2))."""
    if deprecated:
        value, (tensor1, tensor2) = scalar_first("addcdiv", "value", ("tensor1", "tensor2"),
                                                 (tensor1, tensor2, *deprecated), value != 1)
    _tensor_operands("addcdiv", tensor1, tensor2)
    return AddcdivBackward0.apply(input, tensor1, tensor2, value=value)


# ------------------------------------------------------------------ addmm's relatives
class AddmvBackward0(AddmmBackward0):
    """out = beta * input + alpha * (mat @ vec);  dmat = alpha * outer(g, vec),
    dvec = alpha * mat^T @ g."""

    @staticmethod
    def product(x, y):
        return np.matmul(x, y)

    def backward(self, m, g, mat, vec):
        scaled = g * self.alpha if self.alpha != 1 else g
        return ((g if self.beta == 1 else g * self.beta) if E._needs(self, 0) else None,
                m.matmul(m.unsqueeze(scaled, -1), m.unsqueeze(vec, 0)) if E._needs(self, 1)
                else None,
                m.matmul(m.mT(mat), scaled) if E._needs(self, 2) else None)


class AddrBackward0(AddmmBackward0):
    """out = beta * input + alpha * outer(vec1, vec2);  dvec1 = alpha * g @ vec2,
    dvec2 = alpha * g^T @ vec1."""

    product = staticmethod(np.multiply.outer)

    def backward(self, m, g, vec1, vec2):
        scaled = g * self.alpha if self.alpha != 1 else g
        return ((g if self.beta == 1 else g * self.beta) if E._needs(self, 0) else None,
                m.matmul(scaled, vec2) if E._needs(self, 1) else None,
                m.matmul(m.mT(scaled), vec1) if E._needs(self, 2) else None)


class AddbmmBackward0(AddmmBackward0):
    """out = beta * input + alpha * sum_b batch1[b] @ batch2[b] (addmm's backward, broadcast
    over the batch)."""

    @staticmethod
    def product(x, y):
        return np.matmul(x, y).sum(axis=0)


def _check_scalars(input, beta, alpha):
    if input._data.dtype.kind in "biu":
        for name, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a "
                                   "floating point number.")


def _shapes(name, tensors, ndims):
    for label, t, ndim in zip(("mat1", "mat2"), tensors, ndims):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument '{label}' must be Tensor, not "
                            f"{type(t).__name__}")
    if tuple(t._data.ndim for t in tensors) != ndims:
        raise RuntimeError(f"{name}: expected {ndims[0]}-D and {ndims[1]}-D arguments, got "
                           f"{tensors[0]._data.ndim}-D and {tensors[1]._data.ndim}-D")


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta * input + alpha * (mat @ vec)."""
    _shapes("addmv", (mat, vec), (2, 1))
    if mat._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input._data.shape[0] if input.ndim else 1})"
                           f", mat ({mat._data.shape[0]}x{mat._data.shape[1]}), vec "
                           f"({vec._data.shape[0]})")
    _check_scalars(input, beta, alpha)
    input, mat, vec = _autocast.lower(input, mat, vec)
    if not input._data.dtype == mat._data.dtype == vec._data.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{input.dtype.scalar_name}, {mat.dtype.scalar_name}, and "
                           f"{vec.dtype.scalar_name}")
    return AddmvBackward0.apply(input, mat, vec, beta=beta, alpha=alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2)."""
    _shapes("addr", (vec1, vec2), (1, 1))
    _check_scalars(input, beta, alpha)
    common = _dtype.of_numpy(_dtype._result_from_operands(
        [(t._data.dtype, False) for t in (input, vec1, vec2)]))  # torch promotes the three
    input, vec1, vec2 = (api.to_dtype(t, common) for t in (input, vec1, vec2))
    return AddrBackward0.apply(input, vec1, vec2, beta=beta, alpha=alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * (the sum over the batch of batch1[b] @ batch2[b])."""
    _shapes("addbmm", (batch1, batch2), (3, 3))
    if batch1._data.shape[0] != batch2._data.shape[0] or \
            batch1._data.shape[2] != batch2._data.shape[1]:
        raise RuntimeError(f"batch1 and batch2 shapes do not match: got "
                           f"{list(batch1._data.shape)} and {list(batch2._data.shape)}")
    _check_scalars(input, beta, alpha)
    input, batch1, batch2 = _autocast.lower(input, batch1, batch2)
    return AddbmmBackward0.apply(input, batch1, batch2, beta=beta, alpha=alpha)

