"""CosineSimilarity and PairwiseDistance modules: repr, state_dict keys, values and gradients
of both inputs against torch over their options."""
import pytest
import torch
from layer_oracle import check_module, rand

import ember


@pytest.mark.parametrize("kw", [{}, dict(dim=0), dict(dim=-1, eps=0.5)], ids=str)
def test_cosine_similarity(kw):
    check_module(lambda lib: lib.nn.CosineSimilarity(**kw), rand(4, 5), rand(4, 5, seed=1),
                 rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kw", [{}, dict(p=1.0), dict(p=3.0, eps=1e-3, keepdim=True)], ids=str)
def test_pairwise_distance(kw):
    check_module(lambda lib: lib.nn.PairwiseDistance(**kw), rand(4, 5), rand(4, 5, seed=1),
                 rtol=1e-10, atol=1e-12)


def test_reprs_match_torch():
    for name, kw in [("CosineSimilarity", dict(dim=0)), ("PairwiseDistance", dict(p=1.0))]:
        assert repr(getattr(ember.nn, name)(**kw)) == repr(getattr(torch.nn, name)(**kw))
