"""torch._C._nn: nn.functional's functions that torch implements natively, under the names
torch.fx prints for them (torch._C._nn.linear, torch._C._nn.log_sigmoid, ...)."""
from ember.nn.functional import (  # noqa: F401
    avg_pool2d,
    avg_pool3d,
    elu_,
    gelu,
    hardtanh_,
    leaky_relu_,
    linear,
    one_hot,
    scaled_dot_product_attention,
    softplus,
    softshrink,
)
from ember.nn.functional import logsigmoid as log_sigmoid  # noqa: F401
