"""torch.utils.tensorboard: SummaryWriter, writing TensorBoard event files via tensorboardX."""
from .writer import SummaryWriter

__all__ = ["SummaryWriter"]
