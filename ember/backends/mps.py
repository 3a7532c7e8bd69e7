"""torch.backends.mps: Apple's Metal back end (not available in ember)."""


def is_available():
    return False


def is_built():
    return False
