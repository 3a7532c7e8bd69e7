"""torch.nn.modules.pixelshuffle's path: PixelShuffle and PixelUnshuffle (in spatial.py)."""
from .spatial import PixelShuffle, PixelUnshuffle

__all__ = ["PixelShuffle", "PixelUnshuffle"]
