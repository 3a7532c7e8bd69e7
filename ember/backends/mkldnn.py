"""torch.backends.mkldnn: oneDNN flags (ember uses NumPy's BLAS instead)."""
enabled = True


def is_available():
    return False
