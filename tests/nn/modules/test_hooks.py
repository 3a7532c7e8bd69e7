"""Module hooks (ember/nn/modules/_hooks.py): forward pre-hooks and hooks (with kwargs, prepend,
removal through RemovableHandle) and full backward (pre-)hooks, their order and warnings, against
torch.nn."""
import numpy as np
import pytest
import torch

import ember


def test_forward_hooks():
    lin = ember.nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: calls.append(out.shape) or out + 1)
    out = lin(ember.randn(3, 2))
    np.testing.assert_allclose(out.detach().numpy(), (lin.bias + 1).detach().numpy()[None]
                               .repeat(3, 0), rtol=1e-6)
    assert calls == [ember.Size([3, 2])]
    h1.remove()
    h2.remove()
    x = ember.randn(3, 2)
    assert ember.equal(lin(x), ember.nn.functional.linear(x, lin.weight, lin.bias))
    seen = []
    lin.register_forward_pre_hook(lambda m, a, k: seen.append(k) or ((k["input"],), {}),
                               with_kwargs=True)
    lin.register_forward_hook(lambda m, a, k, o: seen.append("post"), with_kwargs=True)
    lin(input=x)
    assert seen == [{"input": x}, "post"]


def test_hook_order_prepend():
    lin = ember.nn.Identity()
    order = []
    lin.register_forward_hook(lambda m, a, o: order.append(1))
    lin.register_forward_hook(lambda m, a, o: order.append(0), prepend=True)
    lin(ember.ones(1))
    assert order == [0, 1]


def _backward_hook_log(lib, input_requires_grad):
    lin = lib.nn.Linear(3, 2)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor([[1.0, 2, 3], [4, 5, 6]]))
        lin.bias.zero_()
    log = []

    def pre_hook(module, grad_output):
        log.append(("pre", [tuple(g.shape) for g in grad_output]))
        return (grad_output[0] * 3,)

    def hook(module, grad_input, grad_output):
        log.append(("hook", [None if g is None else g.tolist() for g in grad_input],
                    [g.tolist() for g in grad_output]))
        return (grad_input[0] * 2,) if grad_input[0] is not None else None
    lin.register_full_backward_pre_hook(pre_hook)
    handle = lin.register_full_backward_hook(hook)
    x = lib.ones(4, 3, requires_grad=input_requires_grad)
    y = lin(x)
    y.sum().backward()
    grads = (x.grad.tolist() if input_requires_grad else None, lin.weight.grad.tolist())
    handle.remove()
    lin(x).sum().backward()  # the removed hook no longer fires; the pre-hook still does
    return log, grads, type(y.grad_fn).__name__


@pytest.mark.parametrize("input_requires_grad", [True, False])
def test_full_backward_hooks_match_torch(input_requires_grad):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        e = _backward_hook_log(ember, input_requires_grad)
        t = _backward_hook_log(torch, input_requires_grad)
    assert e == t
    fired_early = [w for w in caught if "Full backward hook is firing" in str(w.message)]
    assert len(fired_early) == (0 if input_requires_grad else 4)


def test_full_backward_hook_order_in_sequential_matches_torch():
    orders = []
    for lib in (ember, torch):
        seq = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1))
        order = []
        for name, mod in seq.named_children():
            mod.register_full_backward_hook(lambda m, gi, go, n=name: order.append(n))
        seq(lib.ones(2, 3, requires_grad=True)).sum().backward()
        orders.append(order)
    assert orders[0] == orders[1] == ["2", "1", "0"]


def test_removable_handle_as_context_manager_and_removed_twice():
    lin = ember.nn.Identity()
    calls = []
    with lin.register_forward_hook(lambda m, a, o: calls.append("in")):
        lin(ember.ones(1))
    lin(ember.ones(1))
    assert calls == ["in"]
    handle = lin.register_forward_hook(lambda m, a, o: calls.append("again"))
    handle.remove()
    handle.remove()  # a second remove is harmless, as torch's
    lin(ember.ones(1))
    assert calls == ["in"]



def _pair(lib):
    class Pair(lib.nn.Module):
        def forward(self, x):
            return x * 2, x + 1
    return Pair()


