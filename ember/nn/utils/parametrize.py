"""nn.utils.parametrize, as torch's: a module's parameter or buffer computed by modules.

``register_parametrization(module, "weight", P())`` moves the tensor to
``module.parametrizations.weight.original`` and makes ``module.weight`` a property of a new
class ``Parametrized<Name>`` that returns ``P()(original)`` (every registered parametrization
applied in order). Assigning to ``module.weight`` goes back through their ``right_inverse``
methods. ``cached()`` computes each parametrized tensor once inside its block.
"""
import contextlib
from collections.abc import Sequence

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["ParametrizationList", "cached", "is_parametrized", "register_parametrization",
           "remove_parametrizations", "type_before_parametrizations"]

_cache_enabled = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Inside this block each parametrized tensor is computed once, at its first use."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register_tensor(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_in_place(dest, src):
    """The original tensor takes the new value and keeps its identity (optimizers hold it)."""
    dest.data = src


def _inverse_of_all(modules, value):
    """Each module's ``right_inverse`` from the last registered to the first; a module without
    one (or whose one raises NotImplementedError) counts as the identity."""
    for module in reversed(modules):
        if hasattr(module, "right_inverse"):
            try:
                value = module.right_inverse(value)
            except NotImplementedError:
                pass
    return value


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, and its unparametrized value: ``original`` (or
    ``original0``, ``original1``... when the first ``right_inverse`` returns a sequence)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        with no_grad():
            new = _inverse_of_all(list(self), original)
        if isinstance(new, Tensor):
            self._keep_one(original, new)
        elif isinstance(new, Sequence):
            self._keep_many(original, new)
        else:
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        if not unsafe:
            self._check_consistent(original.shape, original.dtype)

    def _keep_one(self, original, new):
        self.is_tensor, self.ntensors = True, 1
        if new.dtype != original.dtype:
            raise ValueError("When `right_inverse` outputs one tensor, it may not change the "
                             f"dtype.\noriginal.dtype: {original.dtype}\n"
                             f"right_inverse(original).dtype: {new.dtype}")
        with no_grad():
            _set_in_place(original, new)
        _register_tensor(self, "original", original)

    def _keep_many(self, original, new):
        self.is_tensor, self.ntensors = False, len(new)
        for i, item in enumerate(new):
            if not isinstance(item, Tensor):
                raise ValueError("'right_inverse' must return a sequence of tensors. Got element "
                                 f"{i} of the sequence with type {type(item).__name__}.")
            if isinstance(original, Parameter):
                item = Parameter(item.detach(), original.requires_grad)
            _register_tensor(self, f"original{i}", item)

    def _check_consistent(self, shape, dtype):
        with no_grad():
            Z = self()
        if not isinstance(Z, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
        if Z.dtype != dtype:
            raise ValueError("Registering a parametrization may not change the dtype of the "
                             "tensor, unless `unsafe` flag is enabled.\n"
                             f"unparametrized dtype: {dtype}\nparametrized dtype: {Z.dtype}")
        if Z.shape != shape:
            raise ValueError("Registering a parametrization may not change the shape of the "
                             "tensor, unless `unsafe` flag is enabled.\n"
                             f"unparametrized shape: {shape}\nparametrized shape: {Z.shape}")

    def right_inverse(self, value):
        """Set the original tensor(s) so that the parametrized tensor is (about) ``value``."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                self._set_one(value)
            else:
                self._set_many(value)

    def _set_one(self, value):
        if not isinstance(value, Tensor):
            raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
        if value.dtype != self.original.dtype:
            raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                             f"while `original` has dtype {self.original.dtype}")
        _set_in_place(self.original, value)

    def _set_many(self, value):
        if not isinstance(value, Sequence) or len(value) != self.ntensors:
            raise ValueError(f"'right_inverse' must return a sequence of {self.ntensors} "
                             f"tensors. Got {type(value).__name__}.")
        for i, tensor in enumerate(value):
            original_i = getattr(self, f"original{i}")
            if tensor.dtype != original_i.dtype:
                raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                 f"{tensor.dtype} while `original{i}` has dtype "
                                 f"{original_i.dtype}")
            _set_in_place(original_i, tensor)

    def forward(self):
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _inject_new_class(module):
    """Give this one module its own subclass, where the parametrized properties live."""
    cls = module.__class__
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {})


def _inject_property(module, tensor_name):
    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_appended(module, tensor_name, parametrization):
    """A parametrization added to a parametrized tensor must keep its shape and dtype."""
    Y = getattr(module, tensor_name)
    X = parametrization(Y)
    if not isinstance(X, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
    for what in ("dtype", "shape"):
        if getattr(X, what) != getattr(Y, what):
            raise ValueError(
                f"Registering a parametrization may not change the {what} of the tensor, unless "
                f"the `unsafe` flag is enabled.\nmodule.{tensor_name}.{what}: "
                f"{getattr(Y, what)}\nparametrization(module.{tensor_name}).{what}: "
                f"{getattr(X, what)}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        Z = parametrization.right_inverse(X)
    except NotImplementedError:
        return
    if not isinstance(Z, Tensor):
        raise ValueError("parametrization.right_inverse must return a tensor. Got: "
                         f"{type(Z).__name__}")
    for what in ("dtype", "shape"):
        if getattr(Z, what) != getattr(Y, what):
            raise ValueError(
                f"The tensor returned by parametrization.right_inverse must have the same {what} "
                f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                f"module.{tensor_name}.{what}: {getattr(Y, what)}\n"
                f"returned {what}: {getattr(Z, what)}")


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` be computed by ``parametrization`` from its original value
    (appended after any parametrization already there). Returns ``module``."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_appended(module, tensor_name, parametrization)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has a parametrization (on ``tensor_name``, when given)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def _final_tensor(module, tensor_name, plist, leave_parametrized):
    """The tensor that takes the parametrized name back when its parametrizations go."""
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
                _set_in_place(original, value)
        return original
    if not leave_parametrized:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    with no_grad():
        value = getattr(module, tensor_name)
    if isinstance(plist.original0, Parameter):
        return Parameter(value.detach(), value.requires_grad)
    return value


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo ``register_parametrization`` on ``tensor_name``: the tensor becomes a plain parameter
    or buffer again, holding its parametrized value (``leave_parametrized``) or its original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    original = _final_tensor(module, tensor_name, plist, leave_parametrized)
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_tensor(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before parametrizations were registered on it."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)
