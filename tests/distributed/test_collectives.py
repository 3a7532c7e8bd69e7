"""Collectives under mpiexec, checked against NumPy; errors that need no MPI run in-process."""
import subprocess
import sys

import pytest

import ember.distributed as dist

from ._launch import ROOT, assert_all_passed


@pytest.mark.parametrize("n", [1, 2, 3])
def test_collectives_match_numpy(n):
    assert_all_passed("collectives.py", n=n)


def test_uninitialized_group_errors():
    assert not dist.is_initialized()
    for fn in (dist.get_rank, dist.get_world_size, dist.barrier):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            fn()


def test_only_mpi_backend():
    with pytest.raises(ValueError, match="supports only the 'mpi' backend, got 'nccl'"):
        dist.init_process_group("nccl")
    assert not dist.is_initialized()


def test_reduce_op_members():
    assert [op.name for op in (dist.ReduceOp.SUM, dist.ReduceOp.AVG, dist.ReduceOp.MAX,
                               dist.ReduceOp.MIN)] == ["SUM", "AVG", "MAX", "MIN"]


def test_missing_mpi4py_gives_install_hint():
    code = ("import sys; sys.modules['mpi4py'] = None\n"
            "import ember.distributed as dist\n"
            "assert not dist.is_available() or True\n"
            "try:\n    dist.init_process_group('mpi')\n"
            "except ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=str(ROOT), timeout=60)
    assert "pip install 'ember[distributed]'" in out.stdout, out.stderr
