"""BatchNorm/InstanceNorm/LayerNorm/GroupNorm modules vs torch: outputs, gradients, running statistics."""
import numpy as np
import pytest
import torch
from layer_oracle import check_module, rand
from oracle import close

import ember


@pytest.mark.parametrize("cls,kw,shape", [
    ("BatchNorm1d", {}, (6, 3)),
    ("BatchNorm1d", dict(momentum=None), (4, 3, 5)),
    ("BatchNorm2d", dict(momentum=0.3, eps=1e-3), (4, 3, 2, 5)),
    ("BatchNorm2d", dict(affine=False), (4, 3, 2, 2)),
    ("BatchNorm2d", dict(track_running_stats=False), (4, 3, 2, 2)),
    ("BatchNorm2d", dict(bias=False), (4, 3, 2, 2)),
    ("BatchNorm3d", {}, (4, 3, 2, 3, 2)),
    ("BatchNorm3d", dict(momentum=None, affine=False), (2, 3, 2, 2, 2)),
    # 8+ samples of 128+ positions: the per-channel operands laid out a sample long (_spread)
    ("BatchNorm2d", {}, (8, 3, 12, 11)),
    ("BatchNorm2d", dict(affine=False), (9, 3, 16, 8)),
    ("BatchNorm1d", dict(bias=False), (8, 3, 130)),
    ("InstanceNorm1d", dict(affine=True, track_running_stats=True), (4, 3, 5)),
    ("InstanceNorm2d", dict(track_running_stats=True, momentum=None), (2, 3, 4, 2)),
    ("InstanceNorm3d", dict(affine=True, track_running_stats=True), (2, 3, 2, 3, 4)),
])
def test_batch_norm_train_then_eval(cls, kw, shape):
    e_mod, t_mod = check_module(lambda lib: getattr(lib.nn, cls)(3, **kw).double(), rand(*shape),
                                calls=3)  # three steps: running stats and momentum=None average
    assert repr(e_mod) == repr(t_mod)
    if kw.get("track_running_stats", True):  # instance norm counts no batches, as torch
        assert int(e_mod.num_batches_tracked) == int(t_mod.num_batches_tracked)
        assert int(e_mod.num_batches_tracked) == (0 if cls.startswith("Instance") else 3)
    x = rand(*shape, seed=9)
    e_mod.eval()
    t_mod.eval()
    close(e_mod(ember.tensor(x)), t_mod(torch.tensor(x)), what="eval output")


def test_batch_norm_eval_gradients():
    check_module(lambda lib: lib.nn.BatchNorm2d(3).double(), rand(4, 3, 2, 2), train=False)


def test_batch_norm_float32_and_state_dict():
    e_mod, t_mod = check_module(lambda lib: lib.nn.BatchNorm2d(5), rand(8, 5, 3, 3,
                                dtype=np.float32), rtol=1e-4, atol=1e-5, calls=2)
    assert e_mod.num_batches_tracked.dtype == ember.int64
    assert e_mod.running_mean.dtype == ember.float32


@pytest.mark.parametrize("cls,shape,message", [
    ("BatchNorm2d", (4, 3, 2), "expected 4D input (got 3D input)"),
    ("BatchNorm1d", (4, 3, 2, 2), "expected 2D or 3D input (got 4D input)"),
    ("BatchNorm3d", (4, 3, 2, 2), "expected 5D input (got 4D input)"),
    ("InstanceNorm3d", (3, 2, 2), "expected 4D or 5D input (got 3D input)"),
    ("InstanceNorm1d", (3,), "expected 2D or 3D input (got 1D input)"),
])
def test_batch_norm_dim_errors(cls, shape, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        getattr(ember.nn, cls)(3)(ember.zeros(*shape))


@pytest.mark.parametrize("args,kw,shape", [
    ((5,), {}, (2, 4, 5)), (((3, 5),), dict(eps=1e-3), (2, 3, 5)),
    ((5,), dict(elementwise_affine=False), (4, 5)), ((5,), dict(bias=False), (4, 5)),
])
def test_layer_norm(args, kw, shape):
    e_mod, t_mod = check_module(lambda lib: lib.nn.LayerNorm(*args, **kw).double(), rand(*shape))
    assert repr(e_mod) == repr(t_mod)


@pytest.mark.parametrize("args,kw,shape", [((2, 4), {}, (3, 4, 5)), ((3, 6), dict(affine=False),
                                                                     (2, 6, 2, 2))])
def test_group_norm(args, kw, shape):
    e_mod, t_mod = check_module(lambda lib: lib.nn.GroupNorm(*args, **kw).double(), rand(*shape))
    assert repr(e_mod) == repr(t_mod)


def test_group_norm_constructor_error():
    msgs = []
    for L in (torch, ember):
        with pytest.raises(ValueError) as info:
            L.nn.GroupNorm(3, 4)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]  # (torch names both numbers)


