"""torch.backends.cuda: CUDA flags (no effect: ember has no CUDA back end)."""


class _MatmulFlags:
    """torch.backends.cuda.matmul: settable precision flags with torch's defaults."""

    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built():
    """False: ember is not built with CUDA."""
    return False


# scaled_dot_product_attention's kernels, switched as torch's flags (ember.nn.attention.sdpa_kernel
# sets them). On the CPU torch runs the math or the flash kernel, so those two are what count here.
_sdp_enabled = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def enable_flash_sdp(enabled):
    _sdp_enabled["flash"] = bool(enabled)


def enable_mem_efficient_sdp(enabled):
    _sdp_enabled["mem_efficient"] = bool(enabled)


def enable_math_sdp(enabled):
    _sdp_enabled["math"] = bool(enabled)


def enable_cudnn_sdp(enabled):
    _sdp_enabled["cudnn"] = bool(enabled)


def flash_sdp_enabled():
    return _sdp_enabled["flash"]


def mem_efficient_sdp_enabled():
    return _sdp_enabled["mem_efficient"]


def math_sdp_enabled():
    return _sdp_enabled["math"]


def cudnn_sdp_enabled():
    return _sdp_enabled["cudnn"]
