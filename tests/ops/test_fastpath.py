"""The fast paths for tensor-scalar and unary ops record the same graph as the general path."""
import numpy as np
import pytest
import torch

import ember
from ember.ops import fastpath
from tests.oracle import check

SCALAR_OPS = {
    "mul": lambda L, x, s: x * s, "add": lambda L, x, s: x + s, "sub": lambda L, x, s: x - s,
    "div": lambda L, x, s: x / s, "rmul": lambda L, x, s: s * x, "radd": lambda L, x, s: s + x,
    "fn_mul": lambda L, x, s: L.mul(x, s), "fn_add": lambda L, x, s: L.add(x, s),
    "method_sub": lambda L, x, s: x.sub(s), "method_div": lambda L, x, s: x.div(s),
    "neg": lambda L, x, s: -(x * s), "fn_neg": lambda L, x, s: L.neg(x + s),
}
SCALARS = [1.01, 2, -0.0, 0.0, 0, float("nan"), float("inf"), 2**40, -3]


@pytest.mark.parametrize("name", sorted(SCALAR_OPS))
@pytest.mark.parametrize("value", SCALARS, ids=repr)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_scalar_ops_match_torch(name, value, dtype):
    if dtype is np.float16 and value == 2**40:
        pytest.skip("float16 overflow: a general-path difference, not this path's")
    x = np.array([1.5, -0.25, 3.0, 0.0], dtype=dtype)
    with np.errstate(all="ignore"):
        check(lambda L, t: SCALAR_OPS[name](L, t, value), x, second=dtype is not np.float16,
              rtol=1e-3 if dtype is np.float16 else 1e-5)


def test_float32_scalar_result_is_bit_identical_to_numpy():
    x = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    for value in (1.01, 0.1, 1e-30, 3):
        assert np.array_equal((ember.tensor(x, requires_grad=True) * value)._data, x * value)
        assert np.array_equal((ember.tensor(x) + value)._data, x + value)


@pytest.mark.parametrize("op", [lambda x: x * 1.5, lambda x: x + 1.5, lambda x: x.tanh(),
                                lambda x: -x, lambda x: x.sigmoid(), lambda x: x.exp(),
                                lambda x: x.sin(), lambda x: x / 4])
def test_graph_structure_matches_torch(op):
    e = op(ember.tensor([1.0, 2.0], requires_grad=True))
    t = op(torch.tensor([1.0, 2.0], requires_grad=True))
    assert type(e.grad_fn).__name__ == type(t.grad_fn).__name__
    e_edges = [None if n is None else n.name() for n, _ in e.grad_fn.next_functions]
    t_edges = [None if n is None else n.name() for n, _ in t.grad_fn.next_functions]
    assert e_edges == t_edges


def test_input_changed_in_place_after_scalar_mul_still_differentiates_as_torch():
    for lib in (ember, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 1  # a non-leaf we may modify
        y = h * 3.0  # saves only the scalar, not h
        h.add_(1)
        y.sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]


def test_modified_saved_output_raises_as_torch():
    x = ember.tensor([0.5, 1.0], requires_grad=True)
    y = x.tanh()
    y.add_(1)
    with pytest.raises(RuntimeError, match="output 0 of Tanh,"):
        y.sum().backward()


@pytest.mark.parametrize("op", [lambda x: x * 2.5, lambda x: x.tanh(), lambda x: x.sin()])
def test_second_backward_without_retain_graph_raises(op):
    y = op(ember.tensor([0.5, 1.0], requires_grad=True)).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_no_grad_and_plain_inputs_record_nothing():
    x = ember.tensor([0.5, 1.0], requires_grad=True)
    with ember.no_grad():
        assert (x * 2.0).grad_fn is None and not x.tanh().requires_grad
    plain = ember.tensor([0.5, 1.0])
    assert (plain + 1.0).grad_fn is None and plain.sigmoid().grad_fn is None


