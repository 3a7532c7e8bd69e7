"""torch.nn.modules.channelshuffle's path: ChannelShuffle (defined in extra.py)."""
from .extra import ChannelShuffle

__all__ = ["ChannelShuffle"]
