"""The "gloo" backend (ember/distributed/_gloo.py): processes started by
ember.multiprocessing.spawn join over TCP sockets as torch scripts do; every collective checked
against NumPy, DDP training against single-process training and against torch's own gloo, a
script following PyTorch's DDP tutorial run under ``torch -> ember`` compared with torch, the
env:// and tcp:// rendezvous errors compared with torch's, and failures that raise in bounded
time instead of hanging."""
import os
import socket
import sys
import time
from datetime import timedelta

import numpy as np
import pytest

import ember
import ember.distributed as dist

from ._launch import ROOT, WORKERS, run_command

# A package named ``torch`` that is ember: put first on PYTHONPATH, it makes an unmodified torch
# script (and the processes it spawns) import ember, ``torch.<sub>`` being ``ember.<sub>``.
_ALIAS = '''
import importlib
import importlib.abc
import importlib.util
import sys

import ember


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name.startswith("torch."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("ember" + spec.name[len("torch"):])

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _Alias())
sys.modules["torch"] = ember
'''


def run_gloo(n, *names, timeout=180):
    """workers/gloo.py on n spawned processes; returns (returncode, stdout, stderr)."""
    cmd = [sys.executable, str(WORKERS / "gloo.py"), str(n), *map(str, names)]
    return run_command(cmd, timeout, what=f"gloo.py {n} {' '.join(map(str, names))}")


def assert_all_passed(n, *names):
    code, out, err = run_gloo(n, *names)
    assert code == 0, f"exit {code}\nstdout:\n{out}\nstderr:\n{err}"
    for rank in range(n):
        assert f"PASS {rank}" in out, f"rank {rank} did not pass\nstdout:\n{out}\nstderr:\n{err}"


def run_script(script, tmp_path, under, env=None):
    """A torch script from workers/, run by torch itself or by ember through the alias."""
    env = dict(env or {})
    if under == "ember":
        alias = tmp_path / "alias" / "torch"
        alias.mkdir(parents=True, exist_ok=True)
        (alias / "__init__.py").write_text(_ALIAS)
        env["PYTHONPATH"] = f"{alias.parent}{os.pathsep}{ROOT}"
    code, out, err = run_command([sys.executable, str(WORKERS / script)], 180, env,
                                 what=f"{script} under {under}")
    assert code == 0, f"{script} under {under} exited {code}\nstdout:\n{out}\nstderr:\n{err}"
    return out


def numbers(out, prefix):
    lines = [line[len(prefix):] for line in out.splitlines() if line.startswith(prefix)]
    assert len(lines) == 1, f"expected one line starting {prefix!r}:\n{out}"
    return np.array(lines[0].split(), dtype=np.float64)


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


# -- collectives and DDP over spawned processes ---------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3])
def test_collectives_match_numpy(n):
    """all_reduce (every op and dtype), broadcast, reduce, all_gather(_into_tensor), gather,
    scatter, reduce_scatter(_tensor), async work, send/recv, barrier, argument errors."""
    assert_all_passed(n, "collectives")


def test_collectives_with_fork_start_method():
    assert_all_passed(2, "start=fork", "collectives")


@pytest.mark.parametrize("init", ["env", "tcp"])
def test_torchrun_environment_and_tcp_init_method(init):
    """init=env: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT set as torchrun sets them and
    init_process_group() without arguments; init=tcp: init_method="tcp://localhost:PORT"."""
    assert_all_passed(3, "start=fork", f"init={init}", "collectives")


def test_ddp_scenarios(tmp_path):
    """DDP on 2 ranks: training with each optimizer equals single-process training on the
    global batch; no_sync, construction broadcast, overlap, DataLoader + DistributedSampler,
    unused parameters, mismatched models, checkpoints (workers/ddp.py's scenarios)."""
    assert_all_passed(2, "start=fork", "plain", "sgd", "adam", "sgd-foreach", "adam-fused",
                      "float32", "buckets", "no_sync", "construction", "overlap", "loader",
                      "unused", "unused_error", "mismatch", f"checkpoint={tmp_path / 'ck.pt'}")


def test_ddp_on_three_ranks():
    assert_all_passed(3, "start=fork", "sgd", "no_sync", "construction")


def test_ddp_training_equals_single_process_and_torch_gloo(tmp_path):
    """workers/ddp_mlp.py, a torch script: 5 SGD+momentum steps of an MLP on 2 gloo ranks.
    Under ember its final weights equal the single-process run on the full batch, and the
    losses and weights equal torch's, within float32 rounding."""
    ours = run_script("ddp_mlp.py", tmp_path, "ember")
    theirs = run_script("ddp_mlp.py", tmp_path, "torch")
    np.testing.assert_allclose(numbers(ours, "ddp params "), numbers(ours, "single params "),
                               rtol=2e-6, atol=5e-7)
    np.testing.assert_allclose(numbers(ours, "ddp params "), numbers(theirs, "ddp params "),
                               rtol=2e-6, atol=5e-7)
    for step in range(5):
        prefix = f"ddp step {step} loss "
        np.testing.assert_allclose(numbers(ours, prefix), numbers(theirs, prefix), rtol=1e-6)


