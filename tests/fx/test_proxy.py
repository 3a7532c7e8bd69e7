"""fx.Proxy (ember/fx/proxy.py): operators, methods and attributes as nodes, the errors torch
raises for control flow, iteration and len, and graphs built from Proxies by hand."""
import operator

import pytest
import torch

import ember


def _error(lib, body):
    class M(lib.nn.Module):
        def forward(self, x):
            return body(x)
    with pytest.raises(Exception) as info:
        lib.fx.symbolic_trace(M())
    return type(info.value).__name__, str(info.value)


@pytest.mark.parametrize("body", [
    lambda x: x if x else x, lambda x: [a for a in x], lambda x: len(x), lambda x: x + object(),
    lambda x: range(x.size(0)), lambda x: int(x), lambda x: [1, 2][x], lambda x: {x: 1},
    lambda x: x in [1]])
def test_errors_match_torch(body):
    assert _error(ember, body) == _error(torch, body)


def test_tuple_unpacking_becomes_getitems():
    ops = []
    for lib in (torch, ember):
        class M(lib.nn.Module):
            def forward(self, x):
                a, b = x
                return a - b
        ops.append([(n.op, n.name, n.args) for n in lib.fx.symbolic_trace(M()).graph.nodes
                    if n.op != "output"])
    assert str(ops[1]) == str(ops[0])


def test_operators_methods_and_attributes():
    g = ember.fx.Graph()
    x = ember.fx.Proxy(g.placeholder("x"))
    y = (2 ** x)[0].relu().shape
    assert y.node.target is getattr
    assert [(n.op, n.target) for n in g.nodes][1:] == [
        ("call_function", operator.pow), ("call_function", operator.getitem),
        ("call_method", "relu"), ("call_function", getattr)]
    assert g.nodes and list(g.nodes)[1].args == (2, x.node)
    assert repr(x) == "Proxy(x)"


def test_graph_from_proxies_matches_torch():
    code = []
    for lib in (torch, ember):
        graph = lib.fx.Graph()
        tracer = lib.fx.proxy.GraphAppendingTracer(graph)
        y = lib.fx.Proxy(graph.placeholder("x"), tracer)
        z = lib.fx.Proxy(graph.placeholder("y"), tracer)
        c = lib.neg(lib.tanh(lib.cat([y, z])))
        graph.output(c.node)
        code.append(lib.fx.GraphModule(lib.nn.Module(), graph).code)
    assert code[1] == code[0]


def test_inlining_a_module_call_with_proxies_as_torch():
    codes = []
    for lib in (torch, ember):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.relu = lib.nn.ReLU()

            def forward(self, x):
                return self.relu(x) + 1.0
        m = lib.fx.symbolic_trace(M())
        tracer = lib.fx.proxy.GraphAppendingTracer(m.graph)
        for node in m.graph.nodes:
            if (node.op, node.target) == ("call_module", "relu"):
                with m.graph.inserting_before(node):
                    args = lib.fx.node.map_arg(node.args, lambda n: lib.fx.Proxy(n, tracer))
                    out = m.relu(*args)  # nn.ReLU's forward reaches F.relu with a Proxy
                    node.replace_all_uses_with(out.node)
                    m.graph.erase_node(node)
        m.recompile()
        codes.append(m.code)
    assert codes[1] == codes[0] and "torch.nn.functional.relu(x, inplace = False)" in codes[1]
