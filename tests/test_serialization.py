"""ember.save / ember.load: exact round trips, interop with safetensors/torch, errors, atomicity."""
import collections
import io
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import torch
from safetensors.numpy import save_file as np_save_file
from safetensors.torch import load_file as torch_load_file
from safetensors.torch import save_file as torch_save_file

import ember

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


def _same_tensor(a, b):
    assert isinstance(b, ember.Tensor) and a.dtype == b.dtype and a.shape == b.shape
    assert a.requires_grad == b.requires_grad
    np.testing.assert_array_equal(a.numpy() if not a.requires_grad else a.detach().numpy(),
                                  b.detach().numpy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_round_trip_every_dtype(tmp_path, dtype):
    rng = np.random.default_rng(0)
    for shape in [(), (0,), (3,), (2, 3, 4)]:
        data = (rng.standard_normal(shape) * 50).astype(dtype)
        t = ember.tensor(data)
        ember.save(t, tmp_path / "t.pt")
        _same_tensor(t, ember.load(tmp_path / "t.pt"))


def test_nested_structure_round_trips_exactly(tmp_path):
    w = ember.randn(3, 2, requires_grad=True)
    obj = {
        "model": collections.OrderedDict([("fc.weight", w), ("fc.bias", ember.zeros(2))]),
        "optimizer": {"state": {0: {"step": ember.tensor(3.0), "exp_avg": ember.ones(3, 2)}},
                      "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "params": [0],
                                        "nesterov": False, "foreach": None}]},
        "epoch": 7, "history": [1.5, float("nan"), float("inf"), -float("inf")], "name": "run",
        "big": 2 ** 70, "tuple": (1, "a", None), "view": ember.arange(12).reshape(3, 4).t(),
        "numpy": np.arange(4.0), "np_scalar": np.int64(5), "dtype": ember.float64,
        "tied": [w, w], 3.5: "float key", (1, 2): "tuple key",
    }
    ember.save(obj, tmp_path / "c.pt")
    got = ember.load(tmp_path / "c.pt")
    assert list(got) == list(obj)
    assert isinstance(got["model"], collections.OrderedDict)
    assert list(got["model"]) == ["fc.weight", "fc.bias"]
    _same_tensor(obj["model"]["fc.weight"], got["model"]["fc.weight"])
    _same_tensor(obj["view"], got["view"])
    assert got["optimizer"]["param_groups"] == obj["optimizer"]["param_groups"]
    assert list(got["optimizer"]["state"]) == [0]
    _same_tensor(obj["optimizer"]["state"][0]["step"], got["optimizer"]["state"][0]["step"])
    assert got["epoch"] == 7 and got["big"] == 2 ** 70 and got["tuple"] == (1, "a", None)
    assert np.isnan(got["history"][1]) and got["history"][2:] == [float("inf"), -float("inf")]
    assert isinstance(got["numpy"], np.ndarray) and got["numpy"].tolist() == [0, 1, 2, 3]
    assert got["np_scalar"] == 5 and got["np_scalar"].dtype == np.int64
    assert got["dtype"] is ember.float64
    assert got["tied"][0] is got["tied"][1] and got[3.5] == "float key"
    assert got[(1, 2)] == "tuple key"


def test_file_objects(tmp_path):
    buf = io.BytesIO()
    ember.save({"x": ember.arange(3)}, buf)
    buf.seek(0)
    assert ember.load(buf)["x"].tolist() == [0, 1, 2]


def test_ember_files_load_in_torch_safetensors(tmp_path):
    sd = {"fc.weight": ember.randn(4, 3), "fc.bias": ember.randn(4)}
    ember.save({"model": sd, "step": 3}, tmp_path / "e.safetensors")
    loaded = torch_load_file(tmp_path / "e.safetensors")
    assert sorted(loaded) == ["model.fc.bias", "model.fc.weight"]
    for k, v in sd.items():
        np.testing.assert_array_equal(loaded[f"model.{k}"].numpy(), v.numpy())
    ember.save(sd, tmp_path / "flat.safetensors")
    assert sorted(torch_load_file(tmp_path / "flat.safetensors")) == sorted(sd)


