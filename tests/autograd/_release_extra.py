"""Calls that reach the node classes the OpInfo tables do not (tensor bounds, scalar overloads,
views, create_graph, sparse): tests/autograd/test_release.py drives them like the tables."""
import warnings

import numpy as np

R = np.random.default_rng(3)
M = R.standard_normal((3, 4))
P = R.uniform(0.5, 2.0, (3, 4))
V = R.standard_normal(4)


def _t(L, a, grad=True):
    return L.tensor(np.array(a), requires_grad=grad)


def _in_place_through_a_view(L):
    base = _t(L, M) * 1
    view = base[1]
    view.mul_(2)
    return (view * 3).sum() + base.sum()


def _index_put_zeros(L):
    x = _t(L, M)
    (g,) = L.autograd.grad((x[[0, 2]] ** 2).sum(), x, create_graph=True)
    return (g * g).sum()


def _i0_second_order(L):
    x = _t(L, M)
    (g,) = L.autograd.grad(L.i0(x).sum(), x, create_graph=True)  # i0's derivative: i1's node
    return (g * g).sum()


def _sparse(L):
    idx = L.tensor([[0, 1, 1, 0], [2, 0, 0, 2]])
    vals = _t(L, [1.0, 2.0, 3.0, 4.0])
    with warnings.catch_warnings():  # torch: "Sparse invariant checks are implicitly disabled"
        warnings.simplefilter("ignore")
        return L.sparse_coo_tensor(idx, vals, (2, 3))


EXTRA = {
    "clamp_tensor_bounds": lambda L: L.clamp(_t(L, M), min=_t(L, M * 0.5), max=_t(L, P)).sum(),
    "clamp_max_tensor": lambda L: L.clamp_max(_t(L, M), _t(L, P - 1)).sum(),
    "masked_fill_0d_value": lambda L: _t(L, M).masked_fill(L.tensor(M > 0), _t(L, 2.5)).sum(),
    "remainder_scalar": lambda L: L.remainder(_t(L, M), 0.7).sum(),
    "rsub_tensors": lambda L: L.rsub(_t(L, M), _t(L, P), alpha=2).sum(),
    "remainder_tensors": lambda L: L.remainder(_t(L, M), _t(L, P)).sum(),
    "ellipsis_index": lambda L: (_t(L, M)[...] * 2).sum(),
    "index_put_zeros": _index_put_zeros,
    "i0_second_order": _i0_second_order,
    "scatter_value": lambda L: L.scatter(_t(L, M), 1, L.tensor([[0], [2], [1]]), 2.5).sum(),
    "unsqueeze": lambda L: (L.unsqueeze(_t(L, M), 1) * 2).sum(),
    "squeeze_all": lambda L: (_t(L, M)[None, :, None].squeeze() * 2).sum(),
    "squeeze_dims": lambda L: (_t(L, M)[None, :, None].squeeze((0, 2)) * 2).sum(),
    "matrix_at_batch": lambda L: L.matmul(_t(L, M), _t(L, R.standard_normal((2, 4, 3)))).sum(),
    "dot": lambda L: L.dot(_t(L, V), _t(L, V * 2)),
    "vector_at_matrix": lambda L: (_t(L, V[:3]) @ _t(L, M)).sum(),
    "sort_stable": lambda L: L.sort(_t(L, M), stable=True)[0].sum(),
    "in_place_through_a_view": _in_place_through_a_view,
    "sparse_coalesce": lambda L: _sparse(L).coalesce().values().sum(),
    "sparse_to_dense": lambda L: (_sparse(L).to_dense() * 2).sum(),
    "sparse_mm": lambda L: L.sparse.mm(_sparse(L), _t(L, M[:, :2])).sum(),
    "sparse_mm_operator": lambda L: L.mm(_sparse(L), _t(L, M[:, :2])).sum(),
    "to_sparse": lambda L: _t(L, M).to_sparse().values().sum(),
}


def _second_order(L, f, *arrays):
    """A loss over first derivatives taken with create_graph (the derivative's own nodes)."""
    xs = [_t(L, a) for a in arrays]
    grads = L.autograd.grad(f(L, *xs).pow(2).sum(), xs, create_graph=True)
    return sum((g * g).sum() for g in grads)


def _hooked_linear(L):
    L.manual_seed(0)
    layer = L.nn.Linear(4, 2)
    layer.register_full_backward_hook(lambda module, grad_in, grad_out: None)
    return layer(_t(L, M.astype(np.float32))).sum()


def _recurrent(L, kind):
    L.manual_seed(0)
    out, _ = getattr(L.nn, kind)(4, 3)(_t(L, R.standard_normal((5, 2, 4)).astype(np.float32)))
    return out.sum()


