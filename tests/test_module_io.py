"""torch.save(model) / torch.load of whole nn.Modules, without pickle: the same round-trip
properties as torch's (checked on torch too), and classes rebuilt only when allowed."""
import numpy as np
import pytest
import torch

import ember
from ember._checkpoint_file import CheckpointError


def _net_class(fw):
    class Net(fw.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = fw.nn.Embedding(10, 6)
            self.rnn = fw.nn.LSTM(6, 5, batch_first=True)
            self.conv = fw.nn.Conv1d(5, 4, 3, padding=1)
            self.norm = fw.nn.BatchNorm1d(4)
            self.out = fw.nn.Linear(4, 10)
            self.scale, self.label, self.sizes = 0.5, "net", (6, 5, 4)

        def forward(self, tokens):
            h = self.rnn(self.emb(tokens))[0].transpose(1, 2)
            return self.out(self.norm(self.conv(h)).mean(2)) * self.scale
    return Net


TorchNet, EmberNet = _net_class(torch), _net_class(ember)
TorchNet.__qualname__, EmberNet.__qualname__ = "TorchNet", "EmberNet"
FRAMEWORKS = {"torch": (torch, TorchNet), "ember": (ember, EmberNet)}


def _models(fw, net):
    fw.manual_seed(0)
    tied = fw.nn.Sequential(fw.nn.Linear(4, 4), fw.nn.Tanh(), fw.nn.Linear(4, 4))
    tied[2].weight = tied[0].weight
    conv = fw.nn.Sequential(fw.nn.Conv2d(1, 3, 3), fw.nn.ReLU(), fw.nn.MaxPool2d(2),
                            fw.nn.Flatten(), fw.nn.Linear(12, 2))
    custom = net()
    custom.emb.weight.requires_grad_(False)
    custom.norm.train()(custom.conv(torch_like_input(fw, (4, 5, 7))))  # running stats move
    custom.eval()
    return {"sequential": (tied, (3, 4)), "conv": (conv, (2, 1, 6, 6)),
            "lstm": (fw.nn.LSTM(3, 4, num_layers=2, batch_first=True), (2, 5, 3)),
            "custom": (custom, None)}


def torch_like_input(fw, shape):
    return fw.tensor(np.random.default_rng(1).standard_normal(shape).astype(np.float32))


def _round_trip(fw, model, path, name):
    fw.save(model, path)
    if fw is torch:
        return torch.load(path, weights_only=False)
    with ember.serialization.safe_globals([EmberNet]):
        return ember.load(path)


def _output(fw, model, shape):
    x = fw.tensor([[1, 2, 3, 4], [5, 6, 7, 8]]) if shape is None else torch_like_input(fw, shape)
    out = model(x)
    return (out[0] if isinstance(out, tuple) else out).detach().numpy()


@pytest.mark.parametrize("name", ["sequential", "conv", "lstm", "custom"])
@pytest.mark.parametrize("framework", ["torch", "ember"])
def test_whole_module_round_trip(tmp_path, framework, name):
    fw, net = FRAMEWORKS[framework]
    model, shape = _models(fw, net)[name]
    loaded = _round_trip(fw, model, tmp_path / "m.pt", name)
    assert type(loaded) is type(model) and loaded is not model
    assert [m.training for m in loaded.modules()] == [m.training for m in model.modules()]
    before, after = model.state_dict(), loaded.state_dict()
    assert list(after) == list(before)
    for key in before:
        np.testing.assert_array_equal(after[key].numpy(), before[key].numpy(), key)
    pairs = list(zip(model.parameters(), loaded.parameters()))
    assert all(type(b) is type(a) and b.requires_grad == a.requires_grad for a, b in pairs)
    np.testing.assert_array_equal(_output(fw, loaded, shape), _output(fw, model, shape))
    if name == "sequential":  # tied weights stay one parameter
        assert loaded[2].weight is loaded[0].weight
    if name == "custom":
        assert (loaded.scale, loaded.label, loaded.sizes) == (0.5, "net", (6, 5, 4))
    loaded.train()
    out = _output_tensor(fw, loaded, shape)
    out.sum().backward()
    assert all(p.grad is not None for p in loaded.parameters() if p.requires_grad)


def _output_tensor(fw, model, shape):
    x = fw.tensor([[1, 2, 3, 4], [5, 6, 7, 8]]) if shape is None else torch_like_input(fw, shape)
    out = model(x)
    return out[0] if isinstance(out, tuple) else out


def test_other_classes_are_rebuilt_only_when_allowed(tmp_path):
    path = tmp_path / "net.pt"
    ember.save(EmberNet(), path)
    with pytest.raises(CheckpointError, match=r"class test_module_io\.EmberNet, which is not "
                       r"ember's own.*add_safe_globals\(\[EmberNet\]\)"):
        ember.load(path)
    with ember.serialization.safe_globals([EmberNet]):
        assert type(ember.load(path)) is EmberNet
    with pytest.raises(CheckpointError, match="not ember's own"):
        ember.load(path)  # the context ended
    assert type(ember.load(path, weights_only=False)) is EmberNet
    ember.serialization.add_safe_globals([EmberNet])
    try:
        assert EmberNet in ember.serialization.get_safe_globals()
        assert type(ember.load(path)) is EmberNet
    finally:
        ember.serialization.clear_safe_globals()
    assert type(ember.load(tmp_path / "net.pt", weights_only=False)) is EmberNet


@pytest.mark.parametrize("target", [["ember._atomic", "atomic_write"], ["os", "system"],
                                    ["ember", "Tensor"], ["builtins", "object"],
                                    ["ember.nn", "Nope"]])
def test_named_classes_must_be_modules(tmp_path, target):
    import json

    from safetensors.numpy import save_file
    record = {"module": {"module": target, "state": {"dict": []}}}
    save_file({"a": np.ones(1)}, str(tmp_path / "c.pt"),
              metadata={"ember.save/1": json.dumps(record["module"])})
    for weights_only in (True, False):
        with pytest.raises(CheckpointError, match="not an nn.Module class|not ember's own"):
            ember.load(tmp_path / "c.pt", weights_only=weights_only)


def test_modules_with_hooks_are_refused(tmp_path):
    model = ember.nn.Linear(2, 2)
    model.register_forward_hook(lambda *args: None)
    with pytest.raises(TypeError, match="cannot store module Linear with hooks"):
        ember.save(model, tmp_path / "h.pt")
    assert not (tmp_path / "h.pt").exists()


def test_a_module_holding_an_ember_function_round_trips(tmp_path):
    """TransformerEncoderLayer keeps F.relu as an attribute (torch pickles it by reference):
    ember stores ember's own functions by name and rebuilds only those."""
    ember.manual_seed(0)
    layer = ember.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    x = ember.randn(3, 2, 8)
    path = tmp_path / "layer.pt"
    ember.save(layer, path)
    back = ember.load(path)
    assert back.activation is ember.nn.functional.relu
    assert ember.equal(back(x), layer(x))


def test_a_function_that_is_not_embers_is_refused(tmp_path):
    def mine(x):
        return x
    with pytest.raises(TypeError, match="cannot store an object of type function"):
        ember.save({"f": mine}, tmp_path / "f.pt")
    import json

    import safetensors.numpy
    arrays = {"w": np.zeros(1, np.float32)}
    for name in (["os", "system"], ["ember._module_io", "importlib"], "x"):
        structure = {"dict": [["f", {"function": name}]]}
        blob = safetensors.numpy.save(arrays, metadata={ember.serialization._FORMAT: json.dumps(structure)})
        (tmp_path / "c.pt").write_bytes(blob)
        with pytest.raises(CheckpointError, match="not one of ember's own nor allowed"):
            ember.load(tmp_path / "c.pt")


def test_safe_globals_take_functions_as_torch(tmp_path):
    """torch.serialization.safe_globals accepts functions (pytorch/examples lists F.relu)."""
    ember.manual_seed(0)
    layer = ember.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    ember.save(layer, tmp_path / "layer.pt")
    allowed = [ember.nn.functional.relu, ember.nn.TransformerEncoderLayer]
    with ember.serialization.safe_globals(allowed):
        assert ember.load(tmp_path / "layer.pt").activation is ember.nn.functional.relu
    with torch.serialization.safe_globals([torch.nn.functional.relu]):
        pass  # torch takes a function too
    with pytest.raises(TypeError, match="expects classes or functions"):
        ember.serialization.add_safe_globals([3])
