"""nn.Module: registration, traversal, state_dict, modes and repr, compared with torch.nn (hooks:
tests/nn/modules/test_hooks.py)."""
import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember


def build(lib):
    """The same small model in ember or torch: nested modules, a shared layer, buffers."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 4)
            self.register_buffer("running", lib.zeros(4))
            self.register_buffer("scratch", lib.ones(2), persistent=False)
            self.scale = nn.Parameter(lib.ones(1))

        def forward(self, x):
            return self.fc(x) * self.scale + self.running

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.seq = nn.Sequential(nn.Linear(4, 4), nn.Identity(), nn.Linear(4, 2))
            self.heads = nn.ModuleDict({"a": nn.Linear(2, 1), "b": nn.Flatten()})
            self.tied = self.seq[0]
            self.absent = None

        def forward(self, x):
            return self.heads["a"](self.seq(self.block(x)))

    return Net()


def copy_weights(src, dst):
    """Copy a torch model's state into an ember one (same structure)."""
    state = {k: ember.tensor(v.numpy()) for k, v in src.state_dict().items()}
    dst.load_state_dict(state)


def test_names_match_torch():
    e, t = build(ember), build(torch)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in e.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in e.named_children()] == [n for n, _ in t.named_children()]
    assert list(e.state_dict()) == list(t.state_dict())
    assert len(list(e.parameters())) == len(list(t.parameters()))
    assert len(list(e.modules())) == len(list(t.modules()))
    assert ([n for n, _ in e.named_parameters(remove_duplicate=False)]
            == [n for n, _ in t.named_parameters(remove_duplicate=False)])
    assert ([n for n, _ in e.named_parameters(prefix="m", recurse=False)]
            == [n for n, _ in t.named_parameters(prefix="m", recurse=False)])


def test_repr_matches_torch():
    e, t = build(ember), build(torch)
    assert repr(e) == repr(t)
    nn_e, nn_t = ember.nn, torch.nn
    assert repr(nn_e.ModuleList([nn_e.Linear(2, 2)] * 3 + [nn_e.Flatten()])) == \
        repr(nn_t.ModuleList([nn_t.Linear(2, 2)] * 3 + [nn_t.Flatten()]))
    assert repr(nn_e.ModuleList()) == repr(nn_t.ModuleList())
    assert repr(nn_e.Sequential()) == repr(nn_t.Sequential())
    assert repr(nn_e.Unflatten(1, (2, 3))) == repr(nn_t.Unflatten(1, (2, 3)))


def test_forward_matches_torch_after_load():
    e, t = build(ember), build(torch)
    copy_weights(t, e)
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    xe, xt = ember.tensor(x), torch.tensor(x)
    ye, yt = e(xe), t(xt)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    ye.sum().backward()
    yt.sum().backward()
    grads_t = dict(t.named_parameters())
    for name, p in e.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), grads_t[name].grad.numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=name)


def test_state_dict_is_detached_and_shares_memory():
    e = build(ember)
    sd = e.state_dict()
    assert not sd["block.fc.weight"].requires_grad
    assert "block.scratch" not in sd
    sd["block.fc.weight"][0, 0] = 42.0
    assert e.block.fc.weight[0, 0].item() == 42.0
    assert e.state_dict(keep_vars=True)["block.fc.weight"] is e.block.fc.weight


def test_load_state_dict_report_matches_torch():
    e, t = build(ember), build(torch)
    for edit in (lambda sd: sd.pop("block.running"),
                 lambda sd: sd.update({"extra": 1, "seq.9.weight": 2, "block.fc.x": 3}),
                 lambda sd: None):
        sd_t = t.state_dict()
        edit(sd_t)
        sd_e = {k: ember.tensor(v.numpy()) if isinstance(v, torch.Tensor) else v
                for k, v in sd_t.items()}
        got_t = t.load_state_dict(sd_t, strict=False)
        got_e = e.load_state_dict(sd_e, strict=False)
        assert repr(got_e) == repr(got_t)
        assert got_e.missing_keys == got_t.missing_keys
        if got_t.missing_keys or got_t.unexpected_keys:
            with pytest.raises(RuntimeError) as ee:
                e.load_state_dict(sd_e)
            with pytest.raises(RuntimeError) as et:
                t.load_state_dict(sd_t)
            assert str(ee.value) == str(et.value)


