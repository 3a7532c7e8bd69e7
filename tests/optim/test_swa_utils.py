"""swa_utils against torch 2.13: AveragedModel (equal weights, EMA, avg_fn, use_buffers),
SWALR's learning rates (cos, linear, no annealing), update_bn's recomputed statistics."""
import numpy as np
import pytest
import torch

import ember


def _pair(lib, seed=0):
    rng = np.random.default_rng(seed)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(),
                              lib.nn.Linear(4, 2))
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return model


def _train(lib, averaged, steps, seed=1):
    model = _pair(lib)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        x = lib.tensor(rng.standard_normal((8, 3)).astype(np.float32))
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
        averaged.update_parameters(model)
    return averaged


@pytest.mark.parametrize("kind", ["swa", "ema", "avg_fn", "buffers"])
def test_averaged_model(kind):
    out = {}
    for lib in (ember, torch):
        swa = lib.optim.swa_utils
        base = _pair(lib)
        make = {"swa": lambda: swa.AveragedModel(base),
                "ema": lambda: swa.AveragedModel(base, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9)),
                "avg_fn": lambda: swa.AveragedModel(base, avg_fn=swa.get_ema_avg_fn(0.8)),
                "buffers": lambda: swa.AveragedModel(base, use_buffers=True)}[kind]
        averaged = _train(lib, make(), 4)
        averaged.eval()
        x = lib.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
        out[lib.__name__] = ({k: v.numpy() for k, v in averaged.state_dict().items()},
                             averaged(x).detach().numpy())
    e, t = out["ember"], out["torch"]
    assert list(e[0]) == list(t[0])
    for key in t[0]:
        np.testing.assert_allclose(e[0][key], t[0][key], rtol=1e-6, atol=1e-7, err_msg=key)
    np.testing.assert_allclose(e[1], t[1], rtol=1e-5, atol=1e-6)


def test_averaged_model_refuses_both_functions():
    for lib in (ember, torch):
        swa = lib.optim.swa_utils
        with pytest.raises(AssertionError):
            swa.AveragedModel(lib.nn.Linear(2, 2), avg_fn=swa.get_swa_avg_fn(),
                              multi_avg_fn=swa.get_swa_multi_avg_fn())


@pytest.mark.parametrize("kwargs", [dict(swa_lr=0.05), dict(swa_lr=0.2, anneal_epochs=3,
                                                             anneal_strategy="linear"),
                                    dict(swa_lr=[0.01, 0.02], anneal_epochs=0)])
def test_swalr_learning_rates(kwargs):
    lrs = {}
    for lib in (ember, torch):
        a, b = lib.zeros(2, requires_grad=True), lib.zeros(2, requires_grad=True)
        opt = lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.3}], lr=0.5)
        sched = lib.optim.swa_utils.SWALR(opt, **kwargs)
        seen = []
        for _ in range(14):
            opt.step()
            sched.step()
            seen.append(sched.get_last_lr())
        lrs[lib.__name__] = seen
    np.testing.assert_allclose(lrs["ember"], lrs["torch"], rtol=1e-12)


@pytest.mark.parametrize("kwargs", [dict(swa_lr=0.1, anneal_strategy="exp"),
                                    dict(swa_lr=0.1, anneal_epochs=-1),
                                    dict(swa_lr=[0.1, 0.2])])
def test_swalr_errors(kwargs):
    for lib in (torch, ember):
        opt = lib.optim.SGD([lib.zeros(2, requires_grad=True)], lr=0.5)
        with pytest.raises(ValueError):
            lib.optim.swa_utils.SWALR(opt, **kwargs)


def test_update_bn():
    stats = {}
    data = np.random.default_rng(5).standard_normal((6, 5, 3)).astype(np.float32)
    for lib in (ember, torch):
        model = _pair(lib)
        model.eval()
        loader = [(lib.tensor(x), lib.zeros(5)) for x in data]
        lib.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        stats[lib.__name__] = (bn.running_mean.numpy(), bn.running_var.numpy(),
                               int(bn.num_batches_tracked), bn.momentum, model.training)
    e, t = stats["ember"], stats["torch"]
    np.testing.assert_allclose(e[0], t[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(e[1], t[1], rtol=1e-6, atol=1e-7)
    assert e[2:] == t[2:]
