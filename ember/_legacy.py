"""Legacy typed constructors (torch.FloatTensor, LongTensor, ...) and their isinstance checks."""
from . import _dtype
from ._creation import empty, tensor
from ._device import check_device
from ._tensor import Size, Tensor
from ._warn import warn_once


class _TensorType(type):
    """The type of ``ember.FloatTensor``: calling it builds a tensor of its dtype, and
    ``isinstance(t, ember.FloatTensor)`` is true for float32 tensors."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __call__(cls, *args, device=None):
        check_device(device)
        if len(args) == 1 and isinstance(args[0], Tensor):
            return _same_dtype(cls, args[0])
        if not args or all(isinstance(a, int) for a in args) or \
                (len(args) == 1 and isinstance(args[0], Size)):
            return empty(*(args or (0,)), dtype=cls.dtype)
        if len(args) == 1:
            return tensor(args[0], dtype=cls.dtype)
        raise TypeError(f"{cls.__name__}() received an invalid combination of arguments")

    def __repr__(cls):
        return f"<class 'ember.{cls.__name__}'>"


def _same_dtype(cls, source):
    if source.dtype is not cls.dtype:
        raise TypeError(f"expected TensorOptions(dtype={cls.dtype.c_name}, device=cpu) (got "
                        f"TensorOptions(dtype={source.dtype.c_name}, device=cpu))")
    return source.detach()


def _legacy_type(d):
    return _TensorType(f"{d.scalar_name}Tensor", (), {"dtype": d, "__module__": "ember"})


TYPES = {f"{d.scalar_name}Tensor": _legacy_type(d) for d in _dtype._ALL}


def by_name(name):
    """The typed constructor for 'ember.FloatTensor' / 'torch.FloatTensor' / 'FloatTensor'."""
    return TYPES.get(name.rsplit(".", 1)[-1])


def set_default_tensor_type(t):
    """torch.set_default_tensor_type (deprecated): the default dtype from a floating typed
    constructor (ember.DoubleTensor) or its name ('torch.DoubleTensor')."""

    warn_once("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
              "torch.set_default_dtype() and torch.set_default_device() as alternatives.")
    if isinstance(t, str):
        if ".cuda." in t:
            raise TypeError(f"type {t} not available. Torch not compiled with CUDA enabled.")
        found = by_name(t)
        if found is None:
            module, _, name = t.rpartition(".")
            raise AttributeError(f"module '{module or 'torch'}' has no attribute '{name}'")
        t = found
    if type(t) is not _TensorType:
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(t.dtype)
