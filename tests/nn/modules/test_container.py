"""Containers (Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict): the same
sequence of edits gives torch's state_dict keys, reprs, lengths and forward values."""
import numpy as np
import pytest
import torch
from oracle import same_error

import ember

LIBS = [ember, torch]


def _same(build):
    """build(lib) -> a comparable value; it must be equal for ember and torch."""
    results = [build(lib) for lib in LIBS]
    assert results[0] == results[1]


def _layout(m):
    return list(m.state_dict()), repr(m).replace("ember", "torch"), len(m)


def test_sequential_edits():
    def build(lib):
        torch.manual_seed(0)
        s = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU())
        s.append(lib.nn.Linear(3, 1))
        s.insert(1, lib.nn.Tanh())
        s.extend([lib.nn.Identity()])
        s.pop(0)
        del s[-1]
        return _layout(s) + ([type(m).__name__ for m in s[1:]],)
    _same(build)


def test_sequential_forward_matches_torch():
    t = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2))
    e = ember.nn.Sequential(ember.nn.Linear(4, 3), ember.nn.Tanh(), ember.nn.Linear(3, 2))
    e.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(e(ember.tensor(x)).detach().numpy(),
                               t(torch.tensor(x)).detach().numpy(), rtol=1e-6, atol=1e-6)


def test_module_list_and_dict_edits():
    def build(lib):
        ml = lib.nn.ModuleList([lib.nn.ReLU(), lib.nn.Linear(1, 1)])
        ml.insert(0, lib.nn.Tanh())
        ml += [lib.nn.Linear(2, 2)]
        ml.pop(1)
        md = lib.nn.ModuleDict({"b": lib.nn.ReLU()})
        md.update({"a": lib.nn.Linear(1, 2)})
        md["c"] = lib.nn.Tanh()
        md.pop("b")
        return _layout(ml), _layout(md), list(md.keys()), "a" in md
    _same(build)


def test_parameter_list_and_dict():
    def build(lib):
        pl = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2)), lib.zeros(3)])
        pl.append(lib.ones(1, 2))
        pl.extend([lib.nn.Parameter(lib.ones(4))])
        pd = lib.nn.ParameterDict({"w": lib.ones(2)})
        pd["v"] = lib.nn.Parameter(lib.zeros(1))
        pd.update({"u": lib.ones(3)})
        del pd["w"]
        kinds = [type(p).__name__ for p in pl] + [type(p).__name__ for p in pd.values()]
        shapes = [tuple(p.shape) for p in pl.parameters()]
        return list(pl.state_dict()), list(pd.state_dict()), len(pl), len(pd), kinds, shapes
    _same(build)


def test_parameter_container_reprs_match_torch():
    _same(lambda lib: [repr(c).replace("ember", "torch") for c in (
        lib.nn.ParameterList([lib.ones(2)]), lib.nn.ParameterDict({"w": lib.ones(2)}))])


@pytest.mark.parametrize("index", [5, -6])
def test_index_errors_match_torch(index):
    messages = []
    for lib in LIBS:
        s = lib.nn.Sequential(*[lib.nn.ReLU() for _ in range(3)])
        ml = lib.nn.ModuleList([lib.nn.ReLU() for _ in range(3)])
        for c in (s, ml):
            with pytest.raises(IndexError) as info:
                c[index]
            messages.append(str(info.value))
    assert messages[:2] == messages[2:]


def test_container_registers_its_keyword_modules():
    made = []
    for lib in (ember, torch):
        with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
            made.append(lib.nn.Container(first=lib.nn.Linear(2, 3), second=lib.nn.ReLU()))
    assert repr(made[0]) == repr(made[1])
    assert list(made[0].state_dict()) == list(made[1].state_dict())


@pytest.mark.parametrize("factor", [3, 1, 0, -1, 1.5])
def test_sequential_times_an_int_repeats_its_modules_as_torch(factor):
    def times(lib):
        lib.manual_seed(0)
        seq = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())
        out = seq * factor
        assert all(a is b for a, b in zip(out, list(seq) * factor))  # the same modules
        return out, factor * seq
    if not isinstance(factor, int) or factor <= 0:
        same_error(lambda lib: times(lib)[0])
        same_error(lambda lib: times(lib)[1])
        return
    for e, t in zip(times(ember), times(torch)):
        assert repr(e) == repr(t)


def test_calling_a_module_list_errors_as_torch():
    same_error(lambda lib: lib.nn.ModuleList([lib.nn.ReLU()])(lib.ones(1)))
    same_error(lambda lib: lib.nn.ModuleDict({"a": lib.nn.ReLU()})(lib.ones(1)))
