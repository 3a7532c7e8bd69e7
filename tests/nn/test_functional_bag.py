"""F.embedding_bag vs torch: modes, offsets, include_last_offset, padding_idx, per-sample
weights, max_norm, gradients (first and second order) and torch's errors."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember

INDEX = np.array([1, 2, 4, 5, 4, 3, 2, 9, 9, 0])
OFFSETS = np.array([0, 2, 2, 8])


def _table(seed=0):
    return np.random.default_rng(seed).standard_normal((10, 3))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 4, -1])
@pytest.mark.parametrize("include_last_offset", [False, True])
def test_bags_match_torch(mode, padding_idx, include_last_offset):
    check(lambda lib, w: lib.nn.functional.embedding_bag(
        lib.tensor(INDEX), w, lib.tensor(OFFSETS), mode=mode, padding_idx=padding_idx,
        include_last_offset=include_last_offset), _table(), same_grad_fn=False)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_two_dim_input_and_ties(mode):
    table = np.round(_table(1))  # equal entries: max's gradient goes to the first of them
    table[3] = table[5]
    index = np.array([[3, 5, 1], [0, 0, 2]])
    check(lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor(index), w, mode=mode),
          table, same_grad_fn=False)


def test_per_sample_weights_get_gradients():
    weights = np.random.default_rng(2).standard_normal(INDEX.size)
    check(lambda lib, w, s: lib.nn.functional.embedding_bag(
        lib.tensor(INDEX), w, lib.tensor(OFFSETS), mode="sum", per_sample_weights=s,
        padding_idx=2), _table(), weights, same_grad_fn=False, second=False)  # torch has none


def test_max_norm_renormalises_the_table_in_place():
    tables = []
    for lib in (ember, torch):
        w = lib.tensor(_table() * 3)
        out = lib.nn.functional.embedding_bag(lib.tensor(INDEX), w, lib.tensor(OFFSETS),
                                              max_norm=1.0)
        tables.append((w.numpy(), out.numpy()))
    np.testing.assert_allclose(tables[0][0], tables[1][0], rtol=1e-6)
    np.testing.assert_allclose(tables[0][1], tables[1][1], rtol=1e-6)


def test_float32_and_int32():
    for lib_out in [(lib, lib.nn.functional.embedding_bag(
            lib.tensor(INDEX, dtype=lib.int32), lib.tensor(_table(), dtype=lib.float32),
            lib.tensor(OFFSETS))) for lib in (ember, torch)]:
        assert str(lib_out[1].dtype).endswith("float32")


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(10, 3),
                                                lib.tensor([1])),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(10, 3),
                                                lib.tensor([0, 3])),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 12]), lib.ones(10, 3),
                                                lib.tensor([0])),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1.0]), lib.ones(10, 3),
                                                lib.tensor([0])),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(10, 3),
                                                lib.tensor([0]), padding_idx=12),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([[1, 2]]), lib.ones(10, 3),
                                                lib.tensor([0])),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(10, 3)),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(10),
                                                lib.tensor([0])),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(10, 3),
                                                lib.tensor([0]), mode="min"),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(10, 3),
                                                lib.tensor([0]), mode="max",
                                                scale_grad_by_freq=True),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(10, 3),
                                                lib.tensor([0]), mode="mean",
                                                per_sample_weights=lib.ones(2)),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(10, 3),
                                                lib.tensor([0]), mode="sum",
                                                per_sample_weights=lib.ones(3)),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(10, 3),
                                                lib.tensor([0]), mode="sum",
                                                per_sample_weights=lib.ones(2).double()),
])
def test_errors_as_torch(call):
    same_error(call)


def test_bad_call_leaves_the_table_alone_with_max_norm():
    table = ember.tensor(_table() * 3)
    before = table.numpy().copy()
    for bad in (dict(per_sample_weights=ember.ones(INDEX.size, dtype=ember.float32)),
                dict(offsets=ember.tensor([0, 20]))):
        with pytest.raises(RuntimeError):
            ember.nn.functional.embedding_bag(ember.tensor(INDEX), table,
                                              **{"offsets": ember.tensor(OFFSETS), **bad},
                                              mode="sum", max_norm=1.0)
    np.testing.assert_array_equal(table.numpy(), before)
