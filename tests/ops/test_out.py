"""torch's ``out=`` (ember/ops/out.py): the result is written into the given tensor (reused when
of the right shape, resized with torch's warning otherwise), also for (values, indices) results
and factories; errors as torch's; the signature shows the keyword."""
import inspect
import warnings

import numpy as np
import pytest
import torch
from oracle import close, same_error

import ember

R = np.random.default_rng(0)
X, Y = R.standard_normal((3, 4)).astype(np.float32), R.standard_normal((3, 4)).astype(np.float32)
SQ = (R.standard_normal((3, 3)) + 3 * np.eye(3)).astype(np.float32)
V = R.standard_normal(4).astype(np.float32)


def _t(lib, a):
    return lib.tensor(a)


OUT_CALLS = {
    "add": lambda L, o: L.add(_t(L, X), _t(L, Y), alpha=2, out=o),
    "sub": lambda L, o: L.sub(_t(L, X), 1.5, out=o), "mul": lambda L, o: L.mul(_t(L, X), 2, out=o),
    "div": lambda L, o: L.div(_t(L, X), _t(L, Y), out=o),
    "matmul": lambda L, o: L.matmul(_t(L, X), _t(L, Y).T, out=o),
    "mm": lambda L, o: L.mm(_t(L, X), _t(L, Y).T, out=o),
    "bmm": lambda L, o: L.bmm(_t(L, X)[None], _t(L, Y).T[None], out=o),
    "cat": lambda L, o: L.cat([_t(L, X), _t(L, Y)], 1, out=o),
    "stack": lambda L, o: L.stack([_t(L, X), _t(L, Y)], out=o),
    "sum": lambda L, o: L.sum(_t(L, X), 1, out=o), "mean": lambda L, o: L.mean(_t(L, X), 0, out=o),
    "clamp": lambda L, o: L.clamp(_t(L, X), -0.5, 0.5, out=o),
    "where": lambda L, o: L.where(_t(L, X) > 0, _t(L, X), _t(L, Y), out=o),
    "exp": lambda L, o: L.exp(_t(L, X), out=o), "log": lambda L, o: L.log(_t(L, SQ).abs(), out=o),
    "tanh": lambda L, o: L.tanh(_t(L, X), out=o), "sigmoid": lambda L, o: L.sigmoid(_t(L, X), out=o),
    "pow": lambda L, o: L.pow(_t(L, X), 2, out=o), "sqrt": lambda L, o: L.sqrt(_t(L, SQ).abs(), out=o),
    "abs": lambda L, o: L.abs(_t(L, X), out=o), "neg": lambda L, o: L.neg(_t(L, X), out=o),
    "cumsum": lambda L, o: L.cumsum(_t(L, X), 1, out=o),
    "tril": lambda L, o: L.tril(_t(L, X), out=o), "outer": lambda L, o: L.outer(_t(L, V), _t(L, V), out=o),
    "addmm": lambda L, o: L.addmm(_t(L, SQ), _t(L, SQ), _t(L, SQ), out=o),
    "lerp": lambda L, o: L.lerp(_t(L, X), _t(L, Y), 0.5, out=o),
    "clamp_min": lambda L, o: L.clamp_min(_t(L, X), 0.0, out=o),
    "inverse": lambda L, o: L.inverse(_t(L, SQ), out=o),
    "linalg.inv": lambda L, o: L.linalg.inv(_t(L, SQ), out=o),
    "linalg.solve": lambda L, o: L.linalg.solve(_t(L, SQ), _t(L, SQ[0]), out=o),
    "linalg.vector_norm": lambda L, o: L.linalg.vector_norm(_t(L, X), dim=1, out=o),
    "zeros": lambda L, o: L.zeros(2, 3, out=o), "ones": lambda L, o: L.ones((4,), out=o),
    "arange": lambda L, o: L.arange(5, out=o), "full": lambda L, o: L.full((2,), 7, out=o),
    "eye": lambda L, o: L.eye(3, out=o), "linspace": lambda L, o: L.linspace(0, 1, 5, out=o),
}


ELEMENTWISE = {"add", "sub", "mul", "div", "exp", "log", "tanh", "sigmoid", "pow", "sqrt", "cat",
               "stack", "sum", "mean", "cumsum", "lerp", "zeros", "ones", "arange", "full", "eye",
               "linspace"}


