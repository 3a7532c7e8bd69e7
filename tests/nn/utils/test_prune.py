"""nn.utils.prune against torch: the same pruning calls on modules built from the same seed give
the same masks, pruned tensors, parameter/buffer names, hooks and errors (ember draws torch's
random stream, so random pruning picks the same entries)."""
import numpy as np
import pytest
import torch
import torch.nn.utils.prune  # noqa: F401  (torch does not import it with nn.utils)

import ember


def _both(build):
    out = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        out.append((lib, build(lib)))
    return out


def _names(pairs):
    return [n for n, _ in pairs]


def _same(e, t):
    np.testing.assert_array_equal(e.detach().numpy(), t.detach().numpy())


def _conv(lib):
    return lib.nn.Conv2d(2, 6, 3)


def test_random_then_l1_then_ln_structured_as_torch():
    (tl, t), (el, e) = _both(_conv)
    for lib, m in ((tl, t), (el, e)):
        lib.nn.utils.prune.random_unstructured(m, name="weight", amount=0.3)
        lib.nn.utils.prune.l1_unstructured(m, name="bias", amount=3)
        lib.nn.utils.prune.ln_structured(m, name="weight", amount=0.5, n=2, dim=0)
    for name in ("weight", "bias", "weight_mask", "bias_mask", "weight_orig"):
        _same(getattr(e, name), getattr(t, name))
    assert _names(e.named_parameters()) == _names(t.named_parameters())
    assert _names(e.named_buffers()) == _names(t.named_buffers())
    assert list(e.state_dict()) == list(t.state_dict())
    hooks = [type(h).__name__ for h in e._forward_pre_hooks.values()]
    assert hooks == [type(h).__name__ for h in t._forward_pre_hooks.values()]
    container = [h for h in e._forward_pre_hooks.values() if h._tensor_name == "weight"][0]
    assert [type(m).__name__ for m in container] == ["RandomUnstructured", "LnStructured"]


def test_pruned_forward_and_gradient_as_torch():
    (tl, t), (el, e) = _both(lambda lib: lib.nn.Linear(6, 4))
    x = np.random.default_rng(0).standard_normal((3, 6)).astype(np.float32)
    for lib, m in ((tl, t), (el, e)):
        lib.nn.utils.prune.l1_unstructured(m, name="weight", amount=0.5)
        m(lib.tensor(x)).pow(2).sum().backward()
    np.testing.assert_allclose(e.weight_orig.grad._data, t.weight_orig.grad.numpy(), rtol=1e-6)
    assert not e.weight._data[e.weight_mask._data == 0].any()
    with ember.no_grad():  # the pre-hook recomputes weight from weight_orig at each forward
        e.weight_orig.add_(1.0)
    e(ember.tensor(x))
    np.testing.assert_array_equal(e.weight._data, (e.weight_orig * e.weight_mask)._data)


def test_remove_makes_pruning_permanent_as_torch():
    (tl, t), (el, e) = _both(_conv)
    for lib, m in ((tl, t), (el, e)):
        lib.nn.utils.prune.random_structured(m, "weight", amount=2, dim=1)
        lib.nn.utils.prune.remove(m, "weight")
    assert isinstance(e.weight, ember.nn.Parameter)
    _same(e.weight, t.weight)
    assert _names(e.named_parameters()) == _names(t.named_parameters())
    assert _names(e.named_buffers()) == [] and not e._forward_pre_hooks
    assert not ember.nn.utils.prune.is_pruned(e)


def test_global_unstructured_as_torch():
    def build(lib):
        return lib.nn.Sequential(lib.nn.Linear(8, 6), lib.nn.Linear(6, 3))

    (tl, t), (el, e) = _both(build)
    for lib, m in ((tl, t), (el, e)):
        params = [(m[0], "weight"), (m[1], "weight")]
        lib.nn.utils.prune.global_unstructured(
            params, pruning_method=lib.nn.utils.prune.L1Unstructured, amount=0.4)
    for i in (0, 1):
        _same(e[i].weight_mask, t[i].weight_mask)
    assert ember.nn.utils.prune.is_pruned(e)


def test_custom_method_and_custom_from_mask_as_torch():
    (tl, t), (el, e) = _both(lambda lib: lib.nn.Linear(3, 5))
    for lib, m in ((tl, t), (el, e)):
        class EveryOther(lib.nn.utils.prune.BasePruningMethod):
            PRUNING_TYPE = "unstructured"

            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask.view(-1)[::2] = 0
                return mask

        EveryOther.apply(m, "bias")
        lib.nn.utils.prune.custom_from_mask(m, "weight", mask=lib.eye(5, 3))
        lib.nn.utils.prune.identity(m, "bias")
    _same(e.bias_mask, t.bias_mask)
    _same(e.weight, t.weight)


@pytest.mark.parametrize("call", [
    lambda lib, m: lib.nn.utils.prune.l1_unstructured(m, "weight", amount=1.5),
    lambda lib, m: lib.nn.utils.prune.l1_unstructured(m, "weight", amount=100),
    lambda lib, m: lib.nn.utils.prune.ln_structured(m, "bias", amount=1, n=2, dim=0),
    lambda lib, m: lib.nn.utils.prune.remove(m, "weight"),
])
def test_errors_match_torch(call):
    caught = []
    for lib in (torch, ember):
        m = lib.nn.Linear(3, 2)
        with pytest.raises(Exception) as info:
            call(lib, m)
        message = str(info.value).split(" of module")[0].replace("torch.", "ember.")
        caught.append((info.type.__name__, message))
        assert "weight" in dict(m.named_parameters())  # a failed pruning leaves it as it was
    assert caught[0] == caught[1]
