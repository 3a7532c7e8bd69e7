"""torch.backends.openmp (ember/backends/openmp.py): reported unavailable, since ember's only
parallelism is NumPy's BLAS threads (torch's CPU build answers True)."""
import ember


def test_openmp_is_not_available():
    assert ember.backends.openmp.is_available() is False
    import ember.backends.openmp as openmp  # the import form scripts use
    assert openmp.is_available is ember.backends.openmp.is_available
