"""OpenBLAS's spin timeout (ember/_openblas.py): set for NumPy's import only when element-wise
passes will be split and NumPy is not loaded yet, never left in the environment, the user's own
value kept; measured by the CPU time OpenBLAS's idle threads burn after a GEMM."""
import json
import os
import subprocess
import sys

import pytest

# CPU time of the whole process (OpenBLAS's worker threads included) while the caller sleeps
# right after multi-threaded GEMMs: their spinning shows up as CPU time of a sleeping process
PROBE = """
import json, os, sys, time
{first}
import ember, numpy as np
a = np.ones((256, 256), dtype=np.float32)
busy = wall = 0.0
for _ in range(5):
    a @ a
    c, w = time.process_time(), time.perf_counter()
    time.sleep(0.02)
    busy += time.process_time() - c
    wall += time.perf_counter() - w
print(json.dumps({{"quiet": ember._openblas.QUIET, "threads": ember.get_num_threads(),
                  "variable": os.environ.get("OPENBLAS_THREAD_TIMEOUT"), "busy": busy / wall}}))
"""


def _probe(first="", **env):
    environ = {k: v for k, v in os.environ.items()
               if k not in ("EMBER_NUM_THREADS", "OPENBLAS_THREAD_TIMEOUT",
                            "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    environ.update(env)
    out = subprocess.run([sys.executable, "-c", PROBE.format(first=first)], env=environ,
                         capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout)


def _two_cpus():
    return len(os.sched_getaffinity(0)) >= 2 if hasattr(os, "sched_getaffinity") else False


def test_by_default_nothing_is_set():
    result = _probe()
    assert (result["quiet"], result["threads"], result["variable"]) == (False, 1, None)


def test_a_split_asked_for_sets_the_timeout_for_numpys_import_only():
    result = _probe(EMBER_NUM_THREADS="2")
    assert (result["quiet"], result["threads"], result["variable"]) == (True, 2, None)


@pytest.mark.skipif(not _two_cpus(), reason="OpenBLAS runs GEMMs on one thread here")
def test_the_timeout_stops_the_idle_spinning():
    # the default timeout (2**28 cycles) spins through a 20 ms sleep; 2**16 cycles do not.
    # Compared, not thresholded alone: on a busy machine the spinning thread gets less CPU
    spinning = _probe(OPENBLAS_THREAD_TIMEOUT="28")["busy"]
    quiet = _probe(EMBER_NUM_THREADS="2")["busy"]
    assert quiet < 0.05
    assert spinning > quiet


def test_numpy_imported_first_is_left_as_it_loaded():
    result = _probe(first="import numpy", EMBER_NUM_THREADS="2")
    assert (result["quiet"], result["variable"]) == (False, None)
    assert result["threads"] == 2  # asked for explicitly: honoured


@pytest.mark.parametrize("value,quiet", [("10", True), ("28", False)])
def test_the_users_timeout_is_kept(value, quiet):
    result = _probe(EMBER_NUM_THREADS="2", OPENBLAS_THREAD_TIMEOUT=value)
    assert (result["quiet"], result["variable"]) == (quiet, value)
