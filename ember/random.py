"""Random number generators: Generator objects, manual_seed and the default generator.

The stream is PyTorch's CPU one: a 32-bit Mersenne Twister (mt19937) seeded as torch seeds it,
and torch's transformations on top (24/53-bit uniforms, Box-Muller normals in blocks of 16, the
cached second normal of the scalar path), so a seeded script draws the same numbers as torch.
"""
import contextlib
import json
import math
import os
import sys

import numpy as np

from . import _dtype, _select
from . import _random_args as _args
from ._fp import fma32 as _fma32
from ._fp import fma64 as _fma64
from ._tensor import Tensor, device

_DEFAULT_SEED = 67280421310721  # torch's seed for a new Generator()
_MASK24, _MASK53 = (1 << 24) - 1, (1 << 53) - 1
_VALUE_WORD = 0 if sys.byteorder == "little" else 1  # the used half of random_raw's uint64
_DRAW_BLOCK = 1 << 16  # values drawn and transformed per pass in large fills


def _mt_key(seed):
    """mt19937's initial state for a 32-bit seed (the reference init_genrand)."""
    key = [seed & 0xFFFFFFFF]
    for i in range(1, 624):
        prev = key[-1]
        key.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
    return np.array(key, dtype=np.uint32)


class Generator:
    """A seedable source of random numbers drawing torch's CPU sequence."""

    def __init__(self, device="cpu"):
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        """Reseed; returns self."""
        seed = int(seed)
        if seed < 0:
            seed += 1 << 64
        self._seed = seed
        self.__dict__.pop("_bits", None)  # rebuilt from the seed on the next draw
        self.__dict__.pop("_rng", None)
        self._normal_cache = None
        return self

    def __getattr__(self, name):
        # The Mersenne Twister is built on first use, so that ``import ember`` (which makes the
        # default generator) does not load numpy.random.
        if name not in ("_bits", "_rng"):
            raise AttributeError(f"'Generator' object has no attribute '{name}'")
        bits = np.random.MT19937()
        bits.state = {"bit_generator": "MT19937", "state": {"key": _mt_key(self._seed), "pos": 624}}
        bits = self.__dict__.setdefault("_bits", bits)  # atomic: racing threads share one
        self.__dict__.setdefault("_rng", np.random.Generator(bits))  # for samplers w/o torch twin
        return self.__dict__[name]

    def seed(self):
        """Reseed from the OS entropy pool; returns the new seed."""
        s = int(np.random.SeedSequence().entropy) % (1 << 63)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The generator state as a uint8 tensor (round-trips through set_state)."""
        state = self._bits.state["state"]
        blob = json.dumps({"key": state["key"].tolist(), "pos": int(state["pos"]),
                           "seed": self._seed, "cache": self._normal_cache}).encode()
        return Tensor._make(np.frombuffer(blob, dtype=np.uint8).copy())

    def set_state(self, state):
        data = state._data if hasattr(state, "_data") else np.asarray(state)
        saved = json.loads(bytes(data.astype(np.uint8)).decode())
        self._bits.state = {"bit_generator": "MT19937", "state": {
            "key": np.array(saved["key"], dtype=np.uint32), "pos": saved["pos"]}}
        self._seed, self._normal_cache = saved["seed"], saved["cache"]
        return self

    @property
    def device(self):
        return device("cpu")

    # ----- torch's transformations of the raw stream -----
    def _doubles(self, n):
        """n uniforms on [0, 1) with 53 random bits each (two 32-bit draws: high, low)."""
        return self._fractions(n, 53)

    def _fractions(self, n, bits):
        """n float64 uniforms on [0, 1): k 2**-bits for the low ``bits`` bits k of one 32-bit
        draw each (bits <= 24), or of two draws, high word first (bits 53). Callers with large
        n draw in blocks of _DRAW_BLOCK, which keeps the scratch arrays in cache."""
        if bits == 53:
            raw = self._raw64(n)
            raw &= np.uint64(_MASK53)
        else:
            raw = self._bits.random_raw(n)
            raw &= np.uint64((1 << bits) - 1)
        x = raw.astype(np.float64)
        x *= 2.0 ** -bits
        return x

    def _low24(self, n):
        """n float32 integers: the low 24 bits of n 32-bit draws (drawn in blocks)."""
        out = np.empty(n, np.float32)
        for start in range(0, n, _DRAW_BLOCK):
            words = self._bits.random_raw(min(_DRAW_BLOCK, n - start)).view(np.uint32)
            out[start:start + len(words) // 2] = np.bitwise_and(
                words[_VALUE_WORD::2], np.uint32(_MASK24))
        return out

    def uniform(self, shape, np_dtype, low=0.0, high=1.0, out=None):
        """U(low, high) as torch's uniform_: u * (to - from) + from in float64 for u of 53 random
        bits (float64) or 24 (float32, and float16 and bfloat16, which round the float32 value),
        with float32 bounds below float64; a value that rounds up to ``to`` becomes ``from``.
        ``out``: a flat contiguous array of the real dtype to draw into (returned as it is)."""
        _args.uniform_bounds(np_dtype, low, high)
        n = math.prod(shape)
        np_dtype = np.dtype(np_dtype)
        if np_dtype.kind == "c" and out is None:  # torch: real and imaginary parts each U(...)
            return _as_complex(self.uniform(tuple(shape) + (2,), _real(np_dtype), low, high))
        if np_dtype == np.float64:
            bits, lo, span, top = 53, float(low), float(high) - float(low), float(high)
        else:
            bits, lo = 24, np.float32(low)
            span, top = float(np.float32(high) - lo), np.float32(high).astype(np_dtype)
        into = out is not None
        out = np.empty(n, np_dtype) if out is None else out
        for start in range(0, n, _DRAW_BLOCK):  # x * span + lo in float64, rounded once
            x = self._fractions(min(_DRAW_BLOCK, n - start), bits)
            x *= span
            x += float(lo)
            if bits == 24:
                x = x.astype(np.float32)
            block = out[start:start + len(x)]
            block[...] = x.astype(np_dtype, copy=False)
            block[block == top] = np.asarray(lo).astype(np_dtype)
        return out if into else out.reshape(shape)

    def normal(self, shape, np_dtype, mean=0.0, std=1.0, serial=False):
        """N(mean, std^2) as torch's normal_: Box-Muller over blocks of 16 uniforms when there
        are at least 16 values, else one pair per two values with the second one cached."""
        _args.require_kind(np_dtype, "normal_kernel_cpu")
        if not std >= 0.0:  # NaN too
            raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")
        if np.dtype(np_dtype).kind == "c":  # torch: each part N(mean, std^2 / 2)
            return _as_complex(self.normal(tuple(shape) + (2,), _real(np_dtype), mean,
                                           std / math.sqrt(2)))
        n = math.prod(shape)
        wide = np.dtype(np_dtype) == np.float64
        fill = n >= 16 and not serial  # (``serial``: a non-contiguous tensor, drawn one by one)
        if fill and not wide:  # torch's float32 kernel (float16 and bfloat16 compute in it
            values = self._normal_f32(n, np.dtype(np_dtype).itemsize == 2)  # too), ends in
            if np.float32(std) == 1:  # one fused multiply-add, float32 std and mean;
                values = np.add(values, np.float32(mean), out=values)  # values * 1 is exact
            else:
                for start in range(0, n, _DRAW_BLOCK):  # float64 scratch stays in cache
                    block = values[start:start + _DRAW_BLOCK]
                    block[...] = _fma32(block, np.float32(std), np.float32(mean))
            return values.astype(np_dtype, copy=False).reshape(shape)
        values = self._normal_fill(n) if fill else self.normal_serial(n)
        values = _fma64(values, float(std), float(mean))  # torch: one fused multiply-add
        if not wide:  # torch's double -> float16 / bfloat16 goes through float
            values = values.astype(np.float32)
        return values.astype(np_dtype).reshape(shape)

    def _normal_f32(self, n, blockwise=False):
        """n >= 16 float32 normals as torch's normal_fill: Box-Muller over the full blocks of
        16 of n uniforms, then, if n is no multiple of 16, over 16 more for the last 16 values.
        ``blockwise`` (torch's float16 and bfloat16 kernel, which draws 16 uniforms a block):
        the redrawn block's uniforms follow the last full block's, not all n."""
        full = n - n % 16
        draws = self._low24((full if blockwise else n) + (n > full) * 16)
        if n > full and not blockwise:  # the redrawn block moves next to the full ones
            draws[full:full + 16] = draws[n:]
            draws = draws[:full + 16]
        draws = draws.reshape(-1, 16)
        out = _box_muller_f32(draws, np.empty(draws.shape, np.float32)).reshape(-1)
        if n > full:
            out[n - 16:n] = out[full:]
        return out[:n]

    def _normal_fill(self, n):
        """n >= 16 float64 normals: blocks of 16 as _normal_f32, with libm's log, sin and cos."""
        u = self.uniform((n,), np.float64)
        out = np.empty(n)
        full = n - n % 16
        out[:full] = _box_muller_16(u[:full].reshape(-1, 16)).reshape(-1)
        if n % 16:  # torch redraws the last 16 values
            tail = self.uniform((16,), np.float64)
            out[n - 16:] = _box_muller_16(tail.reshape(1, 16)).reshape(-1)
        return out

    def bernoulli(self, shape, p):
        """0/1 draws as torch's bernoulli_(p): a 53-bit uniform below p (p a number).

        u = bits * 2**-53 < p  <=>  bits < ceil(p * 2**53), so the draws are compared as
        integers: the 21 high bits (from the first 32-bit draw) decide, except where they equal
        the threshold's, and there the low 32 bits do.
        """
        _args.probability(p)
        n = math.prod(shape)
        raw = self._bits.random_raw(2 * n)
        if not 0.0 < p < 1.0:  # u in [0, 1): all below p >= 1, none below p <= 0 or NaN
            return np.full(shape, p >= 1.0)
        threshold = math.ceil(p * 2.0 ** 53)
        high, low = threshold >> 32, np.uint32(threshold & 0xFFFFFFFF)
        words = raw.view(np.uint32)[_VALUE_WORD::2]  # (high draw, low draw) per value
        top = np.bitwise_and(words[0::2], np.uint32(_MASK53 >> 32))
        out = top < np.uint32(high)
        tie = np.flatnonzero(top == high)
        if tie.size:
            out[tie] = words[2 * tie + 1] < low
        return out.reshape(shape)

    def bernoulli_tensor(self, probs):
        """0/1 draws as torch.bernoulli(probs): per element, a uniform below p: 53 random bits
        against float64 probabilities, else 24 bits against float32(p)."""
        _args.probabilities(probs)
        if probs.dtype == np.float64:
            return self._doubles(probs.size).reshape(probs.shape) < probs
        u = (self._bits.random_raw(probs.size) & np.uint64(_MASK24)) * 2.0 ** -24
        return u.reshape(probs.shape) < probs.astype(np.float32)

    def exponential(self, shape, np_dtype, lambd=1.0):
        """Exp(lambd) as torch's exponential_: (-1 / lambd) * log1p(-u) from 53-bit uniforms,
        rounded to float32 first for float16 (the order torch's CPU kernel rounds in)."""
        _args.continuous(np_dtype, "Exponential")
        _args.positive(lambd, "exponential_", "lambda")
        x = (-1.0 / lambd) * np.log1p(-self._doubles(math.prod(shape)))
        if np.dtype(np_dtype) == np.float16:
            x = x.astype(np.float32)
        return x.astype(np_dtype).reshape(shape)

    def multinomial(self, rows, num_samples, replacement):
        """Category indices for each row of weights (2-D, validated), as torch's CPU kernel.

        Without replacement, or for one sample: the largest ``w / q`` with q ~ Exp(1) drawn for
        every weight (Gumbel-max, exponentiated). With replacement: per row, one 53-bit uniform
        per sample searched in the row's cumulative sums, normalised in the weights' dtype.
        """
        if not replacement or num_samples == 1:
            q = self.exponential(rows.shape, rows.dtype)
            if rows.dtype.kind == "V":  # bfloat16: divided in float32, rounded once
                keys = (rows.astype(np.float32) / q.astype(np.float32)).astype(rows.dtype)
            else:
                keys = rows / q
            if num_samples == 1:  # torch: the first largest key
                return np.argmax(keys, axis=1)[:, None]
            order = np.argsort(-keys.astype(np.float32) if keys.dtype.kind == "V" else -keys,
                               axis=1, kind="stable")  # torch: topk, ties in its order
            return _select.topk_rows(_dtype.sort_key(keys), order, num_samples)
        acc = np.float32 if rows.dtype.itemsize == 2 else rows.dtype
        cumulative = np.cumsum(rows, axis=1, dtype=acc)
        cumulative /= cumulative[:, -1:]
        cumulative[:, -1] = 1  # the last bucket takes every draw, whatever rounding did
        draws = self._doubles(rows.shape[0] * num_samples).reshape(rows.shape[0], num_samples)
        return np.stack([np.searchsorted(c.astype(np.float64), d, side="left")
                         for c, d in zip(cumulative, draws)])

    def poisson(self, rates):
        """Poisson counts for float64 ``rates`` as torch's CPU kernel, element by element in
        order: below 10, uniforms multiplied until their product falls to exp(-rate); from 10 up,
        Hoermann's transformed rejection (PTRS), uniforms of 53 bits."""
        out = np.empty(rates.size)
        uniform = self._uniform_stream()
        for i, rate in enumerate(rates.reshape(-1).tolist()):
            out[i] = _poisson_ptrs(rate, uniform) if rate >= 10 else \
                _poisson_product(rate, uniform) if rate > 0 else 0.0
        return out.reshape(rates.shape)

    def standard_gamma(self, alphas, single=False):
        """Gamma(alpha, 1) draws for float64 ``alphas`` as torch's CPU kernel, element by element
        in order: Marsaglia and Tsang's rejection from normals (the cached Box-Muller pairs of
        the scalar path) and 53-bit uniforms; alpha < 1 is boosted to alpha + 1 and scaled by
        u^(1/alpha). ``single``: the float32 kernel, which rounds 1/alpha, alpha + 1 and d to
        float32. Returned in float64, before torch's clamp to the dtype's smallest normal."""
        out = np.empty(alphas.size)
        uniform = self._uniform_stream()

        def normal():
            return float(self.normal_serial(1)[0])
        for i, alpha in enumerate(alphas.reshape(-1).tolist()):
            out[i] = _gamma_marsaglia(alpha, uniform, normal, single)
        return out.reshape(alphas.shape)

    def binomial(self, counts, probs, single=False):
        """Binomial(count, prob) draws for float64 ``counts`` and ``probs`` as torch's CPU
        kernel, element by element in order: the successes of the rarer outcome by inversion
        (geometric waiting times) when count * p < 10, else Hormann's BTRS; 53-bit uniforms.
        ``single``: the float32 kernel's float32 roundings."""
        out = np.empty(counts.size)
        uniform = self._uniform_stream()
        rounded = (lambda v: float(np.float32(v))) if single else float
        for i, (n, p) in enumerate(zip(counts.reshape(-1).tolist(), probs.reshape(-1).tolist())):
            out[i] = _binomial(n, p, uniform, rounded)
        return out.reshape(counts.shape)

    def _uniform_stream(self):
        """A function drawing one 53-bit uniform at a time (for rejection samplers)."""
        bits = self._bits

        def draw():
            high, low = bits.random_raw(2).tolist()
            return (((high << 32) | low) & _MASK53) * 2.0 ** -53
        return draw

    def integers(self, low, high, shape):
        """Integers in [low, high) as torch's random_(from, to): raw % range + low."""
        span = int(high) - int(low)
        if span <= 0:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={low} >= to={high}")
        n = math.prod(shape)
        raw = self._raw64(n) if span >= 1 << 32 else self._bits.random_raw(n)
        return ((raw % np.uint64(span)).astype(np.int64) + int(low)).reshape(shape)

    def full64(self, shape):
        """torch's random_(int64 lowest, None): 64 random bits read as an int64."""
        return self._raw64(math.prod(shape)).view(np.int64).reshape(shape)

    def _raw64(self, n):
        raw = self._bits.random_raw(2 * n)
        return (raw[0::2] << np.uint64(32)) | raw[1::2]

    def permutation(self, n):
        """torch's randperm: Fisher-Yates, swapping i with i + random() % (n - i)."""
        perm = np.arange(n, dtype=np.int64)
        if n < 2:
            return perm
        offsets = (self._bits.random_raw(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
        values = perm.tolist()
        for i, z in enumerate(offsets):
            j = i + z
            values[i], values[j] = values[j], values[i]
        return np.array(values, dtype=np.int64)

    def normal_serial(self, n):
        """n float64 normals as torch's scalar path draws them one at a time: a cached sine
        first, then Box-Muller on uniform pairs (u1, u2), r cos(2 pi u1) then r sin(2 pi u1),
        r = sqrt(-2 log(1 - u2)); an odd count's last sine is cached for the next draw."""
        head = []
        if n and self._normal_cache is not None:
            head, self._normal_cache = [self._normal_cache], None
            n -= 1
        pairs = (n + 1) // 2
        u = self._doubles(2 * pairs)
        radius = [math.sqrt(-2.0 * math.log1p(-v)) for v in u[1::2].tolist()]
        theta = [2.0 * math.pi * v for v in u[0::2].tolist()]
        values = np.empty(2 * pairs)
        values[0::2] = [r * math.cos(t) for r, t in zip(radius, theta)]
        values[1::2] = [r * math.sin(t) for r, t in zip(radius, theta)]
        if n % 2:
            self._normal_cache = float(values[-1])
        return np.concatenate([head, values[:n]])


_THIRD_F32 = float(np.float32(1 / 3))  # torch writes the constants as float literals
_SQUEEZE_F32 = float(np.float32(0.0331))


def _gamma_marsaglia(alpha, uniform, normal, single):
    """One Gamma(alpha, 1) draw (torch's constants and order of draws and tests)."""
    rounded = (lambda v: float(np.float32(v))) if single else float
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        scale = (1 - uniform()) ** rounded(1.0 / alpha)
        alpha = rounded(alpha + 1.0)
    d = rounded(alpha - _THIRD_F32)
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        y = 0.0
        while y <= 0:
            x = normal()
            y = 1.0 + c * x
        v = y * y * y
        u = 1 - uniform()
        xx = x * x
        if u < 1.0 - _SQUEEZE_F32 * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def _binomial(count, prob, uniform, rounded):
    """One Binomial(count, prob) draw (torch's branches and order of draws)."""
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob != prob:
        return math.nan
    flipped = prob > 0.5
    p = rounded(1.0 - prob) if flipped else prob
    k = _binomial_btrs(count, p, uniform, rounded) if rounded(count * p) >= 10.0 else \
        _binomial_inversion(count, p, uniform, rounded)
    return count - k if flipped else k


def _binomial_inversion(count, prob, uniform, rounded):
    """The number of geometric waiting times (ceil(log u / log(1 - p))) that fit in count."""
    log_q = rounded(math.log1p(-prob))
    total, successes = 0.0, 0.0
    while True:
        u = uniform()
        total += math.ceil(math.log(u) / log_q) if u > 0 else math.inf
        if total > count:
            return successes
        successes += 1


def _stirling_tail(k):
    """log k! - ((k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2)."""
    if k <= 9:
        return math.lgamma(k + 1.0) - ((k + 0.5) * math.log(k + 1.0) - (k + 1.0) +
                                       0.5 * math.log(2 * math.pi))
    kp1sq = (k + 1.0) * (k + 1.0)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_btrs(count, prob, uniform, rounded):
    """Hormann's BTRS (transformed rejection with squeeze) for count * prob >= 10."""
    stddev = rounded(math.sqrt(rounded(rounded(count * prob) * rounded(1 - prob))))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = rounded(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = rounded(prob / rounded(1 - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(rounded(rounded(count + 1) * prob))
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        k = rounded(math.floor((2 * a / us + b) * u + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        bound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1))) +
                 (count + 1) * math.log((count - m + 1) / (count - k + 1)) +
                 (k + 0.5) * math.log(r * (count - k + 1) / (k + 1)) +
                 _stirling_tail(m) + _stirling_tail(count - m) -
                 _stirling_tail(k) - _stirling_tail(count - k))
        if v <= bound:
            return k


def _poisson_product(rate, uniform):
    """Knuth's method: the count of uniforms whose running product stays above exp(-rate)."""
    limit, count, product = math.exp(-rate), 0, 1.0
    while True:
        product *= uniform()
        if product <= limit:
            return float(count)
        count += 1


def _poisson_ptrs(rate, uniform):
    """Hoermann's PTRS for rate >= 10 (torch's constants and order of tests)."""
    root, log_rate = math.sqrt(rate), math.log(rate)
    b = 0.931 + 2.53 * root
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)
    while True:
        u = uniform() - 0.5
        v = uniform()
        u_s = 0.5 - abs(u)
        k = (2 * a / u_s + b) * u + rate + 0.43
        k = math.floor(k) if k < 2.0 ** 63 else -2 ** 63  # an infinite rate: C's overflow
        if u_s >= 0.07 and v <= v_r:
            return float(k)
        if k < 0 or u_s < 0.013 and v > u_s:
            continue
        if (math.log(v) + math.log(inv_alpha) - math.log(a / (u_s * u_s) + b)
                <= -rate + k * log_rate - math.lgamma(k + 1.0)):
            return float(k)


def _box_muller_16(block):
    """Rows of 16 float64 uniforms -> 16 normals, bit for bit as torch: pairs (j, j + 8) give
    cos and sin parts. float32 (and float16, bfloat16) has its own function below."""
    radius = np.sqrt(-2.0 * np.log(1.0 - block[:, :8]))
    theta = 2.0 * math.pi * block[:, 8:]
    return np.concatenate([radius * np.cos(theta), radius * np.sin(theta)], axis=1)


def _fma_wide(a, b, c, out, wide):
    """out = float32 a * b + c as torch's fused multiply-add, through float64 scratch ``wide``.

    a * b is exact in float64; the sum is rounded to float64, then to float32 on the store.
    That double rounding differs from one rounding only where the float64 sum lands exactly
    halfway between two float32 values without being exact, which _fma32 handles in general;
    in the Box-Muller kernel below it never happens, for any of the 2**24 float32 uniforms its
    steps can see (the tests check every one), so no check is made there.
    """
    np.multiply(a, b, out=wide, dtype=np.float64)
    np.add(wide, c, out=wide)
    np.copyto(out, wide, casting="same_kind")  # faster than the add casting as it stores


def _fma_exact(a, b, c, out):
    """out = float32 a * b + c where float32 a * b is exact: the one rounding is the sum's."""
    np.add(np.multiply(a, b), c, out=out)


_F32 = np.float32
# Cephes float32 polynomials (log: 9 terms; ln 2 and pi / 4 in two and three parts)
_LOG_POLY = tuple(np.float64(_F32(c)) for c in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1))
_LN2_PARTS = (_F32(-2.12194440e-4), _F32(0.693359375))  # the second has 9 bits
_PI4_PARTS = (_F32(-0.78515625), _F32(-2.4187564849853515625e-4),  # 8 and 11 bits
              np.float64(_F32(-3.77489497744594108e-8)))
# (sin, cos) rows, stacked so that one call steps both polynomials in z = r * r
_SINCOS_POLY = tuple(np.array([[[s]], [[c]]], _F32).astype(np.float64) for s, c in (
    (-1.9515295891e-4, 2.443315711809948e-5), (8.3321608736e-3, -1.388731625493765e-3),
    (-1.6666654611e-1, 4.166664568298827e-2)))
_FOUR_OVER_PI, _TWO_PI = _F32(4.0 / math.pi), _F32(2.0 * math.pi)
_SQRT_HALF_BITS = int(np.array(math.sqrt(0.5), _F32).view(np.int32)) & 0x7FFFFF
# the octant j (even, 0..8) of the angle turns (cos r, sin r) by j pi / 4: these are
# cos(j pi / 4) and sin(j pi / 4), 0 or +-1 (products by them are exact)
_TURN_COS = np.array([(1.0, 0.0, -1.0, 0.0)[(j // 2) % 4] for j in range(9)], _F32)
_TURN_SIN = np.array([(0.0, 1.0, 0.0, -1.0)[(j // 2) % 4] for j in range(9)], _F32)
_BLOCKS_PER_PASS = 4096  # 65536 values: fewer calls per value, scratch still in L3 cache


def _box_muller_f32(k, out):
    """float32 normals, bit for bit as torch's AVX2 kernel, from rows of 16 float32 integers
    k < 2**24 (uniforms u = k 2**-24): out[:, j] = r cos t, out[:, j + 8] = r sin t with
    r = sqrt(-2 log(1 - u_j)) and t = 2 pi u_{j+8}.

    That kernel takes log, sin and cos from Cephes-style float32 polynomials (not libm), and
    its compiler fuses their multiply-adds; both are reproduced here (_fma_wide, _fma_exact).
    """
    for lo in range(0, len(k), _BLOCKS_PER_PASS):
        rows = slice(lo, lo + _BLOCKS_PER_PASS)
        radius = _radius_f32(np.subtract(_F32(1 << 24), k[rows, :8]))  # (1 - u) 2**24
        angle = np.multiply(k[rows, 8:], _TWO_PI)  # float32(2 pi) u 2**24, rounded
        angle *= _F32(2.0 ** -24)
        sincos, octant = _sincos_f32(angle)
        octant = octant.astype(np.intp)
        turn_cos = _TURN_COS.take(octant, mode="wrap")
        turn_sin = _TURN_SIN.take(octant, mode="wrap")
        # (cos, sin)(r + j pi / 4): of each two products one is +-0, the other exact
        first = turn_cos * sincos[1]
        second = turn_sin * sincos[1]
        first -= np.multiply(turn_sin, sincos[0], out=turn_sin)
        second += np.multiply(turn_cos, sincos[0], out=turn_cos)
        np.multiply(radius, first, out=out[rows, :8])
        np.multiply(radius, second, out=out[rows, 8:])
    return out


def _radius_f32(x):
    """sqrt(-2 log(x 2**-24)) of float32 x in [1, 2**24]: x 2**-24 = m 2^e with m in
    [sqrt(1/2), sqrt(2)), a polynomial in m - 1, fused multiply-adds as torch's build fuses."""
    bits = x.view(np.int32)
    mbits = bits & 0x7FFFFF
    small = mbits < _SQRT_HALF_BITS  # mantissa below sqrt(1/2): take 2 m and e - 1
    e = np.right_shift(bits, 23)
    e -= small
    e = e.astype(_F32)
    e -= _F32(150.0)  # exponent bias 126 (m in [1/2, 1)) and the 2**24
    mbits |= 0x3F000000
    mbits += np.left_shift(small, 23, dtype=np.int32)
    m = mbits.view(_F32)
    m -= _F32(1.0)
    m64, y, wide = m.astype(np.float64), np.empty_like(m), np.empty(m.shape, np.float64)
    _fma_wide(m64, _LOG_POLY[0], _LOG_POLY[1], y, wide)
    for coef in _LOG_POLY[2:]:
        _fma_wide(y, m64, coef, y, wide)
    z = m * m
    y *= m
    _fma_wide(y, z, e * _LN2_PARTS[0], y, wide)
    _fma_exact(z, _F32(-0.5), y, y)
    y += m
    _fma_exact(e, _LN2_PARTS[1], y, y)  # log x
    y *= _F32(-2.0)
    return np.sqrt(y, out=y)


def _sincos_f32(t):
    """(sin, cos) rows before the octant's turn, and the octant j, of float32 t in [0, 2 pi]:
    j = t 4 / pi made even, r = t - j pi/4 in three fused steps, then the sin and cos
    polynomials in z = r * r."""
    octant = np.multiply(t, _FOUR_OVER_PI).astype(np.int32)
    octant += 1
    octant &= ~1
    j = octant.astype(_F32)
    rz = np.empty((3,) + t.shape, _F32)  # rows r, z, -z / 2
    r, z = rz[0], rz[1]
    _fma_exact(j, _PI4_PARTS[0], t, z)  # j <= 8 even: j times the first two parts is exact
    _fma_exact(j, _PI4_PARTS[1], z, z)
    _fma_wide(j, _PI4_PARTS[2], z, r, np.empty(t.shape, np.float64))
    np.multiply(r, r, out=z)
    np.multiply(z, _F32(-0.5), out=rz[2])
    sincos, wide = np.empty((2,) + t.shape, _F32), np.empty((2,) + t.shape, np.float64)
    _fma_wide(z, _SINCOS_POLY[0], _SINCOS_POLY[1], sincos, wide)
    _fma_wide(sincos, z, _SINCOS_POLY[2], sincos, wide)
    sincos *= z
    _fma_wide(sincos, rz[:2], rz[::2], sincos, wide)  # sin: (.) r + r; cos: (.) z - z / 2
    sincos[1] += _F32(1.0)
    return sincos, octant


# torch seeds its default generator from the OS at start-up (a new Generator() from the fixed
# seed): unseeded runs differ from one process to the next, under torch and ember alike
default_generator = Generator().manual_seed(int.from_bytes(os.urandom(8), "little"))


def _rng(generator=None):
    return (generator or default_generator)._rng


def _gen(generator=None):
    return generator or default_generator


def manual_seed(seed):
    """Seed the default generator; returns it."""
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Draws inside the block leave the default generator's state as it was before."""
    if not enabled:
        yield
        return
    state = default_generator.get_state()
    try:
        yield
    finally:
        default_generator.set_state(state)


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


def _real(np_dtype):
    return np.float32 if np.dtype(np_dtype) == np.complex64 else np.float64


def _as_complex(pairs):
    """(..., 2) real draws as complex numbers: real and imaginary parts in turn, as torch."""
    return pairs.view(np.complex64 if pairs.dtype == np.float32 else np.complex128)[..., 0]
