"""Hypothesis property tests: broadcasting, indexing (repeated indices, boolean masks) and
reductions agree with torch in values and gradients for generated shapes and indices."""
import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ember

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _pair(data, dtype=np.float64):
    return data, ember.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)


def _grads_match(e_out, t_out, e_leaves, t_leaves, rtol=1e-10):
    np.testing.assert_allclose(e_out._data, t_out.detach().numpy(), rtol=rtol, atol=1e-12)
    seed = np.random.default_rng(0).standard_normal(tuple(t_out.shape))
    e_out.backward(ember.tensor(seed))
    t_out.backward(torch.tensor(seed))
    for e, t in zip(e_leaves, t_leaves):
        assert e.grad.shape == e.shape  # the engine summed broadcast dims back
        np.testing.assert_allclose(e.grad._data, t.grad.numpy(), rtol=rtol, atol=1e-12)


def _array(shape, seed):
    return np.random.default_rng(seed).uniform(-2, 2, shape)


# ----------------------------------------------------------------- broadcasting
BINARY = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "div": lambda a, b: a / (b * b + 1), "maximum": lambda a, b: (a * 1).maximum(b),
          "pow": lambda a, b: (a * a + 1) ** b}


@SETTINGS
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=3),
       op=st.sampled_from(sorted(BINARY)), seed=st.integers(0, 2**16))
def test_broadcasting_matches_torch(shapes, op, seed):
    a, b = _array(shapes.input_shapes[0], seed), _array(shapes.input_shapes[1], seed + 1)
    _, ea, ta = _pair(a)
    _, eb, tb = _pair(b)
    e_out, t_out = BINARY[op](ea, eb), BINARY[op](ta, tb)
    assert tuple(e_out.shape) == shapes.result_shape
    _grads_match(e_out, t_out, (ea, eb), (ta, tb))


@SETTINGS
@given(a=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
       b=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))
def test_incompatible_broadcast_raises_like_torch(a, b):
    try:
        np.broadcast_shapes(a, b)
        return
    except ValueError:
        pass
    with pytest.raises(RuntimeError) as t_err:
        torch.ones(a) + torch.ones(b)
    with pytest.raises(RuntimeError) as e_err:
        ember.ones(a) + ember.ones(b)
    assert str(e_err.value) == str(t_err.value)


# ----------------------------------------------------------------- indexing
@st.composite
def _basic_index(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    index = draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    return shape, index


def _negative_steps(index):
    items = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, slice) and i.step is not None and i.step < 0 for i in items)


@SETTINGS
@given(case=_basic_index(), seed=st.integers(0, 2**16))
def test_basic_indexing_matches_torch(case, seed):
    shape, index = case
    if _negative_steps(index):  # torch has no negative slice steps
        return
    _, e, t = _pair(_array(shape, seed))
    _grads_match(e[index] * 1, t[index] * 1, (e,), (t,))


@SETTINGS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
       data=st.data(), seed=st.integers(0, 2**16))
def test_integer_array_index_with_repeats_accumulates(shape, data, seed):
    n = shape[0]
    idx = data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=8))
    _, e, t = _pair(_array(shape, seed))
    _grads_match(e[idx], t[idx], (e,), (t,))
    counts = np.bincount(np.array(idx) % n, minlength=n)  # repeated rows collect repeated grads
    assert counts.sum() == len(idx)


@SETTINGS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
       data=st.data(), seed=st.integers(0, 2**16))
def test_boolean_mask_matches_torch(shape, data, seed):
    mask = data.draw(hnp.arrays(np.bool_, shape))
    _, e, t = _pair(_array(shape, seed))
    _grads_match(e[ember.tensor(mask)], t[torch.tensor(mask)], (e,), (t,))
    e2, t2 = ember.tensor(_array(shape, seed), requires_grad=True), \
        torch.tensor(_array(shape, seed), requires_grad=True)
    _grads_match(e2.masked_fill(ember.tensor(mask), 0.0), t2.masked_fill(torch.tensor(mask), 0.0),
                 (e2,), (t2,))


@SETTINGS
@given(shape=hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=4),
       data=st.data(), seed=st.integers(0, 2**16))
def test_index_put_with_repeats_matches_torch(shape, data, seed):
    n = shape[0]
    idx = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=5, unique=True))
    base = _array(shape, seed)
    value = _array((len(idx),) + shape[1:], seed + 7)
    _, e, t = _pair(base)
    _, ev, tv = _pair(value)
    eo, to = e * 1, t * 1
    eo[idx] = ev * 2
    to[idx] = tv * 2
    _grads_match(eo, to, (e, ev), (t, tv))


# ----------------------------------------------------------------- reductions
REDUCE = {"sum": lambda x, d, k: x.sum(d, keepdim=k), "mean": lambda x, d, k: x.mean(d, keepdim=k),
          "amax": lambda x, d, k: x.amax(d, keepdim=k), "amin": lambda x, d, k: x.amin(d, keepdim=k),
          "var": lambda x, d, k: x.var(d, keepdim=k), "std": lambda x, d, k: x.std(d, keepdim=k),
          "logsumexp": lambda x, d, k: x.logsumexp(d, keepdim=k),
          "norm": lambda x, d, k: x.norm(p=2, dim=d, keepdim=k)}


@SETTINGS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=2, max_side=4),
       data=st.data(), op=st.sampled_from(sorted(REDUCE)), keepdim=st.booleans(),
       seed=st.integers(0, 2**16))
def test_reductions_match_torch(shape, data, op, keepdim, seed):
    nd = len(shape)
    dims = tuple(data.draw(st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd,
                                    unique_by=lambda d: d % nd)))
    _, e, t = _pair(_array(shape, seed))
    _grads_match(REDUCE[op](e, dims, keepdim), REDUCE[op](t, dims, keepdim), (e,), (t,))


@SETTINGS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
       data=st.data(), keepdim=st.booleans(), seed=st.integers(0, 2**16))
def test_max_min_dim_and_prod_match_torch(shape, data, keepdim, seed):
    d = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = np.round(_array(shape, seed))  # rounding makes ties and zeros common
    for fn in (lambda v: v.max(d, keepdim=keepdim)[0], lambda v: v.min(d, keepdim=keepdim)[0],
               lambda v: v.prod(d, keepdim=keepdim), lambda v: v.max(), lambda v: v.sum(d)):
        _, e, t = _pair(x)
        _grads_match(fn(e), fn(t), (e,), (t,))
