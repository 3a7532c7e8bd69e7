"""ember.autograd.profiler: profile, record_function and the event lists they fill, as
torch.autograd.profiler (written in ember/autograd/_profiling.py; torch.profiler builds on it)."""
from ._profiling import (  # noqa: F401
    EventList,
    FunctionEvent,
    FunctionEventAvg,
    emit_nvtx,
    profile,
    record_function,
)

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "emit_nvtx", "profile",
           "record_function"]
