"""fx.Graph (ember/fx/graph.py): torch's node names, insertion points, erasing, dead code,
lint and printing."""
import copy

import pytest
import torch

import ember

from ._models import net


def test_names_avoid_builtins_keywords_and_repeats():
    names = []
    for lib in (torch, ember):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        for target in ("float", "float", "sum", "import", "layer1.0.conv", "fooBar", "x_1"):
            g.call_method(target, (x,))
        g.create_node("call_function", lib.relu, (x,), name="1st")
        names.append([n.name for n in g.nodes])
    assert names[1] == names[0]


def test_inserting_before_and_after_as_torch():
    orders = []
    for lib in (torch, ember):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        g.output(x)
        with g.inserting_after(x):
            a = g.call_function(lib.relu, (x,))
            g.call_function(lib.neg, (a,))
        with g.inserting_before(x):
            g.placeholder("first")
        with g.inserting_after():
            g.call_function(lib.tanh, (x,))
        orders.append([n.name for n in g.nodes])
    assert orders[1] == orders[0]


def test_graph_str_matches_torch():
    assert str(ember.fx.symbolic_trace(net(ember)).graph) == \
        str(torch.fx.symbolic_trace(net(torch)).graph)


def test_erase_node_with_users_raises_as_torch():
    messages = []
    for lib in (torch, ember):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        g.output(g.call_function(lib.relu, (x,)))
        with pytest.raises(RuntimeError) as info:
            g.erase_node(x)
        messages.append(str(info.value))
    assert messages[1] == messages[0]


def test_eliminate_dead_code_keeps_placeholders_and_output():
    g = ember.fx.Graph()
    x = g.placeholder("x")
    unused = g.placeholder("unused")
    g.call_function(ember.relu, (x,))
    g.output(g.call_function(ember.neg, (x,)))
    assert g.eliminate_dead_code() is True
    assert [n.name for n in g.nodes] == ["x", "unused", "neg", "output"]
    assert unused in g.nodes and g.eliminate_dead_code() is False


def test_lint_finds_a_use_before_definition():
    messages = []
    for lib in (torch, ember):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        out = g.output(x)
        with g.inserting_before(out):
            a = g.call_function(lib.relu, (x,))
        x.prepend(a)
        with pytest.raises(RuntimeError) as info:
            g.lint()
        messages.append(str(info.value).split("\n")[0])
    assert messages[1] == messages[0]


def test_print_tabular_without_tabulate_raises_as_torch(capsys, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_tabulate(name, *args, **kwargs):
        if name == "tabulate":
            raise ModuleNotFoundError("No module named 'tabulate'")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_tabulate)
    printed = []
    for lib in (torch, ember):
        with pytest.raises(ModuleNotFoundError):
            lib.fx.symbolic_trace(lib.nn.ReLU()).graph.print_tabular()
        printed.append(capsys.readouterr().out)
    assert printed[1] == printed[0]


def test_deepcopy_copies_node_by_node():
    g = ember.fx.Graph()
    x = g.placeholder("x")
    for _ in range(3000):  # deeper than the recursion limit if copied as a linked structure
        x = g.call_function(ember.relu, (x,))
    g.output(x)
    twin = copy.deepcopy(g)
    assert [n.name for n in twin.nodes] == [n.name for n in g.nodes]
    assert all(n.graph is twin for n in twin.nodes)


def test_iteration_survives_erasing_and_visits_inserted_nodes_as_torch():
    seen = []
    for lib in (torch, ember):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        a = g.call_function(lib.relu, (x,))
        g.output(g.call_function(lib.neg, (a,)))
        visited = []
        for n in g.nodes:
            visited.append(n.name)
            if n.target is lib.relu:
                with g.inserting_after(n):
                    new = g.call_function(lib.tanh, (x,))
                n.replace_all_uses_with(new)
                g.erase_node(n)
        seen.append((visited, [n.name for n in g.nodes]))
    assert seen[1] == seen[0]
