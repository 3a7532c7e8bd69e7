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


def _double_function(lib, cast_inputs):
    # colt5-attention's coordinate descent decorates its Function with these spellings
    class Double(lib.autograd.Function):
        @staticmethod
        @(lib.cuda.amp.custom_fwd if cast_inputs is None
          else lib.cuda.amp.custom_fwd(cast_inputs=cast_inputs))
        def forward(ctx, x):
            return x * 2

        @staticmethod
        @lib.cuda.amp.custom_bwd
        def backward(ctx, grad):
            return grad * 3

    x = lib.ones(2, dtype=lib.float64, requires_grad=True)
    y = Double.apply(x)
    y.sum().backward()
    return str(y.dtype).split(".")[1], y.tolist(), x.grad.tolist()


@pytest.mark.parametrize("cast", [False, True])
def test_custom_fwd_and_bwd_warn_as_torch_and_wrap_the_function(cast):
    e, e_warn = _warnings(lambda: _double_function(ember, ember.float32 if cast else None))
    t, t_warn = _warnings(lambda: _double_function(torch, torch.float32 if cast else None))
    assert e == t
    assert [w for w in e_warn if w[0] is FutureWarning] == \
        [w for w in t_warn if w[0] is FutureWarning] and len(e_warn) == 2
