"""nn.EmbeddingBag vs torch: forward and gradients per mode, repr, state_dict, init,
from_pretrained and constructor errors."""
import numpy as np
import pytest
import torch
from layer_oracle import check_module

import ember


@pytest.mark.parametrize("kw", [{}, dict(mode="sum", padding_idx=0), dict(mode="max"),
                                dict(mode="mean", max_norm=1.0, norm_type=1.5)])
def test_embedding_bag_module(kw):
    idx = np.array([[0, 2, 2], [4, 1, 0]])
    e_mod, t_mod = check_module(lambda lib: lib.nn.EmbeddingBag(5, 3, **kw).double(), idx)
    assert repr(e_mod) == repr(t_mod)


def test_offsets_and_per_sample_weights_in_forward():
    outs = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        bag = lib.nn.EmbeddingBag(6, 2, mode="sum", include_last_offset=True)
        bag.weight.data.copy_(lib.tensor(np.arange(12.0).reshape(6, 2)))
        outs.append(bag(lib.tensor([1, 2, 3, 4]), lib.tensor([0, 1, 4]),
                        per_sample_weights=lib.tensor([1.0, 2.0, 3.0, 4.0])).detach().numpy())
    np.testing.assert_allclose(outs[0], outs[1])


def test_default_init_is_standard_normal_with_zero_padding_row():
    ember.manual_seed(0)
    bag = ember.nn.EmbeddingBag(2000, 50, padding_idx=3)
    w = bag.weight.detach().numpy()
    assert np.all(w[3] == 0)
    assert abs(w.mean()) < 0.01 and abs(w.std() - 1) < 0.01


def test_from_pretrained():
    table = np.arange(6.0).reshape(3, 2)
    ours = ember.nn.EmbeddingBag.from_pretrained(ember.tensor(table), mode="max")
    theirs = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(table), mode="max")
    assert not ours.weight.requires_grad
    assert repr(ours) == repr(theirs)
    np.testing.assert_allclose(ours(ember.tensor([[2, 0]])).numpy(),
                               theirs(torch.tensor([[2, 0]])).numpy())
    assert ember.nn.EmbeddingBag.from_pretrained(ember.tensor(table),
                                                 freeze=False).weight.requires_grad


def test_errors():
    for lib in (ember, torch):
        with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
            lib.nn.EmbeddingBag(5, 3, padding_idx=5)
        with pytest.raises(AssertionError, match="Shape of weight does not match"):
            lib.nn.EmbeddingBag(5, 3, _weight=lib.ones(4, 3))
        with pytest.raises(AssertionError, match="expected to be 2-dimensional"):
            lib.nn.EmbeddingBag.from_pretrained(lib.ones(4))


def test_torch_import_path():
    from ember.nn.modules.sparse import EmbeddingBag
    assert EmbeddingBag is ember.nn.EmbeddingBag
