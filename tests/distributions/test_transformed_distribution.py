"""TransformedDistribution (ember/distributions/transformed_distribution.py): samples, rsample
gradients, log_prob by change of variables, cdf/icdf through increasing and decreasing
transforms, event dims from the transforms, expand, KL and the errors, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tanh_squashed_normal_as_torch(dtype):
    """SAC's policy: Normal pushed through tanh and an affine map with a negative scale."""
    def build(m, D):
        loc = m.randn(3, dtype=getattr(m, dtype)).requires_grad_()
        scale = (m.rand(3, dtype=getattr(m, dtype)) + 0.5).requires_grad_()
        T = D.transforms
        d = D.TransformedDistribution(D.Normal(loc, scale),
                                      [T.TanhTransform(cache_size=1), T.AffineTransform(0.5, -2.0)])
        return profile(m, d, [loc, scale])
    same_as_torch(build)


def test_event_dims_from_transforms_as_torch():
    def build(m, D):
        T = D.transforms
        loc = m.randn(2, 3).requires_grad_()
        d = D.TransformedDistribution(D.Normal(loc, m.ones(2, 3)), [T.SoftmaxTransform()])
        e = D.TransformedDistribution(D.Normal(loc, m.ones(2, 3)),
                                      T.AffineTransform(0.0, m.ones(4, 2, 3), event_dim=1))
        x = d.sample((2,))
        return [tuple(d.batch_shape), tuple(d.event_shape), repr(d.support), x,
                tuple(e.batch_shape), tuple(e.event_shape), e.log_prob(e.sample()),
                type(e.base_dist).__name__, tuple(e.expand((5, 4, 2)).sample().shape),
                D.kl_divergence(e, e)]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.TransformedDistribution(D.Normal(0.0, 1.0), "exp"),
    lambda m, D: D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.ExpTransform(), 1]),
    lambda m, D: D.TransformedDistribution(D.Normal(0.0, 1.0), D.transforms.SoftmaxTransform()),
    lambda m, D: D.TransformedDistribution(D.Normal(0.0, 1.0), D.transforms.ExpTransform())
    .log_prob(m.tensor(-1.0)),
    lambda m, D: D.kl_divergence(D.LogNormal(0.0, 1.0),
                                 D.TransformedDistribution(D.Normal(0.0, 1.0),
                                                           D.transforms.TanhTransform())),
], ids=["not-transform", "not-all-transforms", "too-few-dims", "support", "kl-transforms"])
def test_transformed_errors_as_torch(bad):
    raises_as_torch(bad)