def test_tutorial_ddp_script_prints_torch_numbers(tmp_path):
    """workers/ddp_tutorial.py follows PyTorch's DDP tutorial (setup with MASTER_ADDR/PORT,
    init_process_group("gloo"), DDP(model), one SGD step, cleanup), started by mp.spawn."""
    ours = run_script("ddp_tutorial.py", tmp_path, "ember", {"DEMO_PORT": str(free_port())})
    theirs = run_script("ddp_tutorial.py", tmp_path, "torch", {"DEMO_PORT": str(free_port())})
    for rank in range(2):
        assert f"Finished running basic DDP example on rank {rank}." in ours, ours
        prefix = f"rank {rank} loss "
        np.testing.assert_allclose(numbers(ours, prefix), numbers(theirs, prefix), rtol=1e-6)
    np.testing.assert_allclose(numbers(ours, "params "), numbers(theirs, "params "),
                               rtol=1e-6, atol=1e-7)


# -- rendezvous: errors as torch's, env:// and tcp:// in a one-rank world ----------------------


_RENDEZVOUS_VARS = ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE")


@pytest.mark.parametrize("env, kwargs", [
    ({}, {}),
    ({}, {"rank": 0}),
    ({}, {"world_size": 2}),
    ({}, {"rank": 0, "world_size": 2}),
    ({"MASTER_ADDR": "localhost"}, {"rank": 0, "world_size": 2}),
    ({"RANK": "0", "WORLD_SIZE": "2"}, {}),
    ({}, {"init_method": "tcp://localhost:1"}),
    ({}, {"init_method": "tcp://localhost:1", "rank": 0}),
    ({}, {"init_method": "foo://x", "rank": 0, "world_size": 1}),
])
def test_rendezvous_errors_as_torch(monkeypatch, env, kwargs):
    torch_dist = pytest.importorskip("torch.distributed")
    for name in _RENDEZVOUS_VARS:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(Exception) as theirs:
        torch_dist.init_process_group("gloo", **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        dist.init_process_group("gloo", **kwargs)
    assert str(ours.value) == str(theirs.value)
    assert not dist.is_initialized()


def test_env_and_tcp_init_in_a_one_rank_world(monkeypatch):
    """torchrun's environment alone (backend chosen as gloo outside mpiexec), then tcp://
    on the same port once destroy_process_group has closed the socket."""
    port = free_port()
    for name, value in {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "localhost",
                        "MASTER_PORT": str(port)}.items():
        monkeypatch.setenv(name, value)
    assert dist.is_available() and dist.is_gloo_available() and not dist.is_nccl_available()
    dist.init_process_group()
    try:
        assert (dist.get_backend(), dist.get_rank(), dist.get_world_size()) == ("gloo", 0, 1)
        assert repr(dist.group.WORLD) == "<ProcessGroup gloo rank=0 size=1>"
        t = ember.tensor([1.0, 2.0])
        dist.all_reduce(t)
        dist.barrier()
        assert t.tolist() == [1.0, 2.0]
        with pytest.raises(ValueError, match="twice"):
            dist.init_process_group("gloo")
        with pytest.raises(ValueError, match="^Invalid destination rank: destination rank "
                                             "should not be the same as the rank of the current "
                                             "process.$"):
            dist.send(t, 0)
        with pytest.raises(RuntimeError, match="a process cannot receive from itself"):
            dist.recv(t, 0)
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()
    for name in _RENDEZVOUS_VARS:
        monkeypatch.delenv(name)
    dist.init_process_group("gloo", init_method=f"tcp://localhost:{port}", rank=0, world_size=1)
    try:
        assert dist.get_backend() == "gloo"
    finally:
        dist.destroy_process_group()


# -- failures raise, in bounded time ----------------------------------------------------------


def test_rank_zero_alone_times_out():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"timed out after 1s waiting for the other ranks: "
                                           r"1/2 joined"):
        dist.init_process_group("gloo", init_method=f"tcp://localhost:{free_port()}", rank=0,
                                world_size=2, timeout=timedelta(seconds=1))
    assert time.monotonic() - start < 10 and not dist.is_initialized()


def test_rank_without_rank_zero_times_out():
    with pytest.raises(RuntimeError, match=r"could not connect to rank 0 .*localhost:\d+"):
        dist.init_process_group("gloo", init_method=f"tcp://localhost:{free_port()}", rank=1,
                                world_size=2, timeout=timedelta(seconds=1))
    assert not dist.is_initialized()


def test_port_in_use():
    with socket.create_server(("", 0)) as busy:
        port = busy.getsockname()[1]
        with pytest.raises(RuntimeError, match=f"rank 0 could not listen on port {port}"):
            dist.init_process_group("gloo", init_method=f"tcp://localhost:{port}", rank=0,
                                    world_size=1)
    assert not dist.is_initialized()


@pytest.mark.parametrize("mode, message", [
    ("hang", "all_reduce on rank 0 timed out after 2s waiting for rank 1"),
    ("exit", "all_reduce on rank 0 lost the connection to rank 1"),
])
def test_failed_rank_raises_instead_of_hanging(mode, message):
    start = time.monotonic()
    code, out, err = run_gloo(2, "start=fork", "timeout=2", mode, timeout=60)
    assert code != 0 and "UNREACHABLE" not in out, f"{out}\n{err}"
    assert message in err, f"{message!r} missing\nstdout:\n{out}\nstderr:\n{err}"
    assert time.monotonic() - start < 30
