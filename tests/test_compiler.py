"""ember/compiler.py (torch.compiler) against torch 2.13: nothing is compiling or exporting, the
steering decorators hand back what they get, and torch.compiler.compile is torch.compile."""
import torch

import ember


def test_compiler_queries_and_decorators_as_torch():
    for lib in (torch, ember):
        assert (lib.compiler.is_compiling(), lib.compiler.is_dynamo_compiling(),
                lib.compiler.is_exporting()) == (False, False, False)

        def f(x):
            return x * 2
        assert lib.compiler.disable(f)(lib.tensor(3.0)).item() == 6.0
        assert lib.compiler.disable()(f)(lib.tensor(1.0)).item() == 2.0
        assert lib.compiler.allow_in_graph(f) is f
        assert lib.compiler.assume_constant_result(f) is f
        assert lib.compiler.reset() is None
    assert ember.compiler.compile is ember.compile
    assert ember.compiler.list_backends() == ["eager"]  # (torch lists its compilers)
