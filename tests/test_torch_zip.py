"""Loading torch.save's zip checkpoints as data (ember._torch_zip): what torch writes for state
dicts, optimizers and plain containers loads as torch loads it; a file that would need code run
to rebuild (a pickled class, os.system) is refused without running anything."""
import io
import os
import pickle
import random
import zipfile

import numpy as np
import pytest
import torch

import ember
from ember._checkpoint_file import CheckpointError


def _checkpoint():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    opt = torch.optim.Adam(m.parameters(), lr=0.01)
    m(torch.randn(5, 3)).sum().backward()
    opt.step()
    shared = torch.tensor([[1, -2], [3, 4]])
    return {"model": m.state_dict(), "opt": opt.state_dict(), "epoch": 7, "best": 0.93,
            "name": "run1", "flags": (True, None), "half": torch.arange(4, dtype=torch.float16),
            "bf16": torch.ones(2, dtype=torch.bfloat16) / 3,
            "view": torch.arange(12.0).view(3, 4).t()[1:], "int": shared, "again": shared,
            "bool": torch.tensor([True, False]), "complex": torch.tensor([1 + 2j]),
            "param": torch.nn.Parameter(torch.ones(2)), "empty": torch.zeros(0, 3),
            "scalar": torch.tensor(3.5), "bytes": b"\x00\xff", "set": {1, 2},
            "numpy": np.float64(1.25)}


def _same(e, t, path="obj"):
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), path
        assert type(e).__name__ == type(t).__name__, path
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], path
        assert tuple(e.shape) == tuple(t.shape) and e.requires_grad == t.requires_grad, path
        e, t = e.detach(), t.detach()
        np.testing.assert_array_equal(e.float().numpy() if t.dtype == torch.bfloat16 else
                                      e.numpy(), t.float().numpy() if t.dtype ==
                                      torch.bfloat16 else t.numpy(), err_msg=path)
    elif isinstance(t, dict):
        assert type(e) is type(t) and list(e) == list(t), path
        for k in t:
            _same(e[k], t[k], f"{path}[{k!r}]")
    elif isinstance(t, (list, tuple)):
        assert type(e) is type(t) and len(e) == len(t), path
        for i, (a, b) in enumerate(zip(e, t)):
            _same(a, b, f"{path}[{i}]")
    else:
        assert e == t and type(e) is type(t), path


def test_checkpoint_loads_as_torch_loads_it(tmp_path):
    path = tmp_path / "ckpt.pt"
    torch.save(_checkpoint(), path)
    t = torch.load(path, weights_only=False)
    e = ember.load(path)
    _same(e, t)
    assert e["again"] is e["int"]  # one object saved twice: one object loaded, as torch
    assert e["model"]._metadata == t["model"]._metadata
    m = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.BatchNorm1d(4))
    m.load_state_dict(e["model"])
    opt = ember.optim.Adam(m.parameters(), lr=0.01)
    opt.load_state_dict(e["opt"])
    with open(path, "rb") as f:  # a file object, and bytes in memory
        _same(ember.load(io.BytesIO(f.read()))["model"], t["model"])


def _zip_with(pkl, tmp_path, data=None, byteorder=b"little"):
    path = tmp_path / "crafted.pt"
    with zipfile.ZipFile(path, "w") as w:
        w.writestr("archive/data.pkl", pkl)
        w.writestr("archive/byteorder", byteorder)
        for key, raw in (data or {}).items():
            w.writestr(f"archive/data/{key}", raw)
    return path


class _Evil:
    def __reduce__(self):
        return (os.system, ("touch /tmp/ember_torch_zip_pwned",))


def test_code_in_the_stream_is_refused_not_run(tmp_path):
    marker = "/tmp/ember_torch_zip_pwned"
    if os.path.exists(marker):
        os.remove(marker)
    path = _zip_with(pickle.dumps({"x": _Evil()}, protocol=2), tmp_path)
    with pytest.raises(CheckpointError, match="an object built by posix.system"):
        ember.load(path)
    assert not os.path.exists(marker)


def test_a_pickled_module_is_refused_with_its_class(tmp_path):
    path = tmp_path / "model.pt"
    torch.save(torch.nn.Linear(2, 2), path)
    with pytest.raises(CheckpointError, match="torch.nn.modules.linear.Linear"):
        ember.load(path)


