"""The public functions of ember/ops/api/shapes.py (reshape, view, transpose, permute, expand, cat, stack, split, ...),
called as ``ember.X``: values, gradients, second derivatives and grad_fn names against torch 2.13."""
import pytest
import torch
from oracle import check, same_error

import ember

from ._cases import A, B, C

SHAPES = {
    "reshape": (lambda L, c: L.reshape(c, (4, -1)), C),
    "view": (lambda L, c: c.view(6, 4), C),
    "flatten": (lambda L, c: L.flatten(c, 1), C),
    "unflatten": (lambda L, c: L.unflatten(c, 2, (2, 2)), C),
    "squeeze": (lambda L, c: L.squeeze(c[:, :1], 1), C),
    "unsqueeze": (lambda L, c: L.unsqueeze(c, -1), C),
    "transpose": (lambda L, c: L.transpose(c, 0, 2), C),
    "t": (lambda L, a: L.t(a), A),
    "permute": (lambda L, c: L.permute(c, (1, 2, 0)), C),
    "expand": (lambda L, a: a[:1].expand(5, 3, 4), A),
    "broadcast_to": (lambda L, a: L.broadcast_to(a[0], (2, 4)), A),
    "repeat": (lambda L, a: a.repeat(2, 1), A),
    "flip": (lambda L, c: L.flip(c, (0, 2)), C),
    "narrow": (lambda L, c: L.narrow(c, 2, 1, 2), C),
    "select": (lambda L, c: L.select(c, 1, -1), C),
    "split": (lambda L, c: L.split(c, [1, 3], 2)[1], C),
    "chunk": (lambda L, c: L.chunk(c, 3, 1)[2], C),
    "unbind": (lambda L, c: L.unbind(c, 1)[0], C),
    "cat": (lambda L, a, b: L.cat([a, b, a], 1), A, B),
    "stack": (lambda L, a, b: L.stack([a, b], -1), A, B),
}


CASES = {**SHAPES}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, *inputs = CASES[name]
    check(fn, *inputs)


@pytest.mark.parametrize("call", [
    lambda L: L.cat([L.ones(2, 3), L.ones(3, 2)]),
    lambda L: L.ones(2, 3).view(4),
    lambda L: L.stack([L.ones(2), L.ones(3)]),
])
def test_errors_match_torch(call):
    errors = []
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as info:
            call(lib)
        errors.append(str(info.value).replace("torch.", "ember."))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("call", [lambda L: L.flip(L.ones(2)), lambda L: L.ones(2).flip()])
def test_flip_without_dims_raises_type_error_as_torch(call):
    for lib in (torch, ember):
        with pytest.raises(TypeError, match='flip\\(\\) missing 1 required positional arguments: '
                                            '"dims"'):
            call(lib)


@pytest.mark.parametrize("call", [lambda L: L.tensor(1.0).chunk(3), lambda L: L.tensor(1.0).split(2),
                                  lambda L: L.split(L.tensor(1.0), [1])])
def test_chunk_and_split_of_a_0d_tensor_raise_as_torch(call):
    same_error(call)


@pytest.mark.parametrize("call", [
    lambda L: L.zeros(2, 3).split(0), lambda L: L.zeros(2, 3).split(-1),
    lambda L: L.zeros(2, 3).split([1, -1, 3], 1), lambda L: L.zeros(2, 3).chunk(0),
    lambda L: L.zeros(2, 3).chunk(-1), lambda L: L.zeros(2, 3).expand(-1, -1, 3),
    lambda L: L.zeros(2, 3).repeat(-1, 1), lambda L: L.zeros(2, 3).flip((0, 0)),
    lambda L: L.zeros(2, 3).flip((1, -1))])
def test_bad_split_chunk_expand_repeat_flip_arguments_raise_as_torch(call):
    # ember split(0) returned one empty piece and expand(-1, ...) made a new leading dim of 3
    # silently; chunk(0) divided by zero; repeat/flip leaked NumPy's ValueError
    same_error(call)


def test_split_zero_of_an_empty_dim_is_one_empty_piece_as_torch():
    e, t = ember.zeros(0, 3).split(0), torch.zeros(0, 3).split(0)
    assert [tuple(p.shape) for p in e] == [tuple(p.shape) for p in t]


@pytest.mark.parametrize("dims", [(0, 0), (-1, 0), (0, 1), (-2, -1)])
def test_flatten_of_a_0d_tensor_checks_its_dims_as_torch(dims):
    """(any dims were taken)"""
    if all(d in (0, -1) for d in dims):
        assert ember.tensor(3.0).flatten(*dims).tolist() == [3.0]
        assert torch.tensor(3.0).flatten(*dims).tolist() == [3.0]
    else:
        same_error(lambda L: L.tensor(3.0).flatten(*dims))
