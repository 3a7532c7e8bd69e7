"""Complex tensors against torch: the complex_ops views and constructors, their errors, and the
gradients (torch's convention) of these and of the real-number ops run on complex inputs."""
import warnings

import numpy as np
import pytest
import torch

import ember
from tests.oracle import check, same_error

R = np.random.default_rng(0)


def _c(shape, dtype=np.complex128):
    return (R.standard_normal(shape) + 1j * R.standard_normal(shape)).astype(dtype)


def _both(array, grad=True):
    return (ember.tensor(array.copy(), requires_grad=grad),
            torch.tensor(array.copy(), requires_grad=grad))


def _loss(lib, out, weights):
    """A real loss with every output part weighted differently (imaginary parts included)."""
    if out.is_complex():
        out = lib.view_as_real(out.resolve_conj())
    return (out * lib.tensor(weights[: out.numel()].reshape(out.shape))).sum()


def _compare(fn, *arrays, rtol=1e-6, second=False):
    """fn(lib, *tensors) under both libraries: values, dtypes and every input's gradient."""
    ins = [_both(a, a.dtype.kind in "fc") for a in arrays]
    e_out, t_out = fn(ember, *[p[0] for p in ins]), fn(torch, *[p[1] for p in ins])
    assert str(e_out.dtype)[6:] == str(t_out.dtype)[6:]
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=rtol,
                               atol=rtol)
    weights = R.standard_normal(2 * e_out.numel() + 2)
    diff = [i for i, a in enumerate(arrays) if a.dtype.kind in "fc"]
    e_g = ember.autograd.grad(_loss(ember, e_out, weights), [ins[i][0] for i in diff],
                              create_graph=second)
    t_g = torch.autograd.grad(_loss(torch, t_out, weights), [ins[i][1] for i in diff],
                              create_graph=second)
    for a, b in zip(e_g, t_g):
        assert a.dtype.is_complex == b.dtype.is_complex
        np.testing.assert_allclose(a.detach().numpy(), b.detach().resolve_conj().numpy(),
                                   rtol=rtol, atol=rtol)
    if second:
        e2 = ember.autograd.grad(sum(_loss(ember, g, weights[1:]) for g in e_g),
                                 [ins[i][0] for i in diff], allow_unused=True)
        t2 = torch.autograd.grad(sum(_loss(torch, g, weights[1:]) for g in t_g),
                                 [ins[i][1] for i in diff], allow_unused=True)
        for a, b in zip(e2, t2):
            if b is not None:
                np.testing.assert_allclose(a.numpy(), b.resolve_conj().numpy(), rtol=rtol * 10,
                                           atol=rtol * 10)
    return e_out, t_out


HOLOMORPHIC = {
    "mul": lambda L, z, w: z * w,
    "div": lambda L, z, w: z / w,
    "add_sub": lambda L, z, w: z + w - 2 * z,
    "exp_log": lambda L, z, w: L.exp(z) + L.log(w),
    "sqrt": lambda L, z, w: L.sqrt(z) * w,
    "pow": lambda L, z, w: z ** 2 + w ** 3.5 + z ** w,
    "matmul": lambda L, z, w: z @ w.T,
    "sum_mean": lambda L, z, w: z.sum(0) + w.mean(0),
    "tanh_sigmoid_sin": lambda L, z, w: L.tanh(z) + L.sigmoid(w) + L.sin(z) * L.cos(w),
    "reciprocal": lambda L, z, w: z.reciprocal() + 1 / w,
    "shape_ops": lambda L, z, w: L.cat([z.t(), w.t()], 1)[1:, ::2].reshape(-1),
}


@pytest.mark.parametrize("name", sorted(HOLOMORPHIC))
def test_complex_ops_and_their_gradients_match_torch(name):
    _compare(HOLOMORPHIC[name], _c((3, 4)), _c((3, 4)), second=name in ("mul", "exp_log"))


