"""Embedding module vs torch: lookups, gradients (padding_idx row gets none), init, errors."""
import numpy as np
import pytest
import torch
from layer_oracle import check_module

import ember


@pytest.mark.parametrize("kw", [{}, dict(padding_idx=0), dict(scale_grad_by_freq=True)])
def test_embedding(kw):
    idx = np.array([[0, 2, 2], [4, 1, 0]])
    e_mod, t_mod = check_module(lambda lib: lib.nn.Embedding(5, 3, **kw).double(), idx)
    assert repr(e_mod) == repr(t_mod)
    if "padding_idx" in kw:
        assert np.all(e_mod.weight.grad.numpy()[0] == 0)


def test_default_init_is_standard_normal_with_zero_padding_row():
    ember.manual_seed(0)
    emb = ember.nn.Embedding(2000, 50, padding_idx=3)
    w = emb.weight.detach().numpy()
    assert np.all(w[3] == 0)
    assert abs(w.mean()) < 0.01 and abs(w.std() - 1) < 0.01


def test_from_pretrained():
    table = ember.tensor(np.arange(6.0).reshape(3, 2))
    emb = ember.nn.Embedding.from_pretrained(table)
    assert not emb.weight.requires_grad
    assert emb(ember.tensor([2, 0])).tolist() == [[4.0, 5.0], [0.0, 1.0]]
    t_emb = torch.nn.Embedding.from_pretrained(torch.arange(6.0).reshape(3, 2))
    assert repr(emb) == repr(t_emb)


def test_errors():
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        ember.nn.Embedding(5, 3, padding_idx=5)
    with pytest.raises(IndexError, match="index out of range in self"):
        ember.nn.Embedding(5, 3)(ember.tensor([5]))
