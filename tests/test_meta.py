"""The meta device (ember/_meta.py and its uses): shapes, dtypes, errors and printing against
torch; ops on huge meta tensors allocate nothing; modules built on meta and materialised."""
import numpy as np
import pytest
import torch

import ember
from ember import _meta
from tests.oracle import same_error


def _both(make):
    """make(lib) under both; the results' shapes, dtypes, devices and reprs must agree."""
    e, t = make(ember), make(torch)
    es, ts = (e, t) if isinstance(t, (tuple, list)) else ((e,), (t,))
    assert len(es) == len(ts)
    for a, b in zip(es, ts):
        assert a.is_meta and b.is_meta
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1]
        assert str(a.device) == str(b.device) == "meta"
        assert repr(a).replace("ember.", "torch.") == repr(b)
    return e


FACTORIES = {
    "empty": lambda L: L.empty(2, 3, device="meta"),
    "zeros_size": lambda L: L.zeros(size=(4,), dtype=L.float64, device="meta"),
    "ones_grad": lambda L: L.ones(2, 3, device="meta", requires_grad=True),
    "full_int": lambda L: L.full((2, 2), 7, device="meta"),
    "rand": lambda L: L.rand(2, 3, 4, device="meta"),
    "randn_tuple": lambda L: L.randn((5, 1), device=L.device("meta")),
    "randint": lambda L: L.randint(0, 5, (3,), device="meta"),
    "randperm": lambda L: L.randperm(6, device="meta"),
    "arange": lambda L: L.arange(5, device="meta"),
    "linspace": lambda L: L.linspace(0, 1, 7, device="meta"),
    "eye": lambda L: L.eye(3, device="meta"),
    "tensor": lambda L: L.tensor([[1.0, 2.0]], device="meta"),
    "scalar": lambda L: L.tensor(3, device="meta"),
    "empty_zero": lambda L: L.empty(0, device="meta"),
    "bool": lambda L: L.empty(2, dtype=L.bool, device="meta"),
    "zeros_like": lambda L: L.zeros_like(L.empty(2, 3, device="meta")),
    "empty_like_to_meta": lambda L: L.empty_like(L.ones(2), device="meta"),
    "full_like": lambda L: L.full_like(L.ones(2, dtype=L.int32), 3, device="meta"),
    "new_zeros": lambda L: L.empty(2, device="meta").new_zeros(4),
    "to_meta": lambda L: L.ones(2, 3).to("meta"),
    "to_meta_dtype": lambda L: L.ones(2, 3).to("meta", L.float64),
    "to_meta_grad": lambda L: L.ones(2, requires_grad=True).to("meta"),
    "context": lambda L: _in_context(L, lambda: L.ones(2) + L.tensor([1.0, 2.0])),
    "big": lambda L: L.rand(2 ** 10, 3, 2 ** 16, 2 ** 16, device="meta"),
}


def _in_context(lib, make):
    with lib.device("meta"):
        return make()


@pytest.mark.parametrize("name", FACTORIES)
def test_factories_match_torch(name):
    _both(FACTORIES[name])


def test_factories_draw_no_random_numbers():
    for lib in (ember, torch):
        lib.manual_seed(0)
        lib.rand(3, device="meta"), lib.randn(2, device="meta"), lib.randperm(4, device="meta")
        lib.nn.Linear(4, 3, device="meta")
    assert ember.rand(3).tolist() == torch.rand(3).tolist()


def _x(L):
    return L.empty(4, 3, device="meta")


