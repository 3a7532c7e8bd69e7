"""torch.nn.attention (ember/nn/attention): SDPBackend and sdpa_kernel, which sets
torch.backends.cuda's scaled-dot-product-attention flags for its block, as torch 2.13."""
import numpy as np
import pytest
import torch
import torch.nn.attention as TA

import ember
import ember.nn.attention as EA


def _flags(lib):
    cuda = lib.backends.cuda
    return (cuda.math_sdp_enabled(), cuda.flash_sdp_enabled(), cuda.mem_efficient_sdp_enabled(),
            cuda.cudnn_sdp_enabled())


def _run(lib, A):
    seen = [_flags(lib), repr(A.SDPBackend.MATH), str(A.SDPBackend.FLASH_ATTENTION),
            int(A.SDPBackend.CUDNN_ATTENTION), list(A.SDPBackend.__members__)]
    with A.sdpa_kernel(A.SDPBackend.MATH) as value:
        seen += [value, _flags(lib)]
    with A.sdpa_kernel([A.SDPBackend.FLASH_ATTENTION, A.SDPBackend.EFFICIENT_ATTENTION]):
        seen.append(_flags(lib))
    lib.backends.cuda.enable_flash_sdp(False)
    seen.append(_flags(lib))
    lib.backends.cuda.enable_flash_sdp(True)
    lib.manual_seed(0)
    q = lib.randn(1, 2, 3, 4)
    with A.sdpa_kernel(A.SDPBackend.MATH):
        out = lib.nn.functional.scaled_dot_product_attention(q, q, q).numpy()
    return seen + [_flags(lib)], out


def test_nn_attention_is_the_package_without_an_import():
    assert ember.nn.attention is EA and ember.nn.attention.SDPBackend is EA.SDPBackend


def test_sdpa_kernel_and_flags_as_torch():
    (e_seen, e_out), (t_seen, t_out) = _run(ember, EA), _run(torch, TA)
    assert e_seen == t_seen
    np.testing.assert_allclose(e_out, t_out, rtol=1e-6, atol=1e-6)  # the math kernel runs


@pytest.mark.parametrize("bad", ["math", 3])
def test_sdpa_kernel_refuses_non_backends_as_torch(bad):
    caught = []
    for A in (EA, TA):
        with pytest.raises(AssertionError) as info, A.sdpa_kernel(bad):
            pass
        caught.append(str(info.value))
    assert caught[0] == caught[1]
