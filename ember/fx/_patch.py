"""While Proxies live or a trace runs, torch's public functions record calls that get a Proxy.

ember has no per-op dispatch protocol (it would cost every op). Instead fx swaps each binding
of a public function, in ember's modules and in the traced code's modules, for a wrapper that
records a call_function node when a Proxy is among its arguments and otherwise calls through.
The originals come back when the last Proxy is gone and no trace runs.
"""
import functools
import sys
import types
import weakref

from ember._tensor import Tensor

from . import _names

# tensor <op> Proxy: the Tensor method torch records (its names, some kept as dunders)
TENSOR_OPERATORS = {
    "__add__": "add", "__sub__": "sub", "__mul__": "mul", "__truediv__": "div",
    "__floordiv__": "__floordiv__", "__matmul__": "matmul", "__pow__": "pow",
    "__mod__": "remainder", "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le",
    "__gt__": "gt", "__ge__": "ge", "__and__": "__and__", "__or__": "__or__",
    "__xor__": "__xor__", "__lshift__": "__lshift__", "__rshift__": "__rshift__",
    "__getitem__": "__getitem__"}

_wrappers = {}  # id(function) -> its recording wrapper
_installed = []  # [(namespace, name, original, replacement)] while held
_holders = 0
proxy_type = None  # set by proxy.py, which imports this module


def find_proxy(args, kwargs):
    """The first Proxy in the (nested) arguments, else None."""
    todo = [args, kwargs]
    while todo:
        item = todo.pop()
        if isinstance(item, proxy_type):
            return item
        if isinstance(item, (tuple, list)):
            todo.extend(reversed(item))
        elif isinstance(item, dict):
            todo.extend(reversed(item.values()))
    return None


class _Recording:
    """A public function while fx patches it: records a call_function node when called with a
    Proxy, else calls through. It equals (and hashes as) the function, so code comparing a node's
    target with torch.sigmoid meanwhile still matches."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.__wrapped_original__ = fn

    def __call__(self, *args, **kwargs):
        fn = self.__wrapped_original__
        proxy = find_proxy(args, kwargs)
        if proxy is None:
            return fn(*args, **kwargs)
        args, kwargs = _names.call_arguments(fn, args, kwargs)
        return proxy.tracer.create_proxy("call_function", fn, args, kwargs)

    def __eq__(self, other):
        return getattr(other, "__wrapped_original__", other) is self.__wrapped_original__

    def __hash__(self):
        return hash(self.__wrapped_original__)

    def __repr__(self):
        return repr(self.__wrapped_original__)


def wrapper(fn):
    """fn's recording stand-in (one per function)."""
    found = _wrappers.get(id(fn))
    if found is None:
        found = _wrappers[id(fn)] = _Recording(fn)
    return found


def _tensor_method(original, method):
    """A Tensor method (or operator) recording a call_method node when an argument holds a
    Proxy: ``mask.masked_fill(proxy, 0)``, ``weight + proxy``."""
    @functools.wraps(original)
    def call(self, *args, **kwargs):
        proxy = find_proxy(args, kwargs)
        if proxy is None:
            return original(self, *args, **kwargs)
        return proxy.tracer.create_proxy("call_method", method, (self,) + args, kwargs)
    return call


def _tensor_sites():
    methods = {name: name for name, value in vars(Tensor).items()
               if not name.startswith("_") and isinstance(value, types.FunctionType)}
    methods.update((name, method) for name, method in TENSOR_OPERATORS.items()
                   if name in vars(Tensor))
    return [(Tensor, name, vars(Tensor)[name], _tensor_method(vars(Tensor)[name], method))
            for name, method in methods.items()]


def function_sites(bindings):
    """(namespace, name, bound value, replacement) for _names.patch_sites' bindings."""
    return [(namespace, name, value,
             staticmethod(wrapper(fn)) if isinstance(value, staticmethod) else wrapper(fn))
            for namespace, name, value, fn in bindings]


def install(sites):
    """Bind each site's replacement [(namespace, name, bound value, replacement)] where the
    value is still bound; the sites installed (for restore)."""
    done = []
    for namespace, name, value, replacement in sites:
        if vars(namespace).get(name) is value:
            setattr(namespace, name, replacement)
            done.append((namespace, name, value, replacement))
    return done


def restore(sites):
    """Put the original values back where the replacement is still bound (code may have bound
    something else meanwhile)."""
    for namespace, name, value, replacement in reversed(sites):
        if vars(namespace).get(name) is replacement:
            setattr(namespace, name, value)


def acquire():
    """One more holder of the patched public functions (installed by the first)."""
    global _holders
    _holders += 1
    if _holders == 1:
        # ember's modules, and the script's (``from torch import cat`` binds cat there)
        modules = _names.ember_modules() + [m for m in (sys.modules.get("__main__"),) if m]
        sites = function_sites(_names.patch_sites(modules)) + _tensor_sites()
        _installed.extend(install(sites))


def release():
    global _holders
    _holders -= 1
    if _holders == 0:
        restore(_installed)
        _installed.clear()


def hold_while_alive(proxy):
    """Keep the functions patched while this Proxy lives (it may reach torch.cat(...))."""
    acquire()
    weakref.finalize(proxy, release)
