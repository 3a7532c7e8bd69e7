"""Householder reflectors in LAPACK's compact form: torch.geqrf (QR with Q kept as reflectors),
linalg.householder_product (torch.orgqr: their product) and torch.ormqr (their product applied
to a matrix), whose backward is written out step by step. Reflector i is
H_i = I - tau_i v_i v_i^H, v_i zero above row i, one at row i and the column i of the compact
matrix below it."""
import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd._math import array_math
from ..autograd.graph import Node
from .decompositions import _Decomposition, _tril, apply_multi, returns
from .linalg_extra import refuse_low_precision

Geqrf = returns("geqrf", ("a", "tau"))


def _check_kernel(x, kernel):
    """torch's refusal of dtypes its LAPACK kernel is not built for (all but float32, float64,
    complex64 and complex128): float16/bfloat16, then integers and bool, in one message."""
    refuse_low_precision(x, kernel, ("kernel", kernel))
    _dtype.refuse_kinds(x.dtype, kernel, "biu")


class GeqrfBackward0(_Decomposition):
    """(a, tau) as LAPACK's geqrf: R on and above a's diagonal, the reflectors' tails below it
    (A = H_1 ... H_k R); torch has no derivative for it."""

    differentiable = (0, 1)

    def forward(self, input):
        x = input._data
        if x.ndim < 2:
            raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
        _check_kernel(x, "geqrf_cpu")
        self.save()  # (nothing: the backward only refuses)
        rows, cols = x.shape[-2:]
        if x.size == 0:
            return x.copy(), np.zeros(x.shape[:-2] + (min(rows, cols),), x.dtype)
        raw, tau = np.linalg.qr(x, mode="raw")  # (LAPACK's column-major array, transposed)
        return np.ascontiguousarray(np.swapaxes(raw, -1, -2)), tau

    def backward(self, m, grads, *saved):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")

    def forward_tangents(self, tangents):
        raise NotImplementedError(
            "Trying to use forward AD with geqrf that does not support it because it has not "
            "been implemented yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/"
            "pytorch/issues/new?template=feature-request.yml so that we can prioritize its "
            "implementation or submit a PR adding the implementation to derivatives.yaml")


def geqrf(input):
    """(a, tau): the QR decomposition in LAPACK's compact form (see householder_product)."""
    return Geqrf(apply_multi(GeqrfBackward0, input))


def _check_tau(name, input, tau):
    """tau's rank and batch dimensions against input's, as torch checks them."""
    if tau.ndim != input.ndim - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.ndim} and input.ndim is equal to "
                           f"{input.ndim}")
    if tau.shape[:-1] != input.shape[:-2]:
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")


def _last(tau):
    if tau.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    return tau.shape[-1]


def _conj(m, x):
    return m.conj(x) if m.data(x).dtype.kind == "c" else x


def _adjoint(m, x):
    return _conj(m, m.mT(x))


def _vectors(m, input, count):
    """The first ``count`` reflectors as columns: input's strict lower triangle, ones on the
    diagonal."""
    eye = np.eye(input.shape[-2], count, dtype=m.data(input).dtype)
    part = input[..., :, :count]
    if m.is_graph:
        return part.tril(-1) + Tensor._make(eye)
    return np.tril(part, -1) + eye


def _left_form(m, tau, other, left, transpose):
    """Every product as H C steps on the left: C Q^(H) = (Q^(H)^H C^H)^H. Returns (C, the
    scales s_i (tau or its conjugate), the order of the steps, whether tau was conjugated)."""
    adjoint = transpose == left
    count = tau.shape[-1]
    order = range(count) if adjoint else range(count - 1, -1, -1)
    scales = _conj(m, tau) if adjoint else tau
    return (other if left else _adjoint(m, other)), scales, order, adjoint


def _steps(m, vectors, scales, order, other, before=None):
    """C <- C - s_i v_i (v_i^H C) for each i of ``order`` (``before``: a list that receives
    each step's C)."""
    for i in order:
        v, s = vectors[..., :, i:i + 1], m.unsqueeze(scales[..., i:i + 1], -1)
        if before is not None:
            before.append(other)
        other = other - m.matmul(s * v, m.matmul(_adjoint(m, v), other))
    return other


