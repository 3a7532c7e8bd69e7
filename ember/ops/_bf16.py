"""Where torch's CPU kernels for bfloat16 round more often than once: their steps, reproduced.

Most bfloat16 (and float16) ops compute in float32 and round the result once
(ember/autograd/_opmath.py). A few of torch's kernels instead keep a bfloat16 value in between
(a running sum held in bfloat16, a count cast to bfloat16, an approximate erf on the vectorized
lanes); these functions take float32 arrays holding bfloat16 values and return float32 arrays
holding what torch's kernel stores, so that narrowing to bfloat16 afterwards is exact. They run
for bfloat16 inputs, and for float16 ones where torch's Half kernel takes the same steps
(measured); they round to the dtype of the op computing now (``_opmath.low_dtype()``).
"""
import numpy as np

from .. import _fp
from ..autograd import _opmath
from . import _parallel

_F32 = np.float32
_LEVELS = 8  # torch's nll kernels sum in a cascade of 8 partial sums


def _needs(node, i):
    """Whether a node's input ``i`` takes a gradient."""
    return node.next_functions[i][0] is not None


def rounded(x, low=None):
    """``x`` (float32) rounded to the low dtype (``low``, else the computing op's bfloat16 or
    float16) and back: a value as a variable of that dtype holds it."""
    return np.asarray(x, _F32).astype(low or _opmath.low_dtype()).astype(_F32)


def _ceil_log2(n):
    return max(int(n) - 1, 0).bit_length()


def _segment_sums(values, ends, round_):
    """Each run of ``values`` up to and including an ``ends`` position (and the open run after
    the last one) summed left to right from 0, each step ``round_``ed: (closed sums, open sum
    or None)."""
    starts = np.flatnonzero(np.concatenate(([True], ends[:-1])))
    lengths = np.diff(np.append(starts, values.size))
    grid = np.zeros((starts.size, int(lengths.max())), values.dtype)  # a run a row, then 0s
    grid[np.repeat(np.arange(starts.size), lengths),
         np.arange(values.size) - np.repeat(starts, lengths)] = values
    sums = _row_sums(grid, round_)
    if ends[-1]:
        return sums, None
    return sums[:-1], sums[-1]


def _row_sums(grid, round_):
    """Each row summed left to right from 0, each step ``round_``ed (``np.asarray``: not
    rounded, a running sum)."""
    if round_ is np.asarray:
        return np.add.accumulate(grid, axis=1)[:, -1]  # (np.cumsum without its wrapper)
    sums = np.zeros(grid.shape[0], grid.dtype)
    for column in grid.T:
        sums = round_(sums + column)
    return sums


