"""The Optimizer base class: parameter groups, errors, zero_grad, closure, hooks, repr,
pickling, and state_dict / load_state_dict (torch's layout, atomic, name matching)."""
import copy
import importlib
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember


def _pair(lib, seed=0):
    rng = np.random.default_rng(seed)
    w = lib.tensor(rng.standard_normal((3, 2)).astype(np.float32), requires_grad=True)
    b = lib.tensor(rng.standard_normal(2).astype(np.float32), requires_grad=True)
    return w, b


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the test compares types and messages
        return type(e), str(e).replace("torch.", "ember.")
    return None


BAD_PARAMS = [
    lambda lib, w, b: lib.optim.SGD(w),
    lambda lib, w, b: lib.optim.SGD([]),
    lambda lib, w, b: lib.optim.SGD([{"params": {w}}]),
    lambda lib, w, b: lib.optim.SGD([1.0]),
    lambda lib, w, b: lib.optim.SGD([w * 2]),
    lambda lib, w, b: lib.optim.SGD([{"params": [w]}, {"params": [w, b]}]),
    lambda lib, w, b: lib.optim.SGD([("w", w), b]),
    lambda lib, w, b: lib.optim.Optimizer([w], {"lr": importlib.import_module(
        lib.__name__ + ".optim.optimizer").required}),
    lambda lib, w, b: lib.optim.SGD([w], lr=-1.0),
    lambda lib, w, b: lib.optim.SGD([w], momentum=-0.5),
    lambda lib, w, b: lib.optim.SGD([w], weight_decay=-0.5),
    lambda lib, w, b: lib.optim.SGD([w], nesterov=True),
    lambda lib, w, b: lib.optim.SGD([w], momentum=0.9, dampening=0.1, nesterov=True),
    lambda lib, w, b: lib.optim.SGD([w], foreach=True, fused=True),
]


@pytest.mark.parametrize("index", range(len(BAD_PARAMS)))
def test_constructor_errors_match_torch(index):
    make = BAD_PARAMS[index]
    expected = _error(lambda: make(torch, *_pair(torch)))
    assert expected is not None
    assert _error(lambda: make(ember, *_pair(ember))) == expected


def test_mixing_named_and_unnamed_groups_is_an_error():
    for lib in (torch, ember):
        w, b = _pair(lib)
        opt = lib.optim.SGD([("w", w)])
        with pytest.raises(ValueError, match="with/without names"):
            opt.add_param_group({"params": [b]})


def test_duplicate_parameter_warns():
    w, _ = _pair(ember)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        ember.optim.SGD([w, w])


def test_repr_matches_torch():
    reprs = []
    for lib in (torch, ember):
        w, b = _pair(lib)
        opt = lib.optim.SGD([("w", w)], lr=0.1, momentum=0.9)
        opt.add_param_group({"params": [("b", b)], "lr": 0.5})
        reprs.append(repr(opt))
    assert reprs[0] == reprs[1]


def test_groups_keys_in_torch_order():
    keys = []
    for lib in (torch, ember):
        w, b = _pair(lib)
        opt = lib.optim.SGD([{"params": [("w", w)], "lr": 0.2}], momentum=0.1)
        keys.append(list(opt.param_groups[0]))
    assert keys[0] == keys[1]


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    w, b = _pair(ember)
    (w.sum() + b.sum()).backward()
    opt = ember.optim.SGD([w, b])
    opt.zero_grad(set_to_none=set_to_none)
    if set_to_none:
        assert w.grad is None and b.grad is None
    else:
        assert not np.any(w.grad._data) and not np.any(b.grad._data)


def test_zero_grad_default_sets_none():
    w, b = _pair(ember)
    (w.sum() * 2).backward()
    ember.optim.SGD([w]).zero_grad()
    assert w.grad is None


