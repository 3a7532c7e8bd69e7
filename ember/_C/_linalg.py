"""torch._C._linalg: torch.linalg's functions under their native names (linalg_<name>), the names
torch.fx prints for them."""
from ember import linalg as _namespace

globals().update({f"linalg_{name}": fn for name, fn in vars(_namespace).items()
                  if callable(fn) and not name.startswith("_") and not isinstance(fn, type)})
