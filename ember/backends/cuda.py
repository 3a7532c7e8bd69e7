"""torch.backends.cuda: CUDA flags (no effect: ember has no CUDA back end)."""
import contextlib
import warnings


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


# scaled-dot-product-attention back ends (torch.nn.attention.sdpa_kernel sets them too); on the
# CPU ember's one kernel runs while "flash" or "math" is on
sdp_state = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True,
             "overrideable": True}


def _sdp_switch(name):
    def enable(enabled):
        sdp_state[name] = bool(enabled)

    def enabled():
        return sdp_state[name]
    return enable, enabled


enable_flash_sdp, flash_sdp_enabled = _sdp_switch("flash")
enable_mem_efficient_sdp, mem_efficient_sdp_enabled = _sdp_switch("mem_efficient")
enable_math_sdp, math_sdp_enabled = _sdp_switch("math")
enable_cudnn_sdp, cudnn_sdp_enabled = _sdp_switch("cudnn")


@contextlib.contextmanager
def sdp_allowing(names):
    """Within the block, only the SDPA back ends in ``names`` ("flash", "math", ...) are on;
    every flag is restored after (torch.nn.attention.sdpa_kernel and sdp_kernel)."""
    before = dict(sdp_state)
    sdp_state.update({name: name in names for name in sdp_state})
    try:
        yield {}
    finally:
        sdp_state.update(before)


def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True,
               enable_cudnn=True):
    """Deprecated: within the block only the SDPA back ends enabled here may run (the older
    spelling of torch.nn.attention.sdpa_kernel; colt5-attention uses it)."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context "
                  "manager will be removed. Please see `torch.nn.attention.sdpa_kernel()` for "
                  "the new context manager, with updated signature.", FutureWarning,
                  stacklevel=2)
    chosen = {"flash": enable_flash, "math": enable_math, "mem_efficient": enable_mem_efficient,
              "cudnn": enable_cudnn}
    return sdp_allowing({name for name, enabled in chosen.items() if enabled})
