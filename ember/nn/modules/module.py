"""nn.Module: the base class that registers parameters, buffers and sub-modules, and runs hooks."""
import itertools
from collections import OrderedDict

from ..._tensor import Tensor
from ..parameter import Parameter
from ._state import _IncompatibleKeys  # noqa: F401  (importable from here, as in torch)
from ._state import load_state_dict as _load_state_dict
from ._state import module_to as _module_to


class RemovableHandle:
    """Returned by the register_*_hook methods; ``remove()`` unregisters the hook."""

    _ids = itertools.count()

    def __init__(self, *dicts):
        self.id = next(self._ids)
        self._dicts = dicts

    def remove(self):
        for d in self._dicts:
            d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _typename(value):
    if isinstance(value, Tensor):
        return value.type()
    return type(value).__module__ + "." + type(value).__qualname__ \
        if type(value).__module__ != "builtins" else type(value).__name__


def _check_name(name, kind):
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')


class Module:
    """Base class for all neural network modules; subclasses define ``forward``."""

    training: bool
    _version = 1

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_hooks_with_kwargs"] = set()

    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    # ------------------------------------------------------------------ registration
    def register_parameter(self, name, param):
        """Add a parameter (or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(ember.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as a "
                             "function of another Tensor, compute the value in the forward() "
                             "method.")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor (or None) that is state but not a parameter, e.g. running statistics."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(ember Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Add a child module (or None) under ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        _check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params, modules, buffers = d.get("_parameters"), d.get("_modules"), d.get("_buffers")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep="_parameters")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(ember.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep="_modules")
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(ember.nn.Module or None expected)")
            modules[name] = None
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(ember.Tensor or None expected)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name, keep):
        """Drop ``name`` from the other stores (in ``keep`` it stays, keeping its position)."""
        d = self.__dict__
        d.pop(name, None)
        for store in ("_parameters", "_buffers", "_modules"):
            if store != keep:
                d[store].pop(name, None)
        d["_non_persistent_buffers_set"].discard(name)

    def __delattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if name in d.get(store, ()):
                del d[store][name]
                d["_non_persistent_buffers_set"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        extra = list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(set(object.__dir__(self)) | set(extra))

    # ------------------------------------------------------------------ traversal
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        seen = set()
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (module_prefix + "." if module_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, parameter) pairs, sub-modules' included with dotted names."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                   remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                   remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) for this module and every descendant, depth first, in order."""
        memo = set() if memo is None else memo
        if remove_duplicate and id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def get_submodule(self, target):
        """The descendant at dotted path ``target`` ('' is self)."""
        module = self
        for item in target.split(".") if target else ():
            if item not in module._modules:
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = module._modules[item]
        return module

    def get_parameter(self, target):
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if name not in module._parameters:
            raise AttributeError(f"{module._get_name()} has no parameter `{name}`")
        return module._parameters[name]

    def get_buffer(self, target):
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if name not in module._buffers:
            raise AttributeError(f"{module._get_name()} has no buffer `{name}`")
        return module._buffers[name]

    # ------------------------------------------------------------------ modes and state
    def train(self, mode=True):
        """Set training mode here and in every descendant; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            module.__dict__["training"] = mode
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters (to None by default, as torch)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad.detach_()
                p.grad.zero_()

    def apply(self, fn):
        """Call ``fn`` on every sub-module (children first) and then on self; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn):
        """Replace every parameter's and buffer's data by ``fn(tensor)`` (identity kept)."""
        for module in self.modules():
            for p in module._parameters.values():
                if p is not None:
                    p.data = fn(p)
                    if p._grad is not None:
                        p._grad = fn(p._grad)
            for name, b in module._buffers.items():
                if b is not None:
                    module._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Cast floating-point parameters and buffers to a dtype (the device must be 'cpu')."""
        return _module_to(self, *args, **kwargs)

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self):
        return self

    def cuda(self, device=None):
        return self.to("cuda")

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """Parameters and persistent buffers by dotted name, detached unless keep_vars."""
        if args:  # torch's deprecated positional form: (destination, prefix, keep_vars)
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        out = OrderedDict() if destination is None else destination
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                out[prefix + name] = b if keep_vars else b.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=out, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy tensors from ``state_dict``; report (or, if strict, refuse) key mismatches."""
        return _load_state_dict(self, state_dict, strict, assign)

    # ------------------------------------------------------------------ calling and hooks
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) -> None or new args, run before forward."""
        return self._add_hook(self._forward_pre_hooks, hook, prepend, with_kwargs)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """hook(module, args, output) -> None or a new output, run after forward."""
        return self._add_hook(self._forward_hooks, hook, prepend, with_kwargs)

    def _add_hook(self, hooks, hook, prepend, with_kwargs):
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        if with_kwargs:
            self._hooks_with_kwargs.add(handle.id)
        return handle

    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        with_kwargs = self._hooks_with_kwargs
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        output = self.forward(*args, **kwargs)
        for hook_id, hook in list(self._forward_hooks.items()):
            result = hook(self, args, kwargs, output) if hook_id in with_kwargs \
                else hook(self, args, output)
            if result is not None:
                output = result
        return output

    # ------------------------------------------------------------------ printing
    def extra_repr(self):
        """The text inside this module's parentheses (subclasses override)."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        lines = self.extra_repr().split("\n") if self.extra_repr() else []
        children = [f"({name}): {_indent(repr(module))}"
                    for name, module in self._modules.items()]
        if not lines and not children:
            return self._get_name() + "()"
        if len(lines) == 1 and not children:
            return f"{self._get_name()}({lines[0]})"
        body = "\n  ".join(lines + children)
        return f"{self._get_name()}(\n  {body}\n)"

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_hooks_with_kwargs", set())


def _indent(text):
    """Indent every line after the first by two spaces (nested module reprs)."""
    return text.replace("\n", "\n  ")

