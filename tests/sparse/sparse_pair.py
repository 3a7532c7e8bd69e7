"""Shared by the sparse tests: the same sparse COO tensor built in ember and in torch."""
import warnings

import numpy as np
import torch

import ember

INDICES = np.array([[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]])  # (0, 2) twice: uncoalesced
VALUES = np.array([3.0, -4.0, 5.0, 6.0, 0.5], dtype=np.float32)


def pair(indices=INDICES, values=VALUES, size=(3, 3), requires_grad=False):
    """(ember sparse, torch sparse, ember values, torch values); values as leaves."""
    ev = ember.tensor(values, requires_grad=requires_grad)
    tv = torch.tensor(values, requires_grad=requires_grad)
    return (ember.sparse_coo_tensor(indices, ev, size), torch.sparse_coo_tensor(
        torch.tensor(indices), tv, size), ev, tv)


def raises_like(ember_fn, torch_fn):
    """Both raise the same exception type; returns ember's message."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch_fn()
        except Exception as error:  # noqa: BLE001  (the oracle's type is what is compared)
            expected = type(error)
        else:
            raise AssertionError("torch did not raise")
    try:
        ember_fn()
    except expected as error:
        return str(error)
    raise AssertionError(f"ember did not raise {expected.__name__}")
