"""torch.autocast (ember/amp/autocast_mode.py): the enabled state and dtype answer as torch's,
inside and outside nested regions, as a context manager and a decorator; 'cuda' is disabled with
torch's warning; a bad device_type raises torch's ValueError."""
import warnings

import numpy as np
import pytest
import torch

import ember


def _state(lib, device="cpu"):
    return lib.is_autocast_enabled(device), str(lib.get_autocast_dtype(device)).split(".")[1]


def test_state_inside_and_outside_nested_regions_matches_torch():
    seen = []
    for lib in (torch, ember):
        states = [_state(lib)]
        with lib.autocast("cpu"):
            states.append(_state(lib))
            with lib.autocast("cpu", dtype=lib.float16, enabled=False):
                states.append(_state(lib))
            states.append(_state(lib))
        states.append(_state(lib))
        seen.append(states)
    assert seen[0] == seen[1]
    assert seen[1][1] == (True, "bfloat16") and seen[1][2][0] is False


def test_default_dtypes_match_torch():
    for device in ("cpu", "cuda"):
        assert _state(ember, device) == _state(torch, device)


def test_decorator_enables_only_during_the_call():
    @ember.autocast("cpu")
    def inside():
        return ember.is_autocast_enabled("cpu")

    assert inside() is True and ember.is_autocast_enabled("cpu") is False
    assert inside.__name__ == "inside"


def test_state_is_restored_when_the_region_raises():
    with pytest.raises(KeyError):
        with ember.autocast("cpu"):
            raise KeyError
    assert ember.is_autocast_enabled("cpu") is False


def test_cuda_autocast_is_disabled_with_torchs_warning():
    caught = []
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            with lib.autocast("cuda"):
                assert lib.is_autocast_enabled("cuda") is False
        caught.append([(w.category, str(w.message)) for w in got])
    assert caught[0] == caught[1] != []


def test_bad_device_type_raises_as_torch():
    messages = []
    for lib in (torch, ember):
        with pytest.raises(ValueError) as info:
            lib.autocast(1)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def _custom_function(lib, cast_inputs):
    seen = {}

    class Scale(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=cast_inputs)
        def forward(ctx, x, w):
            seen["forward"] = (str(x.dtype), str(w.dtype), lib.is_autocast_enabled("cpu"))
            ctx.save_for_backward(x, w)
            return x @ w

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["backward"] = lib.is_autocast_enabled("cpu")
            x, w = ctx.saved_tensors
            return g @ w.t(), x.t() @ g

    x = lib.ones(2, 3, requires_grad=True)
    w = lib.ones(3, 2, requires_grad=True)
    with lib.autocast("cpu"):
        out = Scale.apply(x, w)
    out.float().sum().backward()
    return {k: str(v).replace("torch.", "").replace("ember.", "") for k, v in seen.items()}, \
        str(out.dtype).split(".")[1], x.grad.tolist()


@pytest.mark.parametrize("cast_inputs", [None, "float64"])
def test_custom_fwd_and_bwd_as_torch(cast_inputs):
    results = [_custom_function(lib, None if cast_inputs is None else getattr(lib, cast_inputs))
               for lib in (torch, ember)]
    assert results[1] == results[0]
    assert ember.amp.is_autocast_available("cpu") == torch.amp.is_autocast_available("cpu")


@pytest.mark.parametrize("kind", ["lstm", "lstm2bi", "rnn", "rnn_relu_bf", "gru", "lstm_proj",
                                  "lstmcell", "rnncell"])
def test_recurrent_modules_under_cpu_autocast_as_torch(kind):
    """torch's CPU autocast runs nn.LSTM (its oneDNN kernel) and nn.RNN wholly in bfloat16; GRU,
    LSTM with proj_size and the cells lower only their linear ops. ember ran LSTM and RNN in
    float32 (float32 outputs, other values)."""
    got = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        nn = lib.nn
        make = {"lstm": lambda: nn.LSTM(8, 3), "lstm2bi": lambda: nn.LSTM(8, 3, 2,
                                                                         bidirectional=True),
                "rnn": lambda: nn.RNN(8, 3), "gru": lambda: nn.GRU(8, 3),
                "rnn_relu_bf": lambda: nn.RNN(8, 3, nonlinearity="relu", batch_first=True),
                "lstm_proj": lambda: nn.LSTM(8, 4, proj_size=2),
                "lstmcell": lambda: nn.LSTMCell(8, 3), "rnncell": lambda: nn.RNNCell(8, 3)}
        module = make[kind]()
        x = lib.randn(5, 2, 8)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch: "LSTM with projections is not supported..."
            with lib.autocast("cpu", dtype=lib.bfloat16):
                out = module(x[0] if "cell" in kind else x)
        flat = [out] if not isinstance(out, tuple) else [out[0]] + (
            list(out[1]) if isinstance(out[1], tuple) else [out[1]])
        got.append([(str(t.dtype).split(".")[1], t.detach().float().numpy()) for t in flat])
    for (dtype_t, value_t), (dtype_e, value_e) in zip(*got):
        assert dtype_e == dtype_t
        tolerance = 2e-2 if dtype_t == "bfloat16" or kind == "gru" else 1e-5
        np.testing.assert_allclose(value_e, value_t, rtol=tolerance, atol=tolerance)
