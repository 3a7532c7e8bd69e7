"""explain_grad: each reason a .grad stays None, checked on scenarios where torch's .grad is None."""
import warnings

import pytest
import torch

import ember
from ember.autograd import explain_grad


def _non_leaf(lib):
    w = lib.randn(3, requires_grad=True) * 0.1
    return w, (w * 2).sum()


def _detached(lib):
    x = lib.randn(3, requires_grad=True)
    d = x.detach()
    return d, (x * d).sum()


def _detached_inplace(lib):
    x = lib.randn(3, requires_grad=True)
    y = x * 1
    y.detach_()
    return y, (x * y).sum()


def _under_no_grad(lib):
    x = lib.randn(3, requires_grad=True)
    with lib.no_grad():
        h = x * 2
    return h, (x * h).sum()


def _under_inference_mode(lib):
    x = lib.randn(3, requires_grad=True)
    with lib.inference_mode():
        h = x + 1
    return h, (x * 3).sum() + h.sum() * 0


def _integer(lib):
    i = lib.arange(3)
    x = lib.randn(3, requires_grad=True)
    return i, (x * i).sum()


def _never_required(lib):
    c = lib.ones(3)
    x = lib.randn(3, requires_grad=True)
    return c, (x * c).sum()


def _not_connected(lib):
    w = lib.randn(3, requires_grad=True)
    other = lib.randn(3, requires_grad=True)
    return w, (other * 2).sum()


def _recreated(lib):
    w = lib.randn(3, requires_grad=True)
    loss = (w * 2).sum()
    w = lib.randn(3, requires_grad=True)  # e.g. a model re-built after the loss was computed
    return w, loss


SCENARIOS = {"non_leaf": _non_leaf, "detached": _detached, "detached_inplace": _detached_inplace,
             "no_grad": _under_no_grad, "inference_mode": _under_inference_mode,
             "integer_dtype": _integer, "no_requires_grad": _never_required,
             "not_connected": _not_connected, "recreated": _recreated}
EXPECTED = {"detached_inplace": "detached", "inference_mode": "no_grad", "recreated": "not_connected"}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_reason_where_torch_grad_is_none(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_tensor, t_loss = SCENARIOS[name](torch)
        t_loss.backward()
        assert t_tensor.grad is None  # the oracle: torch leaves .grad None here too
        e_tensor, e_loss = SCENARIOS[name](ember)
        before = explain_grad(e_tensor, e_loss)
        e_loss.backward()
        assert e_tensor.grad is None
    after = explain_grad(e_tensor, e_loss)
    assert before.reason == after.reason == EXPECTED.get(name, name)
    assert "shape [3]" in after.message and str(e_tensor.dtype) in after.message


def test_messages_say_what_to_do():
    w, loss = _non_leaf(ember)
    assert "retain_grad()" in str(explain_grad(w, loss))
    assert "MulBackward0" in explain_grad(w, loss).message
    i, loss = _integer(ember)
    assert "ember.int64" in explain_grad(i).message and "floating point" in explain_grad(i).message
    h, loss = _under_no_grad(ember)
    assert "no_grad()" in explain_grad(h).message
    w, loss = _not_connected(ember)
    assert "SumBackward0" in explain_grad(w, loss).message


def test_connected_leaf_before_and_after_backward():
    x = ember.randn(2, 3, requires_grad=True)
    loss = (x.exp() * 2).sum()
    e = explain_grad(x, loss)
    assert e.reason == "backward_not_run"
    assert "AccumulateGrad -> ExpBackward0 -> MulBackward0 -> SumBackward0" in e.message
    loss.backward()
    assert explain_grad(x, loss).reason == "has_grad"
    x.grad = None
    assert explain_grad(x, loss).reason == "backward_not_run"
    assert explain_grad(x).reason == "will_have_grad"


def test_retained_non_leaf_is_checked_for_connection():
    x = ember.randn(3, requires_grad=True)
    h = x * 2
    h.retain_grad()
    loss = (h * 3).sum()
    assert explain_grad(h, loss).reason == "backward_not_run"
    loss.backward()
    assert explain_grad(h, loss).reason == "has_grad"


def test_loss_without_graph_explains_the_loss():
    x = ember.randn(3, requires_grad=True)
    with ember.no_grad():
        loss = (x * 2).sum()
    e = explain_grad(x, loss)
    assert e.reason == "loss_no_grad" and "no_grad" in e.message


def test_deep_graph_search_is_iterative():
    x = ember.randn(1, requires_grad=True)
    y = x
    for _ in range(5000):
        y = y * 1.0
    assert explain_grad(x, y.sum()).reason == "backward_not_run"


def test_bad_arguments():
    with pytest.raises(TypeError, match="tensor must be a Tensor, got list"):
        explain_grad([1.0])
    with pytest.raises(TypeError, match="loss must be a Tensor, got float"):
        explain_grad(ember.randn(2, requires_grad=True), 1.0)


def test_unused_module_parameter_is_not_connected():
    for lib in (torch, ember):
        lib.manual_seed(0)
        used, unused = lib.nn.Linear(3, 2), lib.nn.Linear(3, 2)
        loss = used(lib.ones(4, 3)).sum()
        loss.backward()
        assert unused.weight.grad is None and used.weight.grad is not None
    e = explain_grad(unused.weight, loss)
    assert e.reason == "not_connected" and "shape [2, 3]" in e.message
    assert explain_grad(used.weight, loss).reason == "has_grad"
