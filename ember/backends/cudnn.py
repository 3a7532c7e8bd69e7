"""torch.backends.cudnn: cuDNN flags (settable with torch's defaults; no effect in ember)."""
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    """False: there is no cuDNN."""
    return False


def version():
    """None, as torch without cuDNN."""
    return None