def test_load_state_dict_size_mismatch_leaves_model_untouched():
    e = build(ember)
    before = {k: v.clone() for k, v in e.state_dict().items()}
    sd = {k: v.clone() + 1 for k, v in before.items()}
    sd["seq.2.weight"] = ember.zeros(3, 4)
    with pytest.raises(RuntimeError, match=r"size mismatch for seq.2.weight: copying a param "
                       r"with shape ember.Size\(\[3, 4\]\) from checkpoint, the shape in current "
                       r"model is ember.Size\(\[2, 4\]\)"):
        e.load_state_dict(sd, strict=False)
    for k, v in e.state_dict().items():
        assert ember.equal(v, before[k]), k
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        e.load_state_dict([1, 2])


def test_load_state_dict_assign_and_dtype_cast():
    lin = ember.nn.Linear(2, 3)
    w = ember.ones(3, 2, dtype=ember.float64)
    lin.load_state_dict({"weight": w, "bias": ember.zeros(3)})
    assert lin.weight.dtype == ember.float32 and lin.weight.sum().item() == 6
    lin.load_state_dict({"weight": w, "bias": ember.zeros(3)}, assign=True)
    assert isinstance(lin.weight, ember.nn.Parameter) and lin.weight.dtype == ember.float64


def test_train_eval_and_zero_grad():
    e = build(ember)
    assert e.training and e.seq[0].training
    assert e.eval() is e
    assert not any(m.training for m in e.modules())
    e.train()
    assert all(m.training for m in e.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        e.train("yes")
    e(ember.randn(2, 3)).sum().backward()
    assert all(p.grad is not None for p in e.parameters())
    e.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in e.parameters())
    e.zero_grad()
    assert all(p.grad is None for p in e.parameters())
    e.requires_grad_(False)
    assert not any(p.requires_grad for p in e.parameters())


def test_apply_order_matches_torch():
    order_e, order_t = [], []
    build(ember).apply(lambda m: order_e.append(type(m).__name__))
    build(torch).apply(lambda m: order_t.append(type(m).__name__))
    assert order_e == order_t


def test_to_dtype_keeps_parameter_identity():
    e = build(ember)
    w = e.seq[0].weight
    assert e.to(ember.float64) is e
    assert e.seq[0].weight is w and w.dtype == ember.float64
    assert e.block.running.dtype == ember.float64
    e.float()
    assert w.dtype == ember.float32
    e.double()
    assert e(ember.randn(2, 3, dtype=ember.float64)).dtype == ember.float64
    with pytest.raises(TypeError, match="only accepts floating point"):
        e.to(ember.int64)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        e.to("cuda")  # torch's error on a CPU-only build
    assert e.to("cpu") is e


def test_to_a_complex_dtype_as_torch():
    """Module.to(complex): floating and complex parameters and buffers convert (integer ones
    stay), with torch's warning; back to a real dtype, complex ones convert too. ember refused
    complex dtypes with a message saying they were accepted."""
    seen = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
        with pytest.warns(UserWarning, match="Complex modules are a new feature"):
            m.to(lib.complex64)
        kinds = [str(v.dtype).split(".")[1] for v in m.state_dict().values()]
        y = m[0](lib.ones(1, 2, dtype=lib.complex64))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's "discards the imaginary part"
            back = str(m.to(lib.float64)[0].weight.dtype).split(".")[1]
        seen.append((kinds, str(y.dtype).split(".")[1], back))
    assert seen[1] == seen[0]


