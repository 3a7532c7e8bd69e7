"""AdamW (ember/optim/adamw.py): the optimizer table's rows for it, against torch 2.13 (see
_table.table_tests), and in bfloat16 and float16 bit for bit (see _low)."""
from _low import low_precision_tests
from _table import table_tests

CASES = [
    ("AdamW", dict(lr=0.01), 2),
    ("AdamW", dict(lr=0.01, weight_decay=0.3, amsgrad=True, maximize=True), 1),
]

test_trajectory_matches_torch, test_fused_equals_per_tensor, test_save_load_continue = \
    table_tests(CASES)

# bfloat16 and float16: every op of the rule rounds once, as torch's per-tensor step (see _low)
LOW_CASES = [
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True, maximize=True)),
]

test_low_precision_matches_torch = low_precision_tests(LOW_CASES)
