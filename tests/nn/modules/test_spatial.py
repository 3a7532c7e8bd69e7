"""Upsample, PixelShuffle, PixelUnshuffle, Unfold and Fold layers vs torch: outputs, gradients,
reprs."""
import pytest
from layer_oracle import check_module, rand


@pytest.mark.parametrize("make, shape", [
    (lambda lib: lib.nn.Upsample(scale_factor=2), (2, 3, 4, 5)),
    (lambda lib: lib.nn.Upsample(size=(5, 7), mode="bilinear", align_corners=True), (1, 2, 3, 4)),
    (lambda lib: lib.nn.Upsample(scale_factor=(2, 1.5), mode="bilinear"), (1, 2, 3, 4)),
    (lambda lib: lib.nn.PixelShuffle(3), (2, 9, 2, 3)),
    (lambda lib: lib.nn.PixelUnshuffle(2), (2, 1, 4, 6)),
    (lambda lib: lib.nn.Unfold((2, 3), padding=1, stride=2), (2, 3, 5, 6)),
    (lambda lib: lib.nn.Fold((5, 6), 2, stride=(1, 2)), (2, 12, 12)),
])
def test_layers_match_torch(make, shape):
    e_mod, t_mod = check_module(make, rand(*shape))
    assert repr(e_mod) == repr(t_mod)
