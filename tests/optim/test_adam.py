"""Adam (ember/optim/adam.py): the optimizer table's rows for it, against torch 2.13 (see
_table.table_tests)."""
from _table import table_tests

CASES = [
    ("Adam", dict(lr=0.01), 2),
    ("Adam", dict(lr=0.01, betas=(0.3, 0.9), weight_decay=0.1, amsgrad=True), 1),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True), 1),
]

test_trajectory_matches_torch, test_fused_equals_per_tensor, test_save_load_continue = \
    table_tests(CASES)