NON_HOLOMORPHIC = {
    "abs": lambda L, z, x: z.abs() * x,
    "angle": lambda L, z, x: z.angle() + x.angle(),
    "real_imag": lambda L, z, x: z.real * 2 + z.imag * x,
    "conj": lambda L, z, x: z.conj() * z + z.conj_physical() * x,
    "view_as_real": lambda L, z, x: L.view_as_real(z * x) * 3,
    "sgn": lambda L, z, x: z.sgn() * x + x.sgn(),
    "view_as_complex": lambda L, z, x: L.view_as_complex(L.stack([x, x * x], -1)) * z,
    "complex": lambda L, z, x: L.complex(x, x.exp()) * z,
    "polar": lambda L, z, x: L.polar(x.abs(), x) * z,
    "mixed_real_complex": lambda L, z, x: (x * z + x) / (1 + x * 1j),
    "to_complex_and_back": lambda L, z, x: x.to(L.complex128) * z.to(L.complex64).to(
        L.complex128),
}


@pytest.mark.parametrize("name", sorted(NON_HOLOMORPHIC))
def test_non_holomorphic_ops_follow_torchs_gradient_convention(name):
    _compare(NON_HOLOMORPHIC[name], _c((2, 3)), R.standard_normal((2, 3)), second=True)


def test_gradient_of_a_real_loss_is_dl_dx_plus_i_dl_dy():
    """torch's documented convention, checked without torch by finite differences."""
    z0 = _c((4,))
    z = ember.tensor(z0, requires_grad=True)
    ((z * z.conj()).real.sum() + (z ** 2).imag.sum()).backward()

    def loss(v):
        return float(np.sum((v * v.conj()).real + (v ** 2).imag))
    eps, expect = 1e-6, np.zeros(4, complex)
    for i in range(4):
        for step in (1, 1j):
            d = np.zeros(4, complex)
            d[i] = eps * step
            expect[i] += step * (loss(z0 + d) - loss(z0 - d)) / (2 * eps)
    np.testing.assert_allclose(z.grad.numpy(), expect, rtol=1e-6)


def test_real_and_imag_are_views_writes_reach_the_tensor():
    for lib in (ember, torch):
        z = lib.tensor([1 + 2j, 3 - 1j])
        z.real[0] = 10.0
        z.imag.mul_(2)
        z.imag = lib.tensor([5.0, 6.0]) * z.imag
        assert z.tolist() == [(10 + 20j), (3 - 12j)]
        assert z.real._base is z if lib is ember else z.real._base is z


def test_view_as_real_and_complex_share_memory_with_torchs_strides():
    x = R.standard_normal((3, 4, 2)).astype(np.float32)
    for lib in (ember, torch):
        t = lib.tensor(x)
        z = lib.view_as_complex(t[:, 1:3])
        assert (z.shape, z.stride(), z.dtype) == ((3, 2), (4, 1), lib.complex64)
        z[0, 0] = 7 + 8j
        assert t[0, 1].tolist() == [7.0, 8.0]
        r = lib.view_as_real(z.t())
        assert (r.shape, r.stride()) == ((2, 3, 2), (2, 8, 1))
        r[1, 2, 1] = -1.0
        assert t[2, 2, 1].item() == -1.0
        assert lib.view_as_real(lib.tensor(1 + 2j)).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("call", [
    lambda L: L.view_as_complex(L.arange(6).reshape(3, 2)),
    lambda L: L.view_as_complex(L.arange(6.).reshape(2, 3)),
    lambda L: L.view_as_complex(L.arange(6.).reshape(2, 3).t()),
    lambda L: L.view_as_complex(L.arange(12.).reshape(3, 4)[:, 1:3]),
    lambda L: L.view_as_complex(L.arange(18.).reshape(3, 6)[:, ::3]),
    lambda L: L.view_as_real(L.ones(2)),
    lambda L: L.view_as_real(L.ones(3, dtype=L.cfloat).conj()),
    lambda L: L.complex(L.ones(2), L.ones(2, dtype=L.float64)),
    lambda L: L.complex(L.ones(2, dtype=L.int64), L.ones(2, dtype=L.int64)),
    lambda L: L.polar(L.ones(2), L.ones(2, dtype=L.float64)),
    lambda L: L.imag(L.ones(2)),
])
def test_errors_match_torch(call):
    same_error(call)


