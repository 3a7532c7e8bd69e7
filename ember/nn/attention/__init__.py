"""torch.nn.attention: SDPBackend and the sdpa_kernel context manager choosing which
scaled-dot-product-attention kernels may run (ember computes the math kernel whatever is
chosen; the choice is recorded in torch.backends.cuda's flags for the block)."""
import contextlib
import enum

from ...backends import cuda as _cuda

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.Enum):
    """The attention kernels torch knows."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value

    __index__ = __int__


_FLAGS = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash",
          SDPBackend.EFFICIENT_ATTENTION: "mem_efficient", SDPBackend.CUDNN_ATTENTION: "cudnn"}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Only ``backends`` (one SDPBackend or a list) enabled for the block, then the previous
    flags back."""
    chosen = [backends] if isinstance(backends, SDPBackend) else backends
    if not isinstance(chosen, (list, tuple)) or \
            not all(isinstance(b, SDPBackend) for b in chosen):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend "
                             f"instances, got {type(backends).__name__}")
    before = dict(_cuda._SDP)
    _cuda._SDP.update({name: backend in chosen for backend, name in _FLAGS.items()})
    try:
        yield {}
    finally:
        _cuda._SDP.update(before)
