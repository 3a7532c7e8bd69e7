"""Where a workload's time goes: cProfile over its steps, split by ember (and workload) function.

Time spent in NumPy or the standard library is charged to the ember function that called it,
so each entry reads "this op, with the array work it asked for". Self time of a function that
NumPy or the standard library calls back (a context manager's generator) is subtracted from
that caller once; deeper call-backs are rare and not corrected.
"""
import cProfile
import os
import pstats
import time

_OWN = (os.sep + "ember" + os.sep, os.sep + "benchmarks" + os.sep)


def _own(filename):
    return any(part in filename for part in _OWN)


def _label(func):
    filename, lineno, name = func
    path = filename
    for part in _OWN:
        if part in filename:
            path = part.strip(os.sep) + "/" + filename.split(part, 1)[1]
    owner = _enclosing_class(filename, lineno)
    return f"{path}:{owner + '.' if owner else ''}{name}"


def _enclosing_class(filename, lineno):
    """The class whose body holds the ``def`` at ``lineno`` (by indentation), or ''."""
    try:
        with open(filename) as f:
            lines = f.readlines()
    except OSError:
        return ""
    if not 0 < lineno <= len(lines):
        return ""
    indent = len(lines[lineno - 1]) - len(lines[lineno - 1].lstrip())
    for line in reversed(lines[:lineno - 1]):
        stripped = line.lstrip()
        if stripped and len(line) - len(stripped) < indent:
            if stripped.startswith("class "):
                return stripped[6:].split("(")[0].split(":")[0].strip()
            if stripped.startswith("def "):
                indent = len(line) - len(stripped)
    return ""


def split(stats):
    """{own function: seconds}, charging each foreign function's time to its own callers."""
    charged = {}
    for func, (_, _, self_time, _, callers) in stats.items():
        if _own(func[0]):
            charged[func] = charged.get(func, 0.0) + self_time
            continue
        called_back = sum(stats[g][4][func][3] for g in stats if _own(g[0])
                          and func in stats[g][4])
        total = sum(entry[3] for entry in callers.values()) or 1.0
        for caller, entry in callers.items():
            if _own(caller[0]):
                share = entry[3] * (1 - called_back / total)
                charged[caller] = charged.get(caller, 0.0) + share
    return charged


def run_profiled(step, n, top=12):
    """Profile ``n`` calls of ``step``; the heaviest functions and modules, per step."""
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    for _ in range(n):
        step()
    profiler.disable()
    wall = (time.perf_counter() - start) / n
    charged = split(pstats.Stats(profiler).stats)
    total = sum(charged.values()) or 1.0
    by_module = {}
    for func, seconds in charged.items():
        module = _label(func).split(":")[0]
        by_module[module] = by_module.get(module, 0.0) + seconds
    rows = sorted(((_label(f), s) for f, s in charged.items()), key=lambda r: -r[1])
    return {"per_step": wall, "profiled_total": total / n,
            "functions": [(name, s / n, s / total) for name, s in rows[:top]],
            "modules": [(name, s / n, s / total) for name, s in
                        sorted(by_module.items(), key=lambda r: -r[1])[:top]]}