def test_anomaly_mode_takes_the_general_path():
    x = ember.tensor([1.0, -1.0], requires_grad=True)
    with ember.autograd.detect_anomaly():
        y = (x * 2.0).tanh()
        with pytest.raises(RuntimeError, match="forward call that created MulBackward0"):
            (y * float("nan")).sum().backward()


def test_scalar_cache_is_bounded_and_skips_unsafe_values():
    dt = np.dtype(np.float32)
    assert fastpath.scalar_array(0.0, dt) is None and fastpath.scalar_array(-0.0, dt) is None
    assert fastpath.scalar_array(float("nan"), dt) is None
    assert fastpath.scalar_array(2**40, dt) is None
    assert fastpath.scalar_array(1e300, dt) is None  # the cast warns each time, as NumPy's
    assert fastpath.scalar_array(float("inf"), dt).dtype == dt
    assert fastpath.scalar_array(1.5, np.dtype(np.int64)) is None
    for i in range(fastpath._CACHE_LIMIT + 10):
        fastpath.scalar_array(i + 0.5, dt)
    assert len(fastpath._SCALARS[dt]) <= fastpath._CACHE_LIMIT
    assert fastpath.scalar_array(1.5, dt).dtype == dt


@pytest.mark.parametrize("op", [lambda x: x * 1.5, lambda x: x + 1.0, lambda x: -x,
                                lambda x: x.tanh(), lambda x: x.sigmoid(), lambda x: x / 2])
def test_zero_dim_results_hold_arrays(op):
    x = ember.tensor(2.0, requires_grad=True)
    y = op(x)
    assert type(y._data) is np.ndarray and y.shape == ()
    y.backward()
    assert type(x.grad._data) is np.ndarray
    check(lambda L, t: op(t), np.array(2.0))


# ----- tensor with tensor (same dtype and shape): ops.fastpath.tensor_operator -----
PAIR_OPS = {
    "mul": lambda L, a, b: a * b, "add": lambda L, a, b: a + b, "sub": lambda L, a, b: a - b,
    "div": lambda L, a, b: a / b, "fn_mul": lambda L, a, b: L.mul(a, b),
    "fn_add": lambda L, a, b: L.add(a, b), "fn_sub": lambda L, a, b: L.sub(a, b),
    "fn_div": lambda L, a, b: L.div(a, b), "method_mul": lambda L, a, b: a.mul(b),
    "self": lambda L, a, b: a * a + a / a - a,
}
PAIR_CLASSES = {"mul": "MulBackward0", "add": "AddBackward0", "sub": "SubBackward0",
                "div": "DivBackward0"}


