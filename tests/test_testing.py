"""ember.testing (ember/testing/__init__.py): assert_close passes and fails where torch's does,
with torch's messages (ember's names in place of torch's)."""
import pytest
import torch

import ember

NAN, INF = float("nan"), float("inf")


def _outcome(lib, actual, expected, **kwargs):
    def convert(value):
        if isinstance(value, tuple) and value and value[0] == "T":
            return lib.tensor(value[1], dtype=getattr(lib, value[2]) if len(value) > 2 else None)
        if isinstance(value, list):
            return [convert(v) for v in value]
        if isinstance(value, dict):
            return {k: convert(v) for k, v in value.items()}
        return value
    try:
        lib.testing.assert_close(convert(actual), convert(expected), **kwargs)
    except Exception as error:  # the type and text are what is compared
        return type(error).__name__, str(error).replace("torch", "ember")
    return "ok"


CASES = [
    (("T", [1.0, 2.0]), ("T", [1.0, 3.0]), {}),
    (("T", [[1.0, 2.0], [3.0, 4.0]]), ("T", [[1.0, 2.0], [3.0, 5.0]]), {}),
    (("T", [1, 2]), ("T", [1, 3]), {}),
    (("T", [True, False]), ("T", [True, True]), {}),
    (("T", [1.0, 2.0]), ("T", [1.0, 2.0], "float64"), {}),
    (("T", [1.0, 2.0]), ("T", [1.0, 2.0], "float64"), {"check_dtype": False}),
    (("T", [1.0, 2.0]), ("T", [1.0, 2.0, 3.0]), {}),
    (("T", [1.0, NAN]), ("T", [1.0, NAN]), {}),
    (("T", [1.0, NAN]), ("T", [1.0, NAN]), {"equal_nan": True}),
    (("T", [INF]), ("T", [INF]), {}),
    (("T", [INF]), ("T", [-INF]), {}),
    (("T", [0.0, 1.0]), ("T", [0.0, 1e-6]), {}),
    (("T", [1.0, 1.0], "float16"), ("T", [1.01, 1.01], "float16"), {}),
    (("T", [1.0, 1.0]), ("T", [1.1, 1.1]), {"rtol": 0.2, "atol": 0}),
    (("T", [1.0, 1.0]), ("T", [0.0, 0.0]), {"msg": "custom"}),
    (("T", 1.0), ("T", 2.0), {}),
    (1.0, 1.0000001, {}), (1.0, 2.0, {}), (1, 2, {}),
    ([("T", [1.0]), 1.0], [("T", [1.0]), 1.0], {}),
    ([[("T", [1.0])], 2], [[("T", [0.0])], 2], {}),
    ({"a": ("T", [1.0])}, {"a": ("T", [0.0])}, {}),
    ({"a": ("T", [1.0])}, {"b": ("T", [1.0])}, {}),
    ([1, 2], [1, 2, 3], {}),
]


@pytest.mark.parametrize("actual, expected, kwargs", CASES)
def test_assert_close_matches_torch(actual, expected, kwargs):
    assert _outcome(ember, actual, expected, **kwargs) == _outcome(torch, actual, expected,
                                                                   **kwargs)


def test_one_tolerance_alone_and_unknown_pairs_raise_like_torch():
    for lib in (ember, torch):
        with pytest.raises(ValueError, match="must be either specified or omitted, but got no "
                                             "atol"):
            lib.testing.assert_close(lib.ones(2), lib.ones(2), rtol=0.1)
        with pytest.raises(TypeError, match="No comparison pair was able to handle"):
            lib.testing.assert_close(lib.ones(2), [1.0, 1.0])


def test_parameters_with_grad_and_callable_msg():
    ember.testing.assert_close(ember.nn.Parameter(ember.ones(2)), ember.ones(2))
    with pytest.raises(AssertionError, match="^Tensor-li!$"):
        ember.testing.assert_close(ember.ones(2), ember.zeros(2), msg=lambda m: m[:9] + "!")
