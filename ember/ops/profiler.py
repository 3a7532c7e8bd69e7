"""torch.ops.profiler: record_function as the operator pair code can call (and torch.fx can
record): _record_function_enter opens a profiler range and returns it, _record_function_exit
closes it."""
from ember.autograd._profiling import record_function


def _record_function_enter(name, args=None):
    """Open a range named name in the running profiles; the handle _record_function_exit takes."""
    handle = record_function(name, args)
    handle.__enter__()
    return handle


def _record_function_exit(handle):
    handle.__exit__(None, None, None)


# a recorded call of these is kept by Graph.eliminate_dead_code, as torch keeps them
_record_function_enter._fx_side_effectful = _record_function_exit._fx_side_effectful = True
