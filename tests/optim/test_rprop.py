"""Rprop (ember/optim/rprop.py): the optimizer table's rows for it, against torch 2.13 (see
_table.table_tests), and in bfloat16 and float16 bit for bit (see _low), and its argument checks."""
import pytest
import torch
from _low import low_precision_tests
from _table import table_tests
from oracle import same_error

import ember

CASES = [
    ("Rprop", dict(lr=0.01), 2),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True), 1),
]

test_trajectory_matches_torch, test_fused_equals_per_tensor, test_save_load_continue = \
    table_tests(CASES)

# bfloat16 and float16: every op of the rule rounds once, as torch's per-tensor step (see _low)
LOW_CASES = [
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.01, maximize=True)),
]

test_low_precision_matches_torch = low_precision_tests(LOW_CASES)


@pytest.mark.parametrize("kwargs", [dict(lr=-1.0), dict(etas=(1.5, 1.2)),
                                    dict(etas=(0.5, 0.9))])
def test_bad_arguments(kwargs):
    same_error(lambda m: m.optim.Rprop([m.zeros(2, requires_grad=True)], **kwargs))


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("foreach", [False, True])
def test_nonfinite_gradients_step_as_torch(bad, foreach):
    """torch's sign is 0 at NaN: a NaN gradient (or inf * 0 on the first step) leaves the step
    size and the parameter alone; NumPy's sign spread NaN into both."""
    got = []
    for lib in (torch, ember):
        p = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        opt = lib.optim.Rprop([p], foreach=foreach)
        for _ in range(3):
            p.grad = lib.tensor([bad, 1.0])
            opt.step()
        got.append((p.tolist(), opt.state[p]["step_size"].tolist()))
    assert str(got[1]) == str(got[0])
