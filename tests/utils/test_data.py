"""The ember.utils.data package (ember/utils/data/__init__.py): every exported name is one of
torch.utils.data's, DistributedSampler loads on first use, unknown names raise AttributeError."""
import pytest
import torch.utils.data as tdata

import ember.utils.data as edata


def test_exports_are_torch_names():
    assert set(edata.__all__) <= set(dir(tdata))
    for name in edata.__all__:
        assert getattr(edata, name).__name__ == getattr(tdata, name).__name__


def test_distributed_sampler_is_available():
    sampler = edata.DistributedSampler(range(4), num_replicas=2, rank=0, shuffle=False)
    assert list(sampler) == list(tdata.DistributedSampler(range(4), 2, 0, shuffle=False))


def test_unknown_name_raises_like_torch():
    messages = []
    for lib in (edata, tdata):
        with pytest.raises(AttributeError) as info:
            lib.NoSuchSampler
        messages.append(str(info.value).replace("torch", "ember"))
    assert messages[0] == messages[1]
