"""nn.utils: gradient clipping, flattening parameters to one vector, padding sequences."""
from . import parametrizations, parametrize, prune, rnn  # noqa: F401
from .clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector", "vector_to_parameters"]
from .weight_norm import remove_weight_norm, weight_norm  # noqa: E402

__all__ += ["weight_norm", "remove_weight_norm"]
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402

__all__ += ["spectral_norm", "remove_spectral_norm"]
from . import fusion  # noqa: E402,F401
from .fusion import (  # noqa: E402
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)

__all__ += ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
            "fuse_linear_bn_weights"]
from . import stateless  # noqa: E402,F401
from .init import skip_init  # noqa: E402

__all__ += ["skip_init"]
