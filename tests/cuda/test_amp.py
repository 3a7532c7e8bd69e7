"""torch.cuda.amp (ember/cuda/amp.py): the deprecated spellings warn as torch's do and build the
'cuda' autocast and GradScaler, both disabled as on a CPU-only build."""
import warnings

import pytest
import torch

import ember


def _warnings(make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = make()
    return made, [(w.category, str(w.message)) for w in caught]


def test_grad_scaler_warns_as_torch_and_is_disabled():
    e, e_warn = _warnings(lambda: ember.cuda.amp.GradScaler(init_scale=8.0))
    t, t_warn = _warnings(lambda: torch.cuda.amp.GradScaler(init_scale=8.0))
    assert e_warn[0] == t_warn[0]
    assert isinstance(e, ember.amp.GradScaler)
    assert e.is_enabled() == t.is_enabled() is False


def test_autocast_warns_as_torch_and_is_disabled():
    e, e_warn = _warnings(lambda: ember.cuda.amp.autocast())
    t, t_warn = _warnings(lambda: torch.cuda.amp.autocast())
    assert e_warn[0][0] is FutureWarning and e_warn[0] == t_warn[0]
    with e:
        assert ember.is_autocast_enabled("cuda") is False


def test_deprecation_is_a_future_warning():
    with pytest.warns(FutureWarning, match=r"torch.amp.autocast\('cuda'"):
        ember.cuda.amp.autocast()