@pytest.mark.parametrize("name,dtype", [(n, d) for n in sorted(OUT_CALLS) for d in (
    ("float32", "float64") if n in ELEMENTWISE else ("float32",))])
def test_out_writes_into_the_given_tensor(name, dtype):
    """torch casts into a wider out for element-wise ops and factories (others: same dtype)."""
    call = OUT_CALLS[name]
    e_out, t_out = ember.empty(0, dtype=getattr(ember, dtype)), torch.empty(0, dtype=getattr(torch, dtype))
    e, t = call(ember, e_out), call(torch, t_out)
    assert e is e_out and t is t_out
    close(e, t, rtol=1e-5, atol=1e-5)


def test_out_of_the_right_shape_is_reused_and_a_wrong_one_resized_with_a_warning():
    e_out = ember.zeros(3, 4)
    data = e_out._data
    ember.add(ember.tensor(X), 1, out=e_out)
    assert e_out._data is data and e_out._version == 1
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        ember.exp(ember.tensor(X), out=ember.zeros(5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.exp(ember.tensor(X), out=ember.empty(0))


def test_out_for_values_and_indices():
    for name, args in (("max", (1,)), ("min", (0, True)), ("sort", (0,)), ("topk", (2,))):
        outs = {lib: (lib.empty(0), lib.empty(0, dtype=lib.int64)) for lib in (ember, torch)}
        e = getattr(ember, name)(ember.tensor(X), *args, out=outs[ember])
        t = getattr(torch, name)(torch.tensor(X), *args, out=outs[torch])
        assert e.values is outs[ember][0] and e.indices is outs[ember][1]
        close(tuple(e), tuple(t))


ERRORS = [
    lambda L: L.add(L.ones(2, requires_grad=True), 1, out=L.empty(0)),
    lambda L: L.cat([L.ones(2), L.ones(2, requires_grad=True)], out=L.empty(0)),
    lambda L: L.mul(L.ones(2), 2, out=L.empty(0, requires_grad=True)),
    lambda L: L.exp(L.ones(2), out=L.empty(0, dtype=L.int64)),
    lambda L: L.zeros(2, dtype=L.float64, out=L.empty(0)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_out_errors_match_torch(index):
    with pytest.raises(RuntimeError) as te:
        ERRORS[index](torch)
    with pytest.raises(RuntimeError) as ee:
        ERRORS[index](ember)
    assert str(ee.value) == str(te.value)


def test_out_with_grad_is_allowed_under_no_grad_and_factories_take_outs_dtype():
    x = ember.ones(2, requires_grad=True)
    with ember.no_grad():
        out = ember.add(x, 1, out=ember.empty(0))
    assert not out.requires_grad and out.tolist() == [2.0, 2.0]
    close(ember.arange(3, out=ember.empty(0, dtype=ember.float64)),
          torch.arange(3, out=torch.empty(0, dtype=torch.float64)))
    close(ember.zeros(2, out=ember.empty(0, dtype=ember.int64)),
          torch.zeros(2, out=torch.empty(0, dtype=torch.int64)))


def test_signature_shows_out():
    assert "out" in inspect.signature(ember.add).parameters
    assert inspect.signature(ember.exp).parameters["out"].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize("call", [
    lambda L, a, b: L.add(a, b, out=a), lambda L, a, b: L.mul(b, 2, out=a),
    lambda L, a, b: L.exp(b, out=a), lambda L, a, b: L.sigmoid(b, out=a),
    lambda L, a, b: L.where(a > 2, a, b, out=a), lambda L, a, b: L.maximum(a, b, out=a),
    lambda L, a, b: L.cat([b[:2], b[2:]], out=a)], ids=range(7))
def test_out_partly_overlapping_an_input_refused_as_torch(call):
    def run(lib):
        x = lib.arange(1.0, 7.0)
        call(lib, x[1:], x[:-1])
    same_error(run)


def test_out_overlaps_torch_allows_run():
    """out= the input itself (torch.add(x, 1, out=x)), and a reduction's out (torch does not
    check there)."""
    for lib in (torch, ember):
        x = lib.arange(1.0, 7.0)
        lib.add(x, 1, out=x)
        assert x.tolist() == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
        lib.sum(x[1:].view(1, 5), 0, out=x[:5])  # (the values are then torch's own matter)