OPS = {
    "add_scalar": lambda L: _x(L) + 1,
    "add_0d_cpu": lambda L: _x(L) * L.tensor(2.0),
    "broadcast": lambda L: _x(L) - L.empty(3, device="meta"),
    "int_promotion": lambda L: L.empty(3, dtype=L.int32, device="meta") + 1.5,
    "matmul": lambda L: _x(L) @ L.empty(3, 5, device="meta"),
    "bmm": lambda L: L.empty(7, 4, 3, device="meta") @ L.empty(3, device="meta"),
    "sum_dim": lambda L: _x(L).sum(1, keepdim=True),
    "mean": lambda L: _x(L).mean(),
    "max_dim": lambda L: tuple(_x(L).max(0)),
    "argmax": lambda L: _x(L).argmax(1),
    "softmax": lambda L: L.softmax(_x(L), -1),
    "cat": lambda L: L.cat([_x(L), _x(L)], 1),
    "stack": lambda L: L.stack([_x(L), _x(L)]),
    "where": lambda L: L.where(_x(L) > 0, _x(L), 0.0),
    "views": lambda L: _x(L).t().reshape(2, 6)[1:, ::2].unsqueeze(0),
    "index": lambda L: _x(L)[L.tensor([0, 2], device="meta")],
    "cumsum": lambda L: _x(L).cumsum(0),
    "cast": lambda L: _x(L).long(),
    "relu_linear": lambda L: L.nn.functional.linear(_x(L), L.empty(2, 3, device="meta")).relu(),
    "conv2d": lambda L: L.nn.functional.conv2d(L.empty(2, 3, 10, 10, device="meta"),
                                               L.empty(5, 3, 2, 2, device="meta"), padding=1),
    "conv1d": lambda L: L.nn.functional.conv1d(L.empty(2, 3, 10, device="meta"),
                                               L.empty(5, 3, 3, device="meta"), stride=2),
    "max_pool": lambda L: L.nn.functional.max_pool2d(L.empty(2, 3, 9, 9, device="meta"), 3),
    "inplace": lambda L: _x(L).mul_(2).add_(L.ones(3)),
    "embedding": lambda L: L.nn.functional.embedding(_long(L, 2, 3), _m(L, 10, 4)),
    "cross_entropy": lambda L: L.nn.functional.cross_entropy(_x(L), _long(L, 4)),
    "layer_norm": lambda L: L.nn.functional.layer_norm(_x(L), (3,)),
    "batch_norm_train": lambda L: L.nn.BatchNorm1d(3, device="meta")(_x(L)),
    "dropout": lambda L: L.nn.functional.dropout(_x(L), 0.5),
    "sdpa": lambda L: L.nn.functional.scaled_dot_product_attention(
        _m(L, 2, 3, 4, 8), _m(L, 2, 3, 4, 8), _m(L, 2, 3, 4, 8)),
    "lstm": lambda L: L.nn.LSTM(4, 6, device="meta")(_m(L, 3, 2, 4))[0].detach(),  # (grad_fn
    # names differ: torch on meta records its MKLDNN kernel)
    "gru": lambda L: L.nn.GRU(4, 6, batch_first=True, device="meta")(_m(L, 2, 3, 4))[0],
    "transformer": lambda L: L.nn.TransformerEncoderLayer(8, 2, 16, device="meta")(
        _m(L, 3, 2, 8)),
    "avg_pool": lambda L: L.nn.functional.avg_pool2d(_m(L, 2, 3, 8, 8), 2),
    "conv_transpose": lambda L: L.nn.functional.conv_transpose2d(
        _m(L, 2, 3, 5, 5), _m(L, 3, 4, 3, 3), stride=2),
    "conv3d": lambda L: L.nn.functional.conv3d(_m(L, 1, 2, 5, 5, 5), _m(L, 3, 2, 3, 3, 3)),
    "gather": lambda L: L.gather(_x(L), 1, _long(L, 4, 2)),
    "index_select": lambda L: L.index_select(_x(L), 0, _long(L, 3)),
    "topk": lambda L: tuple(L.topk(_x(L), 2)),
    "gelu": lambda L: L.nn.functional.gelu(_x(L)),
    "pad": lambda L: L.nn.functional.pad(_x(L), (1, 2)),
    "einsum": lambda L: L.einsum("ij,jk->ik", _x(L), _m(L, 3, 5)),
    "adam_steps": lambda L: _stepped(L, L.optim.Adam, lr=0.1),
    "sgd_steps": lambda L: _stepped(L, L.optim.SGD, lr=0.1, momentum=0.9),
}


