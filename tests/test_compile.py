"""torch.compile (ember/_compile.py): runs the model as written, wrapped as torch wraps it."""
import numpy as np
import pytest
import torch

import ember


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 2))


def test_compiled_module_computes_as_the_module_and_keeps_torchs_keys():
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    outs, keys = [], []
    for lib in (torch, ember):
        model = _model(lib)
        compiled = lib.compile(model)
        assert type(compiled).__name__ == "OptimizedModule" and compiled._orig_mod is model
        out = compiled(lib.tensor(x))
        out.sum().backward()
        outs.append(out.detach().numpy())
        keys.append(list(compiled.state_dict()))
        assert model[0].weight.grad is not None
        model.note = "kept"
        assert compiled.note == "kept"  # attributes reach the original module
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6)
    assert keys[0] == keys[1] and keys[1][0].startswith("_orig_mod.")


def test_compile_as_decorator_and_on_functions():
    for lib in (torch, ember):
        @lib.compile
        def f(a):
            return a * 2 + 1

        @lib.compile(dynamic=False)
        def g(a):
            return a - 1
        assert f(lib.ones(2)).tolist() == [3.0, 3.0] and g(lib.ones(2)).tolist() == [0.0, 0.0]
        assert f.__name__ == "f"


def test_mode_and_options_together_are_refused_as_torch():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="Either mode or options"):
            lib.compile(_model(lib), mode="max-autotune", options={"x": 1})
