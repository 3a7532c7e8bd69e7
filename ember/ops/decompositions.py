"""Matrix decompositions as torch.linalg's: Cholesky, QR, symmetric eigen-decomposition, SVD and
the signed log-determinant. NumPy (LAPACK) computes them; each backward is written once over the
math namespace ``m``, and under create_graph it recomputes the decomposition as a recorded op,
so the formula's own derivative comes out of the graph."""
import numpy as np

from .. import _dtype, _fp
from .._autograd_state import _state as _grad_state
from .._tensor import Tensor
from ..autograd import forward_ad
from ..autograd import graph as _graph
from ..autograd.graph import Node, _edge
from .linalg_extra import LinAlgError, _inv, _solve, check_float, check_square, lapack_svd


def returns(name, fields):
    """A torch.return_types-like tuple class with named fields."""
    def rep(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"
    props = {f: property(lambda self, i=i: self[i]) for i, f in enumerate(fields)}
    return type(name, (tuple,), {**props, "__repr__": rep, "__slots__": ()})


def apply_multi(cls, *inputs, **kwargs):
    """Run a several-output node: ``forward`` returns a tuple of arrays; the outputs whose index
    is in ``cls.differentiable`` get the node as grad_fn (backward then receives one gradient
    slot per output, None where no gradient came)."""
    node = cls()
    token = _fp.quiet()  # NaN and inf come silently, as torch's
    try:
        outs = tuple(Tensor._make(np.asarray(o)) for o in node.forward(*inputs, **kwargs))
    finally:
        _fp.restore(token)
    if _grad_state.enabled and any(isinstance(t, Tensor) and t._requires_grad for t in inputs):
        for i in cls.differentiable:
            outs[i]._grad_fn, outs[i]._output_nr, outs[i]._requires_grad = node, i, True
        node._record(tuple(_edge(t) for t in inputs), node._saved,
                     outputs=(tuple(o._data.shape for o in outs),
                              tuple(o._data.dtype for o in outs)))
    if _graph._dual is not None:  # forward AD: each differentiable output gets its tangent
        forward_ad.multi_output_tangents(node, inputs, outs, cls.differentiable)
    return outs


def _ember():
    import ember  # late binding up: graph-mode helpers use the public ops
    return ember


def _tril(m, x, k=0):
    return _ember().tril(x, k) if m.is_graph else np.tril(x, k)


def _diag(m, x):
    return _ember().diagonal(x, 0, -2, -1) if m.is_graph else np.diagonal(x, 0, -2, -1)


def _diag_embed(m, v):
    return _ember().diag_embed(v) if m.is_graph else v[..., None] * np.eye(v.shape[-1],
                                                                           dtype=v.dtype)


def _zeros(m, like):
    return m.zeros_like(like)


def _grads(m, grads, outs):
    """The gradient slots with zeros where none came (so one formula serves every case)."""
    return [_zeros(m, o) if g is None else g for g, o in zip(grads, outs)]


def _outputs(self, m, a):
    """The decomposition: the forward's arrays, or under create_graph recorded tensors."""
    if m.is_graph:
        return apply_multi(type(self), a, **self.kwargs)
    return self.outs


class _Decomposition(Node):
    differentiable = ()

    def _keep(self, a, kwargs, outs):
        self.save(a)
        self.kwargs, self.outs = kwargs, outs
        return outs


# ---------------------------------------------------------------- Cholesky

def _first_bad_minor(x):
    for k in range(1, x.shape[-1] + 1):
        try:
            np.linalg.cholesky(x[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return x.shape[-1]


def cholesky_info(x):
    """(L, info) for lower-triangle-symmetrised x: info 0, or the order of the first minor that
    is not positive-definite (L is zero for those matrices)."""
    flat = x.reshape((-1,) + x.shape[-2:])
    out, info = np.zeros_like(flat), np.zeros(flat.shape[0], np.int32)
    for i, matrix in enumerate(flat):
        try:
            out[i] = np.linalg.cholesky(matrix)
        except np.linalg.LinAlgError:
            info[i] = _first_bad_minor(matrix)
    return out.reshape(x.shape), info.reshape(x.shape[:-2])


def _symmetric_from(x, upper):
    t = np.swapaxes(np.triu(x), -1, -2) if upper else np.tril(x)
    return t + np.swapaxes(np.tril(t, -1), -1, -2)


def cholesky_forward(x, upper, name, raise_errors=True):
    check_square(x, name)
    s = _symmetric_from(x, upper)
    try:
        lower, info = np.linalg.cholesky(s), np.zeros(x.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        lower, info = cholesky_info(s)
    nan = np.isnan(np.diagonal(lower, axis1=-2, axis2=-1))  # (NumPy factors NaN silently;
    if nan.any():  # LAPACK's stops at a NaN pivot, as at a non-positive one)
        info = np.where((info == 0) & nan.any(-1), nan.argmax(-1) + 1, info).astype(np.int32)
    if raise_errors and info.any():
        i = int(np.flatnonzero(info.reshape(-1))[0])
        batch = f"(Batch element {i}): " if x.ndim > 2 else ""
        raise LinAlgError(f"{name}: {batch}The factorization could not be completed because "
                          f"the input is not positive-definite (the leading minor of order "
                          f"{info.reshape(-1)[i]} is not positive-definite).")
    return (np.swapaxes(lower, -1, -2) if upper else lower), info


class LinalgCholeskyExBackward0(_Decomposition):
    """A = L L^T;  gA = L^-T Phi L^-1 with Phi the symmetric matrix whose lower triangle is
    tril(L^T gL) (its diagonal halved as the two triangles share it)."""

    saves_output = True

    def forward(self, a, upper=False, name="linalg.cholesky"):
        self.upper = upper
        return cholesky_forward(a._data, upper, name)[0]

    def backward(self, m, g, out):
        lower, gl = (m.mT(out), m.mT(g)) if self.upper else (out, g)
        t = _tril(m, m.matmul(m.mT(lower), gl))
        phi = (t + m.mT(_tril(m, t, -1))) * 0.5
        x = _solve(m, m.mT(lower), phi)
        return (m.mT(_solve(m, m.mT(lower), m.mT(x))),)


class CholeskyBackward0(LinalgCholeskyExBackward0):
    """torch.cholesky (the deprecated form): the same node under torch's name."""


# ---------------------------------------------------------------- QR

QR_MODES = ("reduced", "complete", "r")


class LinalgQrBackward0(_Decomposition):
    """A = Q R.  m >= n: gA = (gQ + Q copyltu(R gR^T - gQ^T Q)) R^-T; m < n: the square left
    block X = Q U by that rule with gQ + Y gV^T, and the rest Y = Q V gets Q gV."""

    differentiable = (0, 1)

    def forward(self, a, mode="reduced"):
        x = a._data
        check_float(x, "linalg.qr")
        if x.ndim < 2:
            raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
        if mode not in QR_MODES:
            raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                               "'reduced' (default), 'r', or 'complete'")
        q, r = np.linalg.qr(x, mode="complete" if mode == "complete" else "reduced")
        if mode == "r":
            q = np.zeros((0,), x.dtype)
        return self._keep(a, {"mode": mode}, (q, r))

    def backward(self, m, grads, a):
        mode, (rows, cols) = self.kwargs["mode"], a.shape[-2:]
        if mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you are "
                               "going to differentiate through linalg.qr.")
        if mode == "complete" and rows > cols:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                               "and nrows > ncols.")
        q, r = _outputs(self, m, a)
        gq, gr = _grads(m, grads, (q, r))
        if rows >= cols:
            return (_qr_square_back(m, q, r, gq, gr),)
        y, u = a[..., rows:], r[..., :rows]
        gu, gv = gr[..., :rows], gr[..., rows:]
        gx = _qr_square_back(m, q, u, gq + m.matmul(y, m.mT(gv)), gu)
        return (m.cat([gx, m.matmul(q, gv)], -1),)


def _qr_square_back(m, q, r, gq, gr):
    c = m.matmul(r, m.mT(gr)) - m.matmul(m.mT(gq), q)
    c = _tril(m, c) + m.mT(_tril(m, c, -1))
    return m.mT(_solve(m, r, m.mT(gq + m.matmul(q, c))))


# ---------------------------------------------------------------- eigh

def _check_uplo(uplo):
    if uplo not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {uplo}")


class LinalgEighBackward0(_Decomposition):
    """A = V diag(w) V^T;  gA = V (diag(gw) + skew(V^T gV) / (w_j - w_i) off the diagonal) V^T,
    skew(X) = (X - X^T) / 2 (torch's projection)."""

    differentiable = (0, 1)

    def forward(self, a, UPLO="L", name="linalg.eigh"):
        x = a._data
        check_square(x, name)
        _check_uplo(UPLO)
        w, v = np.linalg.eigh(x, UPLO=UPLO.upper())
        return self._keep(a, {"UPLO": UPLO, "name": name}, (w, v))

    def backward(self, m, grads, a):
        w, v = _outputs(self, m, a)
        gw, gv = _grads(m, grads, (w, v))
        inner = _diag_embed(m, gw)
        if grads[1] is not None:
            gap = m.unsqueeze(w, -2) - m.unsqueeze(w, -1)
            off = m.data(gap) != 0
            inv_gap = m.where(off, 1 / m.where(off, gap, m.ones_like(gap)), m.zeros_like(gap))
            vtgv = m.matmul(m.mT(v), gv)  # its skew part, as torch (the tangent space of V)
            inner = inner + (vtgv - m.mT(vtgv)) * 0.5 * inv_gap
        return (m.matmul(m.matmul(v, inner), m.mT(v)),)


# ---------------------------------------------------------------- SVD

class LinalgSvdBackward0(_Decomposition):
    """A = U diag(S) Vh (k = min(m, n) columns take part in the gradient):
    gA = U [skew(U^T gU) F S + diag(gS) + S F skew(V^T gV)] Vh
         + (I - U U^T) gU S^-1 Vh + U S^-1 gV^T (I - V V^T),  F_ij = 1 / (s_j^2 - s_i^2)."""

    differentiable = (0, 1, 2)

    def forward(self, a, full_matrices=True, name="linalg.svd"):
        x = a._data
        check_float(x, name)
        if x.ndim < 2:
            raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
        u, s, vh = lapack_svd(x, full_matrices=full_matrices)
        return self._keep(a, {"full_matrices": full_matrices, "name": name}, (u, s, vh))

    def backward(self, m, grads, a):
        u, s, vh = _outputs(self, m, a)
        gu, gs, gvh = _grads(m, grads, (u, s, vh))
        k = s.shape[-1]
        u, gu, vh, gvh = u[..., :k], gu[..., :k], vh[..., :k, :], gvh[..., :k, :]
        v, gv = m.mT(vh), m.mT(gvh)
        s2 = s * s
        gap = m.unsqueeze(s2, -2) - m.unsqueeze(s2, -1)
        off = m.data(gap) != 0
        f = m.where(off, 1 / m.where(off, gap, m.ones_like(gap)), m.zeros_like(gap))
        utgu, vtgv = m.matmul(m.mT(u), gu), m.matmul(m.mT(v), gv)
        inner = ((utgu - m.mT(utgu)) * f * m.unsqueeze(s, -2) + _diag_embed(m, gs)
                 + m.unsqueeze(s, -1) * ((vtgv - m.mT(vtgv)) * f))
        ga = m.matmul(m.matmul(u, inner), vh)
        if u.shape[-2] > k:
            ga = ga + m.matmul((gu - m.matmul(u, utgu)) / m.unsqueeze(s, -2), vh)
        if vh.shape[-1] > k:
            ga = ga + m.matmul(u, m.mT(gv - m.matmul(v, vtgv)) / m.unsqueeze(s, -1))
        return (ga,)


# ---------------------------------------------------------------- log-determinant

def _logdet_grad(m, g, a):
    """d log|det A| = g A^-T (one formula for logdet and slogdet)."""
    return m.unsqueeze(m.unsqueeze(g, -1), -1) * m.mT(_inv(m, a))


class LinalgSlogdetBackward0(Node):
    """(sign, logabsdet = log|det A|), one node for both as torch's; only logabsdet carries
    a gradient (a real sign is piecewise constant): gA = g A^-T."""

    differentiable = (0, 1)

    def forward(self, a, name="linalg.slogdet"):
        check_square(a._data, name)
        self.save(a)
        sign, logabs = np.linalg.slogdet(a._data)
        return np.asarray(sign, a._data.dtype), logabs

    def backward(self, m, grads, a):
        g = grads[1]
        return (None if g is None else _logdet_grad(m, g, a),)


class LogdetBackward0(Node):
    """log det A: NaN where the determinant is negative, -inf where it is zero."""

    def forward(self, a, name="logdet"):
        check_square(a._data, name)
        self.save(a)
        sign, logabs = np.linalg.slogdet(a._data)
        return np.where(sign < 0, np.nan, logabs)

    def backward(self, m, g, a):
        return (_logdet_grad(m, g, a),)


# ---------------------------------------------------------------- multi_dot

def check_chain(tensors):
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for i, t in enumerate(tensors):
        nd = t._data.ndim
        where = "the first tensor" if i == 0 else "the last tensor" if i == n - 1 else None
        if where and nd not in (1, 2):
            raise RuntimeError(f"multi_dot(): {where} must be 1D or 2D but got {nd}D")
        if where is None and nd != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {nd}D")
        if t._data.dtype != tensors[0]._data.dtype:
            names = [_dtype.of_numpy(x._data.dtype).scalar_name.lower() for x in (tensors[0], t)]
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but "
                               f"tensor 0 is {names[0]} and tensor {i} {names[1]}")
    shapes = [t._data.shape for t in tensors]
    shapes[0], shapes[-1] = (1,) * (2 - len(shapes[0])) + shapes[0], shapes[-1] + (1,) * (
        2 - len(shapes[-1]))
    for i in range(n - 1):
        if shapes[i][1] != shapes[i + 1][0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(tensors[i].shape)} and {list(tensors[i + 1].shape)} "
                               "cannot be multiplied")


def chain_order(dims):
    """split[i][j]: where the cheapest product of matrices i..j splits (matrix i is
    dims[i] x dims[i + 1]); the textbook dynamic programme over chain lengths."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def chain_product(mats, matmul):
    """The product of 2-D ``mats`` in the cheapest order."""
    if len(mats) == 2:
        return matmul(mats[0], mats[1])
    if len(mats) == 3:  # torch's rule for three: (AB)C unless A(BC) is strictly cheaper
        a, b, c, d = mats[0].shape[0], mats[1].shape[0], mats[2].shape[0], mats[2].shape[1]
        if a * c * (b + d) > b * d * (a + c):
            return matmul(mats[0], matmul(mats[1], mats[2]))
        return matmul(matmul(mats[0], mats[1]), mats[2])
    split = chain_order([mats[0].shape[0]] + [x.shape[1] for x in mats])

    def product(i, j):
        if i == j:
            return mats[i]
        k = split[i][j]
        return matmul(product(i, k), product(k + 1, j))
    return product(0, len(mats) - 1)
