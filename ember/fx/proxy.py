"""torch.fx.proxy: Proxy, the stand-in value that records each operation on it as a Node."""
import dis
import inspect
import operator

from ember import _device, _dtype, _memory_format
from ember._tensor import Tensor

from . import _patch
from .node import MAGIC, REFLECTABLE, Node

_BASE_TYPES = (str, int, float, bool, complex, _dtype.dtype, _device.device, Tensor, type(None),
               type(Ellipsis), range, _memory_format.memory_format)


class TraceError(ValueError):
    pass


class TracerBase:
    """Records nodes into self.graph; the base of Tracer and GraphAppendingTracer."""

    graph = None
    record_stack_traces = False
    trace_asserts = False  # torch's option to record `assert proxy`; not supported here
    check_mutable_operations = False

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        """Insert a node in the graph (override to change or annotate nodes)."""
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node):
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None,
                     proxy_factory_fn=None):
        """Record the operation as a node (arguments through create_arg); its Proxy."""
        node = self.create_node(kind, target, self.create_arg(args), self.create_arg(kwargs),
                                name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """An argument as a graph value: Proxies become their nodes, containers are mapped."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, tuple):
            mapped = tuple(self.create_arg(e) for e in a)
            return type(a)(*mapped) if hasattr(a, "_fields") else mapped
        if isinstance(a, list):
            return [self.create_arg(e) for e in a]
        if isinstance(a, dict):
            return {self._create_key(k): self.create_arg(v) for k, v in a.items()}
        if isinstance(a, slice):
            return slice(*(self.create_arg(e) for e in (a.start, a.stop, a.step)))
        if isinstance(a, (Node,) + _BASE_TYPES):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def _create_key(self, key):
        key = self.create_arg(key)
        if any(isinstance(k, Node) for k in (key if isinstance(key, tuple) else (key,))):
            raise RuntimeError("Keys for dictionaries used as an argument cannot contain a Node. "
                               f"Got key: {key}")
        return key

    def to_bool(self, obj):
        raise TraceError("symbolically traced variables cannot be used as inputs to control "
                         "flow")

    def iter(self, obj):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy "
                         "is used in a loop or as a *args or **kwargs function argument. See the "
                         "torch.fx docs on pytorch.org for a more detailed explanation of what "
                         "types of control flow can be traced, and check out the Proxy "
                         "docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj):
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """A tracer that appends to an existing graph (for Proxies built by hand)."""

    def __init__(self, graph):
        self.graph = graph
        self.scope = None
        self.module_stack = {}
        self.node_name_to_scope = {}


class Proxy:
    """A value being traced: operations on it (operators, methods, attributes, torch functions
    while fx patches them) become nodes of its tracer's graph."""

    def __init__(self, node, tracer=None):
        self.tracer = GraphAppendingTracer(node.graph) if tracer is None else tracer
        self.node = node
        _patch.hold_while_alive(self)

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):  # copy/pickle probes are not tensor methods
            raise AttributeError(k)
        return Attribute(self, k)

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        frame = inspect.currentframe().f_back
        unpack = _unpack_count(frame)
        if unpack is not None:  # `a, b = proxy`: as many getitem nodes as names
            return (self[i] for i in range(unpack))
        return self.tracer.iter(self)

    def __abs__(self):
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self):
        return self.tracer.to_bool(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want "
                           "this call to be recorded, please call torch.fx.wrap('len') at "
                           "module scope")

    def keys(self):
        return self.tracer.keys(self)


def _unpack_count(frame):
    for instruction in dis.get_instructions(frame.f_code):
        if instruction.offset == frame.f_lasti:
            return instruction.argval if instruction.opname == "UNPACK_SEQUENCE" else None
    return None


class Attribute(Proxy):
    """proxy.name: a getattr node made on first use, or a method call when called."""

    def __init__(self, root, attr):
        self.root, self.attr, self.tracer, self._node = root, attr, root.tracer, None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr,
                                                  (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


def _operator(name):
    target = getattr(operator, name)

    def method(self, *args):
        return self.tracer.create_proxy("call_function", target, (self,) + args, {})

    def reflected(self, other):
        return self.tracer.create_proxy("call_function", target, (other, self), {})
    return method, reflected


_patch.proxy_type = Proxy

for _name in MAGIC:
    _method, _reflected = _operator(_name)
    setattr(Proxy, f"__{_name.strip('_')}__", _method)
    if _name in REFLECTABLE:
        setattr(Proxy, f"__r{_name.strip('_')}__", _reflected)
