"""ember/_interop.py against torch 2.13: frombuffer (views, offsets, counts, its errors and its
read-only-buffer warning) and DLPack both ways (NumPy, torch)."""
import warnings

import numpy as np
import pytest
import torch

import ember


def test_frombuffer_shares_a_writable_buffer_as_torch():
    for lib in (torch, ember):
        buffer = bytearray(range(16))
        t = lib.frombuffer(buffer, dtype=lib.int32)
        t[0] = 7
        assert buffer[:4] == b"\x07\x00\x00\x00"
        assert t.tolist()[1:] == [117835012, 185207048, 252579084]
        assert lib.frombuffer(buffer, dtype=lib.int16, offset=2, count=3).tolist() == \
            np.frombuffer(bytes(buffer), np.int16, 3, 2).tolist()


def test_frombuffer_of_bytes_warns_as_torch():
    outs = []
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            t = lib.frombuffer(bytes(range(20)), dtype=lib.uint8, offset=4, count=8)
        outs.append((t.tolist(), str(t.dtype).split(".")[1],
                     [str(w.message).split(" (Triggered")[0] for w in record][:1]))
    assert outs[1][:2] == outs[0][:2]
    if outs[0][2]:  # torch warns once a process: compare when this process sees it
        assert outs[1][2] == outs[0][2]


@pytest.mark.parametrize("args", [
    (bytearray(13), "int32", -1, 0), (bytearray(16), "int32", -1, 3), (b"", "uint8", -1, 0),
    (bytearray(16), "int32", 10, 0), (bytearray(16), "float32", -1, 16),
    (bytearray(16), "float32", 0, 0)], ids=str)
def test_frombuffer_errors_as_torch(args):
    buffer, dtype, count, offset = args
    with pytest.raises(ValueError) as t_err:
        torch.frombuffer(buffer, dtype=getattr(torch, dtype), count=count, offset=offset)
    with pytest.raises(ValueError) as e_err:
        ember.frombuffer(buffer, dtype=getattr(ember, dtype), count=count, offset=offset)
    assert str(e_err.value) == str(t_err.value)


def test_dlpack_both_ways_shares_memory():
    a = np.arange(6.0).reshape(2, 3)
    e = ember.from_dlpack(a)
    e[0, 0] = 9.0
    assert a[0, 0] == 9.0
    t = torch.from_dlpack(e)  # torch takes ember's tensor through __dlpack__
    t[1, 1] = -1.0
    assert e[1, 1].item() == -1.0 and np.from_dlpack(e)[1, 1] == -1.0
    back = ember.from_dlpack(torch.arange(4))
    assert back.tolist() == [0, 1, 2, 3] and back.dtype is ember.int64
    capsule = ember.utils.dlpack.to_dlpack(ember.arange(3.0))
    assert torch.utils.dlpack.from_dlpack(capsule).tolist() == [0.0, 1.0, 2.0]


def test_dlpack_export_of_a_tensor_requiring_grad_as_torch():
    for lib in (torch, ember):
        with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
            lib.ones(2, requires_grad=True).__dlpack__()
