"""ember/_memory_format.py: torch's memory formats, channels-last layouts through contiguous, to
and clone (strides as torch's), is_contiguous per format, and the rank errors."""
import numpy as np
import pytest
import torch
from oracle import same_error

import ember

VALUES = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)


def test_formats_are_distinct_objects_named_like_torch():
    names = ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format")
    assert [repr(getattr(ember, n)) for n in names] == \
        [repr(getattr(torch, n)).replace("torch", "ember") for n in names]
    assert ember.channels_last != ember.contiguous_format
    assert isinstance(ember.channels_last, ember.memory_format)


@pytest.mark.parametrize("make", [
    lambda lib, x: x.contiguous(memory_format=lib.channels_last),
    lambda lib, x: x.to(memory_format=lib.channels_last),
    lambda lib, x: x.clone(memory_format=lib.channels_last),
    lambda lib, x: x.contiguous(memory_format=lib.channels_last).clone(),
    lambda lib, x: x.contiguous(memory_format=lib.channels_last) * 2,
    lambda lib, x: x.contiguous(memory_format=lib.channels_last).contiguous(),
    lambda lib, x: x.to(lib.float64, memory_format=lib.channels_last),
    lambda lib, x: x.transpose(1, 3).clone(),
    lambda lib, x: x.transpose(1, 3).clone(memory_format=lib.contiguous_format),
])
def test_layouts_match_torch(make):
    seen = []
    for lib in (ember, torch):
        x = lib.tensor(VALUES, requires_grad=True)
        y = make(lib, x)
        y.sum().backward()
        seen.append((y.stride(), y.is_contiguous(),
                     y.is_contiguous(memory_format=lib.channels_last), y.detach().numpy().copy(),
                     x.grad.stride(), type(y.grad_fn).__name__))
    assert seen[0][:3] == seen[1][:3] and seen[0][4:] == seen[1][4:]
    np.testing.assert_array_equal(seen[0][3], seen[1][3])


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 1, 4, 5), (2, 3, 1, 1), (2, 3, 4)])
def test_is_contiguous_per_format_matches_torch(shape):
    for fmt in ("channels_last", "contiguous_format", "channels_last_3d"):
        assert ember.zeros(shape).is_contiguous(memory_format=getattr(ember, fmt)) == \
            torch.zeros(shape).is_contiguous(memory_format=getattr(torch, fmt))


def test_channels_last_3d_and_no_copy_when_laid_out():
    x = ember.zeros(2, 3, 4, 5, 6).to(memory_format=ember.channels_last_3d)
    assert x.stride() == torch.zeros(2, 3, 4, 5, 6).to(
        memory_format=torch.channels_last_3d).stride()
    assert x.contiguous(memory_format=ember.channels_last_3d) is x


@pytest.mark.parametrize("call", [
    lambda lib: lib.zeros(2, 3).contiguous(memory_format=lib.channels_last),
    lambda lib: lib.zeros(2, 3, 4).to(memory_format=lib.channels_last_3d),
    lambda lib: lib.zeros(2, 3, 4).clone(memory_format=lib.channels_last),
])
def test_wrong_rank_raises_like_torch(call):
    same_error(call)


