"""LinearCrossEntropyLoss and LinearCrossEntropyOptions vs torch: initial draws, loss and
gradients, repr, state_dict, option and constructor validation."""
import numpy as np
import pytest
import torch

import ember


@pytest.mark.parametrize("kw,target", [
    (dict(), [0, 1, 4]),
    (dict(out_features=(2,), bias=True, label_smoothing=0.1), [[0, 1], [4, 3], [1, 1]]),
    (dict(bias=True, reduction="none", ignore_index=1), [0, 1, 4]),
])
def test_loss_and_gradients(kw, target):
    got = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        module = lib.nn.LinearCrossEntropyLoss(4, 5, **kw)
        x = lib.tensor(np.random.default_rng(0).standard_normal((3, 4)), dtype=lib.float32,
                       requires_grad=True)
        loss = module(x, lib.tensor(target))
        loss.sum().backward()
        got.append((loss.detach().numpy(), x.grad.numpy(), module.linear.weight.grad.numpy(),
                    repr(module), list(module.state_dict())))
    for a, b in zip(got[0][:3], got[1][:3]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert got[0][3:] == got[1][3:]


@pytest.mark.parametrize("kw", [dict(acc_policy="fast"), dict(chunking_method="rows"),
                                dict(chunking_method="aspect_ratio:0"),
                                dict(batch_chunk_size=0)])
def test_option_errors(kw):
    for lib in (ember, torch):
        with pytest.raises(ValueError):
            lib.nn.LinearCrossEntropyOptions(**kw)
    assert repr(ember.nn.LinearCrossEntropyOptions(batch_chunk_size=4)) == \
        repr(torch.nn.LinearCrossEntropyOptions(batch_chunk_size=4))


@pytest.mark.parametrize("kw", [dict(weight=(4,)), dict(label_smoothing=1.5)])
def test_constructor_errors(kw):
    messages = []
    for lib in (ember, torch):
        extra = {k: lib.ones(*v) if isinstance(v, tuple) else v for k, v in kw.items()}
        with pytest.raises(RuntimeError) as info:
            lib.nn.LinearCrossEntropyLoss(3, 5, **extra)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
