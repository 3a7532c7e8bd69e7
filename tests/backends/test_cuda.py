"""torch.backends.cuda (ember/backends/cuda.py): matmul precision flags with torch's defaults,
settable, and a CPU build's answer to is_built."""
import torch

import ember

FLAGS = ["allow_tf32", "allow_fp16_reduced_precision_reduction",
         "allow_bf16_reduced_precision_reduction"]


def test_matmul_flags_have_torch_defaults():
    for name in FLAGS:
        assert getattr(ember.backends.cuda.matmul, name) == \
            getattr(torch.backends.cuda.matmul, name), name


def test_matmul_flags_are_settable():
    ember.backends.cuda.matmul.allow_tf32 = True
    try:
        assert ember.backends.cuda.matmul.allow_tf32
    finally:
        ember.backends.cuda.matmul.allow_tf32 = False


def test_is_built_answers_as_a_cpu_build():
    assert ember.backends.cuda.is_built() == torch.backends.cuda.is_built()


def test_sdp_switches_have_torch_defaults_and_toggle():
    for kind in ("flash", "mem_efficient", "math", "cudnn"):
        enabled = getattr(ember.backends.cuda, f"{kind}_sdp_enabled")
        assert enabled() is getattr(torch.backends.cuda, f"{kind}_sdp_enabled")() is True
        getattr(ember.backends.cuda, f"enable_{kind}_sdp")(False)
        try:
            assert enabled() is False
        finally:
            getattr(ember.backends.cuda, f"enable_{kind}_sdp")(True)
