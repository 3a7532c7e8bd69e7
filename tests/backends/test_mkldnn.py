"""torch.backends.mkldnn (ember/backends/mkldnn.py): the flag keeps torch's default; oneDNN is
reported unavailable (ember computes with NumPy's BLAS, where torch's CPU build has oneDNN)."""
import torch

import ember


def test_enabled_flag_has_torch_default():
    assert ember.backends.mkldnn.enabled == torch.backends.mkldnn.enabled


def test_onednn_is_not_available():
    assert ember.backends.mkldnn.is_available() is False
