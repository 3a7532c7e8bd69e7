"""torch.fx._symbolic_trace: Tracer (records forward as a Graph), symbolic_trace, wrap."""
import builtins
import contextlib
import functools
import inspect
import math
import sys
import warnings

import ember
from ember._tensor import Tensor
from ember.nn import Module, Sequential
from ember.nn.parameter import Parameter

from . import _names, _patch
from .graph import Graph
from .graph_module import GraphModule
from .proxy import TracerBase

_wrapped = {}  # (id of a module's globals, name) -> those globals: the functions fx.wrap marked
_ABSENT = object()


def _assert_is_none(value, msg):
    assert value is None, msg


def wrap(fn_or_name):
    """Mark a module-level function (or its name) to be recorded as one call_function node
    instead of traced through; call at the top level of the defining module."""
    frame = inspect.currentframe().f_back
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    if callable(fn_or_name):
        name = fn_or_name.__name__
    elif isinstance(fn_or_name, str):
        name = fn_or_name
    else:
        raise AssertionError("Unsupported type for global function! Must be either a callable "
                             "or string name")
    _wrapped[(id(frame.f_globals), name)] = frame.f_globals
    return fn_or_name


def _wrapped_call(fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        proxy = _patch.find_proxy(args, kwargs)
        if proxy is None:
            return fn(*args, **kwargs)
        result = proxy.tracer.create_proxy("call_function", fn, args, kwargs)
        result.node.meta["is_wrapped"] = True
        return result
    return call


@contextlib.contextmanager
def _patched_wraps(targets):
    """The functions at targets [(a module's dict, name)] recorded as single calls during the
    trace; a name the dict lacks is a builtin (fx.wrap("len")), shadowed meanwhile."""
    saved = []
    try:
        for namespace, name in targets:
            fn = namespace.get(name, getattr(builtins, name, None))
            if fn is None:
                continue
            saved.append((namespace, name, namespace.get(name, _ABSENT)))
            namespace[name] = _wrapped_call(fn)
        yield
    finally:
        for namespace, name, fn in reversed(saved):
            if fn is _ABSENT:
                del namespace[name]
            else:
                namespace[name] = fn


class Tracer(TracerBase):
    """Runs a module's forward on Proxies and records the operations as a Graph. Override
    is_leaf_module, call_module, create_node, create_proxy or create_arg to change it."""

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(),
                 param_shapes_constant=False):
        self.param_shapes_constant = param_shapes_constant
        # math's functions (and autowrap_functions) called with a Proxy become single calls
        self._autowrap_modules = list(autowrap_modules)
        self._autowrap_ids = {id(v) for m in autowrap_modules for v in vars(m).values()
                              if callable(v) and not isinstance(v, type)}
        self._autowrap_ids.update(id(f) for f in autowrap_functions)
        self.proxy_buffer_attributes = True
        self.submodule_paths, self.tensor_attrs = None, {}
        self.scope, self.module_stack, self.node_name_to_scope = None, {}, {}

    def is_leaf_module(self, m, module_qualified_name):
        """torch.nn's own modules (but Sequential) are recorded as call_module nodes."""
        return type(m).__module__.startswith("ember.nn") and not isinstance(m, Sequential)

    def path_of_module(self, mod):
        """The qualified name of mod in the root module."""
        path = self.submodule_paths.get(mod) if self.submodule_paths is not None else None
        if path is None:
            for name, candidate in self.root.named_modules():
                if candidate is mod:
                    return name
            raise NameError("module is not installed as a submodule")
        return path

    def call_module(self, m, forward, args, kwargs):
        """A leaf module's call becomes a call_module node; any other is traced through."""
        qualified_name = self.path_of_module(m)
        if not self.is_leaf_module(m, qualified_name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", qualified_name, args, kwargs)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """A parameter (or buffer) read in forward becomes a get_attr node, made once."""
        if isinstance(attr_val, Parameter):
            found = self.root.named_parameters()
        elif self.proxy_buffer_attributes and isinstance(attr_val, Tensor):
            found = self.root.named_buffers()
        else:
            return attr_val
        for name, value in found:
            if value is attr_val:
                if name not in parameter_proxy_cache:
                    parameter_proxy_cache[name] = self.create_proxy("get_attr", name, (), {})
                return parameter_proxy_cache[name]
        return attr_val

    def create_arg(self, a):
        """Module tensors used as arguments become get_attr nodes (one per use, as torch);
        other tensors are stored on the root as _tensor_constant<i>."""
        if isinstance(a, Tensor):
            for name, value in list(self.root.named_parameters()) + \
                    list(self.root.named_buffers()):
                if value is a:
                    return self.create_node("get_attr", name, (), {})
            if isinstance(a, Parameter):
                raise NameError("parameter is not a member of this module")
            if id(a) not in self.tensor_attrs:
                self.tensor_attrs[id(a)] = (a, self._constant_name())
                setattr(self.root, self.tensor_attrs[id(a)][1], a)
            return self.create_node("get_attr", self.tensor_attrs[id(a)][1], (), {})
        return super().create_arg(a)

    def _constant_name(self):
        i = 0
        while hasattr(self.root, f"_tensor_constant{i}"):
            i += 1
        return f"_tensor_constant{i}"

    def _collect_tensor_attrs(self):
        """{id: (tensor, qualified name)} of the plain tensor attributes of root's modules."""
        self.tensor_attrs = {}
        for prefix, module in self.root.named_modules():
            for name, value in vars(module).items():
                if isinstance(value, Tensor) and not isinstance(value, Parameter):
                    qualified = f"{prefix}.{name}" if prefix else name
                    self.tensor_attrs.setdefault(id(value), (value, qualified))

    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        """(the function to call, its arguments): a placeholder Proxy per parameter."""
        signature = inspect.signature(root_fn)
        parameters = list(signature.parameters.values())[1 if is_module else 0:]
        concrete_args = concrete_args or {}
        args = []
        for p in parameters:
            if p.name in concrete_args:
                args.append(self._concrete(p, concrete_args[p.name]))
                continue
            name = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
            default = () if p.default is p.empty else (p.default,)
            annotation = None if p.annotation is p.empty else p.annotation
            args.append(self.create_proxy("placeholder", name, default, {},
                                          type_expr=annotation))
        if is_module:
            args.insert(0, self.root)
        return root_fn, args

    def _concrete(self, parameter, value):
        """A specialised argument: a placeholder kept (named <name>_1) with a check that the
        call passes the same value, as torch."""
        default = () if parameter.default is parameter.empty else (parameter.default,)
        placeholder = self.create_proxy("placeholder", f"{parameter.name}_1", default, {})
        message = f"{parameter.name} has been specialized to have value {value} but got " \
                  "another value"
        if type(value) in (bool, int, float, complex, str):
            self.create_proxy("call_function", ember._assert, (placeholder == value, message), {})
        elif value is None:
            self.create_proxy("call_function", _assert_is_none, (placeholder, message), {})
        else:
            warnings.warn(f"Was not able to add assertion to guarantee correct input "
                          f"{parameter.name} to specialized function. It is up to the user to "
                          "make sure that your inputs match the inputs you specialized the "
                          "function with.")
        return value

    def trace(self, root, concrete_args=None):
        """The Graph of root's forward (root: a Module or a function)."""
        if isinstance(root, Module):
            self.root, fn = root, type(root).forward
        else:
            self.root, fn = Module(), root
        self.graph = Graph(tracer_cls=type(self))
        self.submodule_paths = {mod: name for name, mod in self.root.named_modules()}
        self._collect_tensor_attrs()
        try:
            with self._patched_functions(fn), _patched_wraps(self._wrap_targets(fn)), \
                    self._patched_module_calls():
                fn, args = self.create_args_for_root(fn, isinstance(root, Module),
                                                     concrete_args)
                result = fn(*args)
                returns = getattr(fn, "__annotations__", {}).get("return")
                self.create_node("output", "output", (self.create_arg(result),), {},
                                 type_expr=returns)
        finally:
            self.submodule_paths = None
        return self.graph

    @contextlib.contextmanager
    def _patched_functions(self, fn):
        """torch's functions record calls given Proxies during the trace: ember's bindings (as
        while any Proxy lives) and those of the traced code's own modules."""
        modules = {sys.modules.get(type(m).__module__) for m in self.root.modules()}
        modules.add(sys.modules.get(getattr(fn, "__module__", None) or ""))
        _patch.acquire()
        sites = _patch.install(_patch.function_sites(_names.patch_sites(
            [m for m in modules if m is not None and not m.__name__.startswith("ember")])))
        try:
            yield
        finally:
            _patch.restore(sites)
            _patch.release()

    def _wrap_targets(self, fn):
        """[(dict, name)]: fx.wrap's functions, and the autowrapped ones bound in fn's globals
        or in the autowrap modules."""
        targets = [(namespace, name) for (_, name), namespace in _wrapped.items()]
        spaces = [getattr(fn, "__globals__", {})] + [vars(m) for m in self._autowrap_modules]
        for namespace in spaces:
            targets += [(namespace, name) for name, value in list(namespace.items())
                        if id(value) in self._autowrap_ids]
        return targets

    @contextlib.contextmanager
    def _patched_module_calls(self):
        call, getattr_ = Module.__call__, Module.__getattr__
        cache = {}

        def module_call(mod, *args, **kwargs):
            return self.call_module(mod, lambda *a, **k: call(mod, *a, **k), args, kwargs)

        def module_getattr(mod, name):
            return self.getattr(name, getattr_(mod, name), cache)
        Module.__call__, Module.__getattr__ = module_call, module_getattr
        try:
            yield
        finally:
            Module.__call__, Module.__getattr__ = call, getattr_


def symbolic_trace(root, concrete_args=None):
    """A GraphModule recorded from root (a Module or a function) by the default Tracer."""
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
