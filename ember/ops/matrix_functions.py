"""torch.dist, torch.matrix_exp and torch.linalg.eigvalsh, each with its backward."""
import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd.graph import Node
from . import api
from .linalg_extra import _VectorNormExtremes, check_square
from .reduction import LinalgVectorNormBackward0

_TAYLOR_TERMS = 18  # with ||A / 2^s||_1 <= 1/2 the remainder is below 1e-22, past float64's eps


class DistBackward0(LinalgVectorNormBackward0):
    """out = ||a - b||_p (a and b broadcast);  da = the p-norm's gradient at a - b, db = -da."""

    def forward(self, a, b, p=2):
        out = super().forward(Tensor._make(a._data - b._data), p)
        self.save(a, b)  # the difference is recomputed in backward (graph mode: from a and b)
        return out

    def backward(self, m, g, a, b, out):
        (da,) = super().backward(m, g, a - b, out)
        return da, -da


def dist(input, other, p=2):
    """The p-norm of ``input - other`` (broadcast), as torch.dist."""
    if not isinstance(other, Tensor):
        raise TypeError(f"dist(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    common = _dtype._np_promote(input._data.dtype, other._data.dtype)
    if common.kind in "fV" and (input._data.dtype != common or other._data.dtype != common):
        to = _dtype.of_numpy(common)  # torch promotes the two first (int with float32: float32)
        input, other = api.to_dtype(input, to), api.to_dtype(other, to)
    if "c" in (input._data.dtype.kind, other._data.dtype.kind):  # the moduli's norm, real
        import ember.linalg  # late binding up: linalg builds on these ops
        return ember.linalg.vector_norm(api.sub(input, other), p)
    if _dtype.bfloat16 in (input.dtype, other.dtype):  # torch: float32 math, rounded once
        return api.to_dtype(dist(api.to_dtype(input, _dtype.float32),
                                 api.to_dtype(other, _dtype.float32), p), _dtype.bfloat16)
    for t in (input, other):
        if t._data.dtype.kind != "f":
            raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                               f"Got {_dtype.of_numpy(t._data.dtype).scalar_name} instead.")
    if p != 0 and p != -math.inf:
        return DistBackward0.apply(input, other, p=p)
    # p = 0 (count of nonzeros) or -inf (min |a - b|): the vector norm's node for those orders
    return _VectorNormExtremes.apply(api.sub(input, other), p=p)


def _expm(x):
    """exp of each matrix of x (float64 or complex128 inside): scaling, Taylor series,
    squaring."""
    a = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    norm = np.max(np.sum(np.abs(a), axis=-2), axis=-1) if a.size else np.zeros(a.shape[:-2])
    top = float(np.max(norm)) if np.size(norm) else 0.0
    s = max(0, int(math.ceil(math.log2(top))) + 1) if 0.5 < top < math.inf else 0
    a = a / (2.0 ** s)
    eye = np.broadcast_to(np.eye(a.shape[-1]), a.shape)
    result, term = eye.copy(), eye
    for k in range(1, _TAYLOR_TERMS + 1):
        term = np.matmul(term, a) / k
        result = result + term
    for _ in range(s):
        result = np.matmul(result, result)
    return result.astype(x.dtype)


class LinalgMatrixExpBackward0(Node):
    """out = exp(A);  dA = the upper-right block of exp([[A^T, G], [0, A^T]]) (the adjoint of
    exp's Fréchet derivative; holomorphic, so complex input takes torch's conjugates from the
    engine)."""

    def forward(self, a):
        check_square(a._data, "linalg.matrix_exp", "fc")
        self.save(a)
        return _expm(a._data)

    def backward(self, m, g, a):
        n = a.shape[-1]
        at = m.mT(a)
        block = m.cat([m.cat([at, g], -1), m.cat([at * 0, at], -1)], -2)
        if m.is_graph:
            big = LinalgMatrixExpBackward0.apply(block)
        else:
            big = _expm(block)
        return (big[..., :n, n:],)


def matrix_exp(input):
    """The matrix exponential of each square matrix of ``input`` (torch.matrix_exp and
    torch.linalg.matrix_exp)."""
    return LinalgMatrixExpBackward0.apply(input)
