"""ember.nn.attention.bias (ember/nn/attention/bias.py): causal_upper_left / causal_lower_right
masks and scaled_dot_product_attention with them, as torch's."""
import numpy as np
import pytest
import torch
import torch.nn.attention.bias as torch_bias

import ember
import ember.nn.attention.bias as bias


@pytest.mark.parametrize("name", ["causal_upper_left", "causal_lower_right"])
@pytest.mark.parametrize("lengths", [(3, 5), (5, 3), (4, 4)])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_masks_and_attention_match_torch(name, lengths):
    ours, theirs = getattr(bias, name)(*lengths), getattr(torch_bias, name)(*lengths)
    assert ours._materialize().tolist() == theirs._materialize().tolist()
    assert (int(ours.variant), ours.seq_len_q, ours.seq_len_kv) == \
        (int(theirs.variant), theirs.seq_len_q, theirs.seq_len_kv)
    assert repr(ours).replace("ember", "torch") == repr(theirs)
    rng = np.random.default_rng(2)
    q = rng.standard_normal((2, 4, lengths[0], 8)).astype(np.float32)
    k = rng.standard_normal((2, 4, lengths[1], 8)).astype(np.float32)
    outs = []
    for lib, mask in ((ember, ours), (torch, theirs)):
        query = lib.tensor(q, requires_grad=True)
        out = lib.nn.functional.scaled_dot_product_attention(query, lib.tensor(k), lib.tensor(k),
                                                             mask)
        out.sum().backward()
        outs.append((np.nan_to_num(out.detach().numpy()), np.nan_to_num(query.grad.numpy())))
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_only_two_sizes_and_variant_values():
    assert [(v.name, int(v)) for v in bias.CausalVariant] == \
        [(n, int(v)) for n, v in torch_bias.CausalVariant.__members__.items()]
    with pytest.raises(AssertionError):
        bias.causal_upper_left(2, 3, 4)
