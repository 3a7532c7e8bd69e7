"""The default process group (ember/distributed/_group.py): errors before initialization and for
unsupported backends (gloo's own tests: test_gloo.py), the install hint without mpi4py, and a one-rank world (MPI's singleton
start, in a child process): rank, size, backend, repr, argument checks, destroy."""
import subprocess
import sys

import pytest

import ember.distributed as dist

from ._launch import ROOT


def test_uninitialized_group_errors():
    assert not dist.is_initialized()
    for fn in (dist.get_rank, dist.get_world_size, dist.barrier):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            fn()


def test_unsupported_backends():
    with pytest.raises(RuntimeError, match="^Distributed package doesn't have NCCL built in$"):
        dist.init_process_group("nccl")  # torch's CPU build says the same
    with pytest.raises(ValueError, match="supports the 'gloo' and 'mpi' backends, got 'ucc'"):
        dist.init_process_group("ucc")
    assert not dist.is_initialized()


@pytest.mark.parametrize("device", ["cpu", "cuda", "cuda:1", "mps", "xpu", "meta", "foo", None,
                                    "device('cpu')", "device('cuda', 0)"])
def test_default_backend_for_device_as_torch(device):
    # pytorch/examples' ddp example asks for it
    import torch
    import torch.distributed as tdist

    import ember
    caught = []
    for lib, module in ((torch, tdist), (ember, dist)):
        arg = eval(f"lib.{device}") if device and device.startswith("device") else device
        try:
            caught.append(module.get_default_backend_for_device(arg))
        except Exception as error:  # noqa: BLE001  (the type and the message's start compared)
            caught.append((type(error), str(error).split(" - ")[0].replace("torch.", "ember.")))
    assert caught[1] == caught[0]


def test_missing_mpi4py_gives_install_hint():
    code = ("import sys; sys.modules['mpi4py'] = None\n"
            "import ember.distributed as dist\n"
            "assert not dist.is_available() or True\n"
            "try:\n    dist.init_process_group('mpi')\n"
            "except ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=str(ROOT), timeout=60)
    assert "pip install 'ember[distributed]'" in out.stdout, out.stderr


_SINGLETON = """
import datetime
import ember.distributed as dist

def error(fn):
    try:
        fn()
    except Exception as e:
        return type(e).__name__ + ': ' + str(e)

assert error(lambda: dist.init_process_group('mpi', world_size=2)) == (
    "ValueError: init_process_group: world_size=2 does not match mpiexec's world_size 1")
assert error(lambda: dist.init_process_group('mpi', timeout='soon')).startswith(
    'TypeError: timeout must be a datetime.timedelta, got str')
assert error(lambda: dist.init_process_group('mpi', init_method='tcp://h:1')).startswith(
    "ValueError: init_method 'tcp://h:1' is not supported")
assert not dist.is_initialized()
dist.init_process_group('mpi', timeout=datetime.timedelta(seconds=30))
assert dist.is_initialized() and dist.group.WORLD is not None
assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, 'mpi')
assert repr(dist.group.WORLD) == '<ProcessGroup mpi rank=0 size=1>'
assert dist.get_rank(dist.group.WORLD) == 0
assert error(lambda: dist.get_rank(group='other')).startswith(
    'ValueError: ember.distributed supports only the default process group')
assert error(lambda: dist.init_process_group('mpi')) == (
    'ValueError: trying to initialize the default process group twice!')
dist.destroy_process_group()
assert not dist.is_initialized() and dist.group.WORLD is None
print('ok')
"""


def test_one_rank_world_without_mpiexec():
    done = subprocess.run([sys.executable, "-c", _SINGLETON], capture_output=True, text=True,
                          cwd=str(ROOT), timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
