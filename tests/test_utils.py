"""ember.utils (ember/utils/__init__.py): data and tensorboard load on first use, an unknown name
raises torch's AttributeError."""
import subprocess
import sys

import pytest
import torch

import ember


def test_data_loads_on_first_use():
    code = ("import sys, ember; assert 'ember.utils.data' not in sys.modules; "
            "loader = ember.utils.data.DataLoader; "
            "assert 'ember.utils.data' in sys.modules and loader.__name__ == 'DataLoader'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_tensorboard_resolves():
    assert ember.utils.tensorboard.SummaryWriter.__name__ == "SummaryWriter"


def test_unknown_name_raises_like_torch():
    messages = []
    for lib in (ember, torch):
        with pytest.raises(AttributeError) as info:
            lib.utils.no_such_module
        messages.append(str(info.value).replace("torch", "ember"))
    assert messages[0] == messages[1]
