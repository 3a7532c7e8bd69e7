"""ember.random draws torch's CPU stream: rand/randn/normal/uniform_/normal_ equal torch's for the
same seed (to the last bit of libm's log/sin/cos), state save/restore, generators."""
import numpy as np
import pytest
import torch

import ember
from tests.kernels import NUMPY_AVX512, assert_as_torch_kernel


def _both(fn, seed):
    ember.manual_seed(seed)
    torch.manual_seed(seed)
    return fn(ember).numpy(), fn(torch).numpy()


@pytest.mark.parametrize("seed", [0, 1, 123456789, -5])
@pytest.mark.parametrize("shape", [(1,), (5,), (15,), (16,), (17,), (100, 1), (7, 9)], ids=str)
def test_randn_rand_match_torch(seed, shape):
    e, t = _both(lambda lib: lib.randn(*shape, dtype=lib.float64), seed)
    np.testing.assert_allclose(e, t, rtol=1e-15, atol=1e-15)  # libm's last bit may differ
    e, t = _both(lambda lib: lib.randn(*shape), seed)
    np.testing.assert_allclose(e, t, rtol=0, atol=3e-7)
    e, t = _both(lambda lib: lib.rand(*shape), seed)
    np.testing.assert_array_equal(e, t)
    e, t = _both(lambda lib: lib.rand(*shape, dtype=lib.float64), seed)
    np.testing.assert_array_equal(e, t)


def test_interleaved_draws_and_normal_cache_match_torch():
    def draws(lib):
        parts = [lib.randn(3), lib.rand(2), lib.randn(1), lib.randn(20), lib.randn(3),
                 lib.empty(4, 5).uniform_(-2, 3), lib.empty(3).normal_(1.0, 2.0),
                 lib.normal(0.5, 2.0, size=(18,)), lib.randn(2, dtype=lib.float64).float()]
        return lib.cat([p.reshape(-1) for p in parts])
    e, t = _both(draws, 7)
    np.testing.assert_allclose(e, t, rtol=0, atol=1e-6)


def test_module_init_matches_torch():
    def weights(lib):
        model = lib.nn.Sequential(lib.nn.Linear(5, 4), lib.nn.Linear(4, 2))
        return lib.cat([p.detach().reshape(-1) for p in model.parameters()])
    e, t = _both(weights, 0)
    np.testing.assert_array_equal(e, t)


def test_fresh_generators_start_from_torchs_default_seed():
    g_e, g_t = ember.Generator(), torch.Generator()
    assert g_e.initial_seed() == g_t.initial_seed()
    np.testing.assert_array_equal(ember.rand(4, generator=g_e).numpy(),
                                  torch.rand(4, generator=g_t).numpy())


def test_state_round_trip_includes_the_cached_normal():
    ember.manual_seed(3)
    ember.randn(1)  # leaves the second normal of the pair cached
    state = ember.get_rng_state()
    first = ember.randn(5).numpy().copy()
    ember.set_rng_state(state)
    np.testing.assert_array_equal(ember.randn(5).numpy(), first)


def test_randint_randperm_random_match_torch():
    def draws(lib):
        parts = [lib.randint(0, 10, (8,)), lib.randint(3, 1000, (2, 3)), lib.randint(5, (4,)),
                 lib.randperm(1), lib.randperm(7), lib.randperm(100),
                 lib.empty((), dtype=lib.int64).random_().reshape(1),
                 lib.empty(3, dtype=lib.int64).random_(10, 20),
                 lib.empty(3).random_(5).long(), lib.randint(0, 2 ** 40, (3,))]
        return lib.cat([p.reshape(-1) for p in parts])
    e, t = _both(draws, 11)
    np.testing.assert_array_equal(e, t)


def test_dataloader_style_shuffle_matches_torch():
    def order(lib):
        seed = int(lib.empty((), dtype=lib.int64).random_().item())
        g = lib.Generator()
        g.manual_seed(seed)
        return lib.randperm(50, generator=g)
    e, t = _both(order, 0)
    np.testing.assert_array_equal(e, t)


