"""Constraints: which values a distribution's parameters and samples may take (``check(value)``
is a bool tensor), named as torch prints them."""
import ember

__all__ = ["Constraint", "MixtureSameFamilyConstraint", "boolean", "cat", "corr_cholesky",
           "dependent", "dependent_property", "greater_than", "greater_than_eq",
           "half_open_interval", "independent", "integer_interval", "interval", "is_dependent",
           "less_than", "lower_cholesky", "lower_triangular", "multinomial", "nonnegative",
           "nonnegative_integer", "one_hot", "positive", "positive_definite", "positive_integer",
           "positive_semidefinite", "real", "real_vector", "simplex", "square", "stack",
           "symmetric", "unit_interval"]


class Constraint:
    """A region of values; ``event_dim`` trailing dims are checked together."""
    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    """A constraint that depends on other parameters: never checked. ``is_discrete`` and
    ``event_dim`` are known only when given (``dependent(is_discrete=..., event_dim=...)``)."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete, self._event_dim = is_discrete, event_dim

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        return _Dependent(
            is_discrete=self._is_discrete if is_discrete is NotImplemented else is_discrete,
            event_dim=self._event_dim if event_dim is NotImplemented else event_dim)

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


class _DependentProperty(property, _Dependent):
    """A property of a distribution (its support, say) that reads as a dependent constraint on
    the class: ``@constraints.dependent_property(is_discrete=False, event_dim=0)``."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


def is_dependent(constraint):
    return isinstance(constraint, _Dependent)


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _Real(Constraint):
    def check(self, value):
        return value == value  # False only for NaN


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return self.lower_bound < value

    def __repr__(self):
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"LessThan(upper_bound={self.upper_bound})"


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return self.lower_bound <= value

    def __repr__(self):
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)

    def __repr__(self):
        return f"HalfOpenInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerInterval(_Interval):
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & super().check(value)

    def __repr__(self):
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerGreaterThan(_GreaterThan):
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return f"IntegerGreaterThan(lower_bound={self.lower_bound})"


class _IndependentConstraint(Constraint):
    """``base`` checked elementwise, then all of the ``reinterpreted_batch_ndims`` rightmost
    dims together."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        self.event_dim = base_constraint.event_dim + reinterpreted_batch_ndims

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    def check(self, value):
        result = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if result.dim() < n:
            raise ValueError(f"Expected value.dim() >= {n} but got {result.dim()}")
        return result.reshape(result.shape[:result.dim() - n] + (-1,)).all(-1)

    def __repr__(self):
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


def _check_dim(dim, value, what="value"):
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for {what} with {value.dim()} dimensions")


class _Cat(Constraint):
    """Constraints ``cseq`` applied to consecutive slices of ``lengths`` along ``dim``."""

    def __init__(self, cseq, dim=0, lengths=None):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq "
                                 f"({len(self.cseq)})")
        self.dim = dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        _check_dim(self.dim, value)
        checks, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return ember.cat(checks, self.dim)


class _Stack(Constraint):
    """Constraints ``cseq`` applied to the successive slices along ``dim``."""

    def __init__(self, cseq, dim=0):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq, self.dim = list(cseq), dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value):
        _check_dim(self.dim, value)
        slices = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return ember.stack([c.check(v) for v, c in zip(slices, self.cseq)], self.dim)


class _Simplex(Constraint):
    """Non-negative vectors along the last dim that sum to 1 (within 1e-6)."""
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _OneHot(Constraint):
    """Vectors of 0s and 1s with a single 1."""
    is_discrete = True
    event_dim = 1

    def check(self, value):
        boolean = ((value == 0) | (value == 1)).all(-1)
        return boolean & value.sum(-1).eq(1)


class _Multinomial(Constraint):
    """Non-negative count vectors summing to at most ``upper_bound`` (torch's weaker check)."""
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return (value >= 0).all(dim=-1) & (value.sum(dim=-1) <= self.upper_bound)


class MixtureSameFamilyConstraint(Constraint):
    """The components' constraint, checked with the mixture dim added back and all-reduced
    over the event dims."""

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(f"base_constraint must be a Constraint, got "
                                 f"{type(base_constraint).__name__}")
        self.base_constraint = base_constraint

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        keep = value.dim() - self.event_dim
        return result.reshape(result.shape[:keep] + (-1,)).all(-1)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.base_constraint!r})"


class _LowerTriangular(Constraint):
    """Lower-triangular square matrices."""
    event_dim = 2

    def check(self, value):
        return (value.tril() == value).reshape(value.shape[:-2] + (-1,)).min(-1)[0]


class _LowerCholesky(_LowerTriangular):
    """Lower-triangular square matrices with a positive diagonal."""

    def check(self, value):
        return super().check(value) & (value.diagonal(dim1=-2, dim2=-1) > 0).min(-1)[0]


class _CorrCholesky(_LowerCholesky):
    """Cholesky factors of correlation matrices: rows of unit length (within 10 n eps)."""

    def check(self, value):
        tol = ember.finfo(value.dtype).eps * value.size(-1) * 10
        row_norm = ember.linalg.norm(value.detach(), dim=-1)
        return super().check(value) & (row_norm - 1.0).abs().le(tol).all(dim=-1)


class _Square(Constraint):
    """Square matrices (a shape check)."""
    event_dim = 2

    def check(self, value):
        return ember.full(value.shape[:-2], value.shape[-2] == value.shape[-1],
                          dtype=ember.bool)


class _Symmetric(_Square):
    """Square matrices equal to their transpose (within 1e-6)."""

    def check(self, value):
        square = super().check(value)
        if not bool(square.all()):
            return square
        return ember.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices with no negative eigenvalue."""

    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return ember.linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices whose Cholesky factorization succeeds."""

    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return ember.linalg.cholesky_ex(value).info.eq(0)


dependent = _Dependent()
boolean = _Boolean()
real = _Real()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
real_vector = _IndependentConstraint(real, 1)
lower_cholesky = _LowerCholesky()
one_hot = _OneHot()
positive_definite = _PositiveDefinite()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
lower_triangular = _LowerTriangular()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
dependent_property = _DependentProperty
greater_than, greater_than_eq = _GreaterThan, _GreaterThanEq
less_than, independent = _LessThan, _IndependentConstraint
interval, integer_interval, half_open_interval = _Interval, _IntegerInterval, _HalfOpenInterval
multinomial = _Multinomial
cat, stack = _Cat, _Stack
