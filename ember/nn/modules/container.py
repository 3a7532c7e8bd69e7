"""Containers: Sequential, ModuleList, ModuleDict, ParameterList and ParameterDict."""
import operator
import warnings
from collections import OrderedDict
from collections.abc import Mapping

from ..parameter import Parameter
from .module import Module, _indent


def _index(idx, size):
    """A non-negative position from a possibly negative index, with torch's error."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class _Indexed(Module):
    """Shared by Sequential and ModuleList: modules stored under the keys '0', '1', ..."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(*self._slice_args(idx))
        return list(self._modules.values())[_index(idx, len(self))]

    def _slice_args(self, idx):
        return list(self._modules.values())[idx]

    def __setitem__(self, idx, module):
        key = list(self._modules)[_index(idx, len(self))]
        setattr(self, key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            keys = list(self._modules)[idx]
        else:
            keys = [list(self._modules)[_index(idx, len(self))]]
        for key in keys:
            del self._modules[key]
        self._renumber(list(self._modules.values()))

    def _renumber(self, modules):
        """Keep keys '0'..'n-1' after a deletion or insertion, as torch does."""
        self.__dict__["_modules"] = OrderedDict((str(i), m) for i, m in enumerate(modules))

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        modules = list(self._modules.values())
        modules.insert(index, module)
        if not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._renumber(modules)

    def pop(self, key=-1):
        module = self[key]
        del self[key]
        return module

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]


class Sequential(_Indexed):
    """Modules called in order, each on the previous one's output."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return super().__getitem__(idx)

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        return Sequential(*self, *other)

    def __mul__(self, factor):
        """The modules repeated ``factor`` times (the same module objects, as torch)."""
        if not isinstance(factor, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and "
                            f"{type(factor)}")
        if factor <= 0:
            raise ValueError(f"Non-positive multiplication factor {factor} for {type(self)}")
        return Sequential(*(list(self) * factor))

    __rmul__ = __mul__

    def __imul__(self, factor):
        repeated = self * factor
        for i, module in enumerate(repeated):
            self.add_module(str(i), module)
        return self

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(_Indexed):
    """A list of sub-modules, registered so that parameters() and state_dict() see them."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _slice_args(self, idx):
        return (list(self._modules.values())[idx],)

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList(list(self) + list(other))

    def __repr__(self):
        """Runs of identical modules print once, as '(0-2): 3 x Linear(...)' (torch's form)."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        lines, start = [], 0
        for i in range(1, len(reprs) + 1):
            if i < len(reprs) and reprs[i] == reprs[start]:
                continue
            text = _indent(reprs[start])
            count = i - start
            lines.append(f"({start}): {text}" if count == 1 else
                         f"({start}-{i - 1}): {count} x {text}")
            start = i
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')


class ModuleDict(Module):
    """A dict of sub-modules (insertion-ordered), registered under their keys."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        """Add (key, module) pairs from a mapping or an iterable of pairs."""
        is_map = isinstance(modules, (Mapping, ModuleDict))
        pairs = modules.items() if is_map else modules
        for j, pair in enumerate(pairs):
            if not is_map and len(pair) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length "
                                 f"{len(pair)}; 2 is required")
            self[pair[0]] = pair[1]


class ParameterList(Module):
    """A list of Parameters registered under '0', '1', ..."""

    def __init__(self, values=None):
        super().__init__()
        for value in values or ():
            self.append(value)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList(list(self)[idx])
        return list(self._parameters.values())[_index(idx, len(self))]

    def __setitem__(self, idx, param):
        self.register_parameter(str(_index(idx, len(self))), _as_parameter(param))

    def append(self, value):
        self.register_parameter(str(len(self)), _as_parameter(value))
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):  # (torch's two containers word their lines differently)
        return "\n".join(f"  ({i}): Parameter containing: [{p.dtype} of size "
                         f"{'x'.join(map(str, p.shape))}]" for i, p in enumerate(self))


class ParameterDict(Module):
    """A dict of Parameters registered under their keys."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, value):
        self.register_parameter(key, _as_parameter(value))

    def __delitem__(self, key):
        del self._parameters[key]

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def update(self, parameters):
        is_map = isinstance(parameters, (Mapping, ParameterDict))
        pairs = parameters.items() if is_map else parameters
        for key, value in pairs:
            self[key] = value

    def extra_repr(self):
        return "\n".join(f"  ({k}): Parameter containing: [{p.type()} of size "
                         f"{'x'.join(map(str, p.shape))}]" for k, p in self.items())


def _as_parameter(value):
    return value if isinstance(value, Parameter) or value is None else Parameter(value)


class Container(Module):
    """torch's deprecated container: a Module holding the keyword-named modules it is given."""

    def __init__(self, **kwargs):
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented "
                      "in `nn.Module`. Subclass that instead.", FutureWarning, stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)