class OrmqrBackward0(Node):
    """out = Q C, C Q, Q^H C or C Q^H, Q = H_1 ... H_k (the reflectors of geqrf's (input,
    tau)), run as steps C' = C - s v (v^H C). Backward, step by step from the last: with
    p = v^H G and w = v^H C, gC = G - conj(s) v p, gs = -p w^H, gv = -conj(s) G w^H - s C p^H
    (torch's convention for complex numbers written out: v^H is not holomorphic)."""

    complex_aware = True

    def forward(self, input, tau, other, left=True, transpose=False):
        self.save(input, tau, other)
        self.left, self.transpose = left, transpose
        return np.array(self._product(array_math, input._data, tau._data, other._data))

    def _product(self, m, input, tau, other):
        start, scales, order, _ = _left_form(m, tau, other, self.left, self.transpose)
        out = _steps(m, _vectors(m, input, tau.shape[-1]), scales, order, start)
        return out if self.left else _adjoint(m, out)

    def backward(self, m, g, input, tau, other):
        count, before = tau.shape[-1], []
        if not count:  # Q = I
            return m.zeros_like(input), m.zeros_like(tau), g
        start, scales, order, adjoint = _left_form(m, tau, other, self.left, self.transpose)
        vectors = _vectors(m, input, count)
        _steps(m, vectors, scales, order, start, before)
        g = g if self.left else _adjoint(m, g)
        gv, gs = [None] * count, [None] * count
        for i, c in zip(reversed(order), reversed(before)):
            v, s = vectors[..., :, i:i + 1], m.unsqueeze(scales[..., i:i + 1], -1)
            vh = _adjoint(m, v)
            p, w = m.matmul(vh, g), m.matmul(vh, c)
            gs[i] = -(p * _conj(m, w)).sum(-1)
            gv[i] = -(_conj(m, s) * m.matmul(g, _adjoint(m, w)) + s * m.matmul(c, _adjoint(m, p)))
            g = g - _conj(m, s) * m.matmul(v, p)
        gtau = m.cat(gs, -1)
        ginput = _tril(m, m.cat(gv, -1), -1)
        if input.shape[-1] > count:
            ginput = m.cat([ginput, m.zeros_like(input[..., count:])], -1)
        return (ginput, _conj(m, gtau) if adjoint else gtau,
                g if self.left else _adjoint(m, g))


class LinalgHouseholderProductBackward0(OrmqrBackward0):
    """out = the first n columns of H_1 ... H_k: ormqr's node applied to I (m x n)."""

    left, transpose = True, False

    def forward(self, input, tau):
        self.save(input, tau)
        return np.array(self._product(array_math, input._data, tau._data,
                                      _eye_like(input._data)))

    def backward(self, m, g, input, tau):
        eye = _eye_like(m.data(input))
        return super().backward(m, g, input, tau, Tensor._make(eye) if m.is_graph else eye)[:2]


def _eye_like(x):
    return np.broadcast_to(np.eye(*x.shape[-2:], dtype=x.dtype), x.shape)


def householder_product(input, tau):
    """The first n columns of H_1 ... H_k, the reflectors stored as geqrf stores them (input
    (*, m, n) with m >= n, tau (*, k) with k <= n)."""
    name = "torch.linalg.householder_product"
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    rows, cols = input.shape[-2:]
    if rows < cols:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if cols < _last(tau):
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    _check_tau(name, input, tau)
    if tau.dtype != input.dtype:
        raise RuntimeError(f"{name}: tau dtype {tau.dtype.scalar_name} does not match input "
                           f"dtype {input.dtype.scalar_name}")
    _check_kernel(input._data, "orgqr_cpu")
    return LinalgHouseholderProductBackward0.apply(input, tau)


def _check_ormqr(input, tau, other, left):
    name, side = "torch.ormqr", -2 if left else -1
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if other.ndim < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if _last(tau) != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], "
                           "input.shape[-1])")
    _check_tau(name, input, tau)
    if other.ndim != input.ndim:
        raise RuntimeError(f"{name}: Expected other to have the same number of dimensions as "
                           f"input, but got other.ndim equal to {other.ndim} and input.ndim is "
                           f"equal to {input.ndim}")
    if other.shape[:-2] != input.shape[:-2]:
        raise RuntimeError(f"{name}: Expected batch dimensions of other to be equal to "
                           f"input.shape[:-2], but got {list(other.shape[:-2])}")
    for label, t in (("tau", tau), ("other", other)):
        if t.dtype != input.dtype:
            raise RuntimeError(f"{name}: Expected input and {label} to have the same dtype, but "
                               f"input has dtype{input.dtype.scalar_name} and {label} has dtype "
                               f"{t.dtype.scalar_name}")
    _check_kernel(input._data, "ormqr_cpu")


def orgqr(input, input2):
    """torch.orgqr: linalg.householder_product (tau named as in torch's schema)."""
    return householder_product(input, input2)


def ormqr(input, input2, input3, left=True, transpose=False):
    """Q other (left) or other Q, Q = H_1 ... H_k from geqrf's (input, tau) (tau and other
    named input2 and input3, as torch's schema names them); Q^H where ``transpose``."""
    _check_ormqr(input, input2, input3, left)
    return OrmqrBackward0.apply(input, input2, input3, left=left, transpose=transpose)
