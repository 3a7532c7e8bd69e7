"""ember.distributed._launch: what mpiexec's environment says, and each rank's BLAS threads."""
import os
import sys

import pytest

from ember.distributed import _launch


def _openblas_threads():
    import ctypes
    import re
    with open("/proc/self/maps") as maps:
        paths = sorted(set(re.findall(r"(/\S*openblas\S*\.so\S*)", maps.read())))
    getters = ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
               "openblas_get_num_threads")
    found = [getattr(lib, n) for lib in map(ctypes.CDLL, paths) for n in getters
             if hasattr(lib, n)]
    return [get() for get in found]


def test_blas_threads_are_shared_between_the_ranks_of_a_machine(monkeypatch):
    """Under mpiexec each rank gets cores // local ranks BLAS threads unless the user set some."""
    if sys.platform != "linux" or not _openblas_threads():
        pytest.skip("NumPy's BLAS is not a (loaded) OpenBLAS on Linux")
    before = _openblas_threads()
    try:
        assert _launch.limit_blas_threads(1) >= 1 and set(_openblas_threads()) == {1}
    finally:
        _launch.limit_blas_threads(before[0])
    assert _openblas_threads() == before
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)))
    monkeypatch.setenv("MPI_LOCALNRANKS", "3")
    assert _launch.threads_per_rank() == 2
    monkeypatch.setenv("MPI_LOCALNRANKS", "16")
    assert _launch.threads_per_rank() == 1




def test_launch_environment_is_read_without_starting_mpi(monkeypatch):
    for name in ("PMI_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
                 "MPI_LOCALNRANKS", "MPI_LOCALRANKID"):
        monkeypatch.delenv(name, raising=False)
    assert (_launch.launched_size(), _launch.launched_rank()) == (1, 0)
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "4")
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "3")
    assert (_launch.launched_size(), _launch.launched_rank()) == (4, 3)
    monkeypatch.setenv("PMI_RANK", "x")  # not a number: ignored
    assert _launch.launched_rank() == 3
