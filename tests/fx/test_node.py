"""fx.Node (ember/fx/node.py): arguments and uses kept in step, rewiring, the one-line format,
and map_arg over nested arguments."""
import pytest
import torch

import ember


def _graph(lib):
    g = lib.fx.Graph()
    x, y = g.placeholder("x"), g.placeholder("y", default_value=None)
    a = g.call_function(lib.add, (x, x), {"alpha": 2})
    b = g.call_method("sum", (a,), {"dim": -1})
    g.output((a, [b]))
    return g, x, y, a, b


def test_users_inputs_and_format_match_torch():
    seen = []
    for lib in (torch, ember):
        g, *_ = _graph(lib)
        seen.append([(n.name, n.op, list(map(str, n.users)), list(map(str, n.all_input_nodes)),
                      n.format_node()) for n in g.nodes])
    assert seen[1] == seen[0]


def test_replace_all_uses_and_inputs():
    g, x, y, a, b = _graph(ember)
    assert a.replace_all_uses_with(y) == [b, next(iter(reversed(g.nodes)))]
    assert b.args == (y,) and not a.users and set(y.users) == set([b, list(g.nodes)[-1]])
    b.replace_input_with(y, x)
    assert b.args == (x,) and b in x.users
    b.args = (a,)
    assert b in a.users and b not in x.users


def test_prepend_append_move_nodes():
    g, x, y, a, b = _graph(ember)
    x.prepend(b)
    assert [n.name for n in g.nodes][:2] == ["sum_1", "x"]
    y.append(b)
    assert [n.name for n in g.nodes] == ["x", "y", "sum_1", "add", "output"]


def test_map_arg_reaches_nested_nodes():
    g, x, y, a, b = _graph(ember)
    mapped = ember.fx.map_arg((x, [a, {"k": b}], 3, slice(x, None)), lambda n: n.name)
    assert mapped == ("x", ["add", {"k": "sum_1"}], 3, slice("x", None, None))


@pytest.mark.parametrize("call", [
    lambda lib, g, x: g.call_method(123, (x,)), lambda lib, g, x: g.call_function("relu", (x,)),
    lambda lib, g, x: g.create_node("bogus", "t"),
    lambda lib, g, x: g.create_node("call_function", lib.relu, [x]),
    lambda lib, g, x: g.create_node("call_function", lib.relu, (x,), [1]),
    lambda lib, g, x: lib.fx.map_arg((x,), 3)])
def test_bad_nodes_raise_as_torch(call):
    seen = []
    for lib in (torch, ember):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        with pytest.raises(Exception) as info:
            call(lib, g, x)
        seen.append((info.type.__name__, str(info.value)))
    assert seen[1] == seen[0]