def test_real_and_conj_of_a_real_tensor_return_it():
    for lib in (ember, torch):
        t = lib.ones(2)
        assert lib.real(t) is t and lib.conj(t) is t and t.resolve_conj() is t
        assert lib.angle(lib.tensor([-1.0, 0.0, 2.0])).tolist() == [np.float32(np.pi), 0, 0]


def test_conjugate_bit_matches_torch_where_observable():
    for lib in (ember, torch):
        z = lib.tensor([1 + 2j, 3 - 1j])
        flags = [z.conj().is_conj(), z.conj().conj().is_conj(), (z.conj() + 1).is_conj(),
                 z.conj().resolve_conj().is_conj(), z.conj_physical().is_conj(),
                 lib.is_conj(z.conj()), z.conj().clone().is_conj()]
        assert flags == [True, False, False, False, False, True, False], lib
        assert z.conj().tolist() == [1 - 2j, 3 + 1j]
        assert type(z.conj().grad_fn) is type(None)
    z = ember.tensor([1 + 2j], requires_grad=True)
    assert z.conj().grad_fn.name() == "ConjBackward0"
    assert z.conj_physical().grad_fn.name() == "ConjPhysicalBackward0"


def test_casting_complex_to_real_warns_and_keeps_the_real_part():
    for lib in (ember, torch):
        z = lib.tensor([1 + 2j, 3 - 1j])
        always = lib.is_warn_always_enabled()
        lib.set_warn_always(True)  # torch warns once a process: an earlier test may have used it
        try:
            with pytest.warns(UserWarning, match="discards the imaginary part"):
                assert z.to(lib.float32).tolist() == [1.0, 3.0]
        finally:
            lib.set_warn_always(always)
        assert z.cdouble().dtype == lib.complex128 and lib.ones(1).cfloat().dtype == z.dtype


def _rotary(lib, q, k):
    """LLaMA's rotary embedding, as its reference code writes it (polar, view_as_complex/real)."""
    freqs = 1.0 / (10000.0 ** (lib.arange(0, 8, 2)[:4].float() / 8))
    freqs = lib.outer(lib.arange(5), freqs).float()
    cis = lib.polar(lib.ones_like(freqs), freqs).view(1, 5, 1, 4)
    q_ = lib.view_as_complex(q.float().reshape(*q.shape[:-1], -1, 2))
    k_ = lib.view_as_complex(k.float().reshape(*k.shape[:-1], -1, 2))
    q_out = lib.view_as_real(q_ * cis).flatten(3).type_as(q)
    k_out = lib.view_as_real(k_ * cis).flatten(3).type_as(k)
    (q_out * k_out).sum().backward()
    return q_out


def test_llama_rotary_embedding_matches_torch():
    arrays = [R.standard_normal((2, 5, 3, 8)).astype(np.float32) for _ in range(2)]
    results = []
    for lib in (ember, torch):
        q, k = (lib.tensor(a, requires_grad=True) for a in arrays)
        out = _rotary(lib, q.transpose(1, 2).transpose(1, 2), k)
        results.append([out.detach().numpy(), q.grad.numpy(), k.grad.numpy()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda L: L.tensor([1 + 2j]) <= 1, lambda L: L.tensor([1j], dtype=L.cdouble) > L.tensor([1.0]),
    lambda L: L.tensor([1j]).max(), lambda L: L.tensor([1j]).max(0), lambda L: L.tensor([1j]).min(),
    lambda L: L.tensor([1j]).amax(), lambda L: L.maximum(L.tensor([1j]), L.tensor([1.0])),
    lambda L: L.minimum(L.tensor([1.0]), L.tensor([1j])), lambda L: L.tensor([1j]).clamp(min=0),
    lambda L: L.tensor([1j]).clamp_max(0), lambda L: L.tensor([1j]).sort(),
    lambda L: L.tensor([1j]).argsort(), lambda L: L.tensor([1j]).topk(1),
    lambda L: L.tensor([1j]).argmax(), lambda L: L.tensor([1j]).argmin(0),
    lambda L: L.tensor([1j]) // 2, lambda L: L.tensor([1j]) % 2, lambda L: L.tensor([1j]).cummax(0),
    lambda L: L.tensor([1j]).median(), lambda L: L.relu(L.tensor([1j])),
    lambda L: L.tensor([1j]).sign(), lambda L: L.tensor([1j], dtype=L.cdouble).round(),
    lambda L: L.tensor([1j]).floor(), lambda L: L.tensor([1j]).trunc(),
])
def test_ops_that_order_values_refuse_complex_as_torch(call):
    same_error(call)


