"""nn.functional's affine_grid and grid_sample (4-D and 5-D), composed from ember's ops so that
gradients reach the input, the grid and theta.

grid_sample maps each grid coordinate to a pixel position, applies the padding mode to it, and
reads the input there: bilinear (trilinear) as the weighted sum of the 2**d neighbouring pixels,
nearest as the pixel at the rounded position (half to even, as torch). A neighbour outside the
input reads zero. The padding modes are piecewise linear in the position: each is applied as
``value + multiplier * (position - its value)``, the multiplier (1, 0 or -1) being torch's
derivative of the clip or reflection, so gradients match torch's exactly at the boundaries too.
"""
import itertools
import warnings

import numpy as np

import ember
from ember.autograd.graph import Node

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False "
                  "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
                  "See the documentation of grid_sample for details.")


def _base(n, align_corners, dtype):
    """The normalized coordinates of n pixel centres (of n pixel corners if align_corners)."""
    if n <= 1:
        return np.zeros(max(n, 0), dtype)
    steps = np.linspace(-1.0, 1.0, n, dtype=dtype)
    return steps if align_corners else steps * np.asarray((n - 1) / n, dtype)


def _check_theta(theta, size):
    spatial = len(size) - 2
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if spatial not in (2, 3):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {tuple(size)}.")
    if theta.dim() != 3 or tuple(theta.shape[1:]) != (spatial, spatial + 1):
        shape = "Nx2x3" if spatial == 2 else "Nx3x4"
        raise ValueError(f"Expected a batch of {spatial}D affine matrices of shape {shape} for "
                         f"size {tuple(size)}. Got ember.Size({list(theta.shape)}).")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {spatial + 1}] but got: [{theta.shape[0]}, "
                           f"{spatial + 1}].")


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, *spatial, d) of a batch of affine maps theta (N, d, d+1) over an
    output of ``size`` (N, C, *spatial), d = 2 or 3; coordinates ordered x, y(, z)."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING)
        align_corners = False
    size = tuple(int(s) for s in size)
    _check_theta(theta, size)
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.")
    dtype = theta._data.dtype
    axes = [_base(n, align_corners, dtype) for n in spatial[::-1]]  # x (width) first
    mesh = list(np.meshgrid(*axes[::-1], indexing="ij"))[::-1]
    base = np.stack(mesh + [np.ones(spatial, dtype)], axis=-1).reshape(-1, len(spatial) + 1)
    return AffineGridGeneratorBackward0.apply(theta, base=base, shape=spatial)


class AffineGridGeneratorBackward0(Node):
    """out[n, p] = theta[n] @ base[p] (base: the output's homogeneous coordinates (P, d+1));
    dtheta[n] = sum over p of g[n, p] base[p]^T."""

    def forward(self, theta, base, shape):
        self.base = base
        t = theta._data
        return np.matmul(base, np.swapaxes(t, 1, 2)).reshape((t.shape[0],) + shape + (-1,))

    def backward(self, m, g):
        base = ember.tensor(self.base) if m.is_graph else self.base
        rows = m.reshape(g, (g.shape[0], -1, g.shape[-1]))  # (N, P, d)
        return (m.matmul(m.mT(rows), base),)


# ------------------------------------------------------------------ grid_sample
def _reflect(position, low, high):
    """(value, multiplier) of the position reflected into [low/2, high/2] (doubled bounds, as
    torch passes them)."""
    if low == high:
        return np.zeros_like(position), np.zeros_like(position)
    start, span = low / 2, (high - low) / 2
    shifted = position - start
    sign = np.where(shifted < 0, -1.0, 1.0)
    shifted = np.abs(shifted)
    extra, flips = np.fmod(shifted, span), np.floor(shifted / span)
    even = flips % 2 == 0
    return (np.where(even, extra + start, span - extra + start),
            np.where(even, sign, -sign))


def _clip(position, multiplier, size):
    """(value, multiplier) clipped to [0, size - 1]: torch's derivative is 0 at both bounds."""
    inside = (position > 0) & (position < size - 1)
    return np.clip(position, 0, size - 1), np.where(inside, multiplier, 0.0)


def _pixel_position(coordinate, size, padding_mode, align_corners):
    """A normalized grid coordinate (a tensor) as a pixel position, padding applied."""
    if align_corners:
        position = (coordinate + 1) / 2 * (size - 1)  # torch's order of operations
    else:
        position = ((coordinate + 1) * size - 1) / 2
    if padding_mode == "zeros":
        return position
    value = position._data.astype(np.float64)
    multiplier = np.ones_like(value)
    if padding_mode == "reflection":
        bounds = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        value, multiplier = _reflect(value, *bounds)
    value, multiplier = _clip(value, multiplier, size)
    dtype = position._data.dtype
    offset = ember.tensor((value - multiplier * position._data).astype(dtype))
    return position * ember.tensor(multiplier.astype(dtype)) + offset