def test_bernoulli_and_dropout_masks_match_torch():
    p = np.linspace(0.05, 0.95, 40).astype(np.float32)
    e, t = _both(lambda lib: lib.bernoulli(lib.tensor(p)), 5)
    np.testing.assert_array_equal(e, t)
    e, t = _both(lambda lib: lib.bernoulli(lib.ones(30), p=0.3), 5)
    np.testing.assert_array_equal(e, t)
    e, t = _both(lambda lib: lib.nn.functional.dropout(lib.ones(6, 7), 0.4), 5)
    np.testing.assert_array_equal(e, t)
    x = np.linspace(-2, 2, 24).astype(np.float32)
    e, t = _both(lambda lib: lib.nn.functional.rrelu(lib.tensor(x), training=True), 5)
    np.testing.assert_allclose(e, t, rtol=1e-6)


def _weights(seed, shape):
    rng = np.random.default_rng(seed)
    return rng.random(shape) * (rng.random(shape) > 0.3) + 1e-3  # some near-zero categories


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(7,), (3, 12), (1, 300)], ids=str)
@pytest.mark.parametrize("num_samples,replacement", [(1, False), (1, True), (5, True),
                                                     (5, False), (40, True)])
def test_multinomial_draws_torch_stream(dtype, shape, num_samples, replacement):
    if not replacement and num_samples > shape[-1]:
        pytest.skip("more samples than categories")
    for seed in range(20):
        w = _weights(seed, shape)

        def draw(lib):
            out = lib.multinomial(lib.tensor(w, dtype=getattr(lib, dtype)), num_samples,
                                  replacement)
            return out, lib.rand(3)  # the generator's state after it matches too

        ember.manual_seed(seed)
        torch.manual_seed(seed)
        (e, e_next), (t, t_next) = draw(ember), draw(torch)
        assert e.tolist() == t.tolist() and e.dtype == ember.int64, (seed, w)
        assert e_next.tolist() == t_next.tolist()


def test_multinomial_half_with_replacement_and_generator():
    for seed in range(10):
        w = _weights(seed, (4, 9))
        e = ember.multinomial(ember.tensor(w, dtype=ember.float16), 6, True,
                              generator=ember.Generator().manual_seed(seed))
        t = torch.multinomial(torch.tensor(w, dtype=torch.float16), 6, True,
                              generator=torch.Generator().manual_seed(seed))
        assert e.tolist() == t.tolist()


def test_exponential_draws_match_torch():
    for dtype in ("float16", "float32", "float64"):
        # NumPy's AVX512 float64 log (SVML) is not glibc's: an ulp apart there
        exact = dtype != "float64" or not NUMPY_AVX512
        e, t = _both(lambda lib: lib.empty(500, dtype=getattr(lib, dtype)).exponential_(), 3)
        assert_as_torch_kernel(e, t, np.asarray, exact=exact, rtol=4e-16, atol=0)
        e, t = _both(lambda lib: lib.empty(5, dtype=getattr(lib, dtype)).exponential_(2.5), 4)
        assert_as_torch_kernel(e, t, np.asarray, exact=exact, rtol=4e-16, atol=0)


@pytest.mark.parametrize("args", [
    ([1.0, 2.0], 3), ([0.0, 0.0], 1), ([-1.0, 2.0], 1), ([float("nan"), 2.0], 1, True),
    ([[[1.0]]], 1), ([1, 2], 1), ([0.0, 0.0], 2, True), ([1.0, 2.0], 0), (1.0, 1)], ids=str)
def test_multinomial_errors_as_torch(args):
    data, rest = args[0], args[1:]
    with pytest.raises(RuntimeError) as t_err:
        torch.multinomial(torch.tensor(data), *rest)
    with pytest.raises(RuntimeError) as e_err:
        ember.multinomial(ember.tensor(data), *rest)
    assert str(e_err.value) == str(t_err.value)


@pytest.mark.parametrize("offset", [-1, 0, 1])
def test_bernoulli_at_threshold_ties_matches_torch(offset):
    # p chosen so that p * 2**53 lands next to one drawn 53-bit value: its 21 high bits tie
    # with the threshold's, and the low 32 bits decide
    n, seed = 4096, 11
    raw = ember.Generator().manual_seed(seed)._bits.random_raw(2 * n)
    bits = ((int(raw[200]) & 0x1FFFFF) << 32) | int(raw[201])
    p = (bits + offset) * 2.0 ** -53
    torch.manual_seed(seed)
    expected = torch.bernoulli(torch.empty(n, dtype=torch.float64), p).numpy()
    ember.manual_seed(seed)
    got = ember.bernoulli(ember.empty(n, dtype=ember.float64), p).numpy()
    np.testing.assert_array_equal(got, expected)
    assert got[100] == float(offset > 0)


