"""DataLoader worker processes dying, or outliving their parent, while 4 MB batches are in flight:
the loop raises torch's error instead of hanging, and orphaned workers exit. Each scenario runs in
a subprocess with a time limit, so a hang fails the test instead of stalling the suite."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))))

_PRELUDE = """
import os, signal, sys, time
if sys.argv[1] == "torch":
    import torch
    from torch.utils.data import DataLoader, Dataset
else:
    import ember as torch
    from ember.utils.data import DataLoader, Dataset

class Big(Dataset):  # 4 MB samples: a batch is far larger than a pipe's buffer
    def __len__(self):
        return 64

    def __getitem__(self, i):
        return torch.full((1 << 20,), float(i))

it = iter(DataLoader(Big(), batch_size=1, num_workers=2))
assert next(it)[0, 0].item() == 0.0
time.sleep(1.0)  # both workers are now blocked sending their next batches
"""

_REPORT = """
try:
    for batch in it:
        pass
    print("no error")
except RuntimeError as error:
    print(type(error.__cause__).__name__)
    print(str(error).replace(str(pid), "PID"))
    print(str(error.__cause__).replace(str(pid), "PID"))
"""

_KILL_WORKER = _PRELUDE + """
pid = it._workers[0].pid
os.kill(pid, signal.SIGKILL)
""" + _REPORT

_WORKER_KILLS_ITSELF = """
import os, signal, sys
if sys.argv[1] == "torch":
    import torch
    from torch.utils.data import DataLoader, Dataset
else:
    import ember as torch
    from ember.utils.data import DataLoader, Dataset

class Dies(Dataset):
    def __len__(self):
        return 20

    def __getitem__(self, i):
        if i == 5:
            os.kill(os.getpid(), signal.SIGKILL)
        return torch.zeros(3)

it = iter(DataLoader(Dies(), batch_size=2, num_workers=2))
pid = it._workers[0].pid
""" + _REPORT

_EXPECTED = ["RuntimeError", "DataLoader worker (pid(s) PID) exited unexpectedly",
             "DataLoader worker (pid PID) is killed by signal: Killed. "]


def _run(code, framework, timeout=120):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), framework],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=ROOT))


@pytest.mark.parametrize("framework", ["torch", "ember"])
def test_a_killed_worker_raises_torchs_error(framework):
    """The oracle: torch's message, and the signal's name as its cause."""
    done = _run(_WORKER_KILLS_ITSELF, framework)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == _EXPECTED


@pytest.mark.parametrize("trial", range(3))
def test_worker_killed_while_sending_a_large_batch_raises_instead_of_hanging(trial):
    done = _run(_KILL_WORKER, "ember")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == _EXPECTED


_ORPHAN = _PRELUDE + """
print(" ".join(str(w.pid) for w in it._workers), flush=True)
time.sleep(600)
"""


def _gone(pid):
    """True once ``pid`` has exited (a zombie waiting for its new parent counts as exited)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
@pytest.mark.parametrize("trial", range(2))
def test_workers_exit_when_the_main_process_is_killed_with_a_batch_pending(trial):
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(_ORPHAN), "ember"],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=ROOT))
    pids = []
    try:
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30  # torch's workers are gone within 20 s
        while not all(_gone(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert all(_gone(p) for p in pids)
    finally:
        proc.kill()
        proc.stdout.close()
        for pid in pids:
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)


class _Unpicklable:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return lambda: i  # a worker cannot send this back


def test_a_batch_that_cannot_be_sent_raises_instead_of_hanging():
    import ember.utils.data as edata
    loader = edata.DataLoader(_Unpicklable(), batch_size=None, num_workers=1, timeout=60)
    with pytest.raises(Exception, match="Caught .* sending a batch from DataLoader worker "
                                        "process 0") as info:
        next(iter(loader))
    assert "pickle" in str(info.value)
