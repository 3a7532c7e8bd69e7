"""GradScaler and autocast (ember/amp/) against torch 2.13 on the CPU."""
import warnings

import numpy as np
import pytest
import torch

import ember


def _train(lib, scaler_args, steps, blow_up_at=()):
    lib.manual_seed(0)
    model = lib.nn.Linear(4, 3)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scaler = lib.amp.GradScaler(*scaler_args[0], **scaler_args[1])
    x = lib.randn(8, 4)
    scales = []
    for step in range(steps):
        opt.zero_grad()
        loss = model(x).pow(2).mean() * (float("inf") if step in blow_up_at else 1.0)
        scaler.scale(loss).backward()
        if step % 2:
            scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
    return model.weight.detach().numpy(), scales, scaler


@pytest.mark.parametrize("args", [(("cpu",), {}), (("cpu",), {"growth_interval": 2}),
                                  (("cpu",), {"enabled": False}), (("cuda",), {}),
                                  (("cpu",), {"init_scale": 8.0, "growth_interval": 3})],
                         ids=str)
def test_grad_scaler_trajectory_matches_torch(args):
    e_w, e_scales, e_s = _train(ember, args, 7, blow_up_at=(2, 3))
    t_w, t_scales, t_s = _train(torch, args, 7, blow_up_at=(2, 3))
    np.testing.assert_allclose(e_w, t_w, rtol=1e-6, atol=1e-7)
    assert e_scales == t_scales
    assert e_s.is_enabled() == t_s.is_enabled()
    assert e_s.state_dict() == {k: (v.item() if hasattr(v, "item") else v)
                                for k, v in t_s.state_dict().items()}


def test_cuda_grad_scaler_warns_and_disables_as_torch():
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling"):
        s = ember.amp.GradScaler()
    assert not s.is_enabled() and s.get_scale() == 1.0
    with pytest.warns(FutureWarning, match="deprecated"):
        s = ember.cuda.amp.GradScaler(enabled=False)
    loss = ember.tensor(2.0)
    assert s.scale(loss) is loss
    from ember.cuda.amp import GradScaler, autocast  # noqa: F401  (the import form scripts use)


def test_unscale_twice_raises_as_torch():
    for lib in (ember, torch):
        model = lib.nn.Linear(2, 1)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        scaler = lib.amp.GradScaler("cpu")
        scaler.scale(model(lib.ones(1, 2)).sum()).backward()
        scaler.unscale_(opt)
        with pytest.raises(RuntimeError, match="already been called"):
            scaler.unscale_(opt)


def test_autocast_context_and_decorator():
    x = ember.randn(2, 3)
    with ember.autocast(device_type="cpu", dtype=ember.bfloat16):
        assert ember.is_autocast_enabled("cpu") and not ember.is_autocast_enabled()
        assert ember.get_autocast_dtype("cpu") is ember.bfloat16
    assert not ember.is_autocast_enabled("cpu")

    @ember.autocast("cpu")
    def f(a):
        return ember.is_autocast_enabled("cpu"), a * 2

    enabled, y = f(x)
    assert enabled and ember.allclose(y, x * 2)
    with pytest.warns(UserWarning, match="Disabling autocast"):
        with ember.autocast("cuda"):
            assert not ember.is_autocast_enabled("cuda")
