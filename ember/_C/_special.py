"""torch._C._special: torch.special's functions under their native names (special_<name>), the names
torch.fx prints for them."""
from ember import special as _namespace

globals().update({f"special_{name}": fn for name, fn in vars(_namespace).items()
                  if callable(fn) and not name.startswith("_") and not isinstance(fn, type)})
