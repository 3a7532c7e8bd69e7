"""Module state: state_dict and load_state_dict, run as torch's per-module protocol (each module's
_save_to_state_dict / _load_from_state_dict, which subclasses may override; the state-dict hooks;
the version of each module in the dict's ``_metadata``), and the dtype conversions."""
import functools
import inspect
import threading
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import __future__, _dtype, _meta
from ..._creation import empty_like
from ..._device import device, on_meta
from ..._handles import RemovableHandle
from ..._tensor import Tensor
from ...autograd import grad_mode
from ...overrides import is_tensor_like
from ...utils import swap_tensors
from ..parameter import Parameter, is_lazy

_EXTRA_STATE = "_extra_state"
_pass = threading.local()  # .checking: load_state_dict's check pass is running (copy nothing)


class _IncompatibleKeys(namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """load_state_dict's report: keys the model wanted but lacked, and keys it could not use."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def checking():
    """Whether load_state_dict's check pass is running: ember's own _load_from_state_dict
    overrides then record what they would do, and change nothing."""
    return getattr(_pass, "checking", False)


def _overrides(module, method):
    """Whether the module's class defines its own ``method`` (get_/set_extra_state)."""
    return getattr(type(module), method) is not getattr(_StateDict, method)


# ---------------------------------------------------------------------- state_dict
def state_dict(module, destination, prefix, keep_vars):
    """The module's version under its prefix in ``destination._metadata`` (made with a fresh
    dict), the pre-hooks, this module's own state, the children's (depth first), the
    post-hooks. A post-hook registered with _register_state_dict_hook may return a dict that
    replaces the result (only the root's result reaches the caller)."""
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    local_metadata = {"version": module._version}
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = local_metadata
    for hook in module._state_dict_pre_hooks.values():
        hook(module, prefix, keep_vars)
    module._save_to_state_dict(destination, prefix, keep_vars)
    for name, child in module._modules.items():
        if child is not None:
            child.state_dict(destination=destination, prefix=prefix + name + ".",
                             keep_vars=keep_vars)
    for hook in module._state_dict_hooks.values():
        result = hook(module, destination, prefix, local_metadata)
        if getattr(hook, "_from_public_api", False):
            if result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        elif result is not None:
            destination = result
    return destination


def save_to_state_dict(module, destination, prefix, keep_vars):
    """Module._save_to_state_dict: this module's parameters, persistent buffers and extra
    state, not its children's."""
    for name, p in module._parameters.items():
        if p is not None:
            destination[prefix + name] = p if keep_vars else p.detach()
    for name, b in module._buffers.items():
        if b is not None and name not in module._non_persistent_buffers_set:
            destination[prefix + name] = b if keep_vars else b.detach()
    if _overrides(module, "get_extra_state"):
        destination[prefix + _EXTRA_STATE] = module.get_extra_state()


# ---------------------------------------------------------------------- load_state_dict
def load_state_dict(module, state_dict, strict=True, assign=False):
    """Run every module's _load_from_state_dict (children after their parent, each module's
    post-hooks after its children) over a copy of ``state_dict``; raise torch's error for
    missing or unexpected keys (if strict) and for the modules' error messages.

    Where the whole protocol is ember's own code (no load hooks, no _load_from_state_dict
    defined outside ember), it runs first as a check pass in which nothing is copied, so a
    load that will fail raises before the model changes. Otherwise it runs once, as torch's:
    hooks run once, and what was copied before an error stays copied (a custom
    _load_from_state_dict may also change the model itself before the error)."""
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    if _protocol_is_ours(module):
        before, _pass.checking = getattr(_pass, "checking", False), True
        try:
            _refuse(module, strict, *_run(module, state_dict, assign))
        finally:
            _pass.checking = before
    missing, unexpected, errors = _run(module, state_dict, assign)
    _refuse(module, strict, missing, unexpected, errors)
    return _IncompatibleKeys(missing, unexpected)


def _protocol_is_ours(module):
    """Whether loading runs only ember's code (so a check pass first is unobservable)."""
    for m in module.modules():
        if m._load_state_dict_pre_hooks or m._load_state_dict_post_hooks:
            return False
        owner = getattr(m._load_from_state_dict, "__module__", None)
        if not (isinstance(owner, str) and owner.startswith("ember.")):
            return False
    return True


def _run(module, state_dict, assign):
    """One pass of the protocol; (missing keys, unexpected keys, error messages)."""
    missing, unexpected, errors = [], [], []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)  # the modules may edit their copy
    if metadata is not None:
        state_dict._metadata = metadata

    def load(m, local_state, prefix):
        local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        m._load_from_state_dict(local_state, prefix, local_metadata, True, missing, unexpected,
                                errors)
        by_child = {}  # each child's keys (those starting with its prefix), in order
        for key, value in local_state.items():
            head, dot, _ = key[len(prefix):].partition(".")
            if dot and key.startswith(prefix):
                by_child.setdefault(head, {})[key] = value
        for name, child in m._modules.items():
            if child is not None:
                load(child, by_child.get(name, {}), prefix + name + ".")
        report = _IncompatibleKeys(missing, unexpected)  # the hooks may edit its lists
        for hook in m._load_state_dict_post_hooks.values():
            if hook(m, report) is not None:
                raise AssertionError(
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                    "expected to return new values, if incompatible_keys need to be modified, "
                    "it should be done inplace.")

    load(module, state_dict, "")
    return missing, unexpected, errors


