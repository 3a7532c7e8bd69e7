"""nn.utils.rnn: pad_sequence / unpad_sequence against torch, gradients included."""
import numpy as np
import pytest
import torch

import ember

rng = np.random.default_rng(0)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_matches_torch(batch_first, padding_side):
    arrays = [rng.standard_normal((n, 3)) for n in (2, 5, 3)]
    outs, grads = [], []
    for lib in (ember, torch):
        seqs = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = lib.nn.utils.rnn.pad_sequence(seqs, batch_first=batch_first, padding_value=-1.5,
                                            padding_side=padding_side)
        (out * lib.tensor(np.arange(out.numel()).reshape(tuple(out.shape)))).sum().backward()
        outs.append(out.detach().numpy())
        grads.append([s.grad.numpy() for s in seqs])
    np.testing.assert_array_equal(outs[0], outs[1])
    for a, b in zip(*grads):
        np.testing.assert_array_equal(a, b)


def test_unpad_sequence_round_trip():
    seqs = [ember.tensor(rng.standard_normal((n, 2))) for n in (3, 1, 4)]
    for batch_first in (False, True):
        padded = ember.nn.utils.rnn.pad_sequence(seqs, batch_first=batch_first)
        back = ember.nn.utils.rnn.unpad_sequence(padded, [3, 1, 4], batch_first=batch_first)
        for a, b in zip(seqs, back):
            assert ember.equal(a, b)
    with pytest.raises(RuntimeError, match="empty list"):
        ember.nn.utils.rnn.pad_sequence([])
