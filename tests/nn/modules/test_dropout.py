"""Channel dropout modules: whole channels dropped in training, identity in eval."""
import numpy as np
import pytest
import torch

import ember


@pytest.mark.parametrize("cls,shape", [("Dropout1d", (6, 20, 4)), ("Dropout2d", (6, 20, 3, 3)),
                                       ("Dropout3d", (2, 20, 2, 2, 2))])
def test_channel_dropout_module(cls, shape):
    layer = getattr(ember.nn, cls)(p=0.3)
    assert repr(layer) == repr(getattr(torch.nn, cls)(p=0.3))
    x = ember.ones(*shape)
    y = layer(x).numpy().reshape(shape[0] * shape[1], -1)
    assert np.all(y == y[:, :1])
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.7)}
    layer.eval()
    assert layer(x) is x


def test_bad_probability():
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got "
                                         "-0.1"):
        ember.nn.Dropout2d(-0.1)
