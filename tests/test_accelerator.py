"""torch.accelerator (ember/accelerator.py): every query answers as torch on a CPU-only build."""
import torch

import ember


def test_queries_answer_as_torch():
    assert ember.accelerator.is_available() == torch.accelerator.is_available()
    assert ember.accelerator.current_accelerator() == torch.accelerator.current_accelerator()
    assert ember.accelerator.device_count() == torch.accelerator.device_count()


def test_current_accelerator_takes_check_available():
    assert ember.accelerator.current_accelerator(check_available=True) == \
        torch.accelerator.current_accelerator(check_available=True)
