"""Optimizer: the base class (param groups, state, hooks, state_dict) and the rule-running step."""
import functools
import warnings
from collections import OrderedDict, defaultdict

from .. import typename
from .._handles import RemovableHandle
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd._sparse_grad import SparseGrad
from . import _flat, _state_io

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Singleton marking an option that each parameter group must give."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()
_global_pre_hooks = OrderedDict()
_global_post_hooks = OrderedDict()


def _add_hook(hooks, hook):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def register_optimizer_step_pre_hook(hook):
    """A hook(optimizer, args, kwargs) run before every optimizer's step."""
    return _add_hook(_global_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """A hook(optimizer, args, kwargs) run after every optimizer's step."""
    return _add_hook(_global_post_hooks, hook)


def _with_hooks(step):
    """Wrap a subclass's ``step`` so the global and per-optimizer hooks run around it."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if self.__dict__.get("_in_step"):  # a subclass's step calling super().step()
            return step(self, *args, **kwargs)
        self._in_step = True
        try:
            return _run_hooked(self, step, args, kwargs)
        finally:
            self._in_step = False
    wrapper._hooked = True
    return wrapper


def _run_hooked(self, step, args, kwargs):
    """Pre-hooks (may replace the arguments), the step, post-hooks."""
    for hook in (*_global_pre_hooks.values(), *self._optimizer_step_pre_hooks.values()):
        result = hook(self, args, kwargs)
        if result is not None:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(f"{hook} must return None or a tuple of (new_args, "
                                   f"new_kwargs), but got {result}.")
            args, kwargs = result
    out = step(self, *args, **kwargs)
    for hook in (*self._optimizer_step_post_hooks.values(), *_global_post_hooks.values()):
        hook(self, args, kwargs)
    return out


class Optimizer:
    """Base class for all optimizers.

    ``params``: an iterable of tensors, of dicts (parameter groups with their own options) or of
    ``(name, tensor)`` pairs as from ``named_parameters()``; ``defaults``: the options' defaults.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(dict(group))

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked", False):
            cls.step = _with_hooks(step)

    # ----- pickling, printing -----
    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self.__dict__.pop("_flat_cache", None)  # views are rebuilt on the next step
        if not isinstance(self.state, defaultdict):
            self.state = defaultdict(dict, self.state)

    def __repr__(self):
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # ----- parameter groups -----
    def add_param_group(self, param_group):
        """Add a group of parameters (with its own options) to ``param_groups``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)
        _split_names(param_group)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        self._check_new_group(param_group)
        self.param_groups.append(param_group)

    def _check_new_group(self, param_group):
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=4)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                kind = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {kind} to the optimizer")
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")

    # ----- gradients and steps -----
    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all optimized tensors: to None (default) or to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                grad = p._grad
                if grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                elif grad.is_sparse:
                    grad.zero_()
                else:
                    if grad._grad_fn is not None:
                        grad.detach_()
                    else:
                        grad._requires_grad = False
                    grad._data[...] = 0

    def step(self, closure=None):
        """Perform one optimization step; subclasses implement it."""
        raise NotImplementedError

    def _run_closure(self, closure):
        if closure is None:
            return None
        with grad_mode.enable_grad():
            return closure()

    # An elementwise optimizer gives: _rule(p, g, state, **options, **extra) over arrays,
    # _rule_options(group), _init_state(array, group) and the names of its scalar state.
    _scalar_keys = ()
    _rule_keys = ()

    def _rule_options(self, group):
        """The group's options the rule takes, as keyword arguments."""
        options = {k: group[k] for k in self._rule_keys}
        if "lr" in options and isinstance(options["lr"], Tensor):
            options["lr"] = float(options["lr"].item())
        return options

    def _advance(self, scalars, group, fresh):
        """Advance the per-parameter scalar state in place; returns extra arguments of the rule."""
        step = scalars.get("step")
        if step is None:
            return {}
        step += 1
        return {"step": float(step)}

    def _rule_step(self, closure=None):
        """The step of an elementwise optimizer: its rule over each group, fused or per tensor."""
        loss = self._run_closure(closure)
        with grad_mode.no_grad():
            for group in self.param_groups:
                if any(p._grad is not None and p._grad.is_sparse for p in group["params"]):
                    self._sparse_group_step(group)
                else:
                    _flat.step_group(self, group)
        return loss

    # The rule for a sparse COO gradient, as (p, grad: SparseGrad, state, **options, **extra);
    # None where torch refuses sparse gradients.
    _sparse_rule = None
    _sparse_advice = ""

    def _sparse_group_step(self, group):
        """A group with a sparse gradient: torch's refusal (before any update of the group), or
        the rules a tensor at a time, ``_sparse_rule`` for the sparse gradients."""
        if self._sparse_rule is None:
            name = next(c.__name__ for c in type(self).__mro__ if "_rule" in c.__dict__)
            raise RuntimeError(f"{name} does not support sparse gradients{self._sparse_advice}")
        options = self._rule_options(group)
        for p in group["params"]:
            if p._grad is None:
                continue
            if p._grad.is_sparse:
                self._sparse_step(p, group, options)
            else:
                _flat._step_tensor(self, group, p, options)

    def _sparse_step(self, p, group, options):
        state = self.state.get(p)
        fresh = not state
        if fresh:
            state = {k: Tensor._make(v) for k, v in self._init_state(p._data, group).items()}
        scalars = {k: state[k]._data for k in self._scalar_keys if k in state}
        extra = self._advance(scalars, group, fresh)
        self._sparse_rule(p._data, SparseGrad.of(p._grad), state, **options, **extra)
        if state:  # (SGD without momentum keeps none)
            self.state[p] = state
        p._vc[0] += 1

    # ----- hooks -----
    def register_step_pre_hook(self, hook):
        """hook(optimizer, args, kwargs) before step; may return (new_args, new_kwargs)."""
        return _add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """hook(optimizer, args, kwargs) after step."""
        return _add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return _add_hook(self._optimizer_state_dict_post_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook)

    # ----- saving and loading -----
    def state_dict(self):
        """The state as torch lays it out: {'state': {id: {...}}, 'param_groups': [...]}."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        result = _state_io.pack(self.state, self.param_groups)
        for hook in self._optimizer_state_dict_post_hooks.values():
            out = hook(self, result)
            result = out if out is not None else result
        return result

    def load_state_dict(self, state_dict, strict=True):
        """Load a state_dict; all-or-nothing (a failed load changes nothing).

        When both sides carry ``param_names`` the entries are matched by name; ``strict=False``
        then loads what matches. Returns ``(missing_keys, unexpected_keys, mismatched_keys)``.
        """
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            out = hook(self, state_dict)
            state_dict = out if out is not None else state_dict
        state, groups, report = _state_io.unpack(self, state_dict, strict)
        self.__setstate__({"state": state, "param_groups": groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)
        return report


def _split_names(param_group):
    """Turn ``(name, tensor)`` pairs into ``params`` plus a ``param_names`` list."""
    params = param_group["params"]
    names = [p[0] for p in params if isinstance(p, tuple)]
    if not names:
        return
    if len(names) != len(params):
        raise ValueError("all optimizer params should be with/without names. Some param names "
                         "are missing")
    param_group["params"] = [p[1] for p in params]
    param_group["param_names"] = names
