"""The composites of ember/ops/composites.py against torch: values, gradients (first and
second order) and torch's errors."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember

R = np.random.default_rng(0)
M = R.standard_normal((3, 4))
T3 = R.standard_normal((2, 3, 4))

CASES = {
    "square": (lambda L, x: L.square(x), M),
    "square_method": (lambda L, x: x.square(), M),
    "ravel": (lambda L, x: L.ravel(x.transpose(0, 1)), M),
    "fliplr": (lambda L, x: L.fliplr(x), T3),
    "flipud": (lambda L, x: x.flipud(), T3),
    "rot90": (lambda L, x: L.rot90(x), M),
    "rot90_k2": (lambda L, x: L.rot90(x, 2, (1, 2)), T3),
    "rot90_k3": (lambda L, x: x.rot90(-1, [2, 0]), T3),
    "rot90_k0": (lambda L, x: L.rot90(x, 4), M),
    "diff": (lambda L, x: L.diff(x), M),
    "diff_n2_dim0": (lambda L, x: L.diff(x, 2, 0), T3),
    "diff_prepend_append": (lambda L, x: x.diff(dim=1, prepend=x[:, :2] * 2, append=x[:, :1]),
                            M),
    "cross": (lambda L, x: L.cross(x[:, :3], x[:, 1:], dim=1), M),
    "cross_broadcast": (lambda L, x: L.linalg.cross(x[..., :3], x[:1, :1, 1:]), T3),
    "kron": (lambda L, x: L.kron(x[:2, :3], x[1:, 2:]), M),
    "kron_ranks": (lambda L, x: L.kron(x[0], x[1, :2, :3]), T3),
    "block_diag": (lambda L, x: L.block_diag(x[:2, :3], x[0], x[1, 1], x[1:, :1]), M),
    "vstack": (lambda L, x: L.vstack([x, x[0], x[1:] * 2]), M),
    "hstack": (lambda L, x: L.hstack([x, x[:, :1]]), M),
    "hstack_1d": (lambda L, x: L.hstack([x[0], x[1, :2]]), M),
    "masked_scatter": (lambda L, x, s: x.masked_scatter(x > 0.2, s), M, R.standard_normal(13)),
    "masked_scatter_broadcast": (
        lambda L, x, s: L.masked_scatter(x, L.tensor([True, False, True, True]), s),
        M, R.standard_normal((4, 4))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, *inputs = CASES[name]
    check(fn, *inputs, same_grad_fn=False)
    check(fn, *[np.asarray(a, np.float32) for a in inputs], rtol=1e-5, same_grad_fn=False)


@pytest.mark.parametrize("name", ["cross", "cross_broadcast", "kron", "kron_ranks"])
def test_nodes_named_as_torch(name):
    """cross (LinalgCrossBackward0) and kron (UnsafeViewBackward0) end in torch's node."""
    fn, *inputs = CASES[name]
    check(fn, *inputs)


@pytest.mark.parametrize("kw", [{}, dict(N=3, increasing=True), dict(N=0)])
def test_vander_matches_torch(kw):
    # gradients by finite differences: torch's own vander backward fails (an in-place write
    # into a tensor its backward saved)
    check(lambda L, x: L.vander(x, **kw), M[0], grad=False)
    x = ember.tensor(M[0], requires_grad=True)
    assert ember.autograd.gradcheck(lambda x: ember.vander(x, **kw), (x,))
    for lib in (torch, ember):
        assert lib.vander(lib.tensor([1, 2, 3])).tolist() == [[1, 1, 1], [4, 2, 1], [9, 3, 1]]


def test_nan_to_num_matches_torch():
    x = np.array([[1.0, np.nan, np.inf], [-np.inf, -2.0, 0.5]])
    check(lambda L, x: L.nan_to_num(x * 2), x)  # NanToNumBackward0, as torch
    check(lambda L, x: (x * 1).nan_to_num(nan=1.5, posinf=9.0, neginf=-9.0), x)
    check(lambda L, x: L.nan_to_num(x), x.astype(np.float32), grad=False)
    for lib in (torch, ember):
        assert lib.nan_to_num(lib.tensor([1, 2])).tolist() == [1, 2]


def test_tensor_split_matches_torch():
    for args in [(3,), (4, 1), ([2, 1, 9],), ([1, 3], -1), (ember.tensor([1, 2]),)]:
        t_args = tuple(torch.tensor(a.tolist()) if isinstance(a, ember.Tensor) else a
                       for a in args)
        e_parts = ember.tensor(M).tensor_split(*args)
        t_parts = torch.tensor(M).tensor_split(*t_args)
        assert [p.tolist() for p in e_parts] == [p.tolist() for p in t_parts]


