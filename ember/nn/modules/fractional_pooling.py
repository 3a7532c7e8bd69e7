"""FractionalMaxPool2d/3d: max pooling with pseudo-random window steps (see F's forms)."""
from .. import _functional_fractional as F
from .module import Module


class _FractionalMaxPoolNd(Module):
    _ndim = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        name, ndim = type(self).__name__, self._ndim
        if ndim == 3 and any(k <= 0 for k in F._tuple(kernel_size, ndim)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = F._tuple(kernel_size, ndim)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = F._tuple(output_size, ndim) if output_size is not None else None
        self.output_ratio = F._tuple(output_ratio, ndim) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        pool = F.fractional_max_pool2d if self._ndim == 2 else F.fractional_max_pool3d
        return pool(input, self.kernel_size, self.output_size, self.output_ratio,
                    self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling over (H, W) of (N, C, H, W) or (C, H, W)."""

    _ndim = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling over (D, H, W) of (N, C, D, H, W) or (C, D, H, W)."""

    _ndim = 3
