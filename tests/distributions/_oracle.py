"""What the distribution tests share: build with ember and with torch from the same seed, compare
the results, and compare the exceptions raised."""
import numpy as np
import pytest
import torch

import ember


def run(lib, build):
    lib.manual_seed(0)
    return build(lib, lib.distributions)


def same(e, t):
    if isinstance(t, torch.Tensor):
        assert e.dtype.is_floating_point == t.dtype.is_floating_point and e.shape == t.shape
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)  # float32 sums may differ in order
    elif isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            same(a, b)
    else:
        assert e == t


def same_as_torch(build):
    same(run(ember, build), run(torch, build))


def raises_as_torch(bad):
    caught = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            bad(lib, lib.distributions)
        caught.append((type(info.value), str(info.value).replace("ember.", "torch.")))
    assert caught[0] == caught[1]


def _grads(value, params):
    for p in params:
        p.grad = None
    value.sum().backward(retain_graph=True)
    return [p.grad for p in params]


def _maybe(compute):
    """compute(), or the name of the exception it raises (NotImplementedError: no such method)."""
    try:
        return compute()
    except Exception as error:  # compared by type name between ember and torch
        return type(error).__name__


def profile(m, d, params, value=None, n=3, rsample_params=None):
    """Everything a distribution answers, for comparing ember with torch: shapes and flags, samples
    (the stream after them too), rsample and its gradients, log_prob at ``value`` (default: the
    samples) and its gradients, moments, entropy, cdf/icdf, expand."""
    out = [tuple(d.batch_shape), tuple(d.event_shape), d.has_rsample,
           repr(d.support).replace("ember.", "torch."),
           d.sample((n,))]
    if d.has_rsample:
        r = d.rsample((n,))
        out += [r, _grads(r, params if rsample_params is None else rsample_params)]
    if value is None:
        value = d.sample((n,))
    lp = d.log_prob(value)
    out += [lp, _grads(lp, params)]
    for name in ("mean", "mode", "variance", "stddev"):
        out.append(_maybe(lambda: getattr(d, name).detach()))
    out.append(_maybe(lambda: d.entropy().detach()))
    out.append(_maybe(lambda: d.cdf(value).detach()))
    if not d.event_shape:
        probs = m.rand(value.shape, dtype=value.dtype)
        out.append(_maybe(lambda: d.icdf(probs).detach()))
    e = d.expand((2,) + tuple(d.batch_shape))
    out += [type(e).__name__, tuple(e.batch_shape), e.sample(), m.rand(2)]
    return out


def rsample_grads_close_to_torch(build, rtol, atol):
    """The gradients of ``build(m, D)``'s rsample (it returns the draws and the leaves) agree
    with torch's within rtol/atol: for samplers whose gradient torch approximates (its gamma
    and Dirichlet kernels) while ember computes it exactly. The draws themselves are equal."""
    results = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        draws, leaves = build(lib, lib.distributions)
        draws.sum().backward()
        results.append((draws.detach().numpy(), [leaf.grad.numpy() for leaf in leaves]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    for mine, theirs in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(mine, theirs, rtol=rtol, atol=atol)


def check_transform(make, dtype, shape=(2, 3), positive=False, jacobian=True, grad=True):
    """A transform ``make(m, T, x)`` against torch's at x of ``shape`` (positive when asked):
    y, the inverse, domains, bijectivity, shapes, ==, and (when it has one) log|det J| with its
    gradient, the inverse's log|det J| and the sign."""
    def build(m, D):
        x = m.randn(*shape, dtype=getattr(m, dtype))
        if positive:
            x = x.abs() + 0.1
        x.requires_grad_()
        t = make(m, D.transforms, x)
        y = t(x)
        out = [y, t.inv(y), repr(t.domain), repr(t.codomain), t.bijective,
               t == make(m, D.transforms, x), t.inv.inv is t]
        if jacobian:
            jac = t.log_abs_det_jacobian(x, y)
            out += [jac, t.inv.log_abs_det_jacobian(y, x), _maybe(lambda: t.sign)]
            if grad:
                (jac.sum() + y.sum()).backward()
                out.append(x.grad)
        return out
    same_as_torch(build)
