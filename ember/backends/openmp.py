"""torch.backends.openmp (ember's parallelism is NumPy's BLAS threads)."""


def is_available():
    return False