def test_default_init():
    bn = ember.nn.BatchNorm2d(4)
    assert np.all(bn.weight.detach().numpy() == 1) and np.all(bn.bias.detach().numpy() == 0)
    assert np.all(bn.running_var.numpy() == 1) and np.all(bn.running_mean.numpy() == 0)
    ln = ember.nn.LayerNorm(4)
    assert np.all(ln.weight.detach().numpy() == 1) and np.all(ln.bias.detach().numpy() == 0)


@pytest.mark.parametrize("fn", [
    lambda L, x: L.nn.functional.layer_norm(x, (6,)),
    lambda L, x: L.nn.functional.group_norm(x, 2),
    lambda L, x: L.nn.functional.batch_norm(x, None, None, training=True)])
def test_output_without_affine_is_not_the_saved_normalized_input(fn):
    # the output was a view of the xhat kept for backward: an in-place op on it changed grads
    x = np.random.default_rng(0).standard_normal((4, 6))
    grads = []
    for lib in (ember, torch):
        a = lib.tensor(x, requires_grad=True)
        y = fn(lib, a)
        z = y * 1
        y.add_(1.0)
        (y * z).sum().backward()
        grads.append(a.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cls,kw,shape", [
    ("InstanceNorm1d", {}, (4, 3, 5)), ("InstanceNorm2d", dict(affine=True), (3, 4, 2)),
    ("InstanceNorm3d", dict(eps=1e-3), (2, 3, 2, 3, 4)), ("InstanceNorm3d", {}, (3, 2, 3, 4)),
])
def test_instance_norm_modules(cls, kw, shape):
    """Unbatched inputs included; no running statistics by default."""
    e_mod, t_mod = check_module(lambda lib: getattr(lib.nn, cls)(3, **kw).double(), rand(*shape))
    assert repr(e_mod) == repr(t_mod) and e_mod.running_mean is None


def test_instance_norm_feature_mismatch_as_torch():
    x = rand(2, 4, 5)
    for lib in (torch, ember):
        with pytest.raises(ValueError, match=r"expected input's size at dim=1 to match "
                           r"num_features \(3\), but got: 4."):
            lib.nn.InstanceNorm1d(3, affine=True)(lib.tensor(x))
        with pytest.warns(UserWarning, match="does not match num_features"):
            lib.nn.InstanceNorm1d(3)(lib.tensor(x))



def _norm_layers(lib):
    nn = lib.nn
    return [nn.BatchNorm1d(3), nn.InstanceNorm2d(3, track_running_stats=True),
            nn.LazyInstanceNorm1d(), nn.LazyBatchNorm2d(), nn.SyncBatchNorm(3), nn.LayerNorm(3),
            nn.GroupNorm(1, 3)]


def test_instance_norm_is_no_batch_norm_as_in_torch():
    """``isinstance(m, nn.modules.batchnorm._BatchNorm)`` (freezing BN layers) must not catch
    InstanceNorm: torch's hierarchy is _NormBase -> _BatchNorm / _InstanceNorm."""
    seen = []
    for lib in (torch, ember):
        classes = (lib.nn.modules.batchnorm._BatchNorm, lib.nn.modules.batchnorm._NormBase,
                   lib.nn.modules.instancenorm._InstanceNorm)
        seen.append([[isinstance(m, c) for c in classes] for m in _norm_layers(lib)])
    assert seen[1] == seen[0]


def test_swa_update_bn_leaves_tracked_instance_norm_alone():
    """update_bn resets and re-estimates batch norm statistics only (torch's isinstance)."""
    got = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.InstanceNorm1d(2, track_running_stats=True),
                                  lib.nn.BatchNorm1d(2))
        model[0].running_mean.fill_(5.0)
        lib.optim.swa_utils.update_bn([lib.randn(4, 2, 3)], model)
        got.append([b.numpy().copy() for b in model.buffers()])
    for e, t in zip(got[1], got[0]):
        np.testing.assert_allclose(e, t, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (8, 3, 16, 16)])
def test_batch_norm_of_a_channels_last_input_keeps_torch_layouts(shape):
    """The output's and the input gradient's strides as torch's for a channels-last input, also
    with 8+ samples of 128+ positions (where C-contiguous passes lay the per-channel operands
    out a sample long)."""
    x0 = rand(*shape, dtype=np.float32)
    g0 = rand(*shape, seed=3, dtype=np.float32)
    strides = []
    for lib in (torch, ember):
        x = lib.tensor(x0).contiguous(memory_format=lib.channels_last).requires_grad_()
        y = lib.nn.BatchNorm2d(shape[1])(x)
        y.backward(lib.tensor(g0).contiguous(memory_format=lib.channels_last))
        strides.append((y.stride(), x.grad.stride()))
    assert strides[1] == strides[0]
