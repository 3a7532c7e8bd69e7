"""torch.jit (ember/jit): script/trace give back code that runs as written (modules as
ScriptModules sharing the original's state), torch's deprecation warnings, the identity
decorators and queries, and the refused TorchScript archives."""
import warnings

import pytest
import torch

import ember


def _model(lib):
    class Model(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(2, 2)

        def forward(self, x):
            return self.lin(x) + 1
    lib.manual_seed(0)
    return Model()


def _double(x):
    return x * 2


@pytest.mark.parametrize("transform", ["script", "trace"])
def test_modules_and_functions_run_as_torch(transform):
    results = []
    for lib in (ember, torch):
        model, x = _model(lib), lib.ones(2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = getattr(lib.jit, transform)(model, *([x] if transform == "trace" else []))
            function = getattr(lib.jit, transform)(_double, *([x] if transform == "trace"
                                                              else []))
        messages = {str(w.message) for w in caught if w.category is DeprecationWarning}
        assert f"`torch.jit.{transform}` is deprecated. Please switch to `torch.compile` or " \
               "`torch.export`." in messages
        assert isinstance(module, lib.jit.ScriptModule) and isinstance(module, lib.nn.Module)
        assert module.lin.weight is model.lin.weight
        results.append((module(x).tolist(), function(x).tolist(),
                        list(module.state_dict()), lib.jit.is_scripting(),
                        lib.jit.is_tracing(), lib.jit.annotate(int, 3)))
    assert results[0] == results[1]


def test_decorators_return_the_function_as_torch():
    for lib in (ember, torch):
        assert lib.jit.ignore(_double)(2) == 4 and lib.jit.unused(_double)(2) == 4
        with pytest.warns(FutureWarning, match=r"ignore\(True\) has been deprecated"):
            assert lib.jit.ignore(drop=True)(_double)(3) == 6


def test_torchscript_archives_are_refused():
    with pytest.raises(NotImplementedError, match="TorchScript"):
        ember.jit.save(_model(ember), "m.pt")
    with pytest.raises(NotImplementedError, match="TorchScript"):
        ember.jit.load("m.pt")
