"""functional_call: run a module with some parameters and buffers swapped for given tensors."""
import contextlib
import warnings

from ..._tensor import Tensor

__all__ = ["functional_call"]

_MISSING = object()  # marks a name the module did not have before the swap


def _check_name(name):
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')


def _swap_tensor(module, name, tensor):
    """Put ``tensor`` (or, for _MISSING, nothing) at ``module.<name>``; return what was there."""
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    _check_name(name)
    for store in (module._parameters, module._buffers):
        if name in store:
            orig = store[name]
            if tensor is _MISSING:
                del store[name]
            else:
                store[name] = tensor  # as torch: any tensor may stand in for a parameter
            return orig
    orig = getattr(module, name) if hasattr(module, name) else _MISSING
    if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return orig


def _submodule(root, path, memo):
    """root.<path> for a dotted path, with lookups cached in ``memo``."""
    if not path:
        return root
    if path not in memo:
        prefix, _, attr = path.rpartition(".")
        parent = _submodule(root, prefix, memo)
        try:
            child = getattr(parent, attr)
        except AttributeError as error:
            raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from error
        if not hasattr(child, "_parameters"):
            raise TypeError(f"submodule `{path}`: {child} is not an instance of torch.nn.Module")
        memo[path] = child
    return memo[path]


def _swap_all(root, named):
    """Swap every dotted name in ``named``; undo the ones done if one fails."""
    memo, originals = {}, {}
    try:
        for name, tensor in named.items():
            prefix, _, attr = name.rpartition(".")
            originals[name] = _swap_tensor(_submodule(root, prefix, memo), attr, tensor)
    except Exception:
        _swap_all(root, originals)
        raise
    return originals


def _untie(module, given):
    """Extend ``given`` so that every name sharing a tensor with a given name gets its value."""
    names_of = {}
    for name, tensor in [*module.named_parameters(remove_duplicate=False),
                         *module.named_buffers(remove_duplicate=False)]:
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    untied = dict(given)
    for name in (n for n in given if n in tied):
        if len({id(given[n]) for n in tied[name] if n in given}) > 1:
            raise ValueError(f"functional_call got multiple values for keys "
                             f"{sorted(tied[name])}, which are tied. Consider using "
                             "tie_weights=False")
        untied.update(dict.fromkeys(tied[name], given[name]))
    return untied


def _check_strict(module, keys):
    valid = {name for name, _ in [*module.named_parameters(remove_duplicate=False),
                                  *module.named_buffers(remove_duplicate=False)]}
    messages = []
    if set(keys) - valid:
        messages.append(f"Unexpected key(s): {', '.join(map(repr, sorted(set(keys) - valid)))}.")
    if valid - set(keys):
        messages.append(f"Missing key(s): {', '.join(map(repr, sorted(valid - set(keys))))}.")
    if messages:
        raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
            module._get_name(), "\n\t".join(messages)))


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    """Within the block the module sees the given tensors; afterwards its own come back, and
    tensors the module reassigned meanwhile are written back into ``parameters_and_buffers``."""
    given = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        _check_strict(module, given)
    originals = {}
    try:
        originals = _swap_all(module, given)
        yield
    finally:
        current = _swap_all(module, originals)
        parameters_and_buffers.update({k: current[k] for k in parameters_and_buffers
                                       if k in current})


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                     tie_weights=True, strict=False):
    """module(*args, **kwargs) with the given tensors in place of its own."""
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def _merge_dicts(parameter_and_buffer_dicts):
    """torch.func.functional_call's argument: one dict, or a list/tuple of disjoint dicts."""
    if isinstance(parameter_and_buffer_dicts, dict):
        return parameter_and_buffer_dicts
    if not isinstance(parameter_and_buffer_dicts, (list, tuple)):
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    counts = {}
    for key in (k for d in parameter_and_buffer_dicts for k in d):
        counts[key] = counts.get(key, 0) + 1
    repeated = [key for key, n in counts.items() if n > 1]
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional "
                         "call is ambiguous")
    return {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}


def _func_functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                          tie_weights=True, strict=False):
    """torch.func.functional_call (for ember.func to re-export): also takes a tuple of dicts."""
    return _functional_call(module, _merge_dicts(parameter_and_buffer_dicts), args, kwargs,
                            tie_weights=tie_weights, strict=strict)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Deprecated alias of torch.func.functional_call taking one dict (as torch, warns)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)
