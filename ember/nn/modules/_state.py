"""Module state: state_dict, load_state_dict's key matching and copying, dtype conversions."""
import functools
import inspect
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import __future__, _dtype, _meta
from ..._creation import empty_like
from ..._device import device, on_meta
from ..._tensor import Tensor
from ...autograd import grad_mode
from ..parameter import Parameter


class _IncompatibleKeys(namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """load_state_dict's report: keys the model wanted but lacked, and keys it could not use."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _has_extra_state(module):
    return type(module).get_extra_state is not _module_class().get_extra_state


def _module_class():
    from .module import Module  # module builds on _state (a cycle)
    return Module


def state_dict(module, destination, prefix, keep_vars):
    """Parameters, persistent buffers and any extra state, depth first, with dotted names."""
    out = OrderedDict() if destination is None else destination
    for name, p in module._parameters.items():
        if p is not None:
            out[prefix + name] = p if keep_vars else p.detach()
    for name, b in module._buffers.items():
        if b is not None and name not in module._non_persistent_buffers_set:
            out[prefix + name] = b if keep_vars else b.detach()
    if _has_extra_state(module):
        out[prefix + "_extra_state"] = module.get_extra_state()
    for name, child in module._modules.items():
        if child is not None:
            child.state_dict(destination=out, prefix=prefix + name + ".", keep_vars=keep_vars)
    return out


def _owners(module):
    """Dotted path of every sub-module -> its position in depth-first order."""
    return {name: i for i, (name, _) in enumerate(module.named_modules(remove_duplicate=False))}


def _unexpected(state_dict, expected, owners):
    """Keys the model has no slot for, grouped by the deepest module their path reaches (torch's
    order: each module reports its own unexpected keys, modules visited depth first)."""
    found = []
    for order, key in enumerate(state_dict):
        if key in expected:
            continue
        parts = key.split(".")
        owner = 0
        for n in range(len(parts) - 1, 0, -1):
            path = ".".join(parts[:n])
            if path in owners:
                owner = owners[path]
                break
        found.append((owner, order, key))
    return [key for _, _, key in sorted(found)]


def _size_errors(state_dict, expected):
    errors = []
    for key, target in expected.items():
        if key not in state_dict or key.rpartition(".")[2] == "_extra_state":
            continue
        source = state_dict[key]
        if not isinstance(source, Tensor):
            errors.append(f'While copying the parameter named "{key}", expected ember.Tensor or '
                          f"Tensor-like object from checkpoint but received {type(source)}")
        elif source.shape != target.shape:
            errors.append(f"size mismatch for {key}: copying a param with shape {source.shape} "
                          f"from checkpoint, the shape in current model is {target.shape}.")
    return errors


def load_state_dict(module, state_dict, strict=True, assign=False):
    """Check every key and shape first, so a refused load leaves the model untouched."""
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    expected = module.state_dict(keep_vars=True)
    missing = [k for k in expected if k not in state_dict]
    unexpected = _unexpected(state_dict, expected, _owners(module))
    errors = _size_errors(state_dict, expected)
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: "
                          f"{', '.join(repr(k).replace(chr(39), chr(34)) for k in unexpected)}. ")
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: "
                          f"{', '.join(repr(k).replace(chr(39), chr(34)) for k in missing)}. ")
    if errors:
        raise RuntimeError(f"Error(s) in loading state_dict for {module._get_name()}:\n\t"
                           + "\n\t".join(errors))
    _copy_in(module, state_dict, expected, assign)
    return _IncompatibleKeys(missing, unexpected)


def _copy_in(module, state_dict, expected, assign):
    with grad_mode.no_grad():
        for key, target in expected.items():
            if key not in state_dict:
                continue
            source = state_dict[key]
            path, _, name = key.rpartition(".")
            if name == "_extra_state":
                module.get_submodule(path).set_extra_state(source)
                continue
            if not assign:
                _warn_if_meta(name, target, source)
                target.copy_(source)
                continue
            owner = module.get_submodule(path)
            if isinstance(target, Parameter):
                owner._parameters[name] = Parameter(source, target.requires_grad)
            else:
                owner._buffers[name] = source


def _warn_if_meta(name, target, source):
    if target.is_meta and not source.is_meta:
        warnings.warn(f"for {name}: copying from a non-meta parameter in the checkpoint to a "
                      "meta parameter in the current model, which is a no-op. (Did you mean to "
                      "pass `assign=True` to assign items in the state dictionary to their "
                      "corresponding key in the module instead of copying them in place?)",
                      UserWarning, stacklevel=4)


def _parse_to(args, kwargs):
    """(dtype, device) of Module.to's call forms; either may be None."""
    dtype, target = kwargs.get("dtype"), None
    for a in list(args) + [kwargs.get("device"), kwargs.get("tensor")]:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, target = a.dtype, a.device
        elif isinstance(a, (str, device)):
            on_meta(a)  # torch's error for a device ember lacks
            target = a
    return dtype, target


def module_to(module, *args, **kwargs):
    """Module.to(dtype | device | tensor, memory_format=): cast floating-point parameters and
    buffers, move them between the CPU and the meta device, lay 4-d/5-d ones out anew."""
    dtype, target = _parse_to(args, kwargs)
    if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
        raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                        f"desired dtype={dtype}")
    if dtype is not None and dtype.is_complex:
        warnings.warn("Complex modules are a new feature under active development whose design "
                      "may change, and some modules might not work as expected when using "
                      "complex tensors as parameters or buffers. Please file an issue at "
                      "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml if "
                      "a complex module does not work as expected.", stacklevel=3)
    if target is not None and not on_meta(target) and any(
            t.is_meta for t in list(module.parameters()) + list(module.buffers())):
        raise NotImplementedError(f"{_meta.CANNOT_COPY} Please use torch.nn.Module.to_empty() "
                                  "instead of torch.nn.Module.to() when moving module from meta "
                                  "to a different device.")
    fmt = kwargs.get("memory_format")  # applied to 4-d and 5-d tensors only, as torch
    if dtype is None and target is None and fmt is None:
        return module
    return module._apply(lambda t: t.to(target, dtype if t.is_floating_point() or t.is_complex()
                                        else None,
                                        memory_format=fmt if t.dim() in (4, 5) else None))


