"""Anomaly mode: the op and the user's line where NaN/Inf first appears, forward and backward."""
import inspect
import warnings

import numpy as np
import pytest
import torch

import ember
from ember.autograd.anomaly import AnomalyWarning, creation_site


def _line_of(marker):
    """Line number in this file of the line containing ``marker`` (a comment tag)."""
    lines, start = inspect.getsourcelines(inspect.getmodule(_line_of))
    return next(i for i, text in enumerate(lines, start or 1) if text.rstrip().endswith(marker))


@pytest.fixture(autouse=True)
def _off_after():
    yield
    ember.autograd.set_detect_anomaly(False)


def _nan_program(lib):
    x = lib.tensor([0.0, 4.0], requires_grad=True)
    y = x.sqrt()  # @sqrt-line
    return x, (y * 0).sum()


def test_backward_names_node_and_forward_line_like_torch():
    with pytest.warns(UserWarning):
        with torch.autograd.detect_anomaly():
            _, loss = _nan_program(torch)
            with pytest.raises(RuntimeError) as t_err:
                loss.backward()
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with ember.autograd.detect_anomaly():
            _, loss = _nan_program(ember)
            with pytest.raises(RuntimeError) as e_err:
                loss.backward()
    assert str(t_err.value).splitlines()[0] == str(e_err.value).splitlines()[0] == \
        "Function 'SqrtBackward0' returned nan values in its 0th output."
    message = str(e_err.value)
    assert f'"{__file__}", line {_line_of("# @sqrt-line")}' in message
    assert "y = x.sqrt()" in message


def test_forward_warns_at_first_op_only_with_user_line():
    x = ember.tensor([1.0, -1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ember.autograd.set_detect_anomaly(True):
            y = x.log()  # @log-line
            z = (y * 2).exp()  # NaN flows on: not reported again
    anomalies = [w for w in caught if issubclass(w.category, AnomalyWarning)]
    assert len(anomalies) == 1
    w = anomalies[0]
    assert w.filename == __file__ and w.lineno == _line_of("# @log-line")
    assert "LogBackward0 (log) produced nan values (1 of 3 elements)" in str(w.message)
    assert np.isnan(z._data[1])


def test_forward_inf_from_finite_inputs_is_reported():
    x = ember.tensor([0.0, 1.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ember.autograd.set_detect_anomaly(True):
            ember.tensor([1.0, 1.0]) / x  # @div-line
    (w,) = [w for w in caught if issubclass(w.category, AnomalyWarning)]
    assert "DivBackward0 (div) produced inf values (1 of 2 elements)" in str(w.message)
    assert w.lineno == _line_of("# @div-line")


def test_non_finite_scalar_argument_is_not_an_anomaly():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ember.autograd.set_detect_anomaly(True):
            x.masked_fill(x > 1, float("-inf"))  # an attention-mask idiom
            x * float("inf")
    assert not [w for w in caught if issubclass(w.category, AnomalyWarning)]


def test_inf_gradient_is_reported_in_backward():
    x = ember.tensor([0.0, 1.0], requires_grad=True)
    with ember.autograd.set_detect_anomaly(True):
        y = x.sqrt()  # @inf-line
        with pytest.raises(RuntimeError, match="'SqrtBackward0' returned inf values in its 0th"):
            y.sum().backward()


def test_off_records_nothing_and_lets_nan_through_like_torch():
    x, loss = _nan_program(ember)
    assert creation_site(loss.grad_fn) is None
    loss.backward()
    tx, tloss = _nan_program(torch)
    tloss.backward()
    np.testing.assert_array_equal(x.grad._data, tx.grad.numpy())
    assert not ember.autograd.is_anomaly_enabled()


def test_site_recorded_only_during_forward_under_mode():
    with ember.autograd.set_detect_anomaly(True):
        x, loss = _nan_program(ember)
    site = creation_site(x.sqrt().grad_fn)
    assert site is None
    node = loss.grad_fn.next_functions[0][0].next_functions[0][0]
    assert type(node).__name__ == "SqrtBackward0"
    assert creation_site(node)[:3] == (__file__, _line_of("# @sqrt-line"), "_nan_program")


def test_check_nan_false_records_but_does_not_raise():
    with ember.autograd.set_detect_anomaly(True, check_nan=False):
        assert ember.autograd.is_anomaly_enabled()
        assert not ember.autograd.is_anomaly_check_nan_enabled()
        x, loss = _nan_program(ember)
        loss.backward()
    assert np.isnan(x.grad._data[0])


def test_mode_switching_matches_torch():
    for lib in (torch, ember):
        ag = lib.autograd
        assert not ag.is_anomaly_enabled() if lib is ember else True
        ag.set_detect_anomaly(True)
        on = (lib.is_anomaly_enabled() if lib is torch else ag.is_anomaly_enabled())
        with ag.set_detect_anomaly(False):
            off = (lib.is_anomaly_enabled() if lib is torch else ag.is_anomaly_enabled())
        back = (lib.is_anomaly_enabled() if lib is torch else ag.is_anomaly_enabled())
        ag.set_detect_anomaly(False)
        assert (on, off, back) == (True, False, True)


def test_decorator_form_restores_mode():
    @ember.autograd.detect_anomaly()
    def step():
        return ember.autograd.is_anomaly_enabled()

    with pytest.warns(UserWarning):
        assert step() is True
    assert not ember.autograd.is_anomaly_enabled()


def test_other_backward_errors_get_the_forward_line():
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    with ember.autograd.set_detect_anomaly(True):
        b = a * 1
        c = b.sin()  # @sin-line
        b.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as err:
            c.sum().backward()
    notes = "\n".join(getattr(err.value, "__notes__", []))
    assert "Error detected in SinBackward0" in notes
    assert f"line {_line_of('# @sin-line')}" in notes


def test_custom_function_site_and_nan_gradient():
    class BadGrad(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    x = ember.tensor([1.0], requires_grad=True)
    with ember.autograd.set_detect_anomaly(True):
        y = BadGrad.apply(x)  # @custom-line
        with pytest.raises(RuntimeError, match="'BadGradBackward' returned nan values") as err:
            y.sum().backward()
    assert f"line {_line_of('# @custom-line')}" in str(err.value)


def test_mode_off_costs_no_state_on_nodes():
    x = ember.tensor([1.0], requires_grad=True)
    y = x * 2
    assert "_anomaly_site" not in y.grad_fn.__dict__


def test_nan_inside_a_module_names_the_users_call_line():
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(3, 2), ember.nn.LogSoftmax(dim=1))
    x = ember.tensor([[1.0, 2.0, float("nan")]])
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        with ember.autograd.set_detect_anomaly(True):
            h = model[0](ember.ones(1, 3)) * 0 + x.sum()  # NaN comes in from data, not an op
            out = ember.log(model[1](h) - 5)  # @module-line
            with pytest.raises(RuntimeError, match="returned nan values") as err:
                out.sum().backward()
    assert np.isnan(out._data).all()
    assert "in test_nan_inside_a_module_names_the_users_call_line" in str(err.value)


def test_forward_site_inside_module_points_at_user_line():
    ember.manual_seed(0)
    lin = ember.nn.Linear(2, 2)
    with ember.autograd.set_detect_anomaly(True):
        y = lin(ember.ones(1, 2))  # @linear-line
    site = creation_site(y.grad_fn)
    assert site[:2] == (__file__, _line_of("# @linear-line"))
    assert site[3] is not None  # the ember function below the user's frame is named too
