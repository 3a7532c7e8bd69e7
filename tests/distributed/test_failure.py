"""A rank that raises, dies, hangs or leaves early makes the job fail with a clear error in bounded time."""
import time

import pytest

from ._launch import run_mpi


@pytest.mark.parametrize("mode, message", [
    ("raise", "rank 1 raised RuntimeError; aborting all 2 ranks"),
    ("kill", "BAD TERMINATION"),
    ("hang", "all_reduce on rank 0 timed out after 3s"),
    ("exit", "all_reduce on rank 0 timed out after 3s"),
])
def test_failed_rank_ends_the_job(mode, message):
    start = time.monotonic()
    code, out, err = run_mpi("failure.py", n=2, args=[mode], timeout=60)
    elapsed = time.monotonic() - start
    assert code != 0, f"the job succeeded although rank 1 {mode}ed\n{out}\n{err}"
    assert "UNREACHABLE" not in out
    assert message in out + err, f"{message!r} missing\nstdout:\n{out}\nstderr:\n{err}"
    assert elapsed < 45, f"took {elapsed:.0f}s to fail"
