"""torch._C._fft: torch.fft's functions under their native names (fft_<name>), the names
torch.fx prints for them."""
from ember import fft as _namespace

globals().update({f"fft_{name}": fn for name, fn in vars(_namespace).items()
                  if callable(fn) and not name.startswith("_") and not isinstance(fn, type)})
