"""nn.utils.fusion: conv/linear + eval BatchNorm folded into one layer, against torch."""
import numpy as np
import pytest
import torch

import ember
from ember.nn import utils
from ember.nn.utils import fusion


def _to_ember(t_mod, e_mod):
    e_mod.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in
                           t_mod.state_dict().items()})
    return e_mod.eval()


def _bn_pair(lib_bn, features, seed, affine=True):
    torch.manual_seed(seed)
    t_bn = getattr(torch.nn, lib_bn)(features, affine=affine)
    with torch.no_grad():
        t_bn.running_mean.normal_()
        t_bn.running_var.uniform_(0.5, 2.0)
        if affine:
            t_bn.weight.normal_()
            t_bn.bias.normal_()
    return _to_ember(t_bn, getattr(ember.nn, lib_bn)(features, affine=affine)), t_bn.eval()


CONVS = [
    ("Conv2d", (3, 4, 3), {}, "BatchNorm2d", 4, False, (2, 3, 6, 6)),
    ("Conv1d", (2, 5, 2), {"bias": False}, "BatchNorm1d", 5, False, (2, 2, 7)),
    ("ConvTranspose2d", (3, 2, 3), {}, "BatchNorm2d", 2, True, (1, 3, 4, 4)),
]


@pytest.mark.parametrize("conv, args, kwargs, bn, features, transpose, shape", CONVS)
def test_fuse_conv_bn_eval_matches_torch(conv, args, kwargs, bn, features, transpose, shape):
    torch.manual_seed(0)
    t_conv = getattr(torch.nn, conv)(*args, **kwargs).eval()
    e_conv = _to_ember(t_conv, getattr(ember.nn, conv)(*args, **kwargs))
    e_bn, t_bn = _bn_pair(bn, features, 1, affine=not kwargs)
    e_fused = utils.fuse_conv_bn_eval(e_conv, e_bn, transpose=transpose)
    t_fused = torch.nn.utils.fuse_conv_bn_eval(t_conv, t_bn, transpose=transpose)
    assert type(e_fused) is type(e_conv) and e_fused is not e_conv
    for name in ("weight", "bias"):
        e_p, t_p = getattr(e_fused, name), getattr(t_fused, name)
        assert isinstance(e_p, ember.nn.Parameter) and e_p.requires_grad == t_p.requires_grad
        np.testing.assert_allclose(e_p.detach().numpy(), t_p.detach().numpy(), rtol=1e-6,
                                   atol=1e-6)
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(e_fused(ember.tensor(x)).detach().numpy(),
                               e_bn(e_conv(ember.tensor(x))).detach().numpy(), rtol=1e-4,
                               atol=1e-5)


@pytest.mark.parametrize("features, bias", [(3, True), (1, False)])
def test_fuse_linear_bn_eval_matches_torch(features, bias):
    torch.manual_seed(0)
    t_lin = torch.nn.Linear(4, 3, bias=bias).eval()
    e_lin = _to_ember(t_lin, ember.nn.Linear(4, 3, bias=bias))
    e_bn, t_bn = _bn_pair("BatchNorm1d", features, 2)
    e_fused = fusion.fuse_linear_bn_eval(e_lin, e_bn)
    t_fused = torch.nn.utils.fusion.fuse_linear_bn_eval(t_lin, t_bn)
    for name in ("weight", "bias"):
        e_p, t_p = getattr(e_fused, name), getattr(t_fused, name)
        assert e_p.requires_grad == t_p.requires_grad
        np.testing.assert_allclose(e_p.detach().numpy(), t_p.detach().numpy(), rtol=1e-6)
    assert e_lin.bias is None if not bias else e_lin.bias is not e_fused.bias


def test_fuse_weights_functions_match_torch():
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((3, 2), (3,), (3,), (3,),
                                                                   (3,), (3,))]
    arrays[3] = np.abs(arrays[3]) + 0.5  # a variance
    e_out = utils.fuse_linear_bn_weights(*[ember.tensor(a) for a in arrays[:4]], 1e-5,
                                         *[ember.tensor(a) for a in arrays[4:]])
    t_out = torch.nn.utils.fuse_linear_bn_weights(*[torch.tensor(a) for a in arrays[:4]], 1e-5,
                                                  *[torch.tensor(a) for a in arrays[4:]])
    for e, t in zip(e_out, t_out):
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-6)
    conv_w = rng.standard_normal((3, 2, 2)).astype(np.float32)
    e_w, e_b = utils.fuse_conv_bn_weights(ember.tensor(conv_w), None,
                                          *[ember.tensor(a) for a in arrays[2:4]], 1e-3,
                                          None, None)
    t_w, t_b = torch.nn.utils.fuse_conv_bn_weights(torch.tensor(conv_w), None,
                                                   *[torch.tensor(a) for a in arrays[2:4]],
                                                   1e-3, None, None)
    np.testing.assert_allclose(e_w.detach().numpy(), t_w.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(e_b.detach().numpy(), t_b.detach().numpy(), rtol=1e-6)


def test_errors_as_torch():
    conv, bn = ember.nn.Conv2d(1, 2, 1), ember.nn.BatchNorm2d(2)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        utils.fuse_conv_bn_eval(conv, bn.eval())
    no_stats = ember.nn.BatchNorm2d(2, track_running_stats=False).eval()
    with pytest.raises(AssertionError, match="bn.running_mean and bn.running_var must not be"):
        utils.fuse_conv_bn_eval(conv.eval(), no_stats)
    with pytest.raises(AssertionError, match="linear.out_features=3 and bn.num_features=2"):
        utils.fuse_linear_bn_eval(ember.nn.Linear(2, 3).eval(), ember.nn.BatchNorm1d(2).eval())
