"""Gradient buckets of DistributedDataParallel (ember/nn/parallel/_buckets.py), in one process:
assignment in reverse parameter order under byte caps with one dtype per bucket (float16
travelling as float32), filling and viewing slots, and which parameters an output's graph
does not reach. The all-reduce itself runs on several ranks: tests/distributed/test_ddp.py."""
import numpy as np

import ember
from ember.nn.parallel._buckets import Bucket, assign_buckets, unused_parameters


def _params(*specs):
    return [ember.zeros(n, dtype=dtype, requires_grad=True) for n, dtype in specs]


def _indices(buckets):
    return [[i for i, _ in bucket] for bucket in buckets]


def test_buckets_fill_in_reverse_order_up_to_the_cap():
    params = _params(*[(10, ember.float32)] * 5)  # 40 bytes each
    assert _indices(assign_buckets(params, [80])) == [[4, 3], [2, 1], [0]]
    # the first bucket has its own cap (as torch's smaller first bucket)
    assert _indices(assign_buckets(params, [40, 200])) == [[4], [3, 2, 1, 0]]


def test_one_dtype_per_bucket_and_half_travels_as_float32():
    params = _params((4, ember.float64), (4, ember.float32), (4, ember.float16), (4, ember.float64))
    buckets = [Bucket(members) for members in assign_buckets(params, [1 << 20])]
    kinds = {tuple(b.indices): b.buffer.dtype for b in buckets}
    assert kinds == {(3, 0): np.float64, (2, 1): np.float32}


def test_fill_copies_gradients_into_their_slots():
    w = ember.zeros(2, 3, requires_grad=True)
    b = ember.zeros(3, requires_grad=True)
    bucket = Bucket([(0, w), (1, b)])
    assert bucket.offsets == [0, 6, 9] and not bucket.complete
    bucket.fill(1, ember.tensor([1.0, 2.0, 3.0]))
    bucket.fill(0, None)  # a parameter without a gradient contributes zeros
    assert bucket.complete
    np.testing.assert_array_equal(bucket.view(1), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(bucket.view(0), np.zeros((2, 3)))
    bucket.reset()
    assert not bucket.complete and bucket.ready == [False, False]


def test_unused_parameters_are_those_the_graph_does_not_reach():
    a, b, c = _params((2, ember.float32), (2, ember.float32), (2, ember.float32))
    out = {"loss": (a * 2).sum(), "extra": [c.exp()]}
    assert unused_parameters(out, [a, b, c]) == [1]
    assert unused_parameters(b, [a, b, c]) == [0, 2]  # a leaf output reaches only itself
