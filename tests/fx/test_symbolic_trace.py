"""fx.Tracer / symbolic_trace / wrap (ember/fx/_symbolic_trace.py): leaf modules, tracers that
override is_leaf_module, create_node and call_module, wrapped functions, parameter reads."""
import math
from math import floor

import pytest
import torch

import ember


def lowp(x):
    return x.float().sigmoid().half()


torch.fx.wrap(lowp)
ember.fx.wrap("lowp")


def _nodes(graph):
    return [(n.op, n.name, str(n.target) if isinstance(n.target, str) else n.target.__name__,
             str(n.args), str(n.kwargs)) for n in graph.nodes]


def _relu_net(lib):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.relu = lib.nn.ReLU()
            self.b = lib.nn.Parameter(lib.zeros(2))

        def forward(self, x):
            return self.relu(x) + self.b + self.b
    return M()


def test_default_tracer_keeps_nn_modules_as_leaves():
    got = [_nodes(lib.fx.Tracer().trace(_relu_net(lib))) for lib in (torch, ember)]
    assert got[1] == got[0]
    assert ("call_module", "relu", "relu", "(x,)", "{}") in got[1]
    assert [n[0] for n in got[1]].count("get_attr") == 1  # one node for both reads


def test_is_leaf_module_override_traces_through_relu():
    got = []
    for lib in (torch, ember):
        class Lower(lib.fx.Tracer):
            def is_leaf_module(self, m, qualname):
                return False if isinstance(m, lib.nn.ReLU) else super().is_leaf_module(m, qualname)
        got.append(_nodes(Lower().trace(_relu_net(lib))))
    assert got[1] == got[0]
    assert got[1][1] == ("call_function", "relu", "relu", "(x,)", "{'inplace': False}")


def test_create_node_and_call_module_overrides_are_used():
    for lib in (torch, ember):
        class Tagging(lib.fx.Tracer):
            seen = []

            def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
                node = super().create_node(kind, target, args, kwargs, name)
                node.tag = "foo"
                return node

            def call_module(self, m, forward, args, kwargs):
                self.seen.append(self.path_of_module(m))
                return super().call_module(m, forward, args, kwargs)
        graph = Tagging().trace(_relu_net(lib))
        assert all(n.tag == "foo" for n in graph.nodes) and Tagging.seen == ["relu"]


def test_wrapped_function_is_one_call_and_named_in_the_code():
    codes = []
    for lib in (torch, ember):
        class M(lib.nn.Module):
            def forward(self, x, y):
                return lowp(x) + lowp(y)
        codes.append(lib.fx.symbolic_trace(M()).code)
    assert codes[1] == codes[0]
    assert 'torch.fx._symbolic_trace.wrap("' in codes[1]


def test_functions_trace_as_modules_do():
    def f(x):
        return torch.exp(torch.tan(x))

    def g(x):
        return ember.exp(ember.tan(x))
    assert ember.fx.symbolic_trace(g).code == torch.fx.symbolic_trace(f).code
    assert type(ember.fx.symbolic_trace(g)).__name__ == "g"


def test_tensor_attributes_and_constants_as_torch():
    codes = []
    for lib in (torch, ember):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.c = lib.ones(3)

            def forward(self, x):
                return (self.c + x, self.c * x, self.c[x], lib.ones(3) - x, x.to(lib.float16))
        gm = lib.fx.symbolic_trace(M())
        codes.append((gm.code, sorted(gm.state_dict())))
        out = gm(lib.zeros(3, dtype=lib.long))
        assert out[0].tolist() == [1.0] * 3 and out[4].dtype == lib.float16
    assert codes[1] == codes[0]


def test_concrete_args_keep_a_checked_placeholder_as_torch():
    seen = []
    for lib in (torch, ember):
        def f(x, flag=True, mode=None, *rest):
            return x + 1 if flag else x
        gm = lib.fx.symbolic_trace(f, concrete_args={"flag": True, "mode": None})
        with pytest.raises(AssertionError) as info:
            gm(lib.ones(1), False, None)
        seen.append((gm.code, gm(lib.ones(1), True, None).tolist(), str(info.value)))
    assert seen[1] == seen[0]


def test_math_functions_autowrap_as_torch():
    seen = []
    for lib in (torch, ember):
        def g(x):
            n = x.size(-1)
            return x / math.sqrt(n) + floor(n / 2)
        gm = lib.fx.symbolic_trace(g)
        seen.append((gm.code, str(gm.graph), gm(lib.ones(4)).tolist()))
    assert seen[1] == seen[0]
    assert math.sqrt.__module__ == "math" and floor is math.floor  # restored


def test_tensor_methods_given_proxies_as_torch():
    masked_fill = ember.Tensor.masked_fill
    seen = []
    for lib in (torch, ember):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.mask = lib.tril(lib.ones(4, 4))
                self.register_buffer("bias", lib.zeros(4))

            def forward(self, x):
                att = x.masked_fill(self.mask == 0, float("-inf"))
                y = self.mask.matmul(x) + self.bias.add(x)
                return att.softmax(-1), y, self.mask.masked_fill(x > 0, 1.0), self.mask.sum()
        gm = lib.fx.symbolic_trace(M())
        seen.append((gm.code, [tuple(o.shape) for o in gm(lib.ones(2, 4, 4))]))
    assert seen[1] == seen[0]
    assert ember.Tensor.masked_fill is masked_fill  # restored
