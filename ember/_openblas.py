"""How long NumPy's OpenBLAS worker threads spin after a GEMM: set before NumPy loads.

OpenBLAS keeps each worker thread busy-waiting for the next BLAS call for THREAD_TIMEOUT clock
cycles after its part of a multi-threaded GEMM (2**28 by default, ~0.13 s at this machine's
2 GHz clock) before it sleeps. Measured on the 2-core machine, after one 256x256 GEMM the
process went on using 27-49% of a core during sleeps of 2-200 ms; with the timeout 2**4 cycles,
0-2%. That spinning worker takes the second core away from ember's element-wise split
(``ops/_parallel.py``) and from everything else on the machine.

OpenBLAS reads the ``OPENBLAS_THREAD_TIMEOUT`` environment variable (log2 of the cycles, 4..30)
once, when the library loads, and has no call to change it later. So this module, imported by
``ember/__init__.py`` before anything that loads NumPy, sets it for NumPy's import when NumPy is
not loaded yet and the user has not set it, and removes it again afterwards (child processes
see the user's environment unchanged). ``QUIET`` tells whether NumPy's BLAS threads sleep
promptly: False when NumPy was imported before ember (its threads spin as started; ember keeps
element-wise passes on one thread then, see ``_parallel``) or the user chose a longer timeout.
"""
import os
import sys

VARIABLE = "OPENBLAS_THREAD_TIMEOUT"
TIMEOUT = 16  # 2**16 cycles, ~33 us at 2 GHz: back-to-back GEMMs still find the threads awake
# element-wise passes split over threads only when asked (EMBER_NUM_THREADS >= 2): the A/B on
# the shared 2-core machine could not show a gain (see _parallel); the timeout is set only then
SPLIT_BY_DEFAULT = False


def split_wanted():
    """Whether element-wise passes will run on several threads from the start (the variable's
    errors are reported by ``_parallel``, which reads it for the thread count)."""
    value = os.environ.get("EMBER_NUM_THREADS", "").strip()
    if not value:
        return SPLIT_BY_DEFAULT
    return value.isdigit() and int(value) >= 2


def _configure():
    """True when NumPy loads (or loaded) with OpenBLAS's timeout at most ``TIMEOUT``."""
    chosen = os.environ.get(VARIABLE, "").strip()
    if chosen:  # the user's choice, read by OpenBLAS whenever NumPy loaded
        return chosen.isdigit() and int(chosen) <= TIMEOUT
    if "numpy" in sys.modules or not split_wanted():
        return False
    os.environ[VARIABLE] = str(TIMEOUT)
    try:
        import numpy  # noqa: F401  (loads OpenBLAS, which reads the variable now)
    finally:
        os.environ.pop(VARIABLE, None)
    return True


QUIET = _configure()
