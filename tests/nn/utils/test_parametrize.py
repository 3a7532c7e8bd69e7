"""nn.utils.parametrize against torch: the same parametrizations registered on modules with equal
weights give equal tensors, gradients, printed modules, parameter names and errors."""
import numpy as np
import pytest
import torch

import ember
from ember.nn.utils import parametrize


def _make(lib, cls_name="Linear", *args):
    lib.manual_seed(0)
    return getattr(lib.nn, cls_name)(*args)


def _pair(*args, cls_name="Linear"):
    e, t = _make(ember, cls_name, *args), _make(torch, cls_name, *args)
    with torch.no_grad():
        for (_, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters()):
            pt.copy_(torch.tensor(pe.detach().numpy()))
    return e, t


def _parametrizations(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class Skew(lib.nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu(1)

    class Double(lib.nn.Module):
        def forward(self, X):
            return 2 * X

    return Symmetric, Skew, Double


def _np(x):
    return x.detach().numpy()


def _torch_text(module):
    return repr(module).replace("ember", "torch")


def test_weight_is_computed_and_printed_as_torch():
    e, t = _pair(3, 3)
    original = e.weight
    for lib, m in ((ember, e), (torch, t)):
        Symmetric, _, _ = _parametrizations(lib)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", Symmetric())
    np.testing.assert_allclose(_np(e.weight), _np(t.weight), rtol=0, atol=0)
    assert type(e).__name__ == type(t).__name__ == "ParametrizedLinear"
    assert _torch_text(e) == repr(t)
    assert list(dict(e.named_parameters())) == list(dict(t.named_parameters()))
    assert list(e.state_dict()) == list(t.state_dict())
    assert e.parametrizations.weight.original is original  # optimizers keep tracking it
    assert parametrize.is_parametrized(e) and parametrize.is_parametrized(e, "weight")
    assert not parametrize.is_parametrized(e, "bias")
    assert parametrize.type_before_parametrizations(e) is ember.nn.Linear


def test_gradient_reaches_the_original_as_torch():
    e, t = _pair(4, 3)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    for lib, m in ((ember, e), (torch, t)):
        _, Skew, Double = _parametrizations(lib)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", Double())
        m(lib.tensor(x)).pow(2).sum().backward()
    np.testing.assert_allclose(_np(e.parametrizations.weight.original.grad),
                               _np(t.parametrizations.weight.original.grad), rtol=1e-5)


def test_chained_parametrizations_and_right_inverse_as_torch():
    e, t = _pair(3, 3)
    value = np.random.default_rng(1).standard_normal((3, 3)).astype(np.float32)
    value = value - value.T
    for lib, m in ((ember, e), (torch, t)):
        _, Skew, Double = _parametrizations(lib)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", Skew())
        lib.nn.utils.parametrize.register_parametrization(m, "weight", Skew())
        m.weight = lib.tensor(value)
    np.testing.assert_allclose(_np(e.weight), _np(t.weight), rtol=0, atol=0)
    np.testing.assert_allclose(_np(e.parametrizations.weight.original),
                               _np(t.parametrizations.weight.original), rtol=0, atol=0)
    assert _torch_text(e) == repr(t)


def test_assigning_without_right_inverse_raises_as_torch():
    messages = []
    for lib in (torch, ember):
        m = _make(lib, "Linear", 2, 2)
        Symmetric, _, _ = _parametrizations(lib)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", Symmetric())
        with pytest.raises(RuntimeError) as info:
            m.weight = lib.ones(2, 2)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_cached_computes_once_inside_the_block():
    calls = []

    class Noisy(ember.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X

    m = ember.nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", Noisy())
    calls.clear()
    m.weight + m.weight
    assert len(calls) == 2
    with parametrize.cached():
        a, b = m.weight, m.weight
    assert len(calls) == 3 and a is b
    m.weight
    assert len(calls) == 4  # the cache ends with the block


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations_as_torch(leave):
    e, t = _pair(3, 3)
    for lib, m in ((ember, e), (torch, t)):
        _, Skew, _ = _parametrizations(lib)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", Skew())
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight", leave_parametrized=leave)
    assert type(e) is ember.nn.Linear and not hasattr(e, "parametrizations")
    assert isinstance(e.weight, ember.nn.Parameter)
    np.testing.assert_allclose(_np(e.weight), _np(t.weight), rtol=0, atol=0)
    assert _torch_text(e) == repr(t)
    assert list(dict(e.named_parameters())) == list(dict(t.named_parameters()))


def test_a_buffer_can_be_parametrized():
    m = ember.nn.BatchNorm1d(3)
    _, _, Double = _parametrizations(ember)
    parametrize.register_parametrization(m, "running_var", Double())
    assert "parametrizations.running_var.original" in m.state_dict()
    np.testing.assert_array_equal(_np(m.running_var), 2 * np.ones(3, np.float32))


def test_right_inverse_returning_a_sequence_gives_original0_original1():
    class Sum(ember.nn.Module):
        def forward(self, x, y):
            return x + y

        def right_inverse(self, z):
            return z, ember.zeros_like(z)

    m = ember.nn.Linear(2, 2)
    w = _np(m.weight).copy()
    parametrize.register_parametrization(m, "weight", Sum())
    names = [n for n, _ in m.named_parameters()]
    assert "parametrizations.weight.original0" in names
    assert "parametrizations.weight.original1" in names
    np.testing.assert_array_equal(_np(m.weight), w)


@pytest.mark.parametrize("case", ["unknown name", "changes the shape"])
def test_errors_match_torch(case):
    messages = []
    for lib in (torch, ember):
        m = _make(lib, "Linear", 3, 2)

        class Flat(lib.nn.Module):
            def forward(self, X):
                return X.flatten()

        with pytest.raises(ValueError) as info:
            if case == "unknown name":
                lib.nn.utils.parametrize.register_parametrization(m, "nope", Flat())
            else:
                lib.nn.utils.parametrize.register_parametrization(m, "weight", Flat())
        messages.append(str(info.value).split("\n")[0].split(" with name")[-1])
    assert messages[0] == messages[1]