def test_import_does_not_load_numpy_random_and_the_lazy_stream_is_torchs():
    """The default generator builds its Mersenne Twister on first draw (import time); a reseed
    before that draw, or between draws, gives torch's stream all the same."""
    import subprocess
    import sys
    code = ("import sys, ember; assert 'numpy.random' not in sys.modules; "
            "g = ember.Generator(); g.manual_seed(7); g.manual_seed(11); "
            "print([ember.rand(3, generator=g).tolist(), ember.rand(2).tolist()]); "
            "print(ember.initial_seed())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    draws, seed = out.stdout.split("\n")[:2]
    g = torch.Generator().manual_seed(11)
    torch.manual_seed(int(seed))  # the process's own start-up seed
    assert draws == str([torch.rand(3, generator=g).tolist(), torch.rand(2).tolist()])


def test_default_generator_is_seeded_per_process_and_a_new_generator_is_not():
    """As torch: the default generator's start-up seed comes from the OS (a 64-bit value, other
    in every process), a new Generator() starts from torch's fixed seed."""
    import subprocess
    import sys
    code = "import ember; print(ember.initial_seed(), ember.randn(3).tolist())"
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout for _ in range(2)]
    assert runs[0] != runs[1]
    assert all(0 <= int(r.split()[0]) < 2 ** 64 for r in runs)
    assert ember.Generator().initial_seed() == torch.Generator().initial_seed() == 67280421310721


def test_generator_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="'Generator' object has no attribute 'nope'"):
        ember.Generator().nope


@pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() != "AVX2",
                    reason="torch draws float32 normals with its AVX2 kernel only on AVX2 CPUs")
@pytest.mark.parametrize("seed", [0, 1, 123456789])
def test_float32_normals_equal_torchs_avx2_kernel_bit_for_bit(seed):
    def draws(lib):
        parts = [lib.randn(16), lib.randn(1000), lib.randn(33, 7), lib.randn(5),
                 lib.empty(4099).normal_(-0.7, 3.1), lib.normal(0.5, 0.02, size=(64, 65)),
                 lib.nn.Embedding(300, 16).weight.detach()]
        return lib.cat([p.reshape(-1) for p in parts])
    e, t = _both(draws, seed)
    np.testing.assert_array_equal(e, t)


def test_fused_multiply_add_rounds_once_also_at_float32_ties():
    from fractions import Fraction

    from ember.random import _fma32
    rng = np.random.default_rng(0)
    a = (rng.integers(2049, 4095, 500) | 1).astype(np.float32)  # odd products above 2**24:
    b = (rng.integers(4097, 8191, 500) | 1).astype(np.float32)  # halfway between float32s
    c = (rng.standard_normal(500) * 2.0 ** -40).astype(np.float32)
    got = _fma32(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        near = np.float32(float(exact))
        around = [np.nextafter(near, np.float32(-np.inf)), near,
                  np.nextafter(near, np.float32(np.inf))]
        assert g == min(around, key=lambda v: abs(Fraction(float(v)) - exact))


def _bits_equal(e, t):
    """Equal to the bit, the sign of zero included (assert_array_equal takes -0.0 == 0.0)."""
    assert e.dtype == t.dtype and e.shape == t.shape
    np.testing.assert_array_equal(e.view(np.uint8), t.view(np.uint8))


@pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() != "AVX2",
                    reason="torch draws float32 normals with its AVX2 kernel only on AVX2 CPUs")
@pytest.mark.parametrize("seed", [0, 5, 2**40 + 3])
@pytest.mark.parametrize("n", [16, 17, 31, 32, 47, 320, 4095, 4097, 65536, 65536 + 16 + 5, 140001])
def test_float32_normals_of_every_size_equal_torchs_to_the_bit(seed, n):
    # sizes off a multiple of 16 (the redrawn last block), and across the kernel's passes
    _bits_equal(*_both(lambda lib: lib.randn(n), seed))


@pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() != "AVX2",
                    reason="torch draws float32 normals with its AVX2 kernel only on AVX2 CPUs")
