"""F.linear_cross_entropy vs torch: class indices and probabilities, K-dimensional logits,
bias, class weights, ignore_index, label smoothing, options (chunked in torch), errors."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("kw", [dict(), dict(reduction="sum", ignore_index=2),
                                dict(reduction="none", label_smoothing=0.2)])
def test_class_indices(kw):
    target = np.array([0, 2, 4, 1])
    check(lambda lib, x, w, b: lib.nn.functional.linear_cross_entropy(
        x, w, lib.tensor(target), linear_bias=b, weight=lib.tensor(np.arange(1.0, 6.0)), **kw),
        _x(4, 3), _x(5, 3, seed=1), _x(5, seed=2), same_grad_fn=False)


def test_probabilities_and_k_dimensional_logits():
    probs = np.random.default_rng(3).dirichlet(np.ones(5), size=4)
    check(lambda lib, x, w: lib.nn.functional.linear_cross_entropy(x, w, lib.tensor(probs)),
          _x(4, 3), _x(5, 3, seed=1), same_grad_fn=False)
    target = np.array([[0, 1], [4, 3], [2, 2]])
    check(lambda lib, x, w, b: lib.nn.functional.linear_cross_entropy(
        x, w, lib.tensor(target), linear_bias=b), _x(3, 4), _x(5, 2, 4, seed=1),
        _x(5, 2, seed=2), same_grad_fn=False)


def test_options_give_the_reference_values():
    target = np.array([0, 2, 4, 1])
    values = [lib.nn.functional.linear_cross_entropy(
        lib.tensor(_x(4, 3)), lib.tensor(_x(5, 3, seed=1)), lib.tensor(target),
        options=lib.nn.LinearCrossEntropyOptions(batch_chunk_size=2)).item()
        for lib in (ember, torch)]
    np.testing.assert_allclose(values[0], values[1], rtol=1e-12)


@pytest.mark.parametrize("args,kw", [
    (((4, 3, 2), (5, 3), (4,)), {}),
    (((4, 3), (5,), (4,)), {}),
    (((4, 3), (5, 2), (4,)), {}),
    (((4, 3), (5, 3), (4,)), dict(linear_bias=(4,))),
    (((3,), (5, 2, 3), (2,)), {}),
    (((4, 3), (5, 3), (4, 5)), dict(ignore_index=1)),
])
def test_errors(args, kw):
    def call(lib):
        tensors = [lib.zeros(*s) if i < 2 else
                   (lib.zeros(*s) if len(s) == 2 else lib.zeros(*s, dtype=lib.int64))
                   for i, s in enumerate(args)]
        extra = {k: lib.zeros(*v) if isinstance(v, tuple) else v for k, v in kw.items()}
        return lib.nn.functional.linear_cross_entropy(*tensors, **extra)
    same_error(call)
