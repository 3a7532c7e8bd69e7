"""Rprop (ember/optim/rprop.py): the optimizer table's rows for it, against torch 2.13 (see
_table.table_tests), and its argument checks."""
import pytest
from _table import table_tests
from oracle import same_error

CASES = [
    ("Rprop", dict(lr=0.01), 2),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True), 1),
]

test_trajectory_matches_torch, test_fused_equals_per_tensor, test_save_load_continue = \
    table_tests(CASES)


@pytest.mark.parametrize("kwargs", [dict(lr=-1.0), dict(etas=(1.5, 1.2)),
                                    dict(etas=(0.5, 0.9))])
def test_bad_arguments(kwargs):
    same_error(lambda m: m.optim.Rprop([m.zeros(2, requires_grad=True)], **kwargs))
