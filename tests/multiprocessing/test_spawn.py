"""spawn / start_processes: fn(i, *args) in nprocs processes; failures raised as torch does."""
import multiprocessing
import os

import pytest
import torch.multiprocessing as tmp

import ember
import ember.multiprocessing as emp


def _record(i, t):
    t[i] = i + 1


def _fail(i):
    raise ValueError(f"boom {i}")


def _exit(i):
    os._exit(3)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_spawn_runs_each_rank(method):
    t = ember.zeros(3).share_memory_()
    assert emp.spawn(_record, args=(t,), nprocs=3, start_method=method) is None
    assert t.tolist() == [1.0, 2.0, 3.0]


def test_join_false_returns_the_context():
    t = ember.zeros(2).share_memory_()
    context = emp.spawn(_record, args=(t,), nprocs=2, join=False, start_method="fork")
    assert isinstance(context, emp.ProcessContext) and len(context.pids()) == 2
    while not context.join():
        pass
    assert t.tolist() == [1.0, 2.0]


def test_a_raising_process_raises_with_its_traceback():
    for lib in (tmp, emp):
        with pytest.raises(lib.ProcessRaisedException) as info:
            lib.spawn(_fail, nprocs=1)
        assert "-- Process 0 terminated with the following error:" in str(info.value)
        assert "ValueError: boom 0" in str(info.value)


def test_an_exiting_process_raises_with_its_code():
    with pytest.raises(emp.ProcessExitedException, match="process 0 terminated with exit "
                                                          "code 3") as info:
        emp.spawn(_exit, nprocs=1, start_method="fork")
    assert info.value.exit_code == 3


def test_names_as_torch():
    for name in ("spawn", "start_processes", "ProcessContext", "ProcessRaisedException",
                 "ProcessExitedException"):
        assert hasattr(tmp, name) and hasattr(emp, name)
    assert emp.Process is multiprocessing.Process
