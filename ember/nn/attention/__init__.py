"""torch.nn.attention: the scaled-dot-product-attention back ends (SDPBackend) and the
sdpa_kernel context manager that limits which may run. ember has one CPU kernel (torch's flash
CPU kernel's numerics, also serving where torch would take its math path): it runs while
FLASH_ATTENTION or MATH is allowed; with neither, F.scaled_dot_product_attention raises
torch's "No viable backend" error."""
import contextlib
import enum

from ...backends import cuda as _flags

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """torch's SDPA back ends (the values torch gives them; int() of one is its value, but a
    member is not equal to an int, as torch's)."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __repr__(self):
        return f"<SDPBackend.{self.name}: {self.value}>"

    def __int__(self):
        return self.value


_SWITCHES = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash",
             SDPBackend.EFFICIENT_ATTENTION: "mem_efficient", SDPBackend.CUDNN_ATTENTION: "cudnn",
             SDPBackend.OVERRIDEABLE: "overrideable"}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Within the block, only ``backends`` (one SDPBackend or a list of them) may run."""
    chosen = [backends] if isinstance(backends, SDPBackend) else backends
    if not isinstance(chosen, (list, tuple, set)) or \
            not all(isinstance(b, SDPBackend) for b in chosen):
        raise AssertionError(f"Backend must be an instance of SDPBackend or a list of SDPBackend "
                             f"instances, got {type(backends).__name__}")
    with _flags.sdp_allowing({_SWITCHES[backend] for backend in chosen}) as context:
        yield context
