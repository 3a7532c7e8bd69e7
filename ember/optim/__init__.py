"""ember.optim: optimizers (each rule written once, run per tensor or fused) and schedulers."""
from . import lr_scheduler  # noqa: F401
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD"]
