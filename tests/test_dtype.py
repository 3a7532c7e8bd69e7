"""The dtype table (ember/_dtype.py): names, promotion, finfo/iinfo and bfloat16, vs torch 2.13."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import ember

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64"]


@pytest.mark.parametrize("a", NAMES)
@pytest.mark.parametrize("b", NAMES)
def test_promote_types_matches_torch(a, b):
    e = ember.promote_types(getattr(ember, a), getattr(ember, b))
    assert e.name == str(torch.promote_types(getattr(torch, a), getattr(torch, b)))[6:]


@pytest.mark.parametrize("name", NAMES)
def test_table_names_match_torch(name):
    e, t = getattr(ember, name), getattr(torch, name)
    assert (e.is_floating_point, e.is_signed, e.itemsize) == \
        (t.is_floating_point, t.is_signed, t.itemsize)
    x_t = torch.zeros(1, dtype=t)
    assert ember.zeros(1, dtype=e).type() == x_t.type().replace("torch.", "ember.")
    method = e.scalar_name.lower()
    assert getattr(ember.ones(2), method)().dtype is e and hasattr(x_t, method)
    assert isinstance(ember.zeros(1, dtype=e), getattr(ember, f"{e.scalar_name}Tensor"))


def test_aliases_come_from_the_table():
    for alias in ("float", "double", "half", "long", "int", "short"):
        assert getattr(ember, alias).name == str(getattr(torch, alias))[6:]


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_finfo_matches_torch(name):
    e, t = ember.finfo(getattr(ember, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(e, field) == getattr(t, field), field
    assert e.dtype == t.dtype


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(name):
    e, t = ember.iinfo(getattr(ember, name)), torch.iinfo(getattr(torch, name))
    assert (e.bits, e.min, e.max, e.dtype) == (t.bits, t.min, t.max, t.dtype)
    with pytest.raises(TypeError):
        ember.finfo(getattr(ember, name))


# ---------------------------------------------------------------- float64 -> float16
# torch converts a double to half through float: doubles just past a float16 halfway point
# (1 + 2**-11 + 2**-40) become the halfway float32 and round to even; 65519.99... becomes 65520
# and then inf. A direct cast rounds them up to 1.0009765625 and 65504.
_NEAR_HALFWAY = [1 + 2**-11 + 2**-40, -(1 + 2**-11 + 2**-40), 2049 + 2**-30, 65519.99999999,
                 1.5 * 2**-24 + 2**-60, 0.1, 1e300, float("nan")]
_HALF_WRITES = {
    "half": lambda m, x: x.half(),
    "to": lambda m, x: x.to(m.float16),
    "type": lambda m, x: x.type(m.HalfTensor),
    "copy_": lambda m, x: m.zeros(len(_NEAR_HALFWAY), dtype=m.float16).copy_(x),
    "setitem": lambda m, x: _setitem(m.zeros(len(_NEAR_HALFWAY), dtype=m.float16), x),
    "setitem_float": lambda m, x: _setitem(m.zeros(1, dtype=m.float16), _NEAR_HALFWAY[0]),
    "tensor": lambda m, x: m.tensor(_NEAR_HALFWAY, dtype=m.float16),
    "tensor_numpy": lambda m, x: m.tensor(np.array(_NEAR_HALFWAY), dtype=m.float16),
    "as_tensor_numpy": lambda m, x: m.as_tensor(np.array(_NEAR_HALFWAY), dtype=m.float16),
    "new_tensor": lambda m, x: x.new_tensor(_NEAR_HALFWAY, dtype=m.float16),
    "full": lambda m, x: m.full((2,), _NEAR_HALFWAY[0], dtype=m.float16),
    "fill_": lambda m, x: m.zeros(2, dtype=m.float16).fill_(_NEAR_HALFWAY[0]),
    "grad_to": lambda m, x: x.clone().requires_grad_().half(),
}


def _setitem(target, value):
    target[:] = value
    return target


@pytest.mark.parametrize("write", sorted(_HALF_WRITES))
def test_float64_to_float16_rounds_through_float32_as_torch(write):
    with np.errstate(over="raise", invalid="raise"):  # no NumPy warning (overflow) leaks
        e = _HALF_WRITES[write](ember, ember.tensor(_NEAR_HALFWAY, dtype=ember.float64))
    t = _HALF_WRITES[write](torch, torch.tensor(_NEAR_HALFWAY, dtype=torch.float64))
    assert e.dtype is ember.float16
    np.testing.assert_array_equal(_bits(e.detach()), _bits(t.detach()))


# ---------------------------------------------------------------- bfloat16
def _bits(x):
    return x.view(torch.int16).numpy() if isinstance(x, torch.Tensor) else \
        x.numpy().view(np.int16)


def _values(seed, n=4000):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)


@pytest.mark.parametrize("source", ["float32", "float64", "float16"])
def test_bfloat16_casts_round_as_torch(source):
    x = _values(0)
    if source == "float16":
        x = np.clip(x, -6e4, 6e4)
    e = ember.tensor(x, dtype=getattr(ember, source))
    t = torch.tensor(x, dtype=getattr(torch, source))
    np.testing.assert_array_equal(_bits(e.to(ember.bfloat16)), _bits(t.to(torch.bfloat16)))
    np.testing.assert_array_equal(_bits(e.bfloat16()), _bits(t.bfloat16()))
    back = e.bfloat16().float()
    np.testing.assert_array_equal(back.numpy(), t.bfloat16().float().numpy())
    assert back.dtype is ember.float32


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_bfloat16_arithmetic_is_bit_exact(op):
    x, y = np.clip(_values(1), -1e30, 1e30), np.clip(_values(2), -1e30, 1e30)
    with np.errstate(all="ignore"):
        e = getattr(ember, op)(ember.tensor(x).bfloat16(), ember.tensor(y).bfloat16())
    t = getattr(torch, op)(torch.tensor(x).bfloat16(), torch.tensor(y).bfloat16())
    assert e.dtype is ember.bfloat16
    np.testing.assert_array_equal(_bits(e), _bits(t))


def test_bfloat16_mixed_operands_promote_as_torch():
    x = np.linspace(-3, 3, 7)
    for other in ("float16", "float32", "float64", "int64"):
        e = ember.tensor(x).bfloat16() * ember.tensor(x).to(getattr(ember, other))
        t = torch.tensor(x).bfloat16() * torch.tensor(x).to(getattr(torch, other))
        assert e.dtype.name == str(t.dtype)[6:]
        np.testing.assert_array_equal(e.float().numpy(), t.float().numpy())
    e, t = ember.tensor(x).bfloat16() * 2, torch.tensor(x).bfloat16() * 2
    assert e.dtype is ember.bfloat16 and e.float().tolist() == t.float().tolist()


def test_bfloat16_prints_as_torch():
    x = [1.1, 2.7, -3.3e-3, 250.0]
    assert repr(ember.tensor(x).bfloat16()) == \
        repr(torch.tensor(x).bfloat16()).replace("torch.", "ember.")
    assert ember.tensor(x).bfloat16().is_floating_point()


def test_bfloat16_without_ml_dtypes_names_the_extra(tmp_path):
    script = tmp_path / "script.py"
    script.write_text("import sys\nsys.modules['ml_dtypes'] = None\nimport ember\n"
                      "x = ember.ones(2)\n"
                      "try:\n    x.bfloat16()\nexcept ImportError as error:\n    print(error)\n")
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env={"PYTHONPATH": str(root), "PATH": ""}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "ml_dtypes" in done.stdout and "ember[bf16]" in done.stdout


def test_bfloat16_from_python_floats_rounds_as_torch():
    # 1 + 2^-8 + 2^-30 rounds through float32 first in both (to 1.0, not 1.0078125)
    values = [1 + 2 ** -8 + 2 ** -30, 0.1, 1 / 3, 1e-40, 3.4e38, -2.5]
    for make in (lambda lib: lib.tensor(values, dtype=lib.bfloat16),
                 lambda lib: lib.tensor(values, dtype=lib.float64).to(lib.bfloat16),
                 lambda lib: lib.full((2,), values[0], dtype=lib.bfloat16)):
        e, t = make(ember), make(torch)
        assert e.dtype is ember.bfloat16
        np.testing.assert_array_equal(_bits(e), _bits(t))


COMPLEX = ["complex64", "complex128"]


@pytest.mark.parametrize("a", COMPLEX)
@pytest.mark.parametrize("b", NAMES + COMPLEX)
def test_complex_promotion_matches_torch(a, b):
    e = ember.promote_types(getattr(ember, a), getattr(ember, b))
    assert e.name == str(torch.promote_types(getattr(torch, a), getattr(torch, b)))[6:]
    assert ember.promote_types(getattr(ember, b), getattr(ember, a)) is e


@pytest.mark.parametrize("make", [
    lambda L: L.ones(2) + 1j, lambda L: L.ones(2, dtype=L.float64) + 1j,
    lambda L: L.ones(2, dtype=L.int64) * 1j, lambda L: L.ones(2) + L.tensor(1j, dtype=L.cdouble),
    lambda L: L.ones(2, dtype=L.float64) + L.tensor(1j), lambda L: L.ones(2, dtype=L.cfloat) / 3,
    lambda L: L.ones(2, dtype=L.cfloat) * L.tensor(2.5, dtype=L.float64), lambda L: L.tensor(1 + 2j),
    lambda L: L.tensor([1, 2j]), lambda L: L.tensor([True, 2.5, 1j]), lambda L: L.full((2,), 1j),
    lambda L: L.arange(3) / L.tensor(1j), lambda L: L.tensor([1j]).to(L.cdouble) + 1.5,
])
def test_complex_result_dtypes_match_torch(make):
    assert str(make(ember).dtype)[6:] == str(make(torch).dtype)[6:]


def test_python_complex_follows_the_default_dtype():
    for lib in (ember, torch):
        lib.set_default_dtype(lib.float64)
        try:
            assert lib.tensor(1 + 2j).dtype == lib.complex128
            assert (lib.ones(2, dtype=lib.int32) + 1j).dtype == lib.complex128
        finally:
            lib.set_default_dtype(lib.float32)


def test_complex_dtype_attributes_match_torch():
    for name in COMPLEX + ["complex32"]:
        e, t = getattr(ember, name), getattr(torch, name)
        assert (e.is_complex, e.is_floating_point, e.is_signed, e.itemsize) == \
            (t.is_complex, t.is_floating_point, t.is_signed, t.itemsize)
        assert str(e.to_real())[6:] == str(t.to_real())[6:]
        assert repr(ember.finfo(e)) == repr(torch.finfo(t))
    assert ember.float64.to_complex() is ember.cdouble and ember.float32.is_complex is False
    assert ember.zeros(1, dtype=ember.cfloat).type() == "ember.ComplexFloatTensor"


def test_complex32_is_named_but_refused():
    with pytest.raises(TypeError, match="ember has no complex32"):
        ember.zeros(2, dtype=ember.complex32)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "complex64"])
@pytest.mark.parametrize("value", [65519.99, 65520.0, 7e4, 1e39, 1 + 2 ** -11 + 2 ** -40])
def test_numbers_into_low_precision_as_torch(dtype, value):
    """full / fill_ / setitem take a float16-or-bfloat16 overflow as inf and round a double
    through float32 (torch: double -> float -> half); masked_fill refuses the overflow; float32
    and complex64 refuse a value past float32's range everywhere."""
    def outcomes(lib):
        d = getattr(lib, dtype)
        calls = [lambda: lib.full((1,), value, dtype=d), lambda: lib.zeros(1, dtype=d).fill_(value),
                 lambda: lib.zeros(1, dtype=d).masked_fill(lib.tensor([True]), value)]
        out = []
        for call in calls:
            try:
                out.append(complex(call().item()))
            except RuntimeError:
                out.append("RuntimeError")
        x = lib.zeros(1, dtype=d)
        try:
            x[0] = value
            out.append(complex(x.item()))
        except RuntimeError:
            out.append("RuntimeError")
        return out
    assert outcomes(ember) == outcomes(torch)


