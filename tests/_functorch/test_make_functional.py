"""functorch.make_functional(_with_buffers) (ember._functorch.make_functional) against torch."""
import functorch
import numpy as np
import pytest
import torch

import ember
from ember._functorch import make_functional as emf


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Tanh())


def test_with_buffers_runs_the_module_with_given_state():
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    outs = []
    for lib, make in ((torch, functorch.make_functional_with_buffers),
                      (ember, emf.make_functional_with_buffers)):
        model = _model(lib)
        func, params, buffers = make(model)
        assert len(params) == 4 and len(buffers) == 3
        assert all(p.requires_grad for p in params)
        doubled = tuple(p * 2 for p in params)
        outs.append(func(doubled, buffers, lib.tensor(x)).detach().numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)


def test_params_are_copies_and_can_be_detached():
    model = _model(ember)
    _, params = emf.make_functional(ember.nn.Linear(2, 2), disable_autograd_tracking=True)
    assert not any(p.requires_grad for p in params)
    _, params, _ = emf.make_functional_with_buffers(model)
    assert params[0] is not model[0].weight
    assert np.array_equal(params[0].detach().numpy(), model[0].weight.detach().numpy())


def test_make_functional_refuses_buffers_as_torch():
    with pytest.raises(RuntimeError, match="has buffers") as ours:
        emf.make_functional(_model(ember))
    with pytest.raises(RuntimeError, match="has buffers"):
        functorch.make_functional(_model(torch))
    assert "make_functional_with_buffers" in str(ours.value)


def test_stateless_copy_holds_meta_placeholders_as_torch():
    kinds = []
    for lib, make in ((torch, functorch.make_functional_with_buffers),
                      (ember, emf.make_functional_with_buffers)):
        model = _model(lib)
        func, params, buffers = make(model)
        kinds.append([(type(t).__name__, str(t.device), tuple(t.shape),
                       repr(t).split("\n")[-1].replace("ember.", "torch."))
                      for t in list(func.parameters()) + list(func.buffers())])
        assert not any(p.is_meta for p in params + buffers)
    assert kinds[1] == kinds[0]
    with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
        float(next(func.parameters()).abs().sum())  # what torch raises reading its values
