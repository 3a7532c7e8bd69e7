"""torch.fx.graph: Graph, the ordered list of Nodes, with naming, editing and printing."""
import builtins
import collections
import contextlib
import inspect
import keyword
import math
import re

import ember

from . import _names
from .node import Node, map_arg

# names the generated code binds itself: a node (or another global) may not take them
CUSTOM_BUILTINS = {"inf": math.inf, "nan": math.nan, "NoneType": type(None), "torch": ember,
                   "device": ember.device, "fx_pytree": None, "pytree": None}


def _snake_case(s):
    return re.sub(r"(?<=[a-z])([A-Z])", r"_\1", s).lower()


def target_to_str(target):
    """A node name candidate from its target: 'add' for operator.add, 'seq_0' for 'seq.0'."""
    if callable(target):
        name = _names.node_name(target)
    elif isinstance(target, str):
        name = target
    else:
        raise AssertionError(f"Expected target to be str, got {type(target)}")
    if name.startswith("__") and name.endswith("__") and len(name) > 4:
        name = name[2:-2]
    return _snake_case(name)


class _Namespace:
    """Unique, legal Python names: 'add', 'add_1', ...; 'float_1' for a node named float."""

    def __init__(self):
        self._used, self._base_count, self._obj_to_name = set(), collections.Counter(), {}

    def create_name(self, candidate, obj):
        if obj is not None and id(obj) in self._obj_to_name:
            return self._obj_to_name[id(obj)]
        candidate = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        match = re.match(r"(.*)_(\d+)$", candidate)
        base, num = (match.group(1), int(match.group(2))) if match else (candidate, None)
        candidate = base if num is None else f"{base}_{num}"
        num = num or self._base_count[base]
        while candidate in self._used or self._is_illegal(candidate, obj):
            num += 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[id(obj)] = candidate
        return candidate

    @staticmethod
    def _is_illegal(name, obj):
        if keyword.iskeyword(name):
            return True
        if name in CUSTOM_BUILTINS:
            return obj is None or obj is not CUSTOM_BUILTINS[name]
        return name in builtins.__dict__ and obj is not builtins.__dict__[name]


class _NodeList:
    """graph.nodes: iterable (also reversed) view of the linked list, with len."""

    def __init__(self, graph, reverse=False):
        self._graph, self._reverse = graph, reverse

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        step = "_prev" if self._reverse else "_next"
        node = getattr(root, step)
        while node is not root:  # read the next link after the yield: nodes inserted after
            if not node._erased:  # the current one are visited, as torch does
                yield node
            node = getattr(node, step)

    def __reversed__(self):
        return _NodeList(self._graph, not self._reverse)


class Graph:
    """A program as a list of Nodes: placeholders (inputs), operations, one output."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._len, self._namespace = 0, _Namespace()
        self._insert = self._root.prepend
        self.owning_module, self._tracer_cls = owning_module, tracer_cls

    @property
    def nodes(self):
        return _NodeList(self)

    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """Make a node at the insertion point (the end unless inserting_before/after)."""
        args, kwargs = args or (), kwargs or {}  # empty of any type: none (as torch)
        if not isinstance(args, tuple):
            raise AssertionError(f"args must be a tuple, got {type(args)}")
        if not isinstance(kwargs, dict):
            raise AssertionError(f"kwargs must be a dict, got {type(kwargs)}")
        # a function fx patched while Proxies live is recorded as the original
        target = getattr(target, "__wrapped_original__", target)
        candidate = name if name is not None else target_to_str(target)
        node = Node(self, self._namespace.create_name(candidate, None), op, target, args,
                    kwargs, type_expr)
        self._insert(node)
        self._len += 1
        return node

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_function", the_function, args, kwargs,
                                type_expr=type_expr)

    def output(self, result, type_expr=None):
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        """A copy of node (from another graph) whose node arguments go through arg_transform."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        copy = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        copy.meta = dict(node.meta)
        return copy

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copy g's nodes but its output into this graph (val_map: g's node -> new node);
        the value g returns, mapped."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                result = map_arg(node.args[0], lambda n: val_map[n])
                return (result, node) if return_output_node else result
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        """A copy made node by node (a recursive copy of the linked list would be deep)."""
        copy_ = Graph(tracer_cls=self._tracer_cls)
        found = copy_.graph_copy(self, {} if memo is None else memo, return_output_node=True)
        if found is not None:
            value, output = found
            copy_.output(value, type_expr=output.type).meta = dict(output.meta)
        return copy_

    def erase_node(self, to_erase):
        """Remove a node that nothing uses any more."""
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had "
                               f"{len(to_erase.users)} users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs((), {})

    @contextlib.contextmanager
    def _inserting(self, insert):
        previous, self._insert = self._insert, insert
        try:
            yield
        finally:
            self._insert = previous

    def inserting_before(self, n=None):
        """Context: new nodes go before n (None: at the start)."""
        if n is None:
            return self.inserting_after(self._root)
        return self._inserting(n.prepend)

    def inserting_after(self, n=None):
        """Context: new nodes go right after n (None: at the end); as torch, each new node
        goes right after n, so a sequence of them lands in reverse order."""
        if n is None:
            return self.inserting_before(self._root)
        return self._inserting(n.append)

    def find_nodes(self, *, op, target=None, sort=True):
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    def eliminate_dead_code(self, is_impure_node=None):
        """Erase nodes without users that have no side effects; whether any was erased."""
        changed = False
        for node in reversed(self.nodes):
            impure = node.is_impure() if is_impure_node is None else is_impure_node(node)
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self):
        """Check the graph's invariants: nodes defined before use and owned by this graph."""
        seen = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node.all_input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong to "
                                       "this Graph, but was used as an argument! If you are "
                                       "copying nodes from another graph, make sure to use "
                                       "``arg_transform`` on node_copy() to remap values\n"
                                       f"{self}")
                if arg not in seen:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it "
                                       "has been defined! Please check that Nodes in the graph "
                                       "are topologically ordered\n" f"{self}")
            seen.add(node)
        self._lint_targets()

    def _lint_targets(self):
        module = self.owning_module
        if module is None:
            return
        for node in self.nodes:
            if node.op in ("get_attr", "call_module"):
                target = module
                for i, atom in enumerate(node.target.split(".")):
                    if not hasattr(target, atom):
                        seen = ".".join(node.target.split(".")[:i])
                        raise RuntimeError(f"Node {node} target {node.target} references "
                                           f"nonexistent attribute {atom} of {seen}")
                    target = getattr(target, atom)

    def python_code(self, root_module, *, verbose=False, include_stride=False,
                    include_device=False, colored=False):
        """The generated Python source (.src) and the globals it needs (.globals)."""
        from ._codegen import python_code  # lazy: codegen reads the public function names
        return python_code(self, root_module, verbose)

    def print_tabular(self):
        """Print the nodes as a table (needs the tabulate package)."""
        try:
            from tabulate import tabulate
        except ImportError:
            print("`print_tabular` relies on the library `tabulate`, which could not be found "
                  "on this machine. Run `pip install tabulate` to install the library.")
            raise
        rows = [[n.op, n.name, n.target, n.args, n.kwargs] for n in self.nodes]
        print(tabulate(rows, headers=["opcode", "name", "target", "args", "kwargs"]))

    def __str__(self):
        lines = ["graph():"] + ["    " + node.format_node() for node in self.nodes]
        return "\n".join(lines)

