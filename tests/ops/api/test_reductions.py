"""The public functions of ember/ops/api/reductions.py (sum, mean, prod, amax, var, std, logsumexp, norm, all, any, ...),
called as ``ember.X``: values, gradients, second derivatives and grad_fn names against torch 2.13."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember

from ._cases import A, C, I

REDUCTIONS = {
    "sum_dtype": (lambda L, a: L.sum(L.tensor(I), dtype=L.float64), A),
    "sum_dims": (lambda L, c: L.sum(c, (0, 2), keepdim=True), C),
    "mean": (lambda L, c: L.mean(c, -1), C),
    "prod": (lambda L, a: L.prod(a, 0), A),
    "amax": (lambda L, c: L.amax(c, (1, 2)), C),
    "amin": (lambda L, c: L.amin(c, 0, keepdim=True), C),
    "argmax": (lambda L, a: L.argmax(a, 1), A),
    "argmin": (lambda L, a: L.argmin(a), A),
    "var": (lambda L, c: L.var(c, 1, correction=0), C),
    "std": (lambda L, c: L.std(c, (0, 1)), C),
    "logsumexp": (lambda L, c: L.logsumexp(c, 2), C),
    "norm": (lambda L, a: L.norm(a, p=3, dim=1), A),
    "sum_to_size": (lambda L, c: c.sum_to_size(1, 3, 1), C),
    "all": (lambda L, a: L.all(a > -5, 1), A),
    "any": (lambda L, a: L.any(a > 1), A),
    "count_nonzero": (lambda L, a: L.count_nonzero(a > 0, 0), A),
}


CASES = {**REDUCTIONS}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, *inputs = CASES[name]
    check(fn, *inputs)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reduction_of_an_empty_tensor_raises_index_error_as_torch(name):
    same_error(lambda L: getattr(L, name)(L.zeros(0, 3)))


def _norm_and_grad(lib, p, **kwargs):
    x = lib.tensor([[0.0, 2.0, 0.0], [-3.0, 0.0, 0.0]], requires_grad=True)
    out = lib.norm(x, p=p, **kwargs)
    out.sum().backward()
    return out, x.grad


@pytest.mark.parametrize("p", [0, 0.0, -float("inf")])
@pytest.mark.parametrize("kwargs", [{}, {"dim": 1}, {"dim": 0, "keepdim": True}])
def test_norm_of_order_zero_and_minus_inf_as_torch(p, kwargs):
    """(p=0 raised ZeroDivisionError, p=-inf was 1: both went through the sum-of-powers form)"""
    import torch

    import ember
    (out, grad), (want, want_grad) = _norm_and_grad(ember, p, **kwargs), \
        _norm_and_grad(torch, p, **kwargs)
    assert out.tolist() == want.tolist() and str(out.dtype)[6:] == str(want.dtype)[6:]
    assert type(out.grad_fn).__name__ == type(want.grad_fn).__name__
    assert (grad is None) == (want_grad is None)  # torch leaves no gradient at all for p=0
    if want_grad is not None:
        assert grad.tolist() == want_grad.tolist()


ZERO_D_DIM_OPS = {
    "max": lambda L, x, d: tuple(x.max(d)), "min": lambda L, x, d: tuple(x.min(d, keepdim=True)),
    "all": lambda L, x, d: x.all(d), "any": lambda L, x, d: L.any(x, (d,)),
    "count_nonzero": lambda L, x, d: x.count_nonzero(d), "sum": lambda L, x, d: x.sum(d)}


@pytest.mark.parametrize("dim", [0, -1, 1, -2])
@pytest.mark.parametrize("name", list(ZERO_D_DIM_OPS))
def test_a_0d_tensor_takes_dims_0_and_minus_1_only_as_torch(name, dim):
    """(max/min took any dim; all/any/count_nonzero leaked NumPy's AxisError past 0 and -1)"""
    from oracle import both_trees
    op = ZERO_D_DIM_OPS[name]
    if dim in (0, -1):
        both_trees(lambda L: op(L, L.tensor(3.0), dim))
    else:
        same_error(lambda L: op(L, L.tensor(3.0), dim))


@pytest.mark.parametrize("call", [
    lambda L: L.norm(L.ones(2, 2, 2), "nuc"), lambda L: L.norm(L.ones(2), "nuc"),
    lambda L: L.norm(L.ones(2, 3), "nuc", dim=1), lambda L: L.norm(L.ones(2, 3), "abc")])
def test_norm_of_string_orders_refuses_as_torch(call):
    """(NumPy's power TypeError leaked)"""
    same_error(call)


@pytest.mark.parametrize("kwargs", [{}, {"dim": (1, 0)}, {"keepdim": True}])
def test_nuclear_norm_as_torch(kwargs):
    from oracle import both_trees
    both_trees(lambda L: L.norm(L.tensor([[3.0, 1.0], [0.0, 2.0], [1.0, 1.0]]), "nuc", **kwargs))


# ---------------------------------------------------------------- dims and keepdim (probe finds)
_KEEP = {
    "sum None": lambda L, x: x.sum(None, keepdim=True), "mean None": lambda L, x: x.mean(None, True),
    "torch.sum": lambda L, x: L.sum(x, dim=None, keepdim=True), "sum ()": lambda L, x: x.sum((), keepdim=True),
    "mean ()": lambda L, x: x.mean((), keepdim=True), "argmax None": lambda L, x: x.argmax(None, keepdim=True),
    "argmin": lambda L, x: x.argmin(keepdim=True), "count_nonzero ()": lambda L, x: L.count_nonzero(x, ()),
    "any ()": lambda L, x: x.bool().any(()), "sum () 0-d": lambda L, x: x.sum(()),
}


@pytest.mark.parametrize("name", sorted(_KEEP))
@pytest.mark.parametrize("shape", [(2, 3), (3,), (2, 1, 4)])
def test_every_dim_kept_as_torch(name, shape):
    # sum/mean(dim=None or (), keepdim=True) and argmax(keepdim=True) gave a 0-d tensor (torch:
    # every dim kept as size 1); count_nonzero(dim=()) reduced nothing (torch: every dim)
    out = []
    for L in (torch, ember):
        x = L.arange(float(np.prod(shape))).reshape(shape).requires_grad_()
        r = _KEEP[name](L, x)
        out.append((tuple(r.shape), r.tolist(), type(r.grad_fn).__name__))
    assert out[1] == out[0]


@pytest.mark.parametrize("call", [
    lambda L: L.ones(2, 3).sum((1, -1)), lambda L: L.ones(2, 3).bool().any((0, 0)),
    lambda L: L.count_nonzero(L.ones(2, 3), (1, 1)), lambda L: L.ones(2, 1).squeeze((1, -1)),
    lambda L: L.ones(2, 3).std((0, -2)), lambda L: L.quantile(L.zeros(2, 0), 0.5, 0),
    lambda L: L.quantile(L.zeros(0), 0.5, 1), lambda L: L.aminmax(L.zeros(0)),
    lambda L: L.aminmax(L.zeros(0), dim=-1)])
def test_repeated_dims_and_empty_inputs_raise_torch_errors(call):
    same_error(call)


@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 4)])
@pytest.mark.parametrize("dim", [(), []])
def test_logsumexp_over_no_dims_is_torchs_error(shape, dim):
    """torch adds the max over all dims, kept as [1, ..., 1], in place into the 0-d sum; ember
    returned the logsumexp of everything"""
    same_error(lambda L: L.logsumexp(L.ones(shape), dim=dim))
    same_error(lambda L: L.ones(shape).logsumexp(dim))


