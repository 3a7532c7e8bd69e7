"""ember.cpu.amp: the deprecated spellings of autocast('cpu') and GradScaler('cpu')."""
import pytest
import torch

import ember


def test_autocast_warns_and_enables_cpu_autocast_as_torch():
    for lib in (torch, ember):
        with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is "
                                               r"deprecated"):
            region = lib.cpu.amp.autocast()
        with region:
            assert lib.is_autocast_enabled("cpu")
            assert lib.get_autocast_dtype("cpu") == lib.bfloat16
            out = lib.nn.functional.linear(lib.ones(2, 3), lib.ones(4, 3))
            assert out.dtype == lib.bfloat16
        assert not lib.is_autocast_enabled("cpu")


def test_grad_scaler_warns_and_is_enabled_on_cpu():
    for lib in (torch, ember):
        with pytest.warns(FutureWarning, match=r"torch.cpu.amp.GradScaler\(args...\)` is "
                                               r"deprecated"):
            scaler = lib.cpu.amp.GradScaler(init_scale=8.0)
        assert scaler.is_enabled() and scaler.get_scale() == 8.0
