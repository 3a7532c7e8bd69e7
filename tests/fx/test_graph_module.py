"""fx.GraphModule (ember/fx/graph_module.py): copied submodules and parameters, str,
print_readable, recompiling an edited graph."""
import copy
import operator

import torch

import ember

from ._models import net, small


def test_copies_what_the_graph_uses_as_torch():
    seen = []
    for lib in (torch, ember):
        gm = lib.fx.symbolic_trace(net(lib))
        seen.append((list(dict(gm.named_parameters())), list(dict(gm.named_modules())),
                     type(gm).__name__, str(gm), gm.print_readable(print_output=False)))
    assert seen[1] == seen[0]
    assert isinstance(ember.fx.symbolic_trace(net(ember)), ember.fx.GraphModule)


def test_edit_then_recompile_as_torch():
    codes = []
    for lib in (torch, ember):
        traced = lib.fx.symbolic_trace(small(lib))
        for n in traced.graph.nodes:
            if n.target == operator.add:
                with traced.graph.inserting_after(n):
                    new = traced.graph.call_function(lib.mul, n.args, n.kwargs)
                    n.replace_all_uses_with(new)
                traced.graph.erase_node(n)
        traced.recompile()
        codes.append(traced.code)
        x = lib.tensor([-1.0, 2.0])
        assert traced(x).tolist() == [0.0, 2.0]
    assert codes[1] == codes[0]


def test_instances_get_their_own_forward():
    a = ember.fx.symbolic_trace(small(ember))
    b = ember.fx.symbolic_trace(ember.nn.Tanh())
    assert type(a) is not type(b) and a(ember.ones(1)).item() == 2.0


def test_deepcopy_as_torch():
    seen = []
    for lib in (torch, ember):
        gm = lib.fx.symbolic_trace(small(lib))
        twin = copy.deepcopy(gm)
        assert twin.graph is not gm.graph and twin.relu is not gm.relu
        assert [n.name for n in twin.graph.nodes] == [n.name for n in gm.graph.nodes]
        seen.append((type(twin).__name__, twin.code, twin(lib.tensor([-1.0])).tolist()))
    assert seen[1] == seen[0]


def test_dict_root_places_attributes_at_their_paths():
    seen = []
    for lib in (torch, ember):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        w = g.get_attr("block.w")
        g.output(g.call_module("act", (g.call_function(operator.mul, (x, w)),)))
        gm = lib.fx.GraphModule({"block.w": lib.nn.Parameter(lib.full((2,), 3.0)),
                                 "act": lib.nn.ReLU()}, g)
        seen.append((gm.code, list(dict(gm.named_parameters())), repr(gm.block),
                     gm(lib.ones(2)).tolist()))
    assert seen[1] == seen[0]


def test_add_delete_and_prune_submodules_as_torch():
    seen = []
    for lib in (torch, ember):
        gm = lib.fx.symbolic_trace(small(lib))
        assert gm.add_submodule("extra.inner", lib.nn.Tanh()) is True
        assert gm.add_submodule("relu.x", lib.nn.Tanh()) is True
        before = [name for name, _ in gm.named_modules()]
        assert gm.delete_submodule("nothing.here") is False
        gm.delete_all_unused_submodules()
        seen.append((before, [name for name, _ in gm.named_modules()]))
    assert seen[1] == seen[0]


def test_print_readable_notes_after_renamed_inputs_as_torch():
    texts = []
    for lib in (torch, ember):
        class M(lib.nn.Module):
            def forward(self, input):
                return input.relu()
        texts.append(lib.fx.symbolic_trace(M()).print_readable(print_output=False))
    assert texts[1] == texts[0]
