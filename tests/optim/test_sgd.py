"""SGD (ember/optim/sgd.py): the optimizer table's rows for it, against torch 2.13 (see
_table.table_tests), and in bfloat16 and float16 bit for bit (see _low)."""
from _low import low_precision_tests
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

# bfloat16 and float16: every op of the rule rounds once, as torch's per-tensor step (see _low)
LOW_CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, maximize=True)),
]

test_low_precision_matches_torch = low_precision_tests(LOW_CASES)
