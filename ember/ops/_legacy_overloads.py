"""torch's deprecated overloads that put a Number (``alpha``, ``value``) before the tensors:
``x.add_(-lr, grad)``, ``v.addcmul_(1 - beta, g, g)``; old scripts still call them."""
import numbers

from .._tensor import Tensor
from .._warn import warn_once


def scalar_first(name, keyword, names, args, keyword_given):
    """``args`` (the positional arguments after the tensor itself) read as torch's old
    ``name(Number keyword, Tensor *names)``: returns (the number, the tensors), with torch's
    deprecation warning; a TypeError for any other extra positional argument."""
    scalar, tensors = args[0], args[1:]
    old = ", ".join([f"Number {keyword}"] + [f"Tensor {n}" for n in names])
    new = ", ".join([f"Tensor {n}" for n in names] + ["*", f"Number {keyword} = 1"])
    if keyword_given or isinstance(scalar, (Tensor, bool)) or \
            not isinstance(scalar, numbers.Number) or len(tensors) != len(names) or \
            not all(isinstance(t, Tensor) for t in tensors):
        raise TypeError(f"{name}() received an invalid combination of arguments: "
                        f"{len(args)} positional arguments after the tensor; expected "
                        f"{name}({new}) (or the deprecated {name}({old}))")
    warn_once(f"This overload of {name} is deprecated:\n\t{name}({old})\nConsider using one of "
              f"the following signatures instead:\n\t{name}({new})", stacklevel=4)
    return scalar, tensors
