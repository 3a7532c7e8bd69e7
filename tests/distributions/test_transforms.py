"""The elementwise and vector transforms (ember/distributions/transforms.py): forward, inverse,
log|det J| and its gradient, sign, domains, shapes, equality and errors, compared with torch
2.13."""
import pytest

from ._oracle import check_transform, raises_as_torch, same_as_torch

_TRANSFORMS = {
    "exp": lambda m, T, x: T.ExpTransform(),
    "affine": lambda m, T, x: T.AffineTransform(m.tensor(0.5, dtype=x.dtype),
                                                m.tensor([-2.0, 3.0, 0.5], dtype=x.dtype)),
    "affine-number": lambda m, T, x: T.AffineTransform(1.0, -3.0),
    "affine-event": lambda m, T, x: T.AffineTransform(0.0, m.tensor([2.0, 3.0, 4.0],
                                                                      dtype=x.dtype), event_dim=1),
    "sigmoid": lambda m, T, x: T.SigmoidTransform(),
    "tanh": lambda m, T, x: T.TanhTransform(),
    "power": lambda m, T, x: T.PowerTransform(m.tensor(2.5, dtype=x.dtype)),
    "abs": lambda m, T, x: T.AbsTransform(),
    "softmax": lambda m, T, x: T.SoftmaxTransform(),
    "softplus": lambda m, T, x: T.SoftplusTransform(),
    "stick-breaking": lambda m, T, x: T.StickBreakingTransform(),
    "lower-cholesky": lambda m, T, x: T.LowerCholeskyTransform(),
    "positive-definite": lambda m, T, x: T.PositiveDefiniteTransform(),
    "corr-cholesky": lambda m, T, x: T.CorrCholeskyTransform(),
    "cdf": lambda m, T, x: T.CumulativeDistributionTransform(
        m.distributions.Normal(m.zeros(3, dtype=x.dtype), 2 * m.ones(3, dtype=x.dtype))),
}
_POSITIVE_DOMAIN = ("power",)
_NO_JACOBIAN = ("softmax", "abs", "lower-cholesky", "positive-definite")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(_TRANSFORMS))
def test_transform_matches_torch(name, dtype):
    shape = (2, 3, 3) if name in ("lower-cholesky", "positive-definite") else (2, 3)
    check_transform(_TRANSFORMS[name], dtype, shape, positive=name in _POSITIVE_DOMAIN,
                    jacobian=name not in _NO_JACOBIAN)


def test_shapes_as_torch():
    def build(m, D):
        T = D.transforms
        return [tuple(t.forward_shape(m.Size([4, 3]))) + tuple(t.inverse_shape(m.Size([4, 3])))
                for t in (T.ExpTransform(), T.AffineTransform(0.0, m.ones(2, 1, 3)),
                          T.PowerTransform(m.ones(4, 1)), T.StickBreakingTransform(),
                          T.SoftmaxTransform())] + [
            tuple(T.CorrCholeskyTransform().forward_shape(m.Size([2, 6]))),
            tuple(T.CorrCholeskyTransform().inverse_shape(m.Size([2, 4, 4])))]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.transforms.ExpTransform(cache_size=2),
    lambda m, D: D.transforms.Transform()(m.zeros(1)),
    lambda m, D: D.transforms.Transform().sign,
    lambda m, D: D.transforms.AbsTransform().sign,
    lambda m, D: D.transforms.Transform().log_abs_det_jacobian(m.zeros(1), m.zeros(1)),
    lambda m, D: D.transforms.SoftmaxTransform().forward_shape(m.Size([])),
    lambda m, D: D.transforms.StickBreakingTransform().inverse_shape(m.Size([])),
    lambda m, D: D.transforms.LowerCholeskyTransform().sign,
    lambda m, D: D.transforms.CorrCholeskyTransform().forward_shape(m.Size([4])),
    lambda m, D: D.transforms.CorrCholeskyTransform().inverse_shape(m.Size([3, 2])),
], ids=["cache-size", "call", "sign", "abs-sign", "jacobian", "softmax-shape", "stick-shape",
        "cholesky-sign", "corr-not-triangular", "corr-not-square"])
def test_transform_errors_as_torch(bad):
    raises_as_torch(bad)
