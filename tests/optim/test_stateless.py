"""swap_in_optimizer_params_and_state (ember/optim/_stateless.py) vs torch: inside the block
the optimizer steps the swapped-in parameters with the swapped-in state and options; after it,
its own parameters, options and state are back; torch's errors for malformed state."""
import copy

import numpy as np
import pytest
import torch

import ember


def _setup(lib):
    rng = np.random.default_rng(0)
    own = {n: lib.tensor(rng.standard_normal(s), requires_grad=True)
           for n, s in (("w", (3, 2)), ("b", (2,)))}
    other = {n: lib.tensor(rng.standard_normal(tuple(p.shape)), requires_grad=True)
             for n, p in own.items()}
    opt = lib.optim.Adam([{"params": [own["w"]]}, {"params": [own["b"]], "lr": 0.01}], lr=0.1)
    shadow = lib.optim.Adam([{"params": [other["w"]]}, {"params": [other["b"]], "lr": 0.02}],
                            lr=0.05)
    for step_opt, params in ((opt, own), (shadow, other), (shadow, other)):
        for p in params.values():
            p.grad = (p * 2).detach()
        step_opt.step()
    return own, other, opt, shadow


def test_steps_the_swapped_in_parameters_then_restores():
    got = []
    for lib in (ember, torch):
        own, other, opt, shadow = _setup(lib)
        before = {n: p.detach().numpy().copy() for n, p in own.items()}
        own_state = copy.deepcopy(opt.state_dict())
        with lib.optim.swap_in_optimizer_params_and_state(opt, other, shadow.state_dict()):
            assert opt.param_groups[1]["lr"] == 0.02
            for p in other.values():
                p.grad = (p * 2).detach()
            opt.step()
        assert opt.param_groups[1]["lr"] == 0.01 and opt.param_groups[0]["params"][0] is own["w"]
        for n, p in own.items():
            np.testing.assert_array_equal(p.detach().numpy(), before[n])
        restored = opt.state_dict()
        for pid, entry in own_state["state"].items():
            for key, value in entry.items():
                np.testing.assert_array_equal(np.asarray(restored["state"][pid][key]),
                                              np.asarray(value))
        got.append([p.detach().numpy() for p in other.values()])
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("change", [
    lambda sd: sd["param_groups"].pop(),
    lambda sd: sd["param_groups"][0].pop("betas"),
    lambda sd: sd["state"].update({7: {}}),
    lambda sd: sd.update(state=[]),
    lambda sd: sd["param_groups"][0]["params"].append(5),
])
def test_malformed_state_is_refused_as_torch(change):
    messages = []
    for lib in (ember, torch):
        own, other, opt, shadow = _setup(lib)
        state = shadow.state_dict()
        change(state)
        with pytest.raises(RuntimeError) as info:
            with lib.optim.swap_in_optimizer_params_and_state(opt, other, state):
                pass
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_needs_an_initialised_state():
    for lib in (ember, torch):
        p = lib.zeros(2, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        with pytest.raises(RuntimeError, match="requires initialized optimizer state"):
            with lib.optim.swap_in_optimizer_params_and_state(opt, {"p": p}, opt.state_dict()):
                pass
