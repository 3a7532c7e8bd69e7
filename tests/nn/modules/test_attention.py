"""MultiheadAttention vs torch: outputs, weights, masks, gradients, parameter layout, errors."""
import numpy as np
import pytest
import torch
from layer_oracle import check_module, rand

import ember


def _mha(lib, call_kw, **kw):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = lib.nn.MultiheadAttention(8, 2, **kw).double()

        def forward(self, q, k, v, *masks):
            extra = {}
            for name, mask in zip(call_kw.get("masks", ()), masks):
                extra[name] = mask if mask.dtype != lib.int64 else mask.bool()
            options = {k: v for k, v in call_kw.items() if k != "masks"}
            return self.attn(q, k, v, **extra, **options)
    return Net()


@pytest.mark.parametrize("kw", [{}, dict(batch_first=True), dict(bias=False),
                                dict(kdim=5, vdim=6), dict(add_bias_kv=True),
                                dict(add_zero_attn=True),
                                dict(add_bias_kv=True, add_zero_attn=True, batch_first=True)])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
def test_mha(kw, need_weights, average):
    l, s, n = 4, 5, 3
    shape = (lambda t, e: (n, t, e)) if kw.get("batch_first") else (lambda t, e: (t, n, e))
    q = rand(*shape(l, 8))
    k = rand(*shape(s, kw.get("kdim", 8)), seed=1)
    v = rand(*shape(s, kw.get("vdim", 8)), seed=2)
    call = dict(need_weights=need_weights, average_attn_weights=average)
    check_module(lambda lib: _mha(lib, call, **kw), q, k, v)


def test_self_attention_masks():
    x = rand(4, 3, 8)
    causal = np.triu(np.ones((4, 4), dtype=np.int64), 1)  # int here, bool inside (see _mha)
    padding = np.zeros((3, 4), dtype=np.int64)
    padding[1, 3] = 1
    for need_weights in (True, False):
        call = dict(masks=("attn_mask", "key_padding_mask"), need_weights=need_weights)
        check_module(lambda lib: _mha(lib, call), x, x, x, causal, padding)


@pytest.mark.parametrize("kw", [dict(add_zero_attn=True),
                                dict(add_zero_attn=True, add_bias_kv=True)])
def test_masks_with_the_appended_keys(kw):
    """add_bias_kv's and add_zero_attn's keys are never masked: both masks gain their columns."""
    x = rand(4, 3, 8)
    causal = np.triu(np.ones((4, 4), dtype=np.int64), 1)
    padding = np.zeros((3, 4), dtype=np.int64)
    padding[1, 1:] = 1
    for need_weights in (True, False):
        call = dict(masks=("attn_mask", "key_padding_mask"), need_weights=need_weights)
        check_module(lambda lib: _mha(lib, call, **kw), x, x, x, causal, padding)


def test_float_and_3d_masks():
    x = rand(4, 3, 8)
    float_mask = rand(4, 4, seed=7)
    per_head = rand(6, 4, 4, seed=8)
    for mask in (float_mask, per_head):
        for need_weights in (True, False):
            call = dict(masks=("attn_mask",), need_weights=need_weights)
            check_module(lambda lib: _mha(lib, call), x, x, x, mask)


def test_unbatched():
    check_module(lambda lib: _mha(lib, {}), rand(4, 8), rand(5, 8, seed=1), rand(5, 8, seed=2))


def test_parameter_layout_and_init():
    e, t = ember.nn.MultiheadAttention(8, 2), torch.nn.MultiheadAttention(8, 2)
    assert list(e.state_dict()) == list(t.state_dict())
    assert repr(e) == repr(t)
    assert e.in_proj_weight.shape == (24, 8)
    bound = np.sqrt(6 / (24 + 8))  # xavier_uniform over (3E, E)
    w = e.in_proj_weight.detach().numpy()
    assert np.abs(w).max() <= bound and w.std() > bound / np.sqrt(3) * 0.7
    assert not np.any(e.in_proj_bias.detach().numpy()) and not np.any(
        e.out_proj.bias.detach().numpy())
    e2 = ember.nn.MultiheadAttention(8, 2, kdim=4, vdim=3, add_bias_kv=True)
    t2 = torch.nn.MultiheadAttention(8, 2, kdim=4, vdim=3, add_bias_kv=True)
    assert list(e2.state_dict()) == list(t2.state_dict())


def test_errors():
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        ember.nn.MultiheadAttention(8, 3)
    m = ember.nn.MultiheadAttention(8, 2)
    x = ember.zeros(3, 2, 8)
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is ember.Size\(\[4, "
                                           r"3\]\), but should be \(3, 3\)."):
        m(x, x, x, attn_mask=ember.ones(4, 3, dtype=ember.bool))
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)


def test_a_wrong_2d_attn_mask_names_the_expected_shape_as_torch():
    caught = []
    for lib in (torch, ember):
        q = lib.zeros(3, 1, 8)
        with pytest.raises(RuntimeError) as info:
            lib.nn.MultiheadAttention(8, 2)(q, q, q, attn_mask=lib.zeros(2, 2))
        caught.append(str(info.value).replace("ember.", "torch."))
    assert caught[1] == caught[0]


