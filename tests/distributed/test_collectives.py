"""Collectives under mpiexec, checked against NumPy, and the ReduceOp members."""

import pytest

import ember.distributed as dist

from ._launch import assert_all_passed


@pytest.mark.parametrize("n", [1, 2, 3])
def test_collectives_match_numpy(n):
    assert_all_passed("collectives.py", n=n)


def test_reduce_op_members():
    assert [op.name for op in (dist.ReduceOp.SUM, dist.ReduceOp.AVG, dist.ReduceOp.MAX,
                               dist.ReduceOp.MIN)] == ["SUM", "AVG", "MAX", "MIN"]
