"""The package imports downwards only (docs: ARCHITECTURE.md, "Layers import downwards only").

Read from the source with ``ast``, without importing anything: the module-level import graph has
no cycle, each module imports only from its own layer or the ones below, and an import of an
ember module inside a function is there for a reason the line states (a cycle it would close, a
binding upwards in the layers, or laziness for import time), never merely out of habit.

An edge goes from a module to the module it names: ``from pkg import name`` names ``pkg.name``
when that is a module, else ``pkg``. The implicit import of a submodule's parent package is not
an edge (else every package whose ``__init__`` imports its submodules would be a cycle).
"""
import ast
import io
import pathlib
import re
import tokenize

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Bottom to top. A module belongs to the longest prefix that names it ("ember" itself only exactly).
LAYERS = (
    ("core", ("ember._dtype", "ember._device", "ember._meta", "ember._fp", "ember._autograd_state", "ember._malloc",
              "ember._tensor", "ember._tensor_str", "ember._creation", "ember._legacy",
              "ember.random", "ember._random_args", "ember._atomic", "ember.backends",
              "ember.accelerator", "ember._openblas", "ember._warn", "ember._interop",
              "ember.storage", "ember._memory_format", "ember.__future__", "ember.version",
              "ember._select", "ember.multiprocessing", "ember._handles", "ember._torch_function")),
    ("autograd", ("ember.autograd",)),
    ("ops", ("ember.ops",)),
    ("namespace", ("ember", "ember.overrides", "ember._tensor_methods", "ember._tensor_misc", "ember._switches", "ember.linalg", "ember._lowrank", "ember.fft", "ember._spectral", "ember.amp", "ember.sparse", "ember.special", "ember.functional")),
    ("library", ("ember._compile", "ember.compiler", "ember.nn", "ember.optim", "ember.utils", "ember.distributed", "ember.datasets",
                 "ember.serialization", "ember._module_io", "ember._checkpoint_file",
                 "ember._torch_zip",
                 "ember.onnx", "ember.viz", "ember.cuda", "ember.func", "ember._functorch",
                 "ember.distributions", "ember.testing", "ember.jit", "ember.profiler",
                 "ember.fx", "ember._C", "ember.cpu", "ember._dynamo", "ember.hub")),
    ("application", ("ember.cli", "ember.__main__")),
)


def modules(root=ROOT):
    """{dotted name: (path, is_package)} for every module of the ember package under root."""
    found = {}
    for path in sorted((root / "ember").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def _targets(node, name, package, known):
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = name.split(".") if package else name.split(".")[:-1]
    if node.level:
        base = base[:len(base) - (node.level - 1)]
        origin = ".".join(base + ([node.module] if node.module else []))
    else:
        origin = node.module
    return [f"{origin}.{a.name}" if f"{origin}.{a.name}" in known else origin for a in node.names]


def _comments(source):
    """{line number: comment text} of a module's source."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {t.start[0]: t.string for t in tokens if t.type == tokenize.COMMENT}


def imports(root=ROOT):
    """(module-level edges {module: set of modules}, function-local imports as
    [(module, line, target, comment or None)]) among ember's own modules."""
    known = modules(root)
    edges, local = {name: set() for name in known}, []
    for name, (path, package) in known.items():
        source = path.read_text()
        comments = _comments(source)

        def visit(node, in_function):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in _targets(child, name, package, known):
                        if target not in known or target == name:
                            continue
                        if not in_function:
                            edges[name].add(target)
                            continue
                        lines = range(child.lineno, child.end_lineno + 1)
                        comment = next((comments[i] for i in lines if i in comments), None)
                        local.append((name, child.lineno, target, comment))
                visit(child, in_function or isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

        visit(ast.parse(source), False)
    return edges, local


def layer_of(name):
    best = None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if name == prefix or (prefix != "ember" and name.startswith(prefix + ".")):
                if best is None or len(prefix) > len(best[1]):
                    best = (rank, prefix)
    return None if best is None else best[0]


def cycles(edges):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _reaches(edges, source, goal):
    seen, todo = {source}, [source]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def layering_violations(edges):
    names = [layer for layer, _ in LAYERS]
    return [f"{m} ({names[layer_of(m)]}) imports {t} ({names[layer_of(t)]})"
            for m, targets in sorted(edges.items()) for t in sorted(targets)
            if layer_of(t) > layer_of(m)]


def _reason(comment):
    """The comment without noqa codes: the words that say why."""
    return re.sub(r"noqa(:\s*[A-Z]+\d+(,\s*[A-Z]+\d+)*)?", "", comment or "").strip("# ()")


def unexplained_local_imports(edges, local):
    return [f"{m}:{line} imports {t} inside a function without a reason comment"
            for m, line, t, comment in local if len(_reason(comment).split()) < 2]


def hoistable_local_imports(edges, local):
    """Local imports that could be at the top: downwards or sideways, closing no cycle, and not
    marked lazy (kept out of an import path on purpose)."""
    return [f"{m}:{line} imports {t} inside a function; it closes no cycle and goes no layer up, "
            "so it belongs at the top of the module"
            for m, line, t, comment in local
            if layer_of(t) <= layer_of(m) and not _reaches(edges, t, m)
            and not _reason(comment).lower().startswith("lazy")]


def test_every_module_has_a_layer():
    assert [m for m in modules() if layer_of(m) is None] == []


def test_no_module_level_import_cycle():
    edges, _ = imports()
    assert cycles(edges) == []


def test_layers_import_downwards_only():
    edges, _ = imports()
    assert layering_violations(edges) == []


def test_the_bottom_layers_never_import_the_upper_packages():
    """The rule spelled out for the layers named in ARCHITECTURE.md."""
    edges, _ = imports()
    above = {"core": ("ember.autograd", "ember.ops", "ember.nn", "ember.optim", "ember.utils"),
             "autograd": ("ember.ops", "ember.nn", "ember.optim", "ember.utils"),
             "ops": ("ember.nn", "ember.optim", "ember.utils", "ember.cli")}
    names = [layer for layer, _ in LAYERS]
    bad = [(m, t) for m, targets in edges.items() for t in targets
           if any(t == p or t.startswith(p + ".") for p in above.get(names[layer_of(m)], ()))]
    assert bad == []


def test_function_local_imports_say_why():
    edges, local = imports()
    assert unexplained_local_imports(edges, local) == []


def test_function_local_imports_could_not_be_at_the_top():
    edges, local = imports()
    assert hoistable_local_imports(edges, local) == []


def test_the_checks_catch_a_cycle_an_upward_import_and_a_bare_local_import():
    edges = {"ember._tensor": {"ember.autograd.engine"}, "ember.autograd.engine": {"ember._tensor"},
             "ember.ops.api": set()}
    assert cycles(edges) == [["ember._tensor", "ember.autograd.engine"]]
    assert layering_violations(edges) == [
        "ember._tensor (core) imports ember.autograd.engine (autograd)"]
    local = [("ember.ops.api", 3, "ember._tensor", None),
             ("ember.ops.api", 4, "ember._tensor", "# noqa: F401"),
             ("ember.ops.api", 5, "ember._tensor", "# lazy: import time")]
    assert len(unexplained_local_imports(edges, local)) == 2
    assert [e.split(" ")[0] for e in hoistable_local_imports(edges, local)] == [
        "ember.ops.api:3", "ember.ops.api:4"]
