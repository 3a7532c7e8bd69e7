"""torch.autograd.forward_ad (dual tensors) against torch 2.13: tangents of ops, modules, errors."""
import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfw

import ember
import ember.autograd.forward_ad as efw


def F(lib):
    return lib.nn.functional

RNG = np.random.default_rng(0)


def arr(*shape, positive=False, dtype=np.float64):
    a = RNG.standard_normal(shape)
    return (np.abs(a) + 0.5 if positive else a).astype(dtype)


def run(lib, fw, fn, primals, tangents):
    """(output primal, output tangent) of fn on dual tensors, as arrays."""
    with fw.dual_level():
        duals = [fw.make_dual(lib.tensor(p), lib.tensor(t)) if t is not None else lib.tensor(p)
                 for p, t in zip(primals, tangents)]
        out = fn(lib, *duals)
        primal, tangent = fw.unpack_dual(out)
        return primal.detach().numpy(), (None if tangent is None else tangent.detach().numpy())


def check(fn, primals, tangents=None, atol=1e-6):
    if tangents is None:
        tangents = [arr(*np.shape(p)) for p in primals]
    expected = run(torch, tfw, fn, primals, tangents)
    got = run(ember, efw, fn, primals, tangents)
    np.testing.assert_allclose(got[0], expected[0], atol=atol, rtol=1e-6)
    if expected[1] is None:
        assert got[1] is None
    else:
        assert got[1] is not None, "no tangent"
        np.testing.assert_allclose(got[1], expected[1], atol=atol, rtol=1e-6)


def _lstm(m, x):
    m.manual_seed(0)
    return m.nn.LSTM(4, 5, batch_first=True).double()(x)[0]


