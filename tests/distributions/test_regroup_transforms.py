"""The transforms that regroup dims (ember/distributions/_regroup_transforms.py):
IndependentTransform, ReshapeTransform, CatTransform and StackTransform (values, inverses,
log|det J| and gradients, domains, shapes, the cat and stack constraints, biject_to of them) and
their errors, compared with torch 2.13."""
import pytest

from ._oracle import check_transform, raises_as_torch, same_as_torch

_TRANSFORMS = {
    "independent": lambda m, T, x: T.IndependentTransform(T.ExpTransform(), 1),
    "independent-2": lambda m, T, x: T.IndependentTransform(T.TanhTransform(), 2),
    "reshape": lambda m, T, x: T.ReshapeTransform((3,), (3, 1)),
    "cat": lambda m, T, x: T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], -1,
                                          [1, 2]),
    "cat-dim0": lambda m, T, x: T.CatTransform([T.TanhTransform(), T.ExpTransform()], 0),
    "cat-events": lambda m, T, x: T.CatTransform(
        [T.IndependentTransform(T.ExpTransform(), 1), T.SigmoidTransform()], 0),
    "stack": lambda m, T, x: T.StackTransform([T.ExpTransform(), T.SigmoidTransform(),
                                               T.TanhTransform()], -1),
    "stack-cached": lambda m, T, x: T.StackTransform([T.ExpTransform(), T.TanhTransform()], 0,
                                                     cache_size=1),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(_TRANSFORMS))
def test_transform_matches_torch(name, dtype):
    check_transform(_TRANSFORMS[name], dtype, grad=name != "reshape")


def test_cat_and_stack_constraints_and_registry_as_torch():
    def build(m, D):
        C = D.constraints
        cat = C.cat([C.positive, C.interval(0.0, 1.0)], -1, [2, 1])
        stack = C.stack([C.positive, C.real], 0)
        x = m.tensor([[1.0, 2.0, 0.5], [-1.0, 2.0, 1.5]])
        t = D.biject_to(cat)
        u = D.transform_to(stack)
        return [cat.check(x), stack.check(x), cat.event_dim, stack.event_dim, cat.is_discrete,
                t(m.randn(2, 3)), u(m.randn(2, 3)), repr(t.domain), repr(u.codomain),
                C.stack([C.real_vector], -1).event_dim]
    same_as_torch(build)


def test_structural_shapes_and_reprs_as_torch():
    def build(m, D):
        T = D.transforms
        r = T.ReshapeTransform((2, 3), (6,))
        i = T.IndependentTransform(T.ExpTransform(), 1)
        return [tuple(r.forward_shape(m.Size([4, 2, 3]))), tuple(r.inverse_shape(m.Size([4, 6]))),
                repr(i), repr(T.ComposeTransform([T.ExpTransform(), i])), i.event_dim,
                T.ComposeTransform([T.SoftmaxTransform(), T.ExpTransform()]).codomain.event_dim]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.transforms.ReshapeTransform((2, 3), (5,)),
    lambda m, D: D.transforms.ReshapeTransform((2, 3), (6,)).forward_shape(m.Size([3, 2])),
    lambda m, D: D.transforms.ReshapeTransform((2, 3), (6,)).inverse_shape(m.Size([])),
    lambda m, D: D.transforms.IndependentTransform(D.transforms.ExpTransform(), 2)(m.zeros(3)),
    lambda m, D: D.transforms.IndependentTransform(D.transforms.ExpTransform(), 2).inv(
        m.ones(3)),
    lambda m, D: D.transforms.CatTransform([D.transforms.ExpTransform()], 0, [1, 2]),
    lambda m, D: D.transforms.CatTransform([D.transforms.ExpTransform()], 0, [2])(m.zeros(3)),
    lambda m, D: D.transforms.CatTransform([D.transforms.ExpTransform()], 2)(m.zeros(1)),
    lambda m, D: D.transforms.StackTransform([D.transforms.ExpTransform()], 0)(m.zeros(2)),
    lambda m, D: D.transforms.StackTransform([1], 0),
    lambda m, D: D.constraints.cat([D.constraints.real], 0, [1, 1]),
    lambda m, D: D.constraints.stack([D.constraints.real], 3).check(m.zeros(2)),
], ids=["numel", "mismatch", "too-few", "independent-dims", "independent-inverse-dims",
        "cat-lengths", "cat-size", "cat-dim", "stack-size", "stack-not-transforms",
        "cat-constraint-lengths", "stack-constraint-dim"])
def test_structural_errors_as_torch(bad):
    raises_as_torch(bad)
