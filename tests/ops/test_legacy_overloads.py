"""torch's deprecated Number-first overloads (ember/ops/_legacy_overloads.py): add(alpha, other),
sub, add_, sub_, addcmul(value, t1, t2), addcdiv and their in-place forms, against torch."""
import warnings

import numpy as np
import pytest
import torch
from oracle import same_error

import ember

CALLS = [
    ("add", lambda lib, a, g, h: a.add(-0.5, g)),
    ("add", lambda lib, a, g, h: lib.add(a, -0.5, g)),
    ("add_", lambda lib, a, g, h: a.add_(-0.5, g)),
    ("sub", lambda lib, a, g, h: a.sub(2.0, g)),
    ("sub", lambda lib, a, g, h: lib.sub(a, 2.0, g)),
    ("sub_", lambda lib, a, g, h: a.sub_(2.0, g)),
    ("addcmul", lambda lib, a, g, h: a.addcmul(0.5, g, h)),
    ("addcmul", lambda lib, a, g, h: lib.addcmul(a, 0.5, g, h)),
    ("addcmul", lambda lib, a, g, h: a.addcmul_(0.5, g, h)),
    ("addcdiv", lambda lib, a, g, h: a.addcdiv(0.5, g, h)),
    ("addcdiv", lambda lib, a, g, h: a.addcdiv_(0.5, g, h)),
]


@pytest.mark.parametrize("name, call", CALLS)
def test_number_first_overload_computes_as_torch_and_warns(name, call):
    # ember: "takes 2 positional arguments but 3 were given" (a char-rnn tutorial's update step)
    seen = []
    for lib in (torch, ember):
        a = lib.tensor([1.0, -2.0, 0.5])
        g, h = lib.tensor([0.0, 1.0, 2.0]), lib.tensor([3.0, 1.5, -1.0])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ember.set_warn_always(True)
            try:
                out = call(lib, a, g, h)
            finally:
                ember.set_warn_always(False)
        seen.append(out.numpy().copy())
        if lib is ember:
            assert any(f"This overload of {name} is deprecated" in str(w.message)
                       for w in caught)
    np.testing.assert_allclose(seen[1], seen[0], rtol=1e-6)


def test_the_gradient_flows_as_through_the_keyword_form():
    grads = []
    for lib in (torch, ember):
        a = lib.tensor([1.0, -2.0], requires_grad=True)
        g = lib.tensor([0.5, 3.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (a.add(-0.5, g) * a.addcmul(2.0, g, g)).sum().backward()
        grads.append((a.grad.numpy(), g.grad.numpy()))
    for e, t in zip(grads[1], grads[0]):
        np.testing.assert_allclose(e, t, rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda a, g: a.add_(-0.5, g, alpha=2),
    lambda a, g: a.add(g, g),
    lambda a, g: a.addcmul(0.5, g),
], ids=["keyword_too", "tensor_first", "too_few"])
def test_other_extra_positional_arguments_raise_a_type_error_as_torch(call):
    for lib in (torch, ember):
        with pytest.raises(TypeError), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(lib.ones(2), lib.ones(2))


def test_a_number_for_tensor2_is_torchs_type_error():
    # ember raised AttributeError ('float' object has no attribute '_data')
    same_error(lambda lib: lib.ones(2).addcmul(lib.ones(2), 2.0))
    same_error(lambda lib: lib.ones(2).addcdiv(lib.ones(2), 2.0))
    with pytest.raises(TypeError, match="'tensor2'"):  # (torch counts input as position 1 here)
        ember.addcdiv(ember.ones(2), ember.ones(2), 2.0)
