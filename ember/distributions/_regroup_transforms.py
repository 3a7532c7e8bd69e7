"""The transforms that regroup dims around other transforms: IndependentTransform (more event
dims), ReshapeTransform, CatTransform (slices along a dim) and StackTransform (the entries along
a dim)."""
import ember

from . import constraints
from ._transform import Transform
from .independent import _sum_rightmost

__all__ = ["CatTransform", "IndependentTransform", "ReshapeTransform", "StackTransform"]


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more rightmost dims taken as one
    event (its log|det J| summed over them)."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.base_transform!r}, " \
            f"{self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """The rightmost dims of ``in_shape`` reshaped to ``out_shape`` (log|det J| = 0)."""
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = ember.Size(in_shape), ember.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        return x.reshape(x.shape[:x.dim() - len(self.in_shape)] + self.out_shape)

    def _inverse(self, y):
        return y.reshape(y.shape[:y.dim() - len(self.out_shape)] + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(x.shape[:x.dim() - len(self.in_shape)])

    def forward_shape(self, shape):
        return _replace_tail(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return _replace_tail(shape, self.out_shape, self.in_shape)


class CatTransform(Transform):
    """Transforms ``tseq`` applied to consecutive slices of ``lengths`` along ``dim``."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _slices(self, value, name):
        """value's slices, one per transform (after checking dim and the total length)."""
        _check_along(self.dim, value, self.length, name, f"length {self.length}")
        starts = [sum(self.lengths[:i]) for i in range(len(self.lengths))]
        return [value.narrow(self.dim, s, n) for s, n in zip(starts, self.lengths)]

    def _call(self, x):
        return ember.cat([t(v) for t, v in zip(self.transforms, self._slices(x, "x"))],
                         dim=self.dim)

    def _inverse(self, y):
        return ember.cat([t.inv(v) for t, v in zip(self.transforms, self._slices(y, "y"))],
                         dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = []
        for t, a, b in zip(self.transforms, self._slices(x, "x"), self._slices(y, "y")):
            term = t.log_abs_det_jacobian(a, b)
            terms.append(_sum_rightmost(term, self.event_dim - t.event_dim))
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        return ember.cat(terms, dim=dim) if dim < 0 else sum(terms)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Transforms ``tseq`` applied to the successive slices along ``dim``."""

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms, self.dim = list(tseq), dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, value, name):
        _check_along(self.dim, value, len(self.transforms), name,
                     f"len(transforms) {len(self.transforms)}")
        return [value.select(self.dim, i) for i in range(value.size(self.dim))]

    def _call(self, x):
        return ember.stack([t(v) for t, v in zip(self.transforms, self._slices(x, "x"))],
                           dim=self.dim)

    def _inverse(self, y):
        return ember.stack([t.inv(v) for t, v in zip(self.transforms, self._slices(y, "y"))],
                           dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        return ember.stack([t.log_abs_det_jacobian(a, b) for t, a, b in
                            zip(self.transforms, self._slices(x, "x"), self._slices(y, "y"))],
                           dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


def _check_along(dim, value, size, name, expected):
    """torch's checks: dim inside value's dims, and value's size there as expected."""
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for tensor with {value.dim()} dimensions")
    if value.size(dim) != size:
        raise AssertionError(f"{name}.size({dim}) = {value.size(dim)} must equal {expected}")


def _replace_tail(shape, tail, new_tail):
    if len(shape) < len(tail):
        raise ValueError("Too few dimensions on input")
    cut = len(shape) - len(tail)
    if shape[cut:] != tail:
        raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {tail}")
    return shape[:cut] + new_tail
