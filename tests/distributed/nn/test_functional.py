"""ember.distributed.nn.functional: autograd-aware collectives (worker checks in
workers/dist_nn.py, run over the "gloo" backend on 2 and 3 ranks)."""
import pytest
import torch.distributed.nn as tdist_nn

import ember.distributed.nn as dist_nn

from ..test_gloo import assert_all_passed


def test_names_as_torch():
    for name in dist_nn.__all__:
        assert hasattr(tdist_nn, name) and hasattr(tdist_nn.functional, name)
    assert dist_nn.functional.all_reduce is dist_nn.all_reduce


@pytest.mark.parametrize("n", [2, 3])
def test_values_and_gradients_across_ranks(n):
    assert_all_passed(n, "start=fork", "nn_functional")
