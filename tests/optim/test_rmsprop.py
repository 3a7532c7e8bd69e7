"""RMSprop (ember/optim/rmsprop.py): the optimizer table's rows for it, against torch 2.13 (see
_table.table_tests), and in bfloat16 and float16 bit for bit (see _low)."""
from _low import low_precision_tests
from _table import table_tests

CASES = [
    ("RMSprop", dict(lr=0.01), 2),
    ("RMSprop", dict(lr=0.01, eps=1e-3, centered=True, momentum=0.5, weight_decay=0.1), 1),
    ("RMSprop", dict(lr=0.01, centered=True, maximize=True), 1),
    ("RMSprop", dict(lr=0.005, alpha=0.9, momentum=0.9), 1),
]

test_trajectory_matches_torch, test_fused_equals_per_tensor, test_save_load_continue = \
    table_tests(CASES)

# bfloat16 and float16: every op of the rule rounds once, as torch's per-tensor step (see _low)
LOW_CASES = [
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, maximize=True)),
]

test_low_precision_matches_torch = low_precision_tests(LOW_CASES)
