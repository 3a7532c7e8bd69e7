"""Sorting (ember/ops/sorting.py): sort, argsort, topk against torch, values and derivatives."""
import numpy as np
import pytest
import torch
from oracle import check, close

import ember

R = np.random.default_rng(0)
X34 = R.standard_normal((3, 4))
TIES = np.array([[1.0, 3.0, 3.0, 1.0], [2.0, np.nan, 2.0, -1.0]])

CASES = {
    "sort": lambda L, x: L.sort(x).values,
    "sort_dim0_desc": lambda L, x: L.sort(x, 0, descending=True)[0],
    "sort_method": lambda L, x: x.sort(dim=-1, descending=True).values,
    "sort_stable": lambda L, x: L.sort(x, stable=True, dim=1).values,
    "topk": lambda L, x: L.topk(x, 2).values,
    "topk_smallest_dim0": lambda L, x: x.topk(2, dim=0, largest=False)[0],
    "topk_all": lambda L, x: L.topk(x, k=4).values,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_derivatives_match_torch(name):
    check(CASES[name], X34)
    check(CASES[name], X34.astype(np.float32), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("stable", [None, True])
def test_sort_indices_with_ties_and_nan_match_torch(descending, stable):
    kw = {} if stable is None else {"stable": stable}
    e = ember.sort(ember.tensor(TIES), descending=descending, **kw)
    t = torch.sort(torch.tensor(TIES), descending=descending, **kw)
    close(e.values, t.values)
    close(e.indices, t.indices)
    close(ember.argsort(ember.tensor(TIES), descending=descending),
          torch.argsort(torch.tensor(TIES), descending=descending))


def test_integer_and_scalar_inputs():
    ints = np.array([5, -2, 7, 7, 0])
    for lib_e, lib_t in ((ember.sort, torch.sort), (lambda x: ember.topk(x, 3),
                                                     lambda x: torch.topk(x, 3))):
        e, t = lib_e(ember.tensor(ints)), lib_t(torch.tensor(ints))
        close(e.values, t.values)
        close(e.indices, t.indices)
    e, t = ember.sort(ember.tensor(2.5)), torch.sort(torch.tensor(2.5))
    close(e.values, t.values)
    close(e.indices, t.indices)
    close(ember.argsort(ember.tensor([3, 1, 2]), descending=True),
          torch.argsort(torch.tensor([3, 1, 2]), descending=True))


def test_topk_returns_values_and_indices_like_torch():
    e, t = ember.topk(ember.tensor(X34), 3, dim=1), torch.topk(torch.tensor(X34), 3, dim=1)
    close(e.indices, t.indices)
    values, indices = e
    assert values is e.values and indices is e.indices
    assert repr(e).startswith("torch.return_types.topk(")
    with ember.no_grad():
        close(ember.topk(ember.tensor(X34, requires_grad=True), 1).indices,
              torch.topk(torch.tensor(X34), 1).indices)


@pytest.mark.parametrize("k", [5, -1])
def test_topk_k_out_of_range(k):
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        torch.topk(torch.zeros(3, 4), k)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        ember.topk(ember.zeros(3, 4), k)


def test_sort_dim_out_of_range():
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.sort(ember.zeros(3, 4), 2)


@pytest.mark.parametrize("dim", [0, -1, 1, -2])
def test_argsort_of_a_0d_tensor_checks_dim_as_torch(dim):
    """(any dim was taken)"""
    from oracle import same_error
    if dim in (0, -1):
        assert ember.tensor(3.0).argsort(dim).tolist() == torch.tensor(3.0).argsort(dim).tolist()
    else:
        same_error(lambda L: L.tensor(3.0).argsort(dim))


@pytest.mark.parametrize("k", [0, 1])
def test_topk_of_a_0d_tensor_is_the_tensor_as_torch(k):
    """(k=0 raised NumPy's reshape ValueError)"""
    def run(lib):
        x = lib.tensor(3.0, requires_grad=True)
        values, indices = lib.topk(x, k)
        values.backward()
        return values.tolist(), indices.tolist(), tuple(values.shape), x.grad.tolist()
    assert run(ember) == run(torch)


@pytest.mark.parametrize("seed", range(6))
def test_topk_returns_equal_values_in_torchs_order(seed):
    """torch's topk is a partial sort / nth_element + sort (libstdc++), not stable: among equal
    values its indices come in that algorithm's order; sorted=False in the selection's own
    order. ember steps the same algorithm where ties reach the result (ember/_select.py)."""
    rng = np.random.default_rng(seed)
    for trial in range(60):
        shape = tuple(int(v) for v in rng.integers(1, 40, int(rng.integers(1, 3))))
        dim = int(rng.integers(-len(shape), len(shape)))
        k = int(rng.integers(0, shape[dim] + 1))
        x = rng.integers(0, 4, shape).astype(np.float32)
        if trial % 4 == 0:
            x[x == 3] = np.nan
        largest, srt = bool(trial % 2), bool(trial % 3)
        t = torch.topk(torch.tensor(x), k, dim, largest, srt)
        e = ember.topk(ember.tensor(x), k, dim, largest, srt)
        assert e.indices.tolist() == t.indices.tolist()
        np.testing.assert_array_equal(e.values.numpy(), t.values.numpy())


def test_multinomial_without_replacement_breaks_ties_as_torchs_topk():
    for dtype in ("float16", "bfloat16"):
        out = []
        for lib in (ember, torch):
            lib.manual_seed(6)
            w = lib.rand(4, 50).to(getattr(lib, dtype))
            out.append(lib.multinomial(w, 20, False).tolist())
        assert out[0] == out[1]


@pytest.mark.parametrize("seed", range(4))
def test_sort_without_stable_orders_equal_values_as_torch(seed):
    """torch.sort / argsort with stable=False (the default) are libstdc++'s std::sort: equal
    values beyond 16 elements come out of order; stable=True keeps them in input order.
    mode's index is the last of the mode's run in that same sort."""
    rng = np.random.default_rng(seed)
    for trial in range(40):
        shape = tuple(int(v) for v in rng.integers(1, 60, int(rng.integers(1, 3))))
        dim = int(rng.integers(-len(shape), len(shape)))
        x = rng.integers(0, 4, shape).astype(np.float32)
        if trial % 4 == 0:
            x[x == 3] = np.nan
        desc = bool(trial % 2)
        for stable in (None, False, True):
            kwargs = {} if stable is None else {"stable": stable}
            t = torch.sort(torch.tensor(x), dim=dim, descending=desc, **kwargs)
            e = ember.sort(ember.tensor(x), dim=dim, descending=desc, **kwargs)
            assert e.indices.tolist() == t.indices.tolist()
        assert ember.argsort(ember.tensor(x), dim, desc).tolist() == \
            torch.argsort(torch.tensor(x), dim, desc).tolist()
        t, e = torch.mode(torch.tensor(x), dim), ember.mode(ember.tensor(x), dim)
        assert e.indices.tolist() == t.indices.tolist()


@pytest.mark.parametrize("call", [lambda L, x: x.sort(1, stable=True), lambda L, x: L.sort(x, 1, stable=True),
                                  lambda L, x: x.argsort(1, stable=True), lambda L, x: x.sort(1, True, stable=False)])
def test_stable_takes_dim_and_descending_as_keywords_only(call):
    # torch's parser has no overload with a positional dim and stable=: ember accepted it
    for L in (torch, ember):
        with pytest.raises(TypeError):
            call(L, L.tensor([[3., 1, 2], [1, 1, 0]]))
    for L in (torch, ember):
        assert L.tensor([[3., 1, 2]]).sort(dim=1, descending=True, stable=True)[1].tolist() == [[0, 2, 1]]