def _quoted(keys):
    return ", ".join(f'"{k}"' for k in keys)


def _refuse(module, strict, missing, unexpected, errors):
    errors = list(errors)
    if strict and unexpected:
        errors.insert(0, f"Unexpected key(s) in state_dict: {_quoted(unexpected)}. ")
    if strict and missing:
        errors.insert(0, f"Missing key(s) in state_dict: {_quoted(missing)}. ")
    if errors:
        raise RuntimeError(f"Error(s) in loading state_dict for {type(module).__name__}:\n\t"
                           + "\n\t".join(errors))


def load_from_state_dict(module, state_dict, prefix, local_metadata, strict, missing_keys,
                         unexpected_keys, error_msgs):
    """Module._load_from_state_dict: run the load pre-hooks, then copy (or, with
    ``assign_to_params_buffers`` in local_metadata, assign) this module's parameters,
    persistent buffers and extra state from ``state_dict``, recording what is missing,
    unexpected or wrong. In load_state_dict's check pass it records without copying."""
    for hook in module._load_state_dict_pre_hooks.values():
        hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
             error_msgs)
    persistent = ((n, b) for n, b in module._buffers.items()
                  if n not in module._non_persistent_buffers_set)
    local = {n: t for n, t in [*module._parameters.items(), *persistent] if t is not None}
    assign = local_metadata.get("assign_to_params_buffers", False)
    copying = not checking()
    for name, target in local.items():
        key = prefix + name
        if key in state_dict:
            source = _checked_source(key, target, state_dict[key], error_msgs)
            if source is not None and copying:
                _put(module, name, key, target, source, assign, error_msgs)
        elif strict:
            missing_keys.append(key)
    extra = prefix + _EXTRA_STATE
    if _overrides(module, "set_extra_state"):
        if extra in state_dict and copying:
            module.set_extra_state(state_dict[extra])
        elif extra not in state_dict and strict:
            missing_keys.append(extra)
    elif strict and extra in state_dict:
        unexpected_keys.append(extra)
    if strict:
        unexpected_keys.extend(_unknown(module, state_dict, prefix, local, extra))


def _unknown(module, state_dict, prefix, local, extra):
    """The keys under ``prefix`` that name neither a child nor a tensor of this module."""
    for key in state_dict:
        if key.startswith(prefix) and key != extra:
            head, dot, _ = key[len(prefix):].partition(".")
            if head not in (module._modules if dot else local):
                yield key


def _checked_source(key, target, source, error_msgs):
    """``source`` shaped as ``target`` (a torch 0.3 one-element vector for a scalar is
    indexed; a lazy placeholder takes any shape), or None with an error recorded."""
    if not is_tensor_like(source):
        error_msgs.append(f'While copying the parameter named "{key}", expected ember.Tensor or '
                          f"Tensor-like object from checkpoint but received {type(source)}")
        return None
    if is_lazy(target):  # a lazy module's placeholder takes any shape (it is given it first)
        return source
    if is_lazy(source):  # torch fails reading its shape
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This "
                           "error usually happens in `load_state_dict` when trying to load an "
                           "uninitialized parameter into an initialized one. Call `forward` to "
                           "initialize the parameters before accessing their attributes.")
    if len(target.shape) == 0 and tuple(source.shape) == (1,):
        source = source[0]
    if source.shape != target.shape:
        error_msgs.append(f"size mismatch for {key}: copying a param with shape {source.shape} "
                          f"from checkpoint, the shape in current model is {target.shape}.")
        return None
    return source


