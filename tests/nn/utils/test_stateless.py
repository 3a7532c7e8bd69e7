"""nn.utils.stateless.functional_call (and the torch.func form) against torch: values, gradients
through the given tensors, tied weights, strict keys, the module left as it was."""
import numpy as np
import pytest
import torch

import ember
from ember.nn.utils import stateless

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def _net(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Tanh(),
                             lib.nn.Linear(4, 2))


def _given(lib, names, rng):
    return {n: lib.tensor(rng.standard_normal(s).astype(np.float32),
                          requires_grad="running" not in n) for n, s in names}


NAMES = [("0.weight", (4, 3)), ("3.bias", (2,)), ("1.running_mean", (4,))]


def test_values_gradients_and_restore_match_torch():
    e_net, t_net = _net(ember), _net(torch)
    e_given = _given(ember, NAMES, np.random.default_rng(0))
    t_given = _given(torch, NAMES, np.random.default_rng(0))
    e_before = {k: v.detach().numpy().copy() for k, v in e_net.state_dict().items()}
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    e_net.eval()
    t_net.eval()
    ye = stateless.functional_call(e_net, e_given, ember.tensor(x))
    yt = torch.nn.utils.stateless.functional_call(t_net, t_given, torch.tensor(x))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    ye.pow(2).sum().backward()
    yt.pow(2).sum().backward()
    for name, _ in NAMES[:2]:
        np.testing.assert_allclose(e_given[name].grad.numpy(), t_given[name].grad.numpy(),
                                   rtol=1e-4, atol=1e-6)
    assert e_net[0].weight.grad is None  # the module's own parameter took no part
    assert isinstance(e_net[0].weight, ember.nn.Parameter)
    for k, v in e_net.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), e_before[k])


def test_training_buffers_update_the_given_tensors():
    e_net, t_net = _net(ember), _net(torch)
    e_given = {"1.running_mean": ember.zeros(4), "1.running_var": ember.ones(4)}
    t_given = {"1.running_mean": torch.zeros(4), "1.running_var": torch.ones(4)}
    x = np.random.default_rng(2).standard_normal((6, 3)).astype(np.float32)
    stateless.functional_call(e_net, e_given, (ember.tensor(x),))
    torch.nn.utils.stateless.functional_call(t_net, t_given, (torch.tensor(x),))
    for key in e_given:
        np.testing.assert_allclose(e_given[key].numpy(), t_given[key].numpy(), rtol=1e-5)
    np.testing.assert_array_equal(e_net[1].running_mean.numpy(), np.zeros(4, np.float32))


class _Tied:
    def __new__(cls, lib):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(3, 3, bias=False), lib.nn.Linear(3, 3, bias=False))
        net[1].weight = net[0].weight
        return net


@pytest.mark.parametrize("tie_weights", [True, False])
def test_tied_weights_as_torch(tie_weights):
    w = np.eye(3, dtype=np.float32) * 2
    x = np.ones((1, 3), np.float32)
    ye = stateless.functional_call(_Tied(ember), {"0.weight": ember.tensor(w)}, ember.tensor(x),
                                   tie_weights=tie_weights)
    yt = torch.nn.utils.stateless.functional_call(_Tied(torch), {"0.weight": torch.tensor(w)},
                                                  torch.tensor(x), tie_weights=tie_weights)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-6)
    two = {"0.weight": ember.tensor(w), "1.weight": ember.tensor(w)}
    with pytest.raises(ValueError, match=r"multiple values for keys \['0.weight', '1.weight'\]"):
        stateless.functional_call(_Tied(ember), two, ember.tensor(x))


def test_strict_kwargs_and_errors():
    net = ember.nn.Linear(2, 1)
    given = {"weight": ember.ones(1, 2), "bias": ember.zeros(1)}
    y = stateless.functional_call(net, given, kwargs={"input": ember.ones(3, 2)}, strict=True)
    np.testing.assert_array_equal(y.numpy(), np.full((3, 1), 2, np.float32))
    with pytest.raises(RuntimeError, match="Error\\(s\\) in reparametrizing for Linear:\n\t"
                                           "Unexpected key\\(s\\): 'other'.\n\tMissing key"
                                           "\\(s\\): 'bias'."):
        stateless.functional_call(net, {"weight": ember.ones(1, 2), "other": ember.ones(1)},
                                  ember.ones(1, 2), strict=True)
    with pytest.raises(TypeError, match="is not an instance of torch.Tensor"):
        stateless.functional_call(net, {"weight": [1.0, 2.0]}, ember.ones(1, 2))
    assert isinstance(net.weight, ember.nn.Parameter)
    with pytest.warns(FutureWarning, match="Please use `torch.func.functional_call` instead"):
        stateless.functional_call(net, {}, ember.ones(1, 2))


def test_func_form_takes_disjoint_dicts():
    e_net, t_net = _net(ember), _net(torch)
    e_net.eval()
    t_net.eval()
    e_dicts = (dict(e_net.named_parameters()), dict(e_net.named_buffers()))
    t_dicts = (dict(t_net.named_parameters()), dict(t_net.named_buffers()))
    x = np.ones((2, 3), np.float32)
    ye = stateless._func_functional_call(e_net, e_dicts, (ember.tensor(x),))
    yt = torch.func.functional_call(t_net, t_dicts, (torch.tensor(x),))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-5)
    with pytest.raises(ValueError, match=r"\['0.bias'\] appeared in multiple dictionaries"):
        stateless._func_functional_call(e_net, ({"0.bias": ember.ones(4)},) * 2, ember.ones(1, 3))
    with pytest.raises(ValueError, match="Expected parameter_and_buffer_dicts to be a dict"):
        stateless._func_functional_call(e_net, "x", ember.ones(1, 3))


def _counter(lib):
    class Counter(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("count", lib.zeros(()))

        def forward(self, x):
            self.count = self.count + 1  # reassigned, not updated in place
            return x * self.count

    return Counter()


def test_reassigned_buffer_written_back_into_the_dict_as_torch():
    e_mod, t_mod = _counter(ember), _counter(torch)
    e_given, t_given = {"count": ember.tensor(5.0)}, {"count": torch.tensor(5.0)}
    ye = stateless.functional_call(e_mod, e_given, ember.ones(2))
    yt = torch.nn.utils.stateless.functional_call(t_mod, t_given, torch.ones(2))
    np.testing.assert_array_equal(ye.numpy(), yt.numpy())
    assert e_given["count"].item() == t_given["count"].item() == 6.0
    assert e_mod.count.item() == t_mod.count.item() == 0.0
