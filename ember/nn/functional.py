"""nn.functional: the stateless forms of the layers, activations and losses."""
from ..ops import api as _api
from ..ops import autocast as _autocast
from ..ops import linear_ops as _linear_ops
from ._functional_activation import *  # noqa: F401,F403
from ._functional_loss import *  # noqa: F401,F403
from ._functional_loss_extra import *  # noqa: F401,F403
from ._functional_misc import *  # noqa: F401,F403


def linear(input, weight, bias=None):
    """y = x W^T + b over the last dim of x (one fused node where torch takes addmm or mm)."""
    input, weight, bias = _autocast.lower(input, weight, bias)
    ndim, wdim = input._data.ndim, weight._data.ndim
    if ndim == 0 or wdim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{ndim}D and {wdim}D")
    if wdim > 2:  # (torch's weight.t())
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {wdim}D")
    if bias is not None and (ndim == 2 or bias._data.ndim == 1 and (
            input.is_contiguous() or _linear_ops.fits(input, weight, bias))):
        return _linear_ops.addmm_linear(input, weight, bias)  # torch: addmm on the flattened x
    if bias is None and ndim == 2 and wdim == 2:
        _linear_ops.refuse_mm(input._data, weight._data)
        return _linear_ops.MmBackward0.apply(None, input, weight)
    out = _api.matmul(input, _api.t(weight))  # torch: matmul, then the bias added in place
    return out if bias is None else out.add_(bias)


from ._functional_bag import *  # noqa: E402, F401, F403
from ._functional_ctc import *  # noqa: E402, F401, F403
from ._functional_extra import *  # noqa: E402, F401, F403
from ._functional_fractional import *  # noqa: E402, F401, F403
from ._functional_grid import *  # noqa: E402, F401, F403
from ._functional_layers import *  # noqa: E402, F401, F403
from ._functional_linear_ce import *  # noqa: E402, F401, F403
from ._functional_pool3d import *  # noqa: E402, F401, F403
from ._functional_spatial import *  # noqa: E402, F401, F403
