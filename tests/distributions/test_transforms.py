"""Transforms (ember/distributions/transforms.py): forward, inverse, log|det J| and its
gradient, sign, domains and event dims, caching, composition, equality, shapes and errors,
compared with torch 2.13."""
import pytest
import torch

import ember

from ._oracle import raises_as_torch, same_as_torch

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
    "inverse-exp": lambda m, T, x: T.ExpTransform().inv,
    "compose": lambda m, T, x: T.ComposeTransform([T.AffineTransform(0.0, 0.5),
                                                   T.TanhTransform(),
                                                   T.AffineTransform(1.0, 3.0)]),
    "compose-event": lambda m, T, x: T.ComposeTransform([T.ExpTransform(),
                                                         T.AffineTransform(0.0, m.ones(3, dtype=x.dtype),
                                                                           event_dim=1)]),
}
_POSITIVE_DOMAIN = ("power", "inverse-exp")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(_TRANSFORMS))
def test_transform_matches_torch(name, dtype):
    def build(m, D):
        x = m.randn(2, 3, dtype=getattr(m, dtype))
        if name in _POSITIVE_DOMAIN:
            x = x.abs() + 0.1
        x.requires_grad_()
        t = _TRANSFORMS[name](m, D.transforms, x)
        y = t(x)
        out = [y, t.inv(y), repr(t.domain), repr(t.codomain), t.bijective,
               tuple(t.forward_shape(m.Size([4, 3]))), tuple(t.inverse_shape(m.Size([4, 3]))),
               t == _TRANSFORMS[name](m, D.transforms, x), t.inv.inv is t]
        if name != "softmax" and name != "abs":
            jac = t.log_abs_det_jacobian(x, y)
            (jac.sum() + y.sum()).backward()
            out += [jac, x.grad, t.inv.log_abs_det_jacobian(y, x), t.sign]
        return out
    same_as_torch(build)


def test_cache_and_with_cache_as_torch():
    for m in (ember, torch):
        T = m.distributions.transforms
        t = T.ExpTransform(cache_size=1)
        x = m.randn(3)
        y = t(x)
        assert t(x) is y and t.inv(y) is x
        assert T.ExpTransform().with_cache(1)._cache_size == 1
        c = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, 2.0)], cache_size=1)
        y = c(x)
        assert c.inv(y) is not None and c.inv.inv is c
        assert T.AffineTransform(0.0, 2.0).with_cache()._cache_size == 1
        assert T.identity_transform(x) is x
        assert T.ComposeTransform([]).log_abs_det_jacobian(x, x).tolist() == [0.0] * 3
        assert T.ExpTransform().event_dim == 0 and T.SoftmaxTransform().domain.event_dim == 1
        assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform() != T.TanhTransform()
        assert T.ExpTransform().inv == T.ExpTransform().inv
        with pytest.raises(TypeError):  # torch's transforms define == and so are unhashable
            hash(T.ExpTransform())


@pytest.mark.parametrize("bad", [
    lambda m, D: D.transforms.ExpTransform(cache_size=2),
    lambda m, D: D.transforms.Transform()(m.zeros(1)),
    lambda m, D: D.transforms.Transform().sign,
    lambda m, D: D.transforms.AbsTransform().sign,
    lambda m, D: D.transforms.Transform().log_abs_det_jacobian(m.zeros(1), m.zeros(1)),
    lambda m, D: D.transforms.SoftmaxTransform().forward_shape(m.Size([])),
], ids=["cache-size", "call", "sign", "abs-sign", "jacobian", "softmax-shape"])
def test_transform_errors_as_torch(bad):
    raises_as_torch(bad)