def test_setattr_errors_match_torch():
    for lib, word in ((ember, "ember"), (torch, "torch")):
        lin = lib.nn.Linear(2, 2)
        with pytest.raises(TypeError, match=f"cannot assign '{word}.FloatTensor' as parameter "
                           f"'weight' \\({word}.nn.Parameter or None expected\\)"):
            lin.weight = lib.zeros(2, 2)
        with pytest.raises(KeyError, match="attribute 'bias' already exists"):
            lin.register_buffer("bias", lib.zeros(1))
        with pytest.raises(KeyError, match="contain"):
            lin.register_parameter("a.b", None)

    class Early(ember.nn.Module):
        def __init__(self):
            self.w = ember.nn.Parameter(ember.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def test_attribute_reassignment_moves_between_stores():
    m = ember.nn.Module()
    m.x = ember.nn.Linear(1, 1)
    m.x = None
    assert "x" in m._modules and m.x is None
    m.register_buffer("b", ember.zeros(1))
    m.b = ember.ones(1)
    assert m._buffers["b"].item() == 1
    with pytest.raises(TypeError, match="as buffer 'b'"):
        m.b = 3
    del m.b
    assert not hasattr(m, "b")
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'missing'"):
        m.missing
    assert "x" in dir(m)


def test_sequential_indexing_and_slicing():
    nn = ember.nn
    layers = [nn.Linear(2, 2), nn.Identity(), nn.Linear(2, 3)]
    seq = nn.Sequential(*layers)
    assert seq[0] is layers[0] and seq[-1] is layers[2]
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and list(sub) == layers[1:]
    t_seq = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Identity(), torch.nn.Linear(2, 3))
    assert list(sub.state_dict()) == list(t_seq[1:].state_dict())
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]
    del seq[0]
    assert list(seq._modules) == ["0", "1"] and len(seq) == 2
    seq.append(nn.Identity())
    seq.insert(0, nn.Flatten())
    assert [type(m).__name__ for m in seq] == ["Flatten", "Identity", "Linear", "Identity"]
    assert isinstance(seq.pop(0), nn.Flatten)
    seq[0] = nn.Linear(2, 2)
    assert seq(ember.randn(4, 2)).shape == (4, 3)
    named = nn.Sequential(__import__("collections").OrderedDict(a=nn.Identity()))
    assert list(named._modules) == ["a"]
    assert len(nn.Sequential(nn.Identity()) + nn.Sequential(nn.Identity())) == 2


def test_modulelist_and_moduledict():
    nn = ember.nn
    ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    ml += [nn.Identity()]
    ml.extend([nn.Identity()])
    assert len(ml) == 5 and isinstance(ml[1:3], nn.ModuleList) and len(ml[1:3]) == 2
    assert len(list(ml.parameters())) == 6
    del ml[0]
    assert list(ml._modules) == [str(i) for i in range(4)]
    md = nn.ModuleDict([("x", nn.Identity()), ("y", nn.Linear(1, 1))])
    assert list(md.keys()) == ["x", "y"] and "y" in md and len(md) == 2
    md["z"] = nn.Identity()
    assert isinstance(md.pop("x"), nn.Identity)
    assert list(md) == ["y", "z"]
    assert list(md.state_dict()) == ["y.weight", "y.bias"]
    md2 = nn.ModuleDict(md)
    assert list(md2.keys()) == ["y", "z"] and md2["y"] is md["y"]
    with pytest.raises(ValueError, match="has length 3; 2 is required"):
        md.update([("a", nn.Identity(), 1)])
    pl = nn.ParameterList([nn.Parameter(ember.ones(2)), ember.zeros(3)])
    assert isinstance(pl[1], nn.Parameter) and len(list(pl.parameters())) == 2
    pd = nn.ParameterDict({"w": ember.ones(2)})
    assert list(pd.state_dict()) == ["w"]
    assert list(nn.ParameterDict(pd).keys()) == ["w"]


def test_parameter_basics():
    p = ember.nn.Parameter(ember.ones(2))
    assert isinstance(p, ember.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p) == repr(torch.nn.Parameter(torch.ones(2))).replace("torch", "ember")
    data = ember.zeros(3)
    q = ember.nn.Parameter(data, requires_grad=False)
    data[0] = 5
    assert q[0].item() == 5 and not q.requires_grad
    assert type(q * 2) is ember.Tensor
    r = copy.deepcopy(p)
    assert isinstance(r, ember.nn.Parameter) and r.requires_grad
    s = pickle.loads(pickle.dumps(p))
    assert isinstance(s, ember.nn.Parameter) and ember.equal(s, p)


def test_deepcopy_and_pickle_module():
    e = build(ember)
    e2 = copy.deepcopy(e)
    assert list(e2.state_dict()) == list(e.state_dict())
    assert e2.tied is e2.seq[0]
    assert e2.seq[0].weight is not e.seq[0].weight
    e3 = pickle.loads(pickle.dumps(e.seq))
    assert ember.equal(e3[0].weight, e.seq[0].weight)


def test_get_submodule_parameter_buffer():
    e, t = build(ember), build(torch)
    assert type(e.get_submodule("seq.2")).__name__ == type(t.get_submodule("seq.2")).__name__
    assert e.get_parameter("block.fc.bias") is e.block.fc.bias
    assert e.get_buffer("block.running") is e.block.running
    with pytest.raises(AttributeError, match="has no attribute `nope`"):
        e.get_submodule("seq.nope")


