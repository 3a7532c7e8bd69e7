"""torch.backends.mps (ember/backends/mps.py): Metal is neither built nor available."""
import torch

import ember


def test_queries_answer_as_torch_without_mps():
    assert ember.backends.mps.is_available() == torch.backends.mps.is_available()
    assert ember.backends.mps.is_built() == torch.backends.mps.is_built()
