"""torch.utils.dlpack: tensors to and from DLPack capsules / DLPack-speaking objects."""
from .._interop import from_dlpack, to_dlpack

__all__ = ["from_dlpack", "to_dlpack"]