BF16_NAN_CALLS = {
    "sort": lambda L, t: t.sort(), "argsort": lambda L, t: t.argsort(), "msort": lambda L, t: t.msort(),
    "topk": lambda L, t: t.topk(2), "kthvalue": lambda L, t: t.kthvalue(2), "median": lambda L, t: t.median(),
    "median_dim": lambda L, t: t.median(0), "nanmedian": lambda L, t: t.nanmedian(),
    "mode": lambda L, t: t.mode(), "unique": lambda L, t: t.unique(), "cummax": lambda L, t: t.cummax(0),
    "cummin": lambda L, t: t.cummin(0), "nan_to_num": lambda L, t: t.nan_to_num(),
    "gt": lambda L, t: t > 0, "le": lambda L, t: t <= t.flip(0), "fmod": lambda L, t: t.fmod(0.3),
    "searchsorted": lambda L, t: L.searchsorted(L.tensor([0.0, 1.0]).bfloat16(), t),
    "bucketize": lambda L, t: L.bucketize(t, L.tensor([0.0, 1.0]).bfloat16()),
}


@pytest.mark.parametrize("name", sorted(BF16_NAN_CALLS))
def test_bfloat16_with_nan_as_torch(name):
    """(NumPy's comparisons of ml_dtypes' bfloat16 order NaN arbitrarily and warn: sorts, order
    statistics, unique and searchsorted gave other values and indices than torch, nan_to_num
    left NaN and inf, comparisons warned; fmod read its number unrounded)"""
    def run(lib):
        t = lib.tensor([1.0, np.nan, -2.0, np.inf, 0.5, -np.inf, 0.0, np.nan]).bfloat16()
        out = BF16_NAN_CALLS[name](lib, t)
        parts = out if isinstance(out, tuple) else (out,)
        return [p.float().tolist() if p.is_floating_point() else p.tolist() for p in parts]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy warning may leak, as torch prints none
        got = run(ember)
    assert repr(got) == repr(run(torch))


