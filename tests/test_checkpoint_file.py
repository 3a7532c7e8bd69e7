"""ember.load on crafted files: only ember's dtypes resolve, nesting is bounded, foreign dtypes and
pickles are refused clearly, and a non-checkpoint is rejected after reading only its start."""
import io
import json
import pickle

import numpy as np
import pytest
import torch
from safetensors.numpy import save_file as np_save_file
from safetensors.torch import load_file as torch_load_file
from safetensors.torch import save_file as torch_save_file

import ember
from ember._checkpoint_file import MAX_DEPTH, CheckpointError


def _craft(path, header, body=b""):
    """A safetensors file with exactly this header (a dict, or raw JSON text) and body."""
    text = header if isinstance(header, str) else json.dumps(header)
    raw = text.encode()
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + body)
    return path


def _with_structure(path, structure, arrays=None):
    text = structure if isinstance(structure, str) else json.dumps(structure)
    np_save_file(arrays or {"a": np.ones(2)}, str(path), metadata={"ember.save/1": text})
    return path


@pytest.mark.parametrize("name", ["__builtins__", "np", "_state", "dtype", "__loader__",
                                  "as_dtype", "_NAMES", ["float32"], 3])
def test_only_known_dtype_names_resolve(tmp_path, name):
    path = _with_structure(tmp_path / "c.pt", {"dtype": name})
    with pytest.raises(CheckpointError, match="unknown dtype"):
        ember.load(path)


@pytest.mark.parametrize("name", ["float32", "bool", "int64", "uint8", "float16", "double"])
def test_dtype_names_of_the_dtype_table_resolve(tmp_path, name):
    assert ember.load(_with_structure(tmp_path / "c.pt", {"dtype": name})) is getattr(
        ember, {"bool": "bool", "double": "float64"}.get(name, name))


def _nested(depth):
    obj = 1
    for i in range(depth):
        obj = [obj] if i % 3 else ({"k": obj} if i % 3 == 0 and i % 2 else (obj,))
    return obj


def test_nesting_up_to_the_limit_round_trips_and_beyond_it_save_refuses(tmp_path):
    deep = _nested(MAX_DEPTH)
    ember.save(deep, tmp_path / "deep.pt")
    assert ember.load(tmp_path / "deep.pt") == deep
    with pytest.raises(CheckpointError, match=f"limit of {MAX_DEPTH} levels"):
        ember.save(_nested(MAX_DEPTH + 1), tmp_path / "deeper.pt")
    with pytest.raises(CheckpointError, match=f"limit of {MAX_DEPTH} levels"):
        ember.save({("k",) * 1: _nested(MAX_DEPTH)}, tmp_path / "deeper.pt")
    assert not (tmp_path / "deeper.pt").exists()


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 100_000])
def test_deep_structure_records_are_rejected_naming_the_limit(tmp_path, levels):
    text = '{"list": [' * levels + "1" + "]}" * levels
    with pytest.raises(CheckpointError, match=f"limit of {MAX_DEPTH} levels"):
        ember.load(_with_structure(tmp_path / "c.pt", text))


def test_deep_header_is_rejected_naming_the_limit(tmp_path):
    path = _craft(tmp_path / "h.pt", '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(CheckpointError, match=f"limit of {MAX_DEPTH} levels"):
        ember.load(path)


@pytest.mark.parametrize("code", ["F8_E4M3", "F8_E5M2", "C128", "F4", "XYZ", 7])
def test_unsupported_safetensors_dtypes_are_refused(tmp_path, code):
    path = _craft(tmp_path / "f.pt", {"x": {"dtype": code, "shape": [2], "data_offsets": [0, 2]}},
                  b"\0\0")
    with pytest.raises(CheckpointError, match="does not support|bad header entry"):
        ember.load(path)


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.uint64])
def test_unsigned_foreign_tensors_load_as_torchs_unsigned_dtypes(tmp_path, dtype):
    # (refused before ember had torch's uint16/uint32/uint64)
    np_save_file({"x": np.arange(3, dtype=dtype)}, str(tmp_path / "u.pt"))
    loaded = ember.load(tmp_path / "u.pt")["x"]
    assert loaded.dtype == getattr(ember, np.dtype(dtype).name) and loaded.tolist() == [0, 1, 2]
    ember.save({"a": np.arange(3, dtype=dtype)}, tmp_path / "e.pt")
    got = ember.load(tmp_path / "e.pt")["a"]
    assert got.dtype == dtype and got.tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match="cannot store an array of dtype complex128"):
        ember.save({"a": np.zeros(2, np.complex128)}, tmp_path / "c.pt")


@pytest.mark.skipif(hasattr(ember, "bfloat16"), reason="this ember has bfloat16")
def test_bf16_without_bfloat16_says_what_to_install(tmp_path):
    torch_save_file({"w": torch.ones(2, dtype=torch.bfloat16)}, tmp_path / "b.safetensors")
    with pytest.raises(CheckpointError, match="'w' in bfloat16 .*pip install ml_dtypes"):
        ember.load(tmp_path / "b.safetensors")


