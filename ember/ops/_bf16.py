"""Where torch's CPU kernels for bfloat16 round more often than once: their steps, reproduced.

Most bfloat16 ops compute in float32 and round the result once (ember/autograd/_opmath.py). A few
of torch's kernels instead keep a bfloat16 value in between (a running sum held in bfloat16, a
count cast to bfloat16, an approximate erf on the vectorized lanes); these functions take float32
arrays holding bfloat16 values and return float32 arrays holding what torch's kernel stores, so
that narrowing to bfloat16 afterwards is exact. They run only for bfloat16 inputs.
"""
import numpy as np

from ..autograd import _opmath

_F32 = np.float32
_LEVELS = 8  # torch's nll kernels sum in a cascade of 8 partial sums


def rounded(x):
    """``x`` (float32) rounded to bfloat16 and back: a value as a bfloat16 variable holds it."""
    return np.asarray(x, _F32).astype(_opmath._bf16_dtype()).astype(_F32)


def _ceil_log2(n):
    return max(int(n) - 1, 0).bit_length()


def _segment_sums(values, ends):
    """Each run of ``values`` up to and including an ``ends`` position (and the open run after
    the last one) summed left to right in bfloat16 from 0: (closed sums, open sum or None)."""
    starts = np.flatnonzero(np.concatenate(([True], ends[:-1])))
    lengths = np.diff(np.append(starts, values.size))
    grid = np.zeros((starts.size, int(lengths.max())), _F32)
    grid[np.repeat(np.arange(starts.size), lengths),
         np.arange(values.size) - np.repeat(starts, lengths)] = values
    sums = np.zeros(starts.size, _F32)
    for column in grid.T:
        sums = rounded(sums + column)
    if ends[-1]:
        return sums, None
    return sums[:-1], sums[-1]


def cascade_sum(values, positions, count):
    """The sum of ``values`` as torch's nll kernels take it in bfloat16: each value joins a
    bfloat16 partial sum; at a position whose low ``p`` bits are 0 (p = max(4, ceil(log2(count))
    / 8)) the partial joins the next level's, and so on up 8 levels; the partials are then added
    in order. ``positions``: each value's index in the kernel's loop (ignored targets skipped)."""
    power = max(4, _ceil_log2(count) // _LEVELS)
    partials = []
    for level in range(_LEVELS):
        if not values.size:
            break
        mask = ((1 << power) - 1) << (level * power)
        ends = (positions & mask) == 0 if level + 1 < _LEVELS else np.zeros(values.size, bool)
        sums, open_sum = _segment_sums(values, ends)
        partials.append(open_sum)
        values, positions = sums, positions[ends]
    total = _F32(0)
    for partial in partials:
        if partial is not None:
            total = rounded(total + partial)
    return total


def nll_reduce(picked, weights, kept, reduction):
    """'sum' or 'mean' of the nll losses -w x as torch's bfloat16 kernel: each term -w x rounded
    (a bfloat16 product), both sums cascaded in bfloat16 (the count of kept targets cast to
    bfloat16 without weights), the mean a bfloat16 division. Returns (result, total weight)."""
    picked, kept = picked.reshape(-1), kept.reshape(-1)
    positions = np.flatnonzero(kept)
    terms = -picked[positions]
    if weights is None:
        total_weight = rounded(_F32(positions.size))
    else:
        weights = weights.reshape(-1)[positions]
        terms = rounded(terms * weights)
        total_weight = cascade_sum(weights, positions, kept.size)
    result = cascade_sum(terms, positions, kept.size)
    if reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):  # all ignored: nan, as torch
            result = rounded(result / total_weight)
    return result, total_weight


def nll_grad_entries(g, weights, total_weight, kept):
    """nll's gradient at each target for 'mean' in bfloat16: -(g / total) rounded, times w
    rounded (torch's bfloat16 arithmetic); 0 at ignored targets (which torch skips)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        scaled = -rounded(np.asarray(g, _F32) / total_weight)
    if weights is not None:
        scaled = rounded(weights * scaled)
    return np.where(kept, scaled, _F32(0))


def steps(fn, *arrays):
    """``fn`` on ``arrays`` (float32 holding bfloat16 values) in bfloat16: each NumPy step
    rounds, as a kernel written in torch's bfloat16 scalar type."""
    bf16 = _opmath._bf16_dtype()
    return fn(*[np.asarray(a, _F32).astype(bf16) for a in arrays]).astype(_F32)


def clipped_difference(x, y, delta):
    """huber's derivative before scaling, on bfloat16 arrays: x - y, or +-delta beyond delta."""
    d = x - y
    bound = np.asarray(delta, _F32).astype(d.dtype)
    return np.where(np.abs(d) >= bound, np.where(d > 0, bound, -bound), d)


def pointwise_grad(norm, output, g):
    """norm * output * g with each product rounded (torch's bfloat16 loss backward kernels)."""
    return steps(lambda n, o, g: n * o * g, norm, output, g)


def huber(x, y, delta):
    """huber's loss on bfloat16 arrays: 0.5 z z, or delta (z - delta / 2) from z = |x - y| >=
    delta, with delta and delta / 2 as bfloat16 constants."""
    z = np.abs(x - y)
    bound, half = np.asarray([delta, delta * 0.5], _F32).astype(z.dtype)
    return np.where(z >= bound, bound * (z - half), half.dtype.type(0.5) * z * z)