def _put(module, name, key, target, source, assign, error_msgs):
    """Copy ``source`` into the parameter or buffer ``target`` (or put it in its place)."""
    if target.is_meta and not source.is_meta and not assign:
        warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to a "
                      "meta parameter in the current model, which is a no-op. (Did you mean to "
                      "pass `assign=True` to assign items in the state dictionary to their "
                      "corresponding key in the module instead of copying them in place?)",
                      UserWarning, stacklevel=2)
    swap = __future__.get_swap_module_params_on_conversion()
    try:
        with grad_mode.no_grad():
            if swap:  # torch's opt-in: the objects stay, their contents are exchanged
                new = target.module_load(source, assign=assign)
                if new is source or new is target:
                    raise RuntimeError("module_load returned one of self or other, please "
                                       ".detach() the result if returning one of the inputs "
                                       "in module_load")
                swap_tensors(target, _as_parameter_like(target, new))
            elif assign:
                setattr(module, name, _as_parameter_like(target, source))
            else:
                target.copy_(source)
    except Exception as ex:
        error_msgs.append(f'While {"swapping" if swap else "copying"} the parameter named '
                          f'"{key}", whose dimensions in the model are {target.size()} and whose '
                          f"dimensions in the checkpoint are {source.size()}, an exception "
                          f"occurred : {ex.args}.")


def _as_parameter_like(target, value):
    """``value`` as what takes ``target``'s place: a Parameter (with target's requires_grad)
    where target is one."""
    if not isinstance(target, Parameter):
        return value
    if isinstance(value, Parameter):
        return value.requires_grad_(target.requires_grad)
    return Parameter(value, requires_grad=target.requires_grad)


class _StateDict:
    """Module's state protocol (Module inherits it): state_dict and load_state_dict, the
    per-module steps subclasses may override, and their hooks."""

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """Parameters, persistent buffers and extra state by dotted name (detached unless
        keep_vars), in an OrderedDict whose ``_metadata`` holds each module's version."""
        if args:  # torch's deprecated positional form: (destination, prefix, keep_vars)
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning,
                          stacklevel=2)
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        return state_dict(self, destination, prefix, keep_vars)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Put this module's own state (not its children's) into ``destination``."""
        save_to_state_dict(self, destination, prefix, keep_vars)

    def get_extra_state(self):
        """Extra (non-tensor) state for state_dict; define it (and set_extra_state) to use it."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be "
                           "called. Please file an issue describing this.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be "
                           "called. Please file an issue describing this.")

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy tensors from ``state_dict`` (with assign, put them in place); report (or, if
        strict, refuse) key mismatches. A refused load leaves the model as it was unless a
        load hook or a _load_from_state_dict from outside ember takes part (see
        load_state_dict in ember/nn/modules/_state.py)."""
        return load_state_dict(self, state_dict, strict, assign)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Load this module's own state (not its children's) from ``state_dict`` (a copy it
        may edit), adding to the three lists; ``local_metadata``: what state_dict recorded
        for this module (its ``version``), empty for a dict without ``_metadata``."""
        load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                             unexpected_keys, error_msgs)

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars) -> None, run before the module saves its state."""
        return _add(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) -> None, run once the module and
        its children have saved; it may edit state_dict in place."""
        hook._from_public_api = True  # (torch marks the function itself)
        return _add(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook):
        """The older form of register_state_dict_post_hook: a dict the hook returns replaces
        the result (which reaches the caller only from the root module)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via register_state_dict_post_hook")
        return _add(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs) -> None, run (by _load_from_state_dict) before the module
        loads its own state; it may edit state_dict, a copy."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """As register_load_state_dict_pre_hook; without with_module the hook is not given
        the module."""
        return _add(self._load_state_dict_pre_hooks,
                    functools.partial(hook, self) if with_module else hook)

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) -> None, run after the module and its children
        loaded; editing incompatible_keys' lists in place changes what a strict load
        refuses."""
        return _add(self._load_state_dict_post_hooks, hook)


def _add(hooks, hook):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


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
