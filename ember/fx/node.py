"""torch.fx.node: Node, one operation of a Graph, and map_arg/map_aggregate over arguments."""
import builtins
import operator
import re
from typing import Any, Callable, Union

import ember

from . import _names
from .immutable_collections import immutable_dict, immutable_list

Target = Union[Callable[..., Any], str]
Argument = Any

_OPS = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root")


def map_aggregate(a, fn):
    """Apply fn to each leaf of a nested tuple/list/dict/slice structure."""
    if isinstance(a, tuple):
        mapped = tuple(map_aggregate(e, fn) for e in a)
        return type(a)(*mapped) if hasattr(a, "_fields") else mapped
    if isinstance(a, list):
        return immutable_list(map_aggregate(e, fn) for e in a)
    if isinstance(a, dict):
        return immutable_dict((k, map_aggregate(v, fn)) for k, v in a.items())
    if isinstance(a, slice):
        return slice(*(map_aggregate(e, fn) for e in (a.start, a.stop, a.step)))
    return fn(a)


def map_arg(a, fn):
    """Apply fn to each Node in the nested argument structure a."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _qualified_name(fn):
    """'operator.add', 'builtins.getattr', 'torch.cat' or 'module.name' for a call target."""
    name = _names.torch_name(fn)
    if name is not None:
        return name
    if getattr(builtins, getattr(fn, "__name__", ""), None) is fn:
        return f"builtins.{fn.__name__}"
    module = getattr(fn, "__module__", None) or "builtins"
    return f"{module}.{fn.__name__}"


def _format_arg(arg):
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, tuple):
        return "(" + ", ".join(_format_arg(a) for a in arg) + ("," if len(arg) == 1 else "") + ")"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    return f"%{arg}" if isinstance(arg, Node) else str(arg)


class Node:
    """One operation: op (placeholder, call_function, ...), target, args, kwargs, and uses."""

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has "
                             f"type {ember.typename(target)} but a Callable is expected")
        if op != "call_function":
            if op not in _OPS:
                raise AssertionError(f"op '{op}' is not in _legal_ops")
            if not isinstance(target, str):
                raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has "
                                 f"type {ember.typename(target)} but a str is expected")
        self.graph, self.name, self.op, self.target = graph, name, op, target
        self.type, self.meta, self.users = return_type, {}, {}
        self._input_nodes, self._args, self._kwargs = {}, (), {}
        self._prev = self._next = self
        self._erased = False
        self._update_args_kwargs(args, kwargs)

    # ----------------------------------------------------------------- linked list
    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def _remove_from_list(self):
        # the node keeps its own links, so an iteration standing on it can go on (as torch)
        self._prev._next, self._next._prev = self._next, self._prev

    def prepend(self, x):
        """Insert x before this node in the graph."""
        if self is x:
            raise AssertionError("Cannot prepend a node to itself")
        if x.graph is not self.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev, x._next, self._prev = x, p, self, x

    def append(self, x):
        """Insert x after this node in the graph."""
        self._next.prepend(x)

    @property
    def stack_trace(self):
        """Where the traced code made this node (tracers here record none)."""
        return self.meta.get("stack_trace")

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta["stack_trace"] = trace

    # ----------------------------------------------------------------- arguments
    @property
    def args(self):
        return self._args

    @args.setter
    def args(self, value):
        self._update_args_kwargs(value, self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, value):
        self._update_args_kwargs(self._args, value)

    @property
    def all_input_nodes(self):
        return list(self._input_nodes)

    def update_arg(self, idx, arg):
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key, arg):
        self.kwargs = {**self.kwargs, key: arg}

    def _update_args_kwargs(self, args, kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        self._args = map_arg(tuple(args), self._note_input)
        self._kwargs = map_arg(dict(kwargs), self._note_input)
        for new in self._input_nodes:
            new.users.setdefault(self)

    def _note_input(self, n):
        self._input_nodes.setdefault(n)
        return n

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *,
                              propagate_meta=False):
        """Make every user of this node use replace_with instead; the users changed."""
        if propagate_meta:
            replace_with.meta.update(self.meta)
        changed = [user for user in list(self.users) if delete_user_cb(user)]
        for user in changed:
            user.replace_input_with(self, replace_with)
        return changed

    def replace_input_with(self, old_input, new_input):
        """Replace each use of old_input in this node's args and kwargs with new_input."""
        swap = lambda n: new_input if n is old_input else n  # noqa: E731
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def is_impure(self, impure_random=True):
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return getattr(self.target, "_fx_side_effectful", False)
        return False

    # ----------------------------------------------------------------- printing
    def __repr__(self):
        return self.name

    def _pretty_target(self):
        if self.op == "call_function":  # printed operator.add (its module is _operator)
            name = _qualified_name(self.target)
            return name[1:] if name.startswith("_operator.") else name
        return self.target

    def format_node(self, placeholder_names=None, maybe_return_typename=None, *,
                    include_tensor_metadata=False):
        """The node as one line of the graph's printout."""
        if self.op == "output":
            return f"return {self.args[0]}"
        typed = f"{type_name(self.type)} " if self.type is not None else ""
        head = f"%{self.name} : {typed}[num_users={len(self.users)}] = "
        if self.op == "placeholder":
            default = f"(default={self.args[0]})" if self.args else ""
            return f"{head}placeholder[target={self.target}]{default}"
        if self.op == "get_attr":
            return f"{head}get_attr[target={self.target}]"
        return (f"{head}{self.op}[target={self._pretty_target()}](args = "
                f"{_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})")


def type_name(t):
    """A type annotation as torch prints it: torch.Tensor, int, typing.Optional[torch.Tensor]."""
    if isinstance(t, type):
        if t.__module__ == "builtins":
            return t.__qualname__
        if t.__module__.startswith("ember"):
            return f"torch.{t.__qualname__}" if getattr(ember, t.__qualname__, None) is t \
                else f"torch{t.__module__[5:]}.{t.__qualname__}"
        return f"{t.__module__}.{t.__qualname__}"
    return re.sub(r"ember\._tensor\.Tensor", "torch.Tensor", repr(t)).replace("ember.", "torch.")


# operator functions whose call prints as Python syntax in generated code
MAGIC = {"add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "floordiv": "{} // {}",
         "truediv": "{} / {}", "mod": "{} % {}", "pow": "{} ** {}", "lshift": "{} << {}",
         "rshift": "{} >> {}", "and_": "{} & {}", "or_": "{} | {}", "xor": "{} ^ {}",
         "getitem": "{}[{}]", "matmul": "{} @ {}", "eq": "{} == {}", "ne": "{} != {}",
         "lt": "{} < {}", "gt": "{} > {}", "le": "{} <= {}", "ge": "{} >= {}",
         "pos": "+{}", "neg": "-{}", "invert": "~{}"}
REFLECTABLE = ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift", "rshift",
               "and_", "or_", "xor", "matmul")
OPERATORS = {getattr(operator, name): fmt for name, fmt in MAGIC.items()}
# in-place operator functions: printed as the statement, then the node bound to its target
INPLACE = {getattr(operator, name): f"{{}} {sign}= {{}}" for name, sign in (
    ("iadd", "+"), ("iand", "&"), ("ifloordiv", "//"), ("ilshift", "<<"), ("imod", "%"),
    ("imul", "*"), ("imatmul", "@"), ("ior", "|"), ("ipow", "**"), ("irshift", ">>"),
    ("isub", "-"), ("itruediv", "/"), ("ixor", "^"))}
INPLACE[operator.setitem] = "{}[{}] = {}"
