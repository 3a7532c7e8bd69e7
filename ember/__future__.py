"""ember.__future__: torch's opt-in switches for how Module conversions replace parameters."""

_overwrite_module_params_on_conversion = False
_swap_module_params_on_conversion = False


def set_overwrite_module_params_on_conversion(value):
    """True: ``module.to()``/``.double()``... put new Parameter objects in the module instead of
    changing the existing ones' data (references held elsewhere, e.g. by an optimizer, go stale)."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = value


def get_overwrite_module_params_on_conversion():
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value):
    """True: conversions and ``load_state_dict`` swap new contents into the existing Parameter
    objects with ``ember.utils.swap_tensors`` (identity kept, as without the switch)."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = value


def get_swap_module_params_on_conversion():
    return _swap_module_params_on_conversion
