"""torch.fx.interpreter: Interpreter (runs a Graph node by node) and Transformer (rebuilds it)."""
import inspect

from ._symbolic_trace import Tracer
from .graph import Graph
from .graph_module import GraphModule
from .node import map_aggregate, map_arg
from .proxy import Proxy


class Interpreter:
    """Runs module.graph one node at a time; override placeholder, get_attr, call_function,
    call_method, call_module or output (each gets target, args, kwargs) to change a kind."""

    def __init__(self, module, garbage_collect_values=True, graph=None):
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = module.graph if graph is None else graph
        self.env, self.name = {}, "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        self.user_to_last_uses = {}
        if garbage_collect_values:
            seen = set()
            for node in reversed(self.graph.nodes):
                for n in node.all_input_nodes:
                    if n not in seen:
                        seen.add(n)
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env=None, enable_io_processing=True):
        """Run the graph on args; its output value."""
        self.env = {} if initial_env is None else initial_env
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback:
                    _name_the_node(e, node)
                    if isinstance(e, KeyError):
                        raise RuntimeError(*e.args) from e
                raise
            if self.garbage_collect_values:
                for dead in self.user_to_last_uses.get(node, ()):
                    del self.env[dead]
            if node.op == "output":
                return self.env[node]
        return None

    def run_node(self, n):
        """Run one node: fetch its arguments, then call the method named by its op."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    def placeholder(self, target, args, kwargs):
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as stop:
            if args:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one "
                               "was not passed in!") from stop

    def get_attr(self, target, args, kwargs):
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        self_obj, *rest = args
        return getattr(self_obj, target)(*rest, **kwargs)

    def call_module(self, target, args, kwargs):
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args, kwargs):
        return args[0]

    def fetch_attr(self, target):
        """The attribute of the module at a qualified name ('layer.0.weight')."""
        atoms, value = target.split("."), self.module
        for i, atom in enumerate(atoms):
            if not hasattr(value, atom):
                raise RuntimeError(f"Node referenced nonexistent target {'.'.join(atoms[:i + 1])}")
            value = getattr(value, atom)
        return value

    def fetch_args_kwargs_from_env(self, n):
        """n's args and kwargs with each node replaced by its computed value."""
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args, n):
        def load(arg):
            if arg not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {arg}! Run "
                                   "Graph.lint() to diagnose such issues")
            return self.env[arg]
        return map_arg(args, load)


def _name_the_node(error, node):
    """Add to error's message the node that raised it (torch's words)."""
    message = f"While executing {node.format_node()}"
    message = f"{error.args[0]}\n\n{message}" if error.args else message
    message += (f"\nOriginal traceback:\n{node.stack_trace}\nUse tlparse to see full graph. "
                "(https://github.com/pytorch/tlparse?tab=readme-ov-file#tlparse-parse-structured"
                "-pt2-logs)")
    error.args = (message,) + error.args[1:]


class _TransformerTracer(Tracer):
    def __init__(self, graph):
        super().__init__()
        self.graph = graph

    def is_leaf_module(self, m, module_qualified_name):
        return True


class Transformer(Interpreter):
    """An Interpreter that runs on Proxies, so its result is a new GraphModule (transform())."""

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = Graph()
        self.tracer = _TransformerTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target, args, kwargs):
        default = args[0] if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target, args, kwargs):
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        submodule = self.fetch_attr(target)
        return self.tracer.call_module(submodule, submodule.forward, args, kwargs)

    def call_function(self, target, args, kwargs):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self):
        """The GraphModule of the transformed graph."""
        result = self.run(enable_io_processing=False)
        if result is not None:
            self.new_graph.output(map_aggregate(
                result, lambda a: a.node if isinstance(a, Proxy) else a))
        return GraphModule(self.module, self.new_graph)
