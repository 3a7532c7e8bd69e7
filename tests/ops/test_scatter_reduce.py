"""ember/ops/scatter_reduce.py against torch 2.13: values, gradients (ties for amax/amin, zeros
for prod, counts for mean), include_self, dtypes and errors."""
import numpy as np
import pytest
import torch
from oracle import same_error

import ember

REDUCES = ["sum", "prod", "mean", "amax", "amin"]


def _case(lib, reduce, include_self, dim, seed):
    rs = np.random.RandomState(seed)
    x = np.round(rs.randn(4, 5), 1)  # rounded: ties between self and src, and among src
    src = np.round(rs.randn(3, 5), 1)
    if reduce == "prod":
        x[0, 1], src[1, 2], src[2, 2] = 0.0, 0.0, 0.0  # one zero, two zeros in a group
    index = rs.randint(0, 4 if dim == 0 else 5, (3, 4 if dim == 1 else 5))
    if dim == 1:
        src, x = src.T.copy()[:4, :3].T.copy(), x
    a = lib.tensor(x, requires_grad=True)
    s = lib.tensor(src, requires_grad=True)
    out = a.scatter_reduce(dim, lib.tensor(index), s, reduce, include_self=include_self)
    seed_grad = lib.tensor(rs.randn(*out.shape))
    ga, gs = lib.autograd.grad(out, (a, s), seed_grad)
    return out.detach().numpy(), ga.numpy(), gs.numpy()


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("seed", [0, 1])
def test_values_and_gradients_as_torch(reduce, include_self, dim, seed):
    for e, t in zip(_case(ember, reduce, include_self, dim, seed),
                    _case(torch, reduce, include_self, dim, seed)):
        np.testing.assert_allclose(e, t, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin"])
def test_double_backward_as_torch(reduce):
    grads = []
    for lib in (torch, ember):
        a = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64, requires_grad=True)
        s = lib.tensor([5.0, 1.0, 7.0], dtype=lib.float64, requires_grad=True)
        out = a.scatter_reduce(0, lib.tensor([0, 0, 1]), s, reduce) * a
        ga, = lib.autograd.grad(out.sum(), a, create_graph=True)
        grads.append(lib.autograd.grad((ga * ga).sum(), (a, s))[0].tolist())
    assert grads[1] == grads[0]


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "float32"])
@pytest.mark.parametrize("reduce", REDUCES)
def test_dtypes_as_torch(dtype, reduce):
    def run(lib):
        x = lib.tensor([-1, 2, 3, 0], dtype=getattr(lib, dtype))
        s = lib.tensor([-4, -6, 7], dtype=getattr(lib, dtype))
        return x.scatter_reduce(0, lib.tensor([0, 0, 1]), s, reduce).tolist()
    try:
        want = run(torch)
    except (RuntimeError, NotImplementedError):
        same_error(run)
        return
    assert run(ember) == want


@pytest.mark.parametrize("call", [
    lambda L: L.ones(4).scatter_reduce(0, L.tensor([0]), L.ones(1), "foo"),
    lambda L: L.ones(4).scatter_reduce(0, L.tensor([0]), L.ones(1), "add"),
    lambda L: L.ones(4).scatter_reduce(0, L.tensor([0]), L.ones(1, dtype=L.float64), "sum"),
    lambda L: L.ones(4).scatter_reduce(0, L.tensor([9]), L.ones(1), "sum"),
    lambda L: L.ones(4).scatter_reduce(1, L.tensor([0]), L.ones(1), "sum"),
    lambda L: L.ones(4).scatter_reduce(0, L.tensor([0.0]), L.ones(1), "sum"),
    lambda L: L.ones(2, dtype=L.complex64).scatter_reduce(0, L.tensor([0]),
                                                           L.ones(1, dtype=L.complex64), "amax"),
])
def test_errors_as_torch(call):
    same_error(call)


def test_old_names_in_place_and_torch_form():
    for lib in (torch, ember):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0])
        i, s = lib.tensor([0, 0, 1]), lib.tensor([5.0, 6.0, 7.0])
        assert x.scatter_reduce(0, i, s, "max").tolist() == [6.0, 7.0, 3.0, 4.0]
        assert lib.scatter_reduce(x, 0, i, s, "min", include_self=False).tolist() == \
            [5.0, 7.0, 3.0, 4.0]
        assert x.scatter_reduce_(0, i, s, "sum") is x and x.tolist() == [12.0, 9.0, 3.0, 4.0]


def _index_case(lib, reduce, include_self, dim):
    rs = np.random.RandomState(0)
    x = lib.tensor(np.round(rs.randn(5, 3), 1), requires_grad=True)
    if dim == 0:
        s, i = lib.tensor(np.round(rs.randn(4, 3), 1), requires_grad=True), [0, 4, 2, 0]
    else:
        s, i = lib.tensor(np.round(rs.randn(5, 4), 1), requires_grad=True), [2, 0, 2, 1]
    out = x.index_reduce(dim, lib.tensor(i), s, reduce, include_self=include_self)
    ga, gs = lib.autograd.grad(out, (x, s), lib.tensor(rs.randn(*out.shape)))
    return out.detach().numpy(), ga.numpy(), gs.numpy(), type(out.grad_fn).__name__


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1])
def test_index_reduce_values_and_gradients_as_torch(reduce, include_self, dim):
    e, t = _index_case(ember, reduce, include_self, dim), _index_case(torch, reduce, include_self,
                                                                       dim)
    assert e[3] == t[3] == "IndexReduceBackward0"
    for a, b in zip(e[:3], t[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("call", [
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([0, 4, 2, 0]), L.ones(4, 3), "sum"),
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([0, 4, 2]), L.ones(4, 3), "prod"),
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([0, 4, 2, 0]),
                                        L.ones(4, 3, dtype=L.float64), "prod"),
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([0.0, 4, 2, 0]), L.ones(4, 3), "prod"),
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([0, 9, 1, 1]), L.ones(4, 3), "prod"),
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([[0, 4], [2, 0]]), L.ones(4, 3), "prod"),
    lambda L: L.ones(5, 3).index_reduce(0, L.tensor([0, 4, 2, 0]), L.ones(4, 2), "prod"),
])
def test_index_reduce_errors_as_torch(call):
    same_error(call)
