"""torch.multiprocessing: Python's multiprocessing, with tensors that processes can share.

Everything of the standard module is here (Process, Queue, Pool, get_context, set_start_method,
...). ``Tensor.share_memory_()`` (and ``Module.share_memory()``) move a tensor's array into
shared memory: a forked child writes the same memory (Hogwild training), and pickling a shared
tensor to another process (a spawned child's arguments, a Queue) passes the memory, not a copy.
A tensor that was never shared is copied when pickled, as any NumPy array.
"""
import multiprocessing as _mp
from multiprocessing import *  # noqa: F401, F403  (torch.multiprocessing re-exports it all)

from ._shared import is_shared, share_array  # noqa: F401
from .spawn import (  # noqa: F401
    ProcessContext,
    ProcessExitedException,
    ProcessRaisedException,
    spawn,
    start_processes,
)

__all__ = list(_mp.__all__) + ["spawn", "start_processes", "ProcessContext",
                               "ProcessRaisedException", "ProcessExitedException",
                               "set_sharing_strategy", "get_sharing_strategy",
                               "get_all_sharing_strategies"]

_STRATEGIES = {"file_descriptor", "file_system"}
_strategy = "file_descriptor"


def get_all_sharing_strategies():
    return set(_STRATEGIES)


def get_sharing_strategy():
    return _strategy


def set_sharing_strategy(new_strategy):
    """Accepted as torch takes it (both strategies pass memory the same way here)."""
    global _strategy
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f"sharing strategy {new_strategy!r} is not one of "
                             f"{sorted(_STRATEGIES)}")
    _strategy = new_strategy
