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


# ---------------------------------------------------------------------- the per-module protocol
def _three(lib):
    torch.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3),
                             lib.nn.Sequential(lib.nn.Linear(3, 1)))


def _as(lib, state):
    """A copy of a torch state dict in ``lib``'s tensors (non-tensors as they are)."""
    return {k: lib.tensor(v.numpy()) if isinstance(v, torch.Tensor) else v
            for k, v in state.items()}


def _err(fn):
    try:
        return ("ok", fn())
    except Exception as error:  # noqa: BLE001  (the type and text are compared with torch's)
        return (type(error).__name__, str(error).replace("ember", "torch"))


def test_metadata_records_each_modules_version_like_torch():
    seen = []
    for lib in LIBS:
        sd = _three(lib).state_dict(prefix="m.")
        seen.append((list(sd._metadata.items()), list(sd),
                     hasattr(_three(lib).state_dict(destination={}), "_metadata"),
                     lib.nn.BatchNorm2d._version, lib.nn.InstanceNorm1d._version,
                     lib.nn.Linear._version))
    assert seen[0] == seen[1]
    assert seen[0][0][2] == ("m.1", {"version": 2})


def _legacy(lib):
    class Legacy(lib.nn.Linear):
        """Saves its weight as 'w' and loads either name, as models with renamed keys do."""

        def _save_to_state_dict(self, destination, prefix, keep_vars):
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "w"] = destination.pop(prefix + "weight")

        def _load_from_state_dict(self, sd, prefix, metadata, strict, missing, unexpected,
                                  errors):
            if prefix + "w" in sd:
                sd[prefix + "weight"] = sd.pop(prefix + "w")
            super()._load_from_state_dict(sd, prefix, metadata, strict, missing, unexpected,
                                          errors)
    return lib.nn.Sequential(Legacy(2, 2))


def test_overridden_save_and_load_steps_are_used_like_torch():
    seen = []
    for lib in LIBS:
        model = _legacy(lib)
        keys = list(model.state_dict())
        state = {"0.w": lib.ones(2, 2), "0.bias": lib.zeros(2)}
        report = model.load_state_dict(state)
        refused = _err(lambda: model.load_state_dict(  # noqa: B023
            {"0.w": lib.ones(3, 2), "0.bias": lib.zeros(2), "0.zz": lib.ones(1)}))
        seen.append((keys, repr(report), model[0].weight.sum().item(), list(state), refused))
    assert seen[0] == seen[1]
    assert seen[0][0] == ["0.bias", "0.w"] and seen[0][2] == 4.0