def test_foreign_safetensors_load_as_a_state_dict(tmp_path):
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    torch_save_file(model.state_dict(), tmp_path / "torch.safetensors")
    got = ember.load(tmp_path / "torch.safetensors")
    assert sorted(got) == sorted(model.state_dict())
    for k, v in model.state_dict().items():
        assert isinstance(got[k], ember.Tensor) and str(got[k].dtype) == "ember.float32"
        np.testing.assert_array_equal(got[k].numpy(), v.numpy())


def _bad_file(tmp_path, kind):
    path = tmp_path / f"{kind}.pt"
    if kind == "torch":
        torch.save({"w": torch.ones(2)}, path)
    elif kind == "pickle":
        path.write_bytes(pickle.dumps({"w": [1, 2]}))
    elif kind == "legacy":
        torch.save({"w": torch.ones(2)}, path, _use_new_zipfile_serialization=False)
    else:
        ember.save({"w": ember.ones(1000)}, path)
        blob = path.read_bytes()
        cut = {"truncated": blob[:-100], "empty": b"", "short": blob[:5],
               "header_cut": blob[:40], "garbage": b"\x10" + os.urandom(200),
               "bad_json": blob[:8] + b"{" * (len(blob) - 8)}[kind]
        path.write_bytes(cut)
    return path


@pytest.mark.parametrize("kind,match", [
    ("pickle", "pickle/zip checkpoint"),
    ("legacy", "pickle/zip checkpoint"), ("truncated", "truncated or corrupt"),
    ("empty", "truncated or not a checkpoint"), ("short", "truncated or not a checkpoint"),
    ("header_cut", "truncated or not a safetensors file"),
    ("garbage", "truncated or not a safetensors file"), ("bad_json", "corrupt or not a safetensors")])
def test_bad_files_give_clear_errors(tmp_path, kind, match):
    path = _bad_file(tmp_path, kind)
    with pytest.raises(RuntimeError, match=match) as info:
        ember.load(path)
    assert str(path) in str(info.value)


def test_torch_zip_checkpoint_loads_as_data(tmp_path):
    """torch.save's zip format is read without unpickling (tests/test_torch_zip.py)."""
    assert ember.load(_bad_file(tmp_path, "torch"))["w"].tolist() == [1.0, 1.0]


def test_header_length_like_a_pickle_or_zip_magic_still_loads(tmp_path):
    """A safetensors header of 128 (mod 256) bytes starts with the byte of pickle's magic."""
    path = tmp_path / "n.pt"
    starts = set()
    for n in range(300):
        ember.save({"k" * n: 1}, path)
        blob = path.read_bytes()
        starts.add(blob[:1])
        assert ember.load(path) == {"k" * n: 1}
    assert b"\x80" in starts


def test_corrupt_structure_record(tmp_path):
    path = tmp_path / "s.pt"
    np_save_file({"a": np.ones(2)}, str(path), metadata={"ember.save/1": '{"tensor": "nope"}'})
    with pytest.raises(RuntimeError, match="corrupt structure record"):
        ember.load(path)


def test_missing_file_and_unsupported_objects(tmp_path):
    with pytest.raises(FileNotFoundError, match="No such file or directory"):
        ember.load(tmp_path / "absent.pt")
    with pytest.raises(TypeError, match="cannot store an object of type object"):
        ember.save({"x": object()}, tmp_path / "x.pt")
    with pytest.raises(TypeError, match="cannot store an array of dtype <U1"):
        ember.save({"x": np.array(["a"])}, tmp_path / "x.pt")
    assert not (tmp_path / "x.pt").exists()


def test_failed_save_keeps_previous_file_and_leaves_no_temp(tmp_path):
    path = tmp_path / "ckpt.pt"
    ember.save({"v": ember.tensor([1.0])}, path)
    with pytest.raises(TypeError):
        ember.save({"v": ember.tensor([2.0]), "bad": object()}, path)
    assert ember.load(path)["v"].tolist() == [1.0]
    assert os.listdir(tmp_path) == ["ckpt.pt"]


_WRITER = textwrap.dedent("""
    import sys, ember
    path = sys.argv[1]
    ember.save({"version": 1, "w": ember.ones(10)}, path)
    big = {"version": 2, "w": ember.zeros(2 ** 26)}  # 256 MB of float32
    print("ready", flush=True)
    while True:
        ember.save(big, path)
""")