def _m(L, *shape):
    return L.empty(*shape, device="meta")


def _long(L, *shape):
    return L.zeros(*shape, dtype=L.long, device="meta")


def _stepped(L, cls, **kwargs):
    p = L.nn.Parameter(_m(L, 3, 4))
    (p * 2).sum().backward()
    optimizer = cls([p], **kwargs)
    optimizer.step(), optimizer.step()
    return p, p.grad


@pytest.mark.parametrize("name", OPS)
def test_ops_match_torch(name):
    _both(OPS[name])


def test_ops_on_huge_meta_tensors_allocate_nothing():
    x = ember.empty(1024, 1024, 1024, device="meta", requires_grad=True)
    w = ember.empty(1024, 1024, device="meta", requires_grad=True)
    y = (ember.cat([x, x], 0).sin() * 2 + 1) @ w
    loss = ember.softmax(y.sum(1), -1).mean()
    loss.backward()
    for t in (y, loss, x.grad, w.grad):  # every result is a one-element placeholder
        assert t.is_meta and _memory(t._data) <= t._data.itemsize
    assert x.grad.shape == x.shape and w.grad.shape == w.shape


def _memory(array):
    """The bytes of memory ``array`` spans (one element for a zero-stride placeholder)."""
    return sum((n - 1) * abs(s) for n, s in zip(array.shape, array.strides)) + array.itemsize


def test_pickle_keeps_shape_and_dtype_only():
    import pickle
    x = ember.empty(2 ** 20, 2 ** 20, dtype=ember.float64, device="meta", requires_grad=True)
    data = pickle.dumps(x)
    assert len(data) < 1000
    y = pickle.loads(data)
    assert y.is_meta and y.shape == x.shape and y.dtype == ember.float64 and y.requires_grad


def test_placeholder_is_one_element():
    a = _meta.placeholder((2 ** 20, 2 ** 20), np.float32)
    assert a.shape == (2 ** 20, 2 ** 20) and not any(a.strides) and _memory(a) == 4


