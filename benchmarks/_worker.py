"""One workload in one framework, in this fresh process; prints one JSON line.

    python -m benchmarks._worker WORKLOAD ember|torch [--repeats N] [--profile | --growth]

Only the named framework is imported here, so neither runs where the other's thread pools
(NumPy's OpenBLAS, torch's OpenMP) exist. Timing: warm-up steps (at least 3 and 0.3 s), then
``repeats`` samples of ``inner`` steps each (``inner`` chosen so that a sample lasts ~50 ms);
the median per-step time is reported. Memory: the resident set's high-water mark (VmHWM, reset
through /proc/self/clear_refs once the workload is set up) minus the resident size at that
moment: what the steps add on top of the model, data and optimizer the user already holds
(gradients, optimizer state, activations, temporaries, allocator slack), for both frameworks
measured the same way by the kernel. tracemalloc would see only NumPy's allocations, not
torch's. ``--profile`` runs cProfile over the timed steps instead and reports the split by
function (see _profile.py); ``--growth`` reports the resident size growth over many steps.
"""
import argparse
import gc
import importlib
import json
import os
import statistics
import sys
import time

from .workloads import BY_NAME


def _status(key):
    """A /proc/self/status field in bytes, or None off Linux."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _reset_peak():
    """Reset VmHWM to the current resident size; False where the kernel does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _time(step, repeats, warm_seconds=0.3, sample_seconds=0.05):
    """Warm up (at least 3 steps and ``warm_seconds``), then ``repeats`` timed samples."""
    start, warm = time.perf_counter(), []
    while len(warm) < 3 or time.perf_counter() - start < warm_seconds:
        t0 = time.perf_counter()
        step()
        warm.append(time.perf_counter() - t0)
    inner = max(1, round(sample_seconds / min(warm[1:])))  # the first step pays lazy set-up
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            step()
        samples.append((time.perf_counter() - t0) / inner)
    return samples, inner


def _environment(lib):
    env = {"framework": lib.__name__, "version": getattr(lib, "__version__", "?"),
           "python": sys.version.split()[0], "cpus": os.cpu_count()}
    if hasattr(lib, "get_num_threads"):
        env["threads"] = lib.get_num_threads()
    if lib.__name__ == "ember":
        import numpy as np
        blas = np.show_config(mode="dicts").get("Build Dependencies", {}).get("blas", {})
        env["numpy"] = np.__version__
        env["blas"] = f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    return env


def measure(name, framework, repeats):
    lib = importlib.import_module(framework)
    step = BY_NAME[name].setup(lib)
    gc.collect()
    base = _status("VmRSS")
    peak_ok = _reset_peak()
    samples, inner = _time(step, repeats)
    peak = _status("VmHWM") - base if peak_ok and base is not None else None
    return {"median": statistics.median(samples), "samples": samples, "inner": inner,
            "peak_bytes": peak, "env": _environment(lib)}


def growth(name, framework, after):
    """Resident size after ``after`` steps minus after the first tenth of them."""
    step = BY_NAME[name].setup(importlib.import_module(framework))
    for _ in range(after // 10):
        step()
    rss = _status("VmRSS")
    for _ in range(after - after // 10):
        step()
    return {"growth_bytes": _status("VmRSS") - rss}


def profile(name, framework, repeats):
    from ._profile import run_profiled
    step = BY_NAME[name].setup(importlib.import_module(framework))
    _, inner = _time(step, 1)
    return run_profiled(step, max(3, repeats * inner))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("workload", choices=sorted(BY_NAME))
    parser.add_argument("framework", choices=["ember", "torch"])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--steps", type=int, default=10000, help="--growth: steps in all")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--profile", action="store_true")
    mode.add_argument("--growth", action="store_true")
    args = parser.parse_args(argv)
    if args.profile:
        result = profile(args.workload, args.framework, args.repeats)
    elif args.growth:
        result = growth(args.workload, args.framework, args.steps)
    else:
        result = measure(args.workload, args.framework, args.repeats)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