def cascade_sum(values, positions, count, round_=rounded):
    """The sum of ``values`` as torch's nll kernels take it (their total weight and loss): each
    value joins a partial sum; at a position whose low ``p`` bits are 0 (p = max(4,
    ceil(log2(count)) / 8)) the partial joins the next level's, and so on up 8 levels; the
    partials are then added in order. ``positions``: each value's index in the kernel's loop
    (ignored targets skipped; None: 0, 1, 2...). Each step ``round_``ed: to bfloat16 (the low
    dtype's kernel), or ``np.asarray`` for float32 and float64 values, in their own dtype."""
    if round_ is np.asarray and 2 <= values.size <= 256 and (
            positions is None or positions[-1] == values.size - 1):  # none skipped
        return _two_levels(values)
    power = max(4, _ceil_log2(count) // _LEVELS)
    if (positions is None or positions.size > 1 and positions[-1] == positions.size - 1) and \
            count <= 1 << (power * _LEVELS):  # none skipped: every level's runs alike
        return _in_order(_regular_partials(values, 1 << power, round_), round_, values.dtype)
    partials = []
    for level in range(_LEVELS):
        if values.size <= 1:  # (one value left: it is the last partial, wherever it rests)
            partials.append(values[0] if values.size else None)
            break
        mask = ((1 << power) - 1) << (level * power)
        ends = (positions & mask) == 0 if level + 1 < _LEVELS else np.zeros(values.size, bool)
        sums, open_sum = _segment_sums(values, ends, round_)
        partials.append(open_sum)
        values, positions = sums, positions[ends]
    return _in_order(partials, round_, values.dtype)


def _regular_partials(values, width, round_):
    """The cascade's partials for values at positions 0, 1, 2...: on every level the runs are
    the first value alone, then ``width`` at a time (a row each, after ``width - 1`` zeros), the
    last one open unless it ends on a multiple of ``width``; the closed sums are the next
    level's values, alike."""
    partials = []
    while values.size > 1:
        rows = (values.size + 2 * width - 2) // width
        grid = np.zeros((rows, width), values.dtype)
        grid.reshape(-1)[width - 1:width - 1 + values.size] = values
        sums = _row_sums(grid, round_)
        closed = (values.size - 1) % width == 0
        partials.append(None if closed else sums[-1])
        values = sums if closed else sums[:-1]
    partials.append(values[0] if values.size else None)
    return partials


def _two_levels(values):
    """``_in_order(_regular_partials(values, 16, np.asarray), ...)`` for 2 to 256 values (not
    rounded), in fewer calls. Level 0: the first value alone (0 + v0, as a row of 15 zeros
    then v0), then the rest 16 at a time left to right, the last run (padded with zeros) open
    unless it is full. Its closed sums u0, u1, ... (16 at most) are level 1's values: u0 alone
    again (0 + u0, which is u0), then u1 + u2 + ... + 0 left to right, open (absent for u0
    alone). The result: ((0 + level 0's open sum) + level 1's open sum) + u0, each step
    rounded, an absent partial skipped (level 1's own + 0 no matter: the running total it
    joins is never -0). Each step the ufunc, as _in_order's 0-d arrays: of two NaNs it gives
    the first operand's (NumPy's scalar arithmetic the second's)."""
    n, zero, add = values.size, values.dtype.type(0), np.add
    grid = np.zeros(((n + 30) >> 4, 16), values.dtype)
    grid.reshape(-1)[15:15 + n] = values
    sums = add.accumulate(grid, axis=1)[:, -1]
    total = zero
    if (n - 1) & 15:  # level 0's last run open
        total = add(zero, sums[-1])
        sums = sums[:-1]
    if sums.size > 1:
        total = add(total, add.accumulate(sums[1:])[-1])
    return np.asarray(add(total, sums[0]))


def _in_order(partials, round_, dtype):
    """The partial sums (None: empty) added from 0 in order, each step ``round_``ed."""
    total = np.zeros((), dtype)
    for partial in partials:
        if partial is not None:
            total = round_(total + partial)
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
    """``fn`` on ``arrays`` (float32 holding low-dtype values) in the low dtype: each NumPy step
    rounds, as a kernel written in torch's bfloat16 or Half scalar type."""
    low = _opmath.low_dtype()
    return fn(*[np.asarray(a, _F32).astype(low) for a in arrays]).astype(_F32)


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


def thread_chunks(n, grain=1):
    """The parts torch's ``parallel_for(0, n, grain)`` hands its threads: ember's thread count
    stands for torch's (``set_num_threads`` sets both alike). Returns the part starts."""
    threads = _parallel.get_num_threads()
    if threads <= 1 or n <= grain or n <= 1:
        return np.array([0])
    threads = min(threads, -(-n // max(grain, 1)))
    return np.arange(0, n, -(-n // threads))


def layer_norm_backward(g, x, mean, rstd, weight, rounded_stats, need):
    """torch's layer-norm backward for bfloat16 input, rows (M, N) of ``x``: with bfloat16 (or
    no) affine parameters the mean and 1/std it reads are bfloat16; dx is computed in float32
    as rstd g w + b x + c; the weight and bias gradients add up row by row in bfloat16 buffers,
    one per thread, summed in float32 at the end."""
    if rounded_stats:
        mean, rstd = rounded(mean), rounded(rstd)
    dx = dw = db = None
    if need[0]:
        dx = _layer_norm_input_grad(g, x, mean, rstd, weight)
    if need[1]:
        dw = _bf16_row_sums(g * (rstd * x + (-rstd * mean)))
    if need[2]:
        db = _bf16_row_sums(g)
    return dx, dw, db


def layer_norm_stats(x, eps):
    """Each row's mean and 1/sqrt(var + eps) as torch's layer norm takes them (float32)."""
    mean, var = row_moments(x)
    return mean[:, None], _F32(1) / np.sqrt(var[:, None] + _F32(eps))


def layer_norm_output(x, mean, rstd, weight, bias):
    """torch's layer norm of bfloat16 rows in float32: (x rstd + (-rstd mean)) w + b."""
    y = x * rstd + (-rstd * mean)
    if weight is not None:
        y = y * weight
    return y if bias is None else y + bias


def _layer_norm_input_grad(g, x, mean, rstd, weight):
    scale = _F32(1.0 / x.shape[1])
    ones = _F32(1) if weight is None else weight
    ds = vector_sum(g * x * ones)[:, None]
    db = vector_sum(g * ones)[:, None]
    b = (db * mean - ds) * rstd * rstd * rstd * scale
    c = -b * mean - db * rstd * scale
    return rstd * g * ones + b * x + c


def _bf16_row_sums(terms):
    """Column sums of ``terms`` (M, N) as torch's per-thread bfloat16 buffers take them: each
    thread's rows added in order, rounded each time; the buffers then added in float32."""
    rows = terms.shape[0]
    starts = thread_chunks(rows)
    size = rows if starts.size == 1 else int(starts[1])
    padded = np.zeros((starts.size * size,) + terms.shape[1:], _F32)  # 0 adds nothing
    padded[:rows] = terms
    parts = padded.reshape((starts.size, size) + terms.shape[1:])
    buffers = np.zeros((starts.size,) + terms.shape[1:], _F32)
    for k in range(size):
        buffers = rounded(buffers + parts[:, k])
    total = buffers[0]
    for buffer in buffers[1:]:
        total = total + buffer
    return total


_LANES = 16  # bfloat16 values in one AVX2 vector: two float32 vectors of 8 lanes


def vector_sum(terms):
    """Sums over the last axis of float32 ``terms`` in the order of torch's AVX2 reductions of
    bfloat16 data (``map_reduce_all``): 16 lane sums (a short tail joins the first lanes), the
    two halves added lane by lane, then 8 lanes folded pairwise (4 + 4, 2 + 2, 1 + 1); fewer
    than 16 terms: the halves added, then the lanes left to right."""
    n = terms.shape[-1]
    if n < _LANES:
        padded = np.zeros(terms.shape[:-1] + (_LANES,), _F32)
        padded[..., :n] = terms
        lanes = padded[..., :8] + padded[..., 8:] if n > 8 else padded[..., :8]
        total = lanes[..., 0]
        for k in range(1, min(n, 8)):
            total = total + lanes[..., k]
        return total
    lanes = terms[..., :_LANES].copy()
    full = n - n % _LANES
    for start in range(_LANES, full, _LANES):
        lanes += terms[..., start:start + _LANES]
    lanes[..., :n - full] += terms[..., full:]
    lanes = lanes[..., :8] + lanes[..., 8:]
    lanes = lanes[..., :4] + lanes[..., 4:]
    lanes = lanes[..., :2] + lanes[..., 2:]
    return lanes[..., 0] + lanes[..., 1]


def _fma(a, b, c):
    """a * b + c rounded once (a fused multiply-add), through float64."""
    return (a.astype(np.float64) * b + c).astype(_F32)


def _add_moments(count_add, m1_add, m2_add, count, m1, m2):
    """Welford's merge of (count_add, m1_add, m2_add) into (count, m1, m2), float32 steps."""
    n = count + count_add
    c = _F32(count_add) / _F32(n) if n else _F32(0)
    delta = m1_add - m1
    m2_sum = m2 + m2_add
    c_delta = c * delta
    return n, m1 + c_delta, _fma(delta * _F32(count), c_delta, m2_sum)


def _chunk_moments(block, state):
    """One chunk of up to 16 vectors (rows, k, 16) through torch's per-lane Welford update;
    the two 8-lane halves merged into ``state`` in turn."""
    for half in (block[..., :8], block[..., 8:]):
        m1 = np.zeros(half.shape[:1] + (8,), _F32)
        m2 = np.zeros_like(m1)
        for j in range(half.shape[1]):
            x = half[:, j]
            delta = x - m1
            m1 = _fma(delta, _F32(1) / _F32(j + 1), m1)
            m2 = m2 + delta * (x - m1)
        state = _add_moments(half.shape[1], m1, m2, *state)
    return state


def row_moments(x):
    """Mean and biased variance of each row of bfloat16 values ``x`` (float32, (M, N)) as
    torch's ``RowwiseMoments`` takes them (AVX2): Welford per lane over 16-wide vectors in
    chunks of 16 merged in a binary cascade, the tail one by one, then the 8 lanes merged."""
    rows, n_total = x.shape
    n = n_total // _LANES
    chunks = -(-n // 16)
    depth = _ceil_log2(chunks)
    zero = (0, np.zeros((rows, 8), _F32), np.zeros((rows, 8), _F32))
    stack = [zero] * max(depth, 1)
    vectors = x[:, :n * _LANES].reshape(rows, n, _LANES)
    for i in range(chunks):
        stack[0] = _chunk_moments(vectors[:, i * 16:(i + 1) * 16], stack[0])
        mask, j = i + 1, 1
        while j < depth and mask & 1 == 0:
            stack[j] = _add_moments(*stack[j - 1], *stack[j])
            stack[j - 1] = zero
            mask, j = mask >> 1, j + 1
    for j in range(1, depth):
        stack[0] = _add_moments(*stack[j], *stack[0])
    return _merge_lanes(x[:, n * _LANES:], 2 * n, stack[0][1], stack[0][2], n_total)


def _merge_lanes(tail, count_add, m1_lanes, m2_lanes, n_total):
    count, m1, m2 = 0, np.zeros(tail.shape[0], _F32), np.zeros(tail.shape[0], _F32)
    for k in range(tail.shape[1]):
        x = tail[:, k]
        delta = x - m1
        count += 1
        m1 = m1 + delta / _F32(count)
        m2 = m2 + delta * (x - m1)
    for lane in range(8):
        n = count + count_add
        c = _F32(count_add) / _F32(n) if n else _F32(0)
        delta = m1_lanes[:, lane] - m1
        m1 = _fma(np.full_like(delta, c), delta, m1)
        m2 = m2 + _fma(delta * delta * c, np.full_like(delta, count), m2_lanes[:, lane])
        count = n
    return m1, m2 / _F32(n_total)


def linspace(start, end, steps, bf16):
    """torch's bfloat16 linspace: start, end and step = (end - start) / (steps - 1) held in
    bfloat16 (``bf16``), the first half start + step i and the rest end - step (steps - 1 - i),
    each operation rounded (an integer is cast to bfloat16 first)."""

    def b(value):
        return np.asarray(value, _F32).astype(bf16)
    first, last = b(start), b(end)
    if steps == 1:
        return first.reshape(1)
    step = (last - first) / b(steps - 1)
    index = np.arange(steps)
    half = steps // 2
    return np.where(index < half, first + step * b(index), last - step * b(steps - index - 1))


def arange(start, step, count, dtype):
    """torch's floating arange (its CPU kernel on AVX2): start + step i as one fused
    multiply-add in the op math (float32 for bfloat16/float16, float64 for float32/float64),
    rounded to ``dtype``; within each pair of vectors (16 lanes of a 2-byte dtype, 8 of float32,
    4 of float64, run two at a time over each thread's 32768-value part), lane k is the
    vector's rounded first value plus k step, again fused (bfloat16 not: measured against
    torch) and rounded. The values short of a pair of vectors keep the plain fused ones."""
    dtype = np.dtype(dtype)
    narrow = dtype.itemsize == 2
    work, fma = (_F32, _fp.fma32) if narrow else (np.float64, _fp.fma64)
    lanes = 16 if narrow else 8 if dtype == np.float32 else 4
    start, step = work(start), work(step)
    steps = np.full(count, step)
    values = fma(steps, np.arange(count).astype(work), start)
    bounds = np.append(thread_chunks(count, 32768) if count > 32768 else [0], count)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        vector = np.arange(lo, lo + (hi - lo) // (2 * lanes) * 2 * lanes)
        lane = (vector - lo) % lanes
        base = values[vector - lane].astype(dtype).astype(work)
        k = lane.astype(work)
        values[vector] = base + k * step if dtype.kind == "V" else \
            fma(k, steps[:vector.size], base)
    return values.astype(dtype)


def softmax_inner(x, dim):
    """torch's bfloat16 softmax over a dim that is not the last: the (outer, inner) positions
    are cut in parts over threads; 16 neighbouring positions within one inner row and one part
    run as a vector (exp kept in float32, divided by its float32 sum), the rest one by one
    (exp stored in bfloat16, times 1 / sum)."""
    shifted = x - x.max(axis=dim, keepdims=True)
    exps = np.exp(shifted.astype(np.float64)).astype(_F32)  # Sleef's and libm's expf, ~1 ulp
    moved = np.moveaxis(exps, dim, 0)
    total = np.zeros(moved.shape[1:], _F32)
    for row in moved:  # summed along dim in order
        total = total + row
    total = np.expand_dims(total, dim)
    vector = _softmax_vector_positions(x.shape, dim)
    return np.where(vector, exps / total, rounded(exps) * (_F32(1) / total))


def _softmax_vector_positions(shape, dim):
    """Which (outer, inner) positions torch's kernel runs as 16-lane vectors, broadcast over
    ``shape`` (``dim`` the softmax dim)."""
    inner = int(np.prod(shape[dim + 1:]))
    count = int(np.prod(shape[:dim])) * inner
    vector = np.zeros(count, bool)
    bounds = np.append(thread_chunks(count), count)
    for begin, end in zip(bounds[:-1], bounds[1:]):
        index = begin
        while index < end:
            inner_index = index % inner
            if inner_index + 16 <= inner and index + 16 <= end:
                vector[index:index + 16] = True
                index += 16
            else:
                index += end - index if index + 16 > end else inner - inner_index
    shaped = vector.reshape(shape[:dim] + (1,) + shape[dim + 1:])
    return np.broadcast_to(shaped, shape)


def product(x, dims, contiguous=True):
    """torch's bfloat16 prod over ``dims`` of float32 ``x``: a running product rounded at
    each step; a reduction over the last dims of 64 values or more (of a ``contiguous`` input)
    first runs 4 vectors of 16 lanes over each 64-value block (lane products rounded), folds
    them (0 * 1, 2 * 3, then those two), multiplies the 16 lanes in order, then the rest of the
    row one by one."""
    inner = contiguous and dims == tuple(range(x.ndim - len(dims), x.ndim))
    rows = np.moveaxis(x, dims, tuple(range(x.ndim - len(dims), x.ndim)))
    rows = rows.reshape(rows.shape[:x.ndim - len(dims)] + (-1,))
    n = rows.shape[-1]
    total = np.ones(rows.shape[:-1], _F32)
    start = 0
    if inner and n >= 4 * _LANES:
        start = n // (4 * _LANES) * 4 * _LANES
        blocks = rows[..., :start].reshape(rows.shape[:-1] + (-1, 4, _LANES))
        acc = blocks[..., 0, :, :]
        for i in range(1, blocks.shape[-3]):
            acc = rounded(acc * blocks[..., i, :, :])
        lanes = rounded(rounded(acc[..., 0, :] * acc[..., 1, :]) *
                        rounded(acc[..., 2, :] * acc[..., 3, :]))
        total = lanes[..., 0]
        for k in range(1, _LANES):
            total = rounded(total * lanes[..., k])
    for k in range(start, n):
        total = rounded(total * rows[..., k])
    return total


def div_floor(x, y, low):
    """torch's floor division of bfloat16/float16 values (float32 arrays holding them): its
    kernel's steps (the remainder, the exact quotient, the sign correction, the floor and its
    half-way correction) each rounded to ``low``, as its reduced-precision lanes hold them."""
    with np.errstate(all="ignore"):
        mod = rounded(np.fmod(x, y), low)
        div = rounded(rounded(x - mod, low) / y, low)
        div = np.where((mod != 0) & ((y < 0) != (mod < 0)), rounded(div - 1, low), div)
        floor = np.floor(div)
        floor = np.where(div - floor > 0.5, rounded(floor + 1, low), floor)
        out = np.where(div != 0, floor, np.copysign(_F32(0), x / y))
        return np.where(y == 0, x / y, out)
