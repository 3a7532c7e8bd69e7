"""Public functions take torch's argument names (keywords as torch spells them): checked against
torch 2.13's own signatures and behaviour (``out=``: tests/ops/test_out.py)."""
import inspect

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
                                "binding also takes device_type, as ember does",
         "unique": "torch's is a boolean-dispatch wrapper taking *args, **kwargs; ember takes "
                   "the names its documentation gives"}


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
