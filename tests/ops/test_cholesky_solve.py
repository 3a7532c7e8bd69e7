"""cholesky_solve / cholesky_inverse (ember/ops/cholesky_solve.py) against torch: values,
gradients (torch's, over the whole factor matrix), second derivatives, batches, errors."""
import numpy as np
import pytest
from oracle import check, same_error

R = np.random.default_rng(0)


def _factor(n, batch=(), upper=False):
    a = R.standard_normal(batch + (n, n))
    spd = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    low = np.linalg.cholesky(spd)
    return np.swapaxes(low, -1, -2).copy() if upper else low


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("b_shape,batch", [((3, 2), ()), ((4, 3, 1), (4,)), ((3, 2), (2,)),
                                           ((2, 3, 3), ())])
def test_cholesky_solve_as_torch(upper, b_shape, batch):
    b = R.standard_normal(b_shape)
    check(lambda L, x, f: L.cholesky_solve(x, f, upper=upper), b, _factor(3, batch, upper))


def test_cholesky_solve_gradient_uses_the_whole_factor_as_torch():
    # torch's gradient is -(dB X^H + X dB^H) L over all of L (its upper part included)
    check(lambda L, x, f: x.cholesky_solve(f), R.standard_normal((3, 2)),
          _factor(3) + np.triu(R.standard_normal((3, 3)), 1))


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_cholesky_inverse_as_torch(upper, batch):
    check(lambda L, f: L.cholesky_inverse(f, upper=upper), _factor(4, batch, upper))
    check(lambda L, f: f.cholesky_inverse(upper), _factor(4, batch, upper))


@pytest.mark.parametrize("call", [
    lambda L: L.cholesky_solve(L.ones(2), L.eye(2)),
    lambda L: L.cholesky_solve(L.ones(3, 1), L.eye(2)),
    lambda L: L.cholesky_solve(L.ones(2, 1, dtype=L.float64), L.eye(2)),
    lambda L: L.cholesky_solve(L.ones(3, 2, 1), L.eye(2).expand(2, 2, 2)),
    lambda L: L.cholesky_inverse(L.ones(2, 3)), lambda L: L.cholesky_inverse(L.ones(2))])
def test_cholesky_solve_errors_as_torch(call):
    same_error(call)
