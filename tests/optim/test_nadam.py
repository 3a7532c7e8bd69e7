"""NAdam (ember/optim/nadam.py): the optimizer table's rows for it, against torch 2.13 (see
_table.table_tests)."""
from _table import table_tests

CASES = [
    ("NAdam", dict(lr=0.01), 2),
    ("NAdam", dict(lr=0.01, momentum_decay=0.01, weight_decay=0.1), 1),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True), 1),
]

test_trajectory_matches_torch, test_fused_equals_per_tensor, test_save_load_continue = \
    table_tests(CASES)