@pytest.mark.parametrize("mean,std", [(0.0, 1.0), (-0.7, 3.1), (0.0, 0.02), (1e-3, 1.0),
                                      (2.0, 0.0), (-0.0, 1.0)])
def test_float32_normal_with_mean_and_std_equals_torchs_to_the_bit(mean, std):
    for n in (16, 1000, 4099):
        _bits_equal(*_both(lambda lib: lib.empty(n).normal_(mean, std), 11))
        _bits_equal(*_both(lambda lib: lib.normal(mean, std, size=(n,)), 12))
    _bits_equal(*_both(lambda lib: lib.nn.init.trunc_normal_(lib.empty(40, 70), mean, std + 1),
                       13))
    _bits_equal(*_both(lambda lib: lib.normal(lib.arange(40.0), lib.arange(1.0, 41.0)), 14))


@pytest.mark.parametrize("std", [-1.0, -1.5, float("nan")])
def test_normal_with_negative_or_nan_std_raises_as_torch(std):
    ember.manual_seed(0)
    state = ember.get_rng_state()
    for call in (lambda lib: lib.empty(20).normal_(0.0, std),
                 lambda lib: lib.normal(0.0, std, size=(3,)),
                 lambda lib: lib.nn.init.normal_(lib.empty(3), 0.0, std)):
        with pytest.raises(RuntimeError) as expected:
            call(torch)
        with pytest.raises(RuntimeError, match=str(expected.value).replace(".", r"\.")):
            call(ember)
    np.testing.assert_array_equal(ember.get_rng_state().numpy(), state.numpy())  # no draw


@pytest.mark.slow
def test_box_muller_fma_steps_round_once_for_every_uniform(monkeypatch):
    """The kernel rounds each fused multiply-add's float64 sum to float32 without a halfway
    check (_fma_wide), or takes it as a float32 product and sum (_fma_exact); with both
    replaced by a once-rounding fma (_fma32) its output stays the same to the bit, for every
    one of the 2**24 uniforms on both the radius and the angle side."""
    from ember import random as rnd

    def fused(a, b, c, out, wide=None):
        out[...] = rnd._fma32(a, b, c)
    k = np.arange(1 << 24, dtype=np.float32).reshape(-1, 8)
    rows = np.concatenate([k, k[::-1]], axis=1)  # radius side up, angle side down
    zero_radius = np.zeros((4096, 16), np.float32)  # a zero radius with angles of every octant
    zero_radius[:, 8:] = np.linspace(0, 2**24 - 1, 4096 * 8).astype(np.int64).reshape(-1, 8)
    for part in [*np.array_split(rows, 16), zero_radius]:
        fast = rnd._box_muller_f32(part, np.empty(part.shape, np.float32))
        with monkeypatch.context() as patch:
            patch.setattr(rnd, "_fma_wide", fused)
            patch.setattr(rnd, "_fma_exact", fused)
            exact = rnd._box_muller_f32(part, np.empty(part.shape, np.float32))
        _bits_equal(fast, exact)


@pytest.mark.parametrize("shape", [(3,), (16,), (17,), (7, 9), (100,), (4097,)])
def test_bfloat16_normal_follows_torchs_stream(shape):
    """bfloat16 normals: float32 Box-Muller blocks cast down, the redrawn last block drawn
    right after the full ones (torch's bfloat16 kernel), and the stream after them."""
    pytest.importorskip("ml_dtypes")
    outs = []
    for lib in (torch, ember):
        lib.manual_seed(3)
        a = lib.randn(*shape, dtype=lib.bfloat16)
        b = lib.empty(*shape, dtype=lib.bfloat16).normal_(0.5, 2.0)
        outs.append((a.float().numpy(), b.float().numpy(), lib.randn(5).numpy()))
    for t, e in zip(*outs):
        np.testing.assert_array_equal(e, t)


