"""ember.nn.attention (ember/nn/attention/__init__.py): SDPBackend's members and sdpa_kernel's
choice of scaled_dot_product_attention kernels, as torch on the CPU."""
import contextlib

import numpy as np
import pytest
import torch

import ember

SWITCHES = ("flash", "mem_efficient", "math", "cudnn")


def _switches(lib):
    return [getattr(lib.backends.cuda, f"{kind}_sdp_enabled")() for kind in SWITCHES]


def test_backend_members_match_torch():
    ours, theirs = ember.nn.attention.SDPBackend, torch.nn.attention.SDPBackend
    assert [(m.name, int(m), str(m)) for m in ours] == \
        [(name, int(m), str(m)) for name, m in theirs.__members__.items()]
    assert (ours.MATH == 0) is (theirs.MATH == 0) is False


@pytest.mark.parametrize("names", [["MATH"], ["FLASH_ATTENTION"], ["EFFICIENT_ATTENTION"],
                                   ["CUDNN_ATTENTION"], ["OVERRIDEABLE"],
                                   ["EFFICIENT_ATTENTION", "MATH"]])
def test_sdpa_kernel_runs_or_refuses_like_torch(names):
    q = np.random.default_rng(0).standard_normal((1, 2, 3, 4)).astype(np.float32)
    seen = []
    for lib in (ember, torch):
        backend = lib.nn.attention.SDPBackend
        chosen = [getattr(backend, n) for n in names]
        with lib.nn.attention.sdpa_kernel(chosen if len(chosen) > 1 else chosen[0]):
            inside = _switches(lib)
            x = lib.tensor(q)
            try:
                out = lib.nn.functional.scaled_dot_product_attention(x, x, x)
                seen.append((inside, out.numpy()))
            except RuntimeError as error:
                seen.append((inside, str(error)))
        assert _switches(lib) == [True] * 4
    assert seen[0][0] == seen[1][0]
    if isinstance(seen[1][1], str):
        assert seen[0][1] == seen[1][1]
    else:
        np.testing.assert_allclose(seen[0][1], seen[1][1], rtol=1e-5, atol=1e-6)


def test_sdpa_kernel_restores_after_an_error_and_checks_its_argument():
    for lib in (ember, torch):
        with pytest.raises(ValueError):
            with lib.nn.attention.sdpa_kernel(lib.nn.attention.SDPBackend.MATH):
                raise ValueError("inside")
        assert _switches(lib) == [True] * 4
        with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
            with lib.nn.attention.sdpa_kernel("math"):
                pass


@pytest.mark.parametrize("backend", [None, "MATH", "FLASH_ATTENTION"])
@pytest.mark.parametrize("transposed", [False, True])
def test_sdpa_output_layout_and_node_follow_the_kernel_like_torch(backend, transposed):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((2, 3 if i == 0 else 5, 4, 8)).astype(np.float32)
              for i in range(3)]
    seen = []
    for lib in (ember, torch):
        q, k, v = (lib.tensor(a).transpose(1, 2) if transposed else
                   lib.tensor(a).transpose(1, 2).contiguous() for a in arrays)
        q.requires_grad_()
        chosen = getattr(lib.nn.attention.SDPBackend, backend or "MATH")
        with lib.nn.attention.sdpa_kernel(chosen) if backend else contextlib.nullcontext():
            out = lib.nn.functional.scaled_dot_product_attention(q, k, v)
        merged = out.transpose(1, 2).reshape(2, 3, 32)
        seen.append((out.stride(), type(out.grad_fn).__name__, merged.is_contiguous(),
                     out.detach().numpy()))
    assert seen[0][:3] == seen[1][:3]
    np.testing.assert_allclose(seen[0][3], seen[1][3], rtol=1e-5, atol=1e-6)
