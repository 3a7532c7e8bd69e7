"""The Optimizer base class: parameter groups, errors, zero_grad, closure, hooks and repr
(state_dict, load_state_dict and pickling: tests/optim/test_state_io.py)."""
import importlib
import warnings

import numpy as np
import pytest
import torch
from _sgd import error, pair, trained

import ember

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
    expected = error(lambda: make(torch, *pair(torch)))
    assert expected is not None
    assert error(lambda: make(ember, *pair(ember))) == expected


def test_mixing_named_and_unnamed_groups_is_an_error():
    for lib in (torch, ember):
        w, b = pair(lib)
        opt = lib.optim.SGD([("w", w)])
        with pytest.raises(ValueError, match="with/without names"):
            opt.add_param_group({"params": [b]})


def test_duplicate_parameter_warns():
    w, _ = pair(ember)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        ember.optim.SGD([w, w])


def test_repr_matches_torch():
    reprs = []
    for lib in (torch, ember):
        w, b = pair(lib)
        opt = lib.optim.SGD([("w", w)], lr=0.1, momentum=0.9)
        opt.add_param_group({"params": [("b", b)], "lr": 0.5})
        reprs.append(repr(opt))
    assert reprs[0] == reprs[1]


def test_groups_keys_in_torch_order():
    keys = []
    for lib in (torch, ember):
        w, b = pair(lib)
        opt = lib.optim.SGD([{"params": [("w", w)], "lr": 0.2}], momentum=0.1)
        keys.append(list(opt.param_groups[0]))
    assert keys[0] == keys[1]


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    w, b = pair(ember)
    (w.sum() + b.sum()).backward()
    opt = ember.optim.SGD([w, b])
    opt.zero_grad(set_to_none=set_to_none)
    if set_to_none:
        assert w.grad is None and b.grad is None
    else:
        assert not np.any(w.grad._data) and not np.any(b.grad._data)


def test_zero_grad_default_sets_none():
    w, b = pair(ember)
    (w.sum() * 2).backward()
    ember.optim.SGD([w]).zero_grad()
    assert w.grad is None


def test_step_with_closure_runs_with_grad_and_returns_loss():
    w, b = pair(ember)
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
    w, _ = pair(ember)
    with pytest.raises(NotImplementedError):
        ember.optim.Optimizer([w], {}).step()


def test_params_without_grad_are_skipped():
    w, b = pair(ember)
    before = b._data.copy()
    opt = ember.optim.SGD([w, b], lr=0.1, momentum=0.9)
    w.sum().backward()
    opt.step()
    assert np.array_equal(b._data, before) and b not in opt.state


def test_step_hooks_run_in_order_and_can_be_removed():
    w, _ = pair(ember)
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
    w, _ = pair(ember)
    opt = ember.optim.SGD([w], lr=0.1)
    marker = []

    def closure():
        marker.append(1)
        return ember.tensor(1.0)

    opt.register_step_pre_hook(lambda o, a, k: ((closure,), {}))
    w.sum().backward()
    assert opt.step().item() == 1.0 and marker == [1]


def test_no_warning_on_plain_use():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trained(ember)


def test_user_subclass_gets_hooks_and_state_dict():
    class Halve(ember.optim.Optimizer):
        def __init__(self, params, lr=0.5):
            super().__init__(params, dict(lr=lr))

        def step(self, closure=None):
            with ember.no_grad():
                for group in self.param_groups:
                    for p in group["params"]:
                        p.add_(p.grad, alpha=-group["lr"])
                        self.state[p]["count"] = self.state[p].get("count", 0) + 1

    w = ember.ones(3, requires_grad=True)
    opt = Halve([w])
    calls = []
    opt.register_step_post_hook(lambda o, a, k: calls.append(o))
    w.grad = ember.ones(3)
    opt.step()
    assert calls == [opt]
    np.testing.assert_array_equal(w._data, [0.5, 0.5, 0.5])
    assert opt.state_dict() == {"state": {0: {"count": 1}},
                                "param_groups": [{"lr": 0.5, "params": [0]}]}


def test_tensor_lr_is_read_as_a_number():
    results = []
    for lib in (torch, ember):
        w = lib.ones(3, requires_grad=True)
        opt = lib.optim.SGD([w], lr=lib.tensor(0.25), momentum=0.5)
        for _ in range(2):
            w.grad = lib.ones(3)
            opt.step()
        results.append(np.array(w.detach().numpy() if lib is torch else w._data))
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6)


def test_hooks_run_once_when_a_subclass_calls_super_step():
    class Logged(ember.optim.SGD):
        def step(self, closure=None):
            return super().step(closure)

    w = ember.ones(2, requires_grad=True)
    opt = Logged([w], lr=0.1)
    calls = []
    opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    w.grad = ember.ones(2)
    opt.step()
    assert calls == ["pre"]
