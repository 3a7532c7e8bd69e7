"""torch.backends: the flags scripts set for GPU back ends; ember computes with NumPy on the CPU,
so the flags are kept (settable, with torch's defaults) and have no effect."""
from . import cuda, cudnn, mkldnn, mps, openmp  # noqa: F401
