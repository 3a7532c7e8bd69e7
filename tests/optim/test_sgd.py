"""SGD (ember/optim/sgd.py): the optimizer table's rows for it, against torch 2.13 (see
_table.table_tests)."""
from _table import table_tests

CASES = [
    ("SGD", dict(lr=0.01), 1),
    ("SGD", dict(lr=0.01, momentum=0.9), 2),
    ("SGD", dict(lr=0.01, momentum=0.9, dampening=0.3, weight_decay=0.01), 1),
    ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True, weight_decay=0.05), 2),
    ("SGD", dict(lr=0.01, momentum=0.5, maximize=True, weight_decay=0.1), 1),
    ("SGD", dict(lr=0.01, weight_decay=0.1, maximize=True), 1),
]

test_trajectory_matches_torch, test_fused_equals_per_tensor, test_save_load_continue = \
    table_tests(CASES)
