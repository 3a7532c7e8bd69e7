"""ember.utils (ember/utils/__init__.py): data and tensorboard load on first use, an unknown name
raises torch's AttributeError."""
import subprocess
import sys

import pytest
import torch

import ember


def test_data_loads_on_first_use():
    code = ("import sys, ember; assert 'ember.utils.data' not in sys.modules; "
            "loader = ember.utils.data.DataLoader; "
            "assert 'ember.utils.data' in sys.modules and loader.__name__ == 'DataLoader'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_tensorboard_resolves():
    assert ember.utils.tensorboard.SummaryWriter.__name__ == "SummaryWriter"


def test_unknown_name_raises_like_torch():
    messages = []
    for lib in (ember, torch):
        with pytest.raises(AttributeError) as info:
            lib.utils.no_such_module
        messages.append(str(info.value).replace("torch", "ember"))
    assert messages[0] == messages[1]


def _swap_report(lib, t1, t2):
    lib.utils.swap_tensors(t1, t2)
    return [(type(t).__name__, t.tolist(), t.requires_grad, t.grad_fn is None,
             getattr(t, "tag", None)) for t in (t1, t2)]


def test_swap_tensors_exchanges_class_data_graph_and_attributes():
    seen = []
    for lib in (ember, torch):
        leaf = lib.ones(2, requires_grad=True)
        product = leaf * 2
        param = lib.nn.Parameter(lib.zeros(3))
        param.tag = "p"
        seen.append(_swap_report(lib, product, param))
    assert seen[0] == seen[1]
    assert seen[0][0][0] == "Parameter" and seen[0][1][4] is None


def test_swap_tensors_refuses_weakrefs_and_non_tensors_like_torch():
    import weakref
    for lib in (ember, torch):
        t1, t2 = lib.ones(2), lib.zeros(3)
        ref = weakref.ref(t2)
        with pytest.raises(RuntimeError, match="Cannot swap t2 because it has weakref"):
            lib.utils.swap_tensors(t1, t2)
        assert ref() is t2 and t1.tolist() == [1.0, 1.0]
        with pytest.raises(AttributeError):
            lib.utils.swap_tensors(t1, 3)
