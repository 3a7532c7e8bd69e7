"""The distributions' helpers (ember/distributions/utils.py): broadcast_all, clamp_probs,
probs <-> logits and lazy_property, compared with torch.distributions.utils (torch 2.13)."""
import numpy as np
import pytest
import torch
import torch.distributions.utils as TU

import ember
import ember.distributions.utils as EU

from ._oracle import raises_as_torch, same_as_torch


def _same(e, t):
    assert len(e) == len(t)
    for a, b in zip(e, t):
        assert (str(a.dtype).replace("ember.", "torch."), tuple(a.shape)) == \
            (str(b.dtype), tuple(b.shape))
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=0)


@pytest.mark.parametrize("args", [
    lambda m: (0.5, 2),
    lambda m: (m.zeros(2, 1), 3.0),
    lambda m: (1, m.arange(3.0), m.ones(2, 1)),
    lambda m: (m.tensor([1.0, 2.0], dtype=m.float64), 0.25),
    lambda m: (m.tensor(2.0),),
], ids=["numbers", "tensor-number", "three", "float64", "one"])
def test_broadcast_all_as_torch(args):
    _same(EU.broadcast_all(*args(ember)), TU.broadcast_all(*args(torch)))


def test_broadcast_all_refusal_as_torch():
    caught = []
    for m, U in ((ember, EU), (torch, TU)):
        with pytest.raises(ValueError) as info:
            U.broadcast_all(m.zeros(1), "a")
        caught.append(str(info.value))
    assert caught[0] == caught[1]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_probs_and_logits_as_torch(dtype):
    probs = [[0.0, 0.25, 0.75], [1.0, 1e-9, 0.5]]
    logits = [[-3.0, 0.0, 2.5], [40.0, -40.0, 1.0]]
    for binary in (False, True):
        got = []
        for m, U in ((ember, EU), (torch, TU)):
            p = m.tensor(probs, dtype=getattr(m, dtype))
            lg = m.tensor(logits, dtype=getattr(m, dtype))
            got.append([U.clamp_probs(p), U.probs_to_logits(p, is_binary=binary),
                        U.logits_to_probs(lg, is_binary=binary),
                        U.logits_to_probs(lg)])
        _same(*got)


def test_lazy_property_computes_once_and_stores_as_torch():
    for U in (EU, TU):
        calls = []

        class Holder:
            @U.lazy_property
            def value(self):
                """The doc."""
                calls.append(1)
                return 42

        h = Holder()
        assert (h.value, h.value, len(calls)) == (42, 42, 1)
        assert h.__dict__["value"] == 42
        assert isinstance(Holder.__dict__["value"], U.lazy_property)
        assert Holder.__dict__["value"].__doc__ == "The doc."


def test_lazy_property_computes_with_grad_enabled_as_torch():
    for m, U in ((ember, EU), (torch, TU)):
        x = m.ones(2, requires_grad=True)

        class Holder:
            @U.lazy_property
            def doubled(self):
                return x * 2

        with m.no_grad():
            y = Holder().doubled
        assert y.requires_grad


def test_tril_matrix_and_vector_as_torch():
    def build(m, D):
        U = D.utils
        mat = m.randn(2, 4, 4)
        vec = m.randn(2, 6)
        return [U.tril_matrix_to_vec(mat), U.tril_matrix_to_vec(mat, diag=-1),
                U.tril_matrix_to_vec(mat, diag=1), U.vec_to_tril_matrix(vec),
                U.vec_to_tril_matrix(vec, diag=-1), U.vec_to_tril_matrix(m.randn(4), diag=1)]
    same_as_torch(build)
    raises_as_torch(lambda m, D: D.utils.tril_matrix_to_vec(m.zeros(3, 3), diag=3))
    raises_as_torch(lambda m, D: D.utils.vec_to_tril_matrix(m.zeros(4)))
