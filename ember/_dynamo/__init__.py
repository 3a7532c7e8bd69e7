"""torch._dynamo, the names scripts reach for around torch.compile (reset, config, disable,
mark_dynamic, ...): ember has no compiler (torch.compiler), so each leaves the code as written."""
from ..compiler import (  # noqa: F401  (torch._dynamo re-exports them)
    allow_in_graph,
    assume_constant_result,
    disable,
    is_compiling,
    reset,
)
from . import config  # noqa: F401  (torch._dynamo.config)

__all__ = ["reset", "config", "disable", "optimize", "mark_dynamic", "maybe_mark_dynamic",
           "mark_static", "allow_in_graph", "disallow_in_graph", "is_compiling", "graph_break",
           "assume_constant_result", "run"]


def optimize(backend="inductor", *, nopython=False, guard_export_fn=None, guard_fail_fn=None,
             disable=False, dynamic=None):
    """The legacy torch._dynamo.optimize(...) decorator: the function as written."""
    return lambda fn: fn


def run(fn=None):
    """Run ``fn`` without compiling it (as a decorator too)."""
    return (lambda f: f) if fn is None else fn


def mark_dynamic(t, index, *, min=None, max=None):
    """A hint for a compiler's shape guards: nothing to record without one."""


def maybe_mark_dynamic(t, index):
    """As mark_dynamic."""


def mark_static(t, index=None):
    """As mark_dynamic."""


def disallow_in_graph(fn):
    return fn


def graph_break():
    """A compiler's graph break: nothing to break here."""