A, B, P = arr(3, 4), arr(3, 4), arr(3, 4, positive=True)
CASES = {
    "pow_add": (lambda m, x, y: x ** 2 + y ** 2, [A, B]),
    "mul_scalar": (lambda m, x: 3 * x - 1, [A]),
    "div": (lambda m, x, y: x / y, [A, P]),
    "broadcast_mul": (lambda m, x, y: x * y, [A, arr(4)]),
    "exp_log": (lambda m, x: x.exp() + x.log(), [P]),
    "tanh_sigmoid": (lambda m, x: m.tanh(x) * m.sigmoid(x), [A]),
    "relu": (lambda m, x: m.relu(x), [A]),
    "sqrt_rsqrt": (lambda m, x: x.sqrt() + x.rsqrt(), [P]),
    "clamp": (lambda m, x: x.clamp(-0.5, 0.5), [A]),
    "where": (lambda m, x, y: m.where(x > 0, x, y), [A, B]),
    "maximum": (lambda m, x, y: m.maximum(x, y), [A, B]),
    "matmul": (lambda m, x, y: x @ y, [A, arr(4, 2)]),
    "bmm": (lambda m, x, y: m.bmm(x, y), [arr(2, 3, 4), arr(2, 4, 5)]),
    "sum_dim": (lambda m, x: x.sum(1), [A]),
    "mean": (lambda m, x: x.mean(), [A]),
    "var": (lambda m, x: x.var(0), [A]),
    "amax": (lambda m, x: x.amax(1), [A]),
    "max_dim": (lambda m, x: x.max(1).values, [A]),
    "prod": (lambda m, x: x.prod(1), [A]),
    "norm": (lambda m, x: x.norm(), [A]),
    "logsumexp": (lambda m, x: x.logsumexp(1), [A]),
    "cumsum": (lambda m, x: x.cumsum(0), [A]),
    "transpose": (lambda m, x: x.t() * 1, [A]),
    "view_reshape": (lambda m, x: x.view(4, 3).reshape(2, 6), [A]),
    "permute": (lambda m, x: x.permute(2, 0, 1).contiguous(), [arr(2, 3, 4)]),
    "unsqueeze_expand": (lambda m, x: x.unsqueeze(0).expand(2, 3, 4), [A]),
    "index_slice": (lambda m, x: x[1:, ::2], [A]),
    "index_tensor": (lambda m, x: x[m.tensor([2, 0, 2])], [A]),
    "gather": (lambda m, x: x.gather(1, m.tensor([[0, 1], [2, 3], [1, 1]])), [A]),
    "cat_stack": (lambda m, x, y: m.cat([x, m.stack([y[0], y[1]])]), [A, B]),
    "split": (lambda m, x: x.split(2, 1)[1] * 2, [A]),
    "softmax": (lambda m, x: m.softmax(x, 1), [A]),
    "log_softmax": (lambda m, x: m.nn.functional.log_softmax(x, dim=0), [A]),
    "layer_norm": (lambda m, x, w, b: m.nn.functional.layer_norm(x, (4,), w, b), [A, arr(4),
                                                                                  arr(4)]),
    "linear": (lambda m, x, w, b: m.nn.functional.linear(x, w, b), [A, arr(5, 4), arr(5)]),
    "conv2d": (lambda m, x, w: m.nn.functional.conv2d(x, w, padding=1),
               [arr(1, 2, 5, 5), arr(3, 2, 3, 3)]),
    "max_pool": (lambda m, x: m.nn.functional.max_pool2d(x, 2), [arr(1, 2, 4, 4)]),
    "mse_loss": (lambda m, x, y: m.nn.functional.mse_loss(x, y), [A, B]),
    "cross_entropy": (lambda m, x: m.nn.functional.cross_entropy(x, m.tensor([0, 3, 1])), [A]),
    "gelu": (lambda m, x: m.nn.functional.gelu(x), [A]),
    "dropout_eval": (lambda m, x: m.nn.functional.dropout(x, 0.5, training=False), [A]),
    "embedding": (lambda m, w: m.nn.functional.embedding(m.tensor([[0, 2], [1, 0]]), w), [A]),
    "to_float32": (lambda m, x: x.float() * 2, [A]),
    "clone": (lambda m, x: x.clone(), [A]),
    "unbind": (lambda m, x: m.unbind(x, 1)[2], [A]),
    "chunk": (lambda m, x: x.chunk(2, 0)[1], [A]),
    "topk": (lambda m, x: x.topk(2, 1).values, [A]),
    "sort": (lambda m, x: x.sort(1).values, [A]),
    "std": (lambda m, x: x.std(1), [A]),
    "var_mean": (lambda m, x: m.var_mean(x, 1)[1] + m.var_mean(x, 1)[0], [A]),
    "normalize": (lambda m, x: F(m).normalize(x, dim=1), [A]),
    "bce_logits": (lambda m, x, y: F(m).binary_cross_entropy_with_logits(x, y.sigmoid()), [A, B]),
    "nll": (lambda m, x: F(m).nll_loss(F(m).log_softmax(x, 1), m.tensor([1, 0, 3])), [A]),
    "smooth_l1": (lambda m, x, y: F(m).smooth_l1_loss(x, y), [A, B]),
    "batch_norm_train": (lambda m, x: F(m).batch_norm(x, None, None, training=True), [A]),
    "interpolate": (lambda m, x: F(m).interpolate(x, scale_factor=2, mode="bilinear"), [arr(1, 1, 3, 3)]),
    "pad": (lambda m, x: F(m).pad(x, (1, 2)), [A]),
    "avg_pool": (lambda m, x: F(m).avg_pool2d(x, 2), [arr(1, 2, 4, 4)]),
    "sdpa": (lambda m, q, k, v: F(m).scaled_dot_product_attention(q, k, v), [arr(1, 3, 4), arr(1, 3, 4), arr(1, 3, 4)]),
    "einsum": (lambda m, x, y: m.einsum("ij,kj->ik", x, y), [A, B]),
    "masked_fill": (lambda m, x: x.masked_fill(x > 0, 0.0), [A]),
    "index_select": (lambda m, x: x.index_select(1, m.tensor([0, 2])), [A]),
    "tril_flip_roll": (lambda m, x: m.roll(m.flip(m.tril(x), [0]), 1, 1), [A]),
    "lstm": (_lstm, [arr(2, 3, 4)]),
    "silu_softplus": (lambda m, x: F(m).silu(x) + F(m).softplus(x), [A]),
    "abs_sign": (lambda m, x: x.abs() + x.sign(), [A]),
    "pow_tensor": (lambda m, x, y: x ** y, [P, B]),
    "atan2": (lambda m, x, y: m.atan2(x, y), [A, B]),
    "cumprod": (lambda m, x: x.cumprod(1), [A]),
    "min_dim": (lambda m, x: x.min(0)[0], [A]),
    "mv_outer": (lambda m, x, v: m.mv(x, v) .outer(v), [A, arr(4)]),
    "repeat": (lambda m, x: x.repeat(2, 1), [A]),
    "squeeze_mT": (lambda m, x: x.unsqueeze(1).squeeze(1).mT, [A]),
    "linalg_inv": (lambda m, x: m.linalg.inv(x), [arr(3, 3) + 3 * np.eye(3)]),
    "det": (lambda m, x: m.linalg.det(x), [arr(3, 3)]),
    "diag": (lambda m, x: m.diag(x[0]), [A]),
    "conv1d": (lambda m, x, w, b: F(m).conv1d(x, w, b), [arr(2, 3, 6), arr(4, 3, 3), arr(4)]),
    "group_norm": (lambda m, x: F(m).group_norm(x, 2), [arr(2, 4, 3)]),
    "dropout_train": (lambda m, x: F(m).dropout(x, 0.0), [A]),
    "kl_div": (lambda m, x, y: F(m).kl_div(F(m).log_softmax(x, 1), F(m).softmax(y, 1), reduction="batchmean"), [A, B]),
    "cholesky": (lambda m, x: m.linalg.cholesky(x @ x.mT + m.eye(3, dtype=m.float64)),
                 [arr(3, 3)]),
    "qr": (lambda m, x: m.linalg.qr(x)[1], [arr(4, 3)]),
    "eigh": (lambda m, x: m.linalg.eigh(x + x.mT)[0], [arr(3, 3)]),
    "svdvals": (lambda m, x: m.linalg.svd(x)[1], [arr(3, 4)]),
    "slogdet": (lambda m, x: m.linalg.slogdet(x)[1], [arr(3, 3)]),
}



