"""ASGD (ember/optim/asgd.py): the optimizer table's rows for it, against torch 2.13 (see
_table.table_tests), and in bfloat16 and float16 bit for bit (see _low), including averaging once t0 is passed, and its argument checks."""
import pytest
from _low import low_precision_tests
from _table import table_tests
from oracle import same_error

CASES = [
    ("ASGD", dict(lr=0.01), 2),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=2, weight_decay=0.1, maximize=True), 1),
]

test_trajectory_matches_torch, test_fused_equals_per_tensor, test_save_load_continue = \
    table_tests(CASES)

# bfloat16 and float16: every op of the rule rounds once, as torch's per-tensor step (see _low)
LOW_CASES = [
    ("ASGD", dict(lr=0.01)),
    ("ASGD", dict(lr=0.01, weight_decay=0.1, t0=2, maximize=True)),
]

test_low_precision_matches_torch = low_precision_tests(LOW_CASES)


@pytest.mark.parametrize("kwargs", [dict(lr=-1.0), dict(weight_decay=-0.5)])
def test_bad_arguments(kwargs):
    same_error(lambda m: m.optim.ASGD([m.zeros(2, requires_grad=True)], **kwargs))
