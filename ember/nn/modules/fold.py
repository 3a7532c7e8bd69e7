"""torch.nn.modules.fold's path: Fold and Unfold (defined in spatial.py)."""
from .spatial import Fold, Unfold

__all__ = ["Fold", "Unfold"]