def test_batchnorm_loads_dicts_older_than_version_2_like_torch():
    seen = []
    for lib in LIBS:
        bn = lib.nn.BatchNorm1d(3)
        bn.num_batches_tracked.fill_(5)
        old = {k: v.clone() for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
        report = bn.load_state_dict(old)  # no metadata: the module keeps its count
        current = lib.nn.BatchNorm1d(3).state_dict()
        del current["num_batches_tracked"]  # version 2 says it should be there
        refused = _err(lambda: lib.nn.BatchNorm1d(3).load_state_dict(current))  # noqa: B023
        current._metadata[""] = {"version": 1}
        again = lib.nn.BatchNorm1d(3).load_state_dict(current)
        seen.append((repr(report), bn.num_batches_tracked.item(), refused, repr(again)))
    assert seen[0] == seen[1]
    assert seen[0][2][0] == "RuntimeError"


def test_instance_norm_refuses_pre_0_4_running_stats_like_torch():
    seen = []
    for lib in LIBS:
        norm = lib.nn.InstanceNorm1d(3)
        seen.append([_err(lambda: norm.load_state_dict(  # noqa: B023
            {"running_mean": lib.zeros(3), "running_var": lib.ones(3)})),
            _err(lambda: norm.load_state_dict({"running_mean": lib.zeros(3)},  # noqa: B023
                                              strict=False))])
    assert seen[0] == seen[1]
    assert "Unexpected running stats buffer(s)" in seen[0][0][1]


def test_state_dict_hooks_like_torch():
    seen = []
    for lib in LIBS:
        calls = []
        model = _three(lib)
        model.register_state_dict_pre_hook(
            lambda m, prefix, keep: calls.append(("pre", type(m).__name__, prefix, keep)))
        model[2].register_state_dict_pre_hook(lambda m, p, k: calls.append(("pre2", p, k)))
        model[2].register_state_dict_post_hook(
            lambda m, sd, p, meta: calls.append(("post2", p, list(sd), meta)))
        model._register_state_dict_hook(
            lambda m, sd, p, meta: calls.append(("post", p, len(sd), meta)))
        keys = list(model.state_dict(keep_vars=True))
        replaced = _three(lib)
        replaced._register_state_dict_hook(lambda m, sd, p, meta: {"x": 1})
        replaced[2]._register_state_dict_hook(lambda m, sd, p, meta: {"y": 1})
        seen.append((calls, keys, list(replaced.state_dict()), list(replaced[2].state_dict())))
    assert seen[0] == seen[1]
    assert seen[0][2:] == (["x"], ["y"])


def test_state_dict_post_hook_rules_like_torch():
    seen = []
    for lib in LIBS:
        returns = lib.nn.Linear(2, 2)
        returns.register_state_dict_post_hook(lambda m, sd, p, meta: {})

        def hook(m, sd, p, meta):
            pass
        lib.nn.Linear(1, 1).register_state_dict_post_hook(hook)
        seen.append((_err(returns.state_dict),
                     _err(lambda: lib.nn.Linear(1, 1)._register_state_dict_hook(hook))))  # noqa: B023
    assert seen[0] == seen[1]
    assert seen[0][0] == ("RuntimeError", "state_dict post-hook must return None")


def test_positional_state_dict_warns_like_torch():
    for lib in LIBS:
        dest = {}
        with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
            out = lib.nn.Linear(1, 1).state_dict(dest, "p.")
        assert out is dest and list(dest) == ["p.weight", "p.bias"]


def _load_log(lib, assign):
    calls = []
    model = _three(lib)

    def pre(m, sd, prefix, meta, strict, missing, unexpected, errors):
        calls.append(("pre", type(m).__name__, prefix, sorted(sd), dict(meta), strict,
                      list(missing), list(unexpected), list(errors)))

    def pre_without_module(sd, prefix, meta, strict, missing, unexpected, errors):
        calls.append(("pre_nomod", prefix, sorted(sd)))

    def post(m, report):
        calls.append(("post", type(m).__name__, list(report.missing_keys),
                      list(report.unexpected_keys), type(report).__name__))
    model.register_load_state_dict_pre_hook(pre)
    model[1].register_load_state_dict_pre_hook(pre)
    model[2]._register_load_state_dict_pre_hook(pre_without_module)
    model[2][0]._register_load_state_dict_pre_hook(pre, with_module=True)
    for m in (model, model[1], model[2][0]):
        m.register_load_state_dict_post_hook(post)
    sd = model.state_dict()
    del sd["1.running_var"]
    sd["2.0.extra"] = lib.ones(1)
    sd["zz"] = lib.ones(1)
    report = model.load_state_dict(sd, strict=False, assign=assign)
    return calls, repr(report), _err(lambda: model.load_state_dict(sd))


@pytest.mark.parametrize("assign", [False, True])
def test_load_state_dict_hooks_and_report_like_torch(assign):
    assert _load_log(ember, assign) == _load_log(torch, assign)


def test_load_post_hook_edits_decide_strict_like_torch():
    seen = []
    for lib in LIBS:
        model = _three(lib)
        sd = model.state_dict()
        del sd["0.bias"]
        sd["extra"] = lib.ones(1)
        model.register_load_state_dict_post_hook(
            lambda m, r: r.missing_keys.clear() or r.unexpected_keys.clear())
        cleared = model.load_state_dict(sd)
        other = _three(lib)
        other[2].register_load_state_dict_post_hook(lambda m, r: r.missing_keys.append("fake"))
        added = _err(lambda: other.load_state_dict(other.state_dict()))  # noqa: B023
        loose = other.load_state_dict(other.state_dict(), strict=False)
        returning = lib.nn.Linear(1, 1)
        returning.register_load_state_dict_post_hook(lambda m, r: 1)
        seen.append((repr(cleared), added, repr(loose),
                     _err(lambda: returning.load_state_dict(returning.state_dict()))))  # noqa: B023
    assert seen[0] == seen[1]
    assert seen[0][3][0] == "AssertionError"


def test_assign_keeps_given_parameters_like_torch():
    seen = []
    for lib in LIBS:
        layer = lib.nn.Linear(2, 2)
        layer.bias.requires_grad_(False)
        layer.register_buffer("buf", lib.zeros(3))
        weight, bias = lib.nn.Parameter(lib.ones(2, 2)), lib.nn.Parameter(lib.ones(2))
        buf = lib.ones(3)
        layer.load_state_dict({"weight": weight, "bias": bias, "buf": buf}, assign=True)
        seen.append((layer.weight is weight, layer.bias is bias, bias.requires_grad,
                     layer.buf is buf, list(layer.state_dict())))
    assert seen[0] == seen[1] == [(True, True, False, True, ["weight", "bias", "buf"])][0]


def test_load_errors_like_torch():
    seen = []
    for lib in LIBS:
        layer = lib.nn.Linear(2, 2, bias=False)
        scalar = lib.nn.Module()
        scalar.p = lib.nn.Parameter(lib.tensor(1.0))
        seen.append((_err(lambda: lib.nn.Linear(2, 2).load_state_dict(  # noqa: B023
                         {"weight": [1, 2], "bias": 3})),
                     _err(lambda: layer.load_state_dict(  # noqa: B023
                         {"weight": lib.ones(2, 2), "bias": lib.ones(2)})),
                     repr(layer.load_state_dict({"weight": lib.ones(2, 2), "bias": lib.ones(2)},
                                                strict=False)),
                     repr(scalar.load_state_dict({"p": lib.tensor([5.0])})), scalar.p.item()))
    assert seen[0] == seen[1]


def test_metadata_given_to_load_hooks_like_torch():
    seen = []
    for lib in LIBS:
        layer = lib.nn.Linear(1, 1)
        sd = layer.state_dict()
        got = []
        layer.register_load_state_dict_pre_hook(lambda m, s, p, meta, *rest: got.append(meta))
        layer.load_state_dict(sd, assign=True)
        seen.append((got[0] is sd._metadata[""], dict(sd._metadata[""]), len(got)))
    assert seen[0] == seen[1]


def test_refused_load_leaves_model_untouched_where_the_protocol_is_embers():
    model = _three(ember)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    shape = {k: v + 1 for k, v in before.items()}
    shape["2.0.weight"] = ember.zeros(5)
    unexpected = {**{k: v + 1 for k, v in before.items()}, "zz": ember.ones(1)}
    missing = model.state_dict()  # with metadata: BatchNorm's version 2 needs its count
    missing = type(missing)({k: v + 1 for k, v in missing.items()})
    missing._metadata = model.state_dict()._metadata
    del missing["1.num_batches_tracked"]
    for state, strict in ((shape, False), (unexpected, True), (missing, True)):
        with pytest.raises(RuntimeError, match="Error"):
            model.load_state_dict(state, strict=strict)
        for k, v in model.state_dict().items():
            assert ember.equal(v, before[k]), k


def test_load_hooks_run_once_like_torch():
    counts = []
    for lib in LIBS:
        model = _three(lib)
        calls = []
        model[1].register_load_state_dict_pre_hook(lambda *a: calls.append("pre"))
        model.register_load_state_dict_post_hook(lambda *a: calls.append("post"))
        model.load_state_dict(model.state_dict())
        counts.append(calls)
    assert counts[0] == counts[1] == ["pre", "post"]


def _doubling(self, other, assign=False):
    return other.detach() * 2


def _returning(self, other, assign=False):
    return other


@pytest.mark.parametrize("assign", [False, True])
@pytest.mark.parametrize("swap", [False, True])
def test_swap_path_loads_through_module_load_like_torch(swap, assign, monkeypatch):
    # Parameter.module_load is patched rather than overridden in a subclass: an outside Tensor
    # subclass switches ember's __torch_function__ wrappers on for the rest of the session
    seen = []
    for lib in LIBS:
        lib.__future__.set_swap_module_params_on_conversion(swap)
        try:
            monkeypatch.setattr(lib.nn.Parameter, "module_load", _doubling, raising=False)
            layer = lib.nn.Linear(2, 2)
            weight = layer.weight
            layer.load_state_dict({"weight": lib.ones(2, 2), "bias": lib.ones(2)}, assign=assign)
            monkeypatch.setattr(lib.nn.Parameter, "module_load", _returning, raising=False)
            bad = lib.nn.Linear(2, 2)
            refused = _err(lambda: bad.load_state_dict(  # noqa: B023
                {"weight": lib.ones(2, 2), "bias": lib.ones(2)}))
            seen.append((layer.weight is weight, type(layer.weight).__name__,
                         layer.weight.sum().item(), layer.weight.requires_grad,
                         layer.bias.sum().item(), refused))
        finally:
            lib.__future__.set_swap_module_params_on_conversion(False)
            monkeypatch.undo()
    assert seen[0] == seen[1]
