"""torch.compile: ember has no compiler, so compiling runs the model as written (torch's
``backend="eager"``), with torch's wrapping: a module comes back as an ``OptimizedModule``
holding it as ``_orig_mod`` (so its state_dict keys carry the ``_orig_mod.`` prefix that
scripts such as nanoGPT strip when they load), a function comes back as a function."""
import functools

from .nn.modules.module import Module


class OptimizedModule(Module):
    """A compiled module: calls, parameters and attributes are the original module's."""

    def __init__(self, mod):
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.__dict__["_modules"]["_orig_mod"], name)


def _compiled(model):
    if isinstance(model, Module):
        return OptimizedModule(model)
    if not callable(model):
        raise RuntimeError(f"compile: expected a callable or a Module, got "
                           f"{type(model).__name__}")

    @functools.wraps(model)
    def run(*args, **kwargs):
        return model(*args, **kwargs)
    return run


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None,
            options=None, name=None, disable=False, **kwargs):
    """Compile ``model`` (a module or function); without it, a decorator that does."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if model is None:
        return _compiled
    return _compiled(model)
