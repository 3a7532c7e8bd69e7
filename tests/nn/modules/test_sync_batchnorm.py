"""SyncBatchNorm vs torch on CPU without a process group: batch norm over any rank >= 2 in
training and eval, repr and state_dict, errors, convert_sync_batchnorm; with an initialised
group a CPU input in training is refused, as torch refuses it."""
import numpy as np
import pytest
import torch
from layer_oracle import check_module, rand

import ember


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 4), (2, 3, 2, 2, 3)])
@pytest.mark.parametrize("train", [True, False])
def test_matches_batch_norm_of_torch(shape, train):
    e_mod, t_mod = check_module(lambda lib: lib.nn.SyncBatchNorm(3, momentum=0.3).double(),
                                rand(*shape), train=train, calls=2)
    assert repr(e_mod) == repr(t_mod)


def test_momentum_none_and_no_running_stats():
    check_module(lambda lib: lib.nn.SyncBatchNorm(3, momentum=None).double(), rand(4, 3, 2),
                 calls=3)
    check_module(lambda lib: lib.nn.SyncBatchNorm(3, track_running_stats=False,
                                                  affine=False).double(), rand(4, 3), train=False)


@pytest.mark.parametrize("x", [np.ones(3), np.ones((4, 0))])
def test_input_errors(x):
    messages = []
    for lib in (ember, torch):
        with pytest.raises(ValueError) as info:
            lib.nn.SyncBatchNorm(3)(lib.tensor(x, dtype=lib.float32))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_convert_sync_batchnorm_shares_parameters_and_buffers():
    def build(lib):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 1), lib.nn.BatchNorm2d(4, momentum=0.3),
                                lib.nn.Sequential(lib.nn.BatchNorm1d(5, affine=False)))
        net[1].running_mean.add_(1)
        net[2].eval()
        return net
    ours, theirs = build(ember), build(torch)
    old = ours[1]
    e_net = ember.nn.SyncBatchNorm.convert_sync_batchnorm(ours, process_group="pg")
    t_net = torch.nn.SyncBatchNorm.convert_sync_batchnorm(theirs, process_group="pg")
    assert repr(e_net) == repr(t_net)
    assert e_net[1].weight is old.weight and e_net[1].running_mean is old.running_mean
    assert e_net[1].process_group == "pg" and not e_net[2][0].training
    assert list(e_net.state_dict()) == list(t_net.state_dict())
    sync = ember.nn.SyncBatchNorm(2)
    assert ember.nn.SyncBatchNorm.convert_sync_batchnorm(sync) is sync


def test_training_on_cpu_with_an_initialised_group_is_refused(monkeypatch):
    import ember.distributed as dist
    monkeypatch.setattr(dist, "is_initialized", lambda: True)
    bn = ember.nn.SyncBatchNorm(3)
    with pytest.raises(ValueError, match="SyncBatchNorm expected input tensor to be on GPU"):
        bn(ember.ones(4, 3))
    bn.eval()
    assert tuple(bn(ember.ones(4, 3)).shape) == (4, 3)
