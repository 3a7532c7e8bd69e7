"""Tracing (ember/onnx/_trace.py): every op of a forward is seen, fast paths and comparisons
included, and ops outside a trace are not observed."""
import numpy as np
import pytest

import ember
from ember.autograd import graph
from ember.onnx import _trace


class Net(ember.nn.Module):
    def forward(self, x):
        y = x * 2 + x  # the scalar and tensor fast paths
        return (y > 0).float() + y.tanh()


def test_every_op_is_seen_in_order():
    calls, out = _trace.run(Net(), (ember.randn(3),), {})
    assert [c.op for c in calls] == ["MulBackward0", "AddBackward0", "greater",
                                     "ToCopyBackward0", "TanhBackward0", "AddBackward0"]
    assert calls[-1].out is out
    assert calls[1].inputs[0] is calls[0].out  # the values are the traced tensors themselves


def test_the_observer_is_off_outside_a_trace_and_after_an_error():
    class Failing(ember.nn.Module):
        def forward(self, x):
            x = x + 1
            raise ValueError("boom")
    model = Failing()
    model.train()
    with pytest.raises(ValueError, match="boom"):
        _trace.run(model, (ember.randn(2),), {})
    assert graph._observer is None and graph._anomaly_mode is False
    assert model.training  # the mode is restored
    seen = []
    graph._observer = lambda *a: seen.append(a)  # set without the slow path: ops pay nothing
    try:
        ember.randn(2) * 2 > 0
    finally:
        graph._observer = None
    # only the comparison, which checks the observer itself: Mul took its fast path unseen
    assert [(type(a[0]), a[0].name) for a in seen] == [(graph.Untracked, "greater")]


def test_probe_inputs_permute_values_and_extend_dynamic_axes():
    x = ember.arange(6).view(2, 3)
    (flag, (probe, same)), kwargs = _trace.probe_inputs(((True, (x, x)), {}), {0: [0]})
    assert flag is True and kwargs == {} and same.shape == x.shape  # the second: not dynamic
    assert _trace.leaves(((True, (x, x)), {"k": [x]})) == [x, x, x]
    assert probe.shape == (3, 3) and probe.dtype == x.dtype
    assert sorted(probe.numpy()[:2].ravel()) == list(range(6))
    np.testing.assert_array_equal(probe.numpy()[2], probe.numpy()[0])


def test_flat_outputs_refuses_other_values():
    a, b, c = ember.ones(1), ember.ones(2), ember.ones(3)
    assert _trace.flat_outputs((a, b)) == [a, b]
    assert _trace.flat_outputs([a, None, (b, [c])]) == [a, b, c]  # as torch's export
    with pytest.raises(RuntimeError, match="must return a tensor or a tuple/list of tensors, "
                                           "not dict"):
        _trace.flat_outputs({"a": ember.ones(1)})
