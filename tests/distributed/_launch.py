"""Run a worker script under ``mpiexec -n N`` with a hard timeout (never hangs a test run)."""
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKERS = Path(__file__).resolve().parent / "workers"


def mpiexec():
    """The venv's mpiexec (from the mpich wheel), else one on PATH; skips when there is none."""
    pytest.importorskip("mpi4py")
    local = Path(sys.executable).parent / "mpiexec"
    found = str(local) if local.exists() else shutil.which("mpiexec")
    if found is None:
        pytest.skip("no mpiexec: pip install 'ember[distributed]'")
    return found


def run_command(cmd, timeout=120, env=None, cwd=ROOT, what=None):
    """Run ``cmd`` (an mpiexec line) with this checkout on PYTHONPATH and a hard timeout; the
    whole process group is killed on timeout. Returns (returncode, stdout, stderr)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=full_env, start_new_session=True, cwd=str(cwd))
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(f"{what or ' '.join(cmd)} hung for {timeout}s\n{out}\n{err}")
    return proc.returncode, out, err


def run_mpi(worker, n=2, args=(), timeout=120, env=None):
    """Run ``workers/<worker>`` on n ranks; returns (returncode, stdout, stderr)."""
    cmd = [mpiexec(), "-n", str(n), sys.executable, str(WORKERS / worker), *map(str, args)]
    return run_command(cmd, timeout, env, what=f"mpiexec -n {n} {worker}")


def assert_all_passed(worker, n=2, args=(), timeout=120):
    """Every rank must print 'PASS <rank>' and mpiexec must exit 0."""
    code, out, err = run_mpi(worker, n, args, timeout)
    assert code == 0, f"mpiexec exited {code}\nstdout:\n{out}\nstderr:\n{err}"
    for rank in range(n):
        assert f"PASS {rank}" in out, f"rank {rank} did not pass\nstdout:\n{out}\nstderr:\n{err}"
    return out