@pytest.mark.parametrize("n", [3, 16, 17, 40])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_draws_match_torchs_stream(n, dtype):
    """torch draws complex normals as (real, imag) pairs of N(0, 1/2), uniforms as U pairs."""
    draws = []
    for lib in (ember, torch):
        lib.manual_seed(7)
        dt = getattr(lib, dtype)
        x = lib.zeros(n, dtype=dt)
        draws.append([lib.randn(n, dtype=dt).numpy(), lib.rand(n, dtype=dt).numpy(),
                      x.normal_(0.0, 3.0).numpy()])
    for ours, theirs in zip(*draws):
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("n", [5, 15, 16, 40, 1000])
@pytest.mark.parametrize("mean,std", [(0.3, 0.7), (1.5, 2.0), (-1e3, 1e-3)])
def test_float64_normal_with_mean_and_std_is_torchs_fused_multiply_add(n, mean, std):
    """torch scales its float64 normals with one fused multiply-add (z * std + mean rounded
    once); two roundings were one ulp off in about a third of the values before."""
    torch.manual_seed(n)
    want = (torch.empty(n, dtype=torch.float64).normal_(mean, std),
            torch.normal(mean, std, (n,), dtype=torch.float64), torch.randn(3))
    ember.manual_seed(n)
    got = (ember.empty(n, dtype=ember.float64).normal_(mean, std),
           ember.normal(mean, std, (n,), dtype=ember.float64), ember.randn(3))
    for g, w in zip(got, want):  # exact unless NumPy's AVX512 log/cos (SVML) round off glibc's
        assert_as_torch_kernel(g.numpy(), w.numpy(), np.asarray, exact=not NUMPY_AVX512,
                               rtol=4e-16, atol=0)


@pytest.mark.parametrize("n", [1, 15, 16, 17, 18, 31, 33, 47, 100, 1023])
@pytest.mark.parametrize("seed", [0, 7])
def test_float16_normal_follows_torchs_stream_bit_for_bit(n, seed):
    """float16 normals: torch's float32 kernel, 16 uniforms a block, the last 16 values
    redrawn right after the full blocks (as bfloat16); the stream after them agrees too."""
    outs = []
    for lib in (torch, ember):
        lib.manual_seed(seed)
        draws = (lib.empty(n, dtype=lib.float16).normal_(), lib.randn(n, dtype=lib.float16),
                 lib.normal(2.5, 0.3, (n,), dtype=lib.float16), lib.rand(4, dtype=lib.float64))
        outs.append([d.numpy() for d in draws])
    for t, e in zip(*outs):
        np.testing.assert_array_equal(e.view(np.uint8), t.view(np.uint8))


_FILLS = [("normal_", ()), ("uniform_", ()), ("exponential_", ()), ("cauchy_", ()),
          ("log_normal_", ()), ("geometric_", (0.5,)), ("bernoulli_", ())]


@pytest.mark.parametrize("dtype", ["int16", "int64", "bool", "complex64", "float16"])
@pytest.mark.parametrize("fill,args", _FILLS, ids=[f for f, _ in _FILLS])
def test_random_fills_refuse_element_types_as_torch(fill, args, dtype):
    """Normals or uniforms into an integer tensor were silently truncated; torch refuses."""
    from tests.oracle import same_error

    def call(lib):
        return getattr(lib.zeros(20, dtype=getattr(lib, dtype)), fill)(*args)
    try:
        call(torch)
    except Exception:
        same_error(call)
    else:
        call(ember)  # torch fills this element type: so does ember


@pytest.mark.parametrize("fn", ["rand", "randn"])
@pytest.mark.parametrize("dtype", ["int32", "bool"])
def test_rand_randn_refuse_integer_dtypes_as_torch(fn, dtype):
    from tests.oracle import same_error
    same_error(lambda lib: getattr(lib, fn)(3, dtype=getattr(lib, dtype)))


def test_fork_rng_restores_the_stream_as_torch():
    def draws(lib):
        lib.manual_seed(0)
        lib.randn(1)  # a cached second normal on the scalar path, part of the state
        with lib.random.fork_rng():
            inside = lib.rand(3).tolist() + lib.randn(2).tolist()
        with lib.random.fork_rng(enabled=False):
            lib.rand(1)
        return inside, lib.rand(3).tolist() + lib.randn(3).tolist()
    assert draws(ember) == draws(torch)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("bounds", [(0, 1), (-0.37, 0.11), (2.5, 2.75), (1000, 1000.001),
                                    (-2, -1.999), (7, 7)], ids=str)