def _noisy(lib):
    class Listy(lib.nn.Module):
        def forward(self, x):
            return [x * 2]
    return Listy()


@pytest.mark.parametrize("make, grad", [
    (lambda lib: lib.nn.Conv2d(1, 2, 3), False),  # a parameter's node: missing grad_input
    (lambda lib: lib.nn.Conv2d(1, 2, 3), True),
    (lambda lib: lib.nn.ReLU(), True),  # one node: no warning
    (_pair, True),  # outputs from two nodes
    (_noisy, True),  # not a tensor or a tuple of tensors
], ids=["conv", "conv_input_grad", "relu", "two_nodes", "list_output"])
def test_register_backward_hook_warns_as_torch(make, grad):
    # ember registered the old hook silently as a full one; torch warns where it would miss
    # gradients (the nn tutorial for former Torch users' conv2 hook)
    import warnings
    seen = []
    for lib in (torch, ember):
        module = make(lib)
        module.register_backward_hook(lambda m, gi, go: None)
        x = lib.randn(1, 1, 5, 5, requires_grad=grad)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module(x)
        seen.append([(w.category, str(w.message)) for w in caught
                     if issubclass(w.category, FutureWarning)])
    assert seen[1] == seen[0]


@pytest.mark.parametrize("first, second", [("register_backward_hook",
                                            "register_full_backward_hook"),
                                           ("register_full_backward_hook",
                                            "register_backward_hook")])
def test_mixing_old_and_full_backward_hooks_raises_as_torch(first, second):
    from oracle import same_error

    def run(lib):
        module = lib.nn.Linear(2, 2)
        getattr(module, first)(lambda m, gi, go: None)
        getattr(module, second)(lambda m, gi, go: None)
    same_error(run)


def _always_log(lib):
    calls = []
    layer = lib.nn.Linear(2, 2)
    layer.register_forward_hook(lambda m, a, o: calls.append(("always", o is None)),
                                always_call=True)
    layer.register_forward_hook(lambda m, a, k, o: calls.append(("kwargs", k, o is None)),
                                always_call=True, with_kwargs=True)
    layer.register_forward_hook(lambda m, a, o: calls.append(("plain", o is None)))

    def failing_pre_hook(m, args):
        raise ValueError("boom")
    handle = layer.register_forward_pre_hook(failing_pre_hook)
    with pytest.raises(ValueError, match="boom"):
        layer(lib.ones(1, 2))
    handle.remove()
    calls.append("normal call")
    layer(lib.ones(1, 2))
    calls.append("a later hook fails")

    def failing_hook(m, args, out):
        raise KeyError("post")
    layer.register_forward_hook(failing_hook)
    with pytest.raises(KeyError):
        layer(lib.ones(1, 2))
    return calls


def test_always_call_forward_hooks_run_after_errors_like_torch():
    assert _always_log(ember) == _always_log(torch)
    assert _always_log(ember)[:2] == [("always", True), ("kwargs", {}, True)]


def test_always_call_hook_errors_are_warned_and_outputs_passed_on_like_torch():
    seen = []
    for lib in (ember, torch):
        layer = lib.nn.Linear(2, 2)

        def failing(m, args, out):
            raise RuntimeError("hook failed")
        layer.register_forward_hook(failing, always_call=True)
        with pytest.warns(UserWarning) as record:
            with pytest.raises(RuntimeError) as error:
                layer(lib.ones(1, 3))  # forward fails: the hook runs, its own error is warned
        got = []
        other = lib.nn.Linear(2, 2)
        other.register_forward_hook(lambda m, a, o: 7, always_call=True)
        other.register_forward_hook(lambda m, a, o: got.append(o), always_call=True)

        def failing_pre_hook(m, args):
            raise ValueError("x")
        other.register_forward_pre_hook(failing_pre_hook)
        with pytest.raises(ValueError):
            other(lib.ones(1, 2))
        seen.append(("hook failed" not in str(error.value),
                     [str(w.message) for w in record if "always_call" in str(w.message)], got))
    assert seen[0] == seen[1]
    assert seen[0][1] == ["module forward hook with ``always_call=True`` raised an exception that "
                          "was silenced as another error was raised in forward: hook failed"]
