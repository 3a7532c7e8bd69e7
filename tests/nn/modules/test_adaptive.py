"""AdaptiveLogSoftmaxWithLoss vs torch: initial draws, forward (output, loss) and gradients,
unbatched input, log_prob, predict, repr/state_dict, and torch's errors."""
import numpy as np
import pytest
import torch

import ember


def _build(lib, **kw):
    lib.manual_seed(0)
    args = dict(in_features=16, n_classes=20, cutoffs=[4, 10, 15], div_value=2.0)
    args.update(kw)
    return lib.nn.AdaptiveLogSoftmaxWithLoss(**args)


def _x(shape=(8, 16), scale=1.0):
    return (np.random.default_rng(0).standard_normal(shape) * scale).astype(np.float32)


@pytest.mark.parametrize("kw", [{}, dict(head_bias=True, div_value=4.0, cutoffs=[5])])
def test_forward_backward_as_torch(kw):
    target = [0, 5, 11, 19, 3, 16, 9, 2]
    got = []
    for lib in (ember, torch):
        module = _build(lib, **kw)
        x = lib.tensor(_x(), requires_grad=True)
        result = module(x, lib.tensor(target))
        result.loss.backward()
        got.append((type(result).__name__, result._fields, result.output.detach().numpy(),
                    result.loss.item(), x.grad.numpy(),
                    {k: p.grad.numpy() for k, p in module.named_parameters()},
                    list(module.state_dict()), repr(module)))
    ours, theirs = got
    assert ours[:2] == theirs[:2] and ours[6:] == theirs[6:]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-5)
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-5, atol=1e-7)
    for key, grad in theirs[5].items():
        np.testing.assert_allclose(ours[5][key], grad, rtol=1e-5, atol=1e-7, err_msg=key)


def test_unbatched():
    got = [_build(lib)(lib.tensor(_x((16,))), lib.tensor(12)) for lib in (ember, torch)]
    assert tuple(got[0].output.shape) == tuple(got[1].output.shape) == ()
    np.testing.assert_allclose(got[0].loss.item(), got[1].loss.item(), rtol=1e-5)


def test_log_prob_and_predict():
    got = []
    for lib in (ember, torch):
        module = _build(lib)
        with lib.no_grad():  # a head that prefers clusters for some rows only
            module.head.weight[4:].mul_(6.0)
        x = lib.tensor(_x(scale=2.0))
        got.append((module.log_prob(x).detach().numpy(), module.predict(x).numpy()))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-5, atol=1e-5)
    assert (got[1][1] >= 4).any() and (got[1][1] < 4).any()
    np.testing.assert_array_equal(got[0][1], got[1][1])
    np.testing.assert_allclose(np.exp(got[0][0]).sum(axis=1), 1.0, rtol=1e-5)


@pytest.mark.parametrize("cutoffs", [[], [5, 3], [0, 4], [4, 20], [4, 4], [4.5]])
def test_cutoff_errors(cutoffs):
    messages = []
    for lib in (ember, torch):
        with pytest.raises(ValueError) as info:
            lib.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("x_shape,target", [((4, 16), [1, 2, 3]), ((4, 2, 16), [1, 2, 3, 4]),
                                            ((4, 16), [[1]]), ((4, 16), 3),
                                            ((4, 16), [1, 2, 3, 20])])
def test_forward_errors(x_shape, target):
    messages = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as info:
            _build(lib)(lib.tensor(_x(x_shape)), lib.tensor(target))
        messages.append(str(info.value).replace("torch.", "ember."))
    assert messages[0] == messages[1]
