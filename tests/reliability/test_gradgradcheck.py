"""gradgradcheck: passes on correct second derivatives, catches a wrong one, agrees with torch."""
import numpy as np
import pytest
import torch

import ember
from ember.autograd import GradcheckError, gradcheck, gradgradcheck


def _inputs(lib, *shapes):
    r = np.random.default_rng(3)
    return tuple(lib.tensor(r.random(s) + 0.5, requires_grad=True) for s in shapes)


FUNCS = {
    "sin_mul": lambda L, a, b: (a * b).sin(),
    "matmul": lambda L, a, b: a @ b.reshape(2, 1),
    "div_pow": lambda L, a, b: (a / b) ** 3,
    "lse": lambda L, a, b: (a * b).logsumexp(1),
    "two_outputs": lambda L, a, b: ((a * b).exp(), a.sum() * b),
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_agrees_with_torch(name):
    fn = FUNCS[name]
    e = gradgradcheck(lambda a, b: fn(ember, a, b), _inputs(ember, (3, 2), (2,)))
    t = torch.autograd.gradgradcheck(lambda a, b: fn(torch, a, b), _inputs(torch, (3, 2), (2,)))
    assert e is t is True


class _WrongSecond(ember.autograd.Function):
    """y = x^3 with a first derivative that is right in value but detached from x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x * x.detach()


def test_catches_a_wrong_second_derivative():
    (x,) = _inputs(ember, (4,))
    assert gradcheck(_WrongSecond.apply, (x,))  # first derivative is right
    assert gradgradcheck(_WrongSecond.apply, (x,), raise_exception=False) is False
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to "
                                             "input 0"):
        gradgradcheck(_WrongSecond.apply, (x,))


def test_explicit_grad_outputs_and_unused_input():
    a, b = _inputs(ember, (2, 2), (2,))
    v = ember.tensor(np.ones((2, 2)), requires_grad=True)
    assert gradgradcheck(lambda x, y: x.tanh(), (a, b), (v,))


def test_gradcheck_reports_a_wrong_first_derivative():
    class Wrong(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    (x,) = _inputs(ember, (3,))
    with pytest.raises(GradcheckError, match="numerical:"):
        gradcheck(Wrong.apply, (x,))