X4 = R.standard_normal((2, 3, 6, 6))
W4 = R.standard_normal((4, 3, 3, 3))
X5 = R.standard_normal((1, 2, 4, 4, 4))
X3 = R.standard_normal((2, 3, 6))
EXTRA.update({
    "full_backward_hook": _hooked_linear,
    "erf": lambda L: L.erf(_t(L, M)).sum(),
    "rrelu_training": lambda L: L.nn.functional.rrelu(_t(L, M), training=True).sum(),
    "conv2d_second_order": lambda L: _second_order(
        L, lambda L, x, w: L.nn.functional.conv2d(x, w), X4, W4),
    "max_pool2d_second_order": lambda L: _second_order(
        L, lambda L, x: L.nn.functional.max_pool2d(x, 2), X4),
    "avg_pool2d_second_order": lambda L: _second_order(
        L, lambda L, x: L.nn.functional.avg_pool2d(x, 2), X4),
    "nll_loss_2d": lambda L: L.nn.functional.nll_loss(
        L.log_softmax(_t(L, X4), 1), L.tensor(R.integers(0, 3, (2, 6, 6)))),
    "lstm": lambda L: _recurrent(L, "LSTM"),
    "gru": lambda L: _recurrent(L, "GRU"),
    "rnn": lambda L: _recurrent(L, "RNN"),
})
for _mode, _shapes in {"circular": (X3, X4, X5), "reflect": (X4, X5),
                       "replicate": (X3, X4, X5)}.items():
    for _x in _shapes:
        EXTRA[f"pad_{_mode}_{_x.ndim - 2}d"] = (
            lambda L, x=_x, mode=_mode: L.nn.functional.pad(
                _t(L, x), (1, 2) * (x.ndim - 2), mode=mode).pow(2).sum())


def _third_order_max_pool(L):
    x = _t(L, X4)
    (g,) = L.autograd.grad(L.nn.functional.max_pool2d(x, 2).pow(2).sum(), x, create_graph=True)
    (gg,) = L.autograd.grad(g.pow(2).sum(), x, create_graph=True)
    return gg.pow(2).sum()


EXTRA.update({
    "linear_without_bias": lambda L: L.nn.functional.linear(_t(L, M), _t(L, M[:2])).sum(),
    "attention_2d": lambda L: L.nn.functional.scaled_dot_product_attention(
        _t(L, M), _t(L, P), _t(L, M * 2)).sum(),
    "max_pool2d_third_order": _third_order_max_pool,
})


def _t_in_place(L):
    y = _t(L, M) * 2
    return y.t_().pow(2).sum()


EXTRA.update({
    "index_add": lambda L: L.index_add(_t(L, M), 0, L.tensor([2, 0, 2]), _t(L, P[:, :4][:3]),
                                       alpha=2.0).pow(2).sum(),
    "take": lambda L: L.take(_t(L, M), L.tensor([0, -1, 5, 5])).pow(2).sum(),
    "nansum": lambda L: L.nansum(_t(L, M), 1).pow(2).sum(),
    "t_in_place": _t_in_place,
    "tensor_unfold": lambda L: (_t(L, M) * 1).unfold(1, 2, 1).pow(2).sum(),
    "transpose_in_place": lambda L: (_t(L, X4) * 2).transpose_(1, 3).pow(2).sum(),
    "lstm_float64": lambda L: L.nn.LSTM(4, 3).double()(_t(L, R.standard_normal((5, 2, 4))))[
        1][1].sum(),
    "conv3d": lambda L: L.nn.functional.conv3d(_t(L, X5), _t(L, X5[:, :, :2, :2, :2] * 0 + 1)
                                               ).pow(2).sum(),
})

