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
    assert _names.torch_name(ember.special.ndtr) == "torch._C._special.special_ndtr"
    assert _names.torch_name(len) is None
    assert _names.node_name(ember.matmul) == "matmul"  # ember's function is dispatch_matmul
    assert _names.node_name(len) == "len"
    assert (_names.torch_name(ember.arctan), _names.node_name(ember.arctan)) == \
        ("torch.arctan", "arctan")  # ember's function is named atan
    assert _names.node_name(F.logsigmoid) == "log_sigmoid"  # torch._C._nn.log_sigmoid


def test_native_functional_names_are_torchs():
    from torch.fx.node import _get_qualified_name
    native = {n: _get_qualified_name(getattr(torch.nn.functional, n))
              for n in dir(torch.nn.functional) if not n.startswith(("_", "has_torch"))
              and isinstance(getattr(torch.nn.functional, n), types.BuiltinFunctionType)}
    assert _names.NATIVE_FUNCTIONAL == native
    for name, printed in native.items():  # generated code finds each under ember's path
        target = ember
        for atom in printed.split(".")[1:]:
            target = getattr(target, atom)
        assert target is getattr(F, name) or name == "relu_"
        if [getattr(F, n) for n in native].count(getattr(F, name)) == 1:  # not an ember alias
            assert _names.torch_name(getattr(F, name)) == printed


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