def test_kill_during_save_keeps_previous_checkpoint(tmp_path):
    path = tmp_path / "ckpt.pt"
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(path)], cwd=repo,
                            stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == b"ready"
        deadline = time.monotonic() + 60
        while not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.001)
        time.sleep(0.05)  # let the big write get under way
        killed_mid_write = [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        proc.kill()
        proc.stdout.close()
    assert killed_mid_write
    got = ember.load(path)  # intact: the previous checkpoint or a complete new one
    assert got["version"] in (1, 2)
    assert got["w"].numel() == (10 if got["version"] == 1 else 2 ** 26)
    ember.save({"version": 3}, path)  # the next save removes the killed writer's temporary
    assert os.listdir(tmp_path) == ["ckpt.pt"] and ember.load(path) == {"version": 3}


def _training_setup(seed=0):
    ember.manual_seed(seed)
    model = ember.nn.Sequential(ember.nn.Linear(6, 8), ember.nn.Tanh(), ember.nn.Linear(8, 3))
    opt = ember.optim.Adam(model.parameters(), lr=0.01, amsgrad=True, weight_decay=1e-3)
    sched = ember.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    return model, opt, sched


def _train(model, opt, sched, steps, start):
    for i in range(start, start + steps):
        g = ember.Generator().manual_seed(100 + i)
        x, y = ember.randn(16, 6, generator=g), ember.randint(0, 3, (16,), generator=g)
        opt.zero_grad()
        ember.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        sched.step()


@pytest.mark.parametrize("foreach", [False, True])
def test_optimizer_state_resumed_mid_training_from_a_file(tmp_path, foreach):
    """Train 5 steps, save model + optimizer + scheduler, load into fresh objects, train 5 more:
    bit-identical to 10 uninterrupted steps."""
    straight = _training_setup()
    straight[1].defaults["foreach"] = foreach
    for g in straight[1].param_groups:
        g["foreach"] = foreach
    _train(*straight, steps=10, start=0)

    model, opt, sched = _training_setup()
    for g in opt.param_groups:
        g["foreach"] = foreach
    _train(model, opt, sched, steps=5, start=0)
    ember.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                "scheduler": sched.state_dict()}, tmp_path / "mid.ckpt")
    ckpt = ember.load(tmp_path / "mid.ckpt")
    model2, opt2, sched2 = _training_setup(seed=1)  # other initial weights, fresh state
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["optimizer"])
    sched2.load_state_dict(ckpt["scheduler"])
    assert opt2.state_dict()["state"][0]["step"].item() == 5.0
    _train(model2, opt2, sched2, steps=5, start=5)
    for a, b in zip(straight[0].parameters(), model2.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert opt2.param_groups[0]["lr"] == straight[1].param_groups[0]["lr"]


def test_complex64_round_trips_and_reads_torchs_file(tmp_path):
    """safetensors' C64: ember's own checkpoints and torch's safetensors files."""
    z = ember.tensor([[1 + 2j, -3.5j]], dtype=ember.complex64)
    ember.save({"z": z}, tmp_path / "z.pt")
    got = ember.load(tmp_path / "z.pt")["z"]
    assert got.dtype == ember.complex64 and got.tolist() == z.tolist()
    torch_save_file({"w": torch.tensor([1 + 1j, 2 - 3j])}, str(tmp_path / "w.safetensors"))
    assert ember.load(tmp_path / "w.safetensors")["w"].tolist() == [1 + 1j, 2 - 3j]
    with pytest.raises(TypeError, match="cannot store an array of dtype complex128"):
        ember.save({"z": z.cdouble()}, tmp_path / "d.pt")


def _round_trip(lib, obj):
    buf = io.BytesIO()
    lib.save(obj, buf)
    buf.seek(0)
    return lib.load(buf)


def test_tensors_sharing_memory_load_sharing_it_as_torch():
    """Views of one storage (a tensor with its slices and reshapes, tied weights' state_dict
    entries) load sharing memory, as torch.load's do: a write through one shows in the others.
    Before, each loaded as its own copy, and load_state_dict(assign=True) untied the weights."""
    seen = []
    for lib in (torch, ember):
        x = lib.arange(12.0)
        loaded = _round_trip(lib, {"a": x, "b": x[2:6], "c": x.view(3, 4).t(), "d": x[1::3]})
        loaded["a"][3] = 100.0
        seen.append([loaded[k].tolist() for k in "abcd"] + [loaded["c"].stride()])
        emb = lib.nn.Embedding(5, 3)
        head = lib.nn.Linear(3, 5, bias=False)
        head.weight = emb.weight
        state = _round_trip(lib, {"emb": emb.state_dict(), "head": head.state_dict()})
        state["emb"]["weight"][0, 0] = 42.0
        assert state["head"]["weight"][0, 0].item() == 42.0
    assert seen[1] == seen[0]


def test_a_lone_slice_is_saved_without_the_rest_of_its_storage(tmp_path):
    big = ember.arange(100000.0)
    ember.save({"s": big[10:13]}, tmp_path / "s.pt")
    assert os.path.getsize(tmp_path / "s.pt") < 1000
    assert ember.load(tmp_path / "s.pt")["s"].tolist() == [10.0, 11.0, 12.0]


@pytest.mark.parametrize("view", [[0, [13], [1]], [-1, [2], [1]], [3, [2], [-6]],
                                  [0, [2, 2], [1]], [0, [-1], [1]], [0.5, [2], [1]],
                                  [0, [3, 5], [5, 1]], "x"])
def test_a_crafted_view_record_is_refused(tmp_path, view):
    """A view reaching outside its stored storage (or malformed) is refused with a clear error;
    it is never followed into memory it does not own."""
    import json
    path = tmp_path / "v.pt"
    record = {"tensor": "a", "view": view}
    np_save_file({"a": np.arange(12.0)}, str(path), metadata={"ember.save/1": json.dumps(record)})
    with pytest.raises(RuntimeError, match="view of 'a'|corrupt structure record"):
        ember.load(path)


def test_devices_and_bytes_round_trip_as_torch():
    obj = {"device": torch.device("cpu"), "index": torch.device("cuda", 1), "raw": b"\x00ab",
           "buf": bytearray(b"xy")}
    theirs = _round_trip(torch, obj)
    ours = _round_trip(ember, {"device": ember.device("cpu"), "index": ember.device("cuda", 1),
                               "raw": b"\x00ab", "buf": bytearray(b"xy")})
    assert {k: str(v) if "dev" in k or k == "index" else v for k, v in ours.items()} == \
        {k: str(v) if "dev" in k or k == "index" else v for k, v in theirs.items()}
    assert isinstance(ours["device"], ember.device) and isinstance(ours["buf"], bytearray)


def test_parameters_packed_in_one_buffer_stay_separate_tensors_in_the_file(tmp_path):
    """A fused optimizer packs the parameters (and its state) into one flat buffer; their
    memory does not overlap, so the file still names each tensor in its shape for any
    safetensors reader, and tied weights are stored once under the first name."""
    model = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.Linear(4, 2))
    opt = ember.optim.Adam(model.parameters(), fused=True)
    for _ in range(2):
        model(ember.randn(5, 3)).sum().backward()
        opt.step()
    ember.save(model.state_dict(), tmp_path / "m.safetensors")
    shapes = {k: tuple(v.shape) for k, v in torch_load_file(tmp_path / "m.safetensors").items()}
    assert shapes == {k: tuple(v.shape) for k, v in model.state_dict().items()}
    ember.save(opt.state_dict(), tmp_path / "o.safetensors")
    assert tuple(torch_load_file(tmp_path / "o.safetensors")["state.2.exp_avg"].shape) == (2, 4)
    emb = ember.nn.Embedding(5, 3)
    head = ember.nn.Linear(3, 5, bias=False)
    head.weight = emb.weight
    ember.save({"emb": emb.state_dict(), "head": head.state_dict()}, tmp_path / "t.safetensors")
    stored = torch_load_file(tmp_path / "t.safetensors")
    assert list(stored) == ["emb.weight"] and tuple(stored["emb.weight"].shape) == (5, 3)
