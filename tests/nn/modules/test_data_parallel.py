"""nn.DataParallel without GPUs, as torch without CUDA: the module is called directly, its
state_dict keys carry 'module.', and gradients reach the wrapped module's parameters."""
import numpy as np
import torch

import ember


def test_data_parallel_wraps_and_calls():
    out = {}
    for lib in (ember, torch):
        lib.manual_seed(0)
        model = lib.nn.DataParallel(lib.nn.Linear(3, 2), device_ids=[0])
        x = lib.tensor(np.arange(12.0, dtype=np.float32).reshape(4, 3))
        y = model(x)
        y.sum().backward()
        out[lib.__name__] = (repr(model), list(model.state_dict()), model.device_ids,
                             y.detach().numpy(), model.module.weight.grad.numpy(),
                             type(y.grad_fn).__name__)
        assert lib.nn.parallel.DataParallel is lib.nn.DataParallel
    e, t = out["ember"], out["torch"]
    assert e[:3] == t[:3] and e[5] == t[5]
    np.testing.assert_allclose(e[3], t[3], rtol=1e-6)
    np.testing.assert_allclose(e[4], t[4], rtol=1e-6)


def test_nll_loss_2d_is_nll_loss():
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 4)).astype(np.float32)
    target = np.random.default_rng(1).integers(0, 3, (2, 4, 4))
    e = ember.nn.NLLLoss2d()(ember.tensor(x).log_softmax(1), ember.tensor(target))
    t = torch.nn.NLLLoss2d()(torch.tensor(x).log_softmax(1), torch.tensor(target))
    np.testing.assert_allclose(e.item(), t.item(), rtol=1e-6)
    assert issubclass(ember.nn.NLLLoss2d, ember.nn.NLLLoss)
