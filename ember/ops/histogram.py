"""torch.histogram and torch.histogramdd: counts (or summed weights, or densities) of the
input's points in bins, with the bin edges; no gradient. An element lands in bin i when
edges[i] <= x < edges[i + 1], the last bin also taking its right edge, as torch's kernel."""
import numpy as np

from .._creation import linspace
from .._dtype import from_numpy_dtype
from .._tensor import Tensor
from .decompositions import returns

HISTOGRAM = returns("histogram", ("hist", "bin_edges"))
HISTOGRAMDD = returns("histogramdd", ("hist", "bin_edges"))


def _given_edges(bins, dims, dtype):
    """Edges given as tensors, one per dimension, in the input's dtype."""
    if len(bins) != dims:
        raise RuntimeError(f"torch.histogramdd: expected {dims} sequences of bin edges for a "
                           f"{dims}-dimensional histogram but got {len(bins)}")
    for d, edges in enumerate(bins):
        if edges.dtype != from_numpy_dtype(dtype):
            raise RuntimeError(
                f"torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {from_numpy_dtype(dtype).c_name} and bins for "
                f"dimension {d} with dtype {edges.dtype.c_name}")
    return [e._data for e in bins]


def _bounds(points, d, range):  # noqa: A002  (torch's argument name)
    """Dimension d's [lo, hi]: given, or the data's own (0.5 each side of a single point;
    [0, 1] for no data), checked finite and ordered."""
    if range is not None:
        lo, hi = float(range[2 * d]), float(range[2 * d + 1])
    elif points.shape[0]:
        lo, hi = float(points[:, d].min()), float(points[:, d].max())
    else:
        lo, hi = 0.0, 1.0
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{lo:g}, {hi:g}] is not "
                           f"finite")
    if lo > hi:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} "
                           f"max {hi:g} for dimension {d}")
    return (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)


def _edges(points, dims, bins, range, dtype):  # noqa: A002  (torch's argument name)
    """Each dimension's edges: given tensors, or ``bins`` equal bins over its bounds."""
    if isinstance(bins, Tensor):
        bins = [bins]
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor):
        return _given_edges(bins, dims, dtype)
    counts = [bins] * dims if isinstance(bins, int) else list(bins)
    if len(counts) != dims:
        raise RuntimeError(f"torch.histogramdd: expected {dims} bin counts but got "
                           f"{len(counts)}")
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram range should "
                           f"have {2 * dims} elements, but got {len(range)}")
    edges = []
    for d, count in enumerate(counts):
        if count <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {count} for "
                               f"dimension {d}")
        lo, hi = _bounds(points, d, range)
        edges.append(linspace(lo, hi, count + 1, dtype=from_numpy_dtype(dtype))._data)
    return edges


def _count(points, edges, weight, density):
    """The histogram of the (N, D) points over the D edge arrays."""
    shape = tuple(max(len(e) - 1, 0) for e in edges)
    inside = np.ones(points.shape[0], bool)
    flat = np.zeros(points.shape[0], np.int64)
    for d, e in enumerate(edges):
        x = points[:, d]
        position = np.searchsorted(e, x, side="right") - 1
        position = np.where(x == e[-1], len(e) - 2, position)  # the last bin takes its edge
        inside &= (position >= 0) & (position < len(e) - 1) & (x >= e[0]) & (x <= e[-1])
        flat = flat * max(len(e) - 1, 1) + np.clip(position, 0, max(len(e) - 2, 0))
    dtype = points.dtype  # sums in the input's dtype, in element order, as torch's loop
    hist = np.zeros(int(np.prod(shape)), dtype)
    np.add.at(hist, flat[inside], dtype.type(1) if weight is None else weight[inside])
    hist = hist.reshape(shape)
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(edges):  # each dim's bin widths divided out in turn
            hist = hist / np.diff(e).reshape([-1 if k == d else 1 for k in range(len(edges))])
    return hist.astype(points.dtype)


def histogramdd(input, bins=10, *, range=None, weight=None, density=False):  # noqa: A002
    """The D-dimensional histogram of input's (..., D) points: (hist, bin_edges per dim)."""
    x = input._data
    if x.dtype.kind != "f" or x.dtype.itemsize < 4:
        raise NotImplementedError(f"\"histogramdd\" not implemented for "
                                  f"'{input.dtype.scalar_name}'")
    points = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    w = None
    if weight is not None:
        if tuple(weight.shape) != tuple(points.shape[:-1]):
            raise RuntimeError(
                f"torch.histogramdd: if weight tensor is provided it should have the same shape "
                f"as the input tensor excluding its innermost dimension, but got input with shape "
                f"{list(points.shape)} and weight with shape {list(weight.shape)}")
        if weight.dtype != input.dtype:
            raise RuntimeError(
                f"torch.histogramdd: if weight tensor is provided, input tensor and weight "
                f"tensor should have the same dtype, but got input({input.dtype.scalar_name}), "
                f"and weight({weight.dtype.scalar_name})")
        w = weight._data.reshape(-1)
    edges = _edges(points, points.shape[1], bins, range, x.dtype)
    hist = _count(points, edges, w, density)
    return HISTOGRAMDD((Tensor._make(hist), tuple(Tensor._make(e.copy()) for e in edges)))


def histogram(input, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
    """The histogram of all of input's elements: (hist, bin_edges)."""
    if weight is not None and weight.numel() == input.numel():  # (else histogramdd's error)
        weight = weight.reshape(-1)
    hist, edges = histogramdd(input.reshape(-1, 1), bins, range=range, weight=weight,
                              density=density)
    return HISTOGRAM((hist, edges[0]))
