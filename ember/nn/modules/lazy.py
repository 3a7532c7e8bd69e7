"""Lazy modules (LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*):
their input size is read from the first input; until then the parameters are
UninitializedParameter. The first
forward materialises them, initialises them as the eager module would (same random draws, in
the same order) and turns the module into that eager class (``cls_to_become``)."""

from ... import _dtype
from ..._creation import tensor
from ...autograd import grad_mode
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from ._state import checking
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
)

__all__ = ["UninitializedParameter", "UninitializedBuffer", "LazyModuleMixin", "LazyLinear",
           "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """Materialise the module's uninitialised parameters from its first input."""

    cls_to_become = None

    def _lazy_setup(self):
        self._lazy_hook = self.register_forward_pre_hook(_infer_parameters)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Placeholders go in as they are (not detached), as torch's."""
        super()._save_to_state_dict(destination, prefix, keep_vars)
        for name, t in [*self._parameters.items(), *self._buffers.items()]:
            if is_lazy(t) and prefix + name in destination:
                destination[prefix + name] = t

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """A placeholder whose entry has a shape takes that shape first (torch's lazy load
        hook), then loads as any tensor; in load_state_dict's check pass it stays as it is."""
        if not checking():
            with grad_mode.no_grad():
                for name, t in [*self._parameters.items(), *self._buffers.items()]:
                    source = state_dict.get(prefix + name)
                    if is_lazy(t) and source is not None and not is_lazy(source):
                        t.materialize(source.shape)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def has_uninitialized_params(self):
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(is_lazy(t) for t in tensors)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for "
                                  f"{type(self).__name__}")


def _infer_parameters(module, args):
    module.initialize_parameters(*args)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {type(module).__name__} has not been fully initialized")
    module._lazy_hook.remove()
    del module._lazy_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


def _materialize(module, shapes):
    with grad_mode.no_grad():
        for name, shape in shapes.items():
            tensor = getattr(module, name)
            if is_lazy(tensor):
                tensor.materialize(shape)
        module.reset_parameters()


class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is the last dim of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Linear.__init__(self, 0, 0, False)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)
        self._lazy_setup()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            Linear.reset_parameters(self)

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            _materialize(self, {"weight": (self.out_features, self.in_features),
                                "bias": (self.out_features,)})


class _LazyConv(LazyModuleMixin):
    def _lazy_init(self, out_channels, bias, dtype):
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)
        self._lazy_setup()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            self.cls_to_become.reset_parameters(self)

    def initialize_parameters(self, input, *args):
        if not self.has_uninitialized_params():
            return
        batched = input.dim() == self._dims + 2
        self.in_channels = input.shape[1] if batched else input.shape[0]
        if self.in_channels % self.groups:
            raise ValueError("in_channels must be divisible by groups")
        shape = ((self.in_channels, self.out_channels // self.groups) if self.transposed else
                 (self.out_channels, self.in_channels // self.groups)) + self.kernel_size
        _materialize(self, {"weight": shape, "bias": (self.out_channels,)})


def _lazy_conv(eager):
    def __init__(self, out_channels, kernel_size, *args, bias=True, device=None, dtype=None,
                 **kwargs):
        eager.__init__(self, 0, 0, kernel_size, *args, bias=False, **kwargs)
        self._lazy_init(out_channels, bias, dtype)
    name = "Lazy" + eager.__name__
    return type(name, (_LazyConv, eager), {"__init__": __init__, "cls_to_become": eager,
                                          "__doc__": f"{eager.__name__} whose in_channels is "
                                                     "read from the first input."})


LazyConv1d, LazyConv2d, LazyConv3d = (_lazy_conv(c) for c in (Conv1d, Conv2d, Conv3d))
LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d = (
    _lazy_conv(c) for c in (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))


class _LazyNorm(LazyModuleMixin):
    def _lazy_init(self, dtype):
        if self.affine:
            self.weight = UninitializedParameter(dtype=dtype)
            self.bias = UninitializedParameter(dtype=dtype)
        if self.track_running_stats:
            self.register_buffer("running_mean", UninitializedBuffer(dtype=dtype))
            self.register_buffer("running_var", UninitializedBuffer(dtype=dtype))
        self._lazy_setup()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            self.cls_to_become.reset_parameters(self)

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            shape = (self.num_features,)
            _materialize(self, {name: shape for name in ("weight", "bias", "running_mean",
                                                         "running_var")})


def _lazy_norm(eager):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        eager.__init__(self, 0, eps, momentum, False, False)
        self.affine, self.track_running_stats = affine, track_running_stats
        if track_running_stats:
            self.register_buffer("num_batches_tracked", tensor(0, dtype=_dtype.int64))
        self._lazy_init(dtype)
    return type("Lazy" + eager.__name__, (_LazyNorm, eager),
                {"__init__": __init__, "cls_to_become": eager,
                 "__doc__": f"{eager.__name__} whose num_features is read from the first input."})


LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d = (
    _lazy_norm(c) for c in (BatchNorm1d, BatchNorm2d, BatchNorm3d))
# torch reads num_features from input.shape[1] for these too, even for an unbatched input
LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d = (
    _lazy_norm(c) for c in (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d))
