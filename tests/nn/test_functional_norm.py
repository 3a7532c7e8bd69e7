"""ember.nn functional normalization, embedding, channel dropout and attention vs torch."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from oracle import check, close

import ember
from ember.nn import _functional_layers as EF


def F(lib):
    return EF if lib is ember else TF


def rand(*shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 5)])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_training(shape, affine):
    c = shape[1]
    params = [rand(c, seed=1), rand(c, seed=2)] if affine else []
    stats = {}

    def fn(lib, x, *wb):
        rm, rv = lib.zeros(c, dtype=lib.float64), lib.ones(c, dtype=lib.float64)
        out = F(lib).batch_norm(x, rm, rv, *wb, training=True, momentum=0.3)
        stats[lib.__name__] = (rm, rv)
        return out
    check(fn, rand(*shape), *params)
    close(stats["ember"], stats["torch"], what="running stats")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_eval(dtype):
    rm, rv = rand(3, dtype=dtype, seed=3), np.abs(rand(3, dtype=dtype, seed=4)) + 0.5
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else {}
    check(lambda lib, x, w, b: F(lib).batch_norm(x, lib.tensor(rm), lib.tensor(rv), w, b),
          rand(4, 3, 2, 2, dtype=dtype), rand(3, dtype=dtype, seed=1),
          rand(3, dtype=dtype, seed=2), **tol)


def test_batch_norm_errors():
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        EF.batch_norm(ember.zeros(1, 3), None, None, training=True)
    with pytest.raises(RuntimeError, match="running_mean should contain 4 elements not 3"):
        EF.batch_norm(ember.zeros(2, 4, 8, 8), ember.zeros(3), ember.ones(3))


@pytest.mark.parametrize("shape,normalized", [((4, 5), (5,)), ((2, 3, 4), (3, 4)), ((2, 3, 4), [4])])
def test_layer_norm(shape, normalized):
    ns = (normalized,) if isinstance(normalized, int) else tuple(normalized)
    check(lambda lib, x, w, b: F(lib).layer_norm(x, normalized, w, b, eps=1e-3), rand(*shape),
          rand(*ns, seed=1), rand(*ns, seed=2))
    check(lambda lib, x: F(lib).layer_norm(x, normalized), rand(*shape))


def test_layer_norm_float32():
    check(lambda lib, x, w, b: F(lib).layer_norm(x, (8,), w, b), rand(4, 8, dtype=np.float32),
          rand(8, dtype=np.float32, seed=1), rand(8, dtype=np.float32, seed=2), rtol=1e-4,
          atol=1e-5, second=False)


def test_layer_norm_error():
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[7\], expected input with "
                                           r"shape \[\*, 7\], but got input of size\[2, 8\]"):
        EF.layer_norm(ember.zeros(2, 8), (7,))


@pytest.mark.parametrize("shape,groups", [((2, 4, 3), 2), ((2, 6, 2, 3), 3), ((3, 4), 4)])
def test_group_norm(shape, groups):
    c = shape[1]
    check(lambda lib, x, w, b: F(lib).group_norm(x, groups, w, b), rand(*shape),
          rand(c, seed=1), rand(c, seed=2))


def test_group_norm_error():
    with pytest.raises(RuntimeError, match="divisible by num_groups, but got input of shape "
                                           r"\[2, 4, 8\] and num_groups=3"):
        EF.group_norm(ember.zeros(2, 4, 8), 3)


@pytest.mark.parametrize("kw", [{}, dict(padding_idx=1), dict(padding_idx=-1),
                                dict(scale_grad_by_freq=True)])
def test_embedding(kw):
    idx = np.array([[1, 2, 1], [4, 1, 0]])
    check(lambda lib, w: F(lib).embedding(lib.tensor(idx), w, **kw), rand(5, 3))


def test_embedding_max_norm():
    w = rand(5, 3) * 3
    e_w, t_w = ember.tensor(w), torch.tensor(w)
    idx = [[1, 2], [2, 4]]
    close(EF.embedding(ember.tensor(idx), e_w, max_norm=1.0),
          TF.embedding(torch.tensor(idx), t_w, max_norm=1.0))
    close(e_w, t_w, what="renormalized weight")


def test_embedding_errors():
    with pytest.raises(IndexError, match="index out of range in self"):
        EF.embedding(ember.tensor([5]), ember.zeros(5, 3))
    with pytest.raises(RuntimeError, match="'indices' to have one of the following scalar types"):
        EF.embedding(ember.tensor([1.0]), ember.zeros(5, 3))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        EF.embedding(ember.tensor([1]), ember.zeros(5, 3), padding_idx=7)


@pytest.mark.parametrize("fn,shape", [("dropout1d", (8, 16, 5)), ("dropout2d", (8, 16, 3, 3)),
                                      ("dropout3d", (4, 16, 2, 2, 2))])
def test_channel_dropout(fn, shape):
    x = ember.ones(*shape, requires_grad=True)
    y = getattr(EF, fn)(x, p=0.25)
    assert type(y.grad_fn).__name__ == "MulBackward0"
    per_channel = y.detach().numpy().reshape(shape[0] * shape[1], -1)
    assert np.all(per_channel == per_channel[:, :1])  # whole channels kept or dropped
    assert set(np.unique(per_channel)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.1 < (per_channel[:, 0] == 0).mean() < 0.45
    y.sum().backward()
    assert np.array_equal(x.grad.numpy(), y.detach().numpy())
    assert getattr(EF, fn)(x, 0.5, training=False) is x
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but "
                                         "got 1.5"):
        getattr(EF, fn)(x, 1.5)


def test_dropout2d_3d_input_warns():
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
        EF.dropout2d(ember.ones(2, 3, 4))


@pytest.mark.parametrize("kw", [{}, dict(is_causal=True), dict(scale=0.3)])
def test_sdpa(kw):
    check(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v, **kw),
          rand(2, 3, 5, 4), rand(2, 3, 5, 4, seed=1), rand(2, 3, 5, 6, seed=2))


@pytest.mark.parametrize("mask_kind", ["bool", "float"])
def test_sdpa_masks(mask_kind):
    rng = np.random.default_rng(5)
    mask = rng.random((4, 6)) > 0.3
    mask[:, 0] = True
    mask = mask if mask_kind == "bool" else rand(4, 6, seed=6)
    check(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(
        q, k, v, attn_mask=lib.tensor(mask)), rand(2, 4, 3), rand(2, 6, 3, seed=1),
        rand(2, 6, 2, seed=2))


def test_sdpa_fully_masked_rows_are_zero():
    mask = np.ones((3, 3), dtype=bool)
    mask[1] = False
    check(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(
        q, k, v, attn_mask=lib.tensor(mask)), rand(3, 2), rand(3, 2, seed=1), rand(3, 2, seed=2),
        second=False)


def test_sdpa_dropout_scales_kept_weights():
    q = ember.tensor(rand(2, 50, 4))
    v = ember.eye(50).unsqueeze(0).expand(2, 50, 50).double()
    weights = EF.scaled_dot_product_attention(q, q, v, dropout_p=0.5).numpy()
    full = EF.scaled_dot_product_attention(q, q, v).numpy()
    kept = weights != 0
    np.testing.assert_allclose(weights[kept], 2 * full[kept])
    assert 0.4 < kept.mean() < 0.6


def test_sdpa_float_mask_gets_gradient():
    check(lambda lib, q, k, v, mask: F(lib).scaled_dot_product_attention(q, k, v, attn_mask=mask),
          rand(2, 2, 4, 3), rand(2, 2, 6, 3, seed=1), rand(2, 2, 6, 3, seed=2),
          rand(4, 6, seed=3))


@pytest.mark.parametrize("fn,shape", [("dropout1d", (4, 8, 5)), ("dropout2d", (4, 8, 3, 3)),
                                      ("dropout3d", (2, 8, 2, 2, 2))])
def test_channel_dropout_draws_torchs_mask(fn, shape):
    x = rand(*shape, dtype=np.float32)
    torch.manual_seed(3)
    ember.manual_seed(3)
    close(getattr(EF, fn)(ember.tensor(x), 0.3), getattr(TF, fn)(torch.tensor(x), 0.3))


def test_sdpa_dropout_draws_torchs_mask():
    q = rand(2, 5, 4)
    torch.manual_seed(5)
    ember.manual_seed(5)
    close(EF.scaled_dot_product_attention(*(ember.tensor(q),) * 3, dropout_p=0.4),
          TF.scaled_dot_product_attention(*(torch.tensor(q),) * 3, dropout_p=0.4))


@pytest.mark.parametrize("make,shape", [
    (lambda nn: nn.BatchNorm1d(3), (0, 3)), (lambda nn: nn.BatchNorm2d(3), (0, 3, 2, 2)),
    (lambda nn: nn.GroupNorm(1, 3), (0, 3, 2)), (lambda nn: nn.LayerNorm(3), (0, 3)),
    (lambda nn: nn.InstanceNorm2d(3), (0, 3, 4, 4))])
def test_an_empty_batch_leaves_running_statistics_alone(make, shape):
    """torch's batch norm skips an empty batch (its statistics would be NaN): empty output,
    running statistics unchanged, zero weight and bias gradients (they were NaN before)."""
    got = []
    for lib in (torch, ember):
        norm = make(lib.nn)
        x = lib.zeros(shape, requires_grad=True)
        y = norm(x)
        y.sum().backward()
        running = getattr(norm, "running_mean", None)
        weight = getattr(norm, "weight", None)
        got.append((tuple(y.shape), tuple(x.grad.shape), weight is not None and weight.grad.tolist(),
                    None if running is None else running.tolist()))
    assert got[1] == got[0]


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.group_norm(L.tensor([[[1, 0, 1, 1]]]), 1), lambda L: L.nn.functional.group_norm(L.tensor([[[1, 0, 1, 1]]]).bool(), 1),
    lambda L: L.nn.functional.layer_norm(L.tensor([[[1, 0, 1, 1]]]), (4,)),
    lambda L: L.nn.functional.batch_norm(L.tensor([[[1, 0, 1, 1]]]), None, None, training=True),
    lambda L: L.nn.functional.instance_norm(L.tensor([[[1, 0, 1, 1]]]))])
def test_norms_of_integer_and_bool_inputs_raise_as_torch(call):
    """(group_norm computed float64 results from int/bool input)"""
    from oracle import same_error
    same_error(call)


@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_grouped_query_attention_as_torch(causal):
    """enable_gqa: each key/value head serves a run of query heads (Llama-style attention)."""
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in
               ((2, 4, 5, 8), (2, 2, 5, 8), (2, 1, 5, 8)))
    check(lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(
        q, k, v, is_causal=causal, enable_gqa=True), q, k, v, rtol=1e-4, atol=1e-5,
        same_grad_fn=False, second=False)
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="Number of heads in key and value must divide"):
            lib.nn.functional.scaled_dot_product_attention(
                lib.ones(1, 6, 2, 4), lib.ones(1, 4, 2, 4), lib.ones(1, 4, 2, 4), enable_gqa=True)


# ---------------------------------------------------------------- mixed dtypes (careless-user probe)
_MIXED = [("float64", "float32"), ("float32", "float64"), ("float16", "float32"), ("bfloat16", "float32"),
          ("float32", "float16"), ("bfloat16", "float16"), ("float64", "float16")]


@pytest.mark.parametrize("dtypes", _MIXED)
@pytest.mark.parametrize("op", ["layer_norm", "layer_norm_weight", "batch_norm_train", "batch_norm_eval",
                                "batch_norm_stats", "batch_norm_mixed_stats", "group_norm"])
def test_normalizations_refuse_mixed_dtypes_as_torch(dtypes, op):
    # ember normalized a float64 input with float32 parameters (and the reverse) silently;
    # torch's CPU kernels take float32 parameters only for bfloat16/float16 inputs
    def run(L):
        F = L.nn.functional
        x = L.ones(4, 3, dtype=getattr(L, dtypes[0]))
        w = L.ones(3, dtype=getattr(L, dtypes[1]))
        stats = (L.zeros(3, dtype=w.dtype), L.ones(3, dtype=w.dtype))
        return {"layer_norm": lambda: F.layer_norm(x, (3,), w, w),
                "layer_norm_weight": lambda: F.layer_norm(x, (3,), w),
                "batch_norm_train": lambda: F.batch_norm(x, *stats, w, w, training=True),
                "batch_norm_eval": lambda: F.batch_norm(x, *stats, w, w, training=False),
                "batch_norm_stats": lambda: F.batch_norm(x, *stats, training=False),
                "batch_norm_mixed_stats": lambda: F.batch_norm(
                    x, L.zeros(3, dtype=x.dtype), L.ones(3, dtype=x.dtype), w, training=False),
                "group_norm": lambda: F.group_norm(x, 1, w, w)}[op]()
    try:
        expected = str(run(torch).dtype).split(".")[-1]
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as got:
            run(ember)
        assert str(got.value) == str(e)
    else:
        assert str(run(ember).dtype).split(".")[-1] == expected
