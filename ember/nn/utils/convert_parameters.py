"""Flatten parameters into one vector and back."""
from ..._tensor import Tensor
from ...ops import api


def parameters_to_vector(parameters):
    """One 1-D tensor holding every parameter's values in order (a copy, differentiable)."""
    return api.cat([api.reshape(p, (-1,)) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Point each parameter's data at its slice of ``vec``."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected ember.Tensor, but got: {type(vec).__name__}")
    start = 0
    for p in parameters:
        n = p.numel()
        p.data = api.reshape(vec[start:start + n], tuple(p.shape)).data
        start += n
