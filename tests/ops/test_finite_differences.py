"""torch.gradient (ember/ops/finite_differences.py) against torch 2.13: values bit for bit,
gradients through it, integer inputs, errors with torch's types and messages."""
import numpy as np
import pytest
import torch
from oracle import close

import ember

R = np.random.default_rng(0)
X = R.standard_normal((5, 6)).astype(np.float32)
C0 = np.sort(R.uniform(0, 10, 5)).astype(np.float32)
C1 = np.sort(R.uniform(0, 10, 6)).astype(np.float32)

CASES = [{}, {"spacing": 0.3}, {"spacing": (0.3, 2.0)}, {"dim": 1}, {"dim": -2},
         {"dim": (1, 0), "spacing": [0.7, 3.0]}, {"edge_order": 2},
         {"edge_order": 2, "spacing": 0.3}, {"spacing": "coords"},
         {"spacing": "coords", "edge_order": 2}, {"spacing": "coord1", "dim": 1},
         {"spacing": "coord1", "dim": 1, "edge_order": 2}]


def _kwargs(lib, kw):
    kw = dict(kw)
    if kw.get("spacing") == "coords":
        kw["spacing"] = (lib.tensor(C0), lib.tensor(C1))
    elif kw.get("spacing") == "coord1":
        kw["spacing"] = (lib.tensor(C1),)
    return kw


@pytest.mark.parametrize("kw", CASES, ids=str)
def test_values_bit_exact_and_gradients(kw):
    results = []
    for lib in (torch, ember):
        a = lib.tensor(X, requires_grad=True)
        out = lib.gradient(a, **_kwargs(lib, kw))
        sum((o * o).sum() for o in out).backward()
        results.append((out, a.grad))
    (t_out, t_grad), (e_out, e_grad) = results
    assert len(e_out) == len(t_out)
    close(list(e_out), list(t_out), rtol=0, atol=0)
    close(e_grad, t_grad, rtol=1e-5, atol=1e-5)


def test_integer_input_gives_the_default_float():
    for lib in (torch, ember):
        out = lib.gradient(lib.tensor([1, 4, 9, 16]))
        assert out[0].dtype == lib.float32 and out[0].tolist() == [3.0, 4.0, 6.0, 7.0]


@pytest.mark.parametrize("call", [
    lambda L: L.gradient(L.tensor([1.0, 2.0]), edge_order=2),
    lambda L: L.gradient(L.zeros(0, 3)),
    lambda L: L.gradient(L.tensor([1.0, 2.0, 3.0]), edge_order=3),
    lambda L: L.gradient(L.tensor([1.0, 2.0, 3.0]), spacing=(1.0, 2.0)),
    lambda L: L.gradient(L.ones(3, 3), dim=(1, 0), spacing=[0.1]),
])
def test_errors_as_torch(call):
    with pytest.raises(RuntimeError) as want:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(ember)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("spacing", [None, 2.0])
def test_gradient_of_bool_refuses_as_torch(spacing):
    """(bool values were made float and differenced)"""
    from oracle import same_error
    same_error(lambda L: L.gradient(L.tensor([True, False, True]), spacing=spacing))
