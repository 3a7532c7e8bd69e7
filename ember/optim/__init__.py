"""ember.optim: optimizers (each rule written once, run per tensor or fused) and schedulers."""
from . import lr_scheduler  # noqa: F401
from ._stateless import swap_in_optimizer_params_and_state
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS",
           "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD",
           "SparseAdam", "swap_in_optimizer_params_and_state"]


def __getattr__(name):
    if name == "swa_utils":  # loads nn (its BatchNorm and Module): only when asked for
        import importlib
        return importlib.import_module(".swa_utils", __name__)
    raise AttributeError(f"module 'ember.optim' has no attribute '{name}'")
