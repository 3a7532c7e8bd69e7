"""Householder reflectors in LAPACK's compact form: torch.geqrf (QR with Q kept as reflectors),
linalg.householder_product (torch.orgqr: their product) and torch.ormqr (their product applied
to a matrix). Reflector i is H_i = I - tau_i v_i v_i^H, v_i zero above row i, one at row i and
the column i of the compact matrix below it."""
import numpy as np

from .. import _dtype
from .._tensor import Tensor
from . import api
from .decompositions import _Decomposition, apply_multi, returns

Geqrf = returns("geqrf", ("a", "tau"))


def _check_kernel(x, kernel):
    """torch's refusal of dtypes its LAPACK kernel is not built for (all but float32, float64,
    complex64 and complex128)."""
    if x.dtype.kind not in "fc" or x.dtype == np.float16:
        scalar = _dtype.of_numpy(x.dtype).scalar_name
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar}\'')


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


def _reflect(other, vectors, tau, order, *, left, adjoint):
    """``other`` times H_i (left: H_i times ``other``) for each i of ``order``; H_i^H where
    ``adjoint`` (tau conjugated). Each step is a rank-1 update, recorded by autograd."""
    scale = tau.conj() if adjoint and tau.is_complex() else tau
    for i in order:
        v, t = vectors[..., :, i:i + 1], scale[..., i:i + 1].unsqueeze(-1)
        if left:
            other = other - (t * v) @ (v.mH @ other)
        else:
            other = other - (other @ v) @ (t * v.mH)
    return other


def _reflectors(input, count):
    """The first ``count`` reflectors as columns: input's strict lower triangle, ones on the
    diagonal."""
    rows, cols = input.shape[-2:]
    eye = Tensor._make(np.eye(rows, count, dtype=input._data.dtype))
    return input[..., :, :count].tril(-1) + eye


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
    count = tau.shape[-1]
    eye = Tensor._make(np.broadcast_to(np.eye(rows, cols, dtype=input._data.dtype),
                                       input.shape).copy())
    if count == 0:  # torch's identity stays in the graph (a zero gradient for input)
        return api.where(Tensor._make(np.ones(input.shape, bool)), eye, input)
    # LAPACK's order (org2r): the last reflector first, each applied from the left
    return _reflect(eye, _reflectors(input, count), tau, reversed(range(count)), left=True,
                    adjoint=False)


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
    tau, other = input2, input3
    _check_ormqr(input, tau, other, left)
    count = tau.shape[-1]
    if count == 0:  # Q = I: a new tensor all the same
        return other.clone()
    # Q C applies H_k first; C Q applies H_1 first; the adjoint reverses either order
    first_to_last = left == transpose
    order = range(count) if first_to_last else reversed(range(count))
    return _reflect(other, _reflectors(input, count), tau, order, left=left, adjoint=transpose)
