"""torch.utils.checkpoint (ember/utils/checkpoint.py) against torch 2.13: outputs, parameter and
input gradients (dropout inside: the recomputation draws the forward's random numbers), both
variants, checkpoint_sequential, recomputation actually happening, warnings and errors."""
import importlib
import warnings

import numpy as np
import pytest
import torch
from oracle import close

import ember

X = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)


def _model(lib):
    lib.manual_seed(0)
    nn = lib.nn
    return nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Dropout(0.3), nn.Linear(16, 16),
                         nn.Tanh(), nn.LayerNorm(16), nn.Linear(16, 2))


def _run(lib, call, input_grad=True):
    cp = importlib.import_module(lib.__name__ + ".utils.checkpoint")
    model = _model(lib)
    x = lib.tensor(X, requires_grad=input_grad)
    lib.manual_seed(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = call(cp, model, x)
    if y.requires_grad:
        (y * y).sum().backward()
    return y, [p.grad for p in model.parameters()], x.grad, lib.rand(3)


CALLS = {
    "non_reentrant": lambda cp, m, x: cp.checkpoint(m, x, use_reentrant=False),
    "reentrant": lambda cp, m, x: cp.checkpoint(m, x, use_reentrant=True),
    "sequential": lambda cp, m, x: cp.checkpoint_sequential(m, 3, x, use_reentrant=False),
    "sequential_reentrant": lambda cp, m, x: cp.checkpoint_sequential(m, 2, x,
                                                                      use_reentrant=True),
}


@pytest.mark.parametrize("input_grad", [True, False])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_matches_torch(name, input_grad):
    """Values and every gradient as torch's (None where torch has None: a reentrant
    checkpoint of inputs that need no gradient passes none on); the random stream after it
    is torch's too."""
    got, want = _run(ember, CALLS[name], input_grad), _run(torch, CALLS[name], input_grad)
    close(got[0], want[0], rtol=1e-5, atol=1e-6)
    for g, w in zip(got[1] + [got[2]], want[1] + [want[2]]):
        assert (g is None) == (w is None)
        if w is not None:
            close(g, w, rtol=1e-5, atol=1e-5)
    close(got[3], want[3], rtol=0, atol=0)


@pytest.mark.parametrize("reentrant", [False, True])
def test_backward_recomputes_and_forward_keeps_nothing(reentrant):
    calls = []

    def fn(t):
        calls.append(1)
        return t.exp().sin() * 2

    x = ember.ones(3, requires_grad=True)
    y = ember.utils.checkpoint.checkpoint(fn, x, use_reentrant=reentrant)
    assert len(calls) == 1
    if not reentrant:  # every saved tensor of the forward is packed as an index
        node = y.grad_fn
        assert all(not isinstance(s, ember.Tensor) for s in node._saved)
    y.sum().backward()
    assert len(calls) == 2
    close(x.grad, (x.detach().exp().cos() * x.detach().exp() * 2))


def test_warnings_and_errors_as_torch():
    for lib in (torch, ember):
        cp = importlib.import_module(lib.__name__ + ".utils.checkpoint")
        with pytest.warns(UserWarning, match="use_reentrant parameter should be passed"):
            cp.checkpoint(lambda t: t * 2, lib.ones(2, requires_grad=True))
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
            cp.checkpoint(lambda t: t * 2, lib.ones(2), use_reentrant=True)
        with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
            cp.checkpoint(lambda t, scale: t * scale, lib.ones(2), scale=2, use_reentrant=True)
        with pytest.raises(RuntimeError, match="Only tuple of tensors is supported"):
            cp.detach_variable([lib.ones(2)])


def test_device_states_on_cpu_tensors_as_torch():
    # reversible layers (lucidrains' reformer/axial-attention) record these around their
    # forward; tensors on the CPU give no device ids and no states.
    from ember.utils.checkpoint import get_device_states, set_device_states
    x = ember.ones(2, requires_grad=True)
    expected = torch.utils.checkpoint.get_device_states(1, "a", torch.ones(2, requires_grad=True))
    assert get_device_states(1, "a", x) == expected == ([], [])
    assert get_device_states() == torch.utils.checkpoint.get_device_states() == ([], [])
    assert set_device_states([], []) is None
    assert torch.utils.checkpoint.set_device_states([], []) is None
    with pytest.raises(RuntimeError, match="no accelerator"):
        set_device_states([0], [ember.zeros(3)])
