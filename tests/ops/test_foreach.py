"""torch._foreach_* (ember/ops/foreach.py): every form ember has exists in torch and gives torch's
values; in-place forms update and return the list; torch's errors for mismatched lists."""
import numpy as np
import pytest
import torch

import ember
from ember.ops import foreach

BASE = [np.array([0.5, 1.5], np.float32), np.array([0.25, 0.75, 2.0], np.float32)]


def _lists(lib):
    return [lib.tensor(a.copy()) for a in BASE], [lib.tensor(a[::-1].copy() + 1) for a in BASE]


def test_names_are_torch_names():
    assert set(foreach.FUNCTIONS) <= {n for n in dir(torch) if n.startswith("_foreach_")}
    assert all(getattr(ember, name) is fn for name, fn in foreach.FUNCTIONS.items())


CALLS = {
    "unary": lambda L, a, b, name: getattr(L, f"_foreach_{name}")(a),
    "scalar": lambda L, a, b, name: getattr(L, f"_foreach_{name}")(a, 1.25),
    "scalars": lambda L, a, b, name: getattr(L, f"_foreach_{name}")(a, [0.5, 2.0]),
    "tensors": lambda L, a, b, name: getattr(L, f"_foreach_{name}")(a, b),
    "tensor": lambda L, a, b, name: getattr(L, f"_foreach_{name}")(a, L.tensor(2.0)),
}
CASES = [(n, "unary") for n in foreach._UNARY] + [
    (n, form) for n in foreach._BINARY for form in ("scalar", "scalars", "tensors")
    if not (n == "pow" and form == "scalars")] + [("mul", "tensor"), ("div", "tensor")]


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("name, form", CASES)
def test_values_match_torch(name, form, inplace):
    results = []
    for lib in (ember, torch):
        a, b = _lists(lib)
        out = CALLS[form](lib, a, b, name + ("_" if inplace else ""))
        if inplace:
            assert out is a
        results.append([t.tolist() for t in out])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7, equal_nan=True)


@pytest.mark.parametrize("call", [
    lambda L, a, b: L._foreach_add(a, b, alpha=0.5),
    lambda L, a, b: L._foreach_sub_(a, b, alpha=2),
    lambda L, a, b: L._foreach_addcmul(a, a, b, value=2),
    lambda L, a, b: L._foreach_addcdiv_(a, a, b, [1.0, 3.0]),
    lambda L, a, b: L._foreach_addcmul(a, a, b, L.tensor([1.0, 3.0])),
    lambda L, a, b: L._foreach_lerp(a, b, 0.25),
    lambda L, a, b: L._foreach_lerp_(a, b, [0.25, 0.75]),
    lambda L, a, b: L._foreach_norm(a),
    lambda L, a, b: L._foreach_norm(a, 1),
    lambda L, a, b: L._foreach_max(a),
    lambda L, a, b: L._foreach_pow(2.0, a),
    lambda L, a, b: L._foreach_copy_(a, b),
    lambda L, a, b: L._foreach_zero_(a),
    lambda L, a, b: L._foreach_clone(b),
])
def test_other_forms_match_torch(call):
    seen = []
    for lib in (ember, torch):
        a, b = _lists(lib)
        seen.append([np.asarray(t.tolist()) for t in call(lib, a, b)] +
                    [np.asarray(t.tolist()) for t in a])
    for x, y in zip(*seen):
        np.testing.assert_allclose(x, y, rtol=1e-6)


def test_gradients_flow_through_the_out_of_place_forms():
    grads = []
    for lib in (ember, torch):
        p = [lib.ones(2, requires_grad=True)]
        lib._foreach_mul(p, 3.0)[0].sum().backward()
        grads.append(p[0].grad.tolist())
    assert grads[0] == grads[1]


@pytest.mark.parametrize("call", [lambda L, a: L._foreach_add(a, [1.0]),
                                  lambda L, a: L._foreach_add(a, [L.ones(2)]),
                                  lambda L, a: L._foreach_add([], 1)])
def test_errors_match_torch(call):
    messages = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as info:
            call(lib, _lists(lib)[0])
        messages.append(str(info.value))
    assert messages[0] == messages[1]