@pytest.mark.parametrize("call", [
    lambda L: L.logsumexp(L.ones(2, 3), dim=(), keepdim=True),
    lambda L: L.logsumexp(L.tensor(2.0), dim=()), lambda L: L.logsumexp(L.ones(0, 2), dim=())])
def test_logsumexp_over_no_dims_kept_of_0d_or_empty_as_torch(call):
    e, t = call(ember), call(torch)
    assert e.shape == t.shape and e.tolist() == t.tolist()


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "std", "var", "logsumexp",
                                  "nansum", "nanmean", "any", "all", "count_nonzero", "norm",
                                  "std_mean", "var_mean"])
@pytest.mark.parametrize("dim", [[None], (None,), (0, None)])
def test_none_among_the_dims_is_a_type_error_naming_dim(name, dim):
    """ember let Python's "'<=' not supported between instances of 'int' and 'NoneType'" out"""
    with pytest.raises(TypeError):
        getattr(torch, name)(torch.ones(2, 3), dim=dim)
    with pytest.raises(TypeError, match="argument 'dim'"):
        getattr(ember, name)(ember.ones(2, 3), dim=dim)


@pytest.mark.parametrize("name", ["argmax", "argmin", "prod", "max", "min", "median",
                                  "nanmedian", "mode", "cumsum", "softmax"])
@pytest.mark.parametrize("dim", [(0,), [0], (0, None)])
def test_a_tuple_for_one_dim_is_a_type_error_naming_dim(name, dim):
    """ember reduced over a 1-tuple (argmax, prod) or let Python's comparison error out"""
    with pytest.raises(TypeError):
        getattr(torch, name)(torch.ones(2, 3), dim=dim)
    with pytest.raises(TypeError, match="argument 'dim'"):
        getattr(ember, name)(ember.ones(2, 3), dim=dim)


@pytest.mark.parametrize("name", ["amax", "amin", "max", "min", "argmax", "argmin", "median",
                                  "nanmedian", "mode"])
@pytest.mark.parametrize("dim", [0, -2])
def test_empty_reduction_dim_named_as_torch(name, dim):
    """amax/amin name the dim as given (-2), the others as wrapped (0); ember named 0 for all"""
    same_error(lambda L: getattr(L, name)(L.ones(0, 3), dim=dim))


@pytest.mark.parametrize("dim", [(-1, 0), (1, 0), (0, -1), (-1, -2)])
def test_amax_names_the_first_empty_dim_as_given(dim):
    same_error(lambda L: L.zeros(0, 0).amax(dim=dim))
    same_error(lambda L: L.zeros(0, 0).amin(dim=dim))


@pytest.mark.parametrize("call", [
    lambda L, x: x.max(dim=None), lambda L, x: L.min(x, dim=None), lambda L, x: x.median(dim=None),
    lambda L, x: x.nanmedian(dim=None), lambda L, x: x.prod(dim=None),
    lambda L, x: x.squeeze(dim=None), lambda L, x: x.logsumexp(dim=None),
    lambda L, x: x.clone().squeeze_(None), lambda L, x: L.squeeze(x, None)])
def test_an_explicit_dim_none_is_refused_as_torch(call):
    """torch's overloads take an int dim or none at all: dim=None is a TypeError (ember reduced
    over every element, as if dim had been left out)."""
    for lib in (torch, ember):
        x = lib.tensor([[1.0, 5.0], [3.0, 2.0]])
        with pytest.raises(TypeError, match="dim"):
            call(lib, x)
        assert x.max().item() == 5.0 and x.median().item() == 2.0 and x.prod().item() == 30.0
        assert x.nanmedian().item() == 2.0 and x[None].squeeze().shape == (2, 2)
