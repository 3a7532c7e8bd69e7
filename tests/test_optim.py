"""ember.optim's namespace: every torch.optim optimizer ember has is exported, and swa_utils
loads on first use (as an attribute, like torch.optim.swa_utils) without loading it at import."""
import subprocess
import sys

import pytest
import torch

import ember


@pytest.mark.parametrize("name", ["ASGD", "Rprop", "Adam", "AdamW", "SGD", "LBFGS"])
def test_optimizers_exported(name):
    assert issubclass(getattr(ember.optim, name), ember.optim.Optimizer)
    assert hasattr(torch.optim, name)


def test_swa_utils_is_lazy_and_complete():
    code = ("import sys, ember.optim as o; assert 'ember.optim.swa_utils' not in sys.modules; "
            "m = o.swa_utils; print(sorted(m.__all__))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    names = eval(out.stdout)
    for name in names:
        assert hasattr(torch.optim.swa_utils, name), name


def test_unknown_attribute():
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        ember.optim.Nope  # noqa: B018
