"""Adafactor (ember/optim/adafactor.py): the optimizer table's rows for it against torch 2.13
(vectors, matrices and a stack of matrices; see _table.table_tests), in bfloat16 and float16 bit
for bit (see _low), and its argument errors."""
import pytest
import torch
from _low import low_precision_tests
from _table import table_tests

import ember

CASES = [
    ("Adafactor", dict(), 1),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-6, 1e-2), d=1.5, weight_decay=0.1,
                       maximize=True), 2),
]

test_trajectory_matches_torch, test_fused_equals_per_tensor, test_save_load_continue = \
    table_tests(CASES)

# bfloat16 and float16: torch's ops (row and column norms squared, rsqrt), each rounding once;
# bfloat16 once failed (NumPy's finfo has no bfloat16)
LOW_CASES = [
    ("Adafactor", dict(lr=0.01)),
    ("Adafactor", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-3, 1e-2), d=1.5)),
]

test_low_precision_matches_torch = low_precision_tests(LOW_CASES)


@pytest.mark.parametrize("kwargs", [dict(lr=-1.0), dict(beta2_decay=0.5),
                                    dict(eps=(-1.0, 1e-3)), dict(eps=(None, -1.0)), dict(d=0.5),
                                    dict(weight_decay=-1.0)])
def test_errors(kwargs):
    messages = []
    for lib in (ember, torch):
        with pytest.raises(ValueError) as info:
            lib.optim.Adafactor([lib.zeros(2, requires_grad=True)], **kwargs)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_defaults_and_repr():
    ours = ember.optim.Adafactor([ember.zeros(2, requires_grad=True)])
    theirs = torch.optim.Adafactor([torch.zeros(2, requires_grad=True)])
    assert ours.defaults == theirs.defaults
    assert repr(ours) == repr(theirs)
