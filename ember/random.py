"""Random number generators: Generator objects, manual_seed and the default generator.

The stream is PyTorch's CPU one: a 32-bit Mersenne Twister (mt19937) seeded as torch seeds it,
and torch's transformations on top (24/53-bit uniforms, Box-Muller normals in blocks of 16, the
cached second normal of the scalar path), so a seeded script draws the same numbers as torch.
"""
import json
import math
import sys

import numpy as np

from ._tensor import Tensor, device

_DEFAULT_SEED = 67280421310721  # torch's default seed: unseeded scripts match torch too
_MASK24, _MASK53 = (1 << 24) - 1, (1 << 53) - 1
_VALUE_WORD = 0 if sys.byteorder == "little" else 1  # the used half of random_raw's uint64


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
        return (self._raw64(n) & np.uint64(_MASK53)) * 2.0 ** -53

    def uniform(self, shape, np_dtype, low=0.0, high=1.0):
        """U(low, high) as torch's uniform_: 24 random bits for float32, 53 for float64."""
        n = int(np.prod(shape))
        np_dtype = np.dtype(np_dtype)
        if np_dtype == np.float64:
            x, lo, span = self._doubles(n), float(low), float(high) - float(low)
        else:
            bits = 11 if np_dtype == np.float16 else 24
            raw = self._bits.random_raw(n) & np.uint64((1 << bits) - 1)
            x = raw * 2.0 ** -bits
            lo = float(np_dtype.type(low))
            span = float(np_dtype.type(np_dtype.type(high) - np_dtype.type(low)))
        return (x * span + lo).astype(np_dtype).reshape(shape)

    def normal(self, shape, np_dtype, mean=0.0, std=1.0):
        """N(mean, std^2) as torch's normal_: Box-Muller over blocks of 16 uniforms when there
        are at least 16 values, else one pair per two values with the second one cached."""
        n = int(np.prod(shape))
        bf16 = np.dtype(np_dtype).kind == "V"  # bfloat16: torch computes in float32, casts
        if n >= 16 and (bf16 or np.dtype(np_dtype) == np.float32):  # torch's kernel ends in
            values = self._normal_fill(n, np.float32, bf16)  # one fused multiply-add with
            values = _fma32(values, np.float32(std), np.float32(mean))  # float32 std, mean
            return values.astype(np_dtype).reshape(shape)
        if n >= 16:
            values = self._normal_fill(n, np_dtype)
        else:
            values = np.array([self._normal_scalar() for _ in range(n)])
        values = values * std + mean
        if bf16:  # torch's double -> bfloat16 goes through float
            values = values.astype(np.float32)
        return values.astype(np_dtype).reshape(shape)

    def _normal_fill(self, n, np_dtype, blockwise=False):
        """``blockwise``: torch's bfloat16 kernel, which draws 16 uniforms a block, so the
        redrawn last block follows the last full one (float32 draws all n first)."""
        box_muller = _box_muller_16_f32 if np.dtype(np_dtype) == np.float32 else _box_muller_16
        np_dtype = np.float64 if np.dtype(np_dtype) == np.float64 else np.float32
        u = self.uniform((n - n % 16 if blockwise else n,), np_dtype)
        out = np.empty(n, np_dtype)
        full = n - n % 16
        out[:full] = box_muller(u[:full].reshape(-1, 16)).reshape(-1)
        if n % 16:  # torch redraws the last 16 values
            tail = self.uniform((16,), np_dtype)
            out[n - 16:] = box_muller(tail.reshape(1, 16)).reshape(-1)
        return out

    def bernoulli(self, shape, p):
        """0/1 draws as torch's bernoulli_(p): a 53-bit uniform below p (p a number).

        u = bits * 2**-53 < p  <=>  bits < ceil(p * 2**53), so the draws are compared as
        integers: the 21 high bits (from the first 32-bit draw) decide, except where they equal
        the threshold's, and there the low 32 bits do.
        """
        n = int(np.prod(shape))
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
        """0/1 draws as torch.bernoulli(probs): a 24-bit uniform below float32(p), per element."""
        u = (self._bits.random_raw(probs.size) & np.uint64(_MASK24)) * 2.0 ** -24
        return u.reshape(probs.shape) < probs.astype(np.float32)

    def exponential(self, shape, np_dtype, lambd=1.0):
        """Exp(lambd) as torch's exponential_: (-1 / lambd) * log1p(-u) from 53-bit uniforms,
        rounded to float32 first for float16 (the order torch's CPU kernel rounds in)."""
        x = (-1.0 / lambd) * np.log1p(-self._doubles(int(np.prod(shape))))
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
            keys = rows / self.exponential(rows.shape, rows.dtype)
            return np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
        acc = np.float32 if rows.dtype == np.float16 else rows.dtype
        cumulative = np.cumsum(rows, axis=1, dtype=acc)
        cumulative /= cumulative[:, -1:]
        cumulative[:, -1] = 1  # the last bucket takes every draw, whatever rounding did
        draws = self._doubles(rows.shape[0] * num_samples).reshape(rows.shape[0], num_samples)
        return np.stack([np.searchsorted(c.astype(np.float64), d, side="left")
                         for c, d in zip(cumulative, draws)])

    def integers(self, low, high, shape):
        """Integers in [low, high) as torch's random_(from, to): raw % range + low."""
        span = int(high) - int(low)
        if span <= 0:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={low} >= to={high}")
        n = int(np.prod(shape))
        raw = self._raw64(n) if span >= 1 << 32 else self._bits.random_raw(n)
        return ((raw % np.uint64(span)).astype(np.int64) + int(low)).reshape(shape)

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

    def _normal_scalar(self):
        if self._normal_cache is not None:
            value, self._normal_cache = self._normal_cache, None
            return value
        u1, u2 = self._doubles(2)
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self._normal_cache = radius * math.sin(theta)
        return radius * math.cos(theta)


