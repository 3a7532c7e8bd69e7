"""Adagrad (ember/optim/adagrad.py): the optimizer table's rows for it, against torch 2.13 (see
_table.table_tests)."""
from _table import table_tests

CASES = [
    ("Adagrad", dict(lr=0.1), 2),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.5, weight_decay=0.1,
                     eps=1e-6, maximize=True), 1),
]

test_trajectory_matches_torch, test_fused_equals_per_tensor, test_save_load_continue = \
    table_tests(CASES)
