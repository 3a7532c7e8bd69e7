"""ember.autograd.gradcheck: passes correct backwards, catches a wrong one, needs no torch."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck


def _inputs(*shapes):
    rng = np.random.default_rng(0)
    return tuple(ember.tensor(rng.standard_normal(s), dtype=ember.float64, requires_grad=True)
                 for s in shapes)


@pytest.mark.parametrize("fn, shapes", [
    (lambda a, b: a * b + a.exp(), [(3,), (3,)]),
    (lambda a, b: (a @ b).tanh(), [(2, 3), (3, 2)]),
    (lambda a: a.sigmoid().sum(0), [(3, 2)]),
    (lambda a, b: a / (b * b + 1), [(2, 3), (3,)]),
])
def test_correct_backwards_pass(fn, shapes):
    assert gradcheck(fn, _inputs(*shapes))


class _WrongSquare(ember.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x  # wrong: should be 2 * x


def test_wrong_backward_is_caught():
    with pytest.raises(ember.autograd.GradcheckError, match="Jacobian mismatch"):
        gradcheck(_WrongSquare.apply, _inputs((3,)))
    assert gradcheck(_WrongSquare.apply, _inputs((3,)), raise_exception=False) is False


def test_runs_without_torch():
    code = textwrap.dedent("""
        import sys
        sys.modules["torch"] = None  # any import of torch now fails
        import ember
        x = ember.tensor([0.3, -0.7], dtype=ember.float64, requires_grad=True)
        assert ember.autograd.gradcheck(lambda a: (a * a.exp()).sum(), (x,))
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=__file__.rsplit("/tests/", 1)[0])
    assert out.stdout.strip() == "ok", out.stderr


def _exp_function(jvp_scale):
    class Exp(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.result = x.exp()
            return ctx.result

        @staticmethod
        def jvp(ctx, g):
            return g * ctx.result * jvp_scale
    return Exp


def test_check_forward_ad_passes_a_correct_jvp_and_catches_a_wrong_one():
    (x,) = _inputs((3, 2))
    flags = dict(check_forward_ad=True, check_backward_ad=False, check_undefined_grad=False,
                 check_batched_grad=False)
    assert gradcheck(_exp_function(1.0).apply, (x,), **flags)
    with pytest.raises(ember.autograd.GradcheckError,
                       match="Jacobian computed with forward mode mismatch for output 0"):
        gradcheck(_exp_function(1.5).apply, (x,), **flags)
    assert not gradcheck(_exp_function(1.5).apply, (x,), raise_exception=False, **flags)


def test_check_forward_ad_on_ops_through_their_backward_nodes():
    a, b = _inputs((3,), (2, 3))
    assert gradcheck(lambda a, b: ((a * b).softmax(1) @ a).tanh(), (a, b),
                     check_forward_ad=True)


@pytest.mark.parametrize("check", ["gradcheck", "gradgradcheck"])
def test_inputs_given_as_a_list_are_the_arguments_as_torch(check):
    # ember called func with the whole list as its one argument
    torch = pytest.importorskip("torch")
    seen = []
    for lib in (torch, ember):
        inputs = [lib.tensor([0.3, -0.7], dtype=lib.float64, requires_grad=True),
                  lib.tensor([1.5, 2.0], dtype=lib.float64, requires_grad=True)]
        seen.append(getattr(lib.autograd, check)(lambda a, b: a * b.exp(), inputs))
    assert seen[1] is seen[0] is True
    with pytest.raises(ember.autograd.GradcheckError, match="Jacobian mismatch"):
        gradcheck(_WrongSquare.apply, [_inputs((3,))[0]])
