"""FractionalMaxPool2d/3d vs torch: outputs (given samples as a buffer, or drawn under the same
seed), return_indices, repr, state_dict, and the constructor's errors."""
import numpy as np
import pytest
import torch
from layer_oracle import check_module, rand
from oracle import same_error

import ember


@pytest.mark.parametrize("ndim", [2, 3])
def test_given_samples_are_a_buffer(ndim):
    shape = (2, 3, 7, 8, 6)[:ndim + 2]
    samples = np.random.default_rng(1).random((2, 3, ndim))
    e_mod, t_mod = check_module(lambda lib: getattr(lib.nn, f"FractionalMaxPool{ndim}d")(
        2, output_size=3, _random_samples=lib.tensor(samples)), rand(*shape))
    assert repr(e_mod) == repr(t_mod)


def test_ratio_return_indices_and_seeded_draws():
    x = rand(2, 3, 9, 8, dtype=np.float32)
    results = []
    for lib in (ember, torch):
        lib.manual_seed(2)
        pool = lib.nn.FractionalMaxPool2d((2, 3), output_ratio=(0.5, 0.4), return_indices=True)
        out, index = pool(lib.tensor(x))
        results.append((out.numpy(), index.numpy(), list(pool.state_dict())))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    assert results[0][2] == results[1][2] == []


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.FractionalMaxPool2d(2),
    lambda lib: lib.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5),
    lambda lib: lib.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    lambda lib: lib.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.0)),
    lambda lib: lib.nn.FractionalMaxPool3d(0, output_size=2),
    lambda lib: lib.nn.FractionalMaxPool3d(2),
])
def test_constructor_errors(make):
    same_error(make)


def test_torch_import_path():
    from ember.nn.modules.pooling import FractionalMaxPool2d, FractionalMaxPool3d
    assert (FractionalMaxPool2d, FractionalMaxPool3d) == (ember.nn.FractionalMaxPool2d,
                                                           ember.nn.FractionalMaxPool3d)
