"""fx's temporary patching (ember/fx/_patch.py): public functions record calls with Proxies
only while a Proxy lives or a trace runs, and are the originals again afterwards."""
import gc

import pytest

import ember
from ember.fx import _patch

F = ember.nn.functional
cat, relu = ember.cat, F.relu
tensor_add, masked_fill = ember.Tensor.__add__, ember.Tensor.masked_fill


def _originals():
    """Nothing of ember's left swapped (the per-op path is ember's own)."""
    from ember.nn.modules import activation
    return (ember.cat is cat and F.relu is relu and activation.ReLU._fn is relu
            and ember.Tensor.__add__ is tensor_add and ember.Tensor.masked_fill is masked_fill)


def test_functions_are_originals_outside_tracing():
    assert _originals()
    ember.fx.symbolic_trace(ember.nn.ReLU())
    assert _originals()


def test_restored_when_the_trace_raises():
    class Bad(ember.nn.Module):
        def forward(self, x):
            return ember.cat([x, x]) if x else x
    with pytest.raises(ember.fx.proxy.TraceError):
        ember.fx.symbolic_trace(Bad())
    gc.collect()
    assert _originals() and _patch._holders == 0
    assert ember.nn.Module.__call__.__name__ == "__call__"


def test_patched_while_a_proxy_lives():
    g = ember.fx.Graph()
    p = ember.fx.Proxy(g.placeholder("x"))
    assert ember.cat is not cat
    out = ember.cat([p, p], 0)
    assert (out.node.op, out.node.target, out.node.args) == ("call_function", cat,
                                                             ([p.node, p.node], 0))
    assert ember.equal(ember.cat([ember.ones(1)]), ember.ones(1))  # tensors: the original
    del p, out
    gc.collect()
    assert _originals()


def test_find_proxy_looks_into_containers():
    g = ember.fx.Graph()
    p = ember.fx.Proxy(g.placeholder("x"))
    assert _patch.find_proxy(([1, {"a": (2, p)}],), {}) is p
    assert _patch.find_proxy((1, [2]), {"k": 3}) is None


def test_a_name_rebound_meanwhile_is_left_alone():
    g = ember.fx.Graph()
    p = ember.fx.Proxy(g.placeholder("x"))
    sentinel = object()
    saved = ember.nn.functional.gelu
    ember.nn.functional.gelu = sentinel  # the user's own binding while patched
    try:
        del p
        gc.collect()
        assert ember.nn.functional.gelu is sentinel and ember.cat is cat
    finally:
        ember.nn.functional.gelu = getattr(saved, "__wrapped_original__", saved)
