"""nn.utils.parameters_to_vector / vector_to_parameters against torch; the type error."""
import numpy as np
import pytest
import torch

import ember
from ember.nn import utils

from .test_clip_grad import _pairs


def test_parameters_to_vector_and_back():
    e_params, t_params = _pairs()
    ve = utils.parameters_to_vector(e_params)
    vt = torch.nn.utils.parameters_to_vector(t_params)
    np.testing.assert_array_equal(ve.detach().numpy(), vt.detach().numpy())
    new = np.arange(ve.numel(), dtype=np.float32)
    utils.vector_to_parameters(ember.tensor(new), e_params)
    torch.nn.utils.vector_to_parameters(torch.tensor(new), t_params)
    for pe, pt in zip(e_params, t_params):
        np.testing.assert_array_equal(pe.detach().numpy(), pt.detach().numpy())
    with pytest.raises(TypeError, match="expected ember.Tensor, but got: list"):
        utils.vector_to_parameters([1.0], e_params)
