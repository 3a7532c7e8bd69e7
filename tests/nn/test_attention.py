"""ember/nn/attention (torch.nn.attention): SDPBackend and sdpa_kernel against torch 2.13: which
back ends the block allows (seen through torch.backends.cuda's sdp switches), that attention
runs while FLASH_ATTENTION or MATH is allowed (values as torch's) and raises torch's error
otherwise, and the argument check."""
import numpy as np
import pytest
import torch

import ember

SWITCHES = ("flash_sdp_enabled", "math_sdp_enabled", "mem_efficient_sdp_enabled",
            "cudnn_sdp_enabled")


def _state(lib):
    return [getattr(lib.backends.cuda, name)() for name in SWITCHES]


@pytest.mark.parametrize("names", [["MATH"], ["FLASH_ATTENTION"], ["EFFICIENT_ATTENTION"],
                                   ["CUDNN_ATTENTION"], ["MATH", "EFFICIENT_ATTENTION"], []])
def test_sdpa_kernel_allows_as_torch(names):
    q = np.random.RandomState(0).randn(1, 2, 4, 8).astype(np.float32)
    outs = []
    for lib in (torch, ember):
        backend = lib.nn.attention.SDPBackend
        chosen = [getattr(backend, n) for n in names]
        outs.append(_attend_within(
            lib, lib.nn.attention.sdpa_kernel(chosen[0] if len(chosen) == 1 else chosen), q))
    _assert_same_attention(outs)


def _attend_within(lib, block, q):
    """(the switches inside ``block``, attention's value or error there, the switches after)."""
    with block:
        state = _state(lib)
        t = lib.tensor(q)
        try:
            value = lib.nn.functional.scaled_dot_product_attention(t, t, t).numpy()
        except RuntimeError as error:
            value = str(error)
    return state, value, _state(lib)


def _assert_same_attention(outs):
    assert outs[1][0] == outs[0][0] and outs[1][2] == outs[0][2] == [True] * 4
    if isinstance(outs[0][1], str):
        assert outs[1][1] == outs[0][1]
    else:
        np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-5, atol=1e-6)


def test_backend_values_and_argument_check_as_torch():
    for name in ("ERROR", "MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION",
                 "OVERRIDEABLE"):
        ours, theirs = (getattr(lib.nn.attention.SDPBackend, name) for lib in (ember, torch))
        assert int(ours) == int(theirs) and (ours == int(ours)) == (theirs == int(theirs))
        assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
    for lib in (torch, ember):
        with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
            with lib.nn.attention.sdpa_kernel("math"):
                pass


def test_enable_sdp_switches_as_torch():
    q = ember.ones(1, 1, 2, 2)
    try:
        ember.backends.cuda.enable_flash_sdp(False)
        assert ember.nn.functional.scaled_dot_product_attention(q, q, q).shape == q.shape
        ember.backends.cuda.enable_math_sdp(False)
        with pytest.raises(RuntimeError, match="No viable backend"):
            ember.nn.functional.scaled_dot_product_attention(q, q, q)
    finally:
        ember.backends.cuda.enable_flash_sdp(True)
        ember.backends.cuda.enable_math_sdp(True)


@pytest.mark.parametrize("flags", [{}, {"enable_flash": False}, {"enable_math": False},
                                   {"enable_flash": False, "enable_math": False},
                                   {"enable_mem_efficient": False, "enable_cudnn": False}])
def test_deprecated_sdp_kernel_as_torch(flags):
    # colt5-attention's Attend runs attention inside torch.backends.cuda.sdp_kernel(...)
    q = np.random.RandomState(1).randn(1, 2, 4, 8).astype(np.float32)
    outs = []
    for lib in (torch, ember):
        with pytest.warns(FutureWarning, match=r"torch.backends.cuda.sdp_kernel\(\)` is deprec"):
            block = lib.backends.cuda.sdp_kernel(**flags)
        outs.append(_attend_within(lib, block, q))
    _assert_same_attention(outs)