THETA = R.standard_normal((2, 2, 3))
SPD_L = np.linalg.cholesky(M[:, :3].T @ M[:, :3] + 3 * np.eye(3))
EXTRA.update({  # apis3: logcumsumexp, index_copy/fill, order statistics, pools, grids
    "logcumsumexp": lambda L: L.logcumsumexp(_t(L, M), 1).pow(2).sum(),
    "index_copy": lambda L: L.index_copy(_t(L, M), 1, L.tensor([3, 0]), _t(L, P[:, :2])
                                         ).pow(2).sum(),
    "index_fill": lambda L: _t(L, M).index_fill(1, L.tensor([1, 1]), 2.0).pow(2).sum(),
    "index_fill_tensor": lambda L: (_t(L, M) * 1).index_fill(0, L.tensor([2]), _t(L, 0.5)
                                                           ).pow(2).sum(),
    "cross": lambda L: L.cross(_t(L, M[:, :3]), _t(L, P[:, :3]), dim=1).pow(2).sum(),
    "nan_to_num": lambda L: L.nan_to_num(_t(L, M)).pow(2).sum(),
    "order_stats": lambda L: (L.kthvalue(_t(L, M), 2, 1).values.sum()
                              + L.median(_t(L, M), 0).values.sum() + L.median(_t(L, M))
                              + L.nanmedian(_t(L, M))
                              + L.cholesky_inverse(_t(L, SPD_L)).sum()
                              + L.special.entr(_t(L, M).abs()).sum()
                              + L.cholesky_solve(_t(L, M[:3, :2]), _t(L, SPD_L)).sum()
                              + L.mode(_t(L, M), 1).values.sum()
                              + L.cummax(_t(L, M), 1).values.sum()
                              + L.cummin(_t(L, M), 0).values.sum()),
    "pools_3d": lambda L: (L.nn.functional.max_pool3d(_t(L, X5), 2).sum()
                           + L.nn.functional.avg_pool3d(_t(L, X5), 2).pow(2).sum()
                           + L.nn.functional.adaptive_avg_pool3d(_t(L, X5), 3).pow(2).sum()
                           + L.nn.functional.adaptive_max_pool3d(_t(L, X5), 3).sum()
                           + L.nn.functional.adaptive_max_pool2d(_t(L, X4), 4).sum()),
    "max_unpool": lambda L: (L.nn.functional.max_unpool2d(
        *L.nn.functional.max_pool2d(_t(L, X4), 2, return_indices=True), 2).pow(2).sum()
        + L.nn.functional.max_unpool3d(
            *L.nn.functional.max_pool3d(_t(L, X5), 2, return_indices=True), 2).pow(2).sum()),
    "bicubic": lambda L: L.nn.functional.interpolate(_t(L, X4), scale_factor=1.5,
                                                     mode="bicubic").pow(2).sum(),
    "affine_grid": lambda L: L.nn.functional.affine_grid(_t(L, THETA), (2, 1, 3, 4),
                                                         align_corners=False).pow(2).sum(),
})

SYM = M[:, :3] @ M[:, :3].T + 3 * np.eye(3)
EXTRA.update({  # torch.dist, matrix_exp and eigvalsh (ember/ops/matrix_functions.py)
    "dist": lambda L: L.dist(_t(L, M), _t(L, P), 3),
    "matrix_exp": lambda L: L.linalg.matrix_exp(_t(L, M[:, :3] * 0.3)).sum(),
    "eigvalsh": lambda L: L.linalg.eigvalsh(_t(L, SYM)).sum(),
})

EXTRA.update({  # householder_product and ormqr (ember/ops/householder.py)
    "householder_product": lambda L: L.linalg.householder_product(_t(L, M.T), _t(L, V[:3])).sum(),
    "ormqr": lambda L: L.ormqr(_t(L, M.T), _t(L, V[:3]), _t(L, M.T[:, :2]), left=True,
                               transpose=True).sum(),
})

SPD = M[:, :3] @ M[:, :3].T + 3 * np.eye(3)


def _decompositions(L):
    a, s = _t(L, M[:, :3] + 3 * np.eye(3)), _t(L, SPD)
    parts = [L.linalg.cholesky(s), L.cholesky(s), *L.linalg.qr(a), *L.linalg.eigh(s),
             *L.linalg.svd(a, full_matrices=False), L.linalg.slogdet(a)[1], L.logdet(s),
             *L.linalg.lu(a)[1:]]
    return sum(p.abs().sum() for p in parts)


EXTRA.update({"decompositions": _decompositions})


def _forward_ad_tangent(L):
    """A tangent computed from a primal that requires grad (its node: the tangent's graph)."""
    fw = L.autograd.forward_ad
    y = _t(L, M)
    with fw.dual_level():
        return fw.unpack_dual((fw.make_dual(y, L.tensor(P)) * y).sin().sum()).tangent


EXTRA["forward_ad_tangent"] = _forward_ad_tangent


def _ctc(L):
    logits = _t(L, np.random.default_rng(3).standard_normal((6, 2, 4)))
    targets = L.tensor([[1, 2], [3, 3]])
    return L.nn.functional.ctc_loss(logits.log_softmax(2), targets, (6, 6), (2, 2))


def _fractional(L):
    x2 = _t(L, np.random.default_rng(4).standard_normal((1, 2, 6, 6)))
    x3 = _t(L, np.random.default_rng(5).standard_normal((1, 2, 5, 5, 5)))
    s2 = L.tensor([[[0.3, 0.7], [0.5, 0.1]]], dtype=x2.dtype)
    s3 = L.tensor([[[0.3, 0.7, 0.2], [0.5, 0.1, 0.9]]], dtype=x3.dtype)
    return (L.nn.functional.fractional_max_pool2d(x2, 2, output_size=3, _random_samples=s2).sum()
            + L.nn.functional.fractional_max_pool3d(x3, 2, output_size=3,
                                                     _random_samples=s3).sum())


EXTRA.update({"ctc_loss": _ctc, "fractional_max_pool": _fractional})


