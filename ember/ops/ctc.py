"""Connectionist temporal classification: the per-sample loss by log-space forward-backward."""
import numpy as np

from ..autograd.graph import Node


def _logsumexp3(a, b, c):
    """log(e^a + e^b + e^c) elementwise, -inf where all three are -inf."""
    top = np.maximum(np.maximum(a, b), c)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(a - safe) + np.exp(b - safe) + np.exp(c - safe))


def _shifted(x, by):
    """x[:, s - by] (by > 0) or x[:, s + |by|] (by < 0), -inf where that falls outside."""
    out = np.full_like(x, -np.inf)
    if by > 0:
        out[:, by:] = x[:, :-by]
    else:
        out[:, :by] = x[:, -by:]
    return out


class _Lattice:
    """The extended label sequences l' (blank, l1, blank, l2, ..., blank) of a batch, padded to
    2 max(S) + 1, with where each may skip a blank (l'_s != blank and l'_s != l'_{s-2})."""

    def __init__(self, labels, target_lengths, blank):
        count = len(labels)
        width = 2 * max((len(t) for t in labels), default=0) + 1
        self.ext = np.full((count, width), blank, dtype=np.int64)
        for n, target in enumerate(labels):
            self.ext[n, 1:2 * len(target):2] = target
        self.lengths = np.asarray(target_lengths, dtype=np.int64)
        positions = np.arange(width)
        self.valid = positions[None, :] < 2 * self.lengths[:, None] + 1
        self.skip = np.zeros((count, width), dtype=bool)
        self.skip[:, 2:] = (self.ext[:, 2:] != blank) & (self.ext[:, 2:] != self.ext[:, :-2])
        self.last = 2 * self.lengths  # the final blank; the final label is last - 1

    def ends(self, x):
        """x at the two admissible end positions (the last label only if the target is not
        empty), as (N, 2)."""
        rows = np.arange(len(self.lengths))
        last_label = np.where(self.lengths > 0, x[rows, np.maximum(self.last - 1, 0)], -np.inf)
        return np.stack([x[rows, self.last], last_label], axis=1)


def _forward(lp_ext, lattice, input_lengths):
    """α[t, n, s]: log-probability of the prefixes ending at l'_s at time t (frozen from T_n on);
    returns (α for all t, the loss -log p(target))."""
    steps, count, width = lp_ext.shape
    alpha = np.full((count, width), -np.inf)
    alpha[:, 0] = lp_ext[0, :, 0]
    if width > 1:
        alpha[:, 1] = np.where(lattice.lengths > 0, lp_ext[0, :, 1], -np.inf)
    alpha[~lattice.valid] = -np.inf
    alpha[input_lengths == 0] = -np.inf
    alphas = np.empty((steps, count, width))
    alphas[0] = alpha
    for t in range(1, steps):
        two = np.where(lattice.skip, _shifted(alpha, 2), -np.inf)
        new = _logsumexp3(alpha, _shifted(alpha, 1), two) + lp_ext[t]
        new[~lattice.valid] = -np.inf
        alpha = np.where((t < input_lengths)[:, None], new, alpha)
        alphas[t] = alpha
    with np.errstate(divide="ignore"):
        ends = np.logaddexp.reduce(lattice.ends(alpha), axis=1)
    empty = input_lengths == 0  # no frames: only the empty target has an alignment
    ends[empty] = np.where(lattice.lengths[empty] == 0, 0.0, -np.inf)
    return alphas, -ends


def _backward(lp_ext, lattice, input_lengths):
    """β[t, n, s]: log-probability of the suffixes from l'_s at time t to the end (-inf from
    T_n on)."""
    steps, count, width = lp_ext.shape
    rows = np.arange(count)
    beta = np.full((count, width), -np.inf)
    betas = np.full((steps, count, width), -np.inf)
    skip_next = _shifted(lattice.skip.astype(np.float64), -2) > 0  # may s jump to s + 2?
    for t in range(steps - 1, -1, -1):
        two = np.where(skip_next, _shifted(beta, -2), -np.inf)
        new = _logsumexp3(beta, _shifted(beta, -1), two) + lp_ext[t]
        start = np.full((count, width), -np.inf)
        start[rows, lattice.last] = lp_ext[t, rows, lattice.last]
        label = np.maximum(lattice.last - 1, 0)
        start[rows, label] = np.where(lattice.lengths > 0, lp_ext[t, rows, label],
                                      start[rows, label])
        beta = np.where((t == input_lengths - 1)[:, None], start,
                        np.where((t < input_lengths - 1)[:, None], new, -np.inf))
        beta[~lattice.valid] = -np.inf
        betas[t] = beta
    return betas


class CtcLossBackward0(Node):
    """l_n = -log Σ over the alignments π of target n of Π_t y[t, n, π_t] (alignments: the
    target with blanks around and between labels, repeats kept apart by a blank), one value per
    sample; a fused node for numerical stability (log space). Backward is torch's formula, the
    gradient as seen through a log_softmax before it: d log_probs[t, n, c] = g_n (exp(lp[t, n,
    c]) - Σ_{s: l'_s = c} exp(α + β - lp + l_n)) for t < T_n, else 0."""

    def forward(self, log_probs, labels, input_lengths, target_lengths, blank, zero_infinity):
        self.save(log_probs)  # create_graph links the gradient to it (to refuse going on)
        lp = log_probs._data.astype(np.float64)
        self.lattice = _Lattice(labels, target_lengths, blank)
        self.input_lengths = np.asarray(input_lengths, dtype=np.int64)
        self.lp = lp
        self.lp_ext = np.take_along_axis(lp, self.lattice.ext[None], axis=2)
        self.alphas, self.nll = _forward(self.lp_ext, self.lattice, self.input_lengths)
        self.zero_infinity, self.dtype = zero_infinity, log_probs._data.dtype
        losses = self.nll.copy()
        if zero_infinity:
            losses[np.isinf(losses)] = 0.0
        return losses.astype(self.dtype)

    def _gradient(self):
        """d l_n / d log_probs[t, n, c] as torch defines it (see the class docstring)."""
        lp, lattice = self.lp, self.lattice
        steps, count, classes = lp.shape
        betas = _backward(self.lp_ext, lattice, self.input_lengths)
        with np.errstate(invalid="ignore", over="ignore"):
            occupancy = np.exp(self.alphas + betas - self.lp_ext + self.nll[None, :, None])
        cells = (np.arange(steps)[:, None, None] * count + np.arange(count)[None, :, None])
        flat = (cells * classes + lattice.ext[None]).ravel()
        posterior = np.bincount(flat, weights=occupancy.ravel(), minlength=lp.size)
        grad = np.exp(lp) - posterior.reshape(lp.shape)
        grad[:, np.isinf(self.nll)] = 0.0 if self.zero_infinity else np.nan
        grad[np.arange(steps)[:, None] >= self.input_lengths[None, :]] = 0.0
        return grad

    def backward(self, m, g, log_probs):
        grad = self._gradient().astype(self.dtype)
        if m.is_graph:
            return (_CtcLossGradient.apply(g, log_probs, gradient=grad),)
        return (grad * g[None, :, None],)


class _CtcLossGradient(Node):
    """The gradient of CtcLossBackward0 for create_graph: torch has no derivative of it."""

    def forward(self, g, log_probs, gradient):
        return (gradient * g._data[None, :, None]).astype(g._data.dtype)

    def backward(self, m, g):
        raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


_CtcLossGradient.__name__ = _CtcLossGradient.__qualname__ = "CtcLossBackwardBackward0"
