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
