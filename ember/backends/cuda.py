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


# Which scaled-dot-product-attention kernels may run (torch's defaults: all); ember always
# computes the math one, so these only answer what was set (nn.attention.sdpa_kernel sets them).
_SDP = {"math": True, "flash": True, "mem_efficient": True, "cudnn": True}


def math_sdp_enabled():
    return _SDP["math"]


def flash_sdp_enabled():
    return _SDP["flash"]


def mem_efficient_sdp_enabled():
    return _SDP["mem_efficient"]


def cudnn_sdp_enabled():
    return _SDP["cudnn"]


def enable_math_sdp(enabled):
    _SDP["math"] = bool(enabled)


def enable_flash_sdp(enabled):
    _SDP["flash"] = bool(enabled)


def enable_mem_efficient_sdp(enabled):
    _SDP["mem_efficient"] = bool(enabled)


def enable_cudnn_sdp(enabled):
    _SDP["cudnn"] = bool(enabled)
