"""nn.functional: the stateless forms of the layers, activations and losses."""
from ..ops import api as _api
from ..ops import autocast as _autocast
from ..ops import linear_ops as _linear_ops
from ._functional_activation import *  # noqa: F401,F403
from ._functional_loss import *  # noqa: F401,F403
from ._functional_loss_extra import *  # noqa: F401,F403
from ._functional_misc import *  # noqa: F401,F403


def linear(input, weight, bias=None):
    """y = x W^T + b over the last dim of x (one fused node for 2-D x)."""
    input, weight, bias = _autocast.lower(input, weight, bias)
    if input._data.dtype != weight._data.dtype or (
            bias is not None and bias._data.dtype != weight._data.dtype):
        _linear_ops.refuse_mixed_dtypes(input, weight, bias)
    ndim = input.ndim
    if ndim == 2:
        cls = _linear_ops.AddmmBackward0 if bias is not None else _linear_ops.MmBackward0
        return cls.apply(bias, input, weight)
    if bias is None:
        return _api.matmul(input, _api.t(weight))
    if ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are 0D "
                           f"and {weight.ndim}D")
    lead = input.shape[:-1]
    flat = _api.reshape(input, (-1, input.shape[-1]))
    out = _linear_ops.AddmmBackward0.apply(bias, flat, weight)
    return _api.reshape(out, tuple(lead) + (out.shape[-1],))


from ._functional_bag import *  # noqa: E402, F401, F403
from ._functional_ctc import *  # noqa: E402, F401, F403
from ._functional_extra import *  # noqa: E402, F401, F403
from ._functional_fractional import *  # noqa: E402, F401, F403
from ._functional_grid import *  # noqa: E402, F401, F403
from ._functional_layers import *  # noqa: E402, F401, F403
from ._functional_linear_ce import *  # noqa: E402, F401, F403
from ._functional_pool3d import *  # noqa: E402, F401, F403
from ._functional_spatial import *  # noqa: E402, F401, F403
