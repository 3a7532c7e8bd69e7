"""torch.autograd.Variable: the pre-0.4 wrapper; today every tensor is a Variable."""
import warnings

from .._tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)

    def __call__(cls, data, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "torch.no_grad():` instead.", UserWarning, stacklevel=2)
        return data.detach().requires_grad_(requires_grad)  # a new leaf sharing data's memory


class Variable(metaclass=_VariableMeta):
    """``Variable(tensor, requires_grad=False)``: a new leaf tensor sharing ``tensor``'s data."""