def test_in_place_forms_bump_the_version():
    for lib in (torch, ember):
        x = lib.tensor([[1.0, float("nan")], [2.0, 3.0]])
        x.nan_to_num_(nan=-1.0).square_()
        assert x._version == 2 and x.tolist() == [[1.0, 1.0], [4.0, 9.0]]
        y = lib.zeros(2, 2)
        y.masked_scatter_(lib.tensor([[True, False], [False, True]]), lib.tensor([5.0, 6.0]))
        assert y.tolist() == [[5.0, 0.0], [0.0, 6.0]]




@pytest.mark.parametrize("call", [
    lambda L: L.fliplr(L.ones(3)),
    lambda L: L.flipud(L.tensor(1.0)),
    lambda L: L.rot90(L.ones(3)),
    lambda L: L.rot90(L.ones(2, 2), 1, [0, 0]),
    lambda L: L.rot90(L.ones(2, 2), 1, [0]),
    lambda L: L.cross(L.ones(2, 4), L.ones(2, 4), dim=1),
    lambda L: L.cross(L.ones(2, 3), L.ones(2, 3, dtype=L.float64), dim=1),
    lambda L: L.linalg.cross(L.ones(2, 3), L.ones(3)),
    lambda L: L.block_diag(L.ones(1, 2, 3)),
    lambda L: L.diff(L.tensor(1.0)),
    lambda L: L.zeros(3).masked_scatter(L.tensor([True, True, False]), L.ones(1)),
    lambda L: L.zeros(3).masked_scatter(L.tensor([1, 1, 0]), L.ones(3)),
])
def test_errors_as_torch(call):
    same_error(call)


@pytest.mark.parametrize("sections", [
    lambda L: 2.0, lambda L: [1.5], lambda L: (1, 2.0), lambda L: L.tensor([1.5]),
    lambda L: L.tensor(2.0), lambda L: L.tensor([True]), lambda L: L.tensor([[1]]),
    lambda L: L.tensor(2, dtype=L.int32)])
def test_tensor_split_refuses_non_integer_indices_as_torch(sections):
    """(float indices and counts were truncated)"""
    from oracle import same_error
    same_error(lambda L: L.tensor_split(L.tensor([1, 2, 3]), sections(L)))


@pytest.mark.parametrize("call", [
    lambda L: L.cross(L.tensor([True, False, True]), L.tensor([True, True, False]), dim=0),
    lambda L: L.linalg.cross(L.tensor([True, False, True]), L.tensor([True, True, False])),
    lambda L: L.cross(L.tensor([True, False, True]), L.tensor([0, 1, 0]), dim=0)])
def test_cross_of_bool_raises_as_torch(call):
    """(NumPy's boolean-subtract TypeError leaked)"""
    same_error(call)


def test_vander_values_are_running_products_as_torch():
    """x**k as torch computes it, each power the previous times x (pow rounds otherwise: 11 of
    48 float64 elements differed when ember took pow)."""
    x = np.array([1.1, -2.3, 3.7, 0.3])
    for kw in ({"N": 12}, {"N": 12, "increasing": True}):
        t = torch.vander(torch.tensor(x), **kw)
        e = ember.vander(ember.tensor(x), **kw)
        np.testing.assert_array_equal(e.numpy(), t.numpy())


@pytest.mark.parametrize("N", [None, 2, 7])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_linalg_vander_matches_torch(N, dtype):
    x = np.array([[1.1, -2.3, 3.7], [0.5, 2.0, -1.5]], dtype=dtype)
    check(lambda L, x: L.linalg.vander(x, N=N), x, rtol=1e-5 if dtype == np.float32 else 1e-12)
    t = torch.linalg.vander(torch.tensor(x), N=N)
    np.testing.assert_array_equal(ember.linalg.vander(ember.tensor(x), N=N).numpy(), t.numpy())
    for lib in (torch, ember):
        assert lib.linalg.vander(lib.tensor([[1, 2], [3, 4]])).tolist() == \
            [[[1, 1], [1, 2]], [[1, 3], [1, 4]]]


@pytest.mark.parametrize("call", [lambda L: L.linalg.vander(L.tensor(2.0)),
                                  lambda L: L.linalg.vander(L.tensor([1.0, 2.0]), N=1),
                                  lambda L: L.linalg.vander(L.tensor([True]))])
def test_linalg_vander_errors_as_torch(call):
    same_error(call)
