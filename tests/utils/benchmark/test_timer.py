"""Timer (ember/utils/benchmark/_timer.py): runs the statement (``torch`` naming ember) with
warm-up and replicates, its autorange variants, and torch 2.13's refusals."""
import pytest
import torch.utils.benchmark as TB

import ember
import ember.utils.benchmark as EB


def test_timer_runs_the_statement_with_torch_naming_ember():
    calls = []
    timer = EB.Timer("calls.append(torch.ones(2).sum().item())", globals={"calls": calls},
                     label="sum", num_threads=1)
    m = timer.timeit(50)
    assert (m.number_per_run, len(m.raw_times), m.label) == (50, 1, "sum")
    assert len(calls) == 50 + 2 and calls[0] == 2.0  # and a warm-up of max(50 // 100, 2) runs
    m = EB.Timer("x + 1", setup="x = torch.ones(3)").blocked_autorange(min_run_time=0.01)
    assert sum(m.raw_times) >= 0.01 and m.number_per_run >= 1
    m = EB.Timer("x + 1", setup="x = 1").adaptive_autorange(max_run_time=0.05)
    assert len(m.raw_times) >= 1
    assert ember.get_num_threads() >= 1


@pytest.mark.parametrize("call", [
    lambda B: B.Timer(1), lambda B: B.Timer(global_setup="x"),
    lambda B: B.Timer(language="fortran"), lambda B: B.Timer().repeat(),
    lambda B: B.Timer().autorange()])
def test_timer_refusals_as_torch(call):
    errors = []
    for B in (EB, TB):
        with pytest.raises(Exception) as info:
            call(B)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]
