"""The functorch.* API (ember._functorch.deprecated): torch.func's transforms with a warning."""
import numpy as np
import pytest
import torch
import torch._functorch.deprecated as tdep

import ember
from ember._functorch import deprecated as edep

X = np.array([[0.5, -1.2], [2.0, 0.3]])
T = np.array([[1.0, 0.5], [-1.0, 2.0]])


def _fn(x, y):
    return x ** 2 + y.sin() * x


@pytest.mark.parametrize("name", ["jvp"])
def test_jvp_warns_and_matches_torch(name):
    results = []
    for lib, dep in ((torch, tdep), (ember, edep)):
        primals = (lib.tensor(X), lib.tensor(T))
        with pytest.warns(FutureWarning, match=f"functorch.{name}` is deprecated"):
            out, tangent = getattr(dep, name)(_fn, primals, (lib.tensor(T), lib.tensor(X)))
        results.append((out.numpy(), tangent.numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0])
    np.testing.assert_allclose(results[1][1], results[0][1])


def test_grad_and_jacrev_warn_and_match_torch():
    for api in ("grad", "jacrev", "jacfwd"):
        got = []
        for lib, dep in ((torch, tdep), (ember, edep)):
            f = (lambda x: (x.exp() * x).sum()) if api == "grad" else (lambda x: x.exp() * x)
            with pytest.warns(FutureWarning):
                got.append(getattr(dep, api)(f)(lib.tensor(X)).numpy())
        np.testing.assert_allclose(got[1], got[0], rtol=1e-12)


def test_unsupported_transforms_name_the_gap():
    with pytest.warns(FutureWarning), pytest.raises(NotImplementedError, match="vmap"):
        edep.combine_state_for_ensemble([ember.nn.Linear(2, 2)])
    with pytest.warns(FutureWarning), pytest.raises(NotImplementedError, match="functionaliz"):
        edep.functionalize(lambda x: x)


def test_functorch_package_imports_over_ember():
    """The functorch package (torch's wheel) imports its names from torch._functorch: under the
    `torch` -> `ember` alias these are ember's modules."""
    import ember._functorch.deprecated as dep
    import ember._functorch.make_functional as mf
    import ember._functorch.python_key as pk
    for name in ("combine_state_for_ensemble", "functionalize", "grad", "grad_and_value",
                 "hessian", "jacfwd", "jacrev", "jvp", "make_functional",
                 "make_functional_with_buffers", "vjp", "vmap"):
        assert callable(getattr(dep, name))
    assert mf.FunctionalModule and mf.FunctionalModuleWithBuffers and pk.make_fx