def test_forward_missing_raises():
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        ember.nn.Module()(1)


def test_buffer_assignment_registers_like_torch():
    for lib in (ember, torch):
        m = lib.nn.Module()
        m.b = lib.nn.Buffer(lib.ones(2))
        m.c = lib.nn.Buffer(lib.ones(1), persistent=False)
        assert list(m.state_dict()) == ["b"]
        assert [n for n, _ in m.named_buffers()] == ["b", "c"]
        assert type(m.b) is lib.Tensor


def test_train_and_apply_reach_children_through_their_overrides():
    calls = []

    class Frozen(ember.nn.Linear):
        def train(self, mode=True):
            calls.append(("train", mode))
            return super().train(False)  # stays in eval mode, as frozen batch-norm layers do

        def _apply(self, fn, recurse=True):
            calls.append("apply")
            return super()._apply(fn, recurse)

    net = ember.nn.Sequential(ember.nn.Linear(2, 2), Frozen(2, 2))
    net.train()
    assert net.training and net[0].training and not net[1].training
    net.double()
    assert calls == [("train", True), "apply"] and net[1].weight.dtype == ember.float64


def test_extra_state_round_trips_like_torch():
    def build(lib):
        class WithExtra(lib.nn.Linear):
            def get_extra_state(self):
                return {"calls": getattr(self, "calls", 0)}

            def set_extra_state(self, state):
                self.calls = state["calls"]
        return lib.nn.Sequential(WithExtra(2, 2))
    e, t = build(ember), build(torch)
    assert list(e.state_dict()) == list(t.state_dict()) == ["0.weight", "0.bias",
                                                             "0._extra_state"]
    e[0].calls = 7
    fresh = build(ember)
    fresh.load_state_dict(e.state_dict())
    assert fresh[0].calls == 7


def test_module_misc_api():
    net = ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.Sequential(ember.nn.Identity()))
    net.set_submodule("1.0", ember.nn.ReLU())
    assert isinstance(net[1][0], ember.nn.ReLU)
    with pytest.raises(AttributeError, match="has no attribute `9`"):
        net.set_submodule("1.9", ember.nn.ReLU(), strict=True)
    assert net.share_memory() is net and net.compile() is None
    shared = ember.nn.Linear(1, 1)
    dup = ember.nn.Sequential(shared, shared)
    assert len(list(dup.modules())) == 2 and len(list(dup.modules(remove_duplicate=False))) == 3
    net.to_empty(device="cpu")
    assert net[0].weight.shape == (2, 2)


def test_dotted_names_refused_as_torch():
    from oracle import same_error
    same_error(lambda lib: lib.nn.Module().add_module("a.b", None))
    same_error(lambda lib: lib.nn.Module().register_buffer("a.b", None))
    same_error(lambda lib: lib.nn.Module().register_parameter("a.b", None))


def test_get_and_set_submodule_errors_match_torch():
    def message(lib, fn):
        torch.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3),
                                lib.nn.Sequential(lib.nn.Linear(3, 1)))
        try:
            fn(lib, net)
        except (AttributeError, ValueError) as error:
            return type(error).__name__, str(error).replace("ember", "torch")
        return None

    cases = [lambda lib, n: n.get_submodule("0.weight"),
             lambda lib, n: n.get_submodule("training"),
             lambda lib, n: n.get_submodule("5"),
             lambda lib, n: n.get_parameter("0.nothing"),
             lambda lib, n: n.get_parameter("1.running_mean"),
             lambda lib, n: n.get_parameter("1.training"),
             lambda lib, n: n.get_parameter("2"),
             lambda lib, n: n.get_buffer("0.weight"),
             lambda lib, n: n.get_buffer("1.nothing"),
             lambda lib, n: n.get_buffer("2"),
             lambda lib, n: n.set_submodule("", lib.nn.ReLU()),
             lambda lib, n: n.set_submodule("0.weight", lib.nn.ReLU()),
             lambda lib, n: n.set_submodule("9.x", 3),
             lambda lib, n: n.set_submodule("0.q", lib.nn.ReLU(), strict=True)]
    for case in cases:
        expected = message(torch, case)
        assert expected is not None
        assert message(ember, case) == expected
    assert message(ember, lambda lib, n: n.get_submodule("0.weight")) == (
        "AttributeError", "`weight` is not an nn.Module")
