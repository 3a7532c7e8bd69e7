"""Shared test helper for the loss tests: reductions and random inputs (regression values,
probabilities, class indices) drawn from one generator."""
import numpy as np

REDUCTIONS = ["mean", "sum", "none"]
rng = np.random.default_rng(0)


def normal(*shape):
    return rng.standard_normal(shape)


def probs(*shape):
    return rng.uniform(0.05, 0.95, shape)


def classes(n, c, *rest, ignore=None):
    """Class indices of shape (n, *rest) (or rest when n is None), every third one set to
    ``ignore`` when given."""
    t = rng.integers(0, c, (n,) + rest) if n is not None else rng.integers(0, c, rest)
    if ignore is not None:
        t.reshape(-1)[::3] = ignore
    return t
