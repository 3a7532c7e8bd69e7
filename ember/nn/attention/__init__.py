"""ember.nn.attention: SDPBackend and sdpa_kernel, which choose scaled_dot_product_attention's
kernels as torch.nn.attention does (on the CPU: the math and flash kernels can run)."""
import contextlib
import enum

from ...backends import cuda as _cuda

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """The kernels scaled_dot_product_attention may use, with torch's values (``int()`` gives
    the value; unlike an IntEnum, a member is not equal to its integer, as torch's)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value

    __index__ = __int__


# each backend's switch in ember.backends.cuda (OVERRIDEABLE has none: it never runs on the CPU)
_SWITCHES = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash",
             SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
             SDPBackend.CUDNN_ATTENTION: "cudnn"}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Within the block, scaled_dot_product_attention may use only ``backends`` (one
    SDPBackend or a list of them); the previous choice comes back after it."""
    chosen = [backends] if isinstance(backends, SDPBackend) else backends
    if not isinstance(chosen, (list, tuple, set)) or \
            not all(isinstance(b, SDPBackend) for b in chosen):
        raise AssertionError(f"Backend must be an instance of SDPBackend or a list of "
                             f"SDPBackend instances, got {type(backends).__name__}")
    previous = dict(_cuda._sdp_enabled)
    for backend, switch in _SWITCHES.items():
        _cuda._sdp_enabled[switch] = backend in chosen
    try:
        yield {}
    finally:
        _cuda._sdp_enabled.update(previous)


__all__ = ["SDPBackend", "WARN_FOR_UNFUSED_KERNELS", "sdpa_kernel"]
