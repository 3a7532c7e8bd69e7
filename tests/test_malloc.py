"""ember._malloc: after ``import ember`` freed array memory stays in the heap, so a loop that
allocates and frees the same large temporaries does not page-fault them back in each time."""
import os
import subprocess
import sys

import pytest

LOOP = """
import resource, sys
import numpy as np
import ember
from ember import _malloc
x = np.ones((512, 1024), np.float32)          # 2 MiB, above glibc's first mmap threshold
def step():                                   # four large temporaries alive at once
    a = x * 2; b = a + x; c = b * a; d = c - b
    return float(d[0, 0])
for _ in range(3):
    step()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    step()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc mallopt")


def _faults(**env):
    clean = {k: v for k, v in os.environ.items()
             if k not in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES",
                          "EMBER_MALLOC_TUNE")}
    out = subprocess.run([sys.executable, "-c", LOOP], env={**clean, **env}, check=True,
                         capture_output=True, text=True).stdout
    return int(out.split()[-1])


def test_tuned_heap_does_not_fault_each_step():
    tuned, untuned = _faults(), _faults(EMBER_MALLOC_TUNE="0")
    # 20 steps x 4 temporaries x 512 pages each would be ~40,000 faults without the heap
    assert untuned > 10_000
    assert tuned < 500


def test_user_settings_are_left_alone(monkeypatch):
    from ember import _malloc
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "1000")
    assert _malloc.tune() is False
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_")
    monkeypatch.setenv("EMBER_MALLOC_TUNE", "0")
    assert _malloc.tune() is False
