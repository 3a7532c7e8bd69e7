"""Fuzzer (ember/utils/benchmark/_fuzzer.py): one seed gives torch's parameters, layouts and
tensor values; aliases, strict parameters, constraints and the errors, against torch 2.13.

torch 2.13 refuses every normalized {choice: probability} table ("Distribution is not
normalized": its check is inverted, so even its own BinaryOpFuzzer cannot be built); ember checks
what the message says. To compare draws from such tables, the tests lift torch's check."""
import numpy as np
import pytest
import torch.utils.benchmark as TB

import ember
import ember.utils.benchmark as EB


def _example(B, lib, seed=0):
    # the benchmark recipe's fuzzer: sizes log-uniform in [1, 10000], 40% shuffled layouts
    return B.Fuzzer(
        parameters=[B.FuzzedParameter("k0", minval=1, maxval=10000, distribution="loguniform"),
                    B.FuzzedParameter("k1", minval=1, maxval=10000, distribution="loguniform")],
        tensors=[B.FuzzedTensor("x", size=("k0", "k1"), min_elements=128,
                                max_elements=100000, probability_contiguous=0.6)],
        seed=seed)


def _aliased(B, lib, seed=3):
    # strict parameters, aliases, steps, a rank parameter, an integer tensor and a constraint
    return B.Fuzzer(
        parameters=[B.FuzzedParameter("dim", distribution={1: 0.3, 2: 0.4, 3: 0.3}, strict=True),
                    [B.FuzzedParameter(f"k{i}", minval=2, maxval=12, distribution="uniform")
                     for i in range(3)],
                    [B.FuzzedParameter(f"y_k{i}", distribution={B.ParameterAlias(f"k{i}"): 0.7,
                                                                1: 0.3}, strict=True)
                     for i in range(3)],
                    [B.FuzzedParameter(f"step_{i}", distribution={1: 0.6, 2: 0.4})
                     for i in range(3)],
                    B.FuzzedParameter("scale", minval=0.5, maxval=2.0, distribution="uniform")],
        tensors=[B.FuzzedTensor("x", size=("k0", "k1", "k2"), steps=("step_0", "step_1",
                                                                     "step_2"),
                                probability_contiguous=0.3, dim_parameter="dim"),
                 B.FuzzedTensor("y", size=("y_k0", "y_k1", "y_k2"), dim_parameter="dim",
                                dtype=lib.int64, max_allocation_bytes=4000)],
        constraints=[lambda p: p["k0"] != 7], seed=seed)


@pytest.fixture
def torch_tables(monkeypatch):
    """torch's FuzzedParameter without its inverted normalization check."""
    monkeypatch.setattr(TB.FuzzedParameter, "_check_distribution", lambda self, d: d)


@pytest.mark.parametrize("make", [_example, _aliased], ids=["recipe", "aliases"])
def test_a_seed_gives_torchs_parameters_layouts_and_values(make, torch_tables):
    # ember had no Fuzzer (the benchmark recipe's section 7 stopped at the import)
    import torch
    runs = []
    for B, lib in ((TB, torch), (EB, ember)):
        fuzzer = make(B, lib)
        runs.append([(params, {k: (p["numel"], list(p["order"]), p["steps"], p["is_contiguous"])
                               for k, p in props.items()},
                      {k: (t.numpy().copy(), tuple(t.stride())) for k, t in tensors.items()})
                     for tensors, props, params in fuzzer.take(12)])
        runs[-1].append(fuzzer.rejection_rate)
    for e, t in zip(runs[1][:-1], runs[0][:-1]):
        assert e[0] == t[0] and e[1] == t[1]
        for name in t[2]:
            np.testing.assert_array_equal(e[2][name][0], t[2][name][0])
            assert e[2][name][1] == t[2][name][1]
    assert runs[1][-1] == runs[0][-1]


@pytest.mark.parametrize("call, error", [
    (lambda B: B.FuzzedParameter("a", distribution="normal"), "Unknown distribution: normal"),
    (lambda B: B.Fuzzer([B.FuzzedParameter("x", 1, 2, "uniform")],
                        [B.FuzzedTensor("x", size=(2,))]), "Duplicate names"),
], ids=["distribution", "duplicate"])
def test_bad_specifications_raise_as_torch(call, error):
    for B in (TB, EB):
        with pytest.raises((AssertionError, ValueError), match=error) as info:
            call(B)
        assert info.type.__name__ in ("AssertionError", "ValueError")


def test_tables_must_be_normalized_probabilities_without_bounds():
    with pytest.raises(AssertionError, match="Distribution is not normalized"):
        EB.FuzzedParameter("a", distribution={1: 0.5, 2: 0.2})
    with pytest.raises(AssertionError, match="Probabilities cannot be negative"):
        EB.FuzzedParameter("a", distribution={1: 1.5, 2: -0.5})
    with pytest.raises(AssertionError, match="'minval' must be None"):
        EB.FuzzedParameter("a", minval=1, distribution={1: 1.0})
    assert EB.FuzzedParameter("a", distribution={1: 0.25, 2: 0.75}).name == "a"


def test_unsatisfiable_constraints_and_alias_cycles_raise_as_torch(torch_tables):
    for B in (TB, EB):
        never = B.Fuzzer([B.FuzzedParameter("a", 1, 3, "uniform")], [],
                         constraints=[lambda p: False], seed=0)
        with pytest.raises(ValueError, match="Failed to generate a set of valid parameters"):
            next(iter(never.take(1)))
        cycle = B.Fuzzer([B.FuzzedParameter("a", distribution={B.ParameterAlias("b"): 1.0}),
                          B.FuzzedParameter("b", distribution={B.ParameterAlias("a"): 1.0})],
                         [], seed=0)
        with pytest.raises(ValueError, match="ParameterAlias cycle detected"):
            next(iter(cycle.take(1)))
