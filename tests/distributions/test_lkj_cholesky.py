"""LKJCholesky (ember/distributions/lkj_cholesky.py): onion-method samples on torch's streams
(the Beta lengths, then the normal directions), log_prob and its gradient, shapes, expand and
the errors, compared with torch 2.13."""
import pytest

from ._oracle import raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lkj_cholesky_matches_torch(dtype):
    def build(m, D):
        c = m.tensor([0.5, 1.0, 3.0], dtype=getattr(m, dtype)).requires_grad_()
        d = D.LKJCholesky(4, c)
        x = d.sample((2,))
        lp = d.log_prob(x)
        lp.sum().backward()
        e = d.expand((2, 3))
        return [tuple(d.batch_shape), tuple(d.event_shape), x, lp, c.grad, e.sample(),
                tuple(e.batch_shape), bool(D.constraints.corr_cholesky.check(x).all()),
                D.LKJCholesky(2, 2.0).sample((3,)), repr(d.support)]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.LKJCholesky(1, 1.0),
    lambda m, D: D.LKJCholesky(3, m.tensor([-1.0])),
    lambda m, D: D.LKJCholesky(2, 1.0).log_prob(m.tensor([[1.0, 0.0], [0.5, 0.5]])),
], ids=["dim", "concentration", "support"])
def test_lkj_cholesky_errors_as_torch(bad):
    raises_as_torch(bad)
