"""The nn layer classes, gathered here as in torch.nn.modules."""
from .activation import *  # noqa: F401,F403
from .container import (  # noqa: F401
    Container,
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)
from .data_parallel import DataParallel  # noqa: F401
from .distance import CosineSimilarity, PairwiseDistance  # noqa: F401
from .dropout import Dropout  # noqa: F401
from .flatten import Flatten, Unflatten  # noqa: F401
from .linear import Bilinear, Identity, Linear  # noqa: F401
from .loss import *  # noqa: F401,F403
from .module import Module  # noqa: F401
from .padding import *  # noqa: F401,F403

# isort: split
from ._layers import *  # noqa: F401,F403

# isort: split
# torch.nn.modules' submodule paths that only re-export (scripts check nn.modules.batchnorm...)
from . import (  # noqa: E402, F401
    batchnorm,
    channelshuffle,
    fold,
    instancenorm,
    linear_cross_entropy_options,
    pixelshuffle,
    upsampling,
)
