"""The transform machinery (ember/distributions/_transform.py): caching and with_cache, the
inverse, composition (event dims, log|det J| summed over them), equality and errors, compared
with torch 2.13."""
import pytest
import torch

import ember

from ._oracle import check_transform

_TRANSFORMS = {
    "inverse-exp": lambda m, T, x: T.ExpTransform().inv,
    "compose": lambda m, T, x: T.ComposeTransform([T.AffineTransform(0.0, 0.5),
                                                   T.TanhTransform(),
                                                   T.AffineTransform(1.0, 3.0)]),
    "compose-event": lambda m, T, x: T.ComposeTransform(
        [T.ExpTransform(), T.AffineTransform(0.0, m.ones(3, dtype=x.dtype), event_dim=1)]),
    "compose-cached": lambda m, T, x: T.ComposeTransform(
        [T.SigmoidTransform(), T.AffineTransform(-1.0, 2.0)], cache_size=1),
    "identity": lambda m, T, x: T.identity_transform,
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(_TRANSFORMS))
def test_transform_matches_torch(name, dtype):
    check_transform(_TRANSFORMS[name], dtype, positive=name == "inverse-exp",
                    grad=name != "identity")


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