@pytest.mark.parametrize("make", [
    lambda lib: lib.empty(2, 3, 4, 5, memory_format=lib.channels_last),
    lambda lib: lib.empty(2, 3, 4, 5, memory_format=lib.contiguous_format),
    lambda lib: lib.empty_like(lib.empty(2, 3, 4, 5, memory_format=lib.channels_last)),
    lambda lib: lib.zeros_like(lib.empty(2, 3, 4, 5, memory_format=lib.channels_last)),
    lambda lib: lib.ones_like(lib.empty(2, 3, 4, 5).to(memory_format=lib.channels_last),
                              dtype=lib.float64),
    lambda lib: lib.full_like(lib.empty(2, 3, 4, 5, memory_format=lib.channels_last), 2.0),
    lambda lib: lib.zeros_like(lib.empty(2, 3, 4, 5, memory_format=lib.channels_last),
                               memory_format=lib.contiguous_format),
    lambda lib: lib.zeros_like(lib.empty(2, 3, 4, 5), memory_format=lib.channels_last),
    lambda lib: lib.zeros_like(lib.ones(3, 4).t()),
    lambda lib: lib.zeros_like(lib.ones(3, 4), requires_grad=True),
])
def test_factories_lay_out_like_torch(make):
    ours, theirs = make(ember), make(torch)
    assert (ours.stride(), ours.requires_grad) == (theirs.stride(), theirs.requires_grad)
    if "empty" not in make.__code__.co_names or "zeros_like" in make.__code__.co_names:
        assert ours.tolist() == theirs.tolist()  # the values (empty's are undefined)


def test_empty_channels_last_needs_rank_4_like_torch():
    messages = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as info:
            lib.empty(2, 3, memory_format=lib.channels_last)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


# ----- the layout of op results (torch's rules: element-wise ops follow their input's memory
# order, *_like/clone/to keep a dense input's strides, reductions, softmax, scans, gathers and
# indexing give contiguous results, cat/stack/roll/batch_norm keep channels-last ones) -----
LAYOUTS = {
    "transposed": lambda x: x.transpose(1, 3),
    "permuted": lambda x: x.permute(0, 2, 3, 1),
    "channels_last": lambda x: x.contiguous(memory_format=x.__class__.__module__ == "torch"
                                            and torch.channels_last or ember.channels_last),
    "strided_slice": lambda x: x[:, :, ::2],
    "expanded": lambda x: x[:, :1].expand(2, 3, 4, 5),
    "mT": lambda x: x.mT,
    "size_1_dims": lambda x: x[:, :1, :, :1].transpose(1, 2),
    "empty": lambda x: x[:, :0].transpose(1, 3),
}


def _library(x):
    return torch if isinstance(x, torch.Tensor) else ember