@pytest.mark.parametrize("kw", [dict(), dict(need_weights=False), dict(padding=True),
                                dict(bias_kv=True, average_attn_weights=False),
                                dict(separate=True), dict(unbatched=True),
                                dict(zero=True, padding=True), dict(static=True),
                                dict(static=True, zero=True, padding=True, need_weights=False)])
def test_functional_multi_head_attention_forward(kw):
    rng = np.random.default_rng(0)
    e, heads, n = 8, 2, 3
    shape = (lambda s: (s, e)) if kw.get("unbatched") else (lambda s: (s, n, e))
    q, k, v = (rng.standard_normal(shape(s)) for s in (4, 5, 5))
    arrays = dict(in_w=rng.standard_normal((3 * e, e)) * 0.3, in_b=rng.standard_normal(3 * e),
                  out_w=rng.standard_normal((e, e)) * 0.3, out_b=rng.standard_normal(e),
                  bk=rng.standard_normal((1, 1, e)), bv=rng.standard_normal((1, 1, e)),
                  sk=rng.standard_normal((n * heads, 6, e // heads)),
                  sv=rng.standard_normal((n * heads, 6, e // heads)))
    source = 6 if kw.get("static") else 5
    padding = np.zeros((n, source + bool(kw.get("zero"))), bool)
    padding[0, -1] = True
    got = []
    for lib in (ember, torch):
        t = {name: lib.tensor(a, requires_grad=True) for name, a in arrays.items()}
        query = lib.tensor(q, requires_grad=True)
        separate = dict(use_separate_proj_weight=True, q_proj_weight=t["in_w"][:e],
                        k_proj_weight=t["in_w"][e:2 * e], v_proj_weight=t["in_w"][2 * e:])
        out, weights = lib.nn.functional.multi_head_attention_forward(
            query, lib.tensor(k), lib.tensor(v), e, heads, None if kw.get("separate") else
            t["in_w"], t["in_b"], t["bk"] if kw.get("bias_kv") else None,
            t["bv"] if kw.get("bias_kv") else None, kw.get("zero", False), 0.0, t["out_w"],
            t["out_b"], static_k=t["sk"] if kw.get("static") else None,
            static_v=t["sv"] if kw.get("static") else None,
            key_padding_mask=lib.tensor(padding[:, :source]) if kw.get("padding") else None,
            need_weights=kw.get("need_weights", True),
            average_attn_weights=kw.get("average_attn_weights", True),
            **(separate if kw.get("separate") else {}))
        out.sum().backward()
        got.append([out, weights, query.grad] + [t[name].grad for name in arrays])
    for ours, theirs in zip(*got):
        if theirs is None:
            assert ours is None or not np.any(ours.detach().numpy())
            continue
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-9,
                                   atol=1e-12)


def test_wrong_embedding_dimension_is_torch_assertion():
    msgs = []
    for L in (torch, ember):
        with pytest.raises(AssertionError) as info:
            L.nn.MultiheadAttention(4, 2)(*(L.ones(2, 1, 5),) * 3)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("case", ["bias_and_static", "static_rows", "static_width",
                                  "padding_batch", "padding_length"])
def test_static_keys_and_padding_shape_errors_as_torch(case):
    """torch's AssertionErrors for static_k with add_bias_kv's bias, static_k of the wrong
    size, and a key_padding_mask whose shape is not (batch, keys): same type, same text."""
    rng = np.random.default_rng(1)
    e, heads, n = 8, 2, 3
    arrays = dict(q=rng.standard_normal((4, n, e)), kv=rng.standard_normal((5, n, e)),
                  in_w=rng.standard_normal((3 * e, e)), out_w=rng.standard_normal((e, e)),
                  bk=rng.standard_normal((1, 1, e)),
                  sk=rng.standard_normal((n * heads - (case == "static_rows"), 5,
                                          e // heads + (case == "static_width"))))
    padding = np.zeros({"padding_batch": (n + 1, 5), "padding_length": (n, 4)}.get(case, (n, 5)),
                       bool)
    messages = []
    for lib in (torch, ember):
        t = {name: lib.tensor(a) for name, a in arrays.items()}
        bias = t["bk"] if case == "bias_and_static" else None
        static = t["sk"] if case.startswith(("static", "bias")) else None
        with pytest.raises(AssertionError) as info:
            lib.nn.functional.multi_head_attention_forward(
                t["q"], t["kv"], t["kv"], e, heads, t["in_w"], None, bias, bias, False, 0.0,
                t["out_w"], None, static_k=static,
                key_padding_mask=lib.tensor(padding) if case.startswith("padding") else None)
        messages.append(str(info.value))
    assert messages[1] == messages[0]


def test_masks_of_two_dtypes_warn_as_torch():
    x = rand(3, 2, 8)
    causal = np.triu(np.ones((3, 3)), 1).astype(bool)
    for lib in (torch, ember):
        m = lib.nn.MultiheadAttention(8, 2).double()
        q = lib.tensor(x)
        with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and "
                                             "attn_mask is deprecated"):
            m(q, q, q, attn_mask=lib.tensor(causal), key_padding_mask=lib.zeros(2, 3))
