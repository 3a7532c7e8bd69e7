"""ember.nn.modules (the package) offers torch.nn.modules' submodule paths with the same names
as torch's, each the very class nn exports (e.g. nn.modules.batchnorm._BatchNorm checks)."""
import pytest
import torch

import ember

PATHS = ["batchnorm", "channelshuffle", "fold", "instancenorm", "linear_cross_entropy_options",
         "pixelshuffle", "upsampling"]


@pytest.mark.parametrize("name", PATHS)
def test_submodule_paths_as_torch(name):
    ours, theirs = getattr(ember.nn.modules, name), getattr(torch.nn.modules, name)
    assert sorted(ours.__all__) == sorted(theirs.__all__)
    for key in ours.__all__:
        assert getattr(ours, key) is getattr(ember.nn, key)


def test_batch_norm_base_class_path():
    assert isinstance(ember.nn.BatchNorm2d(3), ember.nn.modules.batchnorm._BatchNorm)
    assert isinstance(ember.nn.SyncBatchNorm(3), ember.nn.modules.batchnorm._BatchNorm)