_Z = np.array([[1 + 2j, -3 + 1j, 0.5 - 0.25j], [2 - 1j, 0.3 + 0.7j, -1 - 1j]], np.complex64)
_REFUSED_FOR_COMPLEX = [
    lambda L, F, z: F.gelu(z), lambda L, F, z: F.elu(z), lambda L, F, z: F.leaky_relu(z),
    lambda L, F, z: F.softplus(z), lambda L, F, z: F.hardtanh(z), lambda L, F, z: F.mish(z),
    lambda L, F, z: F.glu(z, 0), lambda L, F, z: F.mse_loss(z, z),
    lambda L, F, z: F.smooth_l1_loss(z, z), lambda L, F, z: F.huber_loss(z, z),
    lambda L, F, z: F.binary_cross_entropy(z, z),
    lambda L, F, z: F.binary_cross_entropy_with_logits(z, z),
    lambda L, F, z: F.cross_entropy(z, L.tensor([0, 1])),
    lambda L, F, z: F.nll_loss(z, L.tensor([0, 1])), lambda L, F, z: F.kl_div(z, z),
    lambda L, F, z: F.layer_norm(z, (3,)), lambda L, F, z: F.group_norm(z[None], 1),
    lambda L, F, z: F.batch_norm(z, None, None, training=True),
    lambda L, F, z: F.max_pool1d(z[None], 2), lambda L, F, z: F.avg_pool1d(z[None], 2),
    lambda L, F, z: F.max_pool2d(z[None, None], 2), lambda L, F, z: F.avg_pool2d(z[None, None], 2),
    lambda L, F, z: F.max_pool3d(z[None, None, None], (1, 2, 2)),
    lambda L, F, z: F.avg_pool3d(z[None, None, None], (1, 2, 2)),
    lambda L, F, z: F.adaptive_max_pool2d(z[None, None], 1),
    lambda L, F, z: z.erf(), lambda L, F, z: z.erfc(), lambda L, F, z: z.erfinv(),
    lambda L, F, z: z.lgamma(), lambda L, F, z: z.digamma(), lambda L, F, z: z.i0(),
    lambda L, F, z: z.logit(), lambda L, F, z: z.deg2rad(), lambda L, F, z: z.rad2deg(),
    lambda L, F, z: L.atan2(z, z), lambda L, F, z: L.heaviside(z, z), lambda L, F, z: z.unique(),
    lambda L, F, z: float(z[0, 0]), lambda L, F, z: int(z[0, 0]),
    # these cast complex to real silently (a ComplexWarning), or leaked NumPy's TypeError
    lambda L, F, z: F.logsigmoid(z), lambda L, F, z: F.hardsigmoid(z),
    lambda L, F, z: F.hardswish(z), lambda L, F, z: F.hardshrink(z),
    lambda L, F, z: F.softshrink(z), lambda L, F, z: F.selu(z), lambda L, F, z: F.celu(z),
    lambda L, F, z: F.rrelu(z), lambda L, F, z: F.threshold(z, 0.1, 0.0),
    lambda L, F, z: F.prelu(z, L.tensor([0.25 + 0j], dtype=z.dtype)),
    lambda L, F, z: L.nansum(z), lambda L, F, z: L.hypot(z, z), lambda L, F, z: L.xlogy(z, z),
    lambda L, F, z: L.logaddexp2(z, z), lambda L, F, z: L.copysign(z, z),
    lambda L, F, z: L.nextafter(z, z), lambda L, F, z: L.fmax(z, z), lambda L, F, z: L.fmin(z, z),
    lambda L, F, z: z.mode(), lambda L, F, z: z.histc(), lambda L, F, z: L.cdist(z, z),
    lambda L, F, z: F.cosine_similarity(z, z),
    lambda L, F, z: F.interpolate(z[None], scale_factor=2),
    lambda L, F, z: F.interpolate(z[None], scale_factor=2, mode="linear"),
    lambda L, F, z: F.interpolate(z[None, None], scale_factor=2, mode="bilinear"),
    lambda L, F, z: F.interpolate(z[None, None], scale_factor=2, mode="bicubic"),
    lambda L, F, z: F.interpolate(z[None], scale_factor=2, mode="area"),
    lambda L, F, z: L.nn.Parameter(z).sum().backward() or F.silu(z.requires_grad_())]


