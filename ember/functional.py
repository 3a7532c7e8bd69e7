"""torch.functional: the torch.* functions torch writes in Python (split, einsum, norm, ...).
torch.fx records and prints calls of them under this module's path."""
from ember import (  # noqa: F401
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    broadcast_shapes,
    broadcast_tensors,
    cartesian_prod,
    cdist,
    chain_matmul,
    einsum,
    meshgrid,
    norm,
    split,
    tensordot,
    unique,
    unique_consecutive,
    unravel_index,
)
from ember._spectral import istft, stft  # noqa: F401