@pytest.mark.parametrize("shape, dim", [((1000,), 0), ((8, 4096), 1), ((4096, 8), 0),
                                        ((3, 5, 300), 2)])
@pytest.mark.parametrize("name", ["sum", "mean", "cumsum", "sum_all"])
def test_float16_sums_accumulate_in_float32_as_torch(shape, dim, name):
    """(ember summed float16 in float16: a cumsum of 1000 values in [0, 3) was ~10% off torch's)"""
    x = (np.random.RandomState(0).rand(*shape) * 3).astype(np.float16)
    call = {"sum": lambda t: t.sum(dim), "mean": lambda t: t.mean(dim),
            "cumsum": lambda t: t.cumsum(dim), "sum_all": lambda t: t.sum()}[name]
    ours, theirs = call(ember.tensor(x)), call(torch.tensor(x))
    assert ours.dtype is ember.float16
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


# ---------------------------------------------------------------- torch's barebones unsigned dtypes
def _u16_cases(L):
    x = L.from_numpy(np.array([1, 2, 60000], np.uint16))
    return {
        "mul": lambda: x * 2, "sum": lambda: x.sum(), "float": lambda: x.float(),
        "to": lambda: L.ones(2).to(L.uint16), "eq": lambda: x == 1, "cat": lambda: L.cat([x, x]),
        "index": lambda: x[1:], "sort": lambda: x.sort()[0], "repr": lambda: repr(x),
        "zeros": lambda: L.zeros(2, dtype=L.uint32), "div": lambda: x / 2, "and": lambda: x & 1,
        "promote": lambda: L.promote_types(L.uint16, L.int16),
        "mixed": lambda: L.ones(2, dtype=L.uint32) + L.ones(2, dtype=L.int64),
        "u64 max": lambda: L.tensor([2 ** 64 - 1], dtype=L.uint64), "item": lambda: x[2].item(),
        "view": lambda: x.view(L.int16), "iinfo": lambda: repr(L.iinfo(L.uint16)),
        "signed": lambda: L.uint16.is_signed, "itemsize": lambda: L.uint64.itemsize,
        "from list of arrays": lambda: L.tensor(np.ones(2, np.uint32)),
        "with float": lambda: [str(L.promote_types(L.uint16, d)) for d in (L.float16, L.float64)],
        "cat float": lambda: L.cat([x, L.ones(2)]),
        "u64 numpy": lambda: L.from_numpy(np.array([2 ** 63 + 5], np.uint64)),
    }


