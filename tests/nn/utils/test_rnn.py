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


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted,lengths", [(True, [5, 3, 3, 1]), (False, [2, 5, 1, 3]),
                                                    (False, [2, 3, 2, 3])])  # ties: torch's order
def test_pack_padded_and_pad_packed_match_torch(batch_first, enforce_sorted, lengths):
    x = rng.standard_normal((4, 5, 2) if batch_first else (5, 4, 2))
    results = []
    for lib in (ember, torch):
        xt = lib.tensor(x, requires_grad=True)
        packed = lib.nn.utils.rnn.pack_padded_sequence(xt, lib.tensor(lengths), batch_first,
                                                       enforce_sorted)
        padded, out_lengths = lib.nn.utils.rnn.pad_packed_sequence(
            packed, batch_first=batch_first, padding_value=-2.0, total_length=6)
        (padded * lib.tensor(np.arange(padded.numel()).reshape(tuple(padded.shape)))).sum() \
            .backward()
        indices = [None if i is None else i.numpy() for i in packed[2:]]
        results.append([packed.data.detach().numpy(), packed.batch_sizes.numpy(), *indices,
                        padded.detach().numpy(), out_lengths.numpy(), xt.grad.numpy()])
    for a, b in zip(*results):
        if a is None or b is None:
            assert a is None and b is None
        else:
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


def test_pack_sequence_and_unpack_sequence_match_torch():
    arrays = [rng.standard_normal((n, 3)) for n in (2, 4, 1)]
    for enforce in (False,):
        packs = [lib.nn.utils.rnn.pack_sequence([lib.tensor(a) for a in arrays], enforce)
                 for lib in (ember, torch)]
        np.testing.assert_array_equal(packs[0].data.numpy(), packs[1].data.numpy())
        back = ember.nn.utils.rnn.unpack_sequence(packs[0])
        for a, b in zip(back, arrays):
            np.testing.assert_array_equal(a.numpy(), b)
    assert repr(packs[0].batch_sizes.tolist()) == repr(packs[1].batch_sizes.tolist())
    assert packs[0].double().data.dtype == ember.float64
    assert packs[0].float().data.dtype == ember.float32 and not packs[0].is_cuda


@pytest.mark.parametrize("call", [
    lambda L: L.nn.utils.rnn.pack_padded_sequence(L.zeros(3, 2), [1, 2]),
    lambda L: L.nn.utils.rnn.pack_padded_sequence(L.zeros(3, 2), [2, 0]),
    lambda L: L.nn.utils.rnn.pad_packed_sequence(
        L.nn.utils.rnn.pack_padded_sequence(L.zeros(3, 2), [3, 2]), total_length=2),
])
def test_packing_errors_match_torch(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(Exception) as ee:
        call(ember)
    assert type(ee.value) is type(te.value)
    assert str(ee.value).split(".")[0] == str(te.value).split(".")[0]
