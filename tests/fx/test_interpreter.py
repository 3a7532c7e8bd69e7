"""fx.Interpreter / Transformer (ember/fx/interpreter.py): running a graph node by node equals
eager, overridden node kinds, and a Transformer rewriting calls."""
import pytest
import torch

import ember

from ._models import net, small


def test_run_equals_eager():
    model = net(ember)
    gm = ember.fx.symbolic_trace(model)
    x = ember.randn(2, 3)
    for got, want in zip(ember.fx.Interpreter(gm).run(x), model(x)):
        assert got == want if isinstance(want, int) else ember.equal(got, want)


def test_overridden_call_function_and_missing_input():
    class NegSigmoid(ember.fx.Interpreter):
        def call_module(self, target, args, kwargs):
            return -super().call_module(target, args, kwargs)
    gm = ember.fx.symbolic_trace(small(ember))
    assert NegSigmoid(gm).run(ember.tensor([2.0])).tolist() == [-1.0]
    with pytest.raises(RuntimeError, match="Expected positional argument for parameter x"):
        ember.fx.Interpreter(gm).run()


def test_transformer_rewrites_into_a_new_module():
    class ReluToTanh(ember.fx.Transformer):
        def call_module(self, target, args, kwargs):
            return self.call_function(ember.tanh, args, kwargs)
    gm = ember.fx.symbolic_trace(small(ember))
    new = ReluToTanh(gm).transform()
    x = ember.tensor([0.5])
    assert ember.allclose(new(x), ember.tanh(x) + 1.0)
    assert "torch.tanh(x)" in new.code


def test_transformer_compares_targets_with_torch_functions_as_torch():
    codes = []
    for lib in (torch, ember):
        class Swap(lib.fx.Transformer):
            def call_function(self, target, args, kwargs):
                if target == lib.sigmoid:  # lib.sigmoid is patched while Proxies live
                    return lib.neg(*args, **kwargs)
                return super().call_function(target, args, kwargs)

        def f(x):
            return lib.sigmoid(x).neg()
        codes.append(Swap(lib.fx.symbolic_trace(f)).transform().code)
    assert codes[1] == codes[0] and "torch.neg(x)" in codes[1]


def test_an_error_names_the_node_as_torch():
    seen = []
    for lib in (torch, ember):
        def f(x):
            return x @ x
        with pytest.raises(RuntimeError) as info:
            lib.fx.Interpreter(lib.fx.symbolic_trace(f)).run(lib.ones(2, 3))
        seen.append(str(info.value).split("\n", 1)[1])  # after the op's own message
    assert seen[1] == seen[0]
