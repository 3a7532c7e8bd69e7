"""biject_to and transform_to (ember/distributions/constraint_registry.py): the transform each
constraint gets (values pushed through it, its log|det J|), registration of new factories, and
the errors, compared with torch 2.13."""
import pytest
import torch

import ember

from ._oracle import raises_as_torch, same_as_torch

_CONSTRAINTS = {
    "real": lambda C: C.real, "positive": lambda C: C.positive,
    "nonnegative": lambda C: C.nonnegative, "greater-than": lambda C: C.greater_than(2.0),
    "greater-than-eq": lambda C: C.greater_than_eq(-1.0), "less-than": lambda C: C.less_than(1.0),
    "unit-interval": lambda C: C.unit_interval, "interval": lambda C: C.interval(-1.0, 3.0),
    "half-open": lambda C: C.half_open_interval(0.0, 1.0), "simplex": lambda C: C.simplex,
    "real-vector": lambda C: C.real_vector,
    "independent": lambda C: C.independent(C.positive, 1),
    "corr-cholesky": lambda C: C.corr_cholesky,
}


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", list(_CONSTRAINTS))
def test_registry_matches_torch(name, registry):
    def build(m, D):
        t = getattr(D, registry)(_CONSTRAINTS[name](D.constraints))
        x = m.randn(2, 3, dtype=m.float64)  # (for corr_cholesky: 3 = the 3 x 3 lower part)
        y = t(x)
        out = [repr(t), y, bool(_CONSTRAINTS[name](D.constraints).check(y).all())]
        if registry == "biject_to":
            out += [t.inv(y), t.log_abs_det_jacobian(x, y)]
        return out
    same_as_torch(build)


@pytest.mark.parametrize("name", ["lower_cholesky", "positive_definite", "positive_semidefinite"])
def test_matrix_constraints_only_have_a_transform_to_as_torch(name):
    def build(m, D):
        t = D.transform_to(getattr(D.constraints, name))
        return [repr(t), t(m.randn(2, 3, 3))]
    same_as_torch(build)
    raises_as_torch(lambda m, D: D.biject_to(getattr(D.constraints, name)))


def test_register_as_torch():
    for m in (ember, torch):
        D = m.distributions
        registry = D.constraint_registry.ConstraintRegistry()

        @registry.register(D.constraints.positive)
        def _softplus(constraint):
            return D.transforms.SoftplusTransform()
        assert isinstance(registry(D.constraints.greater_than(3.0)), D.transforms.SoftplusTransform)
        registry.register(type(D.constraints.real), lambda c: D.transforms.identity_transform)
        assert registry(D.constraints.real) is D.transforms.identity_transform
    raises_as_torch(lambda m, D: D.constraint_registry.ConstraintRegistry().register(int, len))
    raises_as_torch(lambda m, D: D.constraint_registry.ConstraintRegistry()(D.constraints.real))
