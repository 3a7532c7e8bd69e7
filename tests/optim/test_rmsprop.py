"""RMSprop (ember/optim/rmsprop.py): the optimizer table's rows for it, against torch 2.13 (see
_table.table_tests)."""
from _table import table_tests

CASES = [
    ("RMSprop", dict(lr=0.01), 2),
    ("RMSprop", dict(lr=0.01, eps=1e-3, centered=True, momentum=0.5, weight_decay=0.1), 1),
    ("RMSprop", dict(lr=0.01, centered=True, maximize=True), 1),
    ("RMSprop", dict(lr=0.005, alpha=0.9, momentum=0.9), 1),
]

test_trajectory_matches_torch, test_fused_equals_per_tensor, test_save_load_continue = \
    table_tests(CASES)
