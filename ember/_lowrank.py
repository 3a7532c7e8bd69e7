"""torch.svd_lowrank and torch.pca_lowrank: randomized SVD (Halko, Martinsson and Tropp 2009,
algorithms 4.4 and 5.1) composed of ember's differentiable ops, drawing torch's random stream
(one randn(n, q) per call), so a seeded call gives torch's factors."""
import ember


def _floating(a):
    return a.dtype if a.is_floating_point() or a.is_complex() else ember.float32


def get_approximate_basis(A, q, niter=2, M=None):
    """Q with q orthonormal columns such that Q Q^H (A - M) approximates A - M (M optional),
    by ``niter`` subspace iterations from a Gaussian start."""
    niter = 2 if niter is None else niter
    R = ember.randn(A.shape[-1], q, dtype=_floating(A))
    X = A @ R if M is None else A @ R - M @ R
    Q = ember.linalg.qr(X).Q
    for _ in range(niter):
        X = A.mH @ Q if M is None else A.mH @ Q - M.mH @ Q
        Q = ember.linalg.qr(X).Q
        X = A @ Q if M is None else A @ Q - M @ Q
        Q = ember.linalg.qr(X).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) with A - M ~ U diag(S) V^H, of rank ``q`` (M optional, broadcast to A)."""
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:  # the basis of the taller side
        A = A.mH
        M = None if M is None else M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = Q.mH @ A if M is None else Q.mH @ A - Q.mH @ M
    U, S, Vh = ember.linalg.svd(B, full_matrices=False)
    V, U = Vh.mH, Q @ U
    return (V, S, U) if m < n else (U, S, V)


def pca_lowrank(A, q=None, center=True, niter=2):
    """svd_lowrank of A with its column means removed (``center``), q = min(6, m, n) by
    default: U, S, V with V's columns the principal directions."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter)
    return svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter)
