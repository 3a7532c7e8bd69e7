"""torch.compiler: ember has no compiler (torch.compile runs the model eagerly, as torch's
``backend="eager"``), so nothing is ever being compiled or exported and the decorators that steer
a compiler hand back what they were given."""
from ._compile import compile  # noqa: F401  (torch.compiler.compile is torch.compile)

__all__ = ["compile", "is_compiling", "is_dynamo_compiling", "is_exporting", "disable", "reset",
           "allow_in_graph", "assume_constant_result", "list_backends"]


def is_compiling():
    """False: ember's torch.compile runs the model as written."""
    return False


def is_dynamo_compiling():
    return False


def is_exporting():
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """Keep ``fn`` out of compilation: it already is (as a decorator, with or without args)."""
    if fn is None:
        return lambda f: f
    return fn


def reset():
    """Clear compilation caches: ember keeps none."""


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def list_backends(exclude_tags=("debug", "experimental")):
    """The backends torch.compile accepts here: ember runs every one as "eager"."""
    return ["eager"]
