"""Constraints (ember/distributions/constraints.py): check() on values inside, on and outside
each region, event_dim/is_discrete, reprs, is_dependent and the refusals, compared with torch
2.13."""
import numpy as np
import pytest
import torch

import ember

VALUES = [[-1.0, 0.0, 0.5, 1.0, 2.0, float("inf"), float("nan")], [[0.0, 1.0], [1.0, 1.0]],
          [[0.2, 0.8, 0.0], [0.5, 0.6, -0.1]], [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], [3.0, 2.5, 0.0]]

ELEMENTWISE = ["boolean", "real", "positive", "nonnegative", "unit_interval",
               "nonnegative_integer", "positive_integer"]


def _made(C, name):
    return {"greater_than": lambda: C.greater_than(0.5), "less_than": lambda: C.less_than(1.0),
            "interval": lambda: C.interval(-1.0, 1.0),
            "integer_interval": lambda: C.integer_interval(0, 2),
            "half_open_interval": lambda: C.half_open_interval(0.0, 1.0),
            "greater_than_eq": lambda: C.greater_than_eq(0.5),
            "multinomial": lambda: C.multinomial(2),
            "independent": lambda: C.independent(C.positive, 1)}.get(
                name, lambda: getattr(C, name))()


@pytest.mark.parametrize("name", ELEMENTWISE + ["greater_than", "less_than", "interval",
                                                "integer_interval", "simplex", "one_hot",
                                                "real_vector", "independent",
                                                "half_open_interval", "greater_than_eq",
                                                "multinomial"])
@pytest.mark.parametrize("i", range(len(VALUES)))
def test_check_as_torch(name, i):
    got = []
    for m in (ember, torch):
        c = _made(m.distributions.constraints, name)
        value = m.tensor(VALUES[i])
        result = c.check(value)
        got.append((result.dtype == m.bool, tuple(result.shape), result.numpy().tolist(),
                    c.event_dim, c.is_discrete, repr(c)))
    assert got[0] == got[1]


MATRICES = [np.eye(3), [[2.0, 1.0], [1.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]], [[1.0, 0.0], [0.6, 0.8]],
            [[1.0, 1.0], [1.0, 1.0]],
            [[1.0, 0.0], [3.0, 2.0]], [[1.0, 1.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, -1.0]],
            [[[4.0, 0.0], [1.0, 1.0]], [[1.0, 0.5], [0.4, 1.0]]], np.ones((2, 3))]


@pytest.mark.parametrize("name", ["lower_cholesky", "positive_definite", "lower_triangular",
                                  "corr_cholesky", "square", "symmetric",
                                  "positive_semidefinite"])
@pytest.mark.parametrize("i", range(len(MATRICES)))
def test_matrix_checks_as_torch(name, i):
    got = []
    for m in (ember, torch):
        c = getattr(m.distributions.constraints, name)
        result = c.check(m.tensor(np.asarray(MATRICES[i], dtype=np.float32)))
        got.append((tuple(result.shape), result.numpy().tolist(), c.event_dim, repr(c)))
    assert got[0] == got[1]


def test_dependent_and_refusals_as_torch():
    caught = []
    for m in (ember, torch):
        C = m.distributions.constraints
        assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
        assert repr(C.dependent) == "Dependent()"
        for bad in (lambda: C.dependent.check(m.zeros(1)),
                    lambda: C.independent(C.real, 2).check(m.zeros(3)),
                    lambda: C.Constraint().check(m.zeros(1))):
            with pytest.raises(Exception) as info:
                bad()
            caught.append((type(info.value), str(info.value)))
    assert caught[:3] == caught[3:]


def test_reprs_as_torch():
    for name in ["positive", "nonnegative", "unit_interval", "simplex", "real_vector",
                 "lower_cholesky", "one_hot", "positive_definite", "nonnegative_integer",
                 "real", "boolean"]:
        assert repr(getattr(ember.distributions.constraints, name)) == \
            repr(getattr(torch.distributions.constraints, name)), name


def test_dependent_property_as_torch():
    for m in (ember, torch):
        C = m.distributions.constraints

        class Box:
            def __init__(self, high):
                self.high = high

            @C.dependent_property(is_discrete=False, event_dim=0)
            def support(self):
                return C.interval(0.0, self.high)
        assert C.is_dependent(Box.support) and Box.support.event_dim == 0
        assert not Box.support.is_discrete and repr(Box(2.0).support) == \
            "Interval(lower_bound=0.0, upper_bound=2.0)"
        custom = C.dependent(is_discrete=True, event_dim=1)
        assert custom.is_discrete and custom.event_dim == 1
        with pytest.raises(NotImplementedError, match="cannot be determined statically"):
            C.dependent.event_dim