@pytest.mark.parametrize("name", sorted(PAIR_OPS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("shape", [(4,), (2, 3), ()])
def test_tensor_pair_ops_match_torch(name, dtype, needs, shape):
    rng = np.random.default_rng(2)
    a = rng.uniform(0.5, 2.0, shape).astype(dtype)
    b = rng.uniform(-2.0, -0.5, shape).astype(dtype)
    check(lambda L, x, y: PAIR_OPS[name](L, x, y), a, b, grad_inputs=list(needs),
          second=dtype is not np.float16, rtol=1e-3 if dtype is np.float16 else 1e-5)


@pytest.mark.parametrize("name", sorted(PAIR_CLASSES))
def test_tensor_pair_fast_path_records_the_general_paths_node(name, monkeypatch):
    cls = getattr(ember.ops.elementwise, PAIR_CLASSES[name])
    x = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2.0
    w = ember.tensor([0.5, -1.0, 4.0], requires_grad=True)
    general = cls.apply(h, w)
    monkeypatch.setattr(cls, "forward", lambda *a, **k: pytest.fail("took the general path"))
    fast = PAIR_OPS[name](ember, h, w)
    assert np.array_equal(fast._data, general._data)
    f, g = fast.grad_fn, general.grad_fn
    assert type(f) is type(g) is cls
    assert f.next_functions == g.next_functions
    assert f._shapes == g._shapes and f._dtypes == g._dtypes
    assert len(f._saved) == len(g._saved) and all(p is q for p, q in zip(f._saved, g._saved))
    assert getattr(f, "_versions", None) == getattr(g, "_versions", None)
    assert f._seq > g._seq
    assert getattr(f, "alpha", 1) == getattr(g, "alpha", 1) == 1


def test_tensor_pair_with_a_parameter_takes_the_fast_path(monkeypatch):
    w = ember.nn.Parameter(ember.tensor([1.0, -2.0]))
    x = ember.tensor([3.0, 4.0], requires_grad=True)
    monkeypatch.setattr(ember.ops.elementwise.MulBackward0, "forward",
                        lambda *a, **k: pytest.fail("took the general path"))
    y = x * w
    assert y.grad_fn.next_functions[1][0].variable is w
    (y * w).sum().backward()
    assert w.grad.tolist() == [2 * 3.0 * 1.0, 2 * 4.0 * -2.0] and x.grad.tolist() == [1.0, 4.0]


@pytest.mark.parametrize("op", [lambda a, b: a * b, lambda a, b: a / b])
def test_tensor_pair_saved_operand_modified_raises_as_torch(op):
    messages = []
    for lib in (ember, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h, w = x * 1, x * 3
        y = op(h, w)
        w.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
            y.sum().backward()
        messages.append(str(info.value).split("Hint")[0].replace("torch.", "ember."))
    assert messages[0] == messages[1]


def test_tensor_pair_second_backward_as_torch():
    for lib in (ember, torch):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        s = (a + b).sum()  # add saves nothing: a second backward works
        s.backward()
        s.backward()
        assert a.grad.tolist() == [2.0, 2.0]
        p = (a * b).sum()
        p.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            p.backward()


def test_tensor_pair_without_grad_records_nothing_but_marks_no_grad_origin():
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    b = ember.tensor([3.0, 4.0])
    with ember.no_grad():
        y = a * b
    assert y.grad_fn is None and not y.requires_grad and y.__dict__.get("_no_grad_origin")
    z = b - b
    assert z.grad_fn is None and not z.requires_grad and "_no_grad_origin" not in z.__dict__


@pytest.mark.parametrize("case", ["broadcast", "promote", "int", "int_div", "scalar_tensor"])
@pytest.mark.parametrize("name", ["mul", "add", "sub", "div"])
def test_tensor_pair_other_operands_take_the_general_path_as_torch(case, name):
    a = {"int": np.array([3, -4, 5]), "int_div": np.array([3, -4, 5])}.get(
        case, np.array([[1.5, -2.0, 3.0], [0.5, 1.0, -1.0]], dtype=np.float32))
    b = {"broadcast": np.array([2.0, -0.5, 4.0], dtype=np.float32),
         "promote": np.array([[2.0, -0.5, 4.0]] * 2, dtype=np.float64),
         "int": np.array([2, 7, -3]), "int_div": np.array([2, 7, -3]),
         "scalar_tensor": np.array(2.5, dtype=np.float32)}[case]
    check(lambda L, x, y: PAIR_OPS[name](L, x, y), a, b)


def test_tensor_pair_shape_mismatch_error_as_torch():
    with pytest.raises(RuntimeError, match=r"size of tensor a \(3\) must match the size of "
                                           r"tensor b \(2\) at non-singleton dimension 0"):
        ember.ones(3, requires_grad=True) * ember.ones(2)


def test_tensor_pair_anomaly_mode_takes_the_general_path():
    x = ember.tensor([1.0, -1.0], requires_grad=True)
    w = ember.tensor([2.0, 3.0], requires_grad=True)
    with ember.autograd.detect_anomaly():
        y = (x * w).tanh()
        with pytest.raises(RuntimeError, match="forward call that created MulBackward0"):
            (y * ember.tensor([float("nan"), 1.0])).sum().backward()