@pytest.mark.parametrize("name", sorted(CASES))
def test_op_tangents_match_torch(name):
    fn, primals = CASES[name]
    check(fn, primals)


def test_only_some_inputs_dual():
    check(lambda m, x, y: x * y + y.sin(), [A, B], [arr(3, 4), None])


def test_non_float_outputs_have_no_tangent():
    check(lambda m, x: x.argmax(1), [A])
    check(lambda m, x: x > 0, [A])


def test_float32_tangents():
    a, b = arr(3, 4, dtype=np.float32), arr(3, 4, dtype=np.float32)
    check(lambda m, x, y: (x * y).sigmoid().sum(0), [a, b], atol=1e-5)


INPLACE = {
    "add_scalar": lambda m, x, y: x.add_(1) * y,
    "mul_dual": lambda m, x, y: x.mul_(y),
    "plain_gets_tangent": lambda m, x, y: m.zeros(3, 4, dtype=m.float64).add_(y * x),
    "setitem": lambda m, x, y: _setitem(x, y),
    "copy": lambda m, x, y: m.zeros(3, 4, dtype=m.float64).copy_(y),
    "zero": lambda m, x, y: x.zero_() + y,
    "transpose_": lambda m, x, y: x.t_() * 2,
    "unsqueeze_": lambda m, x, y: x.unsqueeze_(1) + y[:, None],
}


def _setitem(x, y):
    x[0] = y[1]
    return x


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_tangents_match_torch(name):
    check(INPLACE[name], [A, B])


# ---------------------------------------------------------------- the dual tensor API


def _raises(fn, lib_fns):
    """Both libraries raise the same exception type with the same message."""
    seen = []
    for lib, fw in lib_fns:
        with pytest.raises(Exception) as info:
            fn(lib, fw)
        seen.append((type(info.value).__name__, str(info.value)))
    assert seen[1][0] == seen[0][0]
    assert seen[1][1] == seen[0][1].replace("torch.", "ember.")


BOTH = ((torch, tfw), (ember, efw))


def _in_level(body):
    def fn(lib, fw):
        with fw.dual_level():
            body(lib, fw)
    return fn


