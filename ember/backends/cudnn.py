"""torch.backends.cudnn: cuDNN flags (settable with torch's defaults; no effect in ember)."""
import contextlib
import sys

enabled = True
benchmark = False
benchmark_limit = None  # torch without cuDNN reads None, and flags() leaves it so
deterministic = False
allow_tf32 = True


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none", depthwise_kernel="auto"):
    """Set every flag (to these defaults when not given, as torch) for the block, then restore
    the previous values."""
    module = sys.modules[__name__]
    new = {"enabled": enabled, "benchmark": benchmark, "deterministic": deterministic,
           "allow_tf32": allow_tf32}
    old = {name: getattr(module, name) for name in new}
    vars(module).update(new)
    try:
        yield
    finally:
        vars(module).update(old)


def is_available():
    """False: there is no cuDNN."""
    return False


def version():
    """None, as torch without cuDNN."""
    return None
