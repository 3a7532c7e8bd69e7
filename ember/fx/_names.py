"""torch's public functions as fx sees them: their printed names and the call sites to patch."""
import inspect
import sys
import types

import ember
from ember import fft, linalg, special
from ember import functional as torch_functional
from ember.nn import functional
from ember.ops import profiler

# (printed prefix, namespace): a function found in several prints with the last one's prefix
NAMESPACES = (("torch.special", special), ("torch.linalg", linalg), ("torch.fft", fft),
              ("torch.nn.functional", functional), ("torch", ember),
              ("torch.functional", torch_functional), ("torch.ops.profiler", profiler))

# functions that read no tensor (tracing would record them as calls of their own)
_NOT_TRACED = {"is_tensor", "is_storage", "typename", "manual_seed", "seed", "initial_seed",
               "is_grad_enabled", "is_inference_mode_enabled", "compile", "save", "load",
               "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
               "no_grad", "enable_grad", "inference_mode", "set_grad_enabled", "wrap"}

# nn.functional's functions that torch implements natively, with the name torch.fx prints for
# them: a call records its arguments as given; torch's Python ones record required arguments
# positionally and all others by keyword
NATIVE_FUNCTIONAL = {
    **{name: f"torch._C._nn.{name}" for name in (
        "avg_pool2d", "avg_pool3d", "elu_", "gelu", "hardtanh_", "leaky_relu_", "linear",
        "one_hot", "scaled_dot_product_attention", "softplus", "softshrink")},
    "logsigmoid": "torch._C._nn.log_sigmoid",
    **{name: f"torch.{name}" for name in (
        "adaptive_avg_pool1d", "avg_pool1d", "bilinear", "celu_", "channel_shuffle", "conv1d",
        "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d",
        "conv_transpose3d", "cosine_similarity", "hardshrink", "native_channel_shuffle",
        "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu", "relu_",
        "rrelu_", "selu_", "threshold_")}}

_names = {}  # id(function) -> (printed name, function, {its public names})


# private names torch's code calls (and fx records)
_PRIVATE_TRACED = {"_assert", "_record_function_enter", "_record_function_exit"}


def _traceable(name, value):
    return ((not name.startswith("_") or name in _PRIVATE_TRACED) and name not in _NOT_TRACED
            and callable(value)
            and not isinstance(value, (type, types.ModuleType)))


def _printed_names():
    """{id: (printed name, function, public names)} from NAMESPACES. A function bound under
    several names (ember's torch.arctan is its torch.atan) prints under the last one equal to its
    __name__; torch.functional's always print there (torch defines them in Python there)."""
    table = {}
    for prefix, namespace in NAMESPACES:
        for name, value in vars(namespace).items():
            if not _traceable(name, value):
                continue
            printed, _, known = table.get(id(value), (None, None, set()))
            own = getattr(value, "__name__", name)
            if printed is None or namespace is torch_functional or name == own or \
                    printed.rpartition(".")[2] != own:
                printed = f"{prefix}.{name}"
            table[id(value)] = (printed, value, known | {name})
    return table


def _use_native_names(table):
    """torch's native functions print under its native paths: nn.functional's listed ones,
    and all of special's, linalg's and fft's (unless ember shares them with torch.*)."""
    natives = [(getattr(functional, name, None), printed)
               for name, printed in NATIVE_FUNCTIONAL.items()]
    for short, namespace in (("special", special), ("linalg", linalg), ("fft", fft)):
        natives += [(fn, f"torch._C._{short}.{short}_{name}") for name, fn in
                    vars(namespace).items()
                    if table.get(id(fn), ("",))[0] == f"torch.{short}.{name}"]
    for fn, printed in natives:
        if id(fn) in table:
            table[id(fn)] = (printed, fn, table[id(fn)][2])


def public_functions():
    """{id: (printed name, function, public names)} of every traceable public function."""
    if not _names:
        table = _printed_names()
        _use_native_names(table)
        _names.update(table)
    return _names


def _entry(fn):
    found = public_functions().get(id(fn))
    return found if found is not None and found[1] is fn else None


def torch_name(fn):
    """'torch.cat', 'torch.nn.functional.relu', ... for a public function; for another of
    ember's, its path under torch ('torch.fx._symbolic_trace._assert_is_none'); else None."""
    found = _entry(fn)
    if found is not None:
        return found[0]
    module = getattr(fn, "__module__", None) or ""
    if module.startswith("ember.") and hasattr(fn, "__name__"):
        return f"torch.{module[6:]}.{fn.__name__}"
    return None


def node_name(fn):
    """The name nodes calling fn are named after: its own, or its public one where ember's
    differs (torch.matmul is ember's dispatch_matmul)."""
    found = _entry(fn)
    name = getattr(fn, "__name__", None)
    if found is None or (name in found[2] and not found[0].startswith("torch._C.")):
        return name
    return found[0].rpartition(".")[2]


def ember_modules():
    return [m for name, m in list(sys.modules.items())
            if (name == "ember" or name.startswith("ember.")) and m is not None]


def _bindings(namespace):
    """(name, bound value, function) of a module's attributes, or of a class's static methods
    (its plain functions are methods, bound to the instance: not torch.* calls)."""
    is_class = isinstance(namespace, type)
    for name, value in list(vars(namespace).items()):
        if isinstance(value, staticmethod):
            yield name, value, value.__func__
        elif not is_class:
            yield name, value, value


def patch_sites(modules):
    """[(namespace, attribute name, bound value, function)]: the modules' bindings of public
    functions, and their classes' static methods (ember's own modules call them through such
    aliases: nn's activations through ``_fn = staticmethod(F.relu)``)."""
    sites = []
    for module in modules:
        namespaces = [module] + [v for v in vars(module).values() if isinstance(v, type)
                                 and v.__module__ == module.__name__]
        for namespace in namespaces:
            sites.extend((namespace, name, value, fn) for name, value, fn in
                         _bindings(namespace) if _entry(fn) is not None)
    return sites


def call_arguments(fn, args, kwargs):
    """The (args, kwargs) torch records for a call of fn: its Python functions (nn.functional's,
    torch.functional's) pass required parameters positionally and all others, defaults filled,
    by keyword; its native ones record the call as made."""
    if not (torch_name(fn) or "").startswith(("torch.nn.functional.", "torch.functional.")):
        return args, kwargs
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return args, kwargs
    bound.apply_defaults()
    positional, keywords = [], {}
    for parameter in inspect.signature(fn).parameters.values():
        value = bound.arguments[parameter.name]
        if parameter.kind is parameter.VAR_POSITIONAL:
            positional.extend(value)
        elif parameter.kind is parameter.VAR_KEYWORD:
            keywords.update(value)
        elif parameter.default is parameter.empty and not keywords:
            positional.append(value)
        else:
            keywords[parameter.name] = value
    return tuple(positional), keywords