def test_low_precision_uniform_is_torchs_float32_draw_rounded(dtype, bounds):
    """float16 and bfloat16 uniform_ round torch's float32 value (24 random bits, float32
    bounds), and a value that rounds up to ``to`` becomes ``from``: in float16 that happens
    for about one value in 10**4 on [0, 1); float32 on (1000, 1000.001) often."""
    n = 70000  # more than one of ember's draw blocks
    e, t = _both(lambda lib: lib.empty(n, dtype=getattr(lib, dtype)).uniform_(*bounds)
                 .float(), 11)
    np.testing.assert_array_equal(e, t)
    assert e.max() < np.float32(bounds[1]) or bounds[0] == bounds[1]
    e, t = _both(lambda lib: lib.rand(5, dtype=getattr(lib, dtype)).float(), 5)
    np.testing.assert_array_equal(e, t)


def test_large_uniform_and_scaled_normal_fills_follow_the_stream_across_blocks():
    """Fills larger than ember's draw block (65536 values) keep torch's stream, and the
    stream continues after them as torch's does."""
    def draws(lib):
        a = lib.empty(200003).uniform_(-0.3, 0.2)
        b = lib.empty(131089).normal_(0.25, 0.02)
        return lib.cat([a, b, lib.rand(4)])
    e, t = _both(draws, 3)
    np.testing.assert_array_equal(e, t)


@pytest.mark.parametrize("p_dtype", ["float64", "float32", "float16"])
def test_bernoulli_of_float64_probabilities_draws_53_bit_uniforms(p_dtype):
    """torch.bernoulli(p) / bernoulli_(p): float64 probabilities are compared with 53-bit
    uniforms (two 32-bit draws each), others with 24-bit ones; the probabilities' dtype decides,
    not the filled tensor's."""
    def draws(lib):
        p = lib.rand(3000, dtype=lib.float64).to(getattr(lib, p_dtype))
        return lib.cat([lib.bernoulli(p).double(), lib.empty(3000).bernoulli_(p).double(),
                        lib.rand(3, dtype=lib.float64)])
    e, t = _both(draws, 9)
    np.testing.assert_array_equal(e, t)


def test_multinomial_takes_bfloat16_weights_as_torch():
    def draws(lib):
        w = lib.rand(4, 50).to(lib.bfloat16)
        return lib.cat([lib.multinomial(w, 30, True).reshape(-1),
                        lib.multinomial(w[:1], 20, False).reshape(-1)])
    e, t = _both(draws, 1)
    np.testing.assert_array_equal(e, t)


def test_bernoulli_of_bfloat16_nan_refuses_without_numpy_warning():
    import warnings
    for lib in (ember, torch):
        p = lib.tensor([0.5, float("nan")]).to(lib.bfloat16)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(RuntimeError):
                lib.bernoulli(p)


def test_fills_of_non_contiguous_tensors_draw_in_memory_order_as_torch():
    """torch's TensorIterator walks a transposed / permuted / strided tensor in memory order, so
    its random draws land there; normal_ of a non-contiguous tensor draws one value at a time
    (the scalar Box-Muller with its cached second value), not in blocks of 16."""
    fills = (lambda L, t: L.nn.init.uniform_(t, -1, 2), lambda L, t: t.uniform_(-1, 2),
             lambda L, t: t.normal_(), lambda L, t: L.nn.init.normal_(t, 0.5, 2),
             lambda L, t: t.exponential_(), lambda L, t: t.random_(0, 100),
             lambda L, t: L.nn.init.xavier_normal_(t), lambda L, t: t.bernoulli_(0.3),
             lambda L, t: t.bernoulli_(L.linspace(0, 1, t.shape[-1])), lambda L, t: t.cauchy_(),
             lambda L, t: t.log_normal_(), lambda L, t: t.geometric_(0.3))
    views = (lambda L: L.zeros(6, 5).t(), lambda L: L.zeros(3, 4, 5).permute(2, 0, 1),
             lambda L: L.zeros(8, 6)[:, ::2],
             lambda L: L.zeros(2, 3, 4, 5).to(memory_format=L.channels_last))
    for fill in fills:
        for view in views:
            def draws(lib):
                t = view(lib)
                fill(lib, t)
                return lib.cat([t.reshape(-1).double(), lib.rand(2, dtype=lib.float64)])
            e, t = _both(draws, 3)
            np.testing.assert_array_equal(e, t)
