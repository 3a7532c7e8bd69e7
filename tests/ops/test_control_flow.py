"""torch.cond (ember/ops/control_flow.py): the chosen branch's values and gradients, torch's error
for a predicate of several elements."""
import pytest
import torch

import ember


@pytest.mark.parametrize("pred", [True, False, "tensor_true", "tensor_false"])
def test_branch_values_and_gradients_match_torch(pred):
    seen = []
    for lib in (ember, torch):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        p = lib.tensor(pred.endswith("true")) if isinstance(pred, str) else pred
        out = lib.cond(p, lambda t: t.sin() * 2, lambda t: t.cos() + t, [x])
        out.sum().backward()
        seen.append(out.tolist() + x.grad.tolist())
    assert seen[0] == pytest.approx(seen[1], rel=1e-6)


def test_no_operands_and_bad_predicate_like_torch():
    assert ember.cond(True, lambda: ember.ones(1), lambda: ember.zeros(1)).tolist() == [1.0]
    messages = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as info:
            lib.cond(lib.ones(2) > 0, lambda t: t, lambda t: t, (lib.ones(2),))
        messages.append(str(info.value))
    assert messages[0] == messages[1]