@pytest.mark.parametrize("body", [
    lambda lib, fw: fw.make_dual(lib.ones(3), lib.ones(3)),
    _in_level(lambda lib, fw: fw.make_dual(lib.ones(3), lib.ones(4))),
    _in_level(lambda lib, fw: fw.make_dual(lib.ones(3), lib.ones(3, dtype=lib.int32))),
    _in_level(lambda lib, fw: fw.make_dual(lib.ones(3, dtype=lib.int64), lib.ones(3))),
    _in_level(lambda lib, fw: fw.make_dual(fw.make_dual(lib.ones(3), lib.ones(3)), lib.ones(3))),
    _in_level(lambda lib, fw: fw.enter_dual_level()),
    _in_level(lambda lib, fw: fw.unpack_dual(fw.make_dual(lib.ones(2), lib.ones(2)), level=5)),
    _in_level(lambda lib, fw: fw.exit_dual_level(level=3)),
    lambda lib, fw: fw.exit_dual_level(),
], ids=["no_level", "size", "int_tangent", "int_primal", "twice", "nested", "bad_level",
        "exit_other", "exit_none"])
def test_errors_as_torch(body):
    _raises(body, BOTH)
    assert efw._level is None or efw.exit_dual_level() is None


def test_make_dual_keeps_or_copies_the_tangent_as_torch():
    x, t = ember.randn(4, 3), ember.randn(4, 3)
    with efw.dual_level():
        dual = efw.make_dual(x, t)
        assert efw.unpack_dual(dual).tangent is t
        assert dual._base is x and dual.grad_fn is None and not dual.requires_grad
        copied = efw.unpack_dual(efw.make_dual(x, t.T.contiguous().T)).tangent
        assert copied is not t and copied.is_contiguous()
        primal = efw.unpack_dual(dual).primal
        assert efw.unpack_dual(primal).tangent is None and primal._base is x
        assert efw.unpack_dual(dual.detach()).tangent is None
        out = dual * 2
    assert efw.unpack_dual(out).tangent is None and efw.unpack_dual(dual).tangent is None
    assert efw.unpack_dual(3) == (3, None)
    assert type(efw.unpack_dual(out)).__name__ == "UnpackedDualTensor"


def test_leaving_the_level_turns_the_hook_off():
    from ember.autograd import graph
    with efw.dual_level():
        assert graph._dual is not None
    assert graph._dual is None
    with pytest.raises(ZeroDivisionError):
        with efw.dual_level():
            raise ZeroDivisionError
    assert graph._dual is None and efw._level is None


def _module_jvps(lib, fw, x, tangents):
    """The tutorial's two ways: dual tensors set as module attributes, and functional_call."""
    lib.manual_seed(0)
    model = lib.nn.Linear(5, 3).double()
    params = dict(model.named_parameters())
    with fw.dual_level():
        duals = {name: fw.make_dual(p, lib.tensor(tangents[name])) for name, p in params.items()}
        via_call = fw.unpack_dual(lib.func.functional_call(model, duals, (lib.tensor(x),)))
        for name in params:
            delattr(model, name)
            setattr(model, name, duals[name])
        via_attrs = fw.unpack_dual(model(lib.tensor(x)))
    return [t.detach().numpy() for t in (*via_call, *via_attrs)]


def test_module_with_dual_parameters_matches_torch():
    x = arr(4, 5)
    tangents = {"weight": arr(3, 5), "bias": arr(3)}
    expected = _module_jvps(torch, tfw, x, tangents)
    for got, want in zip(_module_jvps(ember, efw, x, tangents), expected):
        np.testing.assert_allclose(got, want, rtol=1e-10)


def test_tangent_is_differentiable_in_reverse_mode():
    """A tangent computed from primals or tangents that require grad carries a graph."""
    grads = []
    for lib, fw in BOTH:
        y = lib.tensor(A, requires_grad=True)
        yt = lib.tensor(B, requires_grad=True)
        with fw.dual_level():
            z = (fw.make_dual(y, yt) ** 3).sin().sum()
            tangent = fw.unpack_dual(z).tangent
            assert tangent.requires_grad
            grads.append([g.detach().numpy() for g in lib.autograd.grad(tangent, (y, yt))])
    for got, want in zip(*grads[::-1]):
        np.testing.assert_allclose(got, want, rtol=1e-10)


def test_tangent_graph_supports_second_order_and_frees_after_backward():
    results = []
    for lib, fw in BOTH:
        y = lib.tensor(A, requires_grad=True)
        with fw.dual_level():
            tangent = fw.unpack_dual((fw.make_dual(y, lib.tensor(B)) ** 3).sin().sum()).tangent
            (g,) = lib.autograd.grad(tangent, y, create_graph=True)
            (gg,) = lib.autograd.grad((g * g).sum(), y)
            results.append((g.detach().numpy(), gg.numpy()))
            tangent2 = fw.unpack_dual((fw.make_dual(y, lib.tensor(B)) * y).sum()).tangent
            tangent2.backward()
            with pytest.raises(RuntimeError, match="backward through the graph a second time"):
                tangent2.backward()
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-10)


