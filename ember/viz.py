"""Draw a tensor's grad_fn graph: Graphviz DOT text, and SVG/PNG through the `dot` binary."""
import shutil
import subprocess

from ._tensor import Tensor

__all__ = ["make_dot", "to_dot", "render", "DotGraph"]

_FORMATS = ("svg", "png", "pdf", "dot")


def _shape_text(shape):
    return "(" + ", ".join(str(s) for s in shape) + ")"


def _label(*lines):
    """A DOT label: each line escaped, joined by DOT's line break."""
    return "\\n".join(line.replace("\\", "\\\\").replace('"', '\\"') for line in lines)


def _node_label(node, names):
    if type(node).__name__ == "AccumulateGrad":
        var = node.variable
        name = names.get(id(var))
        shape = _shape_text(var._data.shape)
        return (_label(name, shape) if name else _label(shape)), "lightblue"
    shapes = ", ".join(_shape_text(s) for s in getattr(node, "_shapes", ()))
    return _label(node.name(), shapes), "lightgrey"


def _walk(roots):
    """Every node reachable from ``roots``, in first-seen order (iterative)."""
    seen, order, stack = set(), [], list(reversed(roots))
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(nxt for nxt, _ in reversed(node.next_functions) if nxt is not None)
    return order


def to_dot(tensors, params=None):
    """DOT source of the graph behind ``tensors`` (one or a sequence); ``params`` maps names to
    leaf tensors so their boxes are labelled (e.g. ``dict(model.named_parameters())``)."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"to_dot(): expected Tensors, got {type(t).__name__} at position {i}")
    names = {id(v): k for k, v in (params or {}).items()}
    lines = ["digraph grad_fn {", '  node [shape=box, style=filled, fontname="monospace", '
             'fontsize=10];', "  rankdir=BT;"]
    roots = []
    for i, t in enumerate(tensors):
        out_id = f"out{i}"
        label = _label(names.get(id(t), "output"), f"{_shape_text(t._data.shape)} {t.dtype}")
        lines.append(f'  {out_id} [label="{label}", fillcolor=darkolivegreen1];')
        if t._grad_fn is not None:
            roots.append(t._grad_fn)
            lines.append(f"  n{id(t._grad_fn):x} -> {out_id};")
    for node in _walk(roots):
        label, color = _node_label(node, names)
        lines.append(f'  n{id(node):x} [label="{label}", fillcolor={color}];')
        for nxt, _ in node.next_functions:
            if nxt is not None:
                lines.append(f"  n{id(nxt):x} -> n{id(node):x};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_binary():
    path = shutil.which("dot")
    if path is None:
        raise RuntimeError("Graphviz's `dot` program was not found on PATH, so the graph can't "
                           "be rendered to an image. Install Graphviz (e.g. `apt-get install "
                           "graphviz` or `brew install graphviz`), or use ember.viz.to_dot() and "
                           "paste the DOT text into any Graphviz viewer.")
    return path


def _pipe(source, format):
    if format not in _FORMATS:
        raise ValueError(f"format must be one of {_FORMATS}, got {format!r}")
    if format == "dot":
        return source.encode()
    done = subprocess.run([_dot_binary(), f"-T{format}"], input=source.encode(),
                          capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"dot failed (exit {done.returncode}): {done.stderr.decode().strip()}")
    return done.stdout


def render(tensors, filename, format="svg", params=None):
    """Write the graph to ``filename`` as svg, png, pdf or dot; returns the filename."""
    data = _pipe(to_dot(tensors, params), format)
    with open(filename, "wb") as f:
        f.write(data)
    return filename


class DotGraph:
    """The DOT source of a graph, with ``render``/``pipe`` like graphviz.Digraph."""

    def __init__(self, source):
        self.source = source

    def __str__(self):
        return self.source

    def pipe(self, format="svg"):
        """The rendered bytes (needs Graphviz's `dot`)."""
        return _pipe(self.source, format)

    def render(self, filename, format="svg"):
        with open(filename, "wb") as f:
            f.write(self.pipe(format))
        return filename

    def _repr_svg_(self):
        return self.pipe("svg").decode()


def make_dot(var, params=None):
    """The grad_fn graph of ``var`` as a DotGraph (torchviz-style entry point)."""
    return DotGraph(to_dot(var, params))
