"""affine_grid and grid_sample (ember/nn/_functional_grid.py) against torch: values, gradients
for the input, the grid and theta, in every mode, padding mode and align_corners, 4-D and 5-D,
with grid points on the borders (where the padding's derivative changes) and torch's errors."""
import itertools
import warnings

import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember

R = np.random.default_rng(0)
X4, G4 = R.standard_normal((2, 3, 4, 5)), R.uniform(-1.4, 1.4, (2, 6, 7, 2))
X5, G5 = R.standard_normal((2, 2, 3, 4, 5)), R.uniform(-1.4, 1.4, (2, 3, 2, 4, 3))


def F(lib):
    return lib.nn.functional


SAMPLE = list(itertools.product(["bilinear", "nearest"], ["zeros", "border", "reflection"],
                                [True, False]))


@pytest.mark.parametrize("mode, padding_mode, align_corners", SAMPLE)
@pytest.mark.parametrize("x, g", [(X4, G4), (X5, G5)], ids=["4d", "5d"])
def test_grid_sample_matches_torch(x, g, mode, padding_mode, align_corners):
    def fn(L, x, g):
        return F(L).grid_sample(x, g, mode, padding_mode, align_corners)
    check(fn, x, g, second=False, same_grad_fn=False)
    check(fn, x.astype(np.float32), g.astype(np.float32), second=False, same_grad_fn=False,
          rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [True, False])
def test_grid_sample_bicubic_matches_torch(padding_mode, align_corners):
    def fn(L, x, g):
        return F(L).grid_sample(x, g, "bicubic", padding_mode, align_corners)
    check(fn, X4, G4, second=False, same_grad_fn=False)
    # float32: a grid gradient beyond a border is 16 weighted equal taps that cancel to ~0,
    # each library left with its own float32 rounding residue (~1e-5)
    check(fn, X4.astype(np.float32), G4.astype(np.float32), second=False, same_grad_fn=False,
          rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [True, False])
def test_grid_sample_on_the_borders_matches_torch(mode, padding_mode, align_corners):
    """Grid points exactly on -1, 1, pixel centres and beyond (the identity grid of
    affine_grid, and its mirror images), where clip and reflection change slope."""
    steps = np.array([-1.5, -1.0, -0.75, -0.5, 0.0, 0.5, 1.0, 1.25, 3.0])
    g = np.stack(np.meshgrid(steps, steps[::-1]), -1)[None].repeat(2, 0)
    check(lambda L, x, g: F(L).grid_sample(x, g, mode, padding_mode, align_corners),
          X4, g, second=False, same_grad_fn=False)


@pytest.mark.parametrize("align_corners", [True, False])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 3, 4, 2), (2, 3, 1, 6)])
def test_affine_grid_matches_torch(size, align_corners):
    theta = R.standard_normal((2, len(size) - 2, len(size) - 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unit-size grids warn in both libraries
        check(lambda L, t: F(L).affine_grid(t, size, align_corners), theta)


def test_affine_grid_then_grid_sample_is_a_spatial_transformer():
    """The spatial-transformer pattern: gradients reach theta through the grid."""
    theta = np.array([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.2]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])

    def fn(L, x, t):
        grid = F(L).affine_grid(t, list(x.shape), align_corners=False)
        return F(L).grid_sample(x, grid, align_corners=False)
    check(fn, X4, theta, second=False, same_grad_fn=False)


def test_default_align_corners_warns_as_torch():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            F(lib).grid_sample(lib.tensor(X4), lib.tensor(G4))
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            F(lib).affine_grid(lib.tensor(G4[:, 0, :2, :1].repeat(3, -1)), (2, 1, 2, 2))


@pytest.mark.parametrize("call", [
    lambda L: F(L).grid_sample(L.ones(2, 3, 4, 5), L.ones(2, 6, 7, 2), mode="x"),
    lambda L: F(L).grid_sample(L.ones(2, 3, 4, 5), L.ones(2, 6, 7, 2), padding_mode="x"),
    lambda L: F(L).grid_sample(L.ones(3, 4, 5), L.ones(2, 6, 7, 2), align_corners=True),
    lambda L: F(L).grid_sample(L.ones(2, 3, 4, 5), L.ones(1, 6, 7, 2), align_corners=True),
    lambda L: F(L).grid_sample(L.ones(2, 3, 4, 5), L.ones(2, 6, 7, 3), align_corners=True),
    lambda L: F(L).grid_sample(L.ones(2, 3, 4, 5), L.ones(2, 6, 7, 2, dtype=L.float64),
                               align_corners=True),
    lambda L: F(L).grid_sample(L.ones(2, 3, 4, 5, dtype=L.int64),
                               L.ones(2, 6, 7, 2, dtype=L.int64), align_corners=True),
    lambda L: F(L).grid_sample(L.ones(2, 3, 0, 5), L.ones(2, 6, 7, 2), align_corners=True),
    lambda L: F(L).grid_sample(L.ones(2, 3, 4, 5, 6), L.ones(2, 6, 7, 2, 3), mode="bicubic",
                               align_corners=True),
    lambda L: F(L).affine_grid(L.ones(2, 2, 3), (2, 3, 4, 5, 6), align_corners=True),
    lambda L: F(L).affine_grid(L.ones(2, 3, 4), (2, 3, 4, 5), align_corners=True),
    lambda L: F(L).affine_grid(L.ones(2, 2, 3), (3, 3, 4, 5), align_corners=True),
    lambda L: F(L).affine_grid(L.ones(2, 2, 3, dtype=L.int64), (2, 3, 4, 5), align_corners=True),
    lambda L: F(L).affine_grid(L.ones(2, 2, 3), (2, 3, 4), align_corners=True),
])
def test_errors_as_torch(call):
    same_error(call)