@pytest.mark.parametrize("name", sorted(_u16_cases(torch)))
def test_uint16_uint32_uint64_as_torch(name):
    # ember had no uint16/uint32/uint64: from_numpy of a 16-bit image raised TypeError
    out = []
    for L in (torch, ember):
        try:
            r = _u16_cases(L)[name]()
            out.append((str(r.dtype).split(".")[-1], r.tolist()) if hasattr(r, "tolist") and
                       hasattr(r, "dtype") else str(r).replace("torch.", "").replace("ember.", ""))
        except RuntimeError as e:
            out.append(str(e))
    assert out[1] == out[0]


@pytest.mark.parametrize("src", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("dst", ["uint8", "int8", "int16", "int32", "int64", "bool"])
def test_float_to_integer_casts_past_the_range_as_torch(src, dst):
    # torch's CPU cast of a double to uint8 goes through int64 (wrapping modulo 256); NumPy's
    # direct cast gave 0 for 1991 of 3009 such values
    rng = np.random.default_rng(0)
    v = np.concatenate([rng.integers(-2 ** 40, 2 ** 40, 500).astype(float),
                        rng.standard_normal(500) * 1e5,
                        [1e30, -1e30, 2.0 ** 63, 2.0 ** 64, 300.7, -300.7, 255.9, -0.9, np.nan]])
    out = [L.tensor(v).to(getattr(L, src)).to(getattr(L, dst)).numpy() for L in (torch, ember)]
    np.testing.assert_array_equal(out[1], out[0])
