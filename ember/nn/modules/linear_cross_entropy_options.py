"""torch.nn.modules.linear_cross_entropy_options's path (the class is in linear_cross_entropy)."""
from .linear_cross_entropy import LinearCrossEntropyOptions

__all__ = ["LinearCrossEntropyOptions"]
