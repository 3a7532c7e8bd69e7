"""fx's view of torch's public functions (ember/fx/_names.py): printed names, node names, the
bindings to patch, and the argument layout torch records for nn.functional calls."""
import types

import torch

import ember
from ember.fx import _names

F = ember.nn.functional


def test_printed_and_node_names():
    assert _names.torch_name(ember.cat) == "torch.cat"
    assert _names.torch_name(F.relu) == "torch.nn.functional.relu"
    assert _names.torch_name(ember.special.ndtr) == "torch.special.ndtr"
    assert _names.torch_name(len) is None
    assert _names.node_name(ember.matmul) == "matmul"  # ember's function is dispatch_matmul
    assert _names.node_name(len) == "len"
    assert (_names.torch_name(ember.arctan), _names.node_name(ember.arctan)) == \
        ("torch.arctan", "arctan")  # ember's function is named atan


def test_native_functional_set_is_torchs():
    native = {n for n in dir(torch.nn.functional) if not n.startswith("_")
              and isinstance(getattr(torch.nn.functional, n), types.BuiltinFunctionType)}
    native -= {"has_torch_function", "has_torch_function_unary", "has_torch_function_variadic"}
    assert _names.NATIVE_FUNCTIONAL == native


def test_python_functional_calls_record_defaults_by_keyword():
    assert _names.call_arguments(F.relu, ("x",), {}) == (("x",), {"inplace": False})
    assert _names.call_arguments(F.leaky_relu, ("x", 0.2), {}) == \
        (("x",), {"negative_slope": 0.2, "inplace": False})
    assert _names.call_arguments(F.linear, ("x", "w"), {}) == (("x", "w"), {})  # native
    assert _names.call_arguments(ember.cat, (["x"], 1), {}) == ((["x"], 1), {})


def test_patch_sites_reach_static_method_aliases():
    from ember.nn.modules import activation
    sites = _names.patch_sites([activation])
    assert any(ns is activation.ReLU and name == "_fn" for ns, name, _, _ in sites)
