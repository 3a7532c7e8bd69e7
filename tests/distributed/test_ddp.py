"""DistributedDataParallel under mpiexec: training equals single-process training on the global
batch, no_sync, construction broadcast, overlap, unused parameters (see workers/ddp.py)."""
import pytest

from ._launch import assert_all_passed


@pytest.mark.parametrize("optimizer", ["plain", "sgd", "sgd-foreach", "sgd-fused", "adam",
                                       "adam-foreach", "adam-fused", "float32", "buckets"])
def test_training_equals_single_process(optimizer):
    """5 steps on 2 ranks: parameters within 1e-6 (relative) of single-process training."""
    assert_all_passed("ddp.py", n=2, args=[optimizer])


@pytest.mark.parametrize("n", [1, 3])
def test_training_on_one_and_three_ranks(n):
    assert_all_passed("ddp.py", n=n, args=["sgd", "no_sync", "construction"])


@pytest.mark.parametrize("scenario", ["no_sync", "construction", "overlap", "loader", "unused",
                                      "unused_error", "mismatch"])
def test_ddp_behaviour(scenario):
    assert_all_passed("ddp.py", n=2, args=[scenario])


def test_checkpoint_saved_by_rank_0_and_loaded_on_every_rank(tmp_path):
    """Rank 0 saves model + optimizer; every rank loads; training resumes as if uninterrupted."""
    assert_all_passed("ddp.py", n=2, args=[f"checkpoint={tmp_path / 'ckpt.pt'}"])
    assert (tmp_path / "ckpt.pt").exists()
