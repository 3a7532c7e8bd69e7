"""ember/utils/dlpack.py: torch.utils.dlpack's two functions, as torch's."""
import torch

import ember


def test_to_and_from_dlpack_round_trip_with_torch():
    capsule = torch.utils.dlpack.to_dlpack(torch.arange(4.0))
    got = ember.utils.dlpack.from_dlpack(capsule)
    assert got.tolist() == [0.0, 1.0, 2.0, 3.0] and got.dtype is ember.float32
    mine = ember.arange(3)
    assert torch.utils.dlpack.from_dlpack(ember.utils.dlpack.to_dlpack(mine)).tolist() == \
        [0, 1, 2]
