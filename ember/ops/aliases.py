"""torch's alias functions that name their arguments differently from the function they alias
(dot, mv, swapaxes, true_divide, concatenate, det, inverse): the names torch's parser takes."""
from . import api
from . import shape as S


def dot(input, tensor):
    """Inner product of two 1-D tensors."""
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and "
                           f"{tensor._data.ndim}D tensors")
    return api.matmul(input, tensor)


def mv(input, vec):
    """Matrix @ vector."""
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input._data.ndim}, "
                           f"{vec._data.ndim}")
    return api.matmul(input, vec)


def swapaxes(input, axis0, axis1):
    """Swap two dims (numpy's name for transpose)."""
    return api.transpose(input, axis0, axis1)


def true_divide(input, other):
    """input / other (true division)."""
    return api.div(input, other)


def concatenate(tensors, dim=0):
    """cat under NumPy's name (``axis=`` works too, as for every function with out=)."""
    return api.cat(S.tensor_list("concatenate", tensors), dim)


def det(input):
    """Determinant of each square matrix (torch.linalg.det)."""
    from .. import linalg  # late binding up: ember.linalg builds on ops
    return linalg.det(input)


def inverse(input):
    """Inverse of each square matrix (torch.linalg.inv)."""
    from .. import linalg  # late binding up: ember.linalg builds on ops
    return linalg.inv(input)
