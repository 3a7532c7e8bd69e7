"""The public functions of ember/ops/api/copies.py (contiguous, clone, to, zero_, fill_, copy_),
called as ``ember.X``: values, gradients, second derivatives and grad_fn names against torch 2.13."""
import pytest
import torch
from oracle import check, close, same_error

import ember

from ._cases import A, B

COPIES = {
    "contiguous": (lambda L, a: a.t().contiguous(), A),
    "clone": (lambda L, a: L.clone(a), A),
    "to_dtype": (lambda L, a: a.to(L.float32), A),
}


CASES = {**COPIES}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, *inputs = CASES[name]
    check(fn, *inputs)


def test_in_place_fills_and_copies_match_torch():
    results = []
    for lib in (ember, torch):
        a = lib.tensor(A)
        a[0].zero_()
        a[:, 1].fill_(2.5)
        a[2].copy_(lib.tensor(B[0]))
        results.append(a)
    close(results[0], results[1])


def _iop(name, start, other):
    def run(L):
        x = L.tensor(start)
        return getattr(x, name)(other(L) if callable(other) else other)
    return run


@pytest.mark.parametrize("call", [
    lambda L: L.zeros(3).fill_(L.tensor([1.0])), lambda L: L.zeros(3).fill_(L.tensor([[1.0]])),
    lambda L: L.zeros(3).fill_(L.tensor([1.0, 2.0, 3.0])), lambda L: L.zeros(3).fill_("a"),
    lambda L: L.zeros(3).fill_(None), lambda L: L.zeros(3).fill_([1.0]),
    _iop("__iadd__", [True, False], 1), _iop("__imul__", [True, False], 2),
    _iop("__ior__", [True, False], 2), _iop("__isub__", [True, False], True),
    _iop("__iadd__", [1, 2], lambda L: L.tensor(1.5)), _iop("__iadd__", [1.0, 2.0], 1 + 1j),
    _iop("__ifloordiv__", [4, 2], 2.5), _iop("__imod__", [4, 2], 2.5),
    _iop("__ipow__", [4, 2], 2.5), _iop("add_", [True, False], 1),
    lambda L: L.tensor([1]) - True, lambda L: L.tensor([1, 2]).clamp_(0.5, 1.5),
    lambda L: L.tensor([1, 2], dtype=L.int8).clip_(min=0.5)])
def test_fill_and_in_place_refusals_as_torch(call):
    # ember filled from a 1-d tensor (elementwise), added ints into bool tensors, checked a 0-d
    # operand's dtype by NumPy's rules, and rebound |=, //=, %=, **= to new tensors
    same_error(call, first_line=True)


def test_in_place_operators_write_in_place_as_torch():
    for lib in (torch, ember):
        x = lib.tensor([5, 6])
        alias = x
        x //= 2
        x %= 2
        x **= 2
        x |= 2
        x &= 3
        x ^= 1
        assert alias is x and x.tolist() == [3, 2]