def _tensor_pickle(size, stride, offset=0, numel=4):
    """The stream torch writes for one float32 tensor, with the given geometry."""
    class Storage:
        def __reduce__(self):
            return (torch.FloatStorage, ())

    buf = io.BytesIO()

    class P(pickle.Pickler):
        def persistent_id(self, obj):
            return ("storage", torch.FloatStorage, "0", "cpu", numel) if obj == "S" else None

    class T:
        def __reduce__(self):
            return (torch._utils._rebuild_tensor_v2, ("S", offset, size, stride, False, {}))

    P(buf, protocol=2).dump(T())
    return buf.getvalue()


def test_tensor_geometry_is_checked_against_its_storage(tmp_path):
    raw = np.arange(4, dtype=np.float32).tobytes()
    ok = _zip_with(_tensor_pickle((2, 2), (2, 1)), tmp_path, {"0": raw})
    assert ember.load(ok).tolist() == [[0.0, 1.0], [2.0, 3.0]]
    for geometry in [((3, 2), (2, 1), 0), ((2, 2), (2, 1), 1), ((100,), (1,), 0),
                     ((2,), (-1,), 0)]:
        bad = _zip_with(_tensor_pickle(*geometry), tmp_path, {"0": raw})
        with pytest.raises(CheckpointError):
            ember.load(bad)
    short = _zip_with(_tensor_pickle((2, 2), (2, 1)), tmp_path, {"0": raw[:8]})
    with pytest.raises(CheckpointError, match="fewer than"):
        ember.load(short)


def test_big_endian_storages(tmp_path):
    raw = np.arange(4, dtype=">f4").tobytes()
    path = _zip_with(_tensor_pickle((4,), (1,)), tmp_path, {"0": raw}, byteorder=b"big")
    assert ember.load(path).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_compressed_members_refused(tmp_path):
    path = tmp_path / "deflated.pt"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as w:
        w.writestr("archive/data.pkl", pickle.dumps({"a": 1}, protocol=2))
    with pytest.raises(CheckpointError, match="compressed member"):
        ember.load(path)


def test_corrupted_files_fail_with_checkpoint_error(tmp_path):
    path = tmp_path / "ckpt.pt"
    torch.save(_checkpoint(), path)
    blob = path.read_bytes()
    rng = random.Random(0)
    for _ in range(300):
        b = bytearray(blob)
        for _ in range(rng.randint(1, 3)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        try:
            ember.load(io.BytesIO(bytes(b)))
        except CheckpointError:
            pass


def test_an_expanded_view_cannot_blow_up_memory(tmp_path):
    raw = np.arange(4, dtype=np.float32).tobytes()
    ok = _zip_with(_tensor_pickle((3, 4), (0, 1)), tmp_path, {"0": raw})
    assert ember.load(ok).tolist() == [[0.0, 1.0, 2.0, 3.0]] * 3
    bomb = _zip_with(_tensor_pickle((1 << 20, 1 << 20), (0, 0)), tmp_path, {"0": raw})
    with pytest.raises(CheckpointError, match="elements over a storage of 4"):
        ember.load(bomb)


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_tensors_of_dtypes_without_typed_storage_load(tmp_path, dtype):
    # torch writes them over an UntypedStorage (torch.storage) with _rebuild_tensor_v3 naming
    # the dtype: refused as an unknown storage type before
    path = tmp_path / "u.pt"
    t = torch.from_numpy(np.array([[1, 2, 60000], [7, 8, 9]], dtype=getattr(np, dtype)))
    torch.save({"x": t, "col": t[:, 1]}, path)
    loaded = ember.load(path)
    assert loaded["x"].dtype == getattr(ember, dtype)
    assert loaded["x"].tolist() == t.tolist() and loaded["col"].tolist() == t[:, 1].tolist()


def test_tensors_over_one_storage_share_it_after_loading(tmp_path):
    """torch.save writes one storage for a tensor and its views; ember.load gives tensors that
    share that memory, as torch.load does (each was its own copy)."""
    x = torch.arange(12.0)
    torch.save({"a": x, "b": x[2:6], "c": x.view(3, 4).t(), "e": x[:1].expand(4)},
               tmp_path / "v.pt")
    got = []
    for lib in (torch, ember):
        loaded = lib.load(tmp_path / "v.pt")
        loaded["a"][3] = 100.0
        got.append([loaded[k].tolist() for k in "abce"] + [loaded["c"].stride()])
    assert got[1] == got[0]
