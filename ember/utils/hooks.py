"""torch.utils.hooks: the handle every register_*_hook returns, and the decorator that marks a
hook as not to be saved with its tensor."""
from .._handles import RemovableHandle  # noqa: F401  (public, as torch.utils.hooks's)


def unserializable_hook(f):
    """Mark ``f`` as a hook not to be kept when its tensor is saved (torch's marker)."""
    f.__torch_unserializable__ = True
    return f