def _placing(init):
    """A module's ``__init__`` whose ``device=`` (e.g. 'meta') is the default device while it
    runs, so that every tensor it makes lands there, as torch's factory_kwargs."""
    parameters = inspect.signature(init).parameters
    positional = parameters["device"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    position = list(parameters).index("device") if positional else None  # (self counts)

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        where = kwargs.get("device")
        if where is None and position is not None and len(args) >= position:
            where = args[position - 1]
        if where is None:
            return init(self, *args, **kwargs)
        with device(where):
            return init(self, *args, **kwargs)
    return __init__


class _Conversions:
    """Module's dtype and device conversions (Module inherits them), all through _apply."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and "device" in inspect.signature(init).parameters:
            cls.__init__ = _placing(init)

    def _apply(self, fn, recurse=True):
        """Replace every parameter's and buffer's data by ``fn(tensor)`` (identity kept, unless
        ``ember.__future__``'s overwrite switch is on); children first, as torch."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        # swap keeps the objects (as the default path does) and wins over overwrite, as in torch
        overwrite = (__future__.get_overwrite_module_params_on_conversion()
                     and not __future__.get_swap_module_params_on_conversion())
        for name, p in self._parameters.items():
            if p is None:
                continue
            grad = None if p._grad is None else fn(p._grad)
            if overwrite:  # torch's opt-in: new Parameter objects, old references go stale
                p = self._parameters[name] = Parameter(fn(p), p.requires_grad)
            else:
                p.data = fn(p)
            p._grad = grad
        for name, b in self._buffers.items():
            if b is not None:
                self._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Cast floating-point parameters and buffers to a dtype (the device must be 'cpu')."""
        return module_to(self, *args, **kwargs)

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self):
        return module_to(self, "cpu")

    def share_memory(self):
        """Every parameter and buffer (and gradient) into shared memory: see
        Tensor.share_memory_ and ember.multiprocessing."""
        for t in list(self.parameters()) + list(self.buffers()):
            t.share_memory_()
        return self

    def compile(self, *args, **kwargs):
        """Accepted for compatibility: there is no compiler; the module runs as written."""

    def to_empty(self, *, device=None, recurse=True):
        """Fresh uninitialised storage on ``device`` (None: each tensor's own) for every
        parameter and buffer: how a model built on the meta device gets memory."""
        return self._apply(lambda t: empty_like(t, device=device), recurse)

    def cuda(self, device=None):
        return self.to("cuda")


__all__ = ["_IncompatibleKeys", "OrderedDict", "load_state_dict", "module_to"]
