"""The eigen-decomposition of general square matrices (torch.linalg.eig, eigvals): complex
eigenvalues L and unit-norm eigenvectors V (columns) with A V = V diag(L), from LAPACK's geev
through NumPy, and torch's gradient of it."""
import numpy as np

from .. import _dtype
from .._autograd_state import _state as _grad_state
from .._tensor import Tensor
from ..autograd._math import tensor_math
from .api import to_dtype
from .decompositions import _Decomposition, _diag, _diag_embed, apply_multi
from .linalg_extra import _solve


def check_eig_input(x, name):
    """torch's checks, in its order: a dtype with a complex counterpart, square matrices,
    finite entries, then the dtypes LAPACK has (float32/64, complex64/128)."""
    scalar = _dtype.of_numpy(x.dtype).scalar_name
    if x.dtype.kind not in "fcV":  # (V: bfloat16)
        raise RuntimeError(f"Unknown Complex ScalarType for {scalar}")
    if x.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if x.shape[-1] != x.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{x.shape[-2]} by {x.shape[-1]} matrices")
    if not np.isfinite(x).all():  # (LAPACK's geev may loop or crash on them)
        raise RuntimeError(f"torch.{name}: input tensor should not contain infs or NaNs.")
    if x.dtype not in (np.float32, np.float64, np.complex64, np.complex128):
        raise NotImplementedError(f"\"linalg_eig_out_cpu\" not implemented for '{scalar}'")


def _complex_of(dtype):
    return np.complex64 if dtype in (np.float32, np.complex64) else np.complex128


class LinalgEigBackward0(_Decomposition):
    """A V = V diag(L), |v_i| = 1. With E_ij = conj(L_j - L_i) (1 on the diagonal):
    gA = V^-H (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / E) V^H  (the eigenvalues'
    gradient on the diagonal); real part for real A. V^H gV must have a real diagonal: the
    loss may not depend on each eigenvector's phase (torch's check)."""

    differentiable = (0, 1)
    complex_aware = True  # the formula is torch's gradient itself (eig is not holomorphic)

    def forward(self, a, name="linalg.eig"):
        x = a._data
        check_eig_input(x, name)
        w, v = np.linalg.eig(x)
        outs = (w.astype(_complex_of(x.dtype)), v.astype(_complex_of(x.dtype)))
        self.real_input = x.dtype.kind != "c"
        return self._keep(a, {"name": name}, outs)

    def backward(self, m, grads, a):
        L, V = self._own_outputs() if m.is_graph else self.outs
        gL, gV = grads
        Vh = m.conj(m.mT(V))
        if gV is None:
            inner = m.unsqueeze(gL, -1) * Vh
        else:
            VhgV = m.matmul(Vh, gV)
            diag = _diag(m, VhgV)
            if not np.allclose(np.imag(m.data(diag)), 0, rtol=1e-2, atol=1e-2):
                raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case "
                                   "are specified up to multiplication by e^{i phi}. The "
                                   "specified loss function depends on this quantity, so it is "
                                   "ill-defined.")
            X = VhgV - m.matmul(Vh, V * m.unsqueeze(m.real(diag), -2))
            Lc = m.conj(L)
            gap = m.unsqueeze(Lc, -2) - m.unsqueeze(Lc, -1)
            eye = np.eye(gap.shape[-1], dtype=bool)
            X = X / m.where(eye, m.ones_like(gap), gap)
            if gL is not None:
                X = m.where(eye, _diag_embed(m, gL), X)
            inner = m.matmul(X, Vh)
        ga = _solve(m, Vh, inner)
        return (m.real(ga) if self.real_input else ga,)

    def forward_tangents(self, tangents):
        """Forward mode, torch's formulas: dP = V^-1 dA V; dL = diag(dP); dV = V (dP / E' off
        the diagonal, E'_ij = L_j - L_i), less V Re(diag(V^H dV)) (the unit norm kept)."""
        m = tensor_math
        L, V = (Tensor._make(o) for o in self.outs)
        dP = _solve(m, V, m.matmul(to_dtype(tangents[0], _dtype.of_numpy(V._data.dtype)), V))
        gap = m.unsqueeze(L, -2) - m.unsqueeze(L, -1)
        eye = np.eye(gap.shape[-1], dtype=bool)
        dV = m.matmul(V, m.where(eye, m.zeros_like(dP), dP / m.where(eye, m.ones_like(gap), gap)))
        Vh = m.conj(m.mT(V))
        dV = dV - V * m.unsqueeze(m.real(_diag(m, m.matmul(Vh, dV))), -2)
        return _diag(m, dP), dV

    def _own_outputs(self):
        """(L, V) as outputs of this node, for create_graph: the gradient that the formula
        sends to V then reaches this node together with the loss's own (as in torch's graph),
        so the phase check sees their sum; a recomputed decomposition would see a part."""
        outs = []
        for nr, data in enumerate(self.outs):
            t = Tensor._make(data, True, self)
            t._output_nr = nr
            outs.append(t)
        return outs


def eig(A, name="linalg.eig"):
    """(eigenvalues, eigenvectors) as two complex tensors."""
    return apply_multi(LinalgEigBackward0, A, name=name)


def eigvals(A):
    """The complex eigenvalues (in LAPACK's order; through eig when a gradient is wanted, as
    torch: their grad_fn is then LinalgEigBackward0)."""
    if A.requires_grad and _grad_state.enabled:  # (torch's errors then name linalg.eig)
        return eig(A)[0]
    x = A._data
    check_eig_input(x, "linalg.eigvals")
    return Tensor._make(np.linalg.eigvals(x).astype(_complex_of(x.dtype)))
