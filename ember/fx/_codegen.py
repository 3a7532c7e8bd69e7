"""Python source of a Graph: the forward method GraphModule compiles (torch's layout)."""
import builtins
import typing
from dataclasses import dataclass

from ember import _dtype, _memory_format

from . import _names
from .graph import CUSTOM_BUILTINS, _Namespace
from .node import INPLACE, OPERATORS, _qualified_name, type_name

_WRAP = "torch.fx._symbolic_trace.wrap"


@dataclass
class PythonCode:
    src: str
    globals: dict
    _lineno_map: typing.Optional[dict] = None


def _format_target(base, target):
    for atom in target.split("."):
        base = f"{base}.{atom}" if atom.isidentifier() else f'getattr({base}, "{atom}")'
    return base


def _repr(a):
    """An argument as source: nodes by name, dtypes and memory formats as torch.<name>
    (ember's print as ember.<name>)."""
    if isinstance(a, (_dtype.dtype, _memory_format.memory_format)):
        return "torch." + str(a).rpartition(".")[2]
    if isinstance(a, list):
        return "[" + ", ".join(_repr(e) for e in a) + "]"
    if isinstance(a, tuple) and not hasattr(a, "_fields"):
        return "(" + ", ".join(_repr(e) for e in a) + ("," if len(a) == 1 else "") + ")"
    if isinstance(a, dict):
        return "{" + ", ".join(f"{k!r}: {_repr(v)}" for k, v in a.items()) + "}"
    return repr(a)


def _format_args(args, kwargs):
    return ", ".join([_repr(a) for a in args] + [f"{k} = {_repr(v)}" for k, v in kwargs.items()])


def _last_uses(nodes):
    """{user: [nodes whose last use it is]}, in argument order."""
    seen, last = set(), {}
    for node in reversed(nodes):
        for n in node.all_input_nodes:
            if n not in seen:
                seen.add(n)
                last.setdefault(node, []).append(n)
    return last


class _Emitter:
    def __init__(self, graph):
        self.namespace = _Namespace()
        for node in graph.nodes:
            self.namespace.create_name(node.name, node)
        self.globals = {k: v for k, v in CUSTOM_BUILTINS.items() if v is not None}
        self.wrapped = {}

    def add_global(self, obj):
        """The name generated code calls obj by ('torch.cat', 'getattr', '__main___f')."""
        torch_name = _names.torch_name(obj)
        if torch_name is not None:
            return torch_name
        if getattr(builtins, getattr(obj, "__name__", ""), None) is obj:
            return obj.__name__
        name = self.namespace.create_name(_qualified_name(obj), obj)
        self.globals[name] = obj
        return name

    def type_repr(self, t):
        """An annotation as source, its names bound in the globals (typing_Union, ...)."""
        origin, args = getattr(t, "__origin__", None), getattr(t, "__args__", None)
        if origin is not None and args:
            return f"{self.type_repr(origin)}[{','.join(self.type_repr(a) for a in args)}]"
        name = type_name(t)
        if name.startswith("torch.") or getattr(builtins, name, None) is t:
            return name
        if CUSTOM_BUILTINS.get(name, None) is t:
            return name
        name = self.namespace.create_name(name, t)
        self.globals[name] = t
        return name

    def call_function(self, node):
        args, kwargs = node.args, node.kwargs
        if node.target in OPERATORS and not kwargs:
            return f"{node} = " + OPERATORS[node.target].format(*(_repr(a) for a in args))
        if node.target in INPLACE:
            return (INPLACE[node.target].format(*(_repr(a) for a in args)) +
                    f";  {node} = {_repr(args[0])}")
        name = self.add_global(node.target)
        if node.meta.get("is_wrapped"):
            self.wrapped.setdefault(name)
        if (node.target is getattr and len(args) == 2 and not kwargs
                and isinstance(args[1], str) and args[1].isidentifier()):
            return f"{node} = {_format_target(_repr(args[0]), args[1])}"
        return f"{node} = {name}({_format_args(args, kwargs)})"

    def line(self, node, free_vars):
        op, target = node.op, node.target
        if op == "placeholder":
            typed = "" if node.type is None else f" : {self.type_repr(node.type)}"
            default = f" = {_repr(node.args[0])}" if node.args else ""
            free_vars.append(f"{target}{typed}{default}")
            raw = target.replace("*", "")
            return None if raw == node.name else f"{node} = {raw}"
        if op == "call_function":
            return self.call_function(node)
        if op == "call_method":
            return (f"{node} = {_format_target(_repr(node.args[0]), target)}"
                    f"({_format_args(node.args[1:], node.kwargs)})")
        if op == "call_module":
            call = _format_args(node.args, node.kwargs)
            return f"{node} = {_format_target('self', target)}({call})"
        if op == "get_attr":
            return f"{node} = {_format_target('self', target)}"
        return f"return {_repr(node.args[0])}"


def python_code(graph, root_module="self", verbose=False):
    """PythonCode(src, globals) of graph's forward (verbose: with torch's stack-trace note)."""
    emitter, free_vars, body = _Emitter(graph), [], []
    nodes = list(graph.nodes)
    last_uses = _last_uses(nodes)
    for node in nodes:
        line = emitter.line(node, free_vars)
        if line is None:
            continue
        if node.op not in ("placeholder", "output"):
            if verbose:  # once: tracers here record no stack traces
                body.append("\n# No stacktrace found for following nodes\n")
                verbose = False
            dead = last_uses.get(node, []) + ([] if node.users else [node])
            if dead:  # free values at their last use, as torch
                line += ";  " + " = ".join([repr(n) for n in dead] + ["None"])
        body.append(line + "\n")
    if not body:
        body.append("pass\n")
    code = "".join(body).lstrip("\n")
    code = "\n".join("    " + line for line in code.split("\n"))
    wraps = "\n".join(f'{_WRAP}("{name}")' for name in emitter.wrapped)
    output = next((n for n in nodes if n.op == "output"), None)
    returns = "" if output is None or output.type is None else \
        f" -> {emitter.type_repr(output.type)}"
    prologue = f"def forward({', '.join([root_module] + free_vars)}){returns}:"
    return PythonCode(f"\n{wraps}\n\n{prologue}\n{code}", emitter.globals)
