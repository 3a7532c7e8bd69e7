"""The fused recurrence nodes (ember/ops/recurrent.py): what users see of them, against torch."""
import pytest
import torch

import ember


def _output_grad_fn(lib, cls, **kw):
    lib.manual_seed(0)
    module = getattr(lib.nn, cls)(3, 4, **kw)
    out, _ = module(lib.randn(5, 2, 3))
    return type(out.grad_fn).__name__


@pytest.mark.parametrize("cls, kw", [("GRU", {}), ("GRU", {"num_layers": 2}), ("RNN", {}),
                                     ("RNN", {"num_layers": 2}),
                                     ("RNN", {"nonlinearity": "relu"})])
def test_gru_rnn_output_grad_fn_is_named_as_in_torch(cls, kw):
    # printed as grad_fn=<...> by scripts that print an RNN's output (was <_GRU> / <_RNN>)
    assert _output_grad_fn(ember, cls, **kw) == _output_grad_fn(torch, cls, **kw)
