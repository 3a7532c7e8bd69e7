"""default_collate / default_convert against torch's, value by value and dtype by dtype."""
import collections

import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import ember
import ember.utils.data as edata

Point = collections.namedtuple("Point", "x y")


def same(e, t):
    """Recursively compare an ember batch with a torch batch (structure, values, dtypes)."""
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), f"{type(e)} vs torch.Tensor"
        assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
        np.testing.assert_array_equal(e.numpy(), t.numpy())
    elif isinstance(t, dict):
        assert type(e) is type(t) and e.keys() == t.keys()
        for k in t:
            same(e[k], t[k])
    elif isinstance(t, (list, tuple)):
        assert type(e) is type(t) and len(e) == len(t), f"{type(e)} vs {type(t)}"
        for a, b in zip(e, t):
            same(a, b)
    else:
        assert e == t


def batch_for(lib, kind):
    f = np.arange(6, dtype=np.float32).reshape(3, 2)
    return {
        "ints": [1, 2, 3], "floats": [1.0, 2.5], "bools": [True, False],
        "np_scalars": [np.float32(1), np.float32(2)], "np_int": [np.int16(1), np.int16(4)],
        "arrays": [f[0], f[1], f[2]], "tensors": [lib.tensor(f[0]), lib.tensor(f[1])],
        "tuples": [(1, "a", f[0]), (2, "b", f[1])], "lists": [[1, 2.0], [3, 4.0]],
        "dicts": [{"x": 1, "y": f[0]}, {"x": 2, "y": f[1]}],
        "namedtuples": [Point(1, 2.0), Point(3, 4.0)], "strings": ["a", "b"],
        "nested": [{"p": (lib.tensor([1]), [1.5])}, {"p": (lib.tensor([2]), [2.5])}],
    }[kind]


KINDS = ["ints", "floats", "bools", "np_scalars", "np_int", "arrays", "tensors", "tuples",
         "lists", "dicts", "namedtuples", "strings", "nested"]


@pytest.mark.parametrize("kind", KINDS)
def test_default_collate_matches_torch(kind):
    same(edata.default_collate(batch_for(ember, kind)), tdata.default_collate(batch_for(torch, kind)))


@pytest.mark.parametrize("batch", [[object()], [np.array(["a"])]])
def test_default_collate_type_errors_match_torch(batch):
    with pytest.raises(TypeError) as t_info:
        tdata.default_collate(batch)
    with pytest.raises(TypeError) as e_info:
        edata.default_collate(batch)
    assert str(e_info.value) == str(t_info.value)


def test_default_collate_unequal_lists():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal"):
        edata.default_collate([[1, 2], [3]])


@pytest.mark.parametrize("data", [np.arange(3), np.float64(2.0), (np.arange(2), "s"),
                                  {"a": np.ones(2)}, [1, 2], "text"])
def test_default_convert_matches_torch(data):
    same(edata.default_convert(data), tdata.default_convert(data))


def test_samples_of_different_shapes_error_as_torch():
    from oracle import same_error
    for batch in ([[1.0, 2.0], [3.0, 4.0, 5.0]], [[1.0, 2.0], [[3.0], [4.0]]]):
        same_error(lambda lib, b=batch: list(lib.utils.data.DataLoader(
            [lib.tensor(x) for x in b], batch_size=2)))
        same_error(lambda lib, b=batch: list(lib.utils.data.DataLoader(
            [np.array(x) for x in b], batch_size=2)))
    same_error(lambda lib: lib.utils.data.TensorDataset(lib.ones(3), lib.ones(4)))


def test_tensors_of_different_dtypes_collate_with_torch_promotion():
    # NumPy's stack promoted float32 with int64 to float64 (torch: float32)
    for batch in ([(1.0, "float32"), (2, "int64")], [(1, "int8"), (2, "uint8")],
                  [(1.0, "float16"), (2, "int64")], [(1.0, "float32"), (2.0, "float64")]):
        out = []
        for L, collate in ((torch, tdata.default_collate), (ember, ember.utils.data.default_collate)):
            r = collate([L.tensor(v, dtype=getattr(L, d)) for v, d in batch])
            out.append((str(r.dtype).split(".")[-1], r.tolist()))
        assert out[0] == out[1]
