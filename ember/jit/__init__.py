"""torch.jit, as far as a script without TorchScript needs it: ember compiles nothing, so
``script`` and ``trace`` give back the function or module running as written (a module as a
ScriptModule sharing the original's parameters, state_dict keys and forward), with torch's
deprecation warnings; the decorators and queries are the identities torch's are at run time.
Saving or loading TorchScript archives is refused."""
import functools
import typing
import warnings

from ..nn.modules.module import Module

__all__ = ["Attribute", "Final", "ScriptFunction", "ScriptModule", "annotate", "export", "ignore",
           "is_scripting", "is_tracing", "load", "save", "script", "trace", "unused"]

Final = typing.Final


def _deprecated(name):
    warnings.warn(f"`torch.jit.{name}` is deprecated. Please switch to `torch.compile` or "
                  "`torch.export`.", DeprecationWarning, stacklevel=3)


class ScriptModule(Module):
    """A scripted or traced module: here the original module itself, under this class too."""


class ScriptFunction:
    """A scripted or traced function: calls run the original function."""

    def __init__(self, function):
        functools.update_wrapper(self, function)
        self._function = function

    def __call__(self, *args, **kwargs):
        return self._function(*args, **kwargs)


def _as_script_module(module, name):
    """``module`` seen as a ScriptModule: a new object of a subclass of both classes sharing
    the module's state (parameters, buffers, submodules, hooks), as torch's shares them."""
    cls = type(name, (ScriptModule, type(module)), {"__module__": __name__})
    scripted = object.__new__(cls)
    scripted.__dict__ = module.__dict__
    return scripted


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """``obj`` as TorchScript would run it: a module, function or class running as written."""
    _deprecated("script")
    if isinstance(obj, ScriptModule) or isinstance(obj, ScriptFunction) or isinstance(obj, type):
        return obj
    if isinstance(obj, Module):
        return _as_script_module(obj, "RecursiveScriptModule")
    return ScriptFunction(obj)


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """``func`` as a traced graph would run it (nothing is recorded: the code runs as
    written on every call, so data-dependent control flow keeps working)."""
    _deprecated("trace")
    if isinstance(func, Module):
        return _as_script_module(func, "TopLevelTracedModule")
    return ScriptFunction(func)


def ignore(drop=False, **kwargs):
    """``@ignore`` / ``@ignore(drop=True)``: the function unchanged (torch's FutureWarning
    for ``drop=True``)."""
    if callable(drop):
        return drop
    if drop:
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function "
                      "call on compilation. Use torch.jit.unused now. {}", FutureWarning,
                      stacklevel=2)
    return lambda function: function


def unused(fn):
    """``@unused``: the function unchanged."""
    return fn


export = unused


def is_scripting():
    """False: ember never runs TorchScript."""
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


def Attribute(value, type):  # noqa: N802  (torch's name)
    return value


def save(m, f, _extra_files=None):
    raise NotImplementedError("ember cannot write TorchScript archives: save the state_dict "
                              "with torch.save instead")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise NotImplementedError("ember cannot read TorchScript archives")
