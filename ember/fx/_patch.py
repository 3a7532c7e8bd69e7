"""While Proxies live or a trace runs, torch's public functions record calls that get a Proxy.

ember has no per-op dispatch protocol (it would cost every op). Instead fx swaps each binding
of a public function, in ember's modules and in the traced code's modules, for a wrapper that
records a call_function node when a Proxy is among its arguments and otherwise calls through.
The originals come back when the last Proxy is gone and no trace runs.
"""
import functools
import weakref

from . import _names

_wrappers = {}  # id(function) -> its recording wrapper
_installed = []  # [(namespace, name, original)] while held
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


def wrapper(fn):
    """fn recording a call_function node when called with a Proxy."""
    found = _wrappers.get(id(fn))
    if found is not None:
        return found

    @functools.wraps(fn)
    def traced(*args, **kwargs):
        proxy = find_proxy(args, kwargs)
        if proxy is None:
            return fn(*args, **kwargs)
        args, kwargs = _names.call_arguments(fn, args, kwargs)
        return proxy.tracer.create_proxy("call_function", fn, args, kwargs)
    traced.__wrapped_original__ = fn
    _wrappers[id(fn)] = traced
    return traced


def install(sites):
    """Bind the wrappers at sites [(namespace, name, bound value, function)]; those to restore."""
    done = []
    for namespace, name, value, fn in sites:
        if vars(namespace).get(name) is value:
            traced = wrapper(fn)
            setattr(namespace, name, staticmethod(traced) if value is not fn else traced)
            done.append((namespace, name, value))
    return done


def restore(sites):
    for namespace, name, value in reversed(sites):
        setattr(namespace, name, value)


def acquire():
    """One more holder of the patched public functions (installed by the first)."""
    global _holders
    _holders += 1
    if _holders == 1:
        _installed.extend(install(_names.patch_sites(_names.ember_modules())))


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
