"""Fuzzer: random benchmark inputs as torch.utils.benchmark makes them. Parameters are drawn from
a NumPy RandomState seeded by the fuzzer's seed (log-uniform, uniform, or a table of choices,
which may name other parameters through ParameterAlias); tensors take their sizes (and steps)
from them, and some a shuffled memory layout. The draws come in torch's order, so one seed gives
the same parameters, layouts and values under ember and torch."""
import functools

import numpy as np

import ember

__all__ = ["FuzzedParameter", "FuzzedTensor", "Fuzzer", "ParameterAlias"]


class ParameterAlias:
    """A choice that stands for the value drawn for another parameter, ``alias_to``."""

    def __init__(self, alias_to):
        self.alias_to = alias_to

    def __repr__(self):
        return f"ParameterAlias[alias_to: {self.alias_to}]"


class FuzzedParameter:
    """A named parameter: ``distribution`` "loguniform" or "uniform" between minval and maxval
    (integers unless a bound is a float), or a dict {choice: probability}; a ``strict`` one keeps
    its first draw through a fuzzer's rejected attempts. (torch 2.13's check of the dict is
    inverted, refusing every normalized one; ember refuses the ones that are not.)"""

    def __init__(self, name, minval=None, maxval=None, distribution=None, strict=False):
        self._name, self._minval, self._maxval, self.strict = name, minval, maxval, strict
        if isinstance(distribution, dict):
            if any(p < 0 for p in distribution.values()):
                raise AssertionError("Probabilities cannot be negative")
            if abs(sum(distribution.values()) - 1) > 1e-5:
                raise AssertionError("Distribution is not normalized")
            if minval is not None or maxval is not None:
                bound = "minval" if minval is not None else "maxval"
                raise AssertionError(f"When passing a custom distribution, '{bound}' must be None")
        elif distribution not in ("loguniform", "uniform"):
            raise AssertionError(f"Unknown distribution: {distribution}")
        self._distribution = distribution

    @property
    def name(self):
        return self._name

    def sample(self, state):
        """One draw from the NumPy RandomState ``state``."""
        lo, hi = self._minval, self._maxval
        if self._distribution == "loguniform":  # an integer, uniform in log2 space, clipped
            value = int(2 ** state.uniform(low=None if lo is None else np.log2(lo),
                                           high=None if hi is None else np.log2(hi)))
            return lo if lo is not None and value < lo else hi if hi is not None and value > hi \
                else value
        if self._distribution == "uniform":
            if isinstance(lo, int) and isinstance(hi, int):
                return int(state.randint(low=lo, high=hi + 1))
            return state.uniform(low=lo, high=hi)
        choices = list(self._distribution)
        return choices[state.choice(np.arange(len(choices)),
                                    p=tuple(self._distribution.values()))]


def _dtype_bytes(dtype):
    if dtype == ember.bool:
        return 1
    info = ember.finfo(dtype) if dtype.is_floating_point or dtype.is_complex else \
        ember.iinfo(dtype)
    return int(info.bits / 8)


def _product(values, start=1):
    return functools.reduce(lambda a, b: int(a) * int(b), values, start)