def test_a_long_level_keeps_no_reference_to_dead_tensors():
    with efw.dual_level():
        y = efw.make_dual(ember.zeros(2), ember.ones(2))
        for _ in range(3000):
            y = y * 1.0
        assert len(efw._duals) < 2100
        np.testing.assert_array_equal(efw.unpack_dual(y).tangent.numpy(), [1.0, 1.0])


def _write_through_view(lib, case):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        dual = fwAD.make_dual(lib.ones(2) * 2, lib.tensor([1.0, 2.0]))
        p = fwAD.make_dual(lib.zeros(2, 3), lib.ones(2, 3)) if case >= 3 else lib.zeros(2, 3)
        if case == 0:
            p[:, 1].copy_(dual)
        elif case == 1:
            p[0, 1:] = dual
        elif case == 2:
            p.t()[1].mul_(0).add_(dual)
        elif case == 3:
            p[1].mul_(dual.sum())
        elif case == 4:
            p.view(3, 2)[0].copy_(dual)
        else:
            p[0].zero_()
        tangent = fwAD.unpack_dual(p).tangent
        return None if tangent is None else tangent.tolist()


@pytest.mark.parametrize("case", range(6))
def test_inplace_write_through_a_view_updates_the_base_tangent_as_torch(case):
    """An in-place op on a view of a dual tensor (or a dual written into a plain tensor's view)
    changes the base's tangent too; ember replaced only the view's tangent."""
    assert _write_through_view(ember, case) == _write_through_view(torch, case)


def test_bfloat16_tangents_flow_as_torch():
    """(ember dropped the tangent of a bfloat16 result: unpack_dual gave None)"""
    got = []
    for lib in (torch, ember):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            dual = fw.make_dual(lib.tensor([1.0, 2.0]).bfloat16(),
                                lib.tensor([1.0, 1.0]).bfloat16())
            got.append(fw.unpack_dual((dual * dual).sin()).tangent.float().tolist())
    assert got[1] == got[0]


def test_make_dual_copies_a_tangent_into_the_primals_strides_as_torch():
    strides = []
    for lib in (torch, ember):
        fw = lib.autograd.forward_ad
        x, t = lib.randn(4, 3).t(), lib.randn(4, 3).t().contiguous()
        with fw.dual_level():
            strides.append(fw.unpack_dual(fw.make_dual(x, t)).tangent.stride())
    assert strides[1] == strides[0] == (1, 3)


_SAVING_OUTPUT = {  # ops whose backward reads their own output (saved without the tensor)
    "exp": lambda lib, x: x.exp(), "tanh": lambda lib, x: x.tanh(),
    "sigmoid": lambda lib, x: x.sigmoid(), "sqrt": lambda lib, x: x.sqrt(),
    "rsqrt": lambda lib, x: x.rsqrt(), "softmax": lambda lib, x: x.softmax(-1),
    "log_softmax": lambda lib, x: x.log_softmax(0), "mixed": lambda lib, x: x.exp() * x.tanh(),
}


@pytest.mark.parametrize("name", sorted(_SAVING_OUTPUT))
def test_forward_over_reverse_through_saved_outputs(name):
    """The tangent of a gradient (forward over reverse): a backward that reads the op's saved
    output sees the output's tangent. Before, the restored output had none and the Hessian-
    vector product lost the op's second-derivative term (exp: zero)."""
    rng = np.random.RandomState(0)
    a, v = rng.rand(3, 4) + 0.2, rng.randn(3, 4)
    weights = np.linspace(0.5, 1.5, 12).reshape(3, 4)
    got = []
    for lib, fw in ((torch, tfw), (ember, efw)):
        with fw.dual_level():
            x = fw.make_dual(lib.tensor(a), lib.tensor(v)).requires_grad_()
            y = _SAVING_OUTPUT[name](lib, x)
            (g,) = lib.autograd.grad((y * lib.tensor(weights)).sum(), x, create_graph=True)
            got.append(fw.unpack_dual(g).tangent.detach().numpy())
    np.testing.assert_allclose(got[1], got[0], rtol=1e-12, atol=1e-12)
