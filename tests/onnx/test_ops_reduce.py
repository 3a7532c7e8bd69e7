"""var/std, max/min with dim, argmax/argmin, sort, argsort and topk (ember/onnx/_ops_reduce.py)
exported and run in onnxruntime with ember's outputs, also at other sizes of dynamic axes."""
import numpy as np
import pytest
from onnx_roundtrip import Lambda, assert_matches, run_both

import ember

CASES = {
    "var": lambda x: x.var(1), "var_all": lambda x: x.var(),
    "std_correction_0": lambda x: x.std(-1, correction=0, keepdim=True),
    "var_biased_dims": lambda x: ember.var(x, (0, 2), unbiased=False),
    "std_correction_2": lambda x: x.std((1, 2), correction=2),
    "max_dim": lambda x: x.max(1), "min_dim_keepdim": lambda x: x.min(-1, keepdim=True),
    "max_values_plus_indices": lambda x: x.max(2)[0] + x.max(2).indices.float(),
    "argmax": lambda x: x.argmax(1), "argmin_keepdim": lambda x: x.argmin(2, keepdim=True),
    "argmax_all": lambda x: x.argmax(),
    "sort": lambda x: x.sort(-1), "sort_descending": lambda x: x.sort(1, descending=True),
    "sort_dynamic_dim": lambda x: x.sort(0), "argsort": lambda x: x.argsort(2),
    "argsort_descending": lambda x: x.argsort(0, descending=True),
    "topk": lambda x: ember.topk(x, 2, dim=1),
    "topk_smallest": lambda x: x.topk(3, largest=False).indices,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_with_dynamic_axes(name):
    """Both outputs of the (values, indices) ops; ties cannot occur in random float inputs."""
    ember.manual_seed(0)
    model = Lambda(CASES[name])
    data = assert_matches(model, (ember.randn(3, 4, 5),), dynamic_axes={"x0": [0, 2]},
                          atol=1e-5)
    x = ember.randn(5, 4, 7)
    got, expected = run_both(model, (x,), data, ["x0"])
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


def test_ties_keep_the_lower_index_as_ember():
    x = ember.tensor([[1.0, 3.0, 1.0, 3.0, 2.0]])
    for fn in (lambda x: x.sort(-1), lambda x: x.sort(-1, descending=True),
               lambda x: x.argsort(-1), lambda x: x.topk(2), lambda x: x.max(-1)):
        assert_matches(Lambda(fn), (x,))
