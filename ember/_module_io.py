"""Whole nn.Modules in checkpoints (``torch.save(model)``) without pickle: the class is stored by
qualified name, the instance's attributes as JSON and its tensors in safetensors. Loading
rebuilds only nn.Module classes of ember itself, or ones the caller allowed (safe_globals,
add_safe_globals, or weights_only=False)."""
import contextlib
import importlib
import sys
import types

from ._checkpoint_file import CheckpointError
from .nn import Module

_allowed = {}  # (module name, qualified name) -> class: what add_safe_globals allowed
_HOOKS = ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks",
          "_state_dict_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks",
          "_state_dict_pre_hooks")


def _key(cls):
    return cls.__module__, cls.__qualname__


def add_safe_globals(safe_globals):
    """Allow ember.load to rebuild modules of these classes, and these functions held by
    modules (torch.serialization's name)."""
    for item in safe_globals:
        cls = item[0] if isinstance(item, tuple) else item
        if not isinstance(cls, (type, types.FunctionType)):
            raise TypeError(f"add_safe_globals expects classes or functions, got {item!r}")
        _allowed[_key(cls)] = cls


def get_safe_globals():
    return list(_allowed.values())


def clear_safe_globals():
    _allowed.clear()


@contextlib.contextmanager
def safe_globals(safe_globals):
    """Within the block, ember.load may rebuild modules of these classes."""
    before = dict(_allowed)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _allowed.clear()
        _allowed.update(before)


def encode(encoder, module, path, depth):
    """The JSON node of a module: its class and its attributes (tensors go to the arrays)."""
    hooked = [name for name in _HOOKS if getattr(module, name, None)]
    if hooked:
        raise TypeError(f"ember.save: cannot store module {type(module).__name__} with hooks "
                        f"({', '.join(hooked)}): hooks are functions, which are never pickled; "
                        "remove them or save module.state_dict()")
    state = {k: v for k, v in vars(module).items() if k not in _HOOKS}
    return {"module": list(_key(type(module))),
            "state": encoder.node(state, path + (type(module).__name__,), depth)}


def _lookup(module_name, qualname, own):
    """The object at ``module_name``.``qualname``, or None. Only ember's own modules are
    imported here; any other must already be imported (as the script defining the class is),
    so that loading a file never runs an import it names."""
    try:
        obj = importlib.import_module(module_name) if own else sys.modules[module_name]
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError, KeyError, ValueError):
        return None
    return obj


def resolve(module_name, qualname, weights_only, where):
    """The class a checkpoint names, if it may be rebuilt; CheckpointError otherwise."""
    name = f"{module_name}.{qualname}"
    own = module_name == "ember" or module_name.startswith("ember.")
    cls = _allowed.get((module_name, qualname))
    if cls is None and (own or not weights_only):
        cls = _lookup(module_name, qualname, own)
    if cls is None and not own and weights_only:
        raise CheckpointError(
            f"ember.load: '{where}' holds a module of class {name}, which is not ember's own; "
            f"ember rebuilds it only if you allow it: "
            f"ember.serialization.add_safe_globals([{qualname}]) or `with "
            f"ember.serialization.safe_globals([{qualname}]):` (or weights_only=False if you "
            "trust the file)")
    if not (isinstance(cls, type) and issubclass(cls, Module)):
        raise CheckpointError(f"ember.load: '{where}' names {name} as a module class, but it "
                              "is not an nn.Module class here (or its module is not imported)")
    return cls


def function_name(obj):
    """[module, qualname] of one of ember's own functions (stored by name), else None."""
    module_name, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", "")
    if not (isinstance(obj, types.FunctionType) and isinstance(module_name, str)
            and (module_name == "ember" or module_name.startswith("ember."))):
        return None
    return [module_name, qualname] if _lookup(module_name, qualname, True) is obj else None


def resolve_function(name, where):
    """The ember function a checkpoint names; only ember's own functions are ever resolved."""
    if isinstance(name, list) and len(name) == 2 and all(isinstance(n, str) for n in name):
        module_name, qualname = name
        allowed = _allowed.get((module_name, qualname))
        if isinstance(allowed, types.FunctionType):
            return allowed
        if module_name == "ember" or module_name.startswith("ember."):
            found = _lookup(module_name, qualname, True)
            if isinstance(found, types.FunctionType):
                return found
    raise CheckpointError(f"ember.load: '{where}' names {name!r} as a function, which is not "
                          "one of ember's own nor allowed by add_safe_globals/safe_globals")


def decode(decoder, value, depth):
    """Rebuild a module without running its __init__, as unpickling does."""
    if not (isinstance(value, dict) and isinstance(value.get("module"), list)
            and len(value["module"]) == 2 and all(isinstance(v, str) for v in value["module"])):
        raise ValueError("bad module record")
    cls = resolve(*value["module"], decoder.weights_only, decoder.name)
    state = decoder.node(value["state"], depth)
    if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
        raise ValueError("bad module state")
    module = cls.__new__(cls)
    module.__dict__.update(state)
    blank = vars(Module())  # the hook registries a module has, stored empty (not saved)
    for name in _HOOKS:
        if name in blank:
            module.__dict__.setdefault(name, type(blank[name])())
    return module
