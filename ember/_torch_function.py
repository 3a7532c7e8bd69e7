"""The __torch_function__ protocol: a Tensor subclass (or any object) whose type defines
``__torch_function__`` sees every ember function and Tensor method called with it, as in torch.

Nothing is paid until such a type exists: ember's public functions and Tensor methods are wrapped
when the first Tensor subclass from outside ember is defined (or ``activate()`` is called). The
wrapper looks for overloaded arguments (a Tensor subclass from outside ember, or an object with
``__torch_function__``) and, finding one, calls ``type.__torch_function__(func, types, args,
kwargs)`` in torch's order (subclasses before their parents, then left to right); ``func`` is the
public function (``ember.add``, ``ember.Tensor.add``). Tensor's own ``__torch_function__`` runs
the function with the protocol disabled for subclasses and returns tensors as ``cls`` (through
``as_subclass``, as torch's).
"""
import functools
import threading

_state = threading.local()
_active = False


def disabled_level():
    """0: the protocol runs; 1: DisableTorchFunctionSubclass; 2: DisableTorchFunction."""
    return getattr(_state, "disabled", 0)


class _Disable:
    level = 1

    def __enter__(self):
        self._saved = disabled_level()
        _state.disabled = max(self._saved, self.level)
        return self

    def __exit__(self, *exc):
        _state.disabled = self._saved
        return False


class DisableTorchFunctionSubclass(_Disable):
    """torch._C.DisableTorchFunctionSubclass: inside, subclasses' __torch_function__ is not
    consulted (their arguments act as plain tensors)."""


class DisableTorchFunction(_Disable):
    """torch._C.DisableTorchFunction: the protocol is off entirely inside."""
    level = 2


Tensor = None  # bound by ember._tensor once the class exists


def _own(cls):
    """Tensor itself and ember's subclasses (Parameter, Buffer, ...) unless they define their
    own __torch_function__: not overloaded (torch's Parameter disables it, too)."""
    return cls is Tensor or (cls.__module__.split(".")[0] == "ember" and
                             "__torch_function__" not in vars(cls))


def overloaded(args, kwargs=None):
    """The arguments (one level into lists and tuples) whose type takes part in the protocol,
    in torch's order: each type once, a subclass before its parents."""
    found = []
    for value in (*args, *(kwargs.values() if kwargs else ())):
        if isinstance(value, (list, tuple)):
            for item in value:
                _collect(item, found)
        else:
            _collect(value, found)
    return found


def _collect(value, found):
    cls = type(value)
    if not hasattr(cls, "__torch_function__") or _own(cls):
        return
    if any(type(f) is cls for f in found):
        return
    for i, f in enumerate(found):  # a subclass goes before its parents
        if issubclass(cls, type(f)):
            found.insert(i, value)
            return
    found.append(value)


def dispatch(public, args, kwargs, found=None):
    """``public(*args, **kwargs)`` through the overloaded types' __torch_function__."""
    found = overloaded(args, kwargs) if found is None else found
    types = tuple(type(v) for v in found)
    for value in found:
        result = type(value).__torch_function__(public, types, args, kwargs or {})
        if result is not NotImplemented:
            return result
    name = getattr(public, "__name__", public)
    raise TypeError(f"no implementation found for '{name}' on types that implement "
                    f"__torch_function__: {list(types)}")


def wrap(fn, dispatch_as=None):
    """``fn`` taking part in the protocol (as a function or a method); ``dispatch_as``: the
    Tensor method name the overrides see (an operator's: ``*`` is Tensor.mul, as torch's)."""
    if getattr(fn, "__torch_function_wrapped__", False):
        return fn

    @functools.wraps(fn)
    def public(*args, **kwargs):
        level = getattr(_state, "disabled", 0)
        if level < 2:
            found = overloaded(args, kwargs)
            if level == 1:  # (DisableTorchFunctionSubclass: only non-tensors dispatch)
                found = [v for v in found if not isinstance(v, Tensor)]
            if found:
                func = public if dispatch_as is None else getattr(Tensor, dispatch_as)
                return dispatch(func, args, kwargs, found)
        return fn(*args, **kwargs)
    public.__torch_function_wrapped__ = True
    return public


def default(cls, func, types, args=(), kwargs=None):
    """Tensor.__torch_function__: run ``func`` with subclasses' overrides off; tensors in the
    result come back as ``cls``."""
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        result = func(*args, **(kwargs or {}))
    return convert(result, cls)


def convert(result, cls):
    if isinstance(result, Tensor) and not isinstance(result, cls):
        return result.as_subclass(cls)
    if isinstance(result, (tuple, list)) and type(result) in (tuple, list):
        return type(result)(convert(r, cls) for r in result)
    return result


_SKIP = frozenset({"__init__", "__new__", "__init_subclass__", "__torch_function__",
                   "__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__dir__",
                   "__repr__", "__str__", "__format__", "__reduce_ex__", "__reduce__",
                   "__deepcopy__", "__copy__", "__hash__", "__bool__", "__len__", "__iter__",
                   "__index__", "__int__", "__float__", "__complex__", "__array__",
                   "__array_priority__", "__dlpack__", "__dlpack_device__", "__class__",
                   "__contains__", "__setstate__", "__getstate__", "__sizeof__", "as_subclass",
                   "_make"})
# the operators torch dispatches as their named method (a reflected one as itself)
_AS_METHOD = {"__add__": "add", "__sub__": "sub", "__mul__": "mul", "__truediv__": "div",
              "__floordiv__": "floor_divide", "__mod__": "remainder", "__pow__": "pow",
              "__matmul__": "matmul", "__neg__": "neg", "__abs__": "abs",
              "__invert__": "bitwise_not", "__and__": "bitwise_and", "__or__": "bitwise_or",
              "__xor__": "bitwise_xor", "__lshift__": "bitwise_left_shift",
              "__rshift__": "bitwise_right_shift", "__eq__": "eq", "__ne__": "ne",
              "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
              "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_"}


def activate():
    """Wrap ember's public functions and Tensor's methods (once)."""
    global _active
    if _active:
        return
    _active = True
    import ember  # lazy: the namespaces are above this module (and load after it)
    from ember import fft, linalg, special  # lazy: as ember
    from ember.nn import functional  # lazy: as ember
    for name, value in list(vars(Tensor).items()):
        if callable(value) and not isinstance(value, (type, staticmethod, classmethod)) and \
                name not in _SKIP and (not name.startswith("_") or _operator(name)):
            setattr(Tensor, name, wrap(value, _AS_METHOD.get(name)))
    for module in (ember, functional, linalg, special, fft):
        for name, value in list(vars(module).items()):
            if not name.startswith("_") and _plain_function(value):
                setattr(module, name, wrap(value))


def _operator(name):
    return name.startswith("__") and name.endswith("__") and name[2:-2] in {
        "add", "radd", "iadd", "sub", "rsub", "isub", "mul", "rmul", "imul", "truediv",
        "rtruediv", "itruediv", "floordiv", "rfloordiv", "ifloordiv", "mod", "rmod", "imod",
        "pow", "rpow", "ipow", "matmul", "rmatmul", "imatmul", "neg", "pos", "abs", "invert",
        "and", "rand", "iand", "or", "ror", "ior", "xor", "rxor", "ixor", "lshift", "rlshift",
        "ilshift", "rshift", "rrshift", "irshift", "eq", "ne", "lt", "le", "gt", "ge",
        "getitem", "setitem"}


def _plain_function(value):
    import types
    return isinstance(value, (types.FunctionType, functools.partial)) or (
        callable(value) and type(value).__name__ in ("function", "builtin_function_or_method"))