ERRORS = {
    "item": lambda L: L.empty(1, device="meta").item(),
    "item_many": lambda L: _x(L).item(),
    "float": lambda L: float(L.empty((), device="meta")),
    "bool": lambda L: bool(L.empty(1, device="meta")),
    "bool_many": lambda L: bool(_x(L)),
    "tolist": lambda L: _x(L).tolist(),
    "numpy": lambda L: _x(L).numpy(),
    "to_cpu": lambda L: _x(L).to("cpu"),
    "cpu": lambda L: _x(L).cpu(),
    "copy_out": lambda L: L.ones(4, 3).copy_(_x(L)),
    "meta_plus_cpu": lambda L: _x(L) + L.ones(4, 3),
    "cpu_plus_meta": lambda L: L.ones(4, 3) + _x(L),
    "broadcast": lambda L: _x(L) + L.empty(2, 4, device="meta"),
    "no_grad": lambda L: _x(L).sum().backward(),
    "module_to_cpu": lambda L: L.nn.Linear(2, 3, device="meta").to("cpu"),
    "cuda": lambda L: L.empty(2, device="cuda"),
    "allclose": lambda L: L.allclose(_x(L), _x(L)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    same_error(ERRORS[name])


def test_value_dependent_ops_raise():
    x = ember.empty(4, device="meta")
    for call in (lambda: ember.nonzero(x), lambda: x[x > 0], lambda: x.unique(),
                 lambda: ember.equal(x, x), lambda: ember.masked_select(x, x > 0)):
        with pytest.raises(NotImplementedError):
            call()


def test_backward_gives_meta_grads():
    def run(L):
        x = L.empty(3, 4, device="meta", requires_grad=True)
        w = L.empty(4, 5, device="meta", requires_grad=True)
        (x @ w).relu().mean().backward()
        return x.grad, w.grad
    _both(run)


def test_network_backward_on_meta():
    def run(L):
        net = L.nn.Sequential(L.nn.Conv2d(3, 4, 3), L.nn.ReLU(), L.nn.MaxPool2d(2),
                              L.nn.Flatten(), L.nn.Linear(4 * 3 * 3, 5)).to("meta")
        loss = L.nn.functional.cross_entropy(net(_m(L, 2, 3, 8, 8)), _long(L, 2))
        loss.backward()
        return loss, net[0].weight.grad, net[4].bias.grad
    _both(run)


def test_copy_into_meta_checks_shape_only():
    x = ember.empty(2, 3, device="meta")
    assert x.copy_(ember.ones(2, 3)) is x and x.is_meta
    same_error(lambda L: L.empty(2, 3, device="meta").copy_(L.ones(4)))


def test_device_context_restores_default():
    with ember.device("meta"):
        with ember.device("cpu"):
            assert not ember.ones(1).is_meta
        assert ember.ones(1).is_meta
        assert str(ember.get_default_device()) == "meta"
    assert str(ember.get_default_device()) == "cpu" and not ember.ones(1).is_meta


class _Net:
    @staticmethod
    def build(L):
        return L.nn.Sequential(L.nn.Conv2d(3, 4, 3), L.nn.BatchNorm2d(4), L.nn.Flatten(),
                               L.nn.Linear(4 * 6 * 6, 5))


def test_module_built_on_meta_then_assigned_a_state_dict():
    torch.manual_seed(0)
    real = _Net.build(torch)
    state = {k: ember.tensor(v.numpy()) for k, v in real.state_dict().items()}
    with ember.device("meta"):
        net = _Net.build(ember)
    assert all(p.is_meta for p in net.parameters())
    assert repr(net[3].weight).startswith("Parameter containing:\ntensor(..., device='meta'")
    net.load_state_dict(state, assign=True)
    assert not any(p.is_meta for p in net.parameters())
    assert all(isinstance(p, ember.nn.Parameter) for p in net.parameters())
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    net.eval(), real.eval()
    np.testing.assert_allclose(net(ember.tensor(x)).detach().numpy(),
                               real(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_to_empty_then_reset_parameters_matches_torch():
    modules = []
    for lib in (ember, torch):
        m = lib.nn.Linear(3, 2, device="meta")
        m.to_empty(device="cpu")
        lib.manual_seed(0)
        m.reset_parameters()
        modules.append(m)
    assert not modules[0].weight.is_meta
    np.testing.assert_array_equal(modules[0].weight.detach().numpy(),
                                  modules[1].weight.detach().numpy())


def test_module_to_meta_keeps_parameters():
    m = ember.nn.Linear(2, 3)
    weight = m.weight
    m.to("meta")
    assert m.weight is weight and weight.is_meta and isinstance(weight, ember.nn.Parameter)
    assert repr(m.to_empty(device="meta").weight) == repr(torch.nn.Linear(2, 3, device="meta")
                                                          .weight).replace("torch.", "ember.")


def test_skip_init_on_meta():
    m = ember.nn.utils.skip_init(ember.nn.Linear, 2, 3, device="meta")
    assert m.weight.is_meta and tuple(m.weight.shape) == (3, 2)


def test_copying_a_state_dict_into_meta_warns_as_torch():
    messages = []
    for lib in (ember, torch):
        with pytest.warns(UserWarning) as caught:
            lib.nn.Linear(2, 3, device="meta").load_state_dict(lib.nn.Linear(2, 3).state_dict())
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 2


def test_module_device_argument_by_position_or_keyword():
    class Keyword(ember.nn.Module):
        def __init__(self, *sizes, device=None):
            super().__init__()
            self.weight = ember.nn.Parameter(ember.empty(*sizes))

    assert Keyword(2, 3, device="meta").weight.is_meta
    assert not Keyword(2, 3).weight.is_meta
    assert ember.nn.Linear(2, 3, True, "meta").weight.is_meta
