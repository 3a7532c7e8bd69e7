"""Public functions take torch's argument names (keywords as torch spells them) and torch's
``out=`` (ember/ops/out.py): checked against torch 2.13's own signatures and behaviour."""
import inspect
import warnings

import numpy as np
import pytest
import torch
from _torch_signatures import torch_signatures
from oracle import close

import ember

# ember extras torch does not have (kept: they are additions, not misnamed arguments)
EXTRAS = {"bitwise_not": {"other"}, "logical_not": {"other"}, "scatter": {"value", "reduce"},
          "normal": {"size", "dtype"}, "bernoulli": {"p"}, "std": {"unbiased"},
          "var": {"unbiased"}, "nonzero": {"as_tuple"}, "tensor": {"pin_memory"},
          "sparse_coo_tensor": {"check_invariants"}}  # torch takes it (not in its schema)
KNOWN = {"promote_types": "in ember/_dtype.py (another area): parameters a, b, torch type1, type2",
         "set_num_threads": "torch's parameter is named 'int'",
         "is_autocast_enabled": "torch's schema lists only the no-argument overload; its Python "
                                "binding also takes device_type, as ember does"}


def _public(module, torch_module, prefix=""):
    for name in sorted(dir(module)):
        fn = getattr(module, name)
        if (name.startswith("_") or not hasattr(torch_module, name) or not callable(fn)
                or isinstance(fn, type) or inspect.ismodule(fn) or name in KNOWN):
            continue
        sigs = torch_signatures(getattr(torch_module, name), name, prefix)
        if sigs:
            yield pytest.param(name, fn, sigs, id=prefix + name)


@pytest.mark.parametrize("name,fn,sigs", [*_public(ember, torch),
                                     *_public(ember.linalg, torch.linalg, "linalg_")])
def test_parameter_names_are_torchs(name, fn, sigs):
    params = inspect.signature(fn).parameters.values()
    names = [p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    allowed = set().union(*map(set, sigs)) | EXTRAS.get(name, set()) | {"out", "device",
                                                                        "requires_grad"}
    assert set(names) <= allowed, f"{name}{inspect.signature(fn)}; torch: {sigs}"


R = np.random.default_rng(0)
X, Y = R.standard_normal((3, 4)).astype(np.float32), R.standard_normal((3, 4)).astype(np.float32)
SQ = (R.standard_normal((3, 3)) + 3 * np.eye(3)).astype(np.float32)
V = R.standard_normal(4).astype(np.float32)

KEYWORDS = [
    lambda L, x, y: L.matmul(input=x, other=y.T), lambda L, x, y: L.mm(input=x, mat2=y.T),
    lambda L, x, y: L.bmm(input=x[None], mat2=y.T[None]),
    lambda L, x, y: L.sum(input=x, dim=1, keepdim=True), lambda L, x, y: L.mean(input=x, dim=0),
    lambda L, x, y: L.cat(tensors=[x, y], dim=1), lambda L, x, y: L.stack(tensors=[x, y], dim=0),
    lambda L, x, y: L.add(input=x, other=y, alpha=2), lambda L, x, y: L.exp(input=x),
    lambda L, x, y: L.tanh(input=x), lambda L, x, y: L.clamp(input=x, min=-0.5, max=0.5),
    lambda L, x, y: L.where(condition=x > 0, input=x, other=y),
    lambda L, x, y: L.pow(input=x, exponent=2), lambda L, x, y: L.dot(input=x[0], tensor=y[0]),
    lambda L, x, y: L.mv(input=x, vec=y[0]), lambda L, x, y: L.swapaxes(x, axis0=0, axis1=1),
    lambda L, x, y: L.true_divide(input=x, other=y),
    lambda L, x, y: L.concatenate(tensors=[x, y], axis=1),
    lambda L, x, y: L.tril(input=x, diagonal=1), lambda L, x, y: L.topk(input=x, k=2, dim=0)[0],
    lambda L, x, y: L.sort(input=x, dim=0, descending=True)[1],
    lambda L, x, y: L.cumsum(input=x, dim=1), lambda L, x, y: L.outer(input=x[0], vec2=y[1]),
    lambda L, x, y: L.lerp(input=x, end=y, weight=0.3),
    lambda L, x, y: L.addmm(input=x, mat1=x, mat2=y.T @ y, beta=2, alpha=0.5),
    lambda L, x, y: L.roll(input=x, shifts=1, dims=0),
    lambda L, x, y: L.repeat_interleave(input=x, repeats=2, dim=0),
    lambda L, x, y: L.linalg.vector_norm(x=x, ord=3, dim=1),
    lambda L, x, y: L.linalg.vector_norm(input=x, ord=3, dim=1),
    lambda L, x, y: L.linalg.matrix_norm(input=x, ord=1),
    lambda L, x, y: L.linalg.inv(A=x @ x.T) + L.linalg.solve(A=x @ x.T, B=y, left=True)[:, :3],
    lambda L, x, y: L.sum(x, axis=0, keepdims=True), lambda L, x, y: L.exp(x=x),
    lambda L, x, y: L.concatenate([x, y], axis=1), lambda L, x, y: L.cat([x, y], axis=0),
    lambda L, x, y: L.linalg.norm(input=x, ord=None, dim=1),
]


@pytest.mark.parametrize("index", range(len(KEYWORDS)))
def test_keyword_calls_match_torch(index):
    fn = KEYWORDS[index]
    close(fn(ember, ember.tensor(X), ember.tensor(Y)), fn(torch, torch.tensor(X), torch.tensor(Y)))


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