@pytest.mark.parametrize("case", range(len(_REFUSED_FOR_COMPLEX)))
def test_ops_without_a_complex_kernel_refuse_complex_as_torch(case):
    # each computed silently before (a real result from the real part, or NumPy's complex
    # formula where torch has none)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda lib: _REFUSED_FOR_COMPLEX[case](lib, lib.nn.functional, lib.tensor(_Z)))


@pytest.mark.parametrize("call", [
    lambda L, z: z.norm(), lambda L, z: L.linalg.vector_norm(z, 1, dim=1),
    lambda L, z: L.linalg.norm(z), lambda L, z: L.linalg.vector_norm(z, float("inf")),
    lambda L, z: z.var(), lambda L, z: z.var(1, keepdim=True), lambda L, z: z.std(0, correction=0),
    lambda L, z: L.var_mean(z, 1)[0], lambda L, z: L.std_mean(z)[0],
    lambda L, z: z.logsumexp(1), lambda L, z: z.logsumexp(0, keepdim=True),
    # silu computed the real part's; the rest raised
    lambda L, z: L.nn.functional.silu(z.detach()), lambda L, z: L.logaddexp(z, z * 0.5 - 1),
    lambda L, z: L.logcumsumexp(z, 1), lambda L, z: L.logcumsumexp(z * 3, 0),
    lambda L, z: L.dist(z, z * 1j), lambda L, z: L.nn.functional.pairwise_distance(z, z * 2),
    lambda L, z: L.float_power(z, 2), lambda L, z: L.float_power(2, z)])
def test_norms_variances_and_logsumexp_of_complex_as_torch(call):
    # norms raised, logsumexp dropped the imaginary part (a real result)
    results = []
    for lib in (ember, torch):
        z = lib.tensor(_Z, requires_grad=True)
        out = call(lib, z)
        if out.requires_grad:
            (out.real.sum() if out.dtype.is_complex else out.sum()).backward()
        grad = z.grad.resolve_conj().numpy() if z.grad is not None else None
        results.append((out.detach().numpy(), grad, str(out.dtype)[6:]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-6)
    assert (results[0][1] is None) == (results[1][1] is None)
    if results[1][1] is not None:
        np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5, atol=1e-6)
    assert results[0][2] == results[1][2]


def test_float_and_int_of_a_complex_element_as_torch():
    assert float(ember.tensor(2 + 0j)) == float(torch.tensor(2 + 0j))
    assert int(ember.tensor(3 + 0j)) == int(torch.tensor(3 + 0j))


def test_polar_gradient_of_abs_is_torchs_at_zero_and_negative_abs():
    """torch differentiates abs through sgn(out): 0 where abs is 0, the sign flipped where abs
    is negative (ember gave the unmasked e^{i angle} term)."""
    r = np.array([0.0, 1.5, -2.0, 0.0, 3.0])
    theta = np.array([0.3, -1.0, 2.0, 0.0, 0.5])
    check(lambda L, a, t: L.view_as_real(L.polar(a, t)), r, theta)


def test_copying_complex_into_a_real_tensor_warns_as_torch_not_numpy():
    """copy_ of complex values into a real tensor: torch's UserWarning and the real part, its
    gradient through; NumPy's ComplexWarning leaked before."""
    got = []
    for lib in (torch, ember):
        always = lib.is_warn_always_enabled()
        lib.set_warn_always(True)
        try:
            z = lib.tensor([1 + 2j, 3j], requires_grad=True)
            y = lib.zeros(2, requires_grad=True).clone()
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                y.copy_(z)
                lib.zeros(2).copy_(z.detach())
        finally:
            lib.set_warn_always(always)
        assert [w.category for w in seen] == [UserWarning, UserWarning]
        y.sum().backward()
        got.append((y.tolist(), z.grad.tolist()))
    assert got[1] == got[0]
