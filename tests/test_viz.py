"""ember.viz: the DOT text mirrors torch's grad_fn graph; rendering needs (and names) `dot`."""
import os
import re
import stat
from collections import Counter

import numpy as np
import pytest
import torch

import ember
from ember import viz


def _program(lib):
    r = np.random.default_rng(0)
    w = lib.tensor(r.standard_normal((4, 3)), requires_grad=True)
    b = lib.tensor(r.standard_normal(3), requires_grad=True)
    x = lib.tensor(r.standard_normal((2, 4)))
    h = (x @ w + b).tanh()
    return (h * h).mean(), w, b


def _torch_graph(root):
    """Node names and (child -> parent) name edges of torch's graph, each node once."""
    names, edges, seen, stack = Counter(), Counter(), set(), [root]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        names[type(node).__name__] += 1
        for nxt, _ in node.next_functions:
            if nxt is not None:
                edges[(type(nxt).__name__, type(node).__name__)] += 1
                stack.append(nxt)
    return names, edges


def _dot_graph(source):
    labels = dict(re.findall(r'^\s+(n[0-9a-f]+) \[label="([^"\\]+)', source, re.M))
    kinds = {k: (v if "Backward" in v else "AccumulateGrad") for k, v in labels.items()}
    edges = Counter((kinds[a], kinds[b]) for a, b in
                    re.findall(r"^\s+(n[0-9a-f]+) -> (n[0-9a-f]+);", source, re.M))
    return Counter(kinds.values()), edges


def test_dot_has_the_same_nodes_and_edges_as_torch():
    t_loss, *_ = _program(torch)
    e_loss, *_ = _program(ember)
    source = viz.to_dot(e_loss)
    assert source.startswith("digraph grad_fn {") and source.rstrip().endswith("}")
    assert _dot_graph(source) == _torch_graph(t_loss.grad_fn)


def test_labels_show_op_names_shapes_and_param_names():
    loss, w, b = _program(ember)
    source = viz.to_dot(loss, params={"weight": w, "bias": b})
    assert 'label="weight\\n(4, 3)"' in source and 'label="bias\\n(3)"' in source
    assert "TanhBackward0\\n(2, 3)" in source and "MeanBackward0\\n()" in source
    assert 'label="output\\n() ember.float64"' in source


def test_shared_nodes_appear_once_and_deep_graphs_work():
    x = ember.randn(3, requires_grad=True)
    y = x.exp()
    z = y * y + y
    source = viz.to_dot(z)
    assert source.count("ExpBackward0") == 1
    assert source.count("-> n%x;" % id(z.grad_fn.next_functions[0][0])) == 2  # y*y: two edges
    deep = x
    for _ in range(3000):
        deep = deep + 1
    assert viz.to_dot(deep).count("AddBackward0") == 3000


def test_tensor_without_graph_and_several_outputs():
    source = viz.to_dot([ember.ones(2), ember.ones(2, requires_grad=True) * 2])
    assert "out0" in source and "out1" in source and "MulBackward0" in source
    with pytest.raises(TypeError, match="expected Tensors, got int at position 1"):
        viz.to_dot([ember.ones(1), 3])


def test_render_without_graphviz_names_the_missing_program(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    loss, *_ = _program(ember)
    with pytest.raises(RuntimeError, match="Graphviz's `dot` program was not found on PATH"):
        viz.render(loss, str(tmp_path / "g.svg"))
    assert not (tmp_path / "g.svg").exists()
    viz.render(loss, str(tmp_path / "g.dot"), format="dot")  # DOT itself needs no Graphviz
    assert (tmp_path / "g.dot").read_text() == viz.to_dot(loss)
    with pytest.raises(ValueError, match="format must be one of"):
        viz.render(loss, str(tmp_path / "g.gif"), format="gif")


@pytest.fixture
def fake_dot(tmp_path, monkeypatch):
    """A stand-in `dot` on PATH that records its arguments and echoes its input."""
    script = tmp_path / "dot"
    script.write_text('#!/bin/sh\necho "$@" > "$(dirname "$0")/args"\ncat\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ.get("PATH", ""))
    return tmp_path


def test_render_pipes_dot_source_through_graphviz(fake_dot):
    loss, *_ = _program(ember)
    out = viz.render(loss, str(fake_dot / "g.png"), format="png")
    assert (fake_dot / "args").read_text().strip() == "-Tpng"
    assert open(out, "rb").read().decode() == viz.to_dot(loss)
    graph = viz.make_dot(loss)
    assert graph.pipe("svg").decode() == graph.source == str(graph)
    assert (fake_dot / "args").read_text().strip() == "-Tsvg"


def test_dot_failure_is_reported(tmp_path, monkeypatch):
    script = tmp_path / "dot"
    script.write_text('#!/bin/sh\necho "syntax error in line 1" >&2\nexit 3\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match=r"dot failed \(exit 3\): syntax error in line 1"):
        viz.make_dot(ember.ones(1, requires_grad=True) * 2).pipe("svg")
