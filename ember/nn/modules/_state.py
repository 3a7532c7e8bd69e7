"""Module state transfer: load_state_dict's key matching and copying, and Module.to's casting."""
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import _dtype
from ..._tensor import Tensor, device
from ...autograd import grad_mode


class _IncompatibleKeys(namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """load_state_dict's report: keys the model wanted but lacked, and keys it could not use."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


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
        if key not in state_dict:
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
    from ..parameter import Parameter
    with grad_mode.no_grad():
        for key, target in expected.items():
            if key not in state_dict:
                continue
            source = state_dict[key]
            if not assign:
                target.copy_(source)
                continue
            path, _, name = key.rpartition(".")
            owner = module.get_submodule(path)
            if isinstance(target, Parameter):
                owner._parameters[name] = Parameter(source, target.requires_grad)
            else:
                owner._buffers[name] = source


def _parse_to(args, kwargs):
    dtype = kwargs.get("dtype")
    for a in list(args) + [kwargs.get("device"), kwargs.get("tensor")]:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, (str, device)):
            device(a)  # validates: only 'cpu' exists
    return dtype


def module_to(module, *args, **kwargs):
    """Module.to(dtype | device | tensor): cast floating-point parameters and buffers."""
    dtype = _parse_to(args, kwargs)
    if dtype is None:
        return module
    if not dtype.is_floating_point:
        raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                        f"desired dtype={dtype}")
    return module._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)


__all__ = ["_IncompatibleKeys", "OrderedDict", "load_state_dict", "module_to"]
