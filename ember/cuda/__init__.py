"""torch.cuda stand-in: there is no GPU back end; queries answer as torch on a CPU-only build."""
from .. import OutOfMemoryError  # noqa: F401  (torch.cuda.OutOfMemoryError is torch's)
from . import amp  # noqa: F401

# never initialized: reversible layers (lucidrains' performer, reformer) read this private
# flag to decide whether to record CUDA generator states
_initialized = False


def is_available():
    return False


def is_initialized():
    return _initialized


def device_count():
    return 0


def is_bf16_supported(including_emulation=True):
    return False


def manual_seed(seed):
    """Accepted and ignored: there are no CUDA generators."""


manual_seed_all = manual_seed


def synchronize(device=None):
    """Nothing to wait for."""


def empty_cache():
    """Nothing to free."""


def current_device():
    raise AssertionError("Torch not compiled with CUDA enabled")


def set_device(device):
    """Selecting a GPU fails as on a CPU-only torch build (nanoGPT calls it under DDP only)."""
    raise AssertionError("Torch not compiled with CUDA enabled")


class Event:
    """torch.cuda.Event: on a CPU-only build the class exists but cannot be made."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event")


class Stream:
    """torch.cuda.Stream: on a CPU-only build the class exists but cannot be made."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")
