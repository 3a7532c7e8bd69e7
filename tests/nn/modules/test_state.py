"""Module state (ember/nn/modules/_state.py) beyond the Module suite: state_dict's prefix,
keep_vars and destination arguments, the _IncompatibleKeys result, nested non-strict loads,
and Module.to's dtype rules for integer buffers, all against torch."""
import numpy as np
import pytest
import torch

import ember

LIBS = [ember, torch]


def _net(lib):
    torch.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2))
    net.register_buffer("scratch", lib.zeros(1), persistent=False)
    return net


def test_prefix_keep_vars_and_destination_match_torch():
    seen = []
    for lib in LIBS:
        net = _net(lib)
        sd = net.state_dict(prefix="model.")
        kept = net.state_dict(keep_vars=True)
        dest = {}
        out = net.state_dict(destination=dest)
        seen.append((list(sd), [type(v).__name__ for v in kept.values()],
                     [v.requires_grad for v in kept.values()],
                     [v.requires_grad for v in net.state_dict().values()], out is dest))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("strict", [False, True])
def test_nested_load_reports_like_torch(strict):
    reports = []
    for lib in LIBS:
        net = _net(lib)
        state = {k: v.clone() for k, v in net.state_dict().items()}
        del state["1.running_var"]
        state["1.extra"] = lib.ones(1)
        try:
            result = net.load_state_dict(state, strict=strict)
            reports.append(("ok", result.missing_keys, result.unexpected_keys,
                            repr(result), tuple(result)))
        except RuntimeError as error:
            reports.append(("error", str(error).replace("ember", "torch")))
    assert reports[0] == reports[1]


def test_to_dtype_leaves_integer_buffers_like_torch():
    seen = []
    for lib in LIBS:
        net = _net(lib).to(lib.float64)
        seen.append([(k, str(v.dtype).split(".")[1]) for k, v in net.state_dict().items()])
    assert seen[0] == seen[1]


def test_loaded_values_are_copied_in():
    net = _net(ember)
    state = {k: ember.tensor(np.full(tuple(v.shape), 2, dtype=v.numpy().dtype))
             for k, v in net.state_dict().items()}
    net.load_state_dict(state)
    state["0.weight"].add_(1)
    np.testing.assert_array_equal(net[0].weight.detach().numpy(), np.full((2, 3), 2.0))


def test_bfloat16_converts_floating_parameters_like_torch():
    seen = []
    for lib in (ember, torch):
        layer = lib.nn.Linear(2, 2)
        layer.register_buffer("steps", lib.tensor([1]))
        weight = layer.weight
        assert layer.bfloat16() is layer and layer.weight is weight
        seen.append((str(layer.weight.dtype), str(layer.bias.dtype), str(layer.steps.dtype)))
    assert [s.replace("ember", "torch") for s in seen[0]] == list(seen[1])


def test_to_memory_format_lays_out_4d_parameters_like_torch():
    seen = []
    for lib in (ember, torch):
        net = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.Linear(4, 2))
        weight = net[0].weight
        assert net.to(memory_format=lib.channels_last) is net and net[0].weight is weight
        seen.append([(name, p.stride()) for name, p in net.named_parameters()])
    assert seen[0] == seen[1]
