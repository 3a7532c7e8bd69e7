"""Embedding and attention primitives (ember/ops/embedding.py): EmbeddingBackward0 (repeated
indices accumulate, padding_idx gets no gradient) and the attention node of
scaled_dot_product_attention (causal, masks, scale) against torch."""
import numpy as np
import pytest
import torch
from oracle import check

import ember

R = np.random.default_rng(0)
IDX = np.array([[0, 2, 2], [4, 0, 1]])


def _f(lib):
    return lib.nn.functional


@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_matches_torch(padding_idx):
    check(lambda L, w: _f(L).embedding(L.tensor(IDX), w, padding_idx=padding_idx),
          R.standard_normal((5, 3)))


Q, K, V = (R.standard_normal((2, 3, 4, 5)) for _ in range(3))
MASK = R.standard_normal((4, 4))

ATTENTION = {
    "plain": lambda L, q, k, v: _f(L).scaled_dot_product_attention(q, k, v),
    "causal": lambda L, q, k, v: _f(L).scaled_dot_product_attention(q, k, v, is_causal=True),
    "scale": lambda L, q, k, v: _f(L).scaled_dot_product_attention(q, k, v, scale=0.3),
    "float_mask": lambda L, q, k, v: _f(L).scaled_dot_product_attention(
        q, k, v, attn_mask=L.tensor(MASK)),
    "bool_mask": lambda L, q, k, v: _f(L).scaled_dot_product_attention(
        q, k, v, attn_mask=L.tensor(MASK > -0.5)),
}


@pytest.mark.parametrize("name", sorted(ATTENTION))
def test_attention_matches_torch(name):
    check(ATTENTION[name], Q, K, V, second=False)


def test_embedding_index_out_of_range_raises_index_error_as_torch():
    for lib in (torch, ember):
        with pytest.raises(IndexError):
            _f(lib).embedding(lib.tensor([5]), lib.ones(5, 2))


def test_attention_over_no_keys_gives_zeros_as_torch():
    # the row max over an empty key axis: no NumPy reduction error, zeros out and back
    check(ATTENTION["plain"], Q, K[:, :, :0], V[:, :, :0], second=False, same_grad_fn=False)


def test_attention_rows_of_every_width_match_torch():
    # the row max folds halves for power-of-two widths up to 128 (np.max otherwise)
    for keys in (1, 3, 8, 64, 130):
        k, v = R.standard_normal((2, 3, keys, 5)), R.standard_normal((2, 3, keys, 5))
        check(ATTENTION["causal" if keys >= 4 else "plain"], Q, k, v, second=False)