def test_step_with_closure_runs_with_grad_and_returns_loss():
    w, b = _pair(ember)
    opt = ember.optim.SGD([w, b], lr=0.1)
    seen = {}

    def closure():
        seen["grad_enabled"] = ember.is_grad_enabled()
        opt.zero_grad()
        loss = (w ** 2).sum() + b.sum()
        loss.backward()
        return loss

    with ember.no_grad():
        loss = opt.step(closure)
    assert seen["grad_enabled"] and isinstance(loss, ember.Tensor)


def test_base_step_is_abstract():
    w, _ = _pair(ember)
    with pytest.raises(NotImplementedError):
        ember.optim.Optimizer([w], {}).step()


def test_params_without_grad_are_skipped():
    w, b = _pair(ember)
    before = b._data.copy()
    opt = ember.optim.SGD([w, b], lr=0.1, momentum=0.9)
    w.sum().backward()
    opt.step()
    assert np.array_equal(b._data, before) and b not in opt.state


def test_step_hooks_run_in_order_and_can_be_removed():
    w, _ = _pair(ember)
    opt = ember.optim.SGD([w], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", o is opt)))
    h2 = opt.register_step_post_hook(lambda o, a, k: calls.append(("post", o is opt)))
    hg = ember.optim.optimizer.register_optimizer_step_pre_hook(
        lambda o, a, k: calls.append(("global", o is opt)))
    w.sum().backward()
    opt.step()
    assert calls == [("global", True), ("pre", True), ("post", True)]
    for h in (h1, h2, hg):
        h.remove()
    opt.step()
    assert len(calls) == 3


def test_pre_hook_can_replace_arguments():
    w, _ = _pair(ember)
    opt = ember.optim.SGD([w], lr=0.1)
    marker = []

    def closure():
        marker.append(1)
        return ember.tensor(1.0)

    opt.register_step_pre_hook(lambda o, a, k: ((closure,), {}))
    w.sum().backward()
    assert opt.step().item() == 1.0 and marker == [1]


def _trained(lib, named=False, steps=3, **kw):
    w, b = _pair(lib)
    params = [("w", w), ("b", b)] if named else [w, b]
    opt = lib.optim.SGD(params, lr=0.1, momentum=0.9, **kw)
    for _ in range(steps):
        opt.zero_grad()
        ((w ** 2).sum() + (b ** 3).sum()).backward()
        opt.step()
    return (w, b), opt


@pytest.mark.parametrize("named", [False, True])
def test_state_dict_layout_matches_torch(named):
    _, e = _trained(ember, named)
    _, t = _trained(torch, named)
    es, ts = e.state_dict(), t.state_dict()
    assert es["param_groups"] == ts["param_groups"]
    assert list(es["param_groups"][0]) == list(ts["param_groups"][0])
    assert list(es["state"]) == list(ts["state"])
    for pid in ts["state"]:
        for key, value in ts["state"][pid].items():
            np.testing.assert_allclose(es["state"][pid][key]._data, value.numpy(), rtol=1e-5)


def test_pickle_and_deepcopy_round_trip():
    (w, b), opt = _trained(ember)
    for clone in (copy.deepcopy(opt), pickle.loads(pickle.dumps(opt))):
        assert repr(clone) == repr(opt)
        assert clone.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
        (w2, b2) = clone.param_groups[0]["params"]
        np.testing.assert_array_equal(clone.state[w2]["momentum_buffer"]._data,
                                      opt.state[w]["momentum_buffer"]._data)


def test_load_state_dict_errors_match_torch():
    for bad in ({"state": {}, "param_groups": []},
                {"state": {}, "param_groups": [{"params": [0, 1, 2]}]}):
        got = [_error(lambda lib=lib: _trained(lib)[1].load_state_dict(bad))
               for lib in (torch, ember)]
        assert got[0] is not None and got[0] == got[1]


def _snapshot(opt):
    sd = opt.state_dict()
    return (repr(opt), {k: {n: v._data.copy() for n, v in e.items()}
                        for k, e in sd["state"].items()})


def test_failed_load_leaves_optimizer_unchanged():
    _, opt = _trained(ember)
    good = copy.deepcopy(opt.state_dict())
    before = _snapshot(opt)
    bad = copy.deepcopy(good)
    bad["param_groups"][0]["lr"] = 123.0
    bad["param_groups"][0]["params"].append(7)
    with pytest.raises(ValueError):
        opt.load_state_dict(bad)
    after = _snapshot(opt)
    assert before[0] == after[0]
    for k in before[1]:
        for n in before[1][k]:
            np.testing.assert_array_equal(before[1][k][n], after[1][k][n])


def test_load_restores_hyperparameters_and_casts_state():
    _, src = _trained(ember)
    sd = src.state_dict()
    sd["param_groups"][0]["lr"] = 0.25
    w = ember.zeros(3, 2, dtype=ember.float64, requires_grad=True)
    b = ember.zeros(2, dtype=ember.float64, requires_grad=True)
    opt = ember.optim.SGD([w, b], lr=1.0)
    opt.load_state_dict(sd)
    assert opt.param_groups[0]["lr"] == 0.25
    assert opt.param_groups[0]["params"][0] is w
    assert opt.state[w]["momentum_buffer"].dtype == ember.float64


def test_name_matching_survives_reordering():
    (w, b), src = _trained(ember, named=True)
    sd = src.state_dict()
    w2, b2 = (ember.tensor(w._data.copy(), requires_grad=True),
              ember.tensor(b._data.copy(), requires_grad=True))
    opt = ember.optim.SGD([("b", b2), ("w", w2)], lr=0.1, momentum=0.9)
    result = opt.load_state_dict(sd)
    assert result == ([], [], [])
    np.testing.assert_array_equal(opt.state[w2]["momentum_buffer"]._data,
                                  src.state[w]["momentum_buffer"]._data)
    assert opt.param_groups[0]["param_names"] == ["b", "w"]


def test_strict_name_load_reports_and_changes_nothing():
    (w, b), src = _trained(ember, named=True)
    sd = src.state_dict()
    w2 = ember.zeros(2, 3, requires_grad=True)   # same name, other shape
    c = ember.zeros(4, requires_grad=True)        # a name the file lacks
    opt = ember.optim.SGD([("w", w2), ("c", c)], lr=0.5, momentum=0.9)
    with pytest.raises(ValueError) as info:
        opt.load_state_dict(sd)
    text = str(info.value)
    assert "Missing parameter names: ['c']" in text
    assert "Unexpected parameter names: ['b']" in text
    assert "size mismatch for 'w'" in text and "[3, 2]" in text
    assert opt.param_groups[0]["lr"] == 0.5 and not opt.state
    result = opt.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["c"] and result.unexpected_keys == ["b"]
    assert result.mismatched_keys == ["w"]
    assert opt.param_groups[0]["lr"] == 0.1 and w2 not in opt.state


def test_non_strict_load_keeps_state_of_unmatched_parameters():
    (w, b), src = _trained(ember, named=True)
    sd = src.state_dict()
    (w2, b2), opt = _trained(ember, named=True, steps=1)
    c = ember.ones(2, requires_grad=True)
    opt.add_param_group({"params": [("c", c)]})
    c.grad = ember.ones(2)
    opt.param_groups[1]["momentum"] = 0.5
    opt.step()
    kept = opt.state[c]["momentum_buffer"]
    sd["param_groups"].append({**sd["param_groups"][0], "params": [], "param_names": []})
    result = opt.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["c"] and opt.state[c]["momentum_buffer"] is kept
    np.testing.assert_array_equal(opt.state[w2]["momentum_buffer"]._data,
                                  src.state[w]["momentum_buffer"]._data)


def test_load_does_not_alias_the_source():
    (w, b), src = _trained(ember)
    (w2, b2), opt = _trained(ember, steps=0)
    opt.load_state_dict(src.state_dict())
    assert opt.state[w2]["momentum_buffer"] is not src.state[w]["momentum_buffer"]


def test_no_warning_on_plain_use():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _trained(ember)