def _complex_nodes(L):
    """Every node of ember/ops/complex_ops.py, summed into one real loss."""
    x, r, a = _t(L, M[:, :2]), _t(L, P[:, 0]), _t(L, V[:3])
    z = L.view_as_complex(x) * L.polar(r, a) + L.complex(r, a)
    w = z.conj() * z.conj_physical()
    parts = [L.view_as_real(w), w.real, w.imag, w.abs(), w.angle(), w.angle() * 0 + a.angle()]
    return sum(p.sum() for p in parts)


EXTRA.update({"complex": _complex_nodes})


def _fft_nodes(L):
    """The three transforms of ember/fft.py (c2c, r2c, c2r)."""
    x = _t(L, M)
    return L.fft.irfft(L.fft.fft(L.fft.rfft(x), dim=0) * 2, n=4).pow(2).sum()


EXTRA.update({"fft": _fft_nodes})


def _triangular_and_strided(L):
    """linalg.solve_triangular's node (substitution) and as_strided's."""
    a = _t(L, np.triu(P[:, :3]) + np.eye(3))
    x = L.linalg.solve_triangular(a, _t(L, M), upper=True)
    return x.sum() + (_t(L, M) * 1).as_strided((2, 2), (1, 3), 1).sum()


EXTRA.update({"triangular_and_strided": _triangular_and_strided})


def _eig(L):
    """linalg.eig's node (ember/ops/eig.py), through a phase-invariant loss."""
    w, v = L.linalg.eig(_t(L, M[:, :3] + 3 * np.eye(3)))
    return w.abs().sum() + v.abs().sum()


EXTRA.update({"eig": _eig})


def _scatter_reduce(L):
    """scatter_reduce's node (ember/ops/scatter_reduce.py), one reduction that saves values."""
    return _t(L, M[0]).scatter_reduce(0, L.tensor([0, 0, 1]), _t(L, P[0, :3]), "amax").sum()


def _index_reduce(L):
    """index_reduce's node (scatter_reduce's, spread along dim)."""
    return _t(L, M).index_reduce(0, L.tensor([2, 0]), _t(L, P[:2]), "amin").sum()


EXTRA.update({"scatter_reduce": _scatter_reduce, "index_reduce": _index_reduce})


def _poisson(L):
    """torch.poisson's node: counts with a zero gradient (seeded, so both draw the same)."""
    L.manual_seed(0)
    rate = _t(L, P)
    return (L.poisson(rate) * rate).sum()


EXTRA.update({"poisson": _poisson})


def _gamma_family(L):
    """torch._standard_gamma's node (its implicit gradient), igamma/igammac (the gradient in
    x) and the scaled Bessel functions (second order: each one's derivative uses the other)."""
    L.manual_seed(0)
    alpha = _t(L, P)
    x = _t(L, P + 0.5)
    (g,) = L.autograd.grad((L.special.i0e(x) + L.special.i1e(x)).sum(), x, create_graph=True)
    a = _t(L, P, grad=False)
    return (L._standard_gamma(alpha) + L.igamma(a, x) + L.igammac(a, x)).sum() + (g * g).sum()


EXTRA.update({"gamma_family": _gamma_family})


def _special_family(L):
    """torch.special's erfcx, log_ndtr, ndtri and zeta nodes (zeta's gradient in q; in x
    torch has none, so x enters as a tensor without grad or as a number)."""
    x = _t(L, M)
    p = _t(L, R.uniform(0.05, 0.95, (3, 4)))
    q = _t(L, P + 1.0)
    s = _t(L, P + 2.0, grad=False)
    return (L.special.erfcx(x) + L.special.log_ndtr(x) + L.special.ndtri(p)
            + L.special.zeta(s, q) + L.special.zeta(3.0, q)).sum()



EXTRA.update({"special_family": _special_family})


def _resampling(L):
    """The resampling nodes: bicubic, and the anti-aliased bilinear, bicubic and Lanczos."""
    x = _t(L, R.standard_normal((1, 2, 6, 7)))
    F = L.nn.functional
    outs = [F.interpolate(x, size=(4, 5), mode="bicubic", align_corners=False)]
    outs += [F.interpolate(x, size=(3, 4), mode=mode, antialias=True)
             for mode in ("bilinear", "bicubic", "lanczos")]
    return sum(o.sum() for o in outs)


EXTRA.update({"resampling": _resampling})
EXTRA.update({"vdot": lambda L: L.vdot(_t(L, V), _t(L, V) * 2)})  # VdotBackward0 (real vectors)
EXTRA.update({"cdist_by_mm": lambda L: L.cdist(_t(L, R.standard_normal((30, 4))),  # CdistBackward0
                                               _t(L, R.standard_normal((5, 4)))).sum()})
EXTRA.update({"frexp": lambda L: L.frexp(_t(L, M * 7)).mantissa.pow(2).sum()})  # FrexpBackward0
