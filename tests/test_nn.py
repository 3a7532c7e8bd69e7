"""The ember.nn package (ember/nn/__init__.py): torch.nn's public names resolve, nn.parallel
loads on first use, and an unknown name raises torch's AttributeError."""
import subprocess
import sys

import pytest
import torch

import ember


def test_parallel_loads_on_first_use():
    code = ("import sys, ember; assert 'ember.nn.parallel' not in sys.modules; "
            "ddp = ember.nn.parallel.DistributedDataParallel; "
            "assert 'ember.nn.parallel' in sys.modules and ddp.__name__ == "
            "'DistributedDataParallel'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_unknown_name_raises_like_torch():
    messages = []
    for lib in (ember, torch):
        with pytest.raises(AttributeError) as info:
            lib.nn.NoSuchLayer
        messages.append(str(info.value).replace("torch", "ember"))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("name", ["Module", "Parameter", "Buffer", "functional", "init", "utils",
                                  "Linear", "Sequential", "CrossEntropyLoss", "MultiheadAttention"])
def test_torch_names_resolve(name):
    assert hasattr(torch.nn, name) and hasattr(ember.nn, name)
