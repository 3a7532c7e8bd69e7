"""The CTC node (ember/ops/ctc.py): the loss equals a brute-force sum over all alignments, its
gradient (torch's formula, seen through a log_softmax) passes a float64 finite-difference
gradcheck without torch, and create_graph gives a gradient torch cannot differentiate again."""
import itertools

import numpy as np
import pytest

import ember
from ember.ops.ctc import CtcLossBackward0


def _collapse(path, blank):
    out = [k for k, _ in itertools.groupby(path)]
    return [k for k in out if k != blank]


def _brute_force(lp, target, steps, blank):
    """-log Σ over all label paths of length steps that collapse to target."""
    total = 0.0
    for path in itertools.product(range(lp.shape[1]), repeat=steps):
        if _collapse(path, blank) == list(target):
            total += np.exp(sum(lp[t, c] for t, c in enumerate(path)))
    return -np.log(total) if total > 0 else np.inf


@pytest.mark.parametrize("target,steps,blank", [([1, 2], 4, 0), ([1, 1], 4, 0), ([], 3, 0),
                                                ([0, 2, 2], 5, 1), ([2, 2, 2], 4, 0)])
def test_loss_is_the_sum_over_alignments(target, steps, blank):
    rng = np.random.default_rng(len(target) + steps)
    x = rng.standard_normal((5, 1, 3))
    lp = x - np.log(np.exp(x).sum(axis=2, keepdims=True))
    ours = CtcLossBackward0.apply(ember.tensor(lp), labels=[np.array(target, dtype=np.int64)],
                                  input_lengths=np.array([steps]),
                                  target_lengths=np.array([len(target)]), blank=blank,
                                  zero_infinity=False)
    np.testing.assert_allclose(ours.numpy()[0], _brute_force(lp[:, 0], target, steps, blank),
                               rtol=1e-12)


def test_gradient_through_log_softmax_matches_finite_differences():
    rng = np.random.default_rng(0)
    x = ember.tensor(rng.standard_normal((6, 3, 4)), requires_grad=True)
    targets = ember.tensor([[1, 2, 2], [3, 3, 0], [1, 0, 0]])

    def loss(x):
        return ember.nn.functional.ctc_loss(x.log_softmax(2), targets, (6, 5, 4), (3, 2, 1),
                                            reduction="none")
    assert ember.autograd.gradcheck(loss, (x,))


def test_second_derivative_is_refused_as_torch():
    x = ember.tensor(np.random.default_rng(1).standard_normal((4, 1, 3)), requires_grad=True)
    loss = ember.nn.functional.ctc_loss(x.log_softmax(2), ember.tensor([[1, 2]]), (4,), (2,))
    (grad,) = ember.autograd.grad(loss, x, create_graph=True)
    assert grad.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not "
                                           "implemented"):
        grad.sum().backward()
