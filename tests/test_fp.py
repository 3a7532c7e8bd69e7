"""ember/_fp.py's fused multiply-add: a * b + c rounded once, checked against exact rationals,
ties and overflow included (its quiet()/restore() are exercised by every kernel); call_quiet,
the fast paths' quiet kernel call, also while another thread is inside it."""
import threading
import warnings
from fractions import Fraction

import numpy as np

import ember
from ember import _fp


def _exact(a, b, c, dtype):
    """a * b + c of float values, rounded once to ``dtype`` (to nearest, ties to even)."""
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    near = dtype.type(float(exact))  # (rounded twice: one of its neighbours may be nearer)
    around = [np.nextafter(near, dtype.type(-np.inf)), near, np.nextafter(near, dtype.type(np.inf))]
    return min(around, key=lambda v: (abs(Fraction(float(v)) - exact),
                                      int(np.asarray(v).view(f"u{dtype.itemsize}")) & 1))


def _cases(dtype, rng, n=400):
    a = rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)
    b = rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)
    c = -(a.astype(dtype).astype(float) * b.astype(dtype)) * (1 + rng.standard_normal(n) * 2e-8)
    return a.astype(dtype), b.astype(dtype), c.astype(dtype)  # c cancels most of a * b


def test_float64_arrays_round_once():
    rng = np.random.default_rng(0)
    a, b, c = _cases(np.dtype(np.float64), rng)
    got = _fp.fma(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        assert g == _exact(x, y, z, np.dtype(np.float64))


def test_float32_arrays_round_once():
    rng = np.random.default_rng(1)
    a, b, c = _cases(np.dtype(np.float32), rng)
    got = _fp.fma(a, b, c)
    assert got.dtype == np.float32
    for x, y, z, g in zip(a, b, c, got):
        assert g == _exact(x, y, z, np.dtype(np.float32))


def test_float64_ties_and_numbers():
    # (2^27 + 1)(2^27 - 1) = 2^54 - 1: halfway between float64 neighbours before c breaks it
    a = np.array([2.0 ** 27 + 1, 2.0 ** 27 + 1, 3.0])
    b = np.array([2.0 ** 27 - 1, 2.0 ** 27 - 1, 1 / 3])
    c = np.array([2.0 ** -60, -(2.0 ** -60), -1.0])
    got = _fp.fma(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        assert g == _exact(x, y, z, np.dtype(np.float64))
    np.testing.assert_array_equal(_fp.fma(a, 2.0, 1.0), a * 2.0 + 1.0)  # (numbers b, c)


def test_overflow_and_special_values_as_twice_rounded():
    a = np.array([1e300, np.inf, np.nan, 2.0, -np.inf])
    b = np.array([1e10, 1.0, 1.0, np.inf, 0.0])
    c = np.array([1.0, -1.0, 0.0, -np.inf, 1.0])
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(_fp.fma(a, b, c), a * b + c)


def test_zero_results_keep_the_sign_of_a_sum_of_zeros():
    """-0 only where a * b and c are both -0 (+0 for an exact cancellation): float64 gave +0
    for every zero (the error terms, +0, added last)."""
    a = np.array([1.0, -0.0, 0.0, 2.0, 1.0, 3.0])
    b = np.array([-0.0, 5.0, 5.0, 0.5, 0.0, 0.25])
    c = np.array([-0.0, -0.0, -0.0, -1.0, 0.0, -0.75])
    for dtype in (np.float32, np.float64):
        got = _fp.fma(a.astype(dtype), b.astype(dtype), c.astype(dtype))
        want = [-0.0, -0.0, 0.0, 0.0, 0.0, 0.0]
        assert np.signbit(got).tolist() == np.signbit(want).tolist()
        np.testing.assert_array_equal(got, want)


def _vector_order_sum(row, lanes, fold):
    """One row's sum as torch's vectorized reduce_all adds it, scalar by scalar."""
    row = [row.dtype.type(v) for v in row]
    if len(row) < lanes:
        total = row[0]
        for v in row[1:]:
            total = total + v
        return total
    acc = row[:lanes]
    full = len(row) - len(row) % lanes
    for start in range(lanes, full, lanes):
        acc = [a + v for a, v in zip(acc, row[start:start + lanes])]
    for k, v in enumerate(row[full:]):
        acc[k] = acc[k] + v
    if not fold:
        total = acc[0]
        for v in acc[1:]:
            total = total + v
        return total
    while len(acc) > 1:
        half = len(acc) // 2
        acc = [a + b for a, b in zip(acc[:half], acc[half:])]
    return acc[0]


def test_vector_sum_adds_in_torchs_avx2_vector_order():
    rng = np.random.default_rng(3)
    for dtype, lanes, fold in ((np.float32, 8, True), (np.float64, 4, False)):
        for n in (1, 3, 4, 7, 8, 9, 17, 64, 65, 131, 300):
            a = (rng.standard_normal((6, n)) * 10.0 ** rng.integers(-3, 4, (6, n))).astype(dtype)
            got = _fp.vector_sum(a)
            assert got.shape == (6, 1) and got.dtype == dtype
            want = [_vector_order_sum(row, lanes, fold) for row in a]
            np.testing.assert_array_equal(got[:, 0], want)
    assert _fp.vector_sum(np.zeros((2, 0), np.float32)).tolist() == [[0.0], [0.0]]


def test_float32_inexact_ties_in_any_size_and_layout():
    """a * b exactly halfway between float32 neighbours, c below float64's step: the float64
    sum is that tie, and c's sign decides (0: to even); settled over the whole array (small,
    also where the caller expects exact sums: the fused cross-entropy) or at the ties' places
    (large), also for an input in column-major order."""
    mid = np.float32(1 + 2.0 ** -12)  # mid * mid = 1 + 2^-11 + 2^-24: a float32 midpoint
    for n in (6, 6000):
        c = np.resize(np.array([2.0 ** -60, -(2.0 ** -60), 0.0], np.float32), n)
        a = np.full(n, mid, np.float32)
        for shape in ((n,), (n // 6, 6)):
            for order in ("C", "F"):
                aa, cc = (np.asarray(v.reshape(shape), order=order) for v in (a, c))
                want = [_exact(mid, mid, z, np.dtype(np.float32)) for z in cc.reshape(-1)]
                for exact_sums in (False, True):
                    got = _fp.fma32(aa, mid, cc, exact_sums=exact_sums)
                    np.testing.assert_array_equal(got.reshape(-1), want)


def _overflowing_ops(x):
    """Fast-path ops (tensor-scalar, tensor-tensor, unary) that overflow or make NaN from x."""
    return [x * 1e38, x + x * 10.0, (x * 1e30) * (x * 1e30), (x * 100.0).exp(), -(x * 1e38),
            x * 1e38 - x * 1e38]


def test_call_quiet_leaves_the_callers_error_state_and_warnings():
    x = ember.tensor([1e38, -1e38, 2.0], requires_grad=True)
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        outs = _overflowing_ops(x)  # no FloatingPointError, no RuntimeWarning
        assert np.geterr()["over"] == "raise"
        try:
            np.float32(1e38) * np.float32(10)
        except FloatingPointError:
            pass
        else:
            raise AssertionError("the caller's NumPy error state was changed")
    with np.errstate(all="ignore"):
        want = [np.float32(1e38) * np.float32(1e38), np.float32(1e38) + np.float32(1e39)]
    assert outs[0]._data[0] == want[0] and outs[1]._data[0] == want[1]
    assert np.isnan(outs[-1]._data[0])


def test_call_quiet_while_another_thread_is_inside_falls_back():
    """The quiet context holds one thread at a time: the others compute the same values
    quietly through call_quiet_here (the state set and restored in their own context)."""
    inside, release, seen = threading.Event(), threading.Event(), []

    def hold():
        inside.set()
        release.wait(10)
        return np.geterr()["over"]

    holder = threading.Thread(target=lambda: seen.append(_fp.call_quiet(hold)))
    holder.start()
    try:
        assert inside.wait(10)
        try:
            _fp.call_quiet(np.negative, np.float32(1))
        except RuntimeError:  # (the case this test is about)
            pass
        else:
            raise AssertionError("the quiet context let a second thread in")
        x = ember.tensor([1e38, -1e38, 2.0], requires_grad=True)
        with np.errstate(all="raise"), warnings.catch_warnings():
            warnings.simplefilter("error")
            outs = _overflowing_ops(x)
            assert np.geterr()["over"] == "raise"
        outs[1].sum().backward()
    finally:
        release.set()
        holder.join()
    assert seen == ["ignore"]
    quietly = _fp.call_quiet_here(np.multiply, np.float32(1e38), np.float32(10))
    assert np.isinf(quietly) and x.grad.tolist() == [11.0, 11.0, 11.0]


def test_call_quiet_here_restores_the_state_when_the_kernel_raises():
    def fail():
        assert np.geterr()["over"] == "ignore"
        raise ValueError("kernel")

    with np.errstate(over="raise"):
        try:
            _fp.call_quiet_here(fail)
        except ValueError as error:
            assert str(error) == "kernel"
        assert np.geterr()["over"] == "raise"