class FuzzedTensor:
    """A named tensor whose ``size`` (and ``steps``: strides in elements of a larger
    allocation) are numbers or parameter names; ``dim_parameter`` names its rank, and with
    probability 1 - ``probability_contiguous`` its memory order is shuffled. Its element-count
    and allocation bounds reject parameter draws."""

    def __init__(self, name, size, steps=None, probability_contiguous=0.5, min_elements=None,
                 max_elements=None, max_allocation_bytes=None, dim_parameter=None,
                 roll_parameter=None, dtype=ember.float32, cuda=False, tensor_constructor=None):
        self._name, self._size, self._steps = name, size, steps
        self._probability_contiguous = probability_contiguous
        self._min_elements, self._max_elements = min_elements, max_elements
        self._max_allocation_bytes = max_allocation_bytes
        self._dim_parameter, self._dtype, self._cuda = dim_parameter, dtype, cuda
        self._tensor_constructor = tensor_constructor

    @property
    def name(self):
        return self._name

    @staticmethod
    def default_tensor_constructor(size, dtype, **kwargs):
        """Uniform [0, 1) floats, or integers in [1, 127)."""
        if dtype.is_floating_point or dtype.is_complex:
            return ember.rand(size=size, dtype=dtype, device="cpu")
        return ember.randint(1, 127, size=size, dtype=dtype, device="cpu")

    def _shape(self, params):
        """(size, steps, allocation size), each padded with 1s or cut to the rank."""
        rank = params[self._dim_parameter] if self._dim_parameter is not None else \
            len(self._size)

        def fit(values):
            values = tuple(params.get(v, v) for v in values)[:rank]
            return values + (1,) * (rank - len(values))
        size, steps = fit(self._size), fit(self._steps or ())
        return size, steps, tuple(n * s for n, s in zip(size, steps))

    def satisfies_constraints(self, params):
        size, _, allocation = self._shape(params)
        count = _product(size)
        if count < 0:
            raise AssertionError("Computed number of elements is negative")
        limits = ((count, self._max_elements), (self._min_elements, count),
                  (_product(allocation, _dtype_bytes(self._dtype)), self._max_allocation_bytes))
        return not any(a is not None and b is not None and a > b for a, b in limits)

    def _make_tensor(self, params, state):
        size, steps, allocation = self._shape(params)
        make = self._tensor_constructor or self.default_tensor_constructor
        raw = make(size=allocation, dtype=self._dtype, **params)
        if self._cuda:
            raw = raw.cuda()
        order = np.arange(len(size))
        if state.rand() > self._probability_contiguous:  # lay the dimensions out shuffled
            while len(size) > 1 and np.all(order == np.arange(len(size))):
                order = state.permutation(raw.dim())
            raw = raw.permute(tuple(order)).contiguous().permute(tuple(np.argsort(order)))
        tensor = raw[tuple(slice(0, n * s, s) for n, s in zip(size, steps))]
        return tensor, {"numel": int(tensor.numel()), "order": order, "steps": steps,
                        "is_contiguous": tensor.is_contiguous(),
                        "dtype": str(self._dtype)}


def _flatten(values, cls):
    return tuple(v for group in values for v in ([group] if isinstance(group, cls) else group))


class Fuzzer:
    """Draws parameter sets meeting ``constraints`` (callables on the parameter dict) and every
    tensor's bounds, and makes the tensors: ``take(n)`` yields (tensors, their properties,
    parameters) n times."""

    def __init__(self, parameters, tensors, constraints=None, seed=None):
        if seed is None:
            seed = int(np.random.RandomState().randint(0, 2 ** 32 - 1, dtype=np.int64))
        self._seed = seed
        self._parameters = _flatten(parameters, FuzzedParameter)
        self._tensors = _flatten(tensors, FuzzedTensor)
        self._constraints = constraints or ()
        overlap = {p.name for p in self._parameters} & {t.name for t in self._tensors}
        if overlap:
            raise ValueError(f"Duplicate names in parameters and tensors: {overlap}")
        self._rejections = self._total_generated = 0

    def take(self, n):
        state = np.random.RandomState(self._seed)
        ember.manual_seed(int(state.randint(low=0, high=2 ** 63, dtype=np.int64)))
        for _ in range(n):
            params = self._generate(state)
            made = {t.name: t._make_tensor(params, state) for t in self._tensors}
            yield ({k: v[0] for k, v in made.items()}, {k: v[1] for k, v in made.items()},
                   params)

    @property
    def rejection_rate(self):
        return self._rejections / self._total_generated if self._total_generated else 0.0

    def _generate(self, state):
        kept = {}  # strict parameters' first draws
        for _ in range(1000):
            params = {}
            for p in self._parameters:
                if p.strict and p.name in kept:
                    params[p.name] = kept[p.name]
                else:
                    params[p.name] = p.sample(state)
                    if p.strict:
                        kept[p.name] = params[p.name]
            params = _resolve_aliases(params)
            self._total_generated += 1
            if all(f(params) for f in self._constraints) and \
                    all(t.satisfies_constraints(params) for t in self._tensors):
                return params
            self._rejections += 1
        raise ValueError("Failed to generate a set of valid parameters.")


def _resolve_aliases(params):
    params = dict(params)
    left = sum(isinstance(v, ParameterAlias) for v in params.values())
    while left:
        for key in list(params):
            if isinstance(params[key], ParameterAlias):
                params[key] = params[params[key].alias_to]
        now = sum(isinstance(v, ParameterAlias) for v in params.values())
        if now == left:
            raise ValueError(f"ParameterAlias cycle detected\n{params}")
        left = now
    return params