RESULTS = {
    "sum": lambda x: x.sum(1), "sum_keepdim": lambda x: x.sum(1, keepdim=True),
    "mean": lambda x: x.mean(-1), "prod": lambda x: x.prod(1), "amax": lambda x: x.amax(1),
    "amin_keepdim": lambda x: x.amin(1, keepdim=True), "std": lambda x: x.std(1),
    "var": lambda x: x.var(2, keepdim=True), "logsumexp": lambda x: x.logsumexp(1),
    "norm": lambda x: x.norm(dim=1), "argmax": lambda x: x.argmax(1),
    "max_dim": lambda x: x.max(1)[0], "all": lambda x: (x > 1).all(1),
    "any_keepdim": lambda x: (x > 1).any(1, keepdim=True), "nansum": lambda x: x.nansum(1),
    "softmax": lambda x: x.softmax(1), "log_softmax": lambda x: x.log_softmax(-1),
    "cumsum": lambda x: x.cumsum(1), "cumprod": lambda x: x.cumprod(-1),
    "logcumsumexp": lambda x: x.logcumsumexp(1), "cummax": lambda x: x.cummax(1)[0],
    "masked_fill": lambda x: x.masked_fill(x > 1, 0.0),
    "batch_norm": lambda x: _library(x).nn.functional.batch_norm(x, None, None, training=True),
    "batch_norm_eval": lambda x: _library(x).nn.functional.batch_norm(
        x, _library(x).zeros(x.shape[1]), _library(x).ones(x.shape[1])),
    "batch_norm_affine": lambda x: _library(x).nn.functional.batch_norm(
        x, None, None, _library(x).ones(x.shape[1]), _library(x).zeros(x.shape[1]),
        training=True),
    "layer_norm": lambda x: _library(x).nn.functional.layer_norm(x, (x.shape[-1],)),
    "layer_norm_affine": lambda x: _library(x).nn.functional.layer_norm(
        x, (x.shape[-1],), _library(x).ones(x.shape[-1]), _library(x).zeros(x.shape[-1])),
    "cat": lambda x: _library(x).cat([x, x]), "stack": lambda x: _library(x).stack([x, x]),
    "stack_last": lambda x: _library(x).stack([x, x], -1),
    "stack_middle": lambda x: _library(x).stack([x, x], 2),
    "gather": lambda x: x.gather(1, _library(x).zeros_like(x[:, :1], dtype=_library(x).long)),
    "index_select": lambda x: x.index_select(1, _library(x).tensor([0, 0])),
    "advanced_index": lambda x: x[:, [0, 0]],
    "interpolate": lambda x: _library(x).nn.functional.interpolate(x, scale_factor=2),
    "tril": lambda x: x.tril(), "triu": lambda x: x.triu(1), "roll": lambda x: x.roll(1, 1),
    "clone": lambda x: x.clone(), "double": lambda x: x.double(), "half": lambda x: x.half(),
    "zeros_like": lambda x: _library(x).zeros_like(x),
    "ones_like": lambda x: _library(x).ones_like(x),
    "rand_like": lambda x: _library(x).rand_like(x),
    "addcmul": lambda x: _library(x).addcmul(x, x, x),
    "clone_add_": lambda x: x.clone().add_(1),
    "exp": lambda x: x.exp(), "add": lambda x: x + 1, "erf": lambda x: x.erf(),
    "gelu": lambda x: _library(x).nn.functional.gelu(x), "nan_to_num": lambda x: x.nan_to_num(),
    "flip": lambda x: x.flip(1), "pad": lambda x: _library(x).nn.functional.pad(x, (1, 1)),
    "sort": lambda x: x.sort(1)[0], "sort_indices": lambda x: x.sort(-1, descending=True)[1],
    "argsort": lambda x: x.argsort(2), "topk": lambda x: x.topk(1, 1)[0],
}
RANDOM = ("rand_like",)


# left: torch's advanced indexing keeps some of a transposed input's order (a TensorIterator
# detail; ember's result is contiguous, which a .view() accepts as well)
KNOWN = {("advanced_index", layout) for layout in ("transposed", "permuted", "mT")}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", RESULTS)
def test_result_layouts_match_torch(op, layout):
    if (op, layout) in KNOWN:
        pytest.xfail("advanced indexing's layout of a transposed input")
    seen, values = [], []
    for lib in (ember, torch):
        x = LAYOUTS[layout](lib.tensor(VALUES))
        try:
            y = RESULTS[op](x)
        except Exception as error:  # (an op refusing an empty input refuses it in both)
            seen.append(type(error).__name__)
            continue
        try:
            flat = y.view(-1).shape
        except RuntimeError:
            flat = None
        strides = y.stride()
        if layout in ("size_1_dims", "empty"):  # (left out: the strides of dims of size 0 or
            # 1, which say nothing of the layout; torch's depend on its kernel's loop order)
            strides = tuple(s if n > 1 and y.numel() else None for s, n in zip(strides, y.shape))
        seen.append((tuple(y.shape), strides, y.is_contiguous(), flat))
        values.append(y.double().numpy().copy())
    assert seen[0] == seen[1]
    if values and op not in RANDOM:
        np.testing.assert_allclose(values[0], values[1], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("op", ["sum", "softmax", "cumsum", "masked_fill", "gather", "tril",
                                "cat", "roll", "index_select", "batch_norm"])
def test_result_layouts_keep_gradients_like_torch(op):
    grads = []
    for lib in (ember, torch):
        x = lib.tensor(VALUES, requires_grad=True)
        y = RESULTS[op](x.transpose(1, 3))
        (y * lib.arange(y.numel()).view(y.shape)).sum().backward()
        grads.append((y.stride(), x.grad.numpy().copy()))
    assert grads[0][0] == grads[1][0]
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-5, atol=1e-5)