def _box_muller_16(block):
    """Rows of 16 uniforms -> 16 normals: pairs (j, j + 8) give cos and sin parts.

    float64 matches torch bit for bit; float16 and bfloat16 (drawn as float32 here) come within
    a few ulp. float32 has its own, bit-exact function below.
    """
    dt = block.dtype.type
    log = np.log(1.0 - block[:, :8].astype(np.float64)).astype(dt) if dt is np.float32 \
        else np.log(1.0 - block[:, :8])
    radius = np.sqrt(dt(-2.0) * log)
    theta = dt(2.0 * math.pi) * block[:, 8:]
    return np.concatenate([radius * np.cos(theta), radius * np.sin(theta)], axis=1)


def _box_muller_16_f32(block):
    """float32 rows of 16 uniforms -> 16 normals, bit for bit as torch's AVX2 CPU kernel.

    That kernel takes log, sin and cos from Cephes-style float32 polynomials (not libm), and
    its compiler fuses their multiply-adds; both are reproduced here (_log_f32, _sincos_f32).
    """
    f32 = np.float32
    radius = np.sqrt(f32(-2.0) * _log_f32(f32(1.0) - block[:, :8]))
    sin, cos = _sincos_f32(f32(2.0 * math.pi) * block[:, 8:])
    return np.concatenate([radius * cos, radius * sin], axis=1)


_BELOW_FLOAT32, _HALF_FLOAT32 = np.uint64((1 << 29) - 1), np.uint64(1 << 28)


def _fma32(a, b, c):
    """float32 a * b + c rounded once, as a fused multiply-add: a * b is exact in float64, and
    where the float64 sum lies exactly halfway between two float32 values (rare), the sign of
    that sum's own rounding error (two-sum) decides the float32 rounding."""
    s = np.multiply(a, b, dtype=np.float64)
    s += c
    out = s.astype(np.float32)
    low_bits = _BELOW_FLOAT32  # the float64 mantissa bits below float32's
    halfway = (s.view(np.uint64) & low_bits) == _HALF_FLOAT32
    if halfway.any():
        tie = np.flatnonzero(halfway)
        p = np.multiply(np.broadcast_to(a, s.shape).flat[tie], np.broadcast_to(b, s.shape)
                        .flat[tie], dtype=np.float64)
        c, st = np.broadcast_to(c, s.shape).flat[tie].astype(np.float64), s.flat[tie]
        back = st - p
        err = (p - (st - back)) + (c - back)  # st + err == p + c exactly
        inner = (st.view(np.uint64) & ~low_bits).view(np.float64).astype(np.float32)
        outer = np.nextafter(inner, np.copysign(np.float32(np.inf), inner))
        fixed = np.where(err == 0, out.flat[tie], np.where((err > 0) == (st > 0), outer, inner))
        out.flat[tie] = fixed
    return out


# Cephes float32 polynomials (log: 9 terms; ln 2 and pi / 4 in two and three parts)
_LOG_POLY = (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
             1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
             3.3333331174e-1)
_LN2_PARTS = (np.float32(-2.12194440e-4), np.float32(0.693359375))
_PI4_PARTS = (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8)
_COS_POLY = (2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2)
_SIN_POLY = (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)


def _log_f32(x):
    """log of positive float32 x: x = m 2^e with m in [sqrt(1/2), sqrt(2)), a polynomial in
    m - 1, fused multiply-adds where torch's build fuses them."""
    f32 = np.float32
    bits = np.maximum(x, f32(np.finfo(f32).tiny)).view(np.int32)
    e = ((bits >> 23) - 126).astype(f32)
    m = ((bits & 0x007FFFFF) | 0x3F000000).view(f32)  # in [0.5, 1)
    small = m < f32(math.sqrt(0.5))
    e = np.where(small, e - f32(1.0), e)
    m = np.where(small, (m - f32(1.0)) + m, m - f32(1.0))
    z = m * m
    y = np.full_like(m, f32(_LOG_POLY[0]))
    for coef in _LOG_POLY[1:]:
        y = _fma32(y, m, f32(coef))
    y = _fma32(y * m, z, e * _LN2_PARTS[0])
    y = _fma32(z, f32(-0.5), y)
    return _fma32(e, _LN2_PARTS[1], m + y)


def _sincos_f32(x):
    """(sin, cos) of float32 x: octant j of |x| (made even), x - j pi/4 in three fused steps,
    then the cos or sin polynomial by octant, signs by octant."""
    f32 = np.float32
    j = (np.abs(x) * f32(4.0 / math.pi)).astype(np.int32)
    j = (j + 1) & ~1
    r, y = np.abs(x), j.astype(f32)
    for part in _PI4_PARTS:
        r = _fma32(y, f32(part), r)
    z = r * r
    cos = _fma32(_fma32(f32(_COS_POLY[0]), z, f32(_COS_POLY[1])), z, f32(_COS_POLY[2]))
    cos = _fma32(cos * z, z, -(z * f32(0.5))) + f32(1.0)
    sin = _fma32(_fma32(f32(_SIN_POLY[0]), z, f32(_SIN_POLY[1])), z, f32(_SIN_POLY[2]))
    sin = _fma32(sin * z, r, r)
    swap = (j & 2) != 0
    sin, cos = np.where(swap, cos, sin), np.where(swap, sin, cos)
    sin = np.where(np.signbit(x) ^ ((j & 4) != 0), -sin, sin)
    cos = np.where((j - 2) & 4, cos, -cos)
    return sin, cos


default_generator = Generator()


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


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)
