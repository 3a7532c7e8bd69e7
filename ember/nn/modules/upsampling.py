"""torch.nn.modules.upsampling's path: Upsample (spatial.py) and the Upsampling*2d layers
(extra.py)."""
from .extra import UpsamplingBilinear2d, UpsamplingNearest2d
from .spatial import Upsample

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]
