"""ember/version.py: ember.__version__ is torch 2.13.0's as a CPU build writes it, comparing as
torch's TorchVersion does with strings and tuples; ember.version.ember is ember's own."""
import operator

import pytest
import torch

import ember

CASES = [(2, 0), (2, 13), (2, 13, 0), (2, 14), (1, 8), "1.8", "2.13.0", "2.13.0+cpu", "2.13.1",
         "2.13.0a0", "2.14.0.dev20260101", "3.0", "2.13", "v2.12"]


@pytest.mark.parametrize("other", CASES, ids=str)
def test_version_compares_as_torchs(other):
    ours, theirs = ember.__version__, torch.__version__
    for op in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne):
        assert op(ours, other) == op(theirs, other), (op, other)


def test_version_strings_and_module():
    assert str(ember.__version__) == str(torch.__version__).split("+")[0] + "+cpu"
    assert ember.version.__version__ == ember.__version__
    assert ember.version.cuda is None is torch.version.cuda
    assert ember.version.ember == "0.1.0"
    assert isinstance(ember.__version__, str)
