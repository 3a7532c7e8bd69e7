"""torch.fx.graph_module: GraphModule, a Module whose forward is generated from a Graph."""
import copy
import itertools
import linecache

from ember._tensor import Tensor
from ember.nn import Module
from ember.nn.parameter import Parameter

from .graph import Graph

_sources = itertools.count()


def _compile_forward(src, globals_):
    """Exec the generated source (kept in linecache so tracebacks show it)."""
    filename = f"<eval_with_key>.{next(_sources)}"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    namespace = dict(globals_)
    exec(compile(src, filename, "exec"), namespace)
    return namespace["forward"]


def _copy_attr(source, target, qualified_name):
    """Give target the attribute at qualified_name of source, creating plain Modules on the way
    (so a traced-through Sequential appears as a Module)."""
    *prefix, field = qualified_name.split(".")
    for item in prefix:
        from_child, to_child = getattr(source, item), getattr(target, item, None)
        if from_child is to_child:
            return
        if to_child is None:
            to_child = Module()
            setattr(target, item, to_child)
        source, target = from_child, to_child
    _assign_attr(getattr(source, field), target, field)


def _assign_attr(value, module, qualified_name):
    """Set module's attribute at qualified_name (plain Modules made on the way); a tensor that
    is not a Parameter becomes a buffer."""
    *prefix, field = qualified_name.split(".")
    for item in prefix:
        if getattr(module, item, None) is None:
            setattr(module, item, Module())
        module = getattr(module, item)
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        module.register_buffer(field, value)
    else:
        setattr(module, field, value)


def _add_indent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line if line.strip() else ""
                                      for line in lines[1:])


class GraphModule(Module):
    """A Module holding a Graph and the attributes it uses, with forward generated from it."""

    def __new__(cls, *args, **kwargs):
        # each instance gets its own class: recompile() sets forward on it
        own_class = type(cls.__name__, (cls,), {"__module__": cls.__module__})
        return super().__new__(own_class)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        type(self).__name__ = class_name
        if isinstance(root, Module):
            self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _assign_attr(root[node.target], self, node.target)
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.graph = graph

    def __deepcopy__(self, memo):
        # rebuilt from a copy of its attributes and graph (its class named GraphModule, as torch)
        copy_ = type(self).__new__(type(self))
        memo[id(self)] = copy_
        holder = Module()
        holder.__dict__ = copy.deepcopy(self.__dict__, memo)
        GraphModule.__init__(copy_, holder, holder.__dict__["_graph"])
        return copy_

    @property
    def graph(self):
        return self._graph

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph, got {type(g)}")
        self.__dict__["_graph"] = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        """The generated source of forward."""
        return self._code

    def recompile(self):
        """Regenerate forward from the graph (call after editing it); the PythonCode."""
        python_code = self._graph.python_code(root_module="self")
        self.__dict__["_code"] = python_code.src
        type(self).forward = _compile_forward(python_code.src, python_code.globals)
        return python_code

    def add_submodule(self, target, m):
        """Install m at the dotted path target (plain Modules made on the way); False when a
        step on the way is not a Module."""
        *prefix, field = target.split(".")
        module = self
        for item in prefix:
            if getattr(module, item, None) is None:
                module.add_module(item, Module())
            module = getattr(module, item)
            if not isinstance(module, Module):
                return False
        module.add_module(field, m)
        return True

    def delete_submodule(self, target):
        """Remove the submodule at target; whether there was one."""
        *prefix, field = target.split(".")
        module = self
        for item in prefix:
            module = getattr(module, item, None)
            if not isinstance(module, Module):
                return False
        if not isinstance(getattr(module, field, None), Module):
            return False
        delattr(module, field)
        return True

    def delete_all_unused_submodules(self):
        """Remove the submodules that no call_module or get_attr node reaches."""
        used = set()
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr"):
                atoms = node.target.split(".")
                used.update(".".join(atoms[:i]) for i in range(1, len(atoms) + 1))
            if node.op == "call_module":
                try:
                    inner = self.get_submodule(node.target).named_modules()
                except AttributeError:
                    continue
                used.update(f"{node.target}.{name}" for name, _ in inner if name)
        for name in [name for name, _ in self.named_modules() if name and name not in used]:
            self.delete_submodule(name)

    def print_readable(self, print_output=True, include_stride=False, include_device=False,
                       colored=False):
        """forward as a class definition, with submodule GraphModules nested."""
        text = self._readable(type(self).__name__)
        if print_output:
            print(text)
        return text

    def _readable(self, name):
        src = self._graph.python_code("self", verbose=True).src.lstrip("\n")
        text = _add_indent(f"class {name}(torch.nn.Module):\n{src}", 4)
        nested = [""] + [child._readable(child_name) for child_name, child in
                         self.named_children() if isinstance(child, GraphModule)]
        return text + _add_indent("\n".join(nested), 4)

    def __str__(self):
        return "\n".join([super().__str__(), self._code,
                          "# To see more debug info, please use `graph_module.print_readable()`"])

