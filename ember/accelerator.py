"""torch.accelerator: ember has no accelerator; every query answers as torch on a CPU-only build."""


def is_available():
    return False


def current_accelerator(check_available=False):
    """None: no accelerator."""
    return None


def device_count():
    return 0