@pytest.mark.skipif(not hasattr(ember, "bfloat16"), reason="ember.bfloat16 is not available")
def test_bf16_round_trips_with_torch(tmp_path):
    w = torch.randn(3, 4).to(torch.bfloat16)
    torch_save_file({"w": w}, tmp_path / "t.safetensors")
    got = ember.load(tmp_path / "t.safetensors")["w"]
    assert got.dtype == ember.bfloat16
    np.testing.assert_array_equal(got.float().numpy(), w.float().numpy())
    ember.save({"w": got}, tmp_path / "e.safetensors")
    back = torch_load_file(tmp_path / "e.safetensors")["w"]
    assert back.dtype == torch.bfloat16 and torch.equal(back, w)
    assert ember.load(tmp_path / "e.safetensors")["w"].dtype == ember.bfloat16


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickles_of_every_protocol_are_named(tmp_path, protocol):
    path = tmp_path / "p.pt"
    path.write_bytes(pickle.dumps({"w": [1.5, 2], "n": "x"}, protocol=protocol))
    with pytest.raises(CheckpointError, match="is a pickle.*ember never unpickles"):
        ember.load(path)


@pytest.mark.parametrize("text", [b"hello world, this is a text file\n" * 3, b"I love numbers\n",
                                  b"(not a pickle"])
def test_text_is_not_called_a_pickle(tmp_path, text):
    (tmp_path / "t.txt").write_bytes(text)
    with pytest.raises(CheckpointError, match="not a safetensors file") as info:
        ember.load(tmp_path / "t.txt")
    assert "pickle" not in str(info.value)


class _Counting(io.RawIOBase):
    """An endless stream of one byte that counts how much was read from it."""

    def __init__(self, byte=b"\0"):
        self.byte, self.read_bytes = byte, 0

    def readable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), 1 << 20)
        buffer[:n] = self.byte * n
        self.read_bytes += n
        return n


@pytest.mark.parametrize("byte", [b"\0", b"{", b"x"])
def test_endless_streams_are_rejected_after_reading_their_start(byte):
    stream = _Counting(byte)
    with pytest.raises(CheckpointError, match="not a safetensors file"):
        ember.load(stream)
    assert stream.read_bytes <= (1 << 20) + 9


def test_dev_zero_is_rejected_at_once():
    with pytest.raises(CheckpointError, match="not a safetensors file"):
        ember.load("/dev/zero")


def test_big_files_are_rejected_before_their_body_is_read(tmp_path):
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(400 << 20)  # sparse: costs no disk
    with open(big, "rb") as f:
        with pytest.raises(CheckpointError, match="not a safetensors file"):
            ember.load(f)
        assert f.tell() <= 1 << 17
    lying = _craft(tmp_path / "lying.pt", {"x": {"dtype": "F32", "shape": [1 << 28],
                                                 "data_offsets": [0, 1 << 30]}})
    with pytest.raises(CheckpointError, match="describes 1073741.* bytes, the file has"):
        ember.load(lying)
    huge_header = tmp_path / "hh.pt"
    huge_header.write_bytes((1 << 40).to_bytes(8, "little") + b"{}")
    with pytest.raises(CheckpointError, match="header says 1099511627776 bytes"):
        ember.load(huge_header)


@pytest.mark.parametrize("header,match", [
    ({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}, "does not fill"),
    ({"x": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, "bad header entry"),
    ({"x": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, "overlap or leave gaps"),
    ({"x": {"dtype": "F32", "shape": [1]}}, "bad header entry"),
    ({"x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
      "y": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, "overlap or leave gaps"),
    ({"__metadata__": [1]}, "bad __metadata__"), ([1, 2], "does not begin with an 8-byte header length")])
def test_inconsistent_headers(tmp_path, header, match):
    with pytest.raises(CheckpointError, match=match):
        ember.load(_craft(tmp_path / "x.pt", header, b"\0" * 8))


@pytest.mark.parametrize("value", [np.float64(1.5), np.float64("nan"), np.float32(2.5),
                                   np.int64(-3), np.int32(7), np.bool_(True), np.uint8(200)])
def test_numpy_scalars_keep_their_types(tmp_path, value):
    ember.save({"v": value, "l": [value]}, tmp_path / "s.pt")
    got = ember.load(tmp_path / "s.pt")
    for v in (got["v"], got["l"][0]):
        assert type(v) is type(value)
        np.testing.assert_array_equal(v, value)


def test_loaded_tensors_are_writable(tmp_path):
    ember.save({"a": ember.ones(3), "b": ember.zeros(2)}, tmp_path / "w.pt")
    got = ember.load(tmp_path / "w.pt")
    got["a"].add_(1)
    assert got["a"].tolist() == [2.0, 2.0, 2.0] and got["b"].tolist() == [0.0, 0.0]


def test_missing_file_errors_as_open_does(tmp_path):
    for lib in (torch, ember):
        with pytest.raises(FileNotFoundError) as info:
            lib.load(tmp_path / "absent.pt")
        assert info.value.errno == 2 and info.value.strerror == "No such file or directory"
