"""Keep freed array memory in the process heap (glibc) instead of giving it back to the kernel.

Every op allocates fresh NumPy arrays; arrays above glibc's mmap threshold (128 KiB at start,
raised dynamically only up to the largest block freed so far) are mapped and unmapped each time,
and a block freed at the heap's top beyond the trim threshold is returned to the kernel. The
next step then page-faults all of that memory back in: measured on the GPT training step
(benchmarks/models.py), about 10,000 page faults per step (40 MB touched afresh), 10% of the
step's CPU time and more of its wall time in a virtual machine. torch's kernels allocate fewer
temporaries and page-fault about 30 times less on the same step.

``tune()`` fixes both thresholds through glibc's ``mallopt`` (ctypes, no compiled code): blocks
below ``MMAP_THRESHOLD`` come from the heap and up to ``TRIM_THRESHOLD`` of free memory stays
there for the next step. The resident high-water mark does not grow (the step's peak is the
same); freed memory is held instead of returned, up to the trim threshold. Nothing is done off
glibc, or where the user set glibc's own variables (MALLOC_MMAP_THRESHOLD_,
MALLOC_TRIM_THRESHOLD_, GLIBC_TUNABLES), or with ``EMBER_MALLOC_TUNE=0``.
"""
import os
import sys

MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's own ceiling for the dynamic threshold
TRIM_THRESHOLD = 128 * 1024 * 1024
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # <malloc.h>
_USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")


def tune():
    """Set the thresholds; True where they were set, False where skipped or refused."""
    if os.environ.get("EMBER_MALLOC_TUNE", "1") == "0" or not sys.platform.startswith("linux"):
        return False
    if any(name in os.environ for name in _USER_SETTINGS):
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # noqa: B018  (AttributeError off glibc, e.g. musl)
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and \
        bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