def _read(flat, sizes, corner):
    """Input values (N, C, L) at integer pixel positions ``corner`` (one (N, L) array per
    spatial dim, slowest first); zero where outside."""
    inside = np.ones(corner[0].shape, bool)
    index = np.zeros(corner[0].shape, np.int64)
    for position, size in zip(corner, sizes):
        inside &= (position >= 0) & (position < size)
        index = index * size + np.clip(position, 0, size - 1).astype(np.int64)
    index = np.broadcast_to(index[:, None], (flat.shape[0], flat.shape[1], index.shape[1]))
    values = flat.gather(2, ember.tensor(np.ascontiguousarray(index)))
    return values * ember.tensor(inside[:, None].astype(flat._data.dtype))


def _check_sample(input, grid, mode, padding_mode):
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    sizes = f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
    if input.dim() != grid.dim() or input.shape[0] != grid.shape[0]:
        if input.dim() == grid.dim() and input.dim() in (4, 5) or input.dim() != grid.dim():
            raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch "
                               f"size, but got {sizes}")
    if input.dim() not in (4, 5):
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got {sizes}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
                           f"last dimension, but got grid with sizes {list(grid.shape)}")
    for d in range(2, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")
    if mode == "bicubic" and input.dim() == 5:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.scalar_name} but found "
                           f"{grid.dtype.scalar_name}")
    if not input.is_floating_point():
        kernel = f"grid_sampler_{input.dim() - 2}d_cpu_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{input.dtype.scalar_name}'")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample input (N, C, *spatial) at the normalized positions of grid (N, *out, d), x first
    (d = 2 or 3): bilinear/trilinear, nearest or bicubic (4-D), padding 'zeros', 'border' or
    'reflection'."""
    _check_sample(input, grid, mode, padding_mode)
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING)
        align_corners = False
    n, c, sizes = input.shape[0], input.shape[1], tuple(input.shape[2:])
    out_shape = tuple(grid.shape[1:-1])
    flat_grid = grid.reshape(n, -1, len(sizes))
    # grid coordinate k runs along spatial dim -1-k (x: width, y: height, z: depth)
    positions = [_pixel_position(flat_grid[..., len(sizes) - 1 - d], size, padding_mode,
                                 align_corners) for d, size in enumerate(sizes)]
    flat = input.reshape(n, c, -1)
    if mode == "bicubic":
        raw = [_pixel_position(flat_grid[..., len(sizes) - 1 - d], size, "zeros", align_corners)
               for d, size in enumerate(sizes)]
        out = _bicubic(flat, sizes, raw, padding_mode, align_corners)
    elif mode == "nearest":
        corner = [np.rint(p._data) for p in positions]
        out = _read(flat, sizes, corner)
    else:
        lower = [np.floor(p._data) for p in positions]
        out = None
        for step in itertools.product((0, 1), repeat=len(sizes)):
            weight = None
            for p, low, s in zip(positions, lower, step):  # weight: 1 - distance to corner
                w = p - ember.tensor(low) if s else ember.tensor(low + 1) - p
                weight = w if weight is None else weight * w
            term = _read(flat, sizes, [low + s for low, s in zip(lower, step)]) * \
                weight.unsqueeze(1)
            out = term if out is None else out + term
    return out.reshape((n, c) + out_shape)


def _keys_near(x, a):
    """Keys' cubic convolution kernel at a distance |x| <= 1 (parameter ``a``)."""
    return ((a + 2) * x - (a + 3)) * x * x + 1


def _keys_far(x, a):
    """Keys' cubic convolution kernel at a distance 1 < |x| < 2 (parameter ``a``)."""
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def _cubic_weights(t):
    """The four weights of Keys' cubic convolution (A = -0.75, torch's) at the fractional
    offset t, for the taps at -1, 0, 1, 2."""
    a = -0.75
    return [_keys_far(t + 1, a), _keys_near(t, a), _keys_near(1 - t, a), _keys_far(2 - t, a)]


def _tap(position, size, padding_mode, align_corners):
    """An integer tap position with the padding applied to it (bicubic pads each tap)."""
    if padding_mode == "zeros":
        return position
    if padding_mode == "reflection":
        bounds = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        position = _reflect(position, *bounds)[0]
    return np.trunc(np.clip(position, 0, size - 1))


def _bicubic(flat, sizes, raw, padding_mode, align_corners):
    """The 4 x 4 taps around each position, weighted by cubic convolution per axis."""
    lower = [np.floor(p._data.astype(np.float64)) for p in raw]
    weights = [_cubic_weights(p - ember.tensor(low.astype(p._data.dtype)))
               for p, low in zip(raw, lower)]
    out = None
    for i, j in itertools.product(range(4), repeat=2):
        taps = [_tap(low + k - 1, size, padding_mode, align_corners)
                for low, k, size in zip(lower, (i, j), sizes)]
        term = _read(flat, sizes, taps) * (weights[0][i] * weights[1][j]).unsqueeze(1)
        out = term if out is None else out + term
    return out
